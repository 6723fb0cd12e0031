#include "eval/batch_program.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "eval/denormals.h"
#include "eval/kernels_elementwise_internal.h"
#include "ir/strings.h"

namespace hlo {

// One elementwise op: registers in, register out.
struct BatchProgram::Step {
  const Instruction* inst = nullptr;
  int32_t operands[3] = {-1, -1, -1};
  int32_t arity = 0;
  int32_t result = -1;
  bool flush = false;  // XLA:CPU's flush-to-zero applies to this op
};

// Walks a computation (inlining calls and fusions) and assigns registers.
class BatchProgram::Compiler {
 public:
  Compiler(BatchProgram& program, bool flush) : program_(program), flush_(flush) {}

  // Registers of `computation`'s root elements, with its parameters bound
  // to `arguments`.
  absl::StatusOr<std::vector<int32_t>> Inline(const Computation& computation,
                                              const std::vector<int32_t>& arguments,
                                              int depth) {
    if (depth > 64) return absl::UnimplementedError("calls nest too deep");
    absl::flat_hash_map<const Instruction*, std::vector<int32_t>> regs;
    for (const Instruction* inst : computation.PostOrder()) {
      absl::StatusOr<std::vector<int32_t>> r = Lower(*inst, regs, arguments, depth);
      if (!r.ok()) return r.status();
      regs[inst] = *std::move(r);
    }
    return regs.at(computation.root());
  }

 private:
  int32_t NewRegister(PrimitiveType type, const Literal* constant) {
    program_.register_types_.push_back(type);
    program_.constants_.push_back(constant);
    return static_cast<int32_t>(program_.register_types_.size() - 1);
  }

  absl::StatusOr<std::vector<int32_t>> Lower(
      const Instruction& inst,
      const absl::flat_hash_map<const Instruction*, std::vector<int32_t>>& regs,
      const std::vector<int32_t>& arguments, int depth) {
    auto unsupported = [&](std::string_view why) {
      return absl::UnimplementedError(StrCat("%", inst.name(), ": ", why));
    };
    const Shape& shape = inst.shape();
    std::vector<int32_t> ins;
    for (const Instruction* op : inst.operands()) {
      const std::vector<int32_t>& r = regs.at(op);
      ins.insert(ins.end(), r.begin(), r.end());
    }
    switch (inst.opcode()) {
      case Opcode::kParameter:
        if (inst.parameter_number() >= static_cast<int64_t>(arguments.size())) {
          return unsupported("no argument for this parameter");
        }
        if (!shape.IsArray() || shape.rank() != 0) return unsupported("not a scalar");
        return std::vector<int32_t>{arguments[inst.parameter_number()]};
      case Opcode::kConstant:
        if (!shape.IsArray() || shape.rank() != 0 || inst.literal() == nullptr ||
            inst.literal()->element_count() != 1) {
          return unsupported("not a scalar constant");
        }
        return std::vector<int32_t>{NewRegister(shape.element_type(), inst.literal())};
      case Opcode::kTuple:
        return ins;
      case Opcode::kGetTupleElement: {
        int64_t index = inst.GetInt(AttrKind::kIndex);
        if (index < 0 || index >= static_cast<int64_t>(ins.size()) || !shape.IsArray()) {
          return unsupported("a nested tuple");
        }
        return std::vector<int32_t>{ins[index]};
      }
      case Opcode::kBitcast: case Opcode::kReshape: case Opcode::kCopy:
      case Opcode::kBroadcast: case Opcode::kTranspose:
        // Rank 0 to rank 0: the value itself.
        if (!shape.IsArray() || shape.rank() != 0 || ins.size() != 1 ||
            inst.operand(0)->shape().element_type() != shape.element_type()) {
          return unsupported("data movement of non-scalars");
        }
        return ins;
      case Opcode::kCall: case Opcode::kFusion: {
        const Computation* callee = inst.to_apply();
        if (callee == nullptr) return unsupported("no called computation");
        return Inline(*callee, ins, depth + 1);
      }
      default:
        break;
    }
    if (!IsElementwise(inst.opcode()) || inst.opcode() == Opcode::kStochasticConvert) {
      return unsupported(StrCat("'", inst.OpcodeText(), "' is not batched"));
    }
    if (!shape.IsArray() || shape.rank() != 0) return unsupported("not a scalar");
    for (const Instruction* op : inst.operands()) {
      if (!op->shape().IsArray() || op->shape().rank() != 0) return unsupported("not scalars");
    }
    if (ins.empty() || ins.size() > 3) return unsupported("arity");
    Step step;
    step.inst = &inst;
    step.arity = static_cast<int32_t>(ins.size());
    for (size_t i = 0; i < ins.size(); ++i) step.operands[i] = ins[i];
    step.result = NewRegister(shape.element_type(), nullptr);
    step.flush = flush_ && ElementwiseFlushesDenormals(inst);
    program_.steps_.push_back(step);
    return std::vector<int32_t>{step.result};
  }

