// The direct reader's ops: each reads what follows its name in the pretty
// form JAX prints and emits what the translation's op translator
// (ops_elementwise.cc, ops_data.cc, ops_structure.cc) emits for it, under the
// same names, with the same checks. Anything else gives up (false).
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ir/strings.h"
#include "stablehlo/direct_reader_impl.h"

namespace hlo::stablehlo::direct {

namespace {

using Values = absl::InlinedVector<Instruction*, 4>;

// `, key = [ints]` or `, key = int` parameters of a pretty form.
struct Param {
  std::string_view key;
  std::vector<int64_t> ints;
  bool is_list = false;
};
using Params = absl::InlinedVector<Param, 3>;

bool ReadParams(DirectReader& r, Params* out) {
  Lexer& lex = r.lex();
  while (lex.PeekChar() == ',') {
    const Lexer::Mark m = lex.Save();
    lex.Eat(",");
    std::string_view key = lex.EatIdentView();
    if (key.empty()) {
      lex.Restore(m);
      return true;
    }
    if (!lex.Eat("=")) return false;
    Param p;
    p.key = key;
    if (lex.PeekChar() == '[') {
      p.is_list = true;
      if (!r.IntList(&p.ints)) return false;
    } else {
      int64_t v = 0;
      if (!lex.EatInt(&v)) return false;
      p.ints = {v};
    }
    out->push_back(std::move(p));
  }
  return true;
}

// The first parameter named one of `keys` (in that order), as the
// translation's FindAny looks.
const Param* Find(const Params& params, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    for (const Param& p : params) {
      if (p.key == k) return &p;
    }
  }
  return nullptr;
}

bool Ints(const Params& params, std::initializer_list<std::string_view> keys,
          std::vector<int64_t>* out) {
  const Param* p = Find(params, keys);
  if (p == nullptr || !p->is_list) return false;
  *out = p->ints;
  return true;
}

// simple ::= uses? params attr-dict? ':' types   (no attribute dictionary here)
bool ReadSimple(DirectReader& r, OpText& op, Params* params) {
  if (r.lex().PeekChar() == '%' && !r.Uses(op)) return false;
  if (!ReadParams(r, params)) return false;
  return r.lex().PeekChar() != '{' && r.TrailingTypes(op);
}

bool ReadPlain(DirectReader& r, OpText& op) {
  Params params;
  return ReadSimple(r, op, &params) && params.empty();
}

// The operands (`arity` of them unless -1) and the one result type.
bool Prepare(DirectReader& r, const OpText& op, const Scope& s, int arity, Values* in,
             const Shape** type) {
  if (arity >= 0 && op.operands.size() != static_cast<size_t>(arity)) return false;
  if (!r.Operands(op, s, in)) return false;
  *type = r.SingleResult(op);
  return *type != nullptr;
}

struct ElementwiseOp {
  std::string_view opcode;  // HLO's text: the instruction's name prefix
  Opcode code;
  int arity;
};

const absl::flat_hash_map<std::string_view, ElementwiseOp>& ElementwiseOps() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, ElementwiseOp>;
    const std::pair<std::string_view, std::string_view> unary[] = {
        {"abs", "abs"},
        {"bitcast_convert", "bitcast-convert"},
        {"cbrt", "cbrt"},
        {"ceil", "ceil"},
        {"convert", "convert"},
        {"cosine", "cosine"},
        {"count_leading_zeros", "count-leading-zeros"},
        {"exponential", "exponential"},
        {"exponential_minus_one", "exponential-minus-one"},
        {"floor", "floor"},
        {"imag", "imag"},
        {"is_finite", "is-finite"},
        {"log", "log"},
        {"log_plus_one", "log-plus-one"},
        {"logistic", "logistic"},
        {"negate", "negate"},
        {"not", "not"},
        {"popcnt", "popcnt"},
        {"real", "real"},
        {"round_nearest_afz", "round-nearest-afz"},
        {"round_nearest_even", "round-nearest-even"},
        {"rsqrt", "rsqrt"},
        {"sign", "sign"},
        {"sine", "sine"},
        {"sqrt", "sqrt"},
        {"tan", "tan"},
        {"tanh", "tanh"},
    };
    const std::pair<std::string_view, std::string_view> binary[] = {
        {"add", "add"},
        {"and", "and"},
        {"atan2", "atan2"},
        {"complex", "complex"},
        {"divide", "divide"},
        {"maximum", "maximum"},
        {"minimum", "minimum"},
        {"multiply", "multiply"},
        {"or", "or"},
        {"power", "power"},
        {"remainder", "remainder"},
        {"shift_left", "shift-left"},
        {"shift_right_arithmetic", "shift-right-arithmetic"},
        {"shift_right_logical", "shift-right-logical"},
        {"subtract", "subtract"},
        {"xor", "xor"},
    };
    static std::vector<std::string> names;  // the keys' storage
    names.reserve(std::size(unary) + std::size(binary));
    for (int arity : {1, 2}) {
      for (const auto& [name, opcode] :
           arity == 1 ? absl::MakeConstSpan(unary) : absl::MakeConstSpan(binary)) {
        names.push_back(StrCat("stablehlo.", name));
        t->emplace(names.back(), ElementwiseOp{opcode, *ParseOpcode(opcode), arity});
      }
    }
    return t;
  }();
  return *table;
}

