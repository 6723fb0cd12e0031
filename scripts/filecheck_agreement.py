#!/usr/bin/env python3
"""hlo-check against LLVM's FileCheck (Debian's llvm-14-tools, FileCheck-14).

  scripts/filecheck_agreement.py --bin build/bin [--filecheck FileCheck-14]
                                 [--min-pairs 500] [--seed 1] [-v]

Runs both tools on the same check file, input and options and compares their
verdicts (exit status 0 pass, 1 a check failed, 2 a malformed check file or
empty input). The pairs:

* the seed pairs below (each directive kind, variables, options);
* this repository's FileCheck tests: every testdata/ .hlo file with CHECK
  lines, its input being what its RUN line's tool prints (run here);
* mutations of all of them, drawn with a fixed seed: a directive's kind
  changed, a line dropped, duplicated or swapped with the next, a capture
  renamed, a regex altered, the literal text altered, an input line dropped
  or duplicated, an option added (--match-full-lines, --strict-whitespace,
  --implicit-check-not);
* --shapes N generated pairs (default 1000) whose patterns are HLO shapes and
  layouts (`f32[8,16]{1,0}`) with their numbers and brackets replaced by
  regexes and variables, and `[`, `]`, `{`, `}` put beside those: where a
  `{{` regex ends, `[[[N:...]]]`, braces inside regexes, brackets inside
  captures, backreferences, numeric variables, -D, --ignore-case;
* --regexes N random short regexes (default 500) over POSIX's special
  characters, each as a {{ }} block and as a capture, against HLO text:
  LLVM regcomp's errors against hlo-check's reading of them;
* --blocks N random check files (default 500) of variable blocks and noise
  ([[#%x,N:]], [[N:a]], [[#N+1]], [[@LINE+1]], stray brackets, huge
  numbers), with -D, --ignore-case, --match-full-lines: a name's kind and
  format across the file, numeric overflow, malformed blocks.

Regexes stay in the syntax both tools read alike (hlo-check's {{...}} is
RE2, FileCheck's POSIX ERE: `\\d` means a digit to RE2 and a `d` to POSIX, so
the mutations never write Perl classes). Prints each disagreement and
`agreement: N pairs, N agree, N differ`; exit status 1 on any disagreement
or fewer than --min-pairs pairs, 77 when FileCheck-14 is not installed.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")

HLO = ("HloModule m\n"
       "  %p = f32[4] parameter(0)\n"
       "  %q = f32[4] parameter(1)\n"
       "  %add.1 = f32[4] add(%p, %q)\n"
       "  %mul.2 = f32[4] multiply(%add.1, %add.1)\n"
       "\n"
       "  ROOT %neg.3 = f32[4] negate(%mul.2)\n"
       "// -----\n"
       "HloModule n\n"
       "  ROOT %c = s32[] constant(42)\n")

# (check file, input, options): each directive kind and option at least once.
SEEDS = [
    ("CHECK: HloModule m\nCHECK-NEXT: parameter(0)\nCHECK-NEXT: parameter(1)\n", HLO, []),
    ("CHECK: add(%p, %q)\nCHECK: negate\nCHECK-NOT: multiply\nCHECK: HloModule n\n", HLO, []),
    ("CHECK-LABEL: HloModule m\nCHECK: negate\nCHECK-LABEL: HloModule n\nCHECK: constant(42)\n",
     HLO, []),
    ("CHECK-DAG: %q = f32[4]\nCHECK-DAG: %p = f32[4]\nCHECK: add\n", HLO, []),
    ("CHECK: %[[A:add.[0-9]+]] = f32[4] add\nCHECK: multiply(%[[A]], %[[A]])\n", HLO, []),
    ("CHECK: [[T:[a-z0-9]+]][4] parameter(0)\nCHECK: [[T]][4] parameter(1)\n", HLO, []),
    ("CHECK: add.[[#N:]] =\nCHECK: mul.[[#N+1]] =\nCHECK: neg.[[#N+2]] =\n", HLO, []),
    ("CHECK: multiply\nCHECK-EMPTY:\nCHECK-NEXT: ROOT\n", HLO, []),
    ("CHECK: f32[4] add\nCHECK-SAME: (%p, %q)\n", HLO, []),
    ("CHECK-COUNT-2: parameter\nCHECK-NOT: parameter\n", HLO, []),
    ("CHECK: {{^}}HloModule n\nCHECK-NEXT: {{^ +ROOT}}\n", HLO, []),
    ("CHECK: %p = f32[4] parameter(0)\n", HLO, ["--match-full-lines"]),
    ("CHECK: ROOT %c = s32[] constant(42)\n", HLO, ["--match-full-lines"]),
    ("CHECK: %add.1  = f32[4]\n", HLO, ["--strict-whitespace"]),
    ("CHECK: HloModule m\nCHECK: HloModule n\n", HLO, ["--implicit-check-not=subtract"]),
    ("A: parameter(0)\nB: parameter(1)\nA-NEXT: parameter(1)\n", HLO, ["--check-prefixes=A,B"]),
    ("FOO: negate\n", HLO, ["--check-prefix=FOO"]),
    ("CHECK{LITERAL}: f32[4] add(%p, %q)\n", HLO, []),
    ("// COM: CHECK: nothing\nCHECK: constant\n", HLO, []),
    ("CHECK: {{(add|multiply)}}(%add.1\nCHECK: ROOT {{.*}} negate\n", HLO, []),
    ("CHECK: [[X:[a-z]+]].[[#]] = f32[4] [[X]]\n", HLO, []),
    ("CHECK: p{{[[:digit:]]}}\n", HLO, []),
    ("CHECK: a\nCHECK-NEXT: b\n", "a\nb\n", []),
    ("CHECK: a\nCHECK-NEXT: b\n", "a\nx\nb\n", []),
    ("CHECK-NOT: b\nCHECK: c\n", "a b c\n", []),
    ("CHECK: [[V:v[0-9]]] [[V]]\n", "v1 v2 v2\n", []),
    ("CHECK: line [[@LINE]] ok\nCHECK: line [[@LINE+1]] too\n", "line 1 ok\nline 3 too\n", []),
]


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def repo_pairs(bindir):
    """(check file text, input text, options) for each testdata file whose
    CHECK lines a tool's output is matched against."""
    pairs = []
    for dirpath, _, names in sorted(os.walk(TESTDATA)):
        for name in sorted(names):
            if not name.endswith(".hlo"):
                continue
            path = os.path.join(dirpath, name)
            text = read(path)
            if not re.search(r"^\s*//\s*CHECK", text, re.M):
                continue
            for line in text.splitlines():
                m = re.match(r"\s*//\s*RUN:\s*(.*)$", line)
                if not m:
                    continue
                # The first command of the pipeline (a '|' inside quotes is
                # part of an argument).
                lexer = shlex.shlex(m.group(1), posix=True, punctuation_chars="|&>")
                lexer.whitespace_split = True
                argv = []
                for token in lexer:
                    if token == "|":
                        break
                    argv.append(token)
                merge = argv[-3:] == ["2", ">&", "1"]
                if merge:
                    argv = argv[:-3]
                argv = [a.replace("%s", os.path.relpath(path, TESTDATA)) for a in argv]
                if argv[:1] == ["not"]:  # hlo-test's `not`: the exit status is inverted
                    argv = argv[1:]
                if not argv or not os.path.exists(os.path.join(bindir, argv[0])):
                    continue
                proc = subprocess.run([os.path.join(bindir, argv[0])] + argv[1:], cwd=TESTDATA,
                                      capture_output=True, timeout=120)
                output = proc.stdout + (proc.stderr if merge else b"")
                pairs.append((text, output.decode("utf-8", "surrogateescape"), []))
                break
    return pairs


