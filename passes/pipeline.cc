#include "passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "ir/located_status.h"
#include "ir/output_dir.h"
#include "ir/strings.h"
#include "passes/passes.h"
#include "passes/verifier.h"

namespace hlo {

const std::vector<PassInfo>& AllPasses() {
  // Passes register here, one factory a line; each name is written once, in
  // its pass (Pass::name), and read from there.
  using Factory = std::unique_ptr<Pass> (*)();
  static constexpr Factory kFactories[] = {
      [] { return std::unique_ptr<Pass>(std::make_unique<VerifierPass>()); },
      CreateDeadCodeElimination,
      CreateCommonSubexpressionElimination,
      CreateCallInliner,
      CreateTupleSimplifier,
      CreateConstantFolding,
      CreateWhileLoopSimplifier,
      CreateConditionalSimplifier,
      CreateAlgebraicSimplifier,
      CreateLayoutAssignment,
      CreateLayoutNormalization,
      CreateTransposeFolding,
      CreateReshapeMover,
      CreateWidenFloats,
      CreateDotAlgorithmRewriter,
      CreateFusionCse,
      CreateDefuser,
  };
  static const auto* passes = [] {
    auto* all = new std::vector<PassInfo>;
    for (Factory create : kFactories) all->push_back({std::string(create()->name()), create});
    return all;
  }();
  return *passes;
}

std::unique_ptr<Pass> CreatePass(std::string_view name) {
  for (const PassInfo& p : AllPasses()) {
    if (p.name == name) return p.create();
  }
  return nullptr;
}

std::string ListPasses() {
  std::string out;
  for (const PassInfo& p : AllPasses()) {
    std::unique_ptr<Pass> pass = p.create();
    StrAppend(&out, p.name, std::string(p.name.size() < 28 ? 28 - p.name.size() : 1, ' '),
              pass->description(), "\n");
  }
  return out;
}

void Pipeline::Add(std::unique_ptr<Pass> pass) {
  steps_.push_back(Step{std::move(pass), nullptr, 1});
}

void Pipeline::AddFixedPoint(Pipeline group, int max_iterations) {
  steps_.push_back(Step{nullptr, std::make_unique<Pipeline>(std::move(group)), max_iterations});
}

// One run of a pipeline on one module: the step counter, printing, verifying
// and timing.
class Pipeline::Runner {
 public:
  Runner(Module& module, const PipelineOptions& options, std::string_view label,
         std::vector<PassTiming>* timings)
      : module_(module), options_(options), label_(label), timings_(timings) {}

  absl::Status Begin() {
    module_.ResetChurn();  // compaction measures churn from here
    if (options_.dump_dir.empty() || !Printing()) return absl::OkStatus();
    return Dump("input", options_.printer(module_));
  }

  absl::StatusOr<bool> RunSteps(const Pipeline& pipeline) {
    bool changed = false;
    for (const Step& step : pipeline.steps_) {
      absl::StatusOr<bool> c = step.pass ? RunPass(*step.pass) : RunGroup(step);
      if (!c.ok()) return c.status();
      changed |= *c;
    }
    return changed;
  }

 private:
  bool Printing() const { return options_.print_after_all || !options_.print_after.empty(); }

  // A group is at its fixed point once each of its steps has run, one after
  // another, without changing the module. A pass is a deterministic function
  // of the module, so the steps of the last round that come after the last
  // change are skipped: they already left this very module unchanged.
  absl::StatusOr<bool> RunGroup(const Step& step) {
    const size_t steps = step.group->steps_.size();
    size_t unchanged_in_a_row = 0;
    bool changed = false;
    for (int i = 0; i < step.max_iterations; ++i) {
      for (const Step& s : step.group->steps_) {
        absl::StatusOr<bool> c = s.pass ? RunPass(*s.pass) : RunGroup(s);
        if (!c.ok()) return c.status();
        if (*c) {
          changed = true;
          unchanged_in_a_row = 0;
        } else if (++unchanged_in_a_row == steps) {
          return changed;
        }
      }
    }
    std::fprintf(stderr,
                 "hlo-opt: warning: %s: a fixed-point group still changed the module "
                 "after %d iterations\n",
                 label_.c_str(), step.max_iterations);
    return changed;
  }

  absl::StatusOr<bool> RunPass(Pass& pass) {
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<bool> changed = pass.Run(module_);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!changed.ok()) {
      return WithMessage(changed.status(), StrCat("pass '", pass.name(),
                                                  "': ", std::string(changed.status().message())));
    }
    ++step_;
    // Between passes no pointer into the IR is held, so a computation that
    // changed much can be laid out afresh for the walks of the next passes.
    if (*changed) module_.CompactScatteredComputations();
    if (timings_) Record(pass.name(), *changed, seconds);
    if (options_.verify_each) {
      if (absl::Status st = VerifyModule(module_); !st.ok()) {
        return WithMessage(st, StrCat("the module does not verify after pass '", pass.name(),
                                      "' (step ", step_, "):\n", std::string(st.message())));
      }
    }
    if (options_.print_after_all ||
        std::find(options_.print_after.begin(), options_.print_after.end(), pass.name()) !=
            options_.print_after.end()) {
      if (absl::Status st = Print(pass.name(), *changed); !st.ok()) return st;
    }
    return *changed;
  }

