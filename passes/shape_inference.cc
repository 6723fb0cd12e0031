// The dispatcher: pulls operand shapes and attributes out of an instruction
// and calls the family function for its opcode.
#include "passes/shape_inference.h"

#include <limits>

#include "ir/computation.h"
#include "ir/sparsity_config.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

// Operand shapes from index `begin` to `end` (end < 0: to the last).
std::vector<const Shape*> OperandShapes(const Instruction& inst, int64_t begin = 0,
                                        int64_t end = -1) {
  if (end < 0) end = inst.operand_count();
  std::vector<const Shape*> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(inst.operand(i)->shape_ptr());
  return out;
}

absl::StatusOr<const Computation*> Called(const Instruction& inst, AttrKind kind) {
  const Attribute* a = inst.FindAttr(kind);
  if (a) {
    const auto* v = std::get_if<std::vector<Computation*>>(&a->value);
    if (v && v->size() == 1 && (*v)[0] != nullptr) return (*v)[0];
  }
  return ShapeError("'", inst.OpcodeText(), "' needs one computation in '", AttrName(kind), "'");
}

absl::StatusOr<ProgramShape> CalledShape(const Instruction& inst, AttrKind kind) {
  auto c = Called(inst, kind);
  if (!c.ok()) return c.status();
  return ProgramShapeOf(**c);
}

// The single value of a one-element `dimensions` attribute (concatenate,
// sort, get-dimension-size, …).
absl::StatusOr<int64_t> OneDimension(const Instruction& inst) {
  absl::Span<const int64_t> dims = inst.GetInts(AttrKind::kDimensions);
  if (dims.size() != 1) {
    return ShapeError("'", inst.OpcodeText(),
                      "' needs exactly one dimension in "
                      "'dimensions', found ",
                      DimsText(dims));
  }
  return dims[0];
}

absl::StatusOr<Shape> InferConditional(const Instruction& inst) {
  if (inst.operand_count() < 1) return ShapeError("conditional needs a branch index operand");
  std::vector<ProgramShape> branches;
  if (const Attribute* a = inst.FindAttr(AttrKind::kBranchComputations)) {
    for (const Computation* c : std::get<std::vector<Computation*>>(a->value)) {
      branches.push_back(ProgramShapeOf(*c));
    }
  } else {
    for (AttrKind k : {AttrKind::kTrueComputation, AttrKind::kFalseComputation}) {
      auto p = CalledShape(inst, k);
      if (!p.ok()) return p.status();
      branches.push_back(*p);
    }
  }
  return InferConditionalShape(inst.operand(0)->shape(), branches, OperandShapes(inst, 1));
}

absl::StatusOr<Shape> InferReduceFamily(const Instruction& inst, ShapePool& pool) {
  int64_t n = inst.operand_count();
  if (n % 2 != 0 || n == 0) {
    return ShapeError("'", inst.OpcodeText(),
                      "' needs as many init values as inputs, "
                      "but has ",
                      n, " operands");
  }
  auto to_apply = CalledShape(inst, AttrKind::kToApply);
  if (!to_apply.ok()) return to_apply.status();
  auto inputs = OperandShapes(inst, 0, n / 2);
  auto inits = OperandShapes(inst, n / 2);
  if (inst.opcode() == Opcode::kReduce) {
    return InferReduceShape(inputs, inits, inst.GetInts(AttrKind::kDimensions), *to_apply, pool);
  }
  static const Window kNoWindow;
  const Window* w = inst.window();
  return InferReduceWindowShape(inputs, inits, w ? *w : kNoWindow, *to_apply, pool);
}

absl::StatusOr<Shape> InferScatter(const Instruction& inst, ShapePool& pool) {
  int64_t n = inst.operand_count();
  if (n < 3 || n % 2 != 1) {
    return ShapeError("scatter needs N operands, the indices and N updates, but has ", n,
                      " operands");
  }
  auto to_apply = CalledShape(inst, AttrKind::kToApply);
  if (!to_apply.ok()) return to_apply.status();
  int64_t k = (n - 1) / 2;
  return InferScatterShape(OperandShapes(inst, 0, k), inst.operand(k)->shape(),
                           OperandShapes(inst, k + 1), *to_apply, inst, pool);
}