// Elementwise `op` on `in` giving `type` (the general path's Elementwise).
Instruction* EmitElementwise(DirectReader& r, Scope& s, const ElementwiseOp& e, const Shape* type,
                             SourceLoc pos, const Values& in) {
  return r.Emit(s, e.code, e.opcode, type, pos, in);
}

bool Elementwise(DirectReader& r, OpText& op, Scope& s, int) {
  const ElementwiseOp& e = ElementwiseOps().at(op.name);
  Values in;
  const Shape* type = nullptr;
  if (!ReadPlain(r, op) || !Prepare(r, op, s, e.arity, &in, &type)) return false;
  // Complex to real takes the real part first: left to the general path.
  if (e.code == Opcode::kConvert && IsComplex(in[0]->shape().element_type()) &&
      !IsComplex(type->element_type())) {
    return false;
  }
  return r.BindResults(s, op, EmitElementwise(r, s, e, type, op.pos, in));
}

// constant ::= dense-attr (a splat: a scalar constant broadcast)
bool Constant(DirectReader& r, OpText& op, Scope& s, int) {
  if (r.lex().PeekChar() != 'd') return false;  // the generic form, an attribute dictionary
  DirectReader::Dense d;
  if (!r.DenseValue(&d)) return false;
  op.result_types = {d.type};
  Instruction* c = r.Emit(s, Opcode::kConstant, "constant", d.literal_shape, op.pos);
  c->set_literal(d.literal);
  if (d.literal_shape != d.type) {
    c = r.Emit(s, Opcode::kBroadcast, "broadcast", d.type, op.pos, {c});
    c->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
  }
  return r.BindResults(s, op, c);
}

// iota ::= 'dim' '=' int ':' type
bool Iota(DirectReader& r, OpText& op, Scope& s, int) {
  int64_t dim = 0;
  if (!r.lex().Eat("dim") || !r.lex().Eat("=") || !r.lex().EatInt(&dim)) return false;
  if (r.lex().PeekChar() == '%' || !ReadPlain(r, op)) return false;
  const Shape* type = r.SingleResult(op);
  if (type == nullptr) return false;
  Instruction* iota = r.Emit(s, Opcode::kIota, "iota", type, op.pos);
  iota->SetAttr(AttrKind::kIotaDimension, dim);
  return r.BindResults(s, op, iota);
}

// compare ::= DIR ',' use ',' use (',' TYPE)? ':' types
bool Compare(DirectReader& r, OpText& op, Scope& s, int) {
  Lexer& lex = r.lex();
  std::string_view dir = lex.EatIdentView();
  if (dir != "EQ" && dir != "NE" && dir != "GE" && dir != "GT" && dir != "LE" && dir != "LT") {
    return false;
  }
  if (!lex.Eat(",") || !r.Uses(op)) return false;
  std::string_view cmp_type;
  if (lex.Eat(",")) {
    cmp_type = lex.EatIdentView();
    if (cmp_type != "FLOAT" && cmp_type != "TOTALORDER" && cmp_type != "SIGNED" &&
        cmp_type != "UNSIGNED" && cmp_type != "NOTYPE") {
      return false;
    }
  }
  Values in;
  const Shape* type = nullptr;
  if (lex.PeekChar() == '{' || !r.TrailingTypes(op) || !Prepare(r, op, s, 2, &in, &type))
    return false;
  Instruction* cmp = r.Emit(s, Opcode::kCompare, "compare", type, op.pos, in);
  cmp->SetAttr(AttrKind::kDirection, InternedString(dir));
  // The element type's own comparison is not written (XLA prints others).
  const std::string_view element = PrimitiveTypeName(in[0]->shape().element_type());
  const std::string_view fallback = element[0] == 's'                        ? "SIGNED"
                                    : element[0] == 'u' || element == "pred" ? "UNSIGNED"
                                                                             : "FLOAT";
  if (!cmp_type.empty() && cmp_type != "NOTYPE" && cmp_type != fallback) {
    cmp->SetAttr(AttrKind::kType, InternedString(cmp_type));
  }
  return r.BindResults(s, op, cmp);
}

