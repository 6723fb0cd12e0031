// .npy files read straight into a literal (ReadNpyFile) against the
// in-memory reader (ReadNpy) on the same images: the same literal or the
// same message. Images are hand-built from NumPy's format description
// (magic, version, little-endian header length, header dict, data), so a
// byte-order or Fortran-order image is read as NumPy would.
#include "ir/npy.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hlo {
namespace {

// A version-1 image of `dict` and `data` (the header padded with spaces
// and ended by '\n', as NumPy writes it).
std::string Image(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 16 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

// Writes `bytes` to a fresh temporary file; removed with the object.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& bytes) {
    char name[] = "/tmp/npy_test_XXXXXX";
    const int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

std::string Bytes(std::vector<uint8_t> v) { return std::string(v.begin(), v.end()); }

// Both readers on one image: both fail with `error` in the message, or both
// give the same literal; returns the file reader's.
absl::StatusOr<Literal> ReadBoth(const std::string& image, const Shape& shape,
                                 const std::string& error = "") {
  TempFile file(image);
  absl::StatusOr<Literal> from_file = ReadNpyFile(file.path, shape);
  absl::StatusOr<Literal> from_bytes = ReadNpy(image, shape, file.path);
  INFO((from_file.ok() ? std::string("ok") : std::string(from_file.status().message())));
  INFO((from_bytes.ok() ? std::string("ok") : std::string(from_bytes.status().message())));
  REQUIRE(from_file.ok() == from_bytes.ok());
  if (!error.empty()) {
    REQUIRE_FALSE(from_file.ok());
    CHECK(from_file.status().message() == from_bytes.status().message());
    CHECK(std::string(from_file.status().message()).find(error) != std::string::npos);
    CHECK(std::string(from_file.status().message()).find(file.path) == 0);
  } else {
    REQUIRE(from_file.ok());
    CHECK(*from_file == *from_bytes);
  }
  return from_file;
}

void ExpectBoth(const std::string& image, const Shape& shape, const std::string& error) {
  (void)ReadBoth(image, shape, error);
}

TEST_CASE("ReadNpyFile: little-endian f32, row-major", "[npy]") {
  // 1.0f, 2.0f, -0.5f, 3.0f as IEEE little-endian bytes.
  const std::string data =
      Bytes({0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0, 0xbf, 0, 0, 0x40, 0x40});
  auto lit = ReadBoth(Image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", data),
                      Shape::Array(PrimitiveType::kF32, {2, 2}));
  REQUIRE(lit.ok());
  CHECK(lit->GetDouble(0) == 1.0);
  CHECK(lit->GetDouble(1) == 2.0);
  CHECK(lit->GetDouble(2) == -0.5);
  CHECK(lit->GetDouble(3) == 3.0);
}

TEST_CASE("ReadNpyFile: big-endian and Fortran-order data", "[npy]") {
  // '>i2' 1, 2, 3, 4, 5, 6 in column-major order of a (2, 3) array: the
  // row-major elements are 1, 3, 5 / 2, 4, 6.
  const std::string data = Bytes({0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6});
  auto lit = ReadBoth(Image("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }", data),
                      Shape::Array(PrimitiveType::kS16, {2, 3}));
  REQUIRE(lit.ok());
  const int64_t want[] = {1, 3, 5, 2, 4, 6};
  for (int i = 0; i < 6; ++i) CHECK(lit->GetInt(i) == want[i]);
}

TEST_CASE("ReadNpyFile: bad images give the in-memory reader's located messages", "[npy]") {
  const Shape f32x4 = Shape::Array(PrimitiveType::kF32, {4});
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  ExpectBoth(Image(dict, std::string(12, '\0')), f32x4, "data has 12 bytes, 16 needed");
  ExpectBoth(Image(dict, ""), f32x4, "data has 0 bytes, 16 needed");
  ExpectBoth("PK\x03\x04 not npy at all", f32x4, "bad magic");
  ExpectBoth("\x93NUM", f32x4, "bad magic");
  ExpectBoth(Image(dict, std::string(16, '\0')).substr(0, 30), f32x4, "truncated .npy header");
  ExpectBoth(Image(dict, std::string(16, '\0')), Shape::Array(PrimitiveType::kF32, {2, 2}),
             "array has dims (4)");
  ExpectBoth(Image(dict, std::string(16, '\0')), Shape::Array(PrimitiveType::kS32, {4}),
             "does not fit the parameter type");
  ExpectBoth(Image("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", Bytes({1, 7})),
             Shape::Array(PrimitiveType::kPred, {2}), "out of range for pred");
}

TEST_CASE("ReadNpyFile: a missing file is named with the reason", "[npy]") {
  absl::StatusOr<Literal> r =
      ReadNpyFile("/nonexistent/input.npy", Shape::Array(PrimitiveType::kF32, {1}));
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()) ==
        "/nonexistent/input.npy: error: cannot open: No such file or directory");
}

}  // namespace
}  // namespace hlo