DIRECTIVE = re.compile(r"(CHECK(?:-NEXT|-SAME|-NOT|-DAG|-LABEL|-EMPTY|-COUNT-\d+)?):")
KINDS = ["CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT", "CHECK-DAG", "CHECK-LABEL",
         "CHECK-EMPTY", "CHECK-COUNT-2"]
REGEX_EDITS = [("+", "*"), ("[0-9]", "[a-z]"), (".*", "[^ ]*"), ("[a-z]", "[A-Z]"),
               ("}}", "x}}"), ("{{", "{{x*"), ("{{", "{{[^(]+|"), ("+", "{2}")]


def mutations(check, text, options, rng):
    """Mutated (check, input, options) triples of one pair."""
    lines = check.split("\n")
    directive_lines = [i for i, l in enumerate(lines) if DIRECTIVE.search(l)]
    out = []
    for i in directive_lines:
        m = DIRECTIVE.search(lines[i])
        for kind in KINDS:
            if kind != m.group(1):
                changed = lines[:]
                changed[i] = lines[i][:m.start(1)] + kind + lines[i][m.end(1):]
                if kind == "CHECK-EMPTY":
                    changed[i] = changed[i][:m.start(1) + len(kind) + 1]
                out.append(("\n".join(changed), text, options))
        out.append(("\n".join(lines[:i] + lines[i + 1:]), text, options))
        out.append(("\n".join(lines[:i + 1] + lines[i:]), text, options))
        if i + 1 < len(lines):
            swapped = lines[:]
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            out.append(("\n".join(swapped), text, options))
        body = lines[i][m.end():]
        for name in re.findall(r"\[\[([A-Za-z_]\w*)", body):
            renamed = lines[:]
            renamed[i] = lines[i].replace("[[" + name, "[[" + name + "X", 1)
            out.append(("\n".join(renamed), text, options))
        for old, new in REGEX_EDITS:
            if "{{" in body and old in body:
                edited = lines[:]
                edited[i] = lines[i][:m.end()] + body.replace(old, new, 1)
                out.append(("\n".join(edited), text, options))
        plain = [k for k, ch in enumerate(body) if ch.isalnum()]
        if plain:
            k = rng.choice(plain)
            edited = lines[:]
            edited[i] = lines[i][:m.end()] + body[:k] + ("Z" if body[k] != "Z" else "Y") + body[k + 1:]
            out.append(("\n".join(edited), text, options))
            edited = lines[:]
            edited[i] = lines[i][:m.end()] + body[:max(1, len(body) // 2)]
            out.append(("\n".join(edited), text, options))
    in_lines = text.split("\n")
    for _ in range(4):
        if len(in_lines) > 1:
            j = rng.randrange(len(in_lines) - 1)
            out.append((check, "\n".join(in_lines[:j] + in_lines[j + 1:]), options))
            out.append((check, "\n".join(in_lines[:j + 1] + in_lines[j:]), options))
    words = sorted(set(re.findall(r"[a-z][a-z-]{2,}", text)))
    extra = [["--match-full-lines"], ["--strict-whitespace"]]
    if words:
        extra.append(["--implicit-check-not=" + rng.choice(words)])
    for flags in extra:
        if flags[0].split("=")[0] not in " ".join(options):
            out.append((check, text, options + flags))
    return out


SHAPE_LINES = [
    "%p.0 = f32[8]{0} parameter(0)",
    "%c.1 = f32[8,16]{1,0} constant({...})",
    "%t.2 = (f32[2]{0}, s32[]) tuple(%a, %b)",
    "%r.3 = bf16[4,2,3]{2,1,0:T(8,128)} reshape(%p.0)",
    "ROOT %d.4 = f32[8,16]{0,1} dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
    "%k.5 = s32[2,2] constant({ { 1, 2 }, { 3, 4 } })",
    "%s.6 = f32[] slice(%p.0), slice={[0:1]}",
    "{0} {1,0} [8] [[1,2],[3,4]] {{1}} }} ]] [[ {{",
]
# Regexes whose brackets and braces sit at the edges of a {{ }} or a capture.
EDGE_REGEXES = ["[0-9]+", "{[0-9]+", "[0-9]+}", "{", "}", "[{]", "[}]", "[]]", "[^]]*", "[^}]*",
                "[[]", ".*", "[0-9]{1,2}", "[0-9]{1}", "(0|1)", "\\{", "\\[", "\\]", "",
                "[[:digit:]]+", "x{", "{1}", "{,}", "[0-9]+\\]", "[0-9,]*", "[a-z0-9]+",
                "[0-9]*]", "}}", "{{", "(", "a{256}", "[0-9]+|", "[z-a]", "[[:foo:]]", "\\"]


def shape_pattern(line, rng, names):
    """A pattern from `line`: runs of digits and some punctuation replaced by
    regexes and variables, brackets and braces kept or doubled beside them."""
    out = []
    i = 0
    while i < len(line):
        ch = line[i]
        r = rng.random()
        if ch.isdigit():
            j = i
            while j < len(line) and line[j].isdigit():
                j += 1
            choice = rng.randrange(8)
            if choice == 0:
                out.append("{{" + rng.choice(EDGE_REGEXES) + "}}")
            elif choice == 1:
                name = rng.choice("NMK")
                names.add(name)
                out.append(f"[[{name}:{rng.choice(EDGE_REGEXES)}]]")
            elif choice == 2 and names:
                out.append(f"[[{rng.choice(sorted(names))}]]")
            elif choice == 3:
                name = rng.choice("IJ")
                out.append(rng.choice([f"[[#{name}:]]", f"[[#%u,{name}:]]", "[[#]]", f"[[#{name}+1]]",
                                       f"[[#{name}]]", "[[#@LINE]]", "[[@LINE]]"]))
            elif choice == 4:
                out.append("{{[0-9]+}}")
            else:
                out.append(line[i:j])
            i = j
            continue
        if ch in "[]{}" and r < 0.35:
            out.append(rng.choice([ch, ch + ch, ch * 3, "{{" + "\\" + ch + "}}", "{{[" + ch + "]}}"]))
        elif ch == " " and r < 0.1:
            out.append(rng.choice(["{{ *}}", " ", "{{.*}}", "[[S:.*]]"]))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def shape_pairs(count, rng):
    """(check, input, options) pairs over SHAPE_LINES."""
    text = "\n".join(SHAPE_LINES) + "\n"
    pairs = []
    for _ in range(count):
        names = set()
        lines = []
        for _ in range(rng.randint(1, 3)):
            line = rng.choice(SHAPE_LINES)
            start = rng.randrange(len(line) // 2 + 1)
            piece = line[start:start + rng.randint(4, 40)].strip() or line
            kind = rng.choice(["CHECK", "CHECK", "CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT",
                               "CHECK-DAG"])
            lines.append(f"{kind}: {shape_pattern(piece, rng, names)}")
        if not any(l.startswith("CHECK:") or l.startswith("CHECK-DAG:") for l in lines):
            lines.insert(0, "CHECK: HloModule" if rng.random() < 0.1 else "CHECK: %p.0")
        if lines[0].startswith("CHECK-NEXT") or lines[0].startswith("CHECK-SAME"):
            lines[0] = "CHECK:" + lines[0].split(":", 1)[1]
        options = []
        r = rng.random()
        if r < 0.1:
            options.append("--ignore-case")
            lines = [l.split(": ", 1)[0] + ": " + l.split(": ", 1)[1].swapcase() for l in lines]
        elif r < 0.2:
            options.append("-DN=" + rng.choice(["8", "16", "0", "1,0"]))
            lines.append("CHECK: [[N]]")
        elif r < 0.25:
            options.append("-D#I=" + rng.choice(["3", "7", "0x10"]))
            lines.append("CHECK: [[#I+1]]")
        elif r < 0.3:
            options.append("--match-full-lines")
        pairs.append(("\n".join(lines) + "\n", text, options))
    return pairs


NEAR = re.compile(r"^[^\n]*:(\d+):(\d+): note: possible intended match here$", re.M)


def near_miss(stderr):
    """The line and column of the near-miss notes in `stderr`."""
    return NEAR.findall(stderr)


REGEX_ATOMS = ["(", ")", "[", "]", "{", "}", "|", "*", "+", "?", "^", "$", ".", "\\", "a", "0",
               "1", "2", ",", ":", "-", "[0-9]", "[^]]", "{2}", "{1,}", "{,", "[[:digit:]]",
               "[[.a.]]", "[]a]", "\\{", "\\1", "f32", " ", "%"]


def regex_pairs(count, rng):
    """Random regexes as {{ }} blocks and captures, against HLO text."""
    text = "\n".join(SHAPE_LINES) + "\n"
    pairs = []
    for _ in range(count):
        regex = "".join(rng.choice(REGEX_ATOMS) for _ in range(rng.randint(1, 6)))
        if "}}" in regex or "]]" in regex:
            continue
        pairs.append((f"CHECK: {{{{{regex}}}}}\n", text, []))
        pairs.append((f"CHECK: [[R:{regex}]]\nCHECK: [[R]]\n", text, []))
    return pairs


BLOCK_TOKENS = ["[[#N:]]", "[[#%x,N:]]", "[[N:a]]", "[[N:[a-z]]]", "[[#N+1]]", "[[#N-1]]",
                "[[@LINE+1]]", "[[#@LINE]]", "{{[0-9]+}}", "[[N]]", "[[#%d,M:N-5]]", "[[#M]]",
                "[[#]]", "[[#%.2u,P:]]", "[[N:.*]]", "[[#N]]", "[[#%X,Q:]]", "[[", "]]", "{{",
                "}}", "#", "%", "%d", "%x", "%.3u", ",", ":", "@LINE", "+", "-", "1", "0x1f", "N",
                "X", "$G", " ", "a", "[", "]", "{", "}", "(", ")", "*", "\\", "==", "f32",
                "9999999999999999999999"]
BLOCK_KINDS = ["CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT", "CHECK-DAG", "CHECK-LABEL",
               "CHECK-COUNT-2", "CHECK{LITERAL}"]
BLOCK_INPUT = ("f32[8]{0} a 1 1f 9 0x1f\nX N a[1] {a} 18446744073709551615 -3\n\n"
               "%x.1 = f32[] a\n")


def block_pairs(count, rng):
    """Random check files of variable blocks and noise."""
    pairs = []
    for _ in range(count):
        lines = []
        for _ in range(rng.randint(1, 3)):
            body = "".join(rng.choice(BLOCK_TOKENS) for _ in range(rng.randint(1, 10)))
            lines.append(rng.choice(BLOCK_KINDS) + ": " + body)
        if lines[0].startswith(("CHECK-NEXT", "CHECK-SAME")):
            lines[0] = "CHECK: x"
        options = rng.choice([[], [], ["--match-full-lines"], ["-DN=1"], ["-D#N=3"],
                              ["--ignore-case"]])
        pairs.append(("\n".join(lines) + "\n", BLOCK_INPUT, options))
    return pairs


def run(tool, check_path, input_path, options):
    proc = subprocess.run([tool, check_path, "--input-file", input_path, "--dump-input=never"]
                          + options, capture_output=True, timeout=60)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--filecheck", default="FileCheck-14")
    ap.add_argument("--min-pairs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shapes", type=int, default=1000,
                    help="generated pairs of HLO shapes with brackets beside regexes")
    ap.add_argument("--regexes", type=int, default=500, help="random regexes to compare")
    ap.add_argument("--blocks", type=int, default=500, help="random files of variable blocks")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    filecheck = shutil.which(a.filecheck)
    if filecheck is None:
        print(f"agreement: {a.filecheck} not found (Debian: apt-get install llvm-14-tools)")
        return 77
    hlo_check = os.path.join(os.path.abspath(a.bin), "hlo-check")
    rng = random.Random(a.seed)
    base = SEEDS + repo_pairs(os.path.abspath(a.bin))
    pairs = list(base)
    for check, text, options in base:
        pairs.extend(mutations(check, text, options, rng))
    pairs.extend(shape_pairs(a.shapes, random.Random(a.seed)))
    pairs.extend(regex_pairs(a.regexes, random.Random(a.seed)))
    pairs.extend(block_pairs(a.blocks, random.Random(a.seed)))
    seen = set()
    unique = []
    for check, text, options in pairs:
        key = (check, text, tuple(options))
        if key not in seen:
            seen.add(key)
            unique.append((check, text, options))
    verdicts = {0: 0, 1: 0, 2: 0}

    def compare(index):
        check, text, options = unique[index]
        check_path = os.path.join(tmp, f"check{index}.txt")
        input_path = os.path.join(tmp, f"input{index}.txt")
        with open(check_path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(check)
        with open(input_path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        want, want_err = run(filecheck, check_path, input_path, options)
        got, got_err = run(hlo_check, check_path, input_path, options)
        os.unlink(check_path)
        os.unlink(input_path)
        return want, got, want_err, got_err

    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            results = list(pool.map(compare, range(len(unique))))
        # A directory as the check file or as the input (issue 36): both exit 2.
        check_path = os.path.join(tmp, "dir_check.txt")
        with open(check_path, "w") as f:
            f.write("CHECK: x\n")
        for check_arg, input_arg in ((tmp, check_path), (check_path, tmp)):
            unique.append((f"<directory {check_arg == tmp}>", "", []))
            want, want_err = run(filecheck, check_arg, input_arg, [])
            got, got_err = run(hlo_check, check_arg, input_arg, [])
            results.append((want, got, want_err, got_err))
    differ = []
    near_total = near_differ = crashed = 0
    for (check, text, options), (want, got, want_err, got_err) in zip(unique, results):
        if want not in (0, 1, 2):
            crashed += 1  # FileCheck itself crashed (it does on some malformed input)
            continue
        verdicts[want] = verdicts.get(want, 0) + 1
        if want != got:
            differ.append((check, text, options, want, got, want_err, got_err))
        elif want == 1:
            # Where each tool's "possible intended match" note points (or none).
            want_near, got_near = near_miss(want_err), near_miss(got_err)
            near_total += 1
            if want_near != got_near:
                near_differ += 1
                if a.verbose:
                    print(f"NEAR MISS: FileCheck {want_near}, hlo-check {got_near}")
                    print("  check file:\n    " + "\n    ".join(check.split("\n")[:10]))
    for check, text, options, want, got, want_err, got_err in differ:
        print(f"DIFFER: FileCheck {want}, hlo-check {got}, options {options}")
        print("  check file:\n    " + "\n    ".join(check.split("\n")[:40]))
        if a.verbose:
            print("  input:\n    " + "\n    ".join(text.split("\n")[:40]))
        print("  FileCheck says: " + "\n    ".join(want_err.strip().split("\n")[:6]))
        print("  hlo-check says: " + "\n    ".join(got_err.strip().split("\n")[:6]))
    n = len(unique)
    print(f"verdicts (FileCheck): {verdicts.get(0, 0)} pass, {verdicts.get(1, 0)} fail, "
          f"{verdicts.get(2, 0)} malformed")
    print(f"near misses: {near_total} failures, {near_total - near_differ} with the same "
          f"'possible intended match' note (or none in both), {near_differ} differ")
    if crashed:
        print(f"FileCheck crashed on {crashed} pairs (left out)")
        n -= crashed
    print(f"agreement: {n} pairs, {n - len(differ)} agree, {len(differ)} differ")
    return 0 if not differ and n >= a.min_pairs else 1


if __name__ == "__main__":
    sys.exit(main())
