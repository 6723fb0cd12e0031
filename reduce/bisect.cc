#include "reduce/bisect.h"

#include "ir/hlo_printer.h"
#include "ir/strings.h"
#include "passes/pipeline.h"
#include "passes/rewrite_limit.h"
#include "passes/verifier.h"
#include "reduce/candidate.h"
#include "tools/tool_status.h"

namespace hlo::reduce {
namespace {

// A pipeline spec as a tree: names, and fixed-point groups of them.
struct Item {
  std::string name;            // a pass, or empty for a group
  std::vector<Item> children;  // a fixed-point group's
};

absl::StatusOr<std::vector<Item>> ParseSpec(std::string_view spec, size_t& at, bool nested) {
  std::vector<Item> items;
  while (at < spec.size()) {
    size_t end = spec.find_first_of(",()", at);
    std::string word(spec.substr(at, end == std::string_view::npos ? spec.size() - at : end - at));
    at = end == std::string_view::npos ? spec.size() : end;
    if (at < spec.size() && spec[at] == '(') {
      if (word != "fixed-point") return UsageError("--passes: unknown group '" + word + "'");
      ++at;
      auto children = ParseSpec(spec, at, true);
      if (!children.ok()) return children.status();
      items.push_back(Item{"", *std::move(children)});
    } else if (!word.empty()) {
      if (CreatePass(word) == nullptr) return UsageError("--passes: unknown pass '" + word + "'");
      items.push_back(Item{word, {}});
    }
    if (at < spec.size() && spec[at] == ')') {
      if (!nested) return UsageError("--passes: unbalanced ')'");
      ++at;
      return items;
    }
    if (at < spec.size() && spec[at] == ',') ++at;
  }
  if (nested) return UsageError("--passes: missing ')'");
  return items;
}

// Runs the items; records a step after each pass that changed the module.
absl::StatusOr<bool> RunItems(Module& module, const std::vector<Item>& items,
                              const PrintStyle& style, const std::string& round,
                              std::vector<PassStep>& steps) {
  bool changed = false;
  for (const Item& item : items) {
    if (!item.name.empty()) {
      auto pass = CreatePass(item.name);
      auto did = pass->Run(module);
      if (!did.ok()) return did.status();
      if (!*did) continue;
      changed = true;
      steps.push_back(PassStep{item.name, item.name + round, PrintModule(module, style)});
      continue;
    }
    for (int i = 1; i <= kFixedPointBound; ++i) {
      auto did = RunItems(module, item.children, style,
                          round + " (fixed-point round " + std::to_string(i) + ")", steps);
      if (!did.ok()) return did.status();
      if (!*did) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<std::vector<PassStep>> RunPassSteps(Module& module, std::string_view spec,
                                                   const PrintStyle& style) {
  size_t at = 0;
  auto items = ParseSpec(spec, at, false);
  if (!items.ok()) return items.status();
  std::vector<PassStep> steps;
  auto run = RunItems(module, *items, style, "", steps);
  if (!run.ok()) return run.status();
  return steps;
}

namespace {

// `pass` run on the module of `before`, allowed its first `limit` rewrites.
struct LimitedRun {
  std::string text;
  int64_t asked = 0;  // rewrites the pass asked for
  std::string at;     // the instruction of the last one allowed
};

std::optional<LimitedRun> RunLimited(const std::string& before, const std::string& pass,
                                     int64_t limit, const PrintStyle& style) {
  auto module = ReadModule(before, "<bisect>");
  if (!module.ok()) return std::nullopt;
  RewriteLimitScope scope(limit);
  auto did = CreatePass(pass)->Run(**module);
  if (!did.ok()) return std::nullopt;
  return LimitedRun{PrintModule(**module, style), scope.asked(), scope.last_allowed()};
}

// Narrows `r` (the pass found) to its first rewrite after which the test
// is true, assuming (as LLVM's -opt-bisect-limit does) that once true the
// test stays true as more rewrites are allowed.
void FindRewrite(const std::string& pass, const PrintStyle& style, Tester& tester,
                 BisectResult& r) {
  std::optional<LimitedRun> all = RunLimited(r.before, pass, -1, style);
  // A pass that counts nothing, or whose run is not the step's (it would
  // not be deterministic): the pass is the answer.
  if (!all || all->asked == 0 || all->text != r.after) return;
  int64_t lo = 1, hi = all->asked;  // the answer is in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    std::optional<LimitedRun> run = RunLimited(r.before, pass, mid, style);
    if (run && tester.Test(run->text)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  std::optional<LimitedRun> before = RunLimited(r.before, pass, lo - 1, style);
  std::optional<LimitedRun> after = RunLimited(r.before, pass, lo, style);
  if (!before || !after) return;
  r.rewrite = lo;
  r.rewrites = all->asked;
  r.rewrite_at = after->at;
  r.before = before->text;
  r.after = after->text;
}

}  // namespace

BisectResult Bisect(const std::string& input, const std::vector<PassStep>& steps,
                    const PrintStyle& style, Tester& tester) {
  BisectResult r;
  r.steps = static_cast<int64_t>(steps.size());
  auto make = [&](int64_t i) -> std::optional<Candidate> {
    return Candidate{steps[i].text, Size{}};
  };
  auto hit = tester.FirstInteresting(static_cast<int64_t>(steps.size()), make);
  if (!hit) return r;
  r.found = true;
  r.step = hit->first;
  r.pass = steps[r.step].pass;
  r.before = r.step == 0 ? input : steps[r.step - 1].text;
  r.after = steps[r.step].text;
  FindRewrite(steps[r.step].name, style, tester, r);
  return r;
}

std::string BisectReport(const BisectResult& r, std::string_view tool) {
  std::string out = StrCat("// ", tool, ": the test turns true after pass ", r.step + 1, " of ",
                           r.steps, " that changed the module: ", r.pass, "\n");
  std::string what = r.pass;
  if (r.rewrite > 0) {
    StrAppend(&out, "// and within it after rewrite ", r.rewrite, " of ", r.rewrites, " (of %",
              r.rewrite_at, ")\n");
    what = StrCat("rewrite ", r.rewrite, " of ", r.pass);
  }
  StrAppend(&out, "// ----- before ", what, "\n", r.before, "// ----- after ", what, "\n", r.after);
  return out;
}

}  // namespace hlo::reduce