  BatchProgram& program_;
  bool flush_;
};

BatchProgram::BatchProgram() = default;
BatchProgram::~BatchProgram() = default;

absl::StatusOr<std::unique_ptr<BatchProgram>> BatchProgram::Compile(
    const Computation& computation, bool flush_denormals) {
  std::unique_ptr<BatchProgram> program(new BatchProgram());
  std::vector<int32_t> arguments;
  for (int64_t i = 0; i < computation.parameter_count(); ++i) {
    const Shape& s = computation.parameter(i)->shape();
    if (!s.IsArray() || s.rank() != 0) {
      return absl::UnimplementedError(StrCat("parameter ", i, " is not a scalar"));
    }
    program->parameter_types_.push_back(s.element_type());
    program->register_types_.push_back(s.element_type());
    program->constants_.push_back(nullptr);
    arguments.push_back(static_cast<int32_t>(i));
  }
  program->parameter_registers_ = arguments;
  Compiler compiler(*program, flush_denormals);
  absl::StatusOr<std::vector<int32_t>> results = compiler.Inline(computation, arguments, 0);
  if (!results.ok()) return results.status();
  program->result_registers_ = *std::move(results);
  for (int32_t r : program->result_registers_) {
    program->result_types_.push_back(program->register_types_[r]);
  }
  return program;
}

absl::Status BatchProgram::Resize(int64_t length) {
  registers_.clear();
  registers_.reserve(register_types_.size());
  for (size_t r = 0; r < register_types_.size(); ++r) {
    absl::StatusOr<Literal> lit =
        Literal::Create(Shape::Array(register_types_[r], {length}));
    if (!lit.ok()) return lit.status();
    registers_.push_back(*std::move(lit));
    if (const Literal* c = constants_[r]) {
      const int64_t width = static_cast<int64_t>(c->size_bytes());
      uint8_t* dst = registers_.back().data();
      for (int64_t i = 0; i < length; ++i) std::memcpy(dst + i * width, c->data(), width);
    }
  }
  length_ = length;
  return absl::OkStatus();
}

absl::Status BatchProgram::RunSteps() {
  for (const Step& step : steps_) {
    const Literal* ops[3] = {};
    for (int i = 0; i < step.arity; ++i) {
      ops[i] = &registers_[step.operands[i]];
      if (step.flush && ContainsDenormals(*ops[i])) {
        flush_scratch_[i] = *ops[i];
        FlushDenormalsInPlace(flush_scratch_[i]);
        ops[i] = &flush_scratch_[i];
      }
    }
    Literal& out = registers_[step.result];
    absl::Status st = elementwise::Apply(*step.inst, absl::MakeConstSpan(ops, step.arity), out);
    if (!st.ok()) {
      return absl::Status(st.code(), StrCat("%", step.inst->name(), ": ", std::string(st.message())));
    }
    if (step.flush) FlushDenormalsInPlace(out);
  }
  return absl::OkStatus();
}

absl::Status BatchProgram::Run(absl::Span<const void* const> inputs,
                               absl::Span<void* const> outputs, int64_t n) {
  if (inputs.size() != parameter_types_.size() || outputs.size() != result_types_.size()) {
    return absl::InvalidArgumentError(StrCat("the computation takes ", parameter_types_.size(),
                                             " parameters and gives ", result_types_.size(),
                                             " results"));
  }
  for (int64_t offset = 0; offset < n; offset += kBlock) {
    const int64_t count = std::min(kBlock, n - offset);
    // Registers a power of two >= count long (at least 16), so that small
    // batches do not pay for a whole block.
    int64_t length = 16;
    while (length < count) length *= 2;
    if (length != length_ && (length > length_ || length_ > 4 * length)) {
      if (absl::Status st = Resize(length); !st.ok()) return st;
    }
    for (size_t p = 0; p < inputs.size(); ++p) {
      const int64_t width = ByteWidth(parameter_types_[p]);
      std::memcpy(registers_[parameter_registers_[p]].data(),
                  static_cast<const uint8_t*>(inputs[p]) + offset * width, count * width);
    }
    if (absl::Status st = RunSteps(); !st.ok()) return st;
    for (size_t r = 0; r < outputs.size(); ++r) {
      const int64_t width = ByteWidth(result_types_[r]);
      std::memcpy(static_cast<uint8_t*>(outputs[r]) + offset * width,
                  registers_[result_registers_[r]].data(), count * width);
    }
  }
  return absl::OkStatus();
}

}  // namespace hlo
