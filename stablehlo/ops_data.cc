// Data movement and linear algebra: broadcast, reshape, transpose, reverse,
// concatenate, slices, pad, dot_general, convolution, gather, fft, tuples.
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/dot_algorithm.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

// One operand, one result, `opcode(x)` with `attrs` after it.
absl::Status Unary(Translator& t, const Op& op, Scope& s, std::string_view opcode,
                   std::string_view attrs) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(s, op,
                       t.Emit(s, op, opcode, type, StrCat(opcode, "(", in[0].name, ")", attrs)));
}

absl::Status BroadcastInDim(Translator& t, const Op& op, Scope& s) {
  std::vector<int64_t> dims;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"dims", "broadcast_dimensions"}, &dims));
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  if (in[0].type.element != type.element) {
    return t.Error(op.name_pos, StrCat("broadcast_in_dim changes the element type: ",
                                       in[0].type.Mlir(), " to ", type.Mlir()));
  }
  HLO_ASSIGN_OR_RETURN(std::string name, BroadcastTo(t, s, op, in[0], type, dims, op.name_pos));
  return t.BindResults(s, op, name);
}

absl::Status Reshape(Translator& t, const Op& op, Scope& s) {
  return Unary(t, op, s, "reshape", "");
}

absl::Status Transpose(Translator& t, const Op& op, Scope& s) {
  std::vector<int64_t> dims;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"dims", "permutation"}, &dims));
  return Unary(t, op, s, "transpose", StrCat(", dimensions=", IntList(dims)));
}

absl::Status Reverse(Translator& t, const Op& op, Scope& s) {
  std::vector<int64_t> dims;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"dims", "dimensions"}, &dims));
  return Unary(t, op, s, "reverse", StrCat(", dimensions=", IntList(dims)));
}

absl::Status Concatenate(Translator& t, const Op& op, Scope& s) {
  int64_t dim = 0;
  const Attr* a = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"dim", "dimension"}, &a));
  HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *a, "dimension", &dim));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(s, op,
                       t.Emit(s, op, "concatenate", type,
                              StrCat("concatenate(", Names(in), "), dimensions={", dim, "}")));
}

absl::Status Slice(Translator& t, const Op& op, Scope& s) {
  std::vector<int64_t> start, limit, strides;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"start_indices"}, &start));
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"limit_indices"}, &limit));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"strides"}, &strides));
  if (strides.empty()) strides.assign(start.size(), 1);
  if (limit.size() != start.size() || strides.size() != start.size()) {
    return t.Error(op.name_pos, "slice: start, limit and strides differ in length");
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < start.size(); ++i) {
    parts.push_back(strides[i] == 1 ? StrCat("[", start[i], ":", limit[i], "]")
                                    : StrCat("[", start[i], ":", limit[i], ":", strides[i], "]"));
  }
  return Unary(t, op, s, "slice", StrCat(", slice={", StrJoin(parts, ", "), "}"));
}

absl::Status DynamicSlice(Translator& t, const Op& op, Scope& s) {
  std::vector<int64_t> sizes;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"sizes", "slice_sizes"}, &sizes));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(
      s, op,
      t.Emit(s, op, "dynamic-slice", type,
             StrCat("dynamic-slice(", Names(in), "), dynamic_slice_sizes=", IntList(sizes))));
}

absl::Status DynamicUpdateSlice(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(
      s, op,
      t.Emit(s, op, "dynamic-update-slice", type, StrCat("dynamic-update-slice(", Names(in), ")")));
}

absl::Status Pad(Translator& t, const Op& op, Scope& s) {
  std::vector<int64_t> lo, hi, interior;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"low", "edge_padding_low"}, &lo));
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"high", "edge_padding_high"}, &hi));
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"interior", "interior_padding"}, &interior));
  if (hi.size() != lo.size() || interior.size() != lo.size()) {
    return t.Error(op.name_pos, "pad: low, high and interior differ in length");
  }
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  std::vector<std::string> parts;
  for (size_t i = 0; i < lo.size(); ++i)
    parts.push_back(StrCat(lo[i], "_", hi[i], "_", interior[i]));
  std::string padding = parts.empty() ? "{}" : StrJoin(parts, "x");
  return t.BindResults(
      s, op, t.Emit(s, op, "pad", type, StrCat("pad(", Names(in), "), padding=", padding)));
}

