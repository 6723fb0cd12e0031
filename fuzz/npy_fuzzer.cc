// libFuzzer target: the .npy reader (hlo-run --input x.npy). The first byte
// picks the parameter's element type; the dims are the header's own (when
// they can be read and hold at most 2^24 elements), so the data paths are
// reached and not only the dims check.
//
// Checked: no crash or sanitizer report; an error names the file; an array
// read writes as .npy that reads back to the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "ir/npy.h"
#include "ir/shape.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace {

constexpr std::string_view kFile = "fuzz.npy";

constexpr std::string_view kTypes[] = {
    "pred", "s8",  "s16", "s32",  "s64", "u8", "u16", "u32", "u64",      "f16",    "bf16",
    "f32",  "f64", "c64", "c128", "s4",  "u4", "s2",  "u1",  "f8e4m3fn", "f8e5m2", "f4e2m1fn",
};

// The dims between the parentheses after 'shape', as "2,3"; "" when there
// are none or they cannot be read.
std::string HeaderDims(std::string_view bytes) {
  size_t key = bytes.find("'shape'");
  if (key == std::string_view::npos) return "";
  size_t open = bytes.find('(', key);
  size_t close = bytes.find(')', key);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return "";
  }
  std::string dims;
  int64_t elements = 1;
  int rank = 0;
  for (std::string_view part : hlo::StrSplit(bytes.substr(open + 1, close - open - 1), ',', true)) {
    part = hlo::StripWhitespace(part);
    if (part.empty()) continue;
    int64_t d = 0;
    if (!hlo::ParseInt64(part, &d) || d < 0 || d > (int64_t{1} << 24) || ++rank > 8) return "";
    elements *= d;
    if (elements > (int64_t{1} << 24)) return "";
    if (!dims.empty()) dims += ',';
    dims += std::string(part);
  }
  return dims;
}

void CheckRewrite(const hlo::Literal& lit) {
  auto written = hlo::WriteNpy(lit);
  if (!written.ok())
    hlo::fuzz::Fail("an array read from .npy cannot be written",
                    hlo::fuzz::Text(written.status().message()));
  auto again = hlo::ReadNpy(*written, lit.shape(), "rewritten.npy");
  if (!again.ok())
    hlo::fuzz::Fail("a written .npy does not read back", hlo::fuzz::Text(again.status().message()));
  auto written_again = hlo::WriteNpy(*again);
  if (!written_again.ok() || *written_again != *written) {
    hlo::fuzz::Fail("writing .npy is not a fixed point");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string_view type = kTypes[data[0] % (sizeof(kTypes) / sizeof(kTypes[0]))];
  std::string shape_text = std::string(type) + "[" + HeaderDims(bytes) + "]";
  hlo::ShapePool pool;
  auto shape = hlo::ParseShape(shape_text, pool);
  if (!shape.ok()) hlo::fuzz::Fail("a fuzz target shape does not parse", shape_text);
  auto lit = hlo::ReadNpy(bytes, *shape, kFile);
  if (!lit.ok()) {
    hlo::fuzz::CheckLocated(lit.status(), kFile);
    return 0;
  }
  CheckRewrite(*lit);
  return 0;
}
