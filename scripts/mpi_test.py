#!/usr/bin/env python3
"""hlo-run under mpirun (CTest `mpi`): every multi-device golden of testdata/
(an hlo-run RUN line with --replicas/--partitions, or a module with
replica_count/num_partitions > 1) and every multi-device XLA case
(../shared/xla-jax/cases, testdata/xla-jax/cases: out_dD_I.npy files) runs
threaded and under `mpirun -n 2` and `-n 4` (where the rank count divides the
devices) with --output-format=npy -o DIR: every file must be byte for byte
the threaded run's. Then the faults: a failing device, a deadlock across
ranks (a device that never arrives, and two collectives that meet where one
should) and a rank killed mid-run each end the job with exit status 1 within
seconds and the error named once.

  scripts/mpi_test.py --bin build/bin [--mpi-built ON|OFF] [--filter RE]
Exit 77 (skipped) when hlo-run was built without MPI or mpirun is missing.
"""
import argparse
import filecmp
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTDATA = os.path.join(ROOT, "testdata")
# Flags whose output is not per device npy, or that MPI refuses.
SKIP_FLAGS = ("--outfeed", "--profile", "--expect", "--bench")


def mpirun_prefix(n):
    cmd = ["mpirun", "--oversubscribe", "-n", str(n)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


# Under ASan, Open MPI's allocations that live until exit are no leak of ours.
# The suppressions match by library, so Open MPI's and PMIx's plugins must
# stay loaded until LeakSanitizer looks (no dlclose: else their frames are
# "<unknown module>"), and the slow unwinder follows frames through them.
# use_tls=0: LeakSanitizer's scan of the threads' dynamic TLS crashed its
# tracer (clang-14, this kernel: "DTLS 11 at 0x4330-0x400005432", "Tracer
# caught signal 11") on pmap_collectives under -n 4, the session's first
# binary alike; without the TLS scan it passes and reports no leak.
SUPP = "suppressions=" + os.path.join(ROOT, "scripts", "mpi_lsan.supp")
ENV = dict(os.environ, HLO_PIN="0",
           OMPI_MCA_mca_base_component_disable_dlclose="1",
           PMIX_MCA_mca_base_component_disable_dlclose="1",
           LSAN_OPTIONS=":".join(x for x in (os.environ.get("LSAN_OPTIONS"), SUPP,
                                             "fast_unwind_on_malloc=0", "use_tls=0") if x))


def run(cmd, cwd, timeout=120):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=ENV)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def device_count(path, args):
    text = open(path, encoding="utf-8", errors="replace").read(4000)
    def flag(name, header):
        m = re.search(r"--" + name + r"[ =](\d+)", args)
        if m:
            return int(m.group(1))
        m = re.search(header + r"=(\d+)", text)
        return int(m.group(1)) if m else 1
    return flag("replicas", "replica_count") * flag("partitions", "num_partitions")


def golden_cases():
    """(name, cwd, module, args, devices) for each multi-device hlo-run RUN line."""
    cases = []
    for path in sorted(glob.glob(os.path.join(TESTDATA, "**", "*.hlo"), recursive=True)):
        rel = os.path.relpath(path, TESTDATA)
        if rel.startswith(("errors" + os.sep, "parser" + os.sep, "verify" + os.sep)):
            continue
        for line in open(path, encoding="utf-8", errors="replace"):
            m = re.match(r"\s*//\s*RUN:\s*hlo-run\s+%s\s*(.*)$", line)
            if not m:
                continue
            args = re.split(r"\s*[|>]", m.group(1))[0].strip()
            if any(f in args for f in SKIP_FLAGS) or "%" in args:
                continue
            n = device_count(path, args)
            if n > 1:
                cases.append((rel, TESTDATA, path, shlex.split(args), n))
    return cases


def xla_cases(dirs, tmp):
    import numpy as np  # only for splitting the global inputs into shards
    cases = []
    for d in dirs:
        for case in sorted(glob.glob(os.path.join(d, "*"))):
            outs = glob.glob(os.path.join(case, "out_d*_0.npy"))
            module = os.path.join(case, "after.hlo")
            if not outs or not os.path.exists(module):
                continue
            ndev = len(outs)
            nin = len(glob.glob(os.path.join(case, "in_[0-9]*.npy")))
            shards = tempfile.mkdtemp(prefix="shards.", dir=tmp)
            ins = []
            for dev in range(ndev):
                for i in range(nin):
                    p = os.path.join(case, f"in_d{dev}_{i}.npy")
                    if not os.path.exists(p):
                        p = os.path.join(shards, f"in_d{dev}_{i}.npy")
                        np.save(p, np.split(np.load(os.path.join(case, f"in_{i}.npy")), ndev)[dev])
                    ins.append(p)
            args = ["--partitions", str(ndev)]
            for p in ins:
                args += ["--input", p]
            cases.append((os.path.relpath(case, os.path.dirname(d)), case, module, args, ndev))
    return cases