// select: a scalar predicate is broadcast first.
bool Select(DirectReader& r, OpText& op, Scope& s, int) {
  Values in;
  const Shape* type = nullptr;
  if (!ReadPlain(r, op) || !Prepare(r, op, s, 3, &in, &type)) return false;
  if (in[0]->shape().rank() == 0 && type->rank() > 0) {
    const Shape* pred =
        r.module().Intern(Shape::Array(PrimitiveType::kPred, type->dims()).WithDefaultLayout());
    in[0] = r.Emit(s, Opcode::kBroadcast, "broadcast", pred, op.pos, {in[0]});
    in[0]->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
  }
  return r.BindResults(s, op, r.Emit(s, Opcode::kSelect, "select", type, op.pos, in));
}

bool Clamp(DirectReader& r, OpText& op, Scope& s, int) {
  Values in;
  const Shape* type = nullptr;
  if (!ReadPlain(r, op) || !Prepare(r, op, s, 3, &in, &type)) return false;
  return r.BindResults(s, op, r.Emit(s, Opcode::kClamp, "clamp", type, op.pos, in));
}

// One operand, one result, `opcode(x)` with `dimensions` when given.
bool Unary(DirectReader& r, OpText& op, Scope& s, Opcode code, std::string_view prefix,
           const std::vector<int64_t>* dims) {
  Values in;
  const Shape* type = nullptr;
  if (!Prepare(r, op, s, 1, &in, &type)) return false;
  Instruction* inst = r.Emit(s, code, prefix, type, op.pos, in);
  if (dims != nullptr) inst->SetAttr(AttrKind::kDimensions, *dims);
  return r.BindResults(s, op, inst);
}

bool Reshape(DirectReader& r, OpText& op, Scope& s, int) {
  return ReadPlain(r, op) && Unary(r, op, s, Opcode::kReshape, "reshape", nullptr);
}

bool Transpose(DirectReader& r, OpText& op, Scope& s, int) {
  Params params;
  std::vector<int64_t> dims;
  return ReadSimple(r, op, &params) && Ints(params, {"dims", "permutation"}, &dims) &&
         Unary(r, op, s, Opcode::kTranspose, "transpose", &dims);
}

bool Reverse(DirectReader& r, OpText& op, Scope& s, int) {
  Params params;
  std::vector<int64_t> dims;
  return ReadSimple(r, op, &params) && Ints(params, {"dims", "dimensions"}, &dims) &&
         Unary(r, op, s, Opcode::kReverse, "reverse", &dims);
}

// broadcast_in_dim: a reshape first drops the size-1 dimensions that grow
// (the general path's BroadcastTo).
bool BroadcastInDim(DirectReader& r, OpText& op, Scope& s, int) {
  Params params;
  std::vector<int64_t> map;
  Values in;
  const Shape* type = nullptr;
  if (!ReadSimple(r, op, &params) || !Ints(params, {"dims", "broadcast_dimensions"}, &map) ||
      !Prepare(r, op, s, 1, &in, &type)) {
    return false;
  }
  const Shape& from = in[0]->shape();
  if (from.element_type() != type->element_type() || map.size() != from.dims().size()) {
    return false;
  }
  std::vector<int64_t> squeezed, kept;
  for (size_t d = 0; d < map.size(); ++d) {
    if (map[d] < 0 || map[d] >= type->rank()) return false;
    if (from.dims()[d] == type->dims()[map[d]]) {
      squeezed.push_back(from.dims()[d]);
      kept.push_back(map[d]);
    } else if (from.dims()[d] != 1) {
      return false;
    }
  }
  Instruction* x = in[0];
  if (squeezed.size() != map.size()) {
    const Shape* shape =
        r.module().Intern(Shape::Array(from.element_type(), squeezed).WithDefaultLayout());
    x = r.Emit(s, Opcode::kReshape, "reshape", shape, op.pos, {x});
  }
  Instruction* b = r.Emit(s, Opcode::kBroadcast, "broadcast", type, op.pos, {x});
  b->SetAttr(AttrKind::kDimensions, std::move(kept));
  return r.BindResults(s, op, b);
}

