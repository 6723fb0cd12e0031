// What the reader builds from StableHLO text before translation: types,
// attributes, operations with their regions, functions and the module. The
// pretty and the generic form of an op give the same Op (the attribute
// names are MLIR's property names, e.g. `broadcast_dimensions`).
#ifndef HLO_STABLEHLO_AST_H_
#define HLO_STABLEHLO_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "stablehlo/lexer.h"

namespace hlo::stablehlo {

// A uniform quantized element type, `!quant.uniform<i8:f32, 0.5:-3>` (one
// scale and zero point) or `!quant.uniform<i8:f32:1, {0.5:-3, 0.25}>` (one
// per index of dimension `axis`). A tensor of it holds its storage integers.
struct QuantParams {
  std::string storage;    // the HLO name of the storage type: s8, u8, s32, ...
  std::string expressed;  // the HLO name of the expressed type: f32, ...
  int64_t storage_min = 0, storage_max = 0;
  int64_t axis = -1;  // per-axis: the quantized dimension
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  bool per_axis() const { return axis >= 0; }
  // As MLIR writes it: `!quant.uniform<i8:f32, 5.000000e-01:-3>`.
  std::string Mlir() const;
  bool operator==(const QuantParams&) const = default;
};

// tensor<2x3xf32>, tuple<...>, !stablehlo.token. `element` is the HLO
// primitive type name (f32, s32, pred, c64, ...); of a quantized tensor, its
// storage type's, with `quant` saying how its values are read.
struct Type {
  enum class Kind : uint8_t { kTensor, kTuple, kToken };
  Kind kind = Kind::kTensor;
  std::string element;
  absl::InlinedVector<int64_t, 6> dims;  // no allocation for most tensors
  // Dynamic dimensions (bit i): dims[i] is a bound, as MLIR's
  // `tensor<4x?xf32, #stablehlo.bounds<?, 4>>` and HLO's `f32[4,<=4]`, or
  // -1 when unbounded (`tensor<?xf32>`, HLO's `f32[?]`).
  uint64_t dynamic = 0;
  std::vector<Type> elements;                // kTuple
  std::shared_ptr<const QuantParams> quant;  // a quantized tensor's element type
  bool is_dynamic(size_t i) const { return (dynamic >> i) & 1; }
  // `?` without a bound (dims[i] is -1).
  bool is_unbounded(size_t i) const { return is_dynamic(i) && dims[i] < 0; }
  bool has_unbounded() const {
    for (size_t i = 0; i < dims.size(); ++i) {
      if (is_unbounded(i)) return true;
    }
    return false;
  }
  // The HLO shape text, without a layout: `f32[2,3]`, `(f32[], s32[])`, `token[]`.
  std::string Hlo() const;
  // As MLIR writes it, for messages: `tensor<2x3xf32>`.
  std::string Mlir() const;
  int64_t ElementCount() const;  // -1 when a dimension is unbounded
  bool operator==(const Type& o) const {
    return kind == o.kind && element == o.element && dims == o.dims && dynamic == o.dynamic &&
           elements == o.elements && (quant == o.quant || (quant && o.quant && *quant == *o.quant));
  }
};

struct NamedAttr;

// An attribute value. Dense elements keep their element texts (or the
// hex bytes); dialect attributes (`#stablehlo.gather<k = v, ...>`) keep
// their parameters as a dictionary and their text.
struct Attr {
  enum class Kind : uint8_t {
    kUnit,        // a key without a value (`use_global_device_ids`)
    kInt,         // 3 : i64
    kFloat,       // 1.0 : f32
    kBool,        // true
    kString,      // "text"
    kSymbol,      // @name
    kWord,        // a bare word: DEFAULT, FFT, b (enums written bare)
    kArray,       // [a, b]
    kDict,        // {a = 1, b}
    kDenseArray,  // array<i64: 1, 2>
    kDense,       // dense<...> : tensor<...>
    kDialect,     // #stablehlo.gather<...>, #stablehlo<precision DEFAULT>, #sdy...
    kType,        // a type as a value
  };
  Kind kind = Kind::kUnit;
  int64_t i = 0;
  double f = 0;
  std::string s;  // string, symbol, word, dialect name, dense hex bytes
  std::vector<Attr> list;
  std::vector<NamedAttr> dict;
  Type type;                       // of kInt/kFloat/kDense (when written)
  std::vector<std::string> elems;  // kDense: element texts in row-major order
  bool dense_hex = false;          // kDense: s holds the raw bytes
  bool dense_nested = false;       // kDense: written as a nested list
  std::string text;                // kDialect / kDict: the source text
  Pos pos;

  const Attr* Find(std::string_view key) const;
};

// `key = value` in a dictionary (first, second: as the pair it stands for).
struct NamedAttr {
  NamedAttr(std::string key, Attr value) : first(std::move(key)), second(std::move(value)) {}
  std::string first;
  Attr second;
};

struct Op;

struct Block {
  std::vector<std::pair<std::string, Type>> args;
  std::vector<Pos> arg_pos;
  std::vector<Op> ops;
};

struct Region {
  std::vector<Block> blocks;
  Pos pos;
};

// A use of a value: `%x` or `%x#1`.
struct Use {
  std::string name;  // with the `#N` suffix when written
  Pos pos;
};

// Source locations attached to an op (`loc(...)`), as metadata.
struct Location {
  std::string_view raw;  // the `loc(...)` body as written, until resolved
  std::string op_name;
  std::string file;
  int64_t line = 0;
  int64_t col = 0;
};

struct Op {
  std::string name;                  // stablehlo.add, func.call, chlo.top_k
  std::vector<std::string> results;  // one SSA name per result (`%0#1` for `%0:2`)
  std::vector<Use> operands;
  std::vector<NamedAttr> attrs;
  std::vector<Region> regions;
  std::vector<Type> operand_types;
  std::vector<Type> result_types;
  Location loc;
  Pos pos;       // the op's first character (its results or its name)
  Pos name_pos;  // its name

  const Attr* FindAttr(std::string_view key) const;
};

struct Argument {
  std::string name;
  Type type;
  Attr attrs;  // a dictionary (possibly empty)
  Pos pos;
};

struct Func {
  std::string name;
  bool is_public = true;
  std::vector<Argument> args;
  std::vector<Type> results;
  std::vector<Attr> result_attrs;
  Region body;
  Pos pos;
  Location loc;
};

struct Mesh {
  std::string name;
  std::string text;  // the `<["i"=4]>` text as written
  std::vector<std::pair<std::string, int64_t>> axes;
  Pos pos;
};

struct MlirModule {
  std::string name;
  Attr attrs;  // a dictionary
  std::vector<Func> funcs;
  std::vector<Mesh> meshes;
  Pos pos;
};

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_AST_H_
