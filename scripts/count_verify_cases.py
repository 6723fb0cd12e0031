#!/usr/bin/env python3
"""Counts the valid and invalid verifier cases per opcode in testdata/verify/.

  scripts/count_verify_cases.py [--write] [--check]

Reads every testdata/verify/*.hlo that has a `// RUN:` or `// RUN-ERROR:`
line and splits it into cases at `// -----` lines (as hlo-opt does).

* Valid files (`// RUN:`): each case counts once for every opcode among its
  instructions (`name = SHAPE opcode(...)`); a sugared async op
  (`add-start`, `custom-call-done`) counts for async-start/-update/-done and
  for the op it wraps.
* Invalid files (`// RUN-ERROR:`): each case must carry one comment
  `// op: OPCODE -- the rule it breaks` (or `// op: a, b, c -- ...` for a
  case with several problems) and counts once for each opcode named.
  When NAME.err exists, every case must have a diagnostic on one of its
  lines, and a line with a diagnostic must name a marked opcode (or be the
  entry computation's header), so the marker says what the case exercises.

Prints a Markdown table of every opcode in ir/opcode.h; --write stores it
in testdata/verify/COUNTS.md, --check fails when COUNTS.md differs. Exit
status 1 on a malformed case, an opcode without a valid case, or a failed
--check.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERIFY = os.path.join(ROOT, "testdata", "verify")
COUNTS = os.path.join(VERIFY, "COUNTS.md")

SEPARATOR = re.compile(r"^//\s*-----\s*$")
MARKER = re.compile(r"^\s*//\s*op:\s*([a-z0-9, -]+?)\s*(?:--|$)")
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(.*)$")
CALL = re.compile(r"(?<![\w.\-%])([a-z][a-z0-9\-]*)\(")
DIAGNOSTIC = re.compile(r"^verify/([\w.\-]+\.hlo):(\d+):\d+: error: ")


def opcodes():
    with open(os.path.join(ROOT, "ir", "opcode.h")) as f:
        return re.findall(r'^\s*X\(k\w+,\s*"([^"]+)"', f.read(), re.M)


def split_cases(text):
    """[(first line number, [lines])] at `// -----` lines."""
    cases, start, lines = [], 1, []
    for n, line in enumerate(text.split("\n"), 1):
        if SEPARATOR.match(line):
            cases.append((start, lines))
            start, lines = n + 1, []
        else:
            lines.append(line)
    cases.append((start, lines))
    return cases


def instruction_opcodes(line, known):
    """The opcodes an instruction line exercises (empty if it is none)."""
    m = INSTRUCTION.match(line)
    if not m or line.lstrip().startswith("//"):
        return []
    for name in CALL.findall(m.group(1)):
        if name in known:
            return [name]
        for suffix in ("start", "update", "done"):
            wrapped = name[: -len(suffix) - 1]
            if name.endswith("-" + suffix) and wrapped in known:
                return ["async-" + suffix, wrapped]
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="write testdata/verify/COUNTS.md")
    ap.add_argument("--check", action="store_true", help="fail if COUNTS.md is stale")
    args = ap.parse_args()

    known = opcodes()
    known_set = set(known)
    valid = {op: 0 for op in known}
    invalid = {op: 0 for op in known}
    problems = []
    files = {"valid": 0, "invalid": 0}
    total = {"valid": 0, "invalid": 0}

    for name in sorted(os.listdir(VERIFY)):
        if not name.endswith(".hlo"):
            continue
        path = os.path.join(VERIFY, name)
        with open(path) as f:
            text = f.read()
        head = text.split("\n")[:10]
        if any(re.match(r"\s*//\s*RUN-ERROR:", l) for l in head):
            kind = "invalid"
        elif any(re.match(r"\s*//\s*RUN:", l) for l in head):
            kind = "valid"
        else:
            continue
        files[kind] += 1
        cases = split_cases(text)
        diag_lines = None
        err_path = path[: -len(".hlo")] + ".err"
        if kind == "invalid" and os.path.exists(err_path):
            diag_lines = set()
            with open(err_path) as f:
                for line in f:
                    m = DIAGNOSTIC.match(line)
                    if m and m.group(1) == name:
                        diag_lines.add(int(m.group(2)))
        for start, lines in cases:
            where = f"{name}:{start}"
            if kind == "valid":
                seen = set()
                for line in lines:
                    seen.update(instruction_opcodes(line, known_set))
                if not seen:
                    continue  # a piece without instructions
                total["valid"] += 1
                for op in seen:
                    valid[op] += 1
                continue
            marks = [MARKER.match(l) for l in lines]
            marks = [m for m in marks if m]
            if len(marks) != 1:
                problems.append(f"{where}: needs exactly one `// op: OPCODE -- rule` comment, "
                                f"has {len(marks)}")
                continue
            ops = [o.strip() for o in marks[0].group(1).split(",") if o.strip()]
            unknown = [o for o in ops if o not in known_set]
            if unknown:
                problems.append(f"{where}: unknown opcode(s) {', '.join(unknown)} in `// op:`")
                continue
            total["invalid"] += 1
            for op in ops:
                invalid[op] += 1
            if diag_lines is None:
                continue
            mine = [start + i for i in range(len(lines)) if start + i in diag_lines]
            if not mine:
                problems.append(f"{where}: no diagnostic in {os.path.basename(err_path)}")
            for n in mine:
                line = lines[n - start]
                if line.lstrip().startswith("ENTRY"):
                    continue
                if not set(instruction_opcodes(line, known_set)) & set(ops):
                    problems.append(f"{name}:{n}: the diagnosed instruction is not a "
                                    f"marked opcode ({', '.join(ops)})")

    out = ["# Verifier test cases per opcode", "",
           "Generated by `scripts/count_verify_cases.py --write` from the `// RUN` files in",
           "this folder. *valid*: cases (modules) of the `valid_*.hlo` files that contain the",
           "opcode; *invalid*: cases of the `invalid_*.hlo` files whose `// op:` comment names",
           "it (one rule broken per case).", "",
           f"Totals: {total['valid']} valid cases in {files['valid']} files, "
           f"{total['invalid']} invalid cases in {files['invalid']} files, "
           f"{len(known)} opcodes.", "",
           "| opcode | valid | invalid |", "| --- | ---: | ---: |"]
    for op in known:
        out.append(f"| `{op}` | {valid[op]} | {invalid[op]} |")
    missing = [op for op in known if valid[op] == 0]
    no_invalid = [op for op in known if invalid[op] == 0]
    if no_invalid:
        out += ["", "Opcodes without an invalid case (the verifier takes their result shape as",
                "declared, or every rule they have is enforced by the parser): " +
                ", ".join(f"`{op}`" for op in no_invalid) + "."]
    table = "\n".join(out) + "\n"

    for op in missing:
        problems.append(f"opcode {op} has no valid case")
    if args.write:
        with open(COUNTS, "w") as f:
            f.write(table)
    else:
        sys.stdout.write(table)
    if args.check:
        current = open(COUNTS).read() if os.path.exists(COUNTS) else ""
        if current != table:
            problems.append("testdata/verify/COUNTS.md is stale (run with --write)")
    for p in problems:
        print("problem:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