bool Concatenate(DirectReader& r, OpText& op, Scope& s, int) {
  Params params;
  Values in;
  const Shape* type = nullptr;
  if (!ReadSimple(r, op, &params)) return false;
  const Param* dim = Find(params, {"dim", "dimension"});
  if (dim == nullptr || dim->is_list || !Prepare(r, op, s, -1, &in, &type)) return false;
  Instruction* c = r.Emit(s, Opcode::kConcatenate, "concatenate", type, op.pos, in);
  c->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{dim->ints[0]});
  return r.BindResults(s, op, c);
}

// slice ::= use '[' (int ':' int (':' int)?) (',' ...)* ']' ':' types
bool Slice(DirectReader& r, OpText& op, Scope& s, int) {
  Lexer& lex = r.lex();
  if (!r.Uses(op) || !lex.Eat("[")) return false;
  auto spec = std::make_shared<SliceSpec>();
  if (!lex.Eat("]")) {
    do {
      SliceDim d;
      if (!lex.EatInt(&d.start) || !lex.Eat(":") || !lex.EatInt(&d.limit)) return false;
      if (lex.Eat(":") && !lex.EatInt(&d.stride)) return false;
      spec->push_back(d);
    } while (lex.Eat(","));
    if (!lex.Eat("]")) return false;
  }
  Values in;
  const Shape* type = nullptr;
  if (lex.PeekChar() == '{' || !r.TrailingTypes(op) || !Prepare(r, op, s, 1, &in, &type))
    return false;
  Instruction* slice = r.Emit(s, Opcode::kSlice, "slice", type, op.pos, in);
  slice->SetAttr(AttrKind::kSlice, std::shared_ptr<const SliceSpec>(std::move(spec)));
  return r.BindResults(s, op, slice);
}

bool Pad(DirectReader& r, OpText& op, Scope& s, int) {
  Params params;
  std::vector<int64_t> lo, hi, interior;
  Values in;
  const Shape* type = nullptr;
  if (!ReadSimple(r, op, &params) || !Ints(params, {"low", "edge_padding_low"}, &lo) ||
      !Ints(params, {"high", "edge_padding_high"}, &hi) ||
      !Ints(params, {"interior", "interior_padding"}, &interior) || hi.size() != lo.size() ||
      interior.size() != lo.size() || lo.empty() || !Prepare(r, op, s, 2, &in, &type)) {
    return false;
  }
  auto padding = std::make_shared<PaddingConfig>();
  for (size_t i = 0; i < lo.size(); ++i) padding->push_back({lo[i], hi[i], interior[i]});
  Instruction* pad = r.Emit(s, Opcode::kPad, "pad", type, op.pos, in);
  pad->SetAttr(AttrKind::kPadding, std::shared_ptr<const PaddingConfig>(std::move(padding)));
  return r.BindResults(s, op, pad);
}

bool DynamicSlice(DirectReader& r, OpText& op, Scope& s, int) {
  Params params;
  std::vector<int64_t> sizes;
  Values in;
  const Shape* type = nullptr;
  if (!ReadSimple(r, op, &params) || !Ints(params, {"sizes", "slice_sizes"}, &sizes) ||
      !Prepare(r, op, s, -1, &in, &type)) {
    return false;
  }
  Instruction* ds = r.Emit(s, Opcode::kDynamicSlice, "dynamic-slice", type, op.pos, in);
  ds->SetAttr(AttrKind::kDynamicSliceSizes, std::move(sizes));
  return r.BindResults(s, op, ds);
}

bool DynamicUpdateSlice(DirectReader& r, OpText& op, Scope& s, int) {
  Values in;
  const Shape* type = nullptr;
  if (!ReadPlain(r, op) || !Prepare(r, op, s, -1, &in, &type)) return false;
  return r.BindResults(
      s, op, r.Emit(s, Opcode::kDynamicUpdateSlice, "dynamic-update-slice", type, op.pos, in));
}

