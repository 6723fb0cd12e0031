#!/usr/bin/env python3
"""SIGTERM, SIGINT and SIGHUP at many moments of a run that writes a set of
outputs: hlo-run --output-format=npy -o DIR (300 results), hlo-opt -o FILE,
hlo-opt --dump-dir DIR and hlo-test --update (and hlo-test running a long
command: the command ends with it). After each, the outputs are all
there with the right contents or none is (an existing directory keeps its
files; an updated file is old or new), no temporary (*.tmp*) is left, and the
tool exited 0 (it finished first) or 128 + the signal with a message naming
the signal (and, when it says "nothing written", nothing was).
  scripts/interrupt_test.py [BIN_DIR]
The delays are spread over the measured length of an uninterrupted run.
"""
import array
import ast
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SIGNALS = {signal.SIGTERM: "SIGTERM", signal.SIGINT: "SIGINT", signal.SIGHUP: "SIGHUP"}
RESULTS = 300         # tuple outputs of the hlo-run module
SIZE = 16384          # f32 elements each: 64 KiB a file, 19 MiB in all

failed_trials = set()
trials = 0
# How the trials ended: the outputs complete or as before, exit 0 or by the signal.
outcomes = {}


def fail(what):
    failed_trials.add(trials)
    print("FAIL", what, flush=True)


def default_signals():
    # A background job or nohup may have left these ignored; the tools keep
    # an ignored signal ignored, which is not what is tested here.
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


def run_full(cmd, cwd):
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, preexec_fn=default_signals)
    if p.returncode != 0:
        sys.exit(f"interrupt: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[:500]}")
    return time.monotonic() - start


def nohup():
    default_signals()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def run_interrupted(cmd, cwd, delay, sig, preexec=default_signals):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, preexec_fn=preexec)
    time.sleep(delay)
    if p.poll() is None:
        p.send_signal(sig)
    _, err = p.communicate()
    return p.returncode, err


def snapshot(path):
    """{relative name: bytes} of the files under path (None when absent)."""
    if not os.path.exists(path):
        return None
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return {"": f.read()}
    files = {}
    for root, _, names in os.walk(path):
        for name in names:
            full = os.path.join(root, name)
            with open(full, "rb") as f:
                files[os.path.relpath(full, path)] = f.read()
    return files


def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def temporaries(work):
    left = []
    for root, dirs, names in os.walk(work):
        left += [os.path.join(root, n) for n in dirs + names if ".tmp" in n]
    return left


def check(label, rc, err, sig, before, after, complete, work):
    """`complete`: the snapshot a finished run leaves; `before`: the one before."""
    global trials
    trials += 1
    if os.environ.get("INTERRUPT_TEST_VERBOSE"):
        print(f"{label}: exit {rc}: {err.strip()[:200]}", flush=True)
    name = SIGNALS[sig]
    left = temporaries(work)
    if left:
        fail(f"{label}: temporaries left: {left[:3]}")
        for path in left:
            remove(path)  # so that the next trials are judged on their own
    kind = ("complete" if after == complete else "as before" if after == before else "partial",
            "exit 0" if rc == 0 else "handler" if rc == 128 + sig else "killed")
    outcomes[kind] = outcomes.get(kind, 0) + 1
    # -sig: killed by the default action, before the tool installed its
    # handlers (a shell reports 128 + sig as well).
    if rc not in (0, 128 + sig, -sig):
        fail(f"{label}: exit status {rc}, expected 0 or {128 + sig}; stderr: {err[:300]}")
        return
    if rc == 128 + sig and f"interrupted by {name}" not in err:
        fail(f"{label}: exit {rc} without 'interrupted by {name}': {err[:300]}")
    if after == complete:
        if "nothing written" in err and before != complete:
            fail(f"{label}: says 'nothing written' but the outputs are there")
        return
    if rc == 0:
        fail(f"{label}: exit 0 but the outputs are not complete")
    elif after != before:
        have = sorted(after or {})
        fail(f"{label}: a partial set: {len(have)} files ({have[:3]}...), "
             f"expected {len(complete or {})} or the {len(before or {})} there before")


def delays(duration, count):
    # Over the whole run and a little past it (some runs finish first).
    return [duration * 1.1 * i / (count - 1) for i in range(count)]


# ---- hlo-run --output-format=npy -o DIR --------------------------------------------

def many_results_module():
    lines = ["HloModule many_results", "", "ENTRY e {",
             f"  i = f32[{SIZE}] iota(), iota_dimension=0"]
    for k in range(RESULTS):
        lines += [f"  c{k} = f32[] constant({k})",
                  f"  b{k} = f32[{SIZE}] broadcast(c{k}), dimensions={{}}",
                  f"  a{k} = f32[{SIZE}] add(i, b{k})"]
    shape = ", ".join([f"f32[{SIZE}]"] * RESULTS)
    lines += [f"  ROOT t = ({shape}) tuple({', '.join(f'a{k}' for k in range(RESULTS))})", "}"]
    return "\n".join(lines) + "\n"


