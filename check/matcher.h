// Matching the checks against the input, with FileCheck's rules:
// CHECK-LABEL lines are found first and split the input into blocks; in each
// block the checks match in order, each after the previous match;
// CHECK-NEXT / -EMPTY must land on the next line, CHECK-SAME on the same
// line; CHECK-COUNT-N matches N times in a row; CHECK-DAG lines match in any
// order without overlapping; CHECK-NOT lines must not match between the
// matches around them.
#ifndef HLO_CHECK_MATCHER_H_
#define HLO_CHECK_MATCHER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "check/check_options.h"
#include "check/diagnostics.h"
#include "check/directives.h"
#include "check/source_text.h"
#include "check/variables.h"

namespace hlo::check {

// What the input dump marks under an input line.
struct Annotation {
  enum class Kind { kMatch, kError, kExcluded, kNote };
  Kind kind = Kind::kMatch;
  size_t begin = 0;  // input offsets
  size_t end = 0;
  std::string label;  // e.g. "check:12" (the check file line)
  std::string message;
};

class Matcher {
 public:
  // `variables`: those the command line defines (-D).
  Matcher(const SourceText& input, const std::vector<CheckString>& checks,
          const CheckOptions& options, Diagnostics* diagnostics, VariableTable variables = {});
  // True when every check passed.
  bool Run();
  const std::vector<Annotation>& annotations() const { return annotations_; }

 private:
  static constexpr size_t kNotFound = static_cast<size_t>(-1);
  // FileCheckString::Check: the check's match position in [begin, end), or
  // kNotFound (with diagnostics). In label-scan mode only the pattern itself
  // is matched.
  size_t Check(const CheckString& check, size_t begin, size_t end, bool label_scan, size_t* length);
  size_t CheckDag(const CheckString& check, size_t begin, size_t end,
                  std::vector<const LocatedPattern*>* nots);
  bool CheckNots(const std::vector<const LocatedPattern*>& nots, size_t begin, size_t end);
  bool CheckLinePosition(const CheckString& check, size_t previous_end, size_t match_begin);
  // Matches `pattern` in [begin, end); reports a failure when `report`.
  bool MatchPattern(const LocatedPattern& pattern, size_t begin, size_t end, size_t* position,
                    size_t* length, bool report, const std::string& what,
                    PatternMatch* found = nullptr);
  // -v: FileCheck's remark for a match, with its substitutions and captures.
  void ReportMatch(const LocatedPattern& pattern, size_t position, size_t length,
                   const PatternMatch& match, const std::string& counted = "");
  static std::string Described(const LocatedPattern& pattern);
  void Annotate(Annotation annotation);
  void ReportNoMatch(const LocatedPattern& pattern, size_t begin, size_t end,
                     const PatternMatch& attempt, const std::string& what);
  void ReportNearMiss(const LocatedPattern& pattern, size_t begin, size_t end);
  std::string Label(const LocatedPattern& pattern) const;

  const SourceText& input_;
  const std::vector<CheckString>& checks_;
  const CheckOptions& options_;
  Diagnostics* diagnostics_;
  VariableTable variables_;
  std::vector<Annotation> annotations_;
  bool annotations_dropped_ = false;
};

// The input dump keeps at most this many annotations (a CHECK-COUNT of a
// billion would otherwise hold one per match).
inline constexpr size_t kMaxAnnotations = 100'000;

}  // namespace hlo::check

#endif  // HLO_CHECK_MATCHER_H_
