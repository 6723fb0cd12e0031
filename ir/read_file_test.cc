// ReadRestOfFile's limit: an endless stream ends in a located error once it
// passes the limit, and what fits is read whole (a regular file, a pipe).
#include "ir/read_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <thread>

namespace hlo {
namespace {

TEST_CASE("an endless stream stops at the input limit", "[read_file]") {
  std::FILE* zero = std::fopen("/dev/zero", "rb");
  REQUIRE(zero != nullptr);
  auto data = ReadRestOfFile(zero, "/dev/zero", int64_t{3} << 20);
  std::fclose(zero);
  REQUIRE_FALSE(data.ok());
  CHECK(std::string(data.status().message()) ==
        "/dev/zero: error: cannot read: the input (more than 3145728 bytes) exceeds the input "
        "limit of 3145728 bytes");
}

TEST_CASE("a regular file over the limit is refused before it is read", "[read_file]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  const std::string text(1000, 'x');
  REQUIRE(std::fwrite(text.data(), 1, text.size(), f) == text.size());
  std::rewind(f);
  auto refused = ReadRestOfFile(f, "big.hlo", 999);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()) ==
        "big.hlo: error: cannot read: its size (1000 bytes) exceeds the input limit of 999 bytes");
  std::rewind(f);
  auto read = ReadRestOfFile(f, "big.hlo", 1000);
  std::fclose(f);
  REQUIRE(read.ok());
  CHECK(*read == text);
}

TEST_CASE("a pipe's input is read whole, in blocks, up to the limit", "[read_file]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  // More than one block (1 MiB) and not a whole number of them.
  const std::string text((size_t{1} << 20) + 12345, 'y');
  std::FILE* out = fdopen(fds[1], "wb");
  std::FILE* in = fdopen(fds[0], "rb");
  REQUIRE((out != nullptr && in != nullptr));
  std::thread writer([&] {
    std::fwrite(text.data(), 1, text.size(), out);
    std::fclose(out);
  });
  auto read = ReadRestOfFile(in, "pipe", static_cast<int64_t>(text.size()));
  writer.join();
  std::fclose(in);
  REQUIRE(read.ok());
  CHECK(*read == text);
}

TEST_CASE("the default limit is half of some memory", "[read_file]") {
  CHECK(MaxInputBytes() > 0);
  CHECK(MaxInputBytes() < INT64_MAX / 2 + 1);
}

}  // namespace
}  // namespace hlo