  void Record(std::string_view name, bool changed, double seconds) {
    auto it = std::find_if(timings_->begin(), timings_->end(),
                           [&](const PassTiming& t) { return t.name == name; });
    if (it == timings_->end()) {
      timings_->push_back(PassTiming{std::string(name)});
      it = timings_->end() - 1;
    }
    ++it->runs;
    it->changed += changed;
    it->seconds += seconds;
  }

  absl::Status Print(std::string_view pass, bool changed) {
    std::string text = options_.printer(module_);
    if (!options_.dump_dir.empty()) return Dump(pass, text);
    std::string head = StrCat("// ----- after pass '", pass, "' (step ", step_, ", ",
                              changed ? "changed" : "unchanged", ") on ", label_, "\n");
    std::fwrite(head.data(), 1, head.size(), stderr);
    std::fwrite(text.data(), 1, text.size(), stderr);
    return absl::OkStatus();
  }

  absl::Status Dump(std::string_view what, const std::string& text) {
    char number[16];
    std::snprintf(number, sizeof(number), "%03d", step_);
    if (options_.dump_files == nullptr) {
      return absl::InternalError("--dump-dir without a place to write the dumps");
    }
    return options_.dump_files->Write(StrCat(label_, ".", number, ".", what, ".hlo"), text);
  }

  Module& module_;
  const PipelineOptions& options_;
  std::string label_;
  std::vector<PassTiming>* timings_;
  int step_ = 0;
};

absl::Status Pipeline::Run(Module& module) {
  return Run(module, PipelineOptions{}, module.name(), nullptr).status();
}

absl::StatusOr<bool> Pipeline::Run(Module& module, const PipelineOptions& options,
                                   std::string_view label, std::vector<PassTiming>* timings) {
  Runner runner(module, options, label, timings);
  if (absl::Status st = runner.Begin(); !st.ok()) return st;
  return runner.RunSteps(*this);
}

namespace {

// Recursive descent over `item (',' item)*`, item = NAME | fixed-point(list).
class SpecParser {
 public:
  explicit SpecParser(std::string_view spec) : spec_(spec) {}

  absl::StatusOr<Pipeline> Parse() {
    absl::StatusOr<Pipeline> p = List();
    if (p.ok() && pos_ < spec_.size()) return Error("unexpected ')'");
    return p;
  }

 private:
  absl::StatusOr<Pipeline> List() {
    Pipeline pipeline;
    while (true) {
      SkipSpaces();
      size_t start = pos_;
      while (pos_ < spec_.size() && spec_[pos_] != ',' && spec_[pos_] != '(' &&
             spec_[pos_] != ')') {
        ++pos_;
      }
      std::string_view name = StripWhitespace(spec_.substr(start, pos_ - start));
      if (pos_ < spec_.size() && spec_[pos_] == '(') {
        if (name != "fixed-point") {
          return Error(StrCat("'", name, "(' : only fixed-point(...) takes a list"));
        }
        ++pos_;
        absl::StatusOr<Pipeline> group = List();
        if (!group.ok()) return group.status();
        if (pos_ >= spec_.size() || spec_[pos_] != ')') return Error("missing ')'");
        ++pos_;
        if (group->empty()) return Error("fixed-point() is empty");
        pipeline.AddFixedPoint(*std::move(group));
        SkipSpaces();
      } else if (!name.empty()) {
        std::unique_ptr<Pass> pass = CreatePass(name);
        if (!pass) return Unknown(name);
        pipeline.Add(std::move(pass));
      }
      if (pos_ < spec_.size() && spec_[pos_] == ',') {
        ++pos_;
        continue;
      }
      return pipeline;
    }
  }

  void SkipSpaces() {
    while (pos_ < spec_.size() && (spec_[pos_] == ' ' || spec_[pos_] == '\t')) ++pos_;
  }

  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        StrCat("--passes: ", what, " at offset ", pos_, " of '", spec_, "'"));
  }

  static absl::Status Unknown(std::string_view name) {
    std::string names;
    for (const PassInfo& p : AllPasses()) StrAppend(&names, names.empty() ? "" : ", ", p.name);
    return absl::InvalidArgumentError(
        StrCat("unknown pass '", name, "'; known passes: ", names, ", fixed-point(...)"));
  }

  std::string_view spec_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Pipeline> BuildPipeline(std::string_view spec) { return SpecParser(spec).Parse(); }

}  // namespace hlo
