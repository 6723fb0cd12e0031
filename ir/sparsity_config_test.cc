// sparsity_config as XLA's parser reads it (hlo_parser.cc
// ParseSparsityConfig) and its printer writes it (SparsityConfigToString).
#include "ir/sparsity_config.h"

#include <catch2/catch.hpp>

namespace hlo {
namespace {

std::string Canonical(std::string_view text) {
  std::string error;
  size_t offset = 0;
  std::optional<SparsityConfig> c = ReadSparsityConfig(text, &error, &offset);
  return c ? SparsityConfigText(*c) : "error@" + std::to_string(offset) + ": " + error;
}

TEST_CASE("sparsity_config: XLA's print", "[sparsity_config]") {
  CHECK(Canonical("{rhs={sparsity=3x4 dimension=0 stride=1}}") ==
        "{rhs={sparsity=3x4 dimension=0 stride=1}}");
  CHECK(Canonical("{lhs={sparsity=1x4 dimension=1 stride=1} rhs={sparsity=3x4 dimension=0 "
                  "stride=1}}") ==
        "{lhs={sparsity=1x4 dimension=1 stride=1} rhs={sparsity=3x4 dimension=0 stride=1}}");
  // rhs before lhs, fields in any order, left-out fields 0, spaces.
  CHECK(Canonical("{ rhs = { stride=2 sparsity=1x8 } lhs={} }") ==
        "{lhs={sparsity=0x0 dimension=0 stride=0} rhs={sparsity=1x8 dimension=0 stride=2}}");
  // A side given twice: the later fields overwrite, the others stay (proto merge).
  CHECK(Canonical("{rhs={sparsity=1x4 stride=1} rhs={dimension=2}}") ==
        "{rhs={sparsity=1x4 dimension=2 stride=1}}");
  CHECK(Canonical("{}") == "{}");
  SparsityConfig c;
  CHECK_FALSE(HasSparsity(c));
  c.rhs.emplace();
  CHECK(HasSparsity(c));
}

TEST_CASE("sparsity_config: errors and their offsets", "[sparsity_config]") {
  CHECK(Canonical("{out={}}") ==
        "error@1: unknown sparsity_config side 'out'; expected lhs or rhs");
  CHECK(Canonical("{rhs={sparsity=4}}") ==
        "error@15: expected 'sparsity=NxM' (num_non_zero x block_size)");
  CHECK(Canonical("{rhs={sparsity=-1x4}}") ==
        "error@15: expected 'sparsity=NxM' (num_non_zero x block_size)");
  CHECK(Canonical("{rhs={axis=1}}") ==
        "error@6: unknown sparsity field 'axis'; expected sparsity, dimension or stride");
  CHECK(Canonical("{rhs={dimension=x}}") == "error@16: expected an integer for 'dimension'");
  CHECK(Canonical("{rhs={}, lhs={}}") == "error@7: expected an attribute name");
  CHECK(Canonical("{rhs={}") == "error@7: expected an attribute name");
  CHECK(Canonical("{rhs={}} x") == "error@9: unexpected text after sparsity_config's '}'");
  CHECK(Canonical("rhs") == "error@0: expected '{' to open sparsity_config");
}

}  // namespace
}  // namespace hlo
