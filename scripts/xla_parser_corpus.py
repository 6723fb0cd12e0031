#!/usr/bin/env python3
"""Runs hlo-opt over the HLO module texts of XLA's own parser test.

  scripts/xla_parser_corpus.py HLO_PARSER_TEST_CC --bin build/bin [-v] [--show accepted|rejected]

HLO_PARSER_TEST_CC is xla/hlo/parser/hlo_parser_test.cc taken from an XLA
checkout, e.g.

  git -C /work/.mirror/Ashutosh0x+xla/repo show HEAD:xla/hlo/parser/hlo_parser_test.cc > /tmp/t.cc

(XLA's test file is not part of this repository.) The script extracts every
raw string R"(...)" that holds HLO text and sorts it by what XLA's test
expects of it:

* accepted: the modules of CreateTestCases / CreateShortTestCases (XLA
  prints them back byte for byte), the inputs of CreateNonRoundtripTestCases,
  and texts of TEST_F bodies followed by a success check (TF_ASSERT_OK,
  EXPECT_EQ(absl::OkStatus(), ...), ...);
* rejected: texts of TEST_F bodies followed by a failure check
  (EXPECT_NE(absl::OkStatus(), ...), EXPECT_FALSE(result.ok()),
  ExpectHasSubstr(...status()...), StatusIs(...)).

An accepted text passes when hlo-opt reads (and verifies; --no-verify where
XLA's test used ParseAndReturnUnverifiedModule) it and its print is a fixed
point (printing what it printed gives the same text). For the round-trip
lists it also counts prints equal to XLA's expected text. A rejected text
passes when hlo-opt exits with status 1. Texts whose expectation the script
cannot tell are left out (counted as 'unclassified').
"""
import argparse
import os
import re
import subprocess
import sys

RAW = re.compile(r'R"([A-Za-z]*)\(')
BOUNDARY = re.compile(
    r'^(?:TEST|TEST_F|TEST_P)\(\s*\w+\s*,\s*(\w+)\s*\)|'
    r'^std::vector<\w+>\s+(Create\w*TestCases)\(\)', re.M)
ERROR_CHECK = re.compile(
    r'EXPECT_NE\(\s*absl::OkStatus\(\)|EXPECT_FALSE\(\s*[\w.()]*ok\(\)\s*\)|'
    r'ASSERT_FALSE\(\s*[\w.()]*ok\(\)\s*\)|ASSERT_TRUE\(\s*!\s*[\w.()]*ok\(\)\s*\)|'
    r'ExpectHasSubstr\([^;]*status\(\)|StatusIs\(|Not\(IsOk')
OK_CHECK = re.compile(
    r'TF_ASSERT_OK|ASSERT_OK|EXPECT_OK|EXPECT_EQ\(\s*absl::OkStatus\(\)|'
    r'EXPECT_TRUE\(\s*[\w.()]*ok\(\)\s*\)|ASSERT_TRUE\(\s*[\w.()]*ok\(\)\s*\)|IsOk\(\)|'
    r'ParseAndReturn\w*Module\([^;]*\)\.value\(\)|\.value\(\)->')
PARSE_CALL = re.compile(r'ParseAndReturn(Un)?[vV]erifiedModule|ParseAndReturnVerifiedModule|'
                        r'ParseHloModule|ParseAndReturnUnverifiedModule')
FORMAT_CALL = re.compile(r'StrFormat\(\s*\w+\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')
OTHER_API = re.compile(r'\bParse(Shape|Layout|Sharding|Window|ReplicaGroups|'
                       r'PaddingConfig|ConvolutionDimensionNumbers|Int64List|'
                       r'FrontendAttributes|OriginalValue)\w*\(')


def raw_strings(text):
    """(start, end, body) of every raw string literal."""
    out = []
    pos = 0
    while True:
        m = RAW.search(text, pos)
        if not m:
            return out
        close = ")" + m.group(1) + '"'
        end = text.find(close, m.end())
        if end < 0:
            return out
        out.append((m.start(), end + len(close), text[m.end():end]))
        pos = end + len(close)


def looks_like_hlo(body):
    return ("HloModule" in body or "ENTRY" in body or
            re.search(r'^\s*(ROOT\s+)?%?[\w.-]+\s*=\s*\(?\w+\[', body, re.M) is not None)


