// Shape inference: the result shape of every opcode from its operand shapes
// and attributes, as XLA's ShapeInference computes it, with the StableHLO
// spec's constraints as the checklist.
//
// One function per opcode family; passes that create instructions call these
// instead of writing shapes by hand. Results carry no layout (compare with
// Shape::Compatible). Tuple results intern their elements in `pool`. Errors
// are InvalidArgument statuses whose message says what is wrong without the
// place (the verifier adds `FILE:LINE:COL: error: %name:`).
//
// The functions live in shape_inference_*.cc by family.
#ifndef HLO_PASSES_SHAPE_INFERENCE_H_
#define HLO_PASSES_SHAPE_INFERENCE_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/attribute.h"
#include "ir/instruction.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace hlo {

using Shapes = absl::Span<const Shape* const>;

// A called computation's signature.
struct ProgramShape {
  std::vector<const Shape*> params;
  const Shape* result = nullptr;
};
ProgramShape ProgramShapeOf(const Computation& computation);

// ---- elementwise (shape_inference_elementwise.cc) ---------------------------
// Unary ops except convert/bitcast-convert/reduce-precision. Checks the
// element types the op allows (no sqrt on integers, no not on floats, …).
absl::StatusOr<Shape> InferUnaryShape(Opcode op, const Shape& operand);
// Binary ops other than compare and complex: same dims and element type;
// shifts/and/or/xor only on integers (and pred for the logical ones), …
absl::StatusOr<Shape> InferBinaryShape(Opcode op, const Shape& lhs, const Shape& rhs);
// direction EQ..GE; type FLOAT/TOTALORDER/SIGNED/UNSIGNED and order
// TOTAL/PARTIAL must suit the element type (and each other) when given
// (empty: default).
absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs,
                                        std::string_view direction,
                                        std::string_view comparison_type,
                                        std::string_view order = {});
absl::StatusOr<Shape> InferComplexShape(const Shape& real, const Shape& imag);
absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false);
absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand, const Shape& max);
absl::StatusOr<Shape> InferConvertShape(const Shape& operand, PrimitiveType to);
absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand, PrimitiveType to);
absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand, const Shape& random,
                                                  PrimitiveType to);
absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand, int64_t exponent_bits,
                                                int64_t mantissa_bits);
// map: operands of equal dims; the computation takes one scalar per operand.
absl::StatusOr<Shape> InferMapShape(Shapes operands, const ProgramShape& to_apply,
                                    absl::Span<const int64_t> dimensions);

// ---- data movement (shape_inference_data.cc) --------------------------------
// broadcast: the result dims are given (XLA's broadcast carries its result
// shape); checks operand dim i == result dim dimensions[i].
absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand,
                                          absl::Span<const int64_t> result_dims,
                                          absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                        absl::Span<const int64_t> result_dims);
absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation);
absl::StatusOr<Shape> InferSliceShape(const Shape& operand, const SliceSpec& slice);
absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand, Shapes start_indices,
                                             absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                   Shapes start_indices);
absl::StatusOr<Shape> InferConcatenateShape(Shapes operands, int64_t dimension);
absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                    const PaddingConfig& padding);
absl::StatusOr<Shape> InferReverseShape(const Shape& operand, absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferIotaShape(const Shape& result, int64_t iota_dimension);
absl::StatusOr<Shape> InferTupleShape(Shapes elements, ShapePool& pool);
absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index);
// bitcast: same element type... XLA only asks for the same byte size.
absl::StatusOr<Shape> InferBitcastShape(const Shape& operand, const Shape& result);
absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                       const Instruction& gather);
// Variadic scatter: N operands, indices, N updates; to_apply takes 2N scalars.
absl::StatusOr<Shape> InferScatterShape(Shapes operands, const Shape& indices, Shapes updates,
                                        const ProgramShape& to_apply, const Instruction& scatter,
                                        ShapePool& pool);
absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension);
absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& size,
                                                 int64_t dimension);
absl::StatusOr<Shape> InferDynamicReshapeShape(const Shape& operand, Shapes dim_sizes,
                                               const Shape& result);

// ---- reductions and windows (shape_inference_reduce.cc) ---------------------
// Variadic reduce: N inputs, N scalar inits; to_apply takes 2N scalars and
// returns N (a tuple when N > 1).
absl::StatusOr<Shape> InferReduceShape(Shapes inputs, Shapes inits,
                                       absl::Span<const int64_t> dimensions,
                                       const ProgramShape& to_apply, ShapePool& pool);
// window is empty for rank 0.
absl::StatusOr<Shape> InferReduceWindowShape(Shapes inputs, Shapes inits, const Window& window,
                                             const ProgramShape& to_apply, ShapePool& pool);
absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand, const ProgramShape& select,
                                                 const Window& window, const Shape& source,
                                                 const Shape& init, const ProgramShape& scatter);
// Sorts N operands of equal dims along `dimension`; comparator takes 2N
// scalars and returns pred[].
absl::StatusOr<Shape> InferSortShape(Shapes operands, int64_t dimension,
                                     const ProgramShape& comparator, ShapePool& pool);
absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k, ShapePool& pool);

// ---- control flow (shape_inference_control.cc) ------------------------------
absl::StatusOr<Shape> InferCallShape(Shapes operands, const ProgramShape& to_apply);
absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition, const ProgramShape& body,
                                      const Shape& init);
// scan (XLA's HloScanInstruction, xla/service/scan_expander.cc): operands
// are inputs then `num_carries` initial carries; to_apply takes an element
// of each input (the scan dimension removed) then the carries, and returns
// (outputs..., carries...); the result is the outputs stacked along the
// scan dimension, then the final carries (a single array when to_apply's
// root is one). With no inputs the scan length comes from `declared`.
absl::StatusOr<Shape> InferScanShape(Shapes operands, const ProgramShape& to_apply,
                                     int64_t dimension, int64_t num_carries, const Shape& declared,
                                     ShapePool& pool);
// branch_index is pred[] (two branches) or s32[].
absl::StatusOr<Shape> InferConditionalShape(const Shape& branch_index,
                                            const std::vector<ProgramShape>& branches,
                                            Shapes branch_operands);
absl::StatusOr<Shape> InferAfterAllShape(Shapes operands);
absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand, const Shape& token);

// ---- dot, convolution, linear algebra, fft (shape_inference_linalg.cc) ------
struct DotDims {
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};
DotDims DotDimsOf(const Instruction& inst);
// preferred: the element type the instruction declares (may differ from the
// operands': s8 x s8 -> s32, bf16 x bf16 -> f32).
absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs, const DotDims& dims,
                                    std::optional<PrimitiveType> preferred);
// ragged-dot: lhs, rhs and group_sizes; one lhs ragged dimension whose kind
// (non-contracting, contracting, batch) decides the result, as JAX's
// ragged_dot_general describes it.
absl::StatusOr<Shape> InferRaggedDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& group_sizes, const DotDims& dims,
                                          absl::Span<const int64_t> lhs_ragged,
                                          absl::Span<const int64_t> rhs_group,
                                          std::optional<PrimitiveType> preferred);
// scaled-dot: a dot of lhs and rhs; each scale has its operand's rank and
// divides its dimensions into blocks.
absl::StatusOr<Shape> InferScaledDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& lhs_scale, const Shape& rhs_scale,
                                          const DotDims& dims,
                                          std::optional<PrimitiveType> preferred);
absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            const Window& window, const ConvDims& dims,
                                            int64_t feature_group_count, int64_t batch_group_count,
                                            std::optional<PrimitiveType> preferred);
absl::StatusOr<Shape> InferFftShape(const Shape& operand, std::string_view fft_type,
                                    absl::Span<const int64_t> fft_length);
absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b, bool left_side);
absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);
absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                  const Shape& offset, int64_t feature_index,
                                                  ShapePool& pool);
absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                   const Shape& offset, const Shape& mean,
                                                   const Shape& variance, int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                              const Shape& mean, const Shape& variance,
                                              const Shape& grad_output, int64_t feature_index,
                                              ShapePool& pool);
absl::StatusOr<Shape> InferRngShape(std::string_view distribution, Shapes params,
                                    const Shape& result);
absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state, std::string_view algorithm,
                                                const Shape& result);

// ---- collectives, async, communication (shape_inference_collective.cc) ------
// Covers all-reduce, all-gather, reduce-scatter, all-to-all, collective-
// permute, collective-broadcast, ragged-all-to-all, collective-reduce,
// replica-id, partition-id and their -start/-done forms, send/recv and
// their -done forms, infeed/outfeed, copy-start/done, async-start/update/
// done, domain, opt-barrier.
absl::StatusOr<Shape> InferCollectiveShape(const Instruction& inst, ShapePool& pool);

// ---- the dispatcher (shape_inference.cc) -------------------------------------
// The shape `inst` should have, from its operands and attributes. Opcodes
// whose result shape is free (parameter, constant's declared shape,
// custom-call, infeed data, rng results, …) return the declared shape after
// checking what can be checked.
absl::StatusOr<Shape> InferShape(const Instruction& inst, ShapePool& pool);

}  // namespace hlo

#endif  // HLO_PASSES_SHAPE_INFERENCE_H_