// dot_general ::= use ',' use (',' 'batching_dims' '=' pair)? (',' 'contracting_dims' '=' pair)?
//                 (',' 'precision' '=' '[' words ']')? ':' types
// pair ::= '[' ints ']' 'x' '[' ints ']'
bool DotGeneral(DirectReader& r, OpText& op, Scope& s, int) {
  Lexer& lex = r.lex();
  if (!r.Uses(op)) return false;
  std::vector<int64_t> lb, rb, lc, rc;
  std::vector<std::string> precision;
  bool all_default = true;
  while (lex.Eat(",")) {
    std::string_view key = lex.EatIdentView();
    if (!lex.Eat("=")) return false;
    if (key == "batching_dims" || key == "contracting_dims") {
      auto& a = key == "batching_dims" ? lb : lc;
      auto& b = key == "batching_dims" ? rb : rc;
      if (!r.IntList(&a) || !lex.Eat("x") || !r.IntList(&b)) return false;
    } else if (key == "precision" && precision.empty()) {
      if (!lex.Eat("[")) return false;
      do {
        std::string_view w = lex.EatIdentView();
        if (w != "DEFAULT" && w != "HIGH" && w != "HIGHEST") return false;
        all_default = all_default && w == "DEFAULT";
        std::string lower(w);
        for (char& c : lower) c = static_cast<char>(c - 'A' + 'a');
        precision.push_back(std::move(lower));
      } while (lex.Eat(","));
      if (!lex.Eat("]")) return false;
    } else {
      return false;  // algorithm, or a repeated key
    }
  }
  Values in;
  const Shape* type = nullptr;
  if (lex.PeekChar() == '{' || !r.TrailingTypes(op) || !Prepare(r, op, s, 2, &in, &type))
    return false;
  Instruction* dot = r.Emit(s, Opcode::kDot, "dot", type, op.pos, in);
  if (!lb.empty()) dot->SetAttr(AttrKind::kLhsBatchDims, std::move(lb));
  dot->SetAttr(AttrKind::kLhsContractingDims, std::move(lc));
  if (!rb.empty()) dot->SetAttr(AttrKind::kRhsBatchDims, std::move(rb));
  dot->SetAttr(AttrKind::kRhsContractingDims, std::move(rc));
  if (!all_default) dot->SetAttr(AttrKind::kOperandPrecision, std::move(precision));
  return r.BindResults(s, op, dot);
}

// A region's ops into `region` (its parameters bound), and its root: the
// one value it returns, or (several, or always with `tuple_root`) a tuple of
// them, as the translation's RegionComputation makes it.
bool RegionBody(DirectReader& r, Scope& region, int depth, bool tuple_root) {
  Values returned;
  SourceLoc return_pos;
  if (!r.Block(region, depth + 1, &returned, &return_pos)) return false;
  if (returned.size() == 1 && !tuple_root) {
    region.comp->set_root(returned[0]);
    return true;
  }
  std::vector<const Shape*> elements;
  for (Instruction* v : returned) elements.push_back(v->shape_ptr());
  region.comp->set_root(r.Emit(region, Opcode::kTuple, "tuple",
                               r.module().Intern(Shape::Tuple(std::move(elements))), return_pos,
                               returned));
  return true;
}

