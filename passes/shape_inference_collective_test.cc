// Tests for the shape inference of collectives, async pairs, send/recv,
// infeed/outfeed, copy-start/done, domain and opt-barrier. Valid cases are
// the testdata/parser corpus (every instruction of the family must infer to
// its declared shape) and the specs' examples; each invalid case breaks one
// rule and checks that the message names it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "ir/computation.h"
#include "ir/module.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseModule(text);
  INFO(std::string(m.ok() ? "" : m.status().message()));
  REQUIRE(m.ok());
  return std::move(*m);
}

const Instruction& Find(const Module& m, std::string_view name) {
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->name() == name) return *i;
    }
  }
  FAIL("no instruction " << name);
  throw std::logic_error("unreachable");
}

absl::StatusOr<Shape> Infer(Module& m, std::string_view name) {
  return InferCollectiveShape(Find(m, name), m.shapes());
}

// The inferred shape's text (no layout), requiring success.
std::string Text(Module& m, std::string_view name) {
  absl::StatusOr<Shape> r = Infer(m, name);
  INFO(std::string(r.ok() ? "" : r.status().message()));
  REQUIRE(r.ok());
  return r->ToString(false);
}

// The error message of inferring `name` in `text`, requiring failure.
std::string Err(std::string_view text, std::string_view name = "r") {
  std::unique_ptr<Module> m = Parse(text);
  absl::StatusOr<Shape> r = Infer(*m, name);
  INFO("inferred " << (r.ok() ? r->ToString(false) : ""));
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

using Catch::Contains;

bool InFamily(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectiveReduce:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kDomain:
    case Opcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

std::string ReadCorpus(const std::string& file) {
  std::ifstream in(std::string(HLO_SOURCE_DIR) + "/testdata/parser/" + file);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every family instruction of the file infers to its declared shape.
int CheckCorpus(const std::string& file) {
  auto modules = ParseModules(ReadCorpus(file), ParseOptions{"<input>", &InferShape});
  INFO(file << ": " << (modules.ok() ? "" : std::string(modules.status().message())));
  REQUIRE(modules.ok());
  int checked = 0;
  for (auto& m : *modules) {
    for (const auto& c : m->computations()) {
      for (const auto& i : c->instructions()) {
        if (!InFamily(*i)) continue;
        absl::StatusOr<Shape> r = InferCollectiveShape(*i, m->shapes());
        INFO(file << " %" << i->name() << ": "
                  << (r.ok() ? r->ToString(false) : std::string(r.status().message())));
        REQUIRE(r.ok());
        CHECK(r->Compatible(i->shape()));
        ++checked;
      }
    }
  }
  return checked;
}

// ---- valid: the corpus ----------------------------------------------------------

TEST_CASE("collective: every corpus module's collectives infer to their shapes",
          "[shape_inference][collective]") {
  for (const char* file :
       {"async_collectives.hlo", "async_ops_computation.hlo", "async_ops_sugar.hlo",
        "send_recv.hlo", "copy_start_done.hlo", "all_gather_reduce_scatter.hlo",
        "all_reduce_forms.hlo", "all_reduce_iota_groups.hlo", "all_to_all.hlo",
        "collective_broadcast.hlo", "collective_permute.hlo", "collective_reduce.hlo",
        "ragged_all_to_all.hlo", "infeed_outfeed.hlo", "domain.hlo", "tokens_ordering.hlo",
        "partition_replica_id.hlo", "short_async.hlo", "short_collectives.hlo"}) {
    CHECK(CheckCorpus(file) > 0);
  }
}

TEST_CASE("collective: every module in testdata/parser verifies here",
          "[shape_inference][collective]") {
  // The whole corpus, so that a new corpus module with a collective is
  // covered without being listed above.
  int files = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(HLO_SOURCE_DIR) + "/testdata/parser")) {
    if (e.path().extension() != ".hlo") continue;
    CheckCorpus(e.path().filename().string());
    ++files;
  }
  CHECK(files > 19);
}

TEST_CASE("collective: exact shapes of the corpus's async and paired ops",
          "[shape_inference][collective]") {
  std::unique_ptr<Module> m = Parse(ReadCorpus("async_collectives.hlo"));
  CHECK(Text(*m, "ars") == "f32[8]");
  CHECK(Text(*m, "ard") == "f32[8]");
  CHECK(Text(*m, "ags") == "(f32[8], f32[16])");
  CHECK(Text(*m, "agd") == "f32[16]");
  CHECK(Text(*m, "cps") == "(f32[16], f32[16], u32[], u32[])");
  CHECK(Text(*m, "cpd") == "f32[16]");

  std::unique_ptr<Module> a = Parse(ReadCorpus("async_ops_computation.hlo"));
  CHECK(Text(*a, "async-start") == "((f32[8]), f32[8], s32[])");
  CHECK(Text(*a, "async-done") == "f32[8]");

  std::unique_ptr<Module> s = Parse(ReadCorpus("send_recv.hlo"));
  CHECK(Text(*s, "send") == "(f32[4], u32[], token[])");
  CHECK(Text(*s, "recv-done") == "(f32[4], token[])");
  CHECK(Text(*s, "send-done") == "token[]");

  std::unique_ptr<Module> c = Parse(ReadCorpus("copy_start_done.hlo"));
  CHECK(Text(*c, "cs") == "(f32[2,3], f32[2,3], u32[])");
  CHECK(Text(*c, "cd") == "f32[2,3]");

  std::unique_ptr<Module> p = Parse(ReadCorpus("collective_permute.hlo"));
  CHECK(Text(*p, "comb") == "(f32[4,8], f32[2])");
  CHECK(Text(*p, "inplace") == "f32[8,8]");

  std::unique_ptr<Module> ids = Parse(ReadCorpus("partition_replica_id.hlo"));
  CHECK(Text(*ids, "replica-id") == "u32[]");
  CHECK(Text(*ids, "partition-id") == "u32[]");
}

// ---- valid: the specs' examples and group sizes -------------------------------------

TEST_CASE("collective: spec examples", "[shape_inference][collective]") {
  // StableHLO all_gather: f32[2,2] per process, groups [[0,2],[1,3]], dim 1.
  // reduce_scatter: f32[2,4], groups [[0,1]], dim 1. collective_permute:
  // pairs [[0,1],[1,2]]. XLA's AllGather: [1.0, 2.5] on two replicas.
  std::unique_ptr<Module> m = Parse(R"(
HloModule m, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,2] parameter(0)
  ag = f32[2,4] all-gather(x), replica_groups={{0,2},{1,3}}, dimensions={1}
  y = f32[2,4] parameter(1)
  rs = f32[2,2] reduce-scatter(y), replica_groups={{0,1},{2,3}}, dimensions={1}, to_apply=sum
  z = f32[3,2] parameter(2)
  cp = f32[3,2] collective-permute(z), source_target_pairs={{0,1},{1,2}}
  v = f32[2] parameter(3)
  ag2 = f32[4] all-gather(v), replica_groups={{0,1},{2,3}}, dimensions={0}
  ROOT t = (f32[2,4], f32[2,2], f32[3,2], f32[4]) tuple(ag, rs, cp, ag2)
})");
  CHECK(Text(*m, "ag") == "f32[2,4]");
  CHECK(Text(*m, "rs") == "f32[2,2]");
  CHECK(Text(*m, "cp") == "f32[3,2]");
  CHECK(Text(*m, "ag2") == "f32[4]");
}