// precision_config = [#stablehlo<precision DEFAULT>, ...] or [DEFAULT, ...]:
// `, operand_precision={high,default}` unless all are DEFAULT.
absl::Status PrecisionText(const Translator& t, const Op& op, std::string* out) {
  out->clear();
  const Attr* p = FindAny(op, {"precision_config", "precision"});
  if (p == nullptr || p->kind != Attr::Kind::kArray) return absl::OkStatus();
  std::vector<std::string> words;
  bool all_default = true;
  for (const Attr& e : p->list) {
    std::string w;
    HLO_RETURN_IF_ERROR(AttrWord(t.lex(), e, "precision", &w));
    if (w != "DEFAULT" && w != "HIGH" && w != "HIGHEST") {
      return t.Error(e.pos, StrCat("unknown precision '", w, "'"));
    }
    all_default = all_default && w == "DEFAULT";
    for (char& c : w) c = static_cast<char>(std::tolower(c));
    words.push_back(w);
  }
  if (!all_default) *out = StrCat(", operand_precision={", StrJoin(words, ","), "}");
  return absl::OkStatus();
}

// #stablehlo.dot_algorithm<...> as HLO's algorithm name (XLA's known ones).
absl::Status DotAlgorithm(const Translator& t, const Attr& a, std::string* out) {
  if (a.dict.empty()) return t.Error(a.pos, "a dot algorithm needs its parameters");
  DotAlgorithmParams p;
  for (const NamedAttr& field : a.dict) {
    const std::string& key = field.first;
    const Attr& v = field.second;
    if (key == "lhs_precision_type" || key == "rhs_precision_type" || key == "accumulation_type") {
      if (v.s.empty()) return t.Error(v.pos, StrCat(key, " must be a type"));
      (key == "lhs_precision_type"   ? p.lhs
       : key == "rhs_precision_type" ? p.rhs
                                     : p.accumulation) = v.s;
    } else if (key == "lhs_component_count" || key == "rhs_component_count" ||
               key == "num_primitive_operations") {
      if (v.kind != Attr::Kind::kInt) return t.Error(v.pos, StrCat(key, " must be an integer"));
      (key == "lhs_component_count"   ? p.lhs_components
       : key == "rhs_component_count" ? p.rhs_components
                                      : p.primitive_operations) = v.i;
    } else if (key == "allow_imprecise_accumulation") {
      if (v.kind != Attr::Kind::kBool) return t.Error(v.pos, StrCat(key, " must be true or false"));
      p.allow_imprecise_accumulation = v.i != 0;
    } else {
      return t.Error(v.pos, StrCat("unknown dot algorithm parameter '", key, "'"));
    }
  }
  std::optional<std::string> name = HloDotAlgorithm(p);
  if (!name) {
    return t.Error(a.pos, StrCat("XLA knows no dot algorithm <", DotAlgorithmFields(p), ">"));
  }
  *out = *name;
  return absl::OkStatus();
}

absl::Status DotGeneral(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  const Attr* dn = nullptr;
  std::vector<int64_t> lb, rb, lc, rc;
  if (op.name == "stablehlo.dot") {
    if (in[0].type.dims.size() == 2) lc = {1};
    if (in[0].type.dims.size() == 1) lc = {0};
    rc = {0};
  } else {
    HLO_RETURN_IF_ERROR(Require(t, op, {"dot_dimension_numbers"}, &dn));
    for (auto [key, v] : {std::pair{"lhs_batching_dimensions", &lb},
                          {"rhs_batching_dimensions", &rb},
                          {"lhs_contracting_dimensions", &lc},
                          {"rhs_contracting_dimensions", &rc}}) {
      if (const Attr* a = dn->Find(key)) HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *a, key, v));
    }
  }
  std::string algorithm;
  if (const Attr* a = op.FindAttr("algorithm"))
    HLO_RETURN_IF_ERROR(DotAlgorithm(t, *a, &algorithm));
  std::string body = StrCat("dot(", Names(in), ")");
  if (!lb.empty()) StrAppend(&body, ", lhs_batch_dims=", IntList(lb));
  StrAppend(&body, ", lhs_contracting_dims=", IntList(lc));
  if (!rb.empty()) StrAppend(&body, ", rhs_batch_dims=", IntList(rb));
  StrAppend(&body, ", rhs_contracting_dims=", IntList(rc));
  std::string precision;
  HLO_RETURN_IF_ERROR(PrecisionText(t, op, &precision));
  body += precision;
  if (!algorithm.empty()) StrAppend(&body, ", algorithm=", algorithm);
  return t.BindResults(s, op, t.Emit(s, op, "dot", type, body));
}

}  // namespace

// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` -> `b01f_01io->b01f`.
absl::Status ConvLabels(const Translator& t, const Attr& a, std::string* out,
                        std::vector<int64_t>* kernel_spatial) {
  std::string_view text = a.text;
  if (text.starts_with("<")) text = text.substr(1, text.size() - 2);
  out->clear();
  int part = 0;
  std::vector<std::pair<int64_t, int64_t>> spatial;  // (digit, position) in the kernel
  int64_t position = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '[') {
      position = 0;
    } else if (c == ']') {
      ++part;
      if (part < 3) out->push_back(part == 1 ? '_' : '-');
      if (part == 2) out->push_back('>');
    } else if (c == 'b' || c == 'f' || c == 'i' || c == 'o' || (c >= '0' && c <= '9')) {
      if (part == 1 && c >= '0' && c <= '9') spatial.emplace_back(c - '0', position);
      out->push_back(c);
      ++position;
    } else if (c != ',' && c != ' ' && c != 'x' && c != '-' && c != '>') {
      return t.Error(a.pos, StrCat("unexpected '", std::string(1, c), "' in dimension numbers"));
    }
  }
  if (part != 3) return t.Error(a.pos, "dimension numbers must be [..]x[..]->[..]");
  std::sort(spatial.begin(), spatial.end());
  kernel_spatial->clear();
  for (auto [d, p] : spatial) kernel_spatial->push_back(p);
  return absl::OkStatus();
}

namespace {

// window = {stride, pad, lhs_dilate, rhs_dilate, reverse} (or the generic
// properties) -> `window={size=.. stride=.. pad=.. lhs_dilate=.. rhs_dilate=..}`.
absl::Status WindowText(const Translator& t, const Op& op, const std::vector<int64_t>& size,
                        std::initializer_list<std::string_view> base_dilation_names,
                        std::initializer_list<std::string_view> window_dilation_names,
                        std::string* out) {
  const size_t n = size.size();
  std::vector<int64_t> stride, lhs, rhs, reverse;
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"window_strides"}, &stride));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, base_dilation_names, &lhs));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, window_dilation_names, &rhs));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"window_reversal"}, &reverse));
  std::vector<std::vector<int64_t>> pad;
  if (const Attr* p = op.FindAttr("padding")) {
    HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *p, "padding", &pad));
  }
  for (auto* v : {&stride, &lhs, &rhs}) {
    if (v->empty()) v->assign(n, 1);
    if (v->size() != n) return t.Error(op.name_pos, "window attributes differ in length");
  }
  if (reverse.empty()) reverse.assign(n, 0);
  if (pad.empty()) pad.assign(n, {0, 0});
  if (reverse.size() != n || pad.size() != n) {
    return t.Error(op.name_pos, "window attributes differ in length");
  }
  auto join = [&](const std::vector<int64_t>& v) { return StrJoin(v, "x"); };
  auto is = [&](const std::vector<int64_t>& v, int64_t x) {
    for (int64_t e : v) {
      if (e != x) return false;
    }
    return true;
  };
  if (n == 0) {
    *out = "{}";
    return absl::OkStatus();
  }
  *out = StrCat("{size=", join(size));
  if (!is(stride, 1)) StrAppend(out, " stride=", join(stride));
  bool any_pad = false;
  std::vector<std::string> pads;
  for (const auto& p : pad) {
    if (p.size() != 2) return t.Error(op.name_pos, "padding needs [low, high] pairs");
    any_pad = any_pad || p[0] != 0 || p[1] != 0;
    pads.push_back(StrCat(p[0], "_", p[1]));
  }
  if (any_pad) StrAppend(out, " pad=", StrJoin(pads, "x"));
  if (!is(lhs, 1)) StrAppend(out, " lhs_dilate=", join(lhs));
  if (!is(rhs, 1)) StrAppend(out, " rhs_dilate=", join(rhs));
  if (!is(reverse, 0)) StrAppend(out, " rhs_reversal=", join(reverse));
  *out += "}";
  return absl::OkStatus();
}

absl::Status Convolution(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  const Attr* dn = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"dimension_numbers"}, &dn));
  std::string labels;
  std::vector<int64_t> kernel_spatial;
  HLO_RETURN_IF_ERROR(ConvLabels(t, *dn, &labels, &kernel_spatial));
  std::vector<int64_t> size;
  for (int64_t p : kernel_spatial) {
    if (p >= static_cast<int64_t>(in[1].type.dims.size())) {
      return t.Error(dn->pos, "the kernel's layout does not match its rank");
    }
    size.push_back(in[1].type.dims[p]);
  }
  std::string window;
  HLO_RETURN_IF_ERROR(WindowText(t, op, size, {"lhs_dilation"}, {"rhs_dilation"}, &window));
  int64_t fgc = 1, bgc = 1;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"feature_group_count"}, 1, &fgc));
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"batch_group_count"}, 1, &bgc));
  std::string body =
      StrCat("convolution(", Names(in), "), window=", window, ", dim_labels=", labels);
  if (fgc != 1) StrAppend(&body, ", feature_group_count=", fgc);
  if (bgc != 1) StrAppend(&body, ", batch_group_count=", bgc);
  std::string precision;
  HLO_RETURN_IF_ERROR(PrecisionText(t, op, &precision));
  body += precision;
  return t.BindResults(s, op, t.Emit(s, op, "convolution", type, body));
}