// convolution. A sparse rhs (sparsity_config rhs=1xM) holds 1/M of the input
// features XLA counts for it (only 1:M is supported), and may be given as a
// (values, metadata) tuple, as XLA's InferConvolveShape reads them.
absl::StatusOr<Shape> InferConvolution(const Instruction& inst, const Shape& declared) {
  static const Window kNoWindow;
  const ConvDims* dims = inst.conv_dims();
  if (!dims) return ShapeError("convolution needs 'dim_labels'");
  const Shape* rhs = &inst.operand(1)->shape();
  if (rhs->IsTuple()) {
    if (rhs->tuple_size() != 2) {
      return ShapeError(
          "rhs of convolution, if a tuple, must have 2 elements for sparsity, but "
          "has ",
          ShapeText(*rhs));
    }
    rhs = &rhs->tuple_shape(0);
  }
  Shape sparse_rhs;
  if (inst.HasAttr(AttrKind::kSparsityConfig)) {
    std::string error;
    size_t offset = 0;
    std::optional<SparsityConfig> config =
        ReadSparsityConfig(inst.GetString(AttrKind::kSparsityConfig), &error, &offset);
    if (!config) return ShapeError("sparsity_config: ", error);
    if (config->rhs) {
      const TensorSparsity& t = *config->rhs;
      if (t.num_non_zero != 1) {
        return ShapeError("sparsity_config rhs sparsity=", t.num_non_zero, "x", t.block_size,
                          ": only 1:N sparsity is supported");
      }
      const int64_t d = dims->kernel_input_feature;
      if (rhs->IsArray() && d >= 0 && d < rhs->rank()) {
        std::vector<int64_t> sizes(rhs->dims().begin(), rhs->dims().end());
        if (t.block_size != 0 && sizes[d] > std::numeric_limits<int64_t>::max() / t.block_size) {
          return ShapeError("sparsity_config rhs block size ", t.block_size,
                            " times the kernel's input features overflows");
        }
        sizes[d] *= t.block_size;
        sparse_rhs = Shape::Array(rhs->element_type(), sizes);
        rhs = &sparse_rhs;
      }
    }
  }
  absl::StatusOr<Shape> result = InferConvolutionShape(
      inst.operand(0)->shape(), *rhs, inst.window() ? *inst.window() : kNoWindow, *dims,
      inst.GetInt(AttrKind::kFeatureGroupCount, 1), inst.GetInt(AttrKind::kBatchGroupCount, 1),
      declared.element_type());
  if (!result.ok() && rhs == &sparse_rhs) {
    return ShapeError(std::string(result.status().message()),
                      " (the sparse rhs counts its input features times the sparsity_config "
                      "block size: ",
                      ShapeText(sparse_rhs), ")");
  }
  return result;
}

absl::StatusOr<Shape> InferElementwise(const Instruction& inst, const Shape& declared) {
  auto op = [&](int i) -> const Shape& { return inst.operand(i)->shape(); };
  switch (inst.opcode()) {
    case Opcode::kConvert:
      return InferConvertShape(op(0), declared.element_type());
    case Opcode::kBitcastConvert:
      return InferBitcastConvertShape(op(0), declared.element_type());
    case Opcode::kReducePrecision:
      return InferReducePrecisionShape(op(0), inst.GetInt(AttrKind::kExponentBits),
                                       inst.GetInt(AttrKind::kMantissaBits));
    case Opcode::kStochasticConvert:
      return InferStochasticConvertShape(op(0), op(1), declared.element_type());
    case Opcode::kCompare:
      return InferCompareShape(op(0), op(1), inst.GetString(AttrKind::kDirection),
                               inst.GetString(AttrKind::kType), inst.GetString(AttrKind::kOrder));
    case Opcode::kComplex:
      return InferComplexShape(op(0), op(1));
    case Opcode::kSelect:
      return InferSelectShape(op(0), op(1), op(2));
    case Opcode::kClamp:
      return InferClampShape(op(0), op(1), op(2));
    default:
      if (IsElementwiseUnary(inst.opcode())) return InferUnaryShape(inst.opcode(), op(0));
      return InferBinaryShape(inst.opcode(), op(0), op(1));
  }
}