TEST_CASE("collective: empty replica_groups take the size from the module",
          "[shape_inference][collective]") {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m, replica_count=4
ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[8] all-gather(x), dimensions={0}
})");
  CHECK(Text(*m, "r") == "f32[8]");
  CHECK_THAT(Err(R"(
HloModule m, replica_count=4
ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[4] all-gather(x), dimensions={0}
})"),
             Contains("all-gather result dimension 0 is 4 but operand dimension 0 (2) times "
                      "the group size 4 is 8"));
  // Without replica_count the size is unknown: any whole multiple will do.
  std::unique_ptr<Module> u = Parse(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  g = f32[2,9] all-gather(x), dimensions={1}
  s = f32[2,1] reduce-scatter(x), dimensions={1}, to_apply=sum
  ROOT a2a = f32[2,3] all-to-all(x), dimensions={1}
})");
  CHECK(Text(*u, "g") == "f32[2,9]");
  CHECK(Text(*u, "s") == "f32[2,1]");
  CHECK(Text(*u, "a2a") == "f32[2,3]");
}

TEST_CASE("collective: cross-replica-and-partition groups span every partition",
          "[shape_inference][collective]") {
  // channel_id without use_global_device_ids: XLA multiplies the group size
  // by num_partitions.
  std::unique_ptr<Module> m = Parse(R"(
HloModule m, replica_count=2, num_partitions=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[8] all-gather(x), channel_id=1, replica_groups={{0,1}}, dimensions={0}
})");
  CHECK(Text(*m, "r") == "f32[8]");
}

