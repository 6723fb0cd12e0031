// hlo-run --expect's files: how the arguments split among devices and
// arrays (README "--expect"), and reading a folder of .npy files.
#include "eval/io/expect.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir/npy.h"
#include "ir/output_file.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using Files = std::vector<std::vector<std::string>>;

Shape ShapeOf(ShapePool& pool, const char* text) {
  auto s = ParseShape(text, pool);
  REQUIRE(s.ok());
  return *s;
}

std::string Message(const absl::StatusOr<Files>& r) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}

TEST_CASE("AssignExpectFiles splits by arrays and devices", "[expect]") {
  ShapePool pool;
  Shape tuple = ShapeOf(pool, "(f32[2], (s32[3], f32[]))");
  Shape array = ShapeOf(pool, "f32[2]");
  CHECK(ResultArrayCount(tuple) == 3);
  CHECK(ResultArrayCount(array) == 1);
  // One file per array, every device the same.
  auto r = AssignExpectFiles({"a.npy", "b.npy", "c.npy"}, tuple, 2);
  REQUIRE(r.ok());
  CHECK(*r == Files{{"a.npy", "b.npy", "c.npy"}, {"a.npy", "b.npy", "c.npy"}});
  // Text files of the whole result, one per device.
  r = AssignExpectFiles({"r0.txt", "r1.txt"}, tuple, 2);
  REQUIRE(r.ok());
  CHECK(*r == Files{{"r0.txt"}, {"r1.txt"}});
  // One per array per device, device 0's first.
  r = AssignExpectFiles({"a0", "b0", "c0", "a1", "b1", "c1"}, tuple, 2);
  REQUIRE(r.ok());
  CHECK(*r == Files{{"a0", "b0", "c0"}, {"a1", "b1", "c1"}});
  // Two arrays on two devices: .npy files are arrays, text files results.
  Shape pair = ShapeOf(pool, "(f32[2], s32[])");
  r = AssignExpectFiles({"a.npy", "b.npy"}, pair, 2);
  REQUIRE(r.ok());
  CHECK(*r == Files{{"a.npy", "b.npy"}, {"a.npy", "b.npy"}});
  r = AssignExpectFiles({"r0.json", "r1.json"}, pair, 2);
  REQUIRE(r.ok());
  CHECK(*r == Files{{"r0.json"}, {"r1.json"}});
  // An array result takes one .npy.
  r = AssignExpectFiles({"a.npy"}, array, 1);
  REQUIRE(r.ok());
  CHECK(*r == Files{{"a.npy"}});
}

TEST_CASE("AssignExpectFiles refuses counts that fit nothing", "[expect]") {
  ShapePool pool;
  Shape tuple = ShapeOf(pool, "(f32[2], (s32[3], f32[]))");
  std::string msg = Message(AssignExpectFiles({"a.npy", "b.npy"}, tuple, 1));
  CHECK(msg.find("2 --expect given") != std::string::npos);
  CHECK(msg.find("3 arrays") != std::string::npos);
  // One .npy cannot hold a tuple.
  msg = Message(AssignExpectFiles({"a.npy"}, tuple, 1));
  CHECK(msg.find("a.npy holds one array") != std::string::npos);
  msg = Message(AssignExpectFiles({"a", "b", "c", "d"}, tuple, 2));
  CHECK(msg.find("2 devices") != std::string::npos);
}

TEST_CASE("LoadExpectedResult reads a folder by either naming", "[expect]") {
  ShapePool pool;
  Shape tuple = ShapeOf(pool, "(f32[2], (s32[3], f32[]))");
  char tmpl[] = "/tmp/hlo_expect_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  auto write = [&](const char* name, const char* literal) {
    auto lit = ParseLiteral(literal);
    REQUIRE(lit.ok());
    auto bytes = WriteNpy(*lit);
    REQUIRE(bytes.ok());
    REQUIRE(WriteFileAtomically(dir + "/" + name, *bytes).ok());
  };
  write("out_0.npy", "f32[2] {1, 2}");
  write("result_1_0.npy", "s32[3] {3, 4, 5}");  // hlo-run's name wins
  write("out_2.npy", "f32[] 6");
  auto lit = LoadExpectedResult({dir}, tuple, "");
  REQUIRE(lit.ok());
  REQUIRE(lit->IsTuple());
  CHECK(lit->elements()[0].GetDouble(1) == 2);
  CHECK(lit->elements()[1].elements()[0].GetInt(2) == 5);
  CHECK(lit->elements()[1].elements()[1].GetDouble(0) == 6);
  // A file that is no array of the result fails the check.
  write("out_3.npy", "f32[] 7");
  auto extra = LoadExpectedResult({dir}, tuple, "");
  REQUIRE_FALSE(extra.ok());
  CHECK(std::string(extra.status().message()).find("out_3.npy") != std::string::npos);
  std::remove((dir + "/out_3.npy").c_str());
  std::remove((dir + "/out_2.npy").c_str());
  auto missing = LoadExpectedResult({dir}, tuple, "");
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()).find("result array 2") != std::string::npos);
  std::remove((dir + "/out_0.npy").c_str());
  std::remove((dir + "/result_1_0.npy").c_str());
  std::remove(dir.c_str());
}

}  // namespace
}  // namespace hlo
