#!/usr/bin/env python3
"""Runs every golden test under testdata/ and compares with its expected files.

  scripts/golden.py --bin build/bin [--update] [--filter REGEX] [-v]

Kinds of test, by where the file lives and what its first lines say:

* testdata/parser/NAME.hlo (no RUN line): `hlo-opt NAME.hlo` must print
  NAME.expected.hlo if it exists, else the input itself (byte for byte,
  trailing whitespace aside); printing the output again must give the same
  text (fixed point); and the module JSON must read back to the same text.
* Any NAME.hlo whose first lines hold `// RUN: ARGS`: runs the tool with ARGS
  (`%s` is the file; the first word names the tool, hlo-opt or hlo-run)
  and compares stdout with NAME.out; exit status must be 0.
* `// RUN-ERROR: ARGS`: as RUN, but the exit status must be 1 and stderr is
  compared with NAME.err (stdout with NAME.out when that file exists).
* testdata/errors/NAME.hlo with no RUN line: same as `// RUN-ERROR: hlo-opt %s`.
* A RUN whose arguments end in `2>&1` checks stdout followed by stderr.
* When the .hlo holds FileCheck-style lines (`// CHECK:`, `// CHECK-NEXT:`,
  `// CHECK-NOT:`, `// CHECK-LABEL:`), the RUN output is matched against
  them instead of being compared with NAME.out (see filecheck() below and
  testdata/passes/README.md).

Files are run from testdata/ with relative paths, so diagnostics in the
golden files read `errors/NAME.hlo:LINE:COL: error: ...`.

--update rewrites the expected files from what the tools print (review the
diff before committing). The last line is `golden: N passed, N failed`.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")


def strip_trailing(text):
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n")) + "\n"


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(text)


def run(binary, args, stdin=None):
    proc = subprocess.run([binary] + args, cwd=TESTDATA, input=stdin,
                          capture_output=True, timeout=300)
    dec = lambda b: b.decode("utf-8", errors="surrogateescape")
    return proc.returncode, dec(proc.stdout), dec(proc.stderr)


def directives(text):
    """(kind, args) from leading `// RUN:` / `// RUN-ERROR:` lines."""
    out = []
    for line in text.splitlines()[:10]:
        m = re.match(r"\s*//\s*(RUN|RUN-ERROR):\s*(.*)$", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


CHECK_RE = re.compile(r"^\s*//\s*CHECK(-NEXT|-NOT|-LABEL)?:(.*)$")


def check_directives(text):
    """[(kind, pattern, line number)] from `// CHECK...:` lines."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        m = CHECK_RE.match(line)
        if m:
            out.append(((m.group(1) or "")[1:] or "CHECK", m.group(2).strip(), n))
    return out


def pattern_regex(pattern):
    """A FileCheck pattern as a Python regex: `{{re}}` is a regex, the rest is
    literal text in which any run of blanks matches any run of blanks."""
    out = []
    pos = 0
    while pos < len(pattern):
        start = pattern.find("{{", pos)
        if start < 0:
            start = len(pattern)
        literal = pattern[pos:start]
        out.append("[ \t]+".join(re.escape(piece) for piece in re.split(r"[ \t]+", literal)))
        if start == len(pattern):
            break
        end = pattern.find("}}", start + 2)
        if end < 0:
            raise ValueError(f"unclosed {{{{ in pattern '{pattern}'")
        while end + 2 < len(pattern) and pattern[end + 2] == "}":
            end += 1  # `{{a{2}}}`: the last two braces of a run close
        out.append("(?:" + pattern[start + 2:end] + ")")
        pos = end + 2
    return re.compile("".join(out))