TEST_CASE("collective: variadic forms and non-uniform all-reduce groups",
          "[shape_inference][collective]") {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[3,2] parameter(1)
  ar = f32[2] all-reduce(x), replica_groups={{0,1,2},{3}}, to_apply=sum
  ag = (f32[4], f32[6,2]) all-gather(x, y), replica_groups={{0,1},{2,3}}, dimensions={0}
  cb = (f32[2], f32[3,2]) collective-broadcast(x, y), replica_groups={{0,1,2,3}}
  a2a = (f32[2], f32[2], f32[2], f32[2]) all-to-all(x, x, x, x)
  ROOT t = f32[2] opt-barrier(ar)
})");
  CHECK(Text(*m, "ar") == "f32[2]");
  CHECK(Text(*m, "ag") == "(f32[4], f32[6,2])");  // dimension 0 of each operand
  CHECK(Text(*m, "cb") == "(f32[2], f32[3,2])");
  CHECK(Text(*m, "a2a") == "(f32[2], f32[2], f32[2], f32[2])");
  CHECK(Text(*m, "t") == "f32[2]");
}

TEST_CASE("collective: sugared async collectives are inferred from the wrapped op",
          "[shape_inference][collective]") {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0)
  s = ((f32[8]), f32[4]) reduce-scatter-start(x), replica_groups={{0,1}}, dimensions={0}, to_apply=sum
  ROOT d = f32[4] reduce-scatter-done(s)
})");
  CHECK(Text(*m, "s") == "((f32[8]), f32[4])");
  CHECK(Text(*m, "d") == "f32[4]");
  CHECK_THAT(Err(R"(
HloModule m, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0)
  ROOT r = ((f32[8]), f32[8]) reduce-scatter-start(x), replica_groups={{0,1}}, dimensions={0}, to_apply=sum
})"),
             Contains("reduce-scatter result dimension 0 is 8 but operand dimension 0 (8) "
                      "divided by the group size 2 is 4"));
}

// ---- invalid: channel and group rules ------------------------------------------------

constexpr std::string_view kSum = R"(
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
)";

// A module with `sum` and an entry taking x = f32[8] and y = s32[8].
std::string Module1(std::string_view header, std::string_view root) {
  // StrCat, not operator+: GCC 12 gives a false -Wrestrict on chained +.
  return StrCat("HloModule m", header, kSum,
                "ENTRY main {\n  x = f32[8] parameter(0)\n  y = s32[8] parameter(1)\n"
                "  ROOT r = ",
                root, "\n}\n");
}