absl::StatusOr<Shape> InferDataMovement(const Instruction& inst, const Shape& declared,
                                        ShapePool& pool) {
  auto op = [&](int i) -> const Shape& { return inst.operand(i)->shape(); };
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
      return InferBroadcastShape(op(0), declared.dims(), inst.GetInts(AttrKind::kDimensions));
    case Opcode::kReshape:
      return InferReshapeShape(op(0), declared.dims());
    case Opcode::kTranspose:
      return InferTransposeShape(op(0), inst.GetInts(AttrKind::kDimensions));
    case Opcode::kSlice:
      if (!inst.slice()) return ShapeError("slice needs a 'slice' attribute");
      return InferSliceShape(op(0), *inst.slice());
    case Opcode::kDynamicSlice:
      if (inst.operand_count() < 1) return ShapeError("dynamic-slice needs an operand");
      return InferDynamicSliceShape(op(0), OperandShapes(inst, 1),
                                    inst.GetInts(AttrKind::kDynamicSliceSizes));
    case Opcode::kDynamicUpdateSlice:
      if (inst.operand_count() < 2) {
        return ShapeError("dynamic-update-slice needs an operand and an update");
      }
      return InferDynamicUpdateSliceShape(op(0), op(1), OperandShapes(inst, 2));
    case Opcode::kConcatenate: {
      auto d = OneDimension(inst);
      if (!d.ok()) return d.status();
      return InferConcatenateShape(OperandShapes(inst), *d);
    }
    case Opcode::kPad:
      if (!inst.padding()) return ShapeError("pad needs a 'padding' attribute");
      return InferPadShape(op(0), op(1), *inst.padding());
    case Opcode::kReverse:
      return InferReverseShape(op(0), inst.GetInts(AttrKind::kDimensions));
    case Opcode::kIota:
      return InferIotaShape(declared, inst.GetInt(AttrKind::kIotaDimension));
    case Opcode::kTuple:
      return InferTupleShape(OperandShapes(inst), pool);
    case Opcode::kGetTupleElement:
      return InferGetTupleElementShape(op(0), inst.GetInt(AttrKind::kIndex));
    case Opcode::kBitcast:
      return InferBitcastShape(op(0), declared);
    case Opcode::kGather:
      return InferGatherShape(op(0), op(1), inst);
    case Opcode::kScatter:
      return InferScatter(inst, pool);
    case Opcode::kGetDimensionSize: {
      auto d = OneDimension(inst);
      if (!d.ok()) return d.status();
      return InferGetDimensionSizeShape(op(0), *d);
    }
    case Opcode::kSetDimensionSize: {
      auto d = OneDimension(inst);
      if (!d.ok()) return d.status();
      return InferSetDimensionSizeShape(op(0), op(1), *d);
    }
    case Opcode::kDynamicReshape:
      if (inst.operand_count() < 1) return ShapeError("dynamic-reshape needs an operand");
      return InferDynamicReshapeShape(op(0), OperandShapes(inst, 1), declared);
    default:
      return ShapeError("internal: no data-movement rule for ", inst.OpcodeText());
  }
}

absl::StatusOr<Shape> InferLinalg(const Instruction& inst, const Shape& declared, ShapePool& pool) {
  auto op = [&](int i) -> const Shape& { return inst.operand(i)->shape(); };
  int64_t feature_index = inst.GetInt(AttrKind::kFeatureIndex);
  switch (inst.opcode()) {
    case Opcode::kDot:
      return InferDotShape(op(0), op(1), DotDimsOf(inst), declared.element_type());
    case Opcode::kRaggedDot:
      return InferRaggedDotShape(op(0), op(1), op(2), DotDimsOf(inst),
                                 inst.GetInts(AttrKind::kLhsRaggedDims),
                                 inst.GetInts(AttrKind::kRhsGroupDims), declared.element_type());
    case Opcode::kScaledDot:
      return InferScaledDotShape(op(0), op(1), op(2), op(3), DotDimsOf(inst),
                                 declared.element_type());
    case Opcode::kConvolution:
      return InferConvolution(inst, declared);
    case Opcode::kFft:
      return InferFftShape(op(0), inst.GetString(AttrKind::kFftType),
                           inst.GetInts(AttrKind::kFftLength));
    case Opcode::kTriangularSolve:
      return InferTriangularSolveShape(op(0), op(1), inst.GetBool(AttrKind::kLeftSide));
    case Opcode::kCholesky:
      return InferCholeskyShape(op(0));
    case Opcode::kBatchNormTraining:
      return InferBatchNormTrainingShape(op(0), op(1), op(2), feature_index, pool);
    case Opcode::kBatchNormInference:
      return InferBatchNormInferenceShape(op(0), op(1), op(2), op(3), op(4), feature_index);
    case Opcode::kBatchNormGrad:
      return InferBatchNormGradShape(op(0), op(1), op(2), op(3), op(4), feature_index, pool);
    case Opcode::kRng:
      return InferRngShape(inst.GetString(AttrKind::kDistribution), OperandShapes(inst), declared);
    case Opcode::kRngBitGenerator:
      return InferRngBitGeneratorShape(op(0), inst.GetString(AttrKind::kAlgorithm), declared);
    default:
      return ShapeError("internal: no linear-algebra rule for ", inst.OpcodeText());
  }
}