# All-reduce shapes the goldens lack: a reducer that is no native op, two
# operands of different types, an element count no rank count divides, and
# groups that span ranks or stay inside one (run with --random-inputs).
EXTRA = {
    "allreduce_mixed.hlo": """HloModule allreduce_mixed, replica_count=4
mix {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(a, b)
  ROOT s = f32[] add(m, a)
}
imax {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY e {
  p = f32[7,3] parameter(0)
  q = s32[7,3] parameter(1)
  p2 = f32[5] parameter(2)
  r = f32[7,3] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=mix
  s = f32[7,3] all-reduce(p), replica_groups={{3,1,0,2}}, to_apply=mix
  t = f32[7,3] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=mix
  u = (f32[7,3], f32[5]) all-reduce(p, p2), replica_groups={}, to_apply=mix
  v = s32[7,3] all-reduce(q), replica_groups={{1,2,3,0}}, to_apply=imax
  ROOT o = (f32[7,3], f32[7,3], f32[7,3], (f32[7,3], f32[5]), s32[7,3]) tuple(r, s, t, u, v)
}
""",
    "scatter_alltoall.hlo": """HloModule scatter_alltoall, replica_count=4
mix {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(a, b)
  ROOT s = f32[] subtract(m, a)
}
ENTRY e {
  p = f32[8,6] parameter(0)
  q = f32[4,5] parameter(1)
  w = f32[3,8] parameter(2)
  r = (f32[2,6], f32[1,5]) reduce-scatter(p, q), replica_groups={{3,0,2,1}}, dimensions={0}, to_apply=mix
  s = f32[4,6] reduce-scatter(p), replica_groups={{0,2},{1,3}}, dimensions={0}, to_apply=mix
  t = f32[3,8] all-to-all(w), replica_groups={{1,3,0,2}}, dimensions={1}
  u = f32[8,6] all-to-all(p), replica_groups={{0,3},{1,2}}, dimensions={0}
  q0 = f32[4,5] negate(q)
  q1 = f32[4,5] abs(q)
  q2 = f32[4,5] exponential(q)
  v = (f32[4,5], f32[4,5], f32[4,5], f32[4,5]) all-to-all(q, q0, q1, q2), replica_groups={{2,0,3,1}}
  ROOT o = ((f32[2,6], f32[1,5]), f32[4,6], f32[3,8], f32[8,6], (f32[4,5], f32[4,5], f32[4,5], f32[4,5])) tuple(r, s, t, u, v)
}
""",
    # Small gathers of one group through shared memory (eval/collectives/
    # shm_ring.h): many more than the ring's slots, a larger all-reduce that
    # goes by message between them on the same group, async pairs open at
    # once, and a group of two whose members are on different ranks.
    "ring_reuse.hlo": """HloModule ring_reuse, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
cond {
  p = (s32[], f32[3], f32[2100], f32[5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(40)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[3], f32[2100], f32[5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[3] get-tuple-element(p), index=1
  y = f32[2100] get-tuple-element(p), index=2
  z = f32[5] get-tuple-element(p), index=3
  one = s32[] constant(1)
  j = s32[] add(i, one)
  xs = f32[3] all-reduce-start(x), replica_groups={}, to_apply=add
  ys = f32[2100] all-reduce-start(y), replica_groups={}, to_apply=add
  zs = f32[5] all-reduce-start(z), replica_groups={{0,2},{1,3}}, to_apply=max
  zd = f32[5] all-reduce-done(zs)
  yd = f32[2100] all-reduce-done(ys)
  xd = f32[3] all-reduce-done(xs)
  g = f32[12] all-gather(xd), replica_groups={}, dimensions={0}
  g3 = f32[3] slice(g), slice={[3:6]}
  q = f32[3] constant({0.25, 0.25, 0.25})
  x2 = f32[3] multiply(g3, q)
  y2 = f32[2100] multiply(yd, yd)
  r = f32[2100] rsqrt(y2)
  y3 = f32[2100] multiply(yd, r)
  k = f32[5] constant({0.5, -1, 2, 0.125, 3})
  z2 = f32[5] subtract(zd, k)
  ROOT t = (s32[], f32[3], f32[2100], f32[5]) tuple(j, x2, y3, z2)
}
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[2100] parameter(1)
  z = f32[5] parameter(2)
  c = s32[] constant(0)
  t = (s32[], f32[3], f32[2100], f32[5]) tuple(c, x, y, z)
  ROOT w = (s32[], f32[3], f32[2100], f32[5]) while(t), condition=cond, body=body
}
""",
}