def read_npy_f32(data):
    """The values of a little-endian f32 .npy file (format 1.0), without numpy."""
    assert data[:6] == b"\x93NUMPY", "not an npy file"
    header_len = int.from_bytes(data[8:10], "little")
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], header
    values = array.array("f")
    values.frombytes(data[10 + header_len:])
    assert len(values) == header["shape"][0], (len(values), header)
    return values


def check_reference_npy(files):
    """The uninterrupted run's files against the module's values: i + k."""
    names = {f"result_{k}.npy" for k in range(RESULTS)}
    if set(files) != names:
        sys.exit(f"interrupt: the reference run wrote {sorted(files)[:5]}..., not result_0..{RESULTS - 1}")
    for k in range(RESULTS):
        values = read_npy_f32(files[f"result_{k}.npy"])
        if any(values[j] != j + k for j in (0, 1, SIZE // 2, SIZE - 1)) or \
                values != array.array("f", range(k, k + SIZE)):
            sys.exit(f"interrupt: result_{k}.npy does not hold iota + {k}")


def test_hlo_run(bin_dir, work):
    with open(os.path.join(work, "many.hlo"), "w") as f:
        f.write(many_results_module())
    cmd = [os.path.join(bin_dir, "hlo-run"), "many.hlo", "--output-format=npy", "-o"]
    duration = run_full(cmd + ["reference"], work)
    complete = snapshot(os.path.join(work, "reference"))
    check_reference_npy(complete)
    shutil.rmtree(os.path.join(work, "reference"))
    print(f"hlo-run: {RESULTS} results in {duration:.2f} s", flush=True)
    cases = [(signal.SIGTERM, d, False) for d in delays(duration, 30)]
    cases += [(sig, d, False) for sig in (signal.SIGINT, signal.SIGHUP)
              for d in delays(duration, 4)]
    cases += [(signal.SIGTERM, d, True) for d in delays(duration, 6)]
    for sig, delay, existing in cases:
        out = os.path.join(work, "out")
        shutil.rmtree(out, ignore_errors=True)
        expected = complete
        if existing:
            # An existing directory: its other files stay, a file of the same
            # name is replaced only together with all the others.
            os.mkdir(out)
            with open(os.path.join(out, "keep.txt"), "w") as f:
                f.write("old\n")
            with open(os.path.join(out, "result_0.npy"), "w") as f:
                f.write("old\n")
            expected = dict(complete, **{"keep.txt": b"old\n"})
        before = snapshot(out)
        rc, err = run_interrupted(cmd + ["out"], work, delay, sig)
        label = f"hlo-run -o {'existing ' if existing else ''}DIR, {SIGNALS[sig]} at {delay:.3f} s"
        check(label, rc, err, sig, before, snapshot(out), expected, work)
    # Under nohup SIGHUP stays ignored: the run ends normally.
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    rc, err = run_interrupted(cmd + ["out"], work, duration / 2, signal.SIGHUP, nohup)
    if rc != 0 or snapshot(out) != complete:
        fail(f"hlo-run -o DIR under nohup, SIGHUP: exit {rc} {err[:200]}")
    shutil.rmtree(out, ignore_errors=True)


# ---- hlo-opt -o FILE and --dump-dir DIR --------------------------------------------

def big_module(chains, length):
    """Distinct chains of negates: dce and cse keep every instruction."""
    lines = ["HloModule big_text", "", "ENTRY e {", "  p = f32[4] parameter(0)"]
    for c in range(chains):
        lines += [f"  c{c} = f32[] constant({c})", f"  b{c} = f32[4] broadcast(c{c}), dimensions={{}}",
                  f"  s{c} = f32[4] add(p, b{c})"]
        prev = f"s{c}"
        for k in range(length):
            lines.append(f"  n{c}_{k} = f32[4] {'negate' if k % 2 == 0 else 'exponential'}({prev})")
            prev = f"n{c}_{k}"
    shape = ", ".join(["f32[4]"] * chains)
    lines += [f"  ROOT t = ({shape}) tuple({', '.join(f'n{c}_{length - 1}' for c in range(chains))})",
              "}"]
    return "\n".join(lines) + "\n"


def test_hlo_opt(bin_dir, work, what, extra, target, count):
    with open(os.path.join(work, "big.hlo"), "w") as f:
        f.write(big_module(40, 500))
    opt = os.path.join(bin_dir, "hlo-opt")
    reference = os.path.join(work, "reference")
    remove(reference)
    duration = run_full([opt, "big.hlo"] + extra + target("reference"), work)
    complete = snapshot(reference)
    if not complete or (what == "--dump-dir" and len(complete) < 10):
        sys.exit(f"interrupt: hlo-opt {what} wrote {len(complete or {})} files")
    remove(reference)
    print(f"hlo-opt {what}: {len(complete)} files in {duration:.2f} s", flush=True)
    out = os.path.join(work, "out")
    sigs = [signal.SIGTERM] * count + [signal.SIGINT, signal.SIGHUP]
    for sig, delay in zip(sigs, delays(duration, count) + [duration / 2, duration * 0.9]):
        remove(out)
        rc, err = run_interrupted([opt, "big.hlo"] + extra + target("out"), work, delay, sig)
        check(f"hlo-opt {what}, {SIGNALS[sig]} at {delay:.3f} s", rc, err, sig, None,
              snapshot(out), complete, work)
    remove(out)


# ---- hlo-test --update ---------------------------------------------------------------

def commands_running(marker, patience):
    """Processes whose command line holds `marker`, after up to `patience` s."""
    deadline = time.monotonic() + patience
    while True:
        found = []
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(pid)
            except OSError:
                pass
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


def test_hlo_test_update(bin_dir, work):
    tests = os.path.join(work, "golden")
    os.mkdir(tests)
    with open(os.path.join(tests, "interrupt_update_case.hlo"), "w") as f:
        f.write("// RUN: hlo-opt %s -o %t.hlo && cat %t.hlo\n" + big_module(20, 500))
    out = os.path.join(tests, "interrupt_update_case.out")
    cmd = [os.path.join(bin_dir, "hlo-test"), "golden", "--update", "-j", "1"]
    with open(out, "w") as f:
        f.write("old\n")
    duration = run_full(cmd, work)
    with open(out, "rb") as f:
        new = f.read()
    if len(new) < 1000:
        sys.exit("interrupt: hlo-test --update did not write the new output")
    print(f"hlo-test --update: {len(new)} bytes in {duration:.2f} s", flush=True)
    marker = "interrupt_update_case"
    for sig, delay in [(signal.SIGTERM, d) for d in delays(duration, 8)] + \
            [(signal.SIGINT, duration * 0.8), (signal.SIGHUP, duration * 0.95)]:
        with open(out, "w") as f:
            f.write("old\n")
        rc, err = run_interrupted(cmd, work, delay, sig)
        label = f"hlo-test --update, {SIGNALS[sig]} at {delay:.3f} s"
        check(label, rc, err, sig, {"": b"old\n"}, snapshot(out), {"": new}, work)
        # Its commands ended with it (one it started as the signal came may
        # take a moment: it learns of hlo-test's end by PR_SET_PDEATHSIG) ...
        for pid in commands_running(marker, 2.0):
            fail(f"{label}: its command {pid} still runs")
        # ... and its temporary directory (/tmp/hlo-test.*) went with it.
        for entry in os.listdir("/tmp"):
            d = os.path.join("/tmp", entry)
            if entry.startswith("hlo-test.") and os.path.isdir(d) and \
                    any(marker in n for n in os.listdir(d)):
                fail(f"{label}: its temporary directory {d} is left")
                shutil.rmtree(d, ignore_errors=True)


SLOW_MODULE = """HloModule slow

cond {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(100000000)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[1024] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[1024] add(x, x)
  ROOT t = (s32[], f32[1024]) tuple(j, y)
}

ENTRY e {
  z = s32[] constant(0)
  f = f32[] constant(0)
  b = f32[1024] broadcast(f), dimensions={}
  init = (s32[], f32[1024]) tuple(z, b)
  w = (s32[], f32[1024]) while(init), condition=cond, body=body
  ROOT r = f32[1024] get-tuple-element(w), index=1
}
"""


def test_hlo_test_commands(bin_dir, work):
    """hlo-test interrupted while a command runs (for a minute if let be):
    the command ends with it."""
    tests = os.path.join(work, "golden_slow")
    os.mkdir(tests)
    marker = "interrupt_slow_case"
    with open(os.path.join(tests, marker + ".hlo"), "w") as f:
        f.write("// RUN: hlo-run %s\n" + SLOW_MODULE)
    cmd = [os.path.join(bin_dir, "hlo-test"), "golden_slow", "-j", "1"]
    for sig in (signal.SIGTERM, signal.SIGINT):
        rc, err = run_interrupted(cmd, work, 0.5, sig)
        label = f"hlo-test running a command, {SIGNALS[sig]} at 0.5 s"
        check(label, rc, err, sig, None, None, None, work)
        if rc == 0:
            fail(f"{label}: the command finished first")
        left = commands_running(marker, 0.5)
        for pid in left:
            fail(f"{label}: its command {pid} still runs")
            os.kill(int(pid), signal.SIGKILL)


def main():
    bin_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/bin")
    start = time.monotonic()
    work = tempfile.mkdtemp(prefix="hlo-interrupt-")
    try:
        test_hlo_run(bin_dir, work)
        print(f"({time.monotonic() - start:.1f} s)", flush=True)
        test_hlo_opt(bin_dir, work, "-o", ["--passes=dce,cse"], lambda d: ["-o", d], 12)
        test_hlo_opt(bin_dir, work, "--dump-dir", ["--passes=" + ",".join(["dce", "cse"] * 10)],
                     lambda d: ["--dump-dir", d], 12)
        test_hlo_test_update(bin_dir, work)
        test_hlo_test_commands(bin_dir, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("outcomes:", ", ".join(f"{n} {a}/{b}" for (a, b), n in sorted(outcomes.items())))
    print(f"interrupt: {trials - len(failed_trials)} passed, {len(failed_trials)} failed "
          f"({time.monotonic() - start:.1f} s)")
    return 1 if failed_trials else 0


if __name__ == "__main__":
    sys.exit(main())
