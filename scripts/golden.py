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

    def directive(self, rel, kind, args):
        base = rel[:-len(".hlo")]
        argv = shlex.split(args.replace("%s", rel))
        if not argv or argv[0] not in ("hlo-opt", "hlo-run"):
            self.failed.append(f"{rel}: RUN line must start with hlo-opt or hlo-run")
            return
        rc, out, err = run(self.tool(argv[0]), argv[1:])
        want_rc = 1 if kind == "RUN-ERROR" else 0
        ok = True
        if rc != want_rc:
            self.failed.append(f"{rel}: exit status {rc}, expected {want_rc}: {err.strip()[:400]}")
            ok = False
        out_path = os.path.join(TESTDATA, base + ".out")
        if kind == "RUN" or os.path.exists(out_path):
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
    files = []
    for dirpath, _, names in os.walk(TESTDATA):
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
            for kind, args in dirs:
                runner.directive(rel, kind, args)
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