def filecheck(checks, output):
    """LLVM FileCheck semantics on `output`, in order: CHECK finds the pattern
    at or after the end of the previous match (on any later line, or later on
    the same line); CHECK-NEXT must match on the line right after the previous
    match; CHECK-NOT must not match between the previous match and the next
    positive match (or the end); CHECK-LABEL matches like CHECK and splits the
    output into blocks: checks between two labels stay between their matches.
    Patterns match within one line. Returns a list of error messages."""
    lines = output.split("\n")
    try:
        compiled = [(kind, pattern_regex(pat), pat, n) for kind, pat, n in checks]
    except (ValueError, re.error) as e:
        return [f"bad CHECK pattern: {e}"]

    def find(regex, line, col, end_line):
        """First match at (line, col) or later, before end_line: (line, start, end)."""
        while line < end_line:
            m = regex.search(lines[line], col)
            if m:
                return line, m.start(), m.end()
            line, col = line + 1, 0
        return None

    # Labels first: each from the end of the previous one.
    label_at = {}
    line, col = 0, 0
    for i, (kind, regex, pat, n) in enumerate(compiled):
        if kind != "LABEL":
            continue
        hit = find(regex, line, col, len(lines))
        if hit is None:
            return [f"line {n}: CHECK-LABEL: '{pat}' not found"]
        label_at[i] = hit
        line, col = hit[0], hit[2]
    errors = []
    line, col = 0, 0        # where the next positive match may start
    prev_line = None        # line of the previous positive match
    end_line = len(lines)   # end of the current label block
    pending_not = []
    for i, (kind, regex, pat, n) in enumerate(compiled):
        if kind == "NOT":
            pending_not.append((regex, pat, n))
            continue
        if kind == "LABEL":
            hit = label_at[i]
            later = [label_at[j][0] for j in label_at if j > i]
            block_end = later[0] if later else len(lines)
        elif kind == "NEXT":
            if prev_line is None:
                return errors + [f"line {n}: CHECK-NEXT without a previous match"]
            want = prev_line + 1
            m = regex.search(lines[want]) if want < end_line else None
            hit = (want, m.start(), m.end()) if m else None
            if hit is None:
                got = lines[want] if want < len(lines) else "<end of output>"
                return errors + [f"line {n}: CHECK-NEXT: '{pat}' does not match the next "
                                 f"line: {got!r}"]
        else:
            hit = find(regex, line, col, end_line)
            if hit is None:
                return errors + [f"line {n}: CHECK: '{pat}' not found after output line "
                                 f"{line + 1}"]
        for nregex, npat, nn in pending_not:
            if any(nregex.search(lines[k], col if k == line else 0,
                                 hit[1] if k == hit[0] else len(lines[k]))
                   for k in range(line, hit[0] + 1)):
                errors.append(f"line {nn}: CHECK-NOT: '{npat}' found before the match of "
                              f"line {n}")
        pending_not = []
        if kind == "LABEL":
            end_line = block_end
        line, col, prev_line = hit[0], hit[2], hit[0]
    for nregex, npat, nn in pending_not:
        if any(nregex.search(lines[k], col if k == line else 0) for k in range(line, end_line)):
            errors.append(f"line {nn}: CHECK-NOT: '{npat}' found after the last match")
    return errors


def filecheck_selftest():
    """The matcher must fail where FileCheck fails: (checks, output, ok?)."""
    out = "HloModule a\n  %x = f32[] add(%p, %q)\n  ROOT %y = f32[] negate(%x)\n" \
          "HloModule b\n  ROOT %z = s32[] constant(1)\n"
    C = lambda *c: [(k.replace("CHECK-", ""), p, i) for i, (k, p) in enumerate(c, 1)]
    cases = [
        (C(("CHECK", "add"), ("CHECK-NEXT", "negate")), True),
        (C(("CHECK", "negate"), ("CHECK", "add")), False),           # order
        (C(("CHECK", "add"), ("CHECK-NEXT", "constant")), False),    # not next
        (C(("CHECK", "f32[]   add")), True),                         # blanks
        (C(("CHECK", "{{[a-z]+}}(%p, %q)")), True),
        (C(("CHECK", "{{mul|sub}}tiply")), False),
        (C(("CHECK", "{{[a-z]{3}}}(%p")), True),                     # braces in {{}}
        (C(("CHECK-NOT", "negate"), ("CHECK", "HloModule b")), False),
        (C(("CHECK", "negate"), ("CHECK-NOT", "add")), True),
        (C(("CHECK-LABEL", "HloModule a"), ("CHECK", "constant"),
           ("CHECK-LABEL", "HloModule b")), False),                  # block bound
        (C(("CHECK-LABEL", "HloModule a"), ("CHECK-LABEL", "HloModule b"),
           ("CHECK", "constant(1)")), True),
        (C(("CHECK", "HloModule b"), ("CHECK-NOT", "add")), True),
    ]
    bad = []
    for i, (checks, want) in enumerate(cases):
        if (not filecheck(checks, out)) != want:
            bad.append(f"filecheck self-test case {i} gives the wrong verdict")
    return bad