absl::Status Gather(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  const Attr* dn = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"dimension_numbers"}, &dn));
  std::string body = StrCat("gather(", Names(in), ")");
  for (const char* key : {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                          "start_indices_batching_dims", "start_index_map"}) {
    std::vector<int64_t> v;
    if (const Attr* a = dn->Find(key)) HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *a, key, &v));
    if (!v.empty() || std::string_view(key) == "offset_dims" ||
        std::string_view(key) == "collapsed_slice_dims" ||
        std::string_view(key) == "start_index_map") {
      StrAppend(&body, ", ", key, "=", IntList(v));
    }
  }
  int64_t ivd = 0;
  if (const Attr* a = dn->Find("index_vector_dim")) {
    HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *a, "index_vector_dim", &ivd));
  }
  std::vector<int64_t> sizes;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"slice_sizes"}, &sizes));
  StrAppend(&body, ", index_vector_dim=", ivd, ", slice_sizes=", IntList(sizes));
  if (OptionalBool(op, "indices_are_sorted")) body += ", indices_are_sorted=true";
  return t.BindResults(s, op, t.Emit(s, op, "gather", type, body));
}

absl::Status Fft(Translator& t, const Op& op, Scope& s) {
  const Attr* type_attr = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"type", "fft_type"}, &type_attr));
  std::string fft_type;
  HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *type_attr, "fft_type", &fft_type));
  if (fft_type != "FFT" && fft_type != "IFFT" && fft_type != "RFFT" && fft_type != "IRFFT") {
    return t.Error(type_attr->pos, StrCat("unknown fft type '", fft_type, "'"));
  }
  std::vector<int64_t> length;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"length", "fft_length"}, &length));
  return Unary(t, op, s, "fft", StrCat(", fft_type=", fft_type, ", fft_length=", IntList(length)));
}

absl::Status Tuple(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(s, op, t.Emit(s, op, "tuple", type, StrCat("tuple(", Names(in), ")")));
}

absl::Status GetTupleElement(Translator& t, const Op& op, Scope& s) {
  int64_t index = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"index"}, 0, &index));
  return Unary(t, op, s, "get-tuple-element", StrCat(", index=", index));
}

// The operands go through one opt-barrier as a tuple.
absl::Status OptimizationBarrier(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  Type tuple;
  tuple.kind = Type::Kind::kTuple;
  for (const Value& v : in) tuple.elements.push_back(v.type);
  std::string tup = t.Emit(s, op, "tuple", tuple, StrCat("tuple(", Names(in), ")"));
  std::string barrier = t.Emit(s, op, "opt-barrier", tuple, StrCat("opt-barrier(", tup, ")"));
  return t.BindTupleResults(s, op, barrier);
}

absl::Status Cholesky(Translator& t, const Op& op, Scope& s) {
  bool lower = OptionalBool(op, "lower");
  return Unary(t, op, s, "cholesky", lower ? ", lower=true" : "");
}

absl::Status PartitionId(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  std::string opcode = op.name == "stablehlo.partition_id" ? "partition-id" : "replica-id";
  return t.BindResults(s, op, t.Emit(s, op, opcode, type, opcode + "()"));
}

absl::Status AfterAll(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(s, op,
                       t.Emit(s, op, "after-all", type, StrCat("after-all(", Names(in), ")")));
}

}  // namespace

std::vector<OpEntry> DataOps() {
  return {
      {"stablehlo.broadcast_in_dim", &BroadcastInDim},
      {"stablehlo.reshape", &Reshape},
      {"stablehlo.transpose", &Transpose},
      {"stablehlo.reverse", &Reverse},
      {"stablehlo.concatenate", &Concatenate},
      {"stablehlo.slice", &Slice},
      {"stablehlo.dynamic_slice", &DynamicSlice},
      {"stablehlo.dynamic_update_slice", &DynamicUpdateSlice},
      {"stablehlo.pad", &Pad},
      {"stablehlo.dot_general", &DotGeneral},
      {"stablehlo.dot", &DotGeneral},
      {"stablehlo.convolution", &Convolution},
      {"stablehlo.gather", &Gather},
      {"stablehlo.fft", &Fft},
      {"stablehlo.tuple", &Tuple},
      {"stablehlo.get_tuple_element", &GetTupleElement},
      {"stablehlo.optimization_barrier", &OptimizationBarrier},
      {"stablehlo.cholesky", &Cholesky},
      {"stablehlo.partition_id", &PartitionId},
      {"stablehlo.replica_id", &PartitionId},
      {"stablehlo.after_all", &AfterAll},
      {"stablehlo.create_token", &AfterAll},
  };
}

}  // namespace hlo::stablehlo