def extra_cases(tmp):
    cases = []
    for name, text in EXTRA.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        cases.append((name, tmp, path, ["--random-inputs", "--seed", "3"], 4))
    # A model's SPMD module (GPT-2 small's layers, Megatron-partitioned over
    # 4): products large enough to be cut across the cores, whose bits must
    # not depend on how many devices share the process.
    path = os.path.join(tmp, "gpt2_tp4.hlo")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_spmd_transformer.py"),
                    "--layers", "2", "--seq", "128", "-o", path], check=True)
    cases.append(("gpt2_tp4.hlo", tmp, path, ["--random-inputs", "--seed", "3"], 4))
    # Its training step (one layer): the backward pass's collectives, small
    # (the loss, each row's max and sum) and large (input gradients).
    path = os.path.join(tmp, "gpt2_train_tp4.hlo")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_spmd_transformer.py"),
                    "--layers", "1", "--seq", "64", "--train", "-o", path], check=True)
    cases.append(("gpt2_train_tp4.hlo", tmp, path, ["--random-inputs", "--seed", "3"], 4))
    return cases


def same_tree(a, b):
    """None when the two folders hold the same files with the same bytes."""
    fa = sorted(os.path.relpath(p, a) for p in glob.glob(os.path.join(a, "**", "*"), recursive=True)
                if os.path.isfile(p))
    fb = sorted(os.path.relpath(p, b) for p in glob.glob(os.path.join(b, "**", "*"), recursive=True)
                if os.path.isfile(p))
    if fa != fb:
        return f"files differ: {fa} vs {fb}"
    for f in fa:
        if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False):
            return f"{f} differs"
    return None if fa else "no files written"


def check_case(hlo_run, name, cwd, module, args, n, tmp, ranks):
    base = os.path.join(tmp, "threaded")
    shutil.rmtree(base, ignore_errors=True)
    rc, _, err, _ = run([hlo_run, module] + args + ["--output-format=npy", "-o", base], cwd)
    if rc != 0:
        return [f"{name}: threaded run failed: {err.strip()[:300]}"], 0
    problems, runs = [], 0
    for r in ranks:
        if n % r != 0 or r > n:
            continue
        out = os.path.join(tmp, f"mpi{r}")
        shutil.rmtree(out, ignore_errors=True)
        rc, _, err, secs = run(mpirun_prefix(r) + [hlo_run, module] + args +
                               ["--output-format=npy", "-o", out], cwd)
        runs += 1
        if rc != 0:
            problems.append(f"{name} -n {r}: exit {rc}: {err.strip()[-400:]}")
            continue
        said = re.findall(r"hlo-run: MPI rank \d+ of \d+: devices \d+-\d+", err)
        if len(said) != r:
            problems.append(f"{name} -n {r}: {len(said)} rank lines on stderr, not {r}")
        diff = same_tree(base, out)
        if diff:
            problems.append(f"{name} -n {r}: {diff}")
    return problems, runs




