#!/usr/bin/env python3
"""Seeded mutation fuzzing of hlo-opt and hlo-run: bad input never crashes.

  scripts/fuzz.py --bin build/bin [--cases N] [--seed S] [--mode MODE]... [-v]

Modes (default: text, json, inputs; `semantics` is slower and opt-in):

* text: the modules of testdata/ (split at `// -----`) with random edits
  (deleted, repeated or truncated text, swapped words, odd numbers and
  tokens) through `hlo-opt -O --verify-each`, the layout passes with
  --emit=json, three random passes with --emit=dot, and hlo-run (random
  inputs, bounded memory and loop trips, with and without passes).
* json: module JSON (written by hlo-opt from those modules) with values
  replaced, removed or duplicated, through `hlo-opt --input-format=json -O`.
* inputs: hlo-run on testdata/eval/data_parameters.hlo with damaged literal
  text and .npy input files.
* unverified: one attribute's integers (dims, dimensions, index, the dot
  and gather/scatter dim lists, ...) or one instruction's result dims of a
  testdata/eval module changed, run by `hlo-run --no-verify` and
  `hlo-opt --no-verify -O`: the kernels and passes meet what the verifier
  would reject and must report it or leave it alone, not crash.
* semantics: edits that keep a module well formed more often (opcodes,
  compare directions, constants, operands swapped or replaced); a module
  hlo-run runs must give the same result after `hlo-opt -O` and after
  layout-assignment (scripts/semantics_check.py's check, with float
  tolerances widened to 1e-4 relative, since a rewritten module may sum in
  another order).

A finding is an exit status other than 0 or 1 (a signal, an abort), a
timeout, a sanitizer report, or (semantics) a different result; each is
saved under --out and named on stdout. The same seed gives the same cases.
The last line is `fuzz: N cases, N findings`; exit status 1 on a finding.
"""
import argparse
import glob
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import semantics_check  # noqa: E402

TIMEOUT = 30  # seconds a tool may take on one case (--timeout)
PASSES = ["dce", "cse", "call-inliner", "tuple-simplifier", "constant-folding",
          "while-loop-simplifier", "conditional-simplifier", "algsimp", "layout-assignment",
          "layout-normalization", "transpose-folding", "reshape-mover"]
TOKENS = ["-1", "0", "2147483648", "9223372036854775807", "18446744073709551616", "1e999",
          "nan", "-inf", "{", "}", "(", ")", "[", "]", ",", "=", "->", "%x", "ROOT", "f32[]",
          "f32[1000000000,1000000000]", "s32[-1]", "pred[]", "(f32[], s32[])", "tuple()",
          "{0,1}", "{1,0:T(8,128)}", "u4[3]", "c64[2]", '"', "'", "\\", "/*", "//",
          "f8e4m3fn[2]", "dim_labels=b01f_01io->b01f", "window={size=3}", "slice={[0:-1]}",
          "to_apply=%x", "dimensions={0,0}", "index=5", "ENTRY", "HloModule m", "\x00", "%"]
NUMBERS = ["-1", "0", "1", "3", "65536", "2147483647", "4294967296", "-9223372036854775808",
           "99999999999999999999"]
JSON_VALUES = [None, True, False, 0, -1, 1, 2**31, 2**63, -2**63, 1.5, "", "x", "f32[]", "(",
               [], {}, [0], [-1, 5], {"a": 1}, "f32[1000000000000]", "s32[2]{1,0}", 1e308]


def modules():
    """(label, text) of every module in testdata/ but the error tests."""
    out = []
    for path in sorted(glob.glob(os.path.join(TESTDATA, "*", "*.hlo"))):
        text = open(path, encoding="utf-8", errors="replace").read()
        for i, part in enumerate(text.split("// -----")):
            if "HloModule" in part or "ENTRY" in part:
                out.append((f"{os.path.relpath(path, TESTDATA)}#{i}", part))
    return out


# An attribute of integers (one, or a {list}), and an instruction's result
# dims (parameters left alone: their shapes are the inputs').
INT_ATTRIBUTE = re.compile(
    r"((?:dims|dimensions|dimension|index|iota_dimension|feature_index|split_dimension|"
    r"lhs_contracting_dims|rhs_contracting_dims|lhs_batch_dims|rhs_batch_dims|offset_dims|"
    r"collapsed_slice_dims|start_index_map|index_vector_dim|update_window_dims|"
    r"inserted_window_dims|scatter_dims_to_operand_dims|slice_sizes|dynamic_slice_sizes|"
    r"permutation|operand_batching_dims|start_indices_batching_dims|input_batching_dims|"
    r"scatter_indices_batching_dims)=)(\{[-0-9, ]*\}|-?\d+)")