TEST_CASE("collective: channel_id and use_global_device_ids", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1("", "f32[8] all-reduce(x), channel_id=0, to_apply=sum")),
             Contains("channel_id must be positive, but is 0"));
  CHECK_THAT(Err(Module1("",
                         "f32[8] all-reduce(x), replica_groups={{0}}, "
                         "use_global_device_ids=true, to_apply=sum")),
             Contains("use_global_device_ids=true needs a channel_id"));
  CHECK_THAT(Err(Module1("",
                         "f32[8] all-reduce(x), channel_id=1, use_global_device_ids=true, "
                         "to_apply=sum")),
             Contains("use_global_device_ids=true needs replica_groups"));
}

TEST_CASE("collective: replica_groups rules", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1("", "f32[8] all-reduce(x), replica_groups={{0,1},{}}, to_apply=sum")),
             Contains("replica_groups has an empty group"));
  CHECK_THAT(Err(Module1("", "f32[8] all-reduce(x), replica_groups={{-1,0}}, to_apply=sum")),
             Contains("replica_groups has a negative id -1"));
  CHECK_THAT(Err(Module1("", "f32[8] all-reduce(x), replica_groups={{0,1},{1,2}}, to_apply=sum")),
             Contains("replica_groups repeats id 1"));
  CHECK_THAT(Err(Module1("", "f32[8] all-reduce(x), replica_groups={{0,2}}, to_apply=sum")),
             Contains("replica_groups name 2 ids, which must be 0 to 1, but 1 is missing"));
  CHECK_THAT(Err(Module1("",
                         "f32[16] all-gather(x), replica_groups={{0,1},{2}}, "
                         "dimensions={0}")),
             Contains("replica_groups of all-gather must have equal sizes, but {0,1} has 2 ids "
                      "and {2} has 1"));
  CHECK_THAT(Err(Module1(", replica_count=4",
                         "f32[8] all-reduce(x), replica_groups={{0,1}}, to_apply=sum")),
             Contains("replica_groups name 2 ids but the module has replica_count=4"));
  CHECK_THAT(Err(Module1(", replica_count=4",
                         "f32[8] all-reduce(x), replica_groups=[2,4]<=[8], to_apply=sum")),
             Contains("replica_groups name 8 ids but the module has replica_count=4"));
}

// ---- invalid: all-reduce, all-gather, reduce-scatter ---------------------------------------

TEST_CASE("collective: all-reduce operands and to_apply", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1("", "s32[8] all-reduce(y), to_apply=sum")),
             Contains("all-reduce operand 0 has element type s32 but to_apply %sum reduces f32"));
  CHECK_THAT(Err(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[8] parameter(0)
  ROOT r = f32[8] all-reduce(x), to_apply=lt
})"),
             Contains("to_apply %lt of all-reduce must have the signature (T[], T[]) -> T[], "
                      "but is (f32[], f32[]) -> pred[]"));
  CHECK_THAT(Err(StrCat("HloModule m\n", kSum, R"(
ENTRY main {
  p = (f32[8], f32[2]) parameter(0)
  ROOT r = (f32[8], f32[2]) all-reduce(p), to_apply=sum
})")),
             Contains("all-reduce operand 0 must be an array"));
}