def fault_cases(hlo_run, tmp):
    """Each fault ends every rank: exit 1, in seconds, the error said once."""
    problems = []
    # 1. A device that fails (a division by zero is no error; a custom call
    #    hlo-run does not know is), on the last rank.
    fail = os.path.join(tmp, "fail.hlo")
    with open(fail, "w") as f:
        f.write("""HloModule fail, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
then {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), custom_call_target="no_such_target"
}
else {
  ROOT p = f32[4] parameter(0)
}
ENTRY e {
  x = f32[4] parameter(0)
  r = u32[] replica-id()
  three = u32[] constant(3)
  last = pred[] compare(r, three), direction=EQ
  y = f32[4] conditional(last, x, x), true_computation=then, false_computation=else
  ROOT s = f32[4] all-reduce(y), replica_groups={}, to_apply=add
}
""")
    rc, _, err, secs = run(mpirun_prefix(2) + [hlo_run, fail, "--random-inputs"], tmp, timeout=60)
    errors = [l for l in err.splitlines() if ": error:" in l]
    if rc != 1 or secs > 20 or len(errors) != 1 or "replica 3" not in errors[0] \
            or "hlo-run: note: on MPI rank 1" not in err:
        problems.append(f"failing device: exit {rc} after {secs:.1f}s, errors {errors}")
    # 2. A device that never arrives: replica 3 skips the all-reduce. Then
    #    two collectives that meet where one should (replica 3 runs another
    #    all-reduce than the others: of another size, and of the same size,
    #    which small collectives' gathers must tell apart by more than size).
    #    Each is the threaded run's deadlock, in its words.
    header = """HloModule deadlock, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""
    entry = """ENTRY e {
  x = f32[4] parameter(0)
  r = u32[] replica-id()
  three = u32[] constant(3)
  last = pred[] compare(r, three), direction=EQ
  ROOT y = f32[4] conditional(last, x, x), true_computation=then, false_computation=else
}
"""
    other = """else {
  p = f32[4] parameter(0)
  ROOT sb = f32[4] all-reduce(p), replica_groups={}, to_apply=add
}
"""
    deadlocks = {
        "deadlock": "then {\n  ROOT p = f32[4] parameter(0)\n}\n" + other,
        "two collectives of two sizes": """then {
  p = f32[4] parameter(0)
  c = f32[8] concatenate(p, p), dimensions={0}
  sa = f32[8] all-reduce(c), replica_groups={}, to_apply=add
  ROOT h = f32[4] slice(sa), slice={[0:4]}
}
""" + other,
        "two collectives of one size": """then {
  p = f32[4] parameter(0)
  ROOT sa = f32[4] all-reduce(p), replica_groups={}, to_apply=add
}
""" + other,
    }
    for k, (what, body) in enumerate(deadlocks.items()):
        dead = os.path.join(tmp, f"deadlock{k}.hlo")
        with open(dead, "w") as f:
            f.write(header + body + entry)
        rc0, _, err0, _ = run([hlo_run, dead, "--random-inputs"], tmp, timeout=60)
        want = [l for l in err0.splitlines() if ": error:" in l]
        for r in (2, 4):
            rc, _, err, secs = run(mpirun_prefix(r) + [hlo_run, dead, "--random-inputs"], tmp,
                                   timeout=60)
            errors = [l for l in err.splitlines() if ": error:" in l]
            if rc != 1 or secs > 20 or errors != want or not want:
                problems.append(f"{what} -n {r}: exit {rc} after {secs:.1f}s, errors {errors}, "
                                f"threaded: {want}")
    # 3. A rank killed mid-run (SIGKILL while the others wait at a
    #    collective): mpirun ends the job, no rank is left behind.
    slow = os.path.join(tmp, "slow.hlo")
    with open(slow, "w") as f:
        f.write("""HloModule slow, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(100000000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[64] all-reduce(x), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[64]) tuple(j, y)
}
ENTRY e {
  x = f32[64] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[64]) tuple(z, x)
  ROOT w = (s32[], f32[64]) while(t), condition=cond, body=body
}
""")
    p = subprocess.Popen(mpirun_prefix(2) + [hlo_run, slow, "--random-inputs"], cwd=tmp,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=ENV)
    # Both ranks started (mpirun may be slow to start them on a loaded
    # machine), then a moment inside the loop.
    victims = []
    for _ in range(200):
        victims = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
                                 text=True).stdout.split()
        if len(victims) >= 2:
            break
        time.sleep(0.1)
    time.sleep(2)
    if not victims:
        problems.append("killed rank: no rank process found under mpirun")
        p.kill()
    else:
        t0 = time.time()
        subprocess.run(["kill", "-9", victims[-1]])
        try:
            p.wait(timeout=30)
            secs = time.time() - t0
            if p.returncode == 0 or secs > 20:
                problems.append(f"killed rank: mpirun exit {p.returncode} after {secs:.1f}s")
        except subprocess.TimeoutExpired:
            p.kill()
            problems.append("killed rank: mpirun still running 30 s after a rank was killed")
        time.sleep(1)
        left = [v for v in victims if running(v)]
        if left:
            problems.append(f"killed rank: ranks left running: {left}")
    # 4. No deadlock where there is none: replica 1 waits long at a small
    #    all-reduce (rank 0 hears it is stuck), then computes long after it
    #    (past rank 0's 200 ms deadlock settle) while replica 0 waits at the
    #    next. Rank 0 once kept rank 1's stale "stuck" and called it a
    #    deadlock, since the small collective's gather is no counted message.
    late = os.path.join(tmp, "late.hlo")
    with open(late, "w") as f:
        f.write(LATE_MODULE)
    rc0, out0, _, _ = run([hlo_run, late, "--random-inputs"], tmp, timeout=60)
    rc, out, err, secs = run(mpirun_prefix(2) + [hlo_run, late, "--random-inputs"], tmp,
                             timeout=60)
    results = lambda text: sorted(l for l in text.splitlines() if l.startswith("("))
    if rc0 != 0 or rc != 0 or results(out) != results(out0):
        errors = [l for l in err.splitlines() if ": error:" in l]
        problems.append(f"late rank: exit {rc} after {secs:.1f}s, errors {errors}")
    return problems


# Replica r spins `first` trips of sine over 4096 floats before the first
# all-reduce and `second` after it: replica 0 first (long enough for rank 1
# to report that it waits), replica 1 second (long past the settle time
# after rank 0 reports). 0.8 s in all here; the old rank 0 failed it 3 of 3.
LATE_MODULE = """HloModule late_rank, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  x = f32[4096] get-tuple-element(p), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[4096] sine(x)
  ROOT t = (s32[], s32[], f32[4096]) tuple(j, n, y)
}
spin {
  x = f32[4096] parameter(0)
  n = s32[] parameter(1)
  z = s32[] constant(0)
  t = (s32[], s32[], f32[4096]) tuple(z, n, x)
  w = (s32[], s32[], f32[4096]) while(t), condition=cond, body=body
  ROOT r = f32[4096] get-tuple-element(w), index=2
}
ENTRY e {
  x = f32[4096] parameter(0)
  r = u32[] replica-id()
  rs = s32[] convert(r)
  one = s32[] constant(1)
  other = s32[] subtract(one, rs)
  k = s32[] constant(100000)
  first = s32[] multiply(other, k)
  k2 = s32[] constant(400000)
  second = s32[] multiply(rs, k2)
  a = f32[4096] call(x, first), to_apply=spin
  s1 = f32[4] slice(a), slice={[0:4]}
  r1 = f32[4] all-reduce(s1), replica_groups={}, to_apply=add
  b = f32[4096] call(x, second), to_apply=spin
  s2 = f32[4] slice(b), slice={[0:4]}
  r2 = f32[4] all-reduce(s2), replica_groups={}, to_apply=add
  ROOT out = (f32[4], f32[4]) tuple(r1, r2)
}
"""


def running(pid):
    """Whether the process runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mpi-built", default="ON")
    ap.add_argument("--filter", default="")
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--no-faults", action="store_true")
    a = ap.parse_args()
    if a.mpi_built.upper() in ("OFF", "0", "FALSE", "NO", ""):
        print("mpi: hlo-run was built without MPI (HLO_MPI=OFF): skipped")
        return 77
    if shutil.which("mpirun") is None:
        print("mpi: no mpirun (apt-get install openmpi-bin): skipped")
        return 77
    hlo_run = os.path.abspath(os.path.join(a.bin, "hlo-run"))
    ranks = [int(r) for r in a.ranks.split(",")]
    cases = golden_cases()
    shared = os.path.join(ROOT, "..", "shared", "xla-jax", "cases")
    dirs = [os.path.join(TESTDATA, "xla-jax", "cases")]
    if os.path.isdir(shared):
        dirs.append(shared)
    else:
        print("mpi: no ../shared/xla-jax: its multi-device cases are skipped")
    tmp = tempfile.mkdtemp(prefix="hlo-mpi-test.")
    cases += xla_cases([d for d in dirs if os.path.isdir(d)], tmp)
    cases += extra_cases(tmp)
    cases = [c for c in cases if re.search(a.filter, c[0])]
    problems, runs = [], 0
    t0 = time.time()
    try:
        for name, cwd, module, args, n in cases:
            p, k = check_case(hlo_run, name, cwd, module, args, n, tmp, ranks)
            problems += p
            runs += k
            print(f"mpi: {name} ({n} devices): {'ok' if not p else 'FAILED'}", flush=True)
        faults = [] if a.no_faults else fault_cases(hlo_run, tmp)
        problems += faults
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print("mpi: FAIL:", p)
    print(f"mpi: {len(cases)} cases, {runs} mpirun runs bit-identical to the threaded run "
          f"unless listed; faults {'skipped' if a.no_faults else 'checked'}; "
          f"{time.time() - t0:.1f} s")
    checks = len(cases) + (0 if a.no_faults else 7)  # the seven fault checks
    print(f"{max(0, checks - len(problems))} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