RESULT_DIMS = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*\(?[a-z0-9]+\[([0-9,]*)\]", re.M)


def mutate_unverified(rng, t):
    """One attribute's integers or one result's dims changed (see the modes)."""
    attrs = list(INT_ATTRIBUTE.finditer(t))
    results = [m for m in RESULT_DIMS.finditer(t)
               if "parameter(" not in t[m.end():t.find("\n", m.end())]]
    if attrs and (not results or rng.random() < 0.5):
        m = rng.choice(attrs)
        value, new = m.group(2), str(rng.choice([-1, -2, 7, 100, 1 << 40, 0]))
        if value.startswith("{"):
            nums = [x for x in value[1:-1].split(",") if x.strip()]
            k = rng.random()
            if nums and k < 0.6:
                nums[rng.randrange(len(nums))] = new
            elif nums and k < 0.8:
                nums.pop(rng.randrange(len(nums)))
            else:
                nums.insert(rng.randint(0, len(nums)), new)
            new = "{" + ",".join(nums) + "}"
        return t[:m.start(2)] + new + t[m.end(2):]
    if not results:
        return t
    m = rng.choice(results)
    dims = [d for d in m.group(1).split(",") if d]
    k = rng.random()
    if dims and k < 0.5:
        i = rng.randrange(len(dims))
        dims[i] = str(rng.choice([0, 1, 2, 3, 5, 64, int(dims[i]) + 1]))
    elif dims and k < 0.75:
        dims.pop(rng.randrange(len(dims)))
    else:
        dims.insert(rng.randint(0, len(dims)), str(rng.choice([1, 2, 3])))
    return t[:m.start(1)] + ",".join(dims) + t[m.end(1):]


def mutate_text(rng, t):
    for _ in range(rng.randint(1, 4)):
        if not t:
            break
        k, i = rng.randrange(8), rng.randrange(len(t))
        lines = t.split("\n")
        if k == 0:
            t = t[:i] + t[i + rng.randint(1, 20):]
        elif k == 1:
            t = t[:i] + rng.choice(TOKENS) + t[i:]
        elif k == 2:
            m = list(re.finditer(r"-?\d+", t))
            if m:
                x = rng.choice(m)
                t = t[:x.start()] + rng.choice(NUMBERS) + t[x.end():]
        elif k == 3:
            t = t[:i]
        elif k == 4:
            lines.insert(rng.randrange(len(lines)), rng.choice(lines))
            t = "\n".join(lines)
        elif k == 5:
            del lines[rng.randrange(len(lines))]
            t = "\n".join(lines)
        elif k == 6:
            m = list(re.finditer(r"[a-z][a-z0-9\-]+", t))
            if m:
                x, y = rng.choice(m), rng.choice(m)
                t = t[:x.start()] + y.group() + t[x.end():]
        else:
            t = t[:i] + chr(rng.randrange(32, 127)) + t[i + 1:]
    return t


BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "divide", "and", "or", "xor",
          "remainder", "power", "atan2", "shift-left", "shift-right-logical",
          "shift-right-arithmetic"]
UNARY = ["negate", "abs", "not", "exponential", "log", "sqrt", "floor", "ceil", "sign", "copy",
         "tanh", "popcnt", "round-nearest-even", "cosine"]


def mutate_semantics(rng, t):
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(6)
        if k in (0, 1):
            ops = BINARY if k == 0 else UNARY
            m = list(re.finditer(r"\b(" + "|".join(ops) + r")\(", t))
            if m:
                x = rng.choice(m)
                t = t[:x.start()] + rng.choice(ops) + "(" + t[x.end():]
        elif k == 2:
            m = list(re.finditer(r"direction=(EQ|NE|LT|LE|GT|GE)", t))
            if m:
                x = rng.choice(m)
                t = t[:x.start(1)] + rng.choice(["EQ", "NE", "LT", "LE", "GT", "GE"]) + t[x.end(1):]
        elif k == 3:
            m = list(re.finditer(r"constant\(([^()]*)\)", t))
            if m:
                x = rng.choice(m)
                v = re.sub(r"-?\d+(\.\d+)?", lambda _: rng.choice(
                    ["0", "1", "-1", "2", "0.5", "-0", "3", "255", "-128", "7"]), x.group(1))
                t = t[:x.start(1)] + v + t[x.end(1):]
        elif k == 4:
            m = list(re.finditer(r"\(([%\w.\-]+), ([%\w.\-]+)\)", t))
            if m:
                x = rng.choice(m)
                t = t[:x.start()] + f"({x.group(2)}, {x.group(1)})" + t[x.end():]
        else:
            names = re.findall(r"^\s*(?:ROOT\s+)?([%\w.\-]+) = ", t, re.M)
            m = list(re.finditer(r"(?<=[(, ])([%\w.\-]+)(?=[,)])", t))
            if m and names:
                x = rng.choice(m)
                t = t[:x.start()] + rng.choice(names) + t[x.end():]
    return t