TEST_CASE("collective: all-gather and reduce-scatter dimensions", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1(", replica_count=4",
                         "f32[16] all-gather(x), replica_groups={{0,1,2,3}}, dimensions={0}")),
             Contains("all-gather result dimension 0 is 16 but operand dimension 0 (8) times "
                      "the group size 4 is 32"));
  CHECK_THAT(Err(Module1("", "f32[16] all-gather(x), replica_groups={{0,1}}, dimensions={0,1}")),
             Contains("all-gather needs one dimension in dimensions, but has {0,1}"));
  CHECK_THAT(Err(Module1("", "f32[16] all-gather(x), replica_groups={{0,1}}, dimensions={1}")),
             Contains("all-gather dimensions {1} has dimension 1 out of range for rank 1"));
  CHECK_THAT(Err(Module1("", "f32[12] all-gather(x), dimensions={0}")),
             Contains("all-gather result dimension 0 is 12, which is not a multiple of operand "
                      "dimension 0 (8)"));
  CHECK_THAT(Err(Module1(", replica_count=3",
                         "f32[2] reduce-scatter(x), "
                         "replica_groups={{0,1,2}}, dimensions={0}, "
                         "to_apply=sum")),
             Contains("reduce-scatter operand dimension 0 (8) is not divisible by the group "
                      "size 3"));
  CHECK_THAT(Err(Module1("",
                         "f32[2] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, "
                         "to_apply=sum")),
             Contains("reduce-scatter result dimension 0 is 2 but operand dimension 0 (8) "
                      "divided by the group size 2 is 4"));
  CHECK_THAT(Err(Module1("", "f32[3] reduce-scatter(x), dimensions={0}, to_apply=sum")),
             Contains("reduce-scatter result dimension 0 is 3, which does not divide operand "
                      "dimension 0 (8)"));
}

// ---- invalid: all-to-all, ragged-all-to-all ----------------------------------------------

TEST_CASE("collective: all-to-all rules", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1(", replica_count=3",
                         "f32[8] all-to-all(x), replica_groups={{0,1,2}}, dimensions={0}")),
             Contains("all-to-all operand dimension 0 (8) is not divisible by the group size 3"));
  CHECK_THAT(Err(Module1("", "(f32[8], f32[8]) all-to-all(x, x), dimensions={0}")),
             Contains("all-to-all with dimensions takes one operand, but has 2"));
  CHECK_THAT(Err(Module1(", replica_count=4", "(f32[8], f32[8]) all-to-all(x, x)")),
             Contains("all-to-all without dimensions takes one operand per group member (4), "
                      "but has 2"));
  CHECK_THAT(Err(Module1("", "(f32[8], s32[8]) all-to-all(x, y), replica_groups={{0,1}}")),
             Contains("all-to-all operands must have the same shape, but operand 0 is f32[8] "
                      "and operand 1 is s32[8]"));
}

std::string Ragged(std::string_view input, std::string_view output, std::string_view sizes) {
  return StrCat("HloModule m\nENTRY main {\n  in = ", input, " parameter(0)\n  out = ", output,
                " parameter(1)\n  off = s64[2] parameter(2)\n  sz = ", sizes,
                " parameter(3)\n  ROOT r = ", output,
                " ragged-all-to-all(in, out, off, sz, off, sz), replica_groups={{0,1}}\n}\n");
}

TEST_CASE("collective: ragged-all-to-all rules", "[shape_inference][collective]") {
  std::unique_ptr<Module> m = Parse(Ragged("bf16[16,8]", "bf16[32,8]", "s64[2]"));
  CHECK(Text(*m, "r") == "bf16[32,8]");
  CHECK_THAT(Err(Ragged("bf16[16,8]", "f32[16,8]", "s64[2]")),
             Contains("ragged-all-to-all input has element type bf16 but output has f32"));
  CHECK_THAT(Err(Ragged("bf16[16,8]", "bf16[16,4]", "s64[2]")),
             Contains("ragged-all-to-all input bf16[16,8] and output bf16[16,4] must have the "
                      "same rank (at least 1) and agree in every dimension but the first"));
  CHECK_THAT(Err(Ragged("bf16[16,8]", "bf16[16,8]", "f32[2]")),
             Contains("ragged-all-to-all send_sizes must be an integer array of rank 1 or 2, "
                      "but has shape f32[2]"));
  CHECK_THAT(Err(Ragged("bf16[16,8]", "bf16[16,8]", "s64[3]")),
             Contains("ragged-all-to-all send_sizes s64[3] must have the shape of "
                      "input_offsets s64[2]"));
}

// ---- invalid: collective-permute ------------------------------------------------------------