absl::StatusOr<Shape> InferControl(const Instruction& inst, ShapePool& pool) {
  switch (inst.opcode()) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
      return InferReduceFamily(inst, pool);
    case Opcode::kSelectAndScatter: {
      auto select = CalledShape(inst, AttrKind::kSelect);
      if (!select.ok()) return select.status();
      auto scatter = CalledShape(inst, AttrKind::kScatter);
      if (!scatter.ok()) return scatter.status();
      static const Window kNoWindow;
      return InferSelectAndScatterShape(
          inst.operand(0)->shape(), *select, inst.window() ? *inst.window() : kNoWindow,
          inst.operand(1)->shape(), inst.operand(2)->shape(), *scatter);
    }
    case Opcode::kSort: {
      auto d = OneDimension(inst);
      if (!d.ok()) return d.status();
      auto cmp = CalledShape(inst, AttrKind::kToApply);
      if (!cmp.ok()) return cmp.status();
      return InferSortShape(OperandShapes(inst), *d, *cmp, pool);
    }
    case Opcode::kTopK:
      return InferTopKShape(inst.operand(0)->shape(), inst.GetInt(AttrKind::kK), pool);
    case Opcode::kMap: {
      auto f = CalledShape(inst, AttrKind::kToApply);
      if (!f.ok()) return f.status();
      return InferMapShape(OperandShapes(inst), *f, inst.GetInts(AttrKind::kDimensions));
    }
    case Opcode::kCall:
    case Opcode::kFusion: {
      auto f =
          CalledShape(inst, inst.opcode() == Opcode::kCall ? AttrKind::kToApply : AttrKind::kCalls);
      if (!f.ok()) return f.status();
      return InferCallShape(OperandShapes(inst), *f);
    }
    case Opcode::kWhile: {
      auto cond = CalledShape(inst, AttrKind::kCondition);
      if (!cond.ok()) return cond.status();
      auto body = CalledShape(inst, AttrKind::kBody);
      if (!body.ok()) return body.status();
      return InferWhileShape(*cond, *body, inst.operand(0)->shape());
    }
    case Opcode::kConditional:
      return InferConditional(inst);
    case Opcode::kAfterAll:
      return InferAfterAllShape(OperandShapes(inst));
    case Opcode::kAddDependency:
      return InferAddDependencyShape(inst.operand(0)->shape(), inst.operand(1)->shape());
    default:
      return ShapeError("internal: no control rule for ", inst.OpcodeText());
  }
}

}  // namespace

absl::StatusOr<Shape> InferShape(const Instruction& inst, ShapePool& pool) {
  const Shape& declared = inst.shape();
  int arity = OpcodeArity(inst.opcode());
  if (arity != kVariadic && !inst.has_wrapped_opcode() && inst.operand_count() != arity) {
    return ShapeError("'", inst.OpcodeText(), "' takes ", arity, " operand", arity == 1 ? "" : "s",
                      " but has ", inst.operand_count());
  }
  switch (inst.opcode()) {
    case Opcode::kScan: {
      auto d = OneDimension(inst);
      if (!d.ok()) return d.status();
      auto f = CalledShape(inst, AttrKind::kToApply);
      if (!f.ok()) return f.status();
      return InferScanShape(OperandShapes(inst), *f, *d, inst.GetInt(AttrKind::kNumCarries, 0),
                            declared, pool);
    }
    case Opcode::kParameter:
    case Opcode::kCustomCall:
      // The result shape is given by the instruction.
      return declared.WithoutLayout();
    case Opcode::kConstant:
      if (inst.literal() && !inst.literal()->shape().Compatible(declared.WithoutLayout()) &&
          !inst.literal()->IsTuple()) {
        return ShapeError("constant's literal has shape ", ShapeText(inst.literal()->shape()));
      }
      return declared.WithoutLayout();
    case Opcode::kRngGetAndUpdateState:
      return Shape::Array(PrimitiveType::kU64, {2});
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
    case Opcode::kIota:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kGather:
    case Opcode::kScatter:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape:
      return InferDataMovement(inst, declared, pool);
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
    case Opcode::kConvolution:
    case Opcode::kFft:
    case Opcode::kTriangularSolve:
    case Opcode::kCholesky:
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
      return InferLinalg(inst, declared, pool);
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kSort:
    case Opcode::kTopK:
    case Opcode::kMap:
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
      return InferControl(inst, pool);
    default:
      if (IsElementwise(inst.opcode())) return InferElementwise(inst, declared);
      return InferCollectiveShape(inst, pool);
  }
}

}  // namespace hlo