def mutate_json(rng, doc):
    def paths(o, p=()):
        yield p
        items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else []
        for k, v in items:
            yield from paths(v, p + (k,))
    for _ in range(rng.randint(1, 3)):
        candidates = list(paths(doc))[1:]
        if not candidates:
            break
        p = rng.choice(candidates)
        parent = doc
        for k in p[:-1]:
            parent = parent[k]
        k, r = p[-1], rng.randrange(4)
        if r == 0:
            parent[k] = rng.choice(JSON_VALUES)
        elif r == 1:
            del parent[k]
        elif r == 2 and isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[k])))
        elif r == 3 and isinstance(parent[k], str) and parent[k]:
            s = parent[k]
            j = rng.randrange(len(s))
            parent[k] = s[:j] + rng.choice(["", "9", "-", "]", "{", "x"]) + s[j + 1:]
    return json.dumps(doc)


def run(argv):
    """(bad, message): bad when the tool crashed, hung or a sanitizer spoke."""
    try:
        p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return True, "timeout"
    err = p.stderr.decode(errors="replace")
    bad = p.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err
    return bad, f"exit {p.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"


def text_commands(rng, bindir, path):
    opt, hrun = os.path.join(bindir, "hlo-opt"), os.path.join(bindir, "hlo-run")
    bounds = ["--max-iterations", "1000", "--max-memory", "100000000"]
    return [[opt, "-O", "--verify-each", path, "-o", "/dev/null"],
            [hrun, "--random-inputs", "--seed", "1", path, "-o", "/dev/null"] + bounds,
            [opt, "--passes=layout-assignment,layout-normalization,algsimp", "--verify-each",
             "--emit=json", path, "-o", "/dev/null"],
            [opt, "--passes=" + ",".join(rng.sample(PASSES, 3)), "--verify-each", "--emit=dot",
             path, "-o", "/dev/null"],
            [hrun, "--passes=constant-folding,algsimp,cse,dce", "--random-inputs", "--seed", "2",
             path, "-o", "/dev/null"] + bounds]


def npy_bytes(arr, fortran=False):
    import numpy as np
    b = io.BytesIO()
    np.save(b, np.asfortranarray(arr) if fortran else arr)
    return b.getvalue()