TEST_CASE("collective: collective-permute source_target_pairs", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1("", "f32[8] collective-permute(x), source_target_pairs={{1,0},{1,2}}")),
             Contains("source_target_pairs repeats source 1"));
  CHECK_THAT(Err(Module1("", "f32[8] collective-permute(x), source_target_pairs={{0,2},{1,2}}")),
             Contains("source_target_pairs repeats target 2"));
  CHECK_THAT(Err(Module1("", "f32[8] collective-permute(x), source_target_pairs={{-1,0}}")),
             Contains("source_target_pairs has a negative source -1"));
  CHECK_THAT(Err(Module1(", replica_count=4",
                         "f32[8] collective-permute(x), source_target_pairs={{0,4}}")),
             Contains("source_target_pairs target 4 is out of range for replica_count=4"));
  CHECK_THAT(Err(Module1("", "f32[8] collective-permute(x), source_target_pairs={{0,1,2}}")),
             Contains("source_target_pairs entry {0,1,2} is not a pair"));
}

// The in-place form with `offsets` as the output offsets.
std::string InPlace(std::string_view offsets) {
  return StrCat(R"(
HloModule m
ENTRY main {
  x = f32[4,8] parameter(0)
  out = f32[8,8] parameter(1)
  z = s32[] constant(0)
  i = (s32[], s32[]) tuple(z, z)
  j = (s32[]) tuple(z)
  ROOT r = f32[8,8] collective-permute(x, out, i, )",
                offsets, R"(), source_target_pairs={{0,1},{0,2}}, slice_sizes={{4,8}}
})");
}

TEST_CASE("collective: in-place collective-permute", "[shape_inference][collective]") {
  // Two index tuples: each id may appear twice (once per slice).
  std::unique_ptr<Module> m = Parse(InPlace("i"));
  CHECK(Text(*m, "r") == "f32[8,8]");
  CHECK_THAT(Err(InPlace("j")),
             Contains("collective-permute output offsets (s32[]) must be a tuple of 2 "
                      "indices (or a tuple of such tuples) for the buffer f32[8,8]"));
  CHECK_THAT(Err(Module1("",
                         "f32[8] collective-permute(x, x, x), source_target_pairs={{0,1}}, "
                         "slice_sizes={{8}}")),
             Contains("collective-permute with slice_sizes takes 4 operands"));
}

// ---- invalid: -done producers, send/recv, feeds, copies -----------------------------------------

TEST_CASE("collective: a -done op consumes its own -start", "[shape_inference][collective]") {
  CHECK_THAT(Err(Module1("", "f32[8] all-reduce-done(x)")),
             Contains("all-reduce-done operand must be an all-reduce-start, but %x is a "
                      "parameter"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = f32[8] parameter(0)
  s = (f32[8], f32[8], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1}}
  ROOT r = f32[8] all-gather-done(s)
})"),
             Contains("all-gather-done operand must be an all-gather-start, but %s is a "
                      "collective-permute-start"));
  CHECK_THAT(Err(Module1("", "f32[8] copy-done(x)")),
             Contains("copy-done operand must be a copy-start, but %x is a parameter"));
  CHECK_THAT(Err(Module1("", "f32[8] collective-permute-done(x)")),
             Contains("collective-permute-done operand must be a collective-permute-start"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  p = (f32[8], f32[4], u32[]) parameter(0)
  s = (f32[8], f32[4], u32[]) copy-start(p)
  ROOT r = f32[8] copy-done(s)
})"),
             Contains("copy-done operand elements 0 (f32[8]) and 1 (f32[4]) must have the same "
                      "shape"));
}