def extract(text):
    """Returns a list of dicts: name, text, expect ('accepted'|'rejected'|None),
    expected_print (round-trip lists only), verify (bool)."""
    bounds = [(m.start(), m.group(1) or m.group(2)) for m in BOUNDARY.finditer(text)]
    bounds.append((len(text), None))
    strings = raw_strings(text)
    cases = []
    for bi in range(len(bounds) - 1):
        start, name = bounds[bi]
        stop = bounds[bi + 1][0]
        inside = [s for s in strings if start <= s[0] < stop]
        if name in ("CreateTestCases", "CreateShortTestCases"):
            for k, (_, _, body) in enumerate(inside):
                cases.append(dict(name=f"{name}#{k}", text=body, expect="accepted",
                                  expected_print=body, verify=True))
            continue
        if name == "CreateNonRoundtripTestCases":
            for k in range(0, len(inside) - 1, 2):
                cases.append(dict(name=f"{name}#{k // 2}", text=inside[k][2],
                                  expect="accepted", expected_print=None, verify=True))
            continue
        for k, (s_start, s_end, body) in enumerate(inside):
            if not looks_like_hlo(body):
                continue
            seg_end = inside[k + 1][0] if k + 1 < len(inside) else stop
            seg = text[s_end:seg_end]
            if OTHER_API.search(seg) and not PARSE_CALL.search(seg):
                continue
            expect = None
            if ERROR_CHECK.search(seg):
                expect = "rejected"
            elif OK_CHECK.search(seg):
                expect = "accepted"
            verify = "Unverified" not in seg and "ParseHloModule" not in seg
            # A template filled by absl::StrFormat(name, "arg"): one text per call.
            texts = [body]
            if "%s" in body:
                args = FORMAT_CALL.findall(seg)
                texts = [body.replace("%s", a.encode().decode("unicode_escape"), 1) for a in args]
            for j, t in enumerate(texts):
                suffix = f"#{k}" if len(texts) == 1 else f"#{k}.{j}"
                cases.append(dict(name=f"{name}{suffix}", text=t, expect=expect,
                                  expected_print=None, verify=verify))
    return cases


def run(opt, args, stdin):
    try:
        p = subprocess.run([opt] + args + ["-"], input=stdin.encode(), capture_output=True,
                           timeout=60)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test_file")
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--show", choices=["accepted", "rejected", "exact"], default=None,
                    help="print the texts that fail in this group, with hlo-opt's message")
    args = ap.parse_args()
    opt = os.path.join(args.bin, "hlo-opt")
    with open(args.test_file, encoding="utf-8") as f:
        text = f.read()
    cases = extract(text)
    acc = [c for c in cases if c["expect"] == "accepted"]
    rej = [c for c in cases if c["expect"] == "rejected"]
    unk = [c for c in cases if c["expect"] is None]
    acc_ok = rej_ok = exact_ok = exact_n = 0
    for c in acc:
        flags = [] if c["verify"] else ["--no-verify"]
        rc, out, err = run(opt, flags, c["text"])
        ok = rc == 0
        why = err.strip().splitlines()[0] if err.strip() else f"exit {rc}"
        if ok:
            rc2, out2, err2 = run(opt, flags, out)
            ok = rc2 == 0 and out2 == out
            if not ok:
                why = "not a fixed point" if rc2 == 0 else "print does not read back: " + (
                    err2.strip().splitlines() or [""])[0]
        acc_ok += ok
        if c["expected_print"] is not None:
            exact_n += 1
            same = rc == 0 and out.strip() == c["expected_print"].strip()
            exact_ok += same
            if args.show == "exact" and rc == 0 and not same:
                print(f"--- {c['name']} (print differs from XLA's)")
                import difflib
                for line in difflib.unified_diff(c["expected_print"].strip().split("\n"),
                                                 out.strip().split("\n"), lineterm="", n=0):
                    print(line)
        if not ok and args.show == "accepted":
            print(f"--- {c['name']}: {why}")
            if args.verbose:
                print(c["text"])
    for c in rej:
        rc, out, err = run(opt, [], c["text"])
        ok = rc == 1
        rej_ok += ok
        if not ok and args.show == "rejected":
            print(f"--- {c['name']}: exit {rc}")
            if args.verbose:
                print(c["text"])
    print(f"accepted by XLA: {acc_ok} of {len(acc)} read and print a fixed point "
          f"({exact_ok} of the {exact_n} round-trip texts print exactly as XLA's)")
    print(f"rejected by XLA: {rej_ok} of {len(rej)} rejected by hlo-opt")
    print(f"unclassified texts: {len(unk)}")


if __name__ == "__main__":
    sys.exit(main())
