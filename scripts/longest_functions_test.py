"""Checks scripts/longest-functions' reading of C++ on small sources whose
functions and lengths are known by construction (comments, strings and
lambdas holding braces, initializer lists, classes, dispatch switches).

  python3 scripts/longest_functions_test.py
"""
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
loader = importlib.machinery.SourceFileLoader("longest_functions",
                                              os.path.join(HERE, "longest-functions"))
spec = importlib.util.spec_from_loader("longest_functions", loader)
lf = importlib.util.module_from_spec(spec)
loader.exec_module(lf)

SOURCE = r'''
#include <x>
namespace a {
namespace {
// A comment with a brace { and a function f() {
int F(int x) {
  auto g = [](int y) { return y; };  // a lambda is part of F
  const char* s = "}{";
  char c = '{';
  return g(x) + 100'000;
}
}  // namespace

class C : public B {
 public:
  C(int v) : v_(v), w_{v} {
    v_ += 1;
  }
  int Get() const override { return v_; }
  struct Inner {
    void H() noexcept {}
  };
 private:
  int v_, w_;
};

constexpr int kTable[] = {1, 2, 3};

auto Tail(int x) -> int {
  if (x) {
    return 1;
  }
  return 0;
}

int Dispatch(int op) {
  switch (op) {
    case 0:
      return 1;
    case 1:
      return 2;
    case 2:
      return 3;
    case 3:
      return 4;
    case 4:
      return 5;
    case 5:
      return 6;
    case 6:
      return 7;
    case 7:
      return 8;
    default:
      return 0;
  }
}
}  // namespace a
'''


def main():
    found = {name: (first, last, switch) for name, first, last, switch in
             lf.functions("x.cc", SOURCE)}
    lines = SOURCE.split("\n")
    def line_of(text):
        return next(i + 1 for i, l in enumerate(lines) if text in l)
    expected = {
        "F": (line_of("int F(int x)"), line_of("return g(x) + 100'000;") + 1),
        "C": (line_of("C(int v)"), line_of("v_ += 1;") + 1),
        "Get": (line_of("int Get()"), line_of("int Get()")),
        "H": (line_of("void H()"), line_of("void H()")),
        "Tail": (line_of("auto Tail"), line_of("auto Tail") + 5),
        "Dispatch": (line_of("int Dispatch"), line_of("int Dispatch") + 21),
    }
    wrong = []
    if set(found) != set(expected):
        wrong.append(f"functions {sorted(found)}, expected {sorted(expected)}")
    for name, (first, last) in expected.items():
        if name in found and found[name][:2] != (first, last):
            wrong.append(f"{name}: lines {found[name][:2]}, expected {(first, last)}")
    if found.get("Dispatch", (0, 0, 0))[2] != 20:
        wrong.append(f"Dispatch's switch: {found.get('Dispatch')}")
    if found.get("F", (0, 0, 1))[2] != 0:
        wrong.append("F has no switch")
    for w in wrong:
        print("longest_functions_test: " + w)
    print(f"longest_functions_test: {len(expected)} functions, {len(wrong)} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