TEST_CASE("collective: send and recv", "[shape_inference][collective]") {
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = (f32[4], u32[], token[]) send(x, x), channel_id=1
})"),
             Contains("send operand 1 must be a token, but has shape f32[4]"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  t = token[] after-all()
  ROOT r = f32[4] recv(t), channel_id=1
})"),
             Contains("recv must have the shape (data, u32[], token[]), but has f32[4]"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = (f32[4], u32[], token[]) parameter(0)
  ROOT r = token[] send-done(x), channel_id=1
})"),
             Contains("send-done operand must be a send or a get-tuple-element, but %x is a "
                      "parameter"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  t = token[] after-all()
  v = (f32[4], u32[], token[]) recv(t), channel_id=3
  ROOT r = (f32[4], token[]) recv-done(v), channel_id=4
})"),
             Contains("recv-done has channel_id 4 but its recv %v has 3"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  t = token[] after-all()
  x = f32[4] parameter(0)
  s = (f32[4], u32[], token[]) send(x, t), channel_id=3, is_host_transfer=true
  ROOT r = token[] send-done(s), channel_id=3
})"),
             Contains("send-done and its send %s must agree on is_host_transfer"));
}

TEST_CASE("collective: infeed and outfeed", "[shape_inference][collective]") {
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = (f32[4], token[]) infeed(x)
})"),
             Contains("infeed operand must be a token, but has shape f32[4]"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  t = token[] after-all()
  x = f32[2,3] parameter(0)
  ROOT r = token[] outfeed(x, t), outfeed_shape=f32[2]
})"),
             Contains("outfeed_shape f32[2] differs from the operand's shape f32[2,3]"));
}

// ---- invalid: async ops -------------------------------------------------------------------------

constexpr std::string_view kWrapped = R"(
HloModule m
wrapped {
  wp = f32[8] parameter(0)
  ROOT wn = f32[8] negate(wp)
}, execution_thread="sparse"
)";

TEST_CASE("collective: async-start with a called computation", "[shape_inference][collective]") {
  CHECK_THAT(Err(StrCat(kWrapped, R"(
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = ((f32[4]), f32[8], s32[]) async-start(x), async_execution_thread="sparse", calls=wrapped
})")),
             Contains("async-start operand 0 has shape f32[4] but %wrapped takes f32[8]"));
  CHECK_THAT(Err(StrCat(kWrapped, R"(
ENTRY main {
  x = f32[8] parameter(0)
  ROOT r = ((f32[8]), f32[8], s32[]) async-start(x), calls=wrapped
})")),
             Contains("async-start runs on thread \"main\" but %wrapped belongs to thread "
                      "\"sparse\""));
  CHECK_THAT(Err(StrCat(kWrapped, R"(
ENTRY main {
  x = f32[8] parameter(0)
  ROOT r = ((f32[8], f32[8]), f32[8], s32[]) async-start(x, x), async_execution_thread="sparse", calls=wrapped
})")),
             Contains("async-start has 2 operands but %wrapped takes 1 parameters"));
}

TEST_CASE("collective: sugared async ops and their chain", "[shape_inference][collective]") {
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = f32[10] parameter(0)
  ROOT r = ((f32[4]), f32[20], s32[]) custom-call-start(x), custom_call_target="foo"
})"),
             Contains("custom-call-start shape element 0 is (f32[4]) but its operands are "
                      "(f32[10])"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = f32[10] parameter(0)
  ROOT r = f32[20] custom-call-start(x), custom_call_target="foo"
})"),
             Contains("custom-call-start must have the shape ((operands...), result, "
                      "context...), but has f32[20]"));
  CHECK_THAT(Err(R"(
HloModule m
ENTRY main {
  x = f32[10] parameter(0)
  s = ((f32[10]), f32[20], s32[]) custom-call-start(x), custom_call_target="foo"
  ROOT r = f32[20] add-done(s)
})"),
             Contains("add-done operand must be an add-start or add-update, but %s is a "
                      "custom-call-start"));
  CHECK_THAT(Err(Module1("", "f32[8] async-done(x)")),
             Contains("async-done operand must be an async-start or async-update, but %x is a "
                      "parameter"));
}

}  // namespace
}  // namespace hlo
