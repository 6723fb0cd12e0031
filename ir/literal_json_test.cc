// Literal JSON (ir/literal_json.h), design.md's result format: element
// spellings, reading back, and the streamed text being the whole text.
#include "ir/literal_json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace hlo {
namespace {

using PT = PrimitiveType;

Literal Make(PT type, std::vector<int64_t> dims) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  return *std::move(lit);
}

Literal Doubles(PT type, std::vector<double> values) {
  Literal lit = Make(type, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) lit.SetDouble(i, values[i]);
  return lit;
}

Literal Ints(PT type, std::vector<int64_t> values) {
  Literal lit = Make(type, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) lit.SetInt(i, values[i]);
  return lit;
}

// The text between `"data": [` and the array's closing `]}`.
std::string Data(const std::string& json) {
  const size_t start = json.find("\"data\": [");
  REQUIRE(start != std::string::npos);
  const size_t end = json.rfind("]}");
  REQUIRE(end != std::string::npos);
  return json.substr(start + 9, end - start - 9);
}

struct Streamed {
  std::string text;
  int pieces = 0;
};

Streamed StreamAll(const Literal& lit, const Shape* shape, size_t chunk) {
  Streamed s;
  REQUIRE(StreamLiteralJson(
              lit, shape,
              [&](std::string_view piece) {
                s.text += piece;
                ++s.pieces;
                return absl::OkStatus();
              },
              chunk)
              .ok());
  return s;
}

TEST_CASE("JSON floats: shortest digits, a float form, non-finite as strings", "[literal_json]") {
  // design.md: integral floats read as floats (a ".0"), exponents as
  // to_chars writes them, NaN and infinities as strings.
  CHECK(Data(LiteralToJson(Doubles(PT::kF32, {100, 1e20, -0.0, 0.5, 16777216, 1e-45}))) ==
        "100.0, 1e+20, -0.0, 0.5, 16777216.0, 1e-45");
  CHECK(Data(LiteralToJson(Doubles(PT::kF64, {0.1, 9007199254740992.0, -5e-324}))) ==
        "0.1, 9007199254740992.0, -5e-324");
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Data(LiteralToJson(Doubles(PT::kF32, {std::nan(""), -std::nan(""), inf, -inf}))) ==
        "\"nan\", \"nan\", \"inf\", \"-inf\"");
  CHECK(Data(LiteralToJson(Doubles(PT::kBF16, {1, 0.1}))) == "1.0, 0.1");
}

TEST_CASE("JSON integers are exact at the ends of their ranges", "[literal_json]") {
  CHECK(Data(LiteralToJson(Ints(PT::kS64, {std::numeric_limits<int64_t>::min(), -1,
                                           std::numeric_limits<int64_t>::max()}))) ==
        "-9223372036854775808, -1, 9223372036854775807");
  // u64's largest, held as the int64 of the same bits.
  CHECK(Data(LiteralToJson(Ints(PT::kU64, {-1, 0}))) == "18446744073709551615, 0");
  CHECK(Data(LiteralToJson(Ints(PT::kS8, {-128, 127}))) == "-128, 127");
  CHECK(Data(LiteralToJson(Ints(PT::kU16, {65535}))) == "65535");
  CHECK(Data(LiteralToJson(Ints(PT::kPred, {1, 0}))) == "true, false");
}

TEST_CASE("JSON reads back to the same bits", "[literal_json]") {
  // 1300 f32 and f64 values of every magnitude (three blocks of the typed
  // writer), each a distinct bit pattern.
  for (PT type : {PT::kF32, PT::kF64}) {
    Literal lit = Make(type, {1300});
    for (int64_t i = 0; i < lit.element_count(); ++i) {
      lit.SetDouble(
          i, std::ldexp(1.0 + i / 1301.0, static_cast<int>(i % 200) - 100) * (i % 3 == 0 ? -1 : 1));
    }
    absl::StatusOr<Literal> back = LiteralFromJson(LiteralToJson(lit), "test");
    REQUIRE(back.ok());
    REQUIRE(back->element_count() == lit.element_count());
    for (int64_t i = 0; i < lit.element_count(); ++i) {
      INFO(i);
      CHECK(back->GetBits(i) == lit.GetBits(i));
    }
  }
}

TEST_CASE("JSON streams in pieces, its text unchanged", "[literal_json]") {
  // 1300 f32s with non-finite values in every block: the pieces end after
  // each of the first two blocks of 512, then the rest.
  Literal lit = Make(PT::kF32, {1300});
  for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetDouble(i, i * 0.25 - 7);
  for (int64_t i : {0, 511, 512, 1023, 1024, 1299}) {
    lit.SetDouble(i, i % 2 ? std::numeric_limits<double>::infinity() : std::nan(""));
  }
  const Streamed s = StreamAll(lit, nullptr, 1);
  CHECK(s.text == LiteralToJson(lit));
  CHECK(s.pieces == 3);  // two blocks, then the last with the closing "]}"
  // A large chunk: one piece. A tuple with an untyped (c64, pred) element
  // and a layout given for the printed shape.
  std::vector<Literal> elements;
  elements.push_back(Make(PT::kC64, {2}));
  elements.push_back(Ints(PT::kPred, std::vector<int64_t>(1100, 1)));
  elements.push_back(std::move(lit));
  const Literal tuple = Literal::Tuple(std::move(elements));
  const Shape shape = tuple.shape();
  const Streamed whole = StreamAll(tuple, &shape, size_t{1} << 30);
  CHECK(whole.pieces == 1);
  CHECK(whole.text == LiteralToJson(tuple, &shape));
  const Streamed pieces = StreamAll(tuple, &shape, 1);
  CHECK(pieces.text == whole.text);
  CHECK(pieces.pieces > 4);
}

TEST_CASE("JSON streaming stops at the sink's first error", "[literal_json]") {
  Literal lit = Make(PT::kS32, {2000});
  int calls = 0;
  const absl::Status st = StreamLiteralJson(
      lit, nullptr,
      [&](std::string_view) {
        ++calls;
        return absl::DataLossError("disk full");
      },
      1);
  CHECK(st.code() == absl::StatusCode::kDataLoss);
  CHECK(calls == 1);
}

}  // namespace
}  // namespace hlo
