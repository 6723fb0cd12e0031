// The unit tests' parse: a module from text, or the test fails with the
// parser's message.
#ifndef HLO_PARSER_PARSE_TEST_UTIL_H_
#define HLO_PARSER_PARSE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "parser/parser.h"

namespace hlo {

inline std::unique_ptr<Module> ParseTestModule(std::string_view text) {
  auto m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *std::move(m);
}

}  // namespace hlo

#endif  // HLO_PARSER_PARSE_TEST_UTIL_H_