def main():
    global TIMEOUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--cases", type=int, default=100, help="cases per mode")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", action="append",
                    choices=["text", "json", "inputs", "unverified", "semantics"])
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "hlo-fuzz"))
    ap.add_argument("--timeout", type=float, default=TIMEOUT,
                    help="seconds a tool may take on one case (more for sanitized builds)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    TIMEOUT = a.timeout
    bindir = os.path.abspath(a.bin)
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="hlo-fuzz-")
    seeds = modules()
    findings = cases = 0
    verdicts = {}  # semantics: checked, skipped (hlo-run cannot run it), failed

    def found(kind, label, message, files):
        nonlocal findings
        findings += 1
        tag = hashlib.sha1(b"".join(c for _, c in files)).hexdigest()[:10]
        for suffix, content in files:
            with open(os.path.join(a.out, f"{kind}-{tag}{suffix}"), "wb") as f:
                f.write(content)
        print(f"FINDING {kind} from {label}: {message} (saved as {a.out}/{kind}-{tag}*)",
              flush=True)

    for mode in a.mode or ["text", "json", "inputs"]:
        rng = random.Random(f"{a.seed}:{mode}")
        path = os.path.join(work, "case.json" if mode == "json" else "case.hlo")
        jsons = []
        if mode == "json":
            for label, text in rng.sample(seeds, min(60, len(seeds))):
                with open(os.path.join(work, "seed.hlo"), "w", encoding="utf-8") as f:
                    f.write(text)
                p = subprocess.run([os.path.join(bindir, "hlo-opt"), os.path.join(work, "seed.hlo"),
                                    "--emit=json"], capture_output=True, timeout=TIMEOUT)
                if p.returncode == 0:
                    jsons.append((label, p.stdout.decode()))
            if not jsons:
                found("json", "testdata", "hlo-opt --emit=json failed on every seed module", [])
                continue
        if mode == "semantics":
            runnable = [(label, text) for label, text in seeds
                        if label.startswith(("eval/", "passes/")) and "RUN-ERROR" not in text
                        and not semantics_check.has_elided_constants(text)]
            semantics_check.TOLERANCE.update({"f32": 1e-4, "c64": 1e-4, "f64": 1e-10,
                                              "c128": 1e-10})
            # A changed compare can make a loop endless: bound it (such a
            # module is then skipped, as hlo-run fails before the passes).
            semantics_check.RUN_ARGS += ["--max-iterations", "10000", "--max-memory", "1000000000"]
            semantics_check.TIMEOUT = TIMEOUT
        if mode == "unverified":
            runnable = [(label, text) for label, text in seeds
                        if label.startswith(("eval/", "passes/")) and "RUN-ERROR" not in text]
        if mode == "inputs":
            import numpy as np
            ev = os.path.join(TESTDATA, "eval")
            txt = open(os.path.join(ev, "data_parameters.p0.txt")).read()
            npys = [open(os.path.join(ev, "data_parameters.p1.npy"), "rb").read(),
                    npy_bytes(np.arange(4, dtype=">i4")), npy_bytes(np.arange(4, dtype="<i8")),
                    npy_bytes(np.zeros((2, 2), dtype="<i4"), True),
                    npy_bytes(np.array([1.0, 2, 3, 4], dtype="<f4"))]
        for _ in range(a.cases):
            cases += 1
            if mode == "text":
                label, text = rng.choice(seeds)
                data = mutate_text(rng, text).encode("utf-8", errors="replace")
                with open(path, "wb") as f:
                    f.write(data)
                for cmd in text_commands(rng, bindir, path):
                    bad, msg = run(cmd)
                    if bad:
                        found("text", label, f"{os.path.basename(cmd[0])} {cmd[1]}: {msg}",
                              [(".hlo", data)])
                        break
            elif mode == "json":
                label, text = rng.choice(jsons)
                data = mutate_json(rng, json.loads(text)).encode()
                with open(path, "wb") as f:
                    f.write(data)
                bad, msg = run([os.path.join(bindir, "hlo-opt"), "--input-format=json", path,
                                "-O", "-o", "/dev/null"])
                if bad:
                    found("json", label, msg, [(".json", data)])
            elif mode == "inputs":
                t, b = txt, bytearray(rng.choice(npys))
                for _ in range(rng.randint(1, 3)):
                    if rng.random() < 0.5:
                        i = rng.randrange(len(t) + 1)
                        t = t[:i] + rng.choice(["", "{", "}", ",", "1e999", "nan", "-", "0x1p3",
                                                "99999999999999999999", " ", "f32[2,3]", "s32[6]",
                                                "(", "[", "]", "\x00"]) + t[i + rng.randint(0, 3):]
                    elif b:
                        i = rng.randrange(len(b))
                        k = rng.randrange(3)
                        if k == 0:
                            b[i] = rng.randrange(256)
                        elif k == 1:
                            del b[i:i + rng.randint(1, 8)]
                        else:
                            b = b[:i]
                p0, p1 = os.path.join(work, "p0.txt"), os.path.join(work, "p1.npy")
                with open(p0, "w", encoding="utf-8", errors="replace") as f:
                    f.write(t)
                with open(p1, "wb") as f:
                    f.write(bytes(b))
                bad, msg = run([os.path.join(bindir, "hlo-run"),
                                os.path.join(ev, "data_parameters.hlo"), "--input", p0,
                                "--input", p1,
                                "--input", os.path.join(ev, "data_parameters.p2.txt"),
                                "--input", os.path.join(ev, "data_parameters.p3.txt")])
                if bad:
                    found("inputs", "data_parameters", msg,
                          [(".p0.txt", t.encode("utf-8", errors="replace")), (".p1.npy", bytes(b))])
            elif mode == "unverified":
                label, text = rng.choice(runnable)
                data = mutate_unverified(rng, text).encode()
                with open(path, "wb") as f:
                    f.write(data)
                # (passes/ modules may need inputs of unbounded shapes: -O only.)
                commands = [[os.path.join(bindir, "hlo-opt"), path, "--no-verify", "-O", "-o",
                             os.devnull]]
                if label.startswith("eval/"):
                    commands.append([os.path.join(bindir, "hlo-run"), path, "--no-verify",
                                     "--random-inputs", "--max-memory", "1000000000",
                                     "--max-iterations", "10000", "-o", os.devnull])
                for cmd in commands:
                    bad, msg = run(cmd)
                    if bad:
                        found("unverified", label, f"{os.path.basename(cmd[0])}: {msg}",
                              [(".hlo", data)])
                        break
            else:
                label, text = rng.choice(runnable)
                mutated = mutate_semantics(rng, text)
                verdict, msg = semantics_check.check(bindir, label, mutated)
                verdicts[verdict] = verdicts.get(verdict, 0) + 1
                if verdict == "fail":
                    found("semantics", label, msg[:300], [(".hlo", mutated.encode())])
        if a.verbose:
            extra = f", semantics verdicts {verdicts}" if mode == "semantics" else ""
            print(f"fuzz: mode {mode} done ({cases} cases so far, {findings} findings{extra})")
    print(f"fuzz: {cases} cases, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
