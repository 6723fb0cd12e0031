#include "ir/hlo_printer.h"

#include <algorithm>

#include "ir/bare_name.h"
#include "ir/compare_order.h"
#include "ir/opcode_attributes.h"
#include "ir/strings.h"

namespace hlo {
namespace {

class Printer {
 public:
  Printer(Module& module, const PrintStyle& style, std::string& out)
      : module_(module), style_(style), out_(out) {}

  void PrintModule() {
    PrintHeader();
    if (style_.print_metadata) AppendStackFrameIndex(out_, module_.stack_frames());
    out_ += "\n\n";
    for (Computation* c : module_.PostOrder()) {
      PrintComputation(*c);
      out_ += "\n\n";
    }
  }

  // XLA prints the header attributes in a fixed order, each only when it
  // says something (is_scheduled=true, replica_count != 1, ...); the entry
  // computation layout is always printed. Unknown ones follow as read.
  void PrintHeader() {
    out_ += "HloModule ";
    out_ += module_.name();
    static constexpr std::string_view kOrder[] = {"is_scheduled",
                                                  "input_output_alias",
                                                  "buffer_donor",
                                                  "alias_passthrough_params",
                                                  "entry_computation_layout",
                                                  "allow_spmd_sharding_propagation_to_parameters",
                                                  "allow_spmd_sharding_propagation_to_output",
                                                  "replica_count",
                                                  "num_partitions",
                                                  "frontend_attributes"};
    auto known = [](std::string_view name) {
      for (std::string_view k : kOrder) {
        if (k == name) return true;
      }
      return false;
    };
    for (std::string_view name : kOrder) {
      if (name == "entry_computation_layout") {
        out_ += ", entry_computation_layout=";
        PrintEntryLayout();
        continue;
      }
      const ModuleAttr* a = module_.FindHeaderAttr(name);
      if (!a) continue;
      if (name == "is_scheduled" && a->value != "true") continue;
      if ((name == "replica_count" || name == "num_partitions") && a->value == "1") continue;
      StrAppend(&out_, ", ", a->name, "=", a->value);
    }
    for (const ModuleAttr& a : module_.header_attrs()) {
      // XLA starts debug_attributes on a line of its own and ends
      // origin_recovery_table's with a newline.
      if (!known(a.name)) {
        StrAppend(&out_, a.name == "debug_attributes" ? ",\n" : ", ", a.name, "=", a.value);
        if (a.name == "origin_recovery_table") out_ += '\n';
      }
    }
  }

  // `{(p0, p1)->result}` with layouts, from the header when it was given,
  // else from the entry computation.
  void PrintEntryLayout() {
    std::vector<const hlo::Shape*> params = module_.entry_parameter_layouts();
    const hlo::Shape* result = module_.entry_result_layout();
    const Computation* entry = module_.entry();
    if (!result && entry) {
      params.clear();
      for (const Instruction* p : entry->parameters()) {
        if (p) params.push_back(p->shape_ptr());
      }
      if (entry->root()) result = entry->root()->shape_ptr();
    }
    out_ += "{(";
    for (size_t i = 0; i < params.size(); ++i) {
      if (i) out_ += ", ";
      if (i && i % 5 == 0) StrAppend(&out_, "/*index=", i, "*/");
      params[i]->AppendTo(out_, true);
    }
    out_ += ")->";
    if (result) result->AppendTo(out_, true);
    out_ += '}';
  }

  // A parameter's name in the signature: bare, as XLA prints it, unless it
  // would not lex as a name on its own: then with its '%', which the parser
  // accepts there too.
  void SignatureName(std::string_view name) {
    if (!LexesBare(name)) out_ += '%';
    out_ += name;
  }

  void PrintComputation(const Computation& c) {
    if (c.is_entry()) out_ += "ENTRY ";
    Name(c.name());
    if (style_.signatures) {
      out_ += " (";
      for (int64_t i = 0; i < c.parameter_count(); ++i) {
        if (i) out_ += ", ";
        const Instruction* p = c.parameter(i);
        if (!p) continue;
        SignatureName(p->name());
        out_ += ": ";
        p->shape().AppendTo(out_, /*print_layout=*/false);
      }
      out_ += ") -> ";
      if (c.root()) c.root()->shape().AppendTo(out_, /*print_layout=*/false);
    }
    out_ += " {\n";
    for (Instruction* inst : c.PostOrder()) {
      // The compact form writes `%t#1` in the users instead.
      if (style_.compact_gte && inst->opcode() == Opcode::kGetTupleElement && !inst->is_root()) {
        continue;
      }
      out_ += "  ";
      PrintInstruction(*inst);
      out_ += '\n';
    }
    out_ += '}';
    if (!c.execution_thread().empty()) {
      out_ += ", execution_thread=";
      AppendQuoted(out_, c.execution_thread());
    }
  }

  void PrintInstruction(const Instruction& inst) {
    if (inst.is_root()) out_ += "ROOT ";
    Name(inst.name());
    out_ += " = ";
    Shape(inst.shape_ptr());
    out_ += ' ';
    if (inst.has_wrapped_opcode()) {
      out_ += inst.OpcodeText();
    } else {
      out_ += OpcodeName(inst.opcode());
    }
    out_ += '(';
    PrintOperands(inst);
    out_ += ')';
    for (const Attribute* ap : CanonicalOrder(inst)) {
      const Attribute& a = *ap;
      if (a.kind == AttrKind::kMetadata && !style_.print_metadata) continue;
      out_ += ", ";
      out_ += AttrName(a.kind);
      out_ += '=';
      AppendAttrValue(out_, a, style_.percent_names);
    }
  }