// reduce ::= '(' use 'init' ':' use ')' (',' ...)* ('applies' op)? 'across' 'dimensions' '='
//            '[' ints ']' ':' types ('reducer' ('(' arg ',' arg ')')+ region)?
bool Reduce(DirectReader& r, OpText& op, Scope& s, int depth) {
  Lexer& lex = r.lex();
  OpText inits;
  do {
    if (!lex.Eat("(")) return false;
    std::string_view input = r.ValueName();
    if (input.empty() || lex.PeekChar() == '#' || !lex.Eat("init") || !lex.Eat(":")) return false;
    op.operands.push_back(input);
    std::string_view init = r.ValueName();
    if (init.empty() || !lex.Eat(")")) return false;
    inits.operands.push_back(init);
  } while (lex.Eat(","));
  const size_t n = op.operands.size();
  op.operands.insert(op.operands.end(), inits.operands.begin(), inits.operands.end());
  std::string_view applies;
  SourceLoc applies_pos = r.Here();
  if (lex.Eat("applies")) {
    applies_pos = r.Here();
    applies = lex.EatIdentView();
  }
  std::vector<int64_t> dims;
  if (!lex.Eat("across") || !lex.Eat("dimensions") || !lex.Eat("=") || !r.IntList(&dims) ||
      lex.PeekChar() == '{' || !r.TrailingTypes(op)) {
    return false;
  }
  Values in;
  if (!r.Operands(op, s, &in)) return false;
  Computation* body = nullptr;
  if (!applies.empty()) {
    // The body is `applies` on scalars of the init's type.
    auto it = ElementwiseOps().find(applies);
    if (n != 1 || op.operand_types.size() != 2 || it == ElementwiseOps().end() ||
        it->second.arity != 2) {
      return false;
    }
    const Shape* scalar = op.operand_types[1];
    body = r.NewComputation("region", applies_pos);
    Scope region{body, {}};
    Values args{r.Parameter(region, 0, "Arg_0", scalar, applies_pos),
                r.Parameter(region, 1, "Arg_1", scalar, applies_pos)};
    body->set_root(EmitElementwise(r, region, it->second, scalar, applies_pos, args));
  } else {
    // reducer (%a: t, %b: t) (%c: u, %d: u) {...}: the block's arguments are
    // every pair's first, then every pair's second.
    if (!lex.Eat("reducer")) return false;
    std::vector<std::pair<std::string_view, SourceLoc>> pairs;
    Shapes pair_types;
    for (size_t i = 0; i < n; ++i) {
      if (!lex.Eat("(")) return false;
      for (int k = 0; k < 2; ++k) {
        if (k == 1 && !lex.Eat(",")) return false;
        const SourceLoc pos = r.Here();
        std::string_view name = r.ValueName();
        if (name.empty() || lex.PeekChar() == '#' || !lex.Eat(":")) return false;
        const Shape* t = r.Type();
        if (t == nullptr) return false;
        pairs.emplace_back(name, pos);
        pair_types.push_back(t);
      }
      if (!lex.Eat(")")) return false;
    }
    if (in.size() != 2 * n) return false;
    const SourceLoc region_pos = r.Here();
    if (!lex.Eat("{")) return false;
    body = r.NewComputation("region", region_pos);
    Scope region{body, {}};
    for (size_t k = 0, number = 0; k < 2; ++k) {
      for (size_t i = 0; i < n; ++i, ++number) {
        const size_t j = 2 * i + k;
        region.values[pairs[j].first] =
            r.Parameter(region, number, StrCat("Arg_", number), pair_types[j], pairs[j].second);
      }
    }
    if (!RegionBody(r, region, depth, in.size() > 2)) return false;
  }
  if (in.empty() || in.size() % 2 != 0) return false;
  Instruction* reduce = r.Emit(s, Opcode::kReduce, "reduce", r.ResultType(op), op.pos, in);
  reduce->SetAttr(AttrKind::kDimensions, std::move(dims));
  reduce->SetAttr(AttrKind::kToApply, std::vector<Computation*>{body});
  return r.BindResults(s, op, reduce);
}

// A while region: its one tuple parameter's elements are the loop's values
// (`args`, of `types`); it returns the condition, or (the body) the next
// values as a tuple.
Computation* WhileRegion(DirectReader& r, std::string_view word,
                         const std::vector<std::pair<std::string_view, SourceLoc>>& args,
                         const Shapes& types, const Shape* tuple, bool tuple_root, int depth) {
  Lexer& lex = r.lex();
  if (!lex.Eat(word)) return nullptr;
  const SourceLoc pos = r.Here();
  if (!lex.Eat("{")) return nullptr;
  Computation* comp = r.NewComputation("region", pos);
  Scope region{comp, {}};
  Instruction* param = r.Parameter(region, 0, "arg_tuple", tuple, pos);
  for (size_t i = 0; i < args.size(); ++i) {
    Instruction* gte = r.Emit(region, Opcode::kGetTupleElement, "get-tuple-element", types[i],
                              args[i].second, {param});
    gte->SetAttr(AttrKind::kIndex, static_cast<int64_t>(i));
    region.values[args[i].first] = gte;
  }
  return RegionBody(r, region, depth, tuple_root) ? comp : nullptr;
}