class Runner:
    def __init__(self, bindir, update, verbose):
        self.bindir = bindir
        self.update = update
        self.verbose = verbose
        self.passed = 0
        self.failed = []

    def tool(self, name):
        return os.path.join(self.bindir, name)

    def check(self, rel, what, expected_path, actual, default=None):
        """Compares `actual` with the file (or `default` when it is absent)."""
        if os.path.exists(expected_path):
            expected = read(expected_path)
        elif default is not None:
            expected = default
        else:
            expected = None
        if expected is not None and strip_trailing(expected) == strip_trailing(actual):
            return True
        if self.update and (expected is None or default is None or
                            os.path.exists(expected_path) or
                            strip_trailing(default) != strip_trailing(actual)):
            write(expected_path, actual)
            print(f"updated {os.path.relpath(expected_path, TESTDATA)}")
            return True
        self.failed.append(f"{rel}: {what} differs from "
                           f"{os.path.relpath(expected_path, TESTDATA) if expected is not None and os.path.exists(expected_path) else 'the input'}")
        if self.verbose:
            import difflib
            diff = difflib.unified_diff(
                strip_trailing(expected or "").splitlines(),
                strip_trailing(actual).splitlines(), "expected", "actual", lineterm="")
            print("\n".join(list(diff)[:60]))
        return False

    def roundtrip(self, rel):
        base = rel[:-len(".hlo")]
        rc, out, err = run(self.tool("hlo-opt"), [rel])
        if rc != 0:
            self.failed.append(f"{rel}: hlo-opt exited {rc}: {err.strip()[:400]}")
            return
        source = read(os.path.join(TESTDATA, rel))
        ok = self.check(rel, "printed text", os.path.join(TESTDATA, base + ".expected.hlo"),
                        out, default=source)
        rc2, out2, err2 = run(self.tool("hlo-opt"), ["-"], stdin=out.encode())
        if rc2 != 0 or strip_trailing(out2) != strip_trailing(out):
            self.failed.append(f"{rel}: printing is not a fixed point ({err2.strip()[:300]})")
            ok = False
        rc3, js, err3 = run(self.tool("hlo-opt"), [rel, "--emit=json"])
        rc4, back, err4 = run(self.tool("hlo-opt"), ["-", "--input-format=json"],
                              stdin=js.encode())
        if rc3 != 0 or rc4 != 0 or strip_trailing(back) != strip_trailing(out):
            self.failed.append(f"{rel}: JSON round trip differs ({(err3 + err4).strip()[:300]})")
            ok = False
        if ok:
            self.passed += 1

    def directive(self, rel, kind, args, checks=()):
        base = rel[:-len(".hlo")]
        argv = shlex.split(args.replace("%s", rel))
        merge_stderr = bool(argv) and argv[-1] == "2>&1"
        if merge_stderr:
            argv = argv[:-1]
        if not argv or argv[0] not in ("hlo-opt", "hlo-run"):
            self.failed.append(f"{rel}: RUN line must start with hlo-opt or hlo-run")
            return
        rc, out, err = run(self.tool(argv[0]), argv[1:])
        if merge_stderr:
            out += err
        want_rc = 1 if kind == "RUN-ERROR" else 0
        ok = True
        if rc != want_rc:
            self.failed.append(f"{rel}: exit status {rc}, expected {want_rc}: {err.strip()[:400]}")
            ok = False
        out_path = os.path.join(TESTDATA, base + ".out")
        if checks:
            problems = filecheck(checks, out)
            for p in problems:
                self.failed.append(f"{rel}: {p}")
            if problems and self.verbose:
                print(out[:4000])
            ok = ok and not problems
        elif kind == "RUN" or os.path.exists(out_path):
            ok = self.check(rel, "stdout", out_path, out) and ok
        if kind == "RUN-ERROR":
            ok = self.check(rel, "stderr", os.path.join(TESTDATA, base + ".err"), err) and ok
        if ok:
            self.passed += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--filter", default="")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    runner = Runner(os.path.abspath(a.bin), a.update, a.verbose)
    runner.failed.extend(filecheck_selftest())
    files = []
    for dirpath, dirnames, names in os.walk(TESTDATA):
        # testdata/xla-jax holds XLA's own cases, checked by scripts/real_xla.sh
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) != os.path.join(TESTDATA, "xla-jax")]
        for n in names:
            if n.endswith(".hlo") and not n.endswith(".expected.hlo"):
                rel = os.path.relpath(os.path.join(dirpath, n), TESTDATA)
                if re.search(a.filter, rel):
                    files.append(rel)
    for rel in sorted(files):
        text = read(os.path.join(TESTDATA, rel))
        dirs = directives(text)
        top = rel.split(os.sep)[0]
        if dirs:
            checks = check_directives(text)
            for kind, args in dirs:
                runner.directive(rel, kind, args, checks)
        elif top == "errors":
            runner.directive(rel, "RUN-ERROR", "hlo-opt %s")
        elif top == "parser":
            runner.roundtrip(rel)
        else:
            runner.failed.append(f"{rel}: no RUN line and no default for testdata/{top}")
    for f in runner.failed:
        print("FAIL", f)
    print(f"golden: {runner.passed} passed, {len(runner.failed)} failed")
    return 1 if runner.failed else 0


if __name__ == "__main__":
    sys.exit(main())