 private:
  // Attributes XLA leaves out when they hold their default: all-default
  // operand precisions, a comparison type or order implied by the element
  // type, a convolution's unset kind and empty sparsity_config.
  static bool IsDefaultValue(const Instruction& inst, const Attribute& a) {
    if (a.kind == AttrKind::kConvolutionKind) return std::get<InternedString>(a.value) == "unset";
    if (a.kind == AttrKind::kSparsityConfig) return std::get<InternedString>(a.value) == "{}";
    if (a.kind == AttrKind::kOperandPrecision) {
      for (const std::string& p : std::get<std::vector<std::string>>(a.value)) {
        if (p != "default" && p != "DEFAULT") return false;
      }
      return true;
    }
    if (a.kind == AttrKind::kType && inst.opcode() == Opcode::kCompare &&
        inst.operand_count() > 0 && inst.operand(0)->shape().IsArray()) {
      PrimitiveType t = inst.operand(0)->shape().element_type();
      std::string_view implied = IsFloat(t) || IsComplex(t) ? "FLOAT"
                                 : IsSignedInt(t)           ? "SIGNED"
                                                            : "UNSIGNED";
      return std::get<InternedString>(a.value) == implied;
    }
    if (a.kind == AttrKind::kOrder && inst.opcode() == Opcode::kCompare &&
        inst.operand_count() > 0 && inst.operand(0)->shape().IsArray()) {
      return std::get<InternedString>(a.value) ==
             DefaultCompareOrder(inst.operand(0)->shape().element_type());
    }
    return false;
  }

  // The attributes in XLA's printing order (see CanonicalAttrRank).
  static std::vector<const Attribute*> CanonicalOrder(const Instruction& inst) {
    Opcode rules = inst.opcode();
    bool sugared_start = inst.has_wrapped_opcode() && inst.opcode() == Opcode::kAsyncStart;
    if (sugared_start) rules = inst.wrapped_opcode();
    auto rank = [&](const Attribute* a) {
      if (sugared_start && a->kind == AttrKind::kAsyncExecutionThread) return -1;
      return CanonicalAttrRank(rules, a->kind);
    };
    std::vector<const Attribute*> out;
    out.reserve(inst.attributes().size());
    for (const Attribute& a : inst.attributes()) {
      if (!IsDefaultValue(inst, a)) out.push_back(&a);
    }
    std::stable_sort(out.begin(), out.end(),
                     [&](const Attribute* a, const Attribute* b) { return rank(a) < rank(b); });
    return out;
  }

  // A computation's or instruction's name: with its '%' in the percent
  // style, and in the bare style too where it would not lex bare.
  void Name(std::string_view name) {
    if (style_.percent_names || !LexesBare(name)) out_ += '%';
    out_ += name;
  }

  void Shape(const hlo::Shape* shape) {
    if (style_.print_layouts) {
      out_ += module_.shapes().Text(shape);
    } else {
      shape->AppendTo(out_, false);
    }
  }

  void PrintOperands(const Instruction& inst) {
    switch (inst.opcode()) {
      case Opcode::kParameter:
        StrAppend(&out_, inst.parameter_number());
        return;
      case Opcode::kConstant:
        if (inst.literal_elided() || !inst.literal()) {
          out_ += "{...}";
        } else {
          AppendLiteralValue(out_, *inst.literal(), LiteralStyle::kHloConstant);
        }
        return;
      default:
        break;
    }
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      if (i) out_ += ", ";
      // XLA's default (long) printing marks every fifth operand.
      if (i && i % 5 == 0 && style_.percent_names) StrAppend(&out_, "/*index=", i, "*/");
      const Instruction* op = inst.operand(i);
      if (style_.operand_shapes) {
        Shape(op->shape_ptr());
        out_ += ' ';
      }
      if (style_.compact_gte && op->opcode() == Opcode::kGetTupleElement) {
        CompactGteName(*op);
      } else {
        Name(op->name());
      }
    }
  }

  // `%t#1#0` for get-tuple-element(get-tuple-element(%t), index=1), index=0.
  void CompactGteName(const Instruction& gte) {
    std::vector<int64_t> path;
    const Instruction* base = &gte;
    while (base->opcode() == Opcode::kGetTupleElement && base->operand_count() == 1) {
      path.push_back(base->GetInt(AttrKind::kIndex));
      base = base->operand(0);
    }
    Name(base->name());
    for (auto it = path.rbegin(); it != path.rend(); ++it) StrAppend(&out_, "#", *it);
  }

  Module& module_;
  const PrintStyle& style_;
  std::string& out_;
};

}  // namespace

std::string PrintModule(Module& module) { return PrintModule(module, module.style()); }

std::string PrintModule(Module& module, const PrintStyle& style) {
  std::string out;
  Printer(module, style, out).PrintModule();
  return out;
}

std::string PrintInstruction(Module& module, const Instruction& inst, const PrintStyle& style) {
  std::string out;
  Printer(module, style, out).PrintInstruction(inst);
  return out;
}

}  // namespace hlo
