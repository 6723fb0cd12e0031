// libFuzzer target: HLO text through the parser, the verifier and the
// printer, as hlo-opt reads a file (`// -----` separated modules).
//
// Checked on every input: no crash or sanitizer report; a parse or verifier
// error is a located diagnostic. When every module verifies, the printed
// text parses again and printing it gives the same text (a fixed point).
// That is what hlo-opt guarantees; a module that does not verify need not
// print as a fixed point: computations print callees first, and with a cycle
// through calls (which the verifier rejects) that order depends on the input.
// Nor need a module whose stack-frame index holds frames that no metadata
// reaches: as XLA's CanonicalizeStackFrameIds, the parser interns a frame's
// parents before it finds the frame itself invalid (a location or name out
// of range) and drops only the metadata's id, so the parents stay in the
// index, printed, and the next parse drops them as unused.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "fuzz/fuzz_check.h"
#include "ir/attribute.h"
#include "ir/hlo_printer.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/shape_inference.h"
#include "passes/verifier.h"

namespace {

constexpr std::string_view kFile = "fuzz.hlo";
constexpr std::string_view kReprint = "reprint.hlo";
// Between modules, as hlo-opt prints a file of several.
constexpr std::string_view kSeparator = "// -----\n\n";

// True when every frame of the module's stack-frame index is reached from a
// metadata stack_frame_id (directly or as a parent).
bool EveryFrameUsed(const hlo::Module& module) {
  const auto& frames = module.stack_frames().frames;
  absl::flat_hash_set<int64_t> used;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      const hlo::Attribute* a = inst->FindAttr(hlo::AttrKind::kMetadata);
      if (a == nullptr) continue;
      for (const hlo::KeyValue& kv : *std::get<std::shared_ptr<const hlo::KeyValues>>(a->value)) {
        int64_t id = 0;
        if (kv.key != "stack_frame_id" || !hlo::ParseInt64(kv.value, &id)) continue;
        while (id > 0 && id <= static_cast<int64_t>(frames.size()) && used.insert(id).second) {
          id = frames[id - 1].parent;
        }
      }
    }
  }
  return used.size() == frames.size();
}

void CheckFixedPoint(const std::string& first) {
  auto again = hlo::ParseModules(first, hlo::ParseOptions{std::string(kReprint), &hlo::InferShape});
  if (!again.ok()) {
    hlo::fuzz::Fail("the printed text of modules that verify does not parse",
                    std::string(again.status().message()) + "\n" + first);
  }
  std::string second;
  for (const auto& m : *again) {
    if (!second.empty()) second += kSeparator;
    second += hlo::PrintModule(*m);
  }
  if (second != first) {
    hlo::fuzz::Fail("printing is not a fixed point",
                    first + "\n----- printed again -----\n" + second);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  auto modules = hlo::ParseModules(*text, hlo::ParseOptions{std::string(kFile), &hlo::InferShape});
  if (!modules.ok()) {
    hlo::fuzz::CheckLocated(modules.status(), kFile);
    return 0;
  }
  std::string printed;
  bool all_verified = true;  // and every stack frame used
  for (const auto& m : *modules) {
    m->set_source(std::string(kFile), text);
    absl::Status verified = hlo::VerifyModule(*m);
    if (!verified.ok()) {
      hlo::fuzz::CheckLocated(verified, kFile);
      all_verified = false;
    }
    if (!EveryFrameUsed(*m)) all_verified = false;
    if (!printed.empty()) printed += kSeparator;
    printed += hlo::PrintModule(*m);
  }
  if (all_verified) CheckFixedPoint(printed);
  return 0;
}