// while ::= '(' (arg '=' use (',' ...)*)? ')' (':' types)? 'cond' region 'do' region
// (a loop whose regions use outer values is left to the general path,
// which carries them as extra loop values).
bool While(DirectReader& r, OpText& op, Scope& s, int depth) {
  Lexer& lex = r.lex();
  if (!lex.Eat("(")) return false;
  std::vector<std::pair<std::string_view, SourceLoc>> args;
  if (!lex.Eat(")")) {
    do {
      const SourceLoc pos = r.Here();
      std::string_view arg = r.ValueName();
      if (arg.empty() || lex.EatRaw('#') || !lex.Eat("=")) return false;
      std::string_view init = r.Use();
      if (init.empty()) return false;
      args.emplace_back(arg, pos);
      op.operands.push_back(init);
    } while (lex.Eat(","));
    if (!lex.Eat(")")) return false;
  }
  if (lex.PeekChar() == '{') return false;
  if (!op.operands.empty()) {
    if (!lex.Eat(":")) return false;
    do {
      const Shape* t = r.Type();
      if (t == nullptr) return false;
      op.operand_types.push_back(t);
    } while (lex.Eat(","));
    if (op.operand_types.size() != op.operands.size()) return false;
  }
  op.result_types = op.operand_types;
  Values in;
  if (!r.Operands(op, s, &in)) return false;
  const Shape* tuple = r.module().Intern(
      Shape::Tuple(std::vector<const Shape*>(op.operand_types.begin(), op.operand_types.end())));
  Computation* cond = WhileRegion(r, "cond", args, op.operand_types, tuple, false, depth);
  if (cond == nullptr) return false;
  Computation* body = WhileRegion(r, "do", args, op.operand_types, tuple, true, depth);
  if (body == nullptr) return false;
  Instruction* init = r.Emit(s, Opcode::kTuple, "tuple", tuple, op.pos, in);
  Instruction* loop = r.Emit(s, Opcode::kWhile, "while", tuple, op.pos, {init});
  loop->SetAttr(AttrKind::kCondition, std::vector<Computation*>{cond});
  loop->SetAttr(AttrKind::kBody, std::vector<Computation*>{body});
  return r.BindResults(s, op, loop, /*tuple=*/true);
}

// call ::= '@' callee '(' uses? ')' ':' types   (bound to the callee at the end)
bool Call(DirectReader& r, OpText& op, Scope& s, int) {
  Lexer& lex = r.lex();
  std::string_view callee = lex.EatSigilView('@');
  if (callee.empty() || !lex.Eat("(")) return false;
  if (!lex.Eat(")") && (!r.Uses(op) || !lex.Eat(")"))) return false;
  Values in;
  if (lex.PeekChar() == '{' || !r.TrailingTypes(op) || !r.Operands(op, s, &in)) return false;
  Instruction* call = r.Emit(s, Opcode::kCall, "call", r.ResultType(op), op.pos, in);
  call->SetAttr(AttrKind::kToApply, std::vector<Computation*>{nullptr});
  r.PendingCall(call, callee, op);
  return r.BindResults(s, op, call);
}

}  // namespace

OpReader FindOpReader(std::string_view name) {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, OpReader>;
    for (const auto& [op, e] : ElementwiseOps()) t->emplace(op, &Elementwise);
    const std::pair<std::string_view, OpReader> others[] = {
        {"stablehlo.broadcast_in_dim", &BroadcastInDim},
        {"stablehlo.clamp", &Clamp},
        {"stablehlo.compare", &Compare},
        {"stablehlo.concatenate", &Concatenate},
        {"stablehlo.constant", &Constant},
        {"stablehlo.dot_general", &DotGeneral},
        {"stablehlo.dynamic_slice", &DynamicSlice},
        {"stablehlo.dynamic_update_slice", &DynamicUpdateSlice},
        {"stablehlo.iota", &Iota},
        {"stablehlo.pad", &Pad},
        {"stablehlo.reduce", &Reduce},
        {"stablehlo.reshape", &Reshape},
        {"stablehlo.reverse", &Reverse},
        {"stablehlo.select", &Select},
        {"stablehlo.slice", &Slice},
        {"stablehlo.transpose", &Transpose},
        {"stablehlo.while", &While},
        {"func.call", &Call},
    };
    for (const auto& [op, fn] : others) t->emplace(op, fn);
    return t;
  }();
  auto it = table->find(name);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace hlo::stablehlo::direct
