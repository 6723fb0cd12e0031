#!/usr/bin/env python3
"""hlo-test on hostile suites: each case must end in a located error or the
right verdict, with the documented exit status (0 none failed, 1 some
failed, 2 bad usage), within its time limit (10 s; 60 s for output floods)
under a 4 GiB address-space limit (none for an ASan build, which reserves
terabytes), leaving no temporary folder and no process behind.

  scripts/hlo_test_selftest.py --bin build/bin [-k SUBSTRING] [-v]

The suites are written into a scratch folder at run time (folders where
files belong, read-only files, floods): they must fail, so they live
outside testdata/, which CTest `golden` runs. Prints a line per failed case
and `selftest: N passed, N failed`; exit status 1 if any failed.
"""
import argparse
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

MEMORY_LIMIT = 4 << 30
# Sleeps of these lengths mark the processes that must not outlive hlo-test.
MARKERS = ("7771", "7772", "7773")


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def stray_processes():
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and argv[:1] == [b"sleep"] and argv[1:2] and \
                argv[1].decode() in MARKERS:
            found.append(f"{pid} {b' '.join(argv).decode()}")
    return found


class Case:
    def __init__(self, name, files, args, status, patterns, limit=10,
                 check=None, signal_after=None, sig=signal.SIGTERM, memory=MEMORY_LIMIT):
        self.name, self.files, self.args, self.status = name, files, args, status
        self.patterns, self.limit, self.check = patterns, limit, check
        self.signal_after, self.sig, self.memory = signal_after, sig, memory


def unchanged(name, text):
    def check(suite):
        with open(os.path.join(suite, name)) as f:
            got = f.read()
        return None if got == text else f"{name} changed:\n{got}"
    return check


def mode_and_text(name, mode, text):
    def check(suite):
        path = os.path.join(suite, name)
        got_mode = stat.S_IMODE(os.stat(path).st_mode)
        if got_mode != mode:
            return f"{name}: mode {oct(got_mode)}, expected {oct(mode)}"
        return unchanged(name, text)(suite)
    return check


def passes_again(bin_dir):
    def check(suite):
        r = subprocess.run([os.path.join(bin_dir, "hlo-test"), suite],
                           capture_output=True, text=True, timeout=30)
        return None if r.returncode == 0 else f"second run failed:\n{r.stdout}"
    return check


HAND = "// RUN: hlo-opt missing.hlo | hlo-check %s\n// CHECK: hand-written\nHloModule m\n"
# As the issue's: the error message went into the CHECK lines.
HAND_MERGED = HAND.replace("missing.hlo |", "missing.hlo 2>&1 |")
PREFIXES = ("// RUN: echo alpha | hlo-check %s --check-prefix=A\n"
            "// RUN: echo beta | hlo-check %s --check-prefix=B\n"
            "// A: stale\n// B: stale\n")
MANY = {f"t{k:03}.hlo": "// RUN: echo hi\n" for k in range(300)}
MANY.update({f"t{k:03}.out": "hi\n" for k in range(300)})


def cases(bin_dir):
    dir_ = {"sub/": None}
    return [
        # Issue 35: --update and failing commands, prefixes, XFAIL.
        Case("update-missing-input", {"t.hlo": HAND}, ["--update"], 1,
             [r"FAIL: t.hlo: hlo-opt exited 1 \(RUN line 1\)", r"0 passed, 1 failed"],
             check=unchanged("t.hlo", HAND)),
        Case("update-missing-input-merged", {"t.hlo": HAND_MERGED},
             ["--update"], 1, [r"FAIL: t.hlo: hlo-opt exited 1 \(RUN line 1\)",
                               r"\n    missing.hlo: error: cannot open: No such file"],
             check=unchanged("t.hlo", HAND_MERGED)),
        Case("update-cat-missing", {"t.hlo": HAND.replace("hlo-opt", "cat")}, ["--update"], 1,
             [r"FAIL: t.hlo: cat exited 1", r"cat: cannot read missing.hlo: No such file"],
             check=unchanged("t.hlo", HAND.replace("hlo-opt", "cat"))),
        Case("update-two-prefixes", {"t.hlo": PREFIXES}, ["--update"], 0,
             [r"updated t.hlo\nupdated t.hlo\n1 passed, 0 failed"],
             check=passes_again(bin_dir)),
        Case("xfail", {"f.hlo": "// XFAIL: *\n// RUN: not echo x\n"}, ["-v"], 0,
             [r"XFAIL: f.hlo: echo exited 0", r"0 passed, 0 failed, 1 xfail"]),
        Case("xpass", {"p.hlo": "// XFAIL: *\n// RUN: echo x | hlo-check %s\n// CHECK: x\n"},
             [], 1, [r"XPASS: p.hlo: passed, but it is marked `XFAIL: \*`",
                     r"0 passed, 1 failed"]),
        Case("xfail-bad-value", {"p.hlo": "// XFAIL: linux\n// RUN: true\n"}, [], 1,
             [r"p.hlo:1: XFAIL: 'linux' is not supported"]),
        # Issue 36: a folder where a file belongs.
        Case("out-is-dir", {"a.hlo": "// RUN: echo hi\n", "a.out/": None}, [], 1,
             [r"FAIL: a.hlo: stdout: cannot read \S*a.out: Is a directory"]),
        Case("out-is-dir-update", {"a.hlo": "// RUN: echo hi\n", "a.out/": None}, ["--update"],
             1, [r"FAIL: a.hlo: stdout: cannot read \S*a.out: Is a directory"]),
        Case("cat-dir", {"a.hlo": "// RUN: cat sub | hlo-check %s\n// CHECK: x\n", **dir_}, [],
             1, [r"cat: cannot read sub: Is a directory"]),
        Case("stdin-dir", {"a.hlo": "// RUN: hlo-opt < sub\n", **dir_}, [], 1,
             [r"hlo-test: cannot open sub: Is a directory"]),
        Case("diff-dir", {"a.hlo": "// RUN: echo x | diff sub -\n", **dir_}, ["--update"], 1,
             [r"diff: cannot read sub: Is a directory"]),
        Case("config-dir", {"s/x.hlo": "HloModule m\n", "s/hlo-test.cfg/": None}, [], 2,
             [r"hlo-test: cannot read \S*s/hlo-test.cfg: Is a directory"]),
        Case("fifo", {"a.hlo": "// RUN: cat < f | hlo-check %s\n// CHECK: x\n", "f": "fifo"},
             [], 1, [r"hlo-test: cannot open f: not a regular file"]),
        Case("fifo-out", {"a.hlo": "// RUN: echo x > f\n", "f": "fifo"}, [], 1,
             [r"hlo-test: cannot open f: No such device or address"]),
        Case("fifo-path", {"a.hlo": "// RUN: true\n", "f": "fifo"}, ["@f"], 2,
             [r"f: not a test file or folder"]),
        # Endless inputs end at the input limit: the RUN lines' reads at
        # --max-output, the suite's own files at half the memory limit (as
        # hlo-run's inputs; before, a string grown by doubling hit bad_alloc).
        Case("stdin-dev-zero", {"a.hlo": "// RUN: hlo-opt < /dev/zero\n"}, [], 1,
             [r"hlo-test: cannot open /dev/zero: the input \(more than \d+ bytes\) exceeds "
              r"the input limit of 67108864 bytes"]),
        Case("cat-dev-zero", {"a.hlo": "// RUN: cat /dev/zero | hlo-check %s\n// CHECK: x\n"},
             [], 1, [r"cat: cannot read /dev/zero: the input \(more than \d+ bytes\) exceeds "
                     r"the input limit of 67108864 bytes"]),
        Case("diff-dev-zero", {"a.hlo": "// RUN: echo x | diff /dev/zero -\n"}, [], 1,
             [r"diff: cannot read /dev/zero: the input \(more than \d+ bytes\) exceeds"]),
        Case("out-dev-zero", {"a.hlo": "// RUN: echo hi\n", "a.out": "symlink:/dev/zero"}, [], 1,
             [r"FAIL: a.hlo: stdout: cannot read \S*a.out: the input \(more than \d+ bytes\) "
              r"exceeds the input limit of 524288000 bytes"], memory=1000 << 20),
        Case("config-dev-zero",
             {"s/x.hlo": "HloModule m\n", "s/hlo-test.cfg": "symlink:/dev/zero"}, [], 2,
             [r"hlo-test: cannot read \S*s/hlo-test.cfg: the input \(more than \d+ "
              r"bytes\) exceeds the input limit of 524288000 bytes"],
             memory=1000 << 20),
        # Redirections fail as in sh.
        Case("redirect-nonexistent", {"a.hlo": "// RUN: echo x > /nonexistent/x\n"}, [], 1,
             [r"hlo-test: cannot open /nonexistent/x: No such file or directory"]),
        Case("redirect-dir", {"a.hlo": "// RUN: echo x > sub\n", **dir_}, [], 1,
             [r"hlo-test: cannot open sub: Is a directory"]),
        Case("redirect-stderr-dir", {"a.hlo": "// RUN: echo x 2> sub\n", **dir_}, [], 1,
             [r"hlo-test: cannot open sub: Is a directory"]),
        Case("stdin-missing", {"a.hlo": "// RUN: cat < missing | hlo-check %s\n// CHECK: x\n"},
             [], 1, [r"hlo-test: cannot open missing: No such file or directory"]),
        # Options: every usage error exits 2.
        *[Case(f"timeout-{v}", {}, ["--timeout", v], 2, [r"--timeout"])
          for v in ("3000000", "0", "-5", "99999999999999999999", "abc", "1.5")],
        *[Case(f"jobs-{v}", {}, ["-j", v], 2, [r"-j|--jobs"]) for v in ("0", "3000", "-1")],
        *[Case(f"max-output-{v}", {}, ["--max-output", v], 2, [r"--max-output"])
          for v in ("0", "5000")],
        Case("bad-filter", {"a.hlo": "// RUN: true\n"}, ["--filter", "("], 2,
             [r"hlo-test: --filter: bad regex '\(': missing \)"]),
        Case("unknown-option", {}, ["--nope"], 2, [r"--nope"]),
        Case("missing-value", {}, ["--timeout"], 2, [r"--timeout"]),
        Case("missing-path", {}, ["no/such/path"], 2, [r"no/such/path: no such file"]),
        Case("help", {}, ["--help"], 0, [r"--max-output"]),
        # Floods are cut at the output limit.
        Case("flood", {"a.hlo": "// RUN: yes | hlo-check %s\n// CHECK: x\n"}, [], 1,
             [r"yes wrote more than 64 MiB of output \(killed\)"], limit=60),
        Case("flood-stderr", {"a.hlo": "// RUN: sh -c 'yes >&2'\n"}, ["--max-output", "2"], 1,
             [r"sh wrote more than 2 MiB of output \(killed\)"]),
        # Timeouts and exits kill the whole process group.
        Case("timeout-group", {"a.hlo": "// RUN: sh -c 'sleep 7771; true'\n"},
             ["--timeout", "1"], 1, [r"sh exited 124", r"timed out after 1 s"]),
        Case("left-running", {"a.hlo": "// RUN: sh -c 'sleep 7772 >/dev/null 2>&1 &'\n",
                              "a.out": ""}, [], 0, [r"1 passed, 0 failed"]),
        Case("left-holding-pipe", {"a.hlo": "// RUN: sh -c 'sleep 7772 & echo done'\n",
                                   "a.out": "done\n"}, [], 0, [r"1 passed, 0 failed"]),
        *[Case(f"signal-{int(sig)}", {"a.hlo": "// RUN: sh -c 'sleep 7773; true'\n"}, [],
               128 + int(sig), [r"interrupted by SIG"], signal_after=1.0, sig=sig)
          for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)],
        # --update and files it cannot write.
        Case("update-read-only", {"a.hlo": "// RUN: echo new\n", "a.out": ("old\n", 0o444)},
             ["--update"], 1, [r"--update cannot write \S*a.out: read-only file, not replaced"],
             check=mode_and_text("a.out", 0o444, "old\n")),
        Case("update-read-only-checks",
             {"a.hlo": ("// RUN: echo x | hlo-check %s\n// CHECK: y\n", 0o444)}, ["--update"],
             1, [r"--update cannot write \S*a.hlo: read-only file"],
             check=mode_and_text("a.hlo", 0o444, "// RUN: echo x | hlo-check %s\n// CHECK: y\n")),
        Case("update-keeps-mode", {"a.hlo": "// RUN: echo new\n", "a.out": ("old\n", 0o640)},
             ["--update"], 0, [r"updated a.out"], check=mode_and_text("a.out", 0o640, "new\n")),
        Case("update-write-fails", {"a.hlo": "// RUN: echo x | diff no/dir/e.txt -\n"},
             ["--update"], 1, [r"--update cannot write \S*no/dir/e.txt: No such file"]),
        # A $TMPDIR (and suite) with a blank: %t stays one word.
        Case("blank in paths", {"a b.hlo": "// RUN: echo hi > %t && cat %t %s > %T/x\n"},
             [], 0, [r"1 passed, 0 failed"]),
        # More threads than the system gives: a note, and every test still runs.
        Case("threads", MANY, ["-j", "300"], 0,
             [r"note: -j 300: the system gave \d+ threads", r"300 passed, 0 failed"],
             limit=60, memory=600 << 20),  # room for the program, not for 300 thread stacks
    ]


def run_case(case, bin_dir, scratch, verbose, sanitized):
    suite = os.path.join(scratch, case.name)
    tmp = os.path.join(scratch, case.name + ".tmp")
    os.makedirs(suite)
    os.makedirs(tmp)
    for name, content in case.files.items():
        path = os.path.join(suite, name)
        if content is None:
            os.makedirs(path, exist_ok=True)
        elif content == "fifo":
            os.mkfifo(path)
        elif isinstance(content, str) and content.startswith("symlink:"):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.symlink(content[len("symlink:"):], path)
        elif isinstance(content, tuple):
            write(path, content[0], content[1])
        else:
            write(path, content)
    env = dict(os.environ, TMPDIR=tmp)
    limit = case.memory

    def limits():
        if not sanitized:  # ASan reserves terabytes of address space
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    # "@NAME" names a file of the suite.
    args = [os.path.join(suite, a[1:]) if a.startswith("@") else a for a in case.args]
    argv = [os.path.join(bin_dir, "hlo-test"), *args]
    if case.files and not any(a.startswith("@") for a in case.args):
        argv.append(suite)
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, preexec_fn=limits)
    try:
        if case.signal_after:
            time.sleep(case.signal_after)
            proc.send_signal(case.sig)
        output, _ = proc.communicate(timeout=case.limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        return f"took over {case.limit} s:\n{output}"
    took = time.monotonic() - start
    problems = []
    if proc.returncode != case.status:
        problems.append(f"exit status {proc.returncode}, expected {case.status}")
    for pattern in case.patterns:
        if not re.search(pattern, output):
            problems.append(f"no match for /{pattern}/")
    time.sleep(0.1)
    stray = stray_processes()
    if stray:
        problems.append("processes left running: " + "; ".join(stray))
        for line in stray:
            os.kill(int(line.split()[0]), signal.SIGKILL)
    if os.listdir(tmp):
        problems.append("left in TMPDIR: " + " ".join(os.listdir(tmp)))
    if case.check and not problems:
        message = case.check(suite)
        if message:
            problems.append(message)
    if verbose:
        print(f"{case.name}: {took:.1f} s, exit {proc.returncode}")
    if problems:
        return "; ".join(problems) + "\n" + output[-3000:]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("-k", default="", help="run only cases whose name holds this")
    parser.add_argument("-v", action="store_true")
    args = parser.parse_args()
    bin_dir = os.path.abspath(args.bin)
    with open(os.path.join(bin_dir, "hlo-test"), "rb") as f:
        sanitized = b"__asan_init" in f.read()
    if sanitized:
        print("selftest: hlo-test is built with ASan: no memory limit, no case with a limit"
              " of its own (threads, out-dev-zero, config-dev-zero)")
    scratch = tempfile.mkdtemp(prefix="hlo-test-selftest.")
    passed = failed = 0
    try:
        for case in cases(bin_dir):
            # A case with a memory limit of its own is about that limit,
            # which an ASan build cannot run under.
            if args.k not in case.name or (sanitized and case.memory != MEMORY_LIMIT):
                continue
            problem = run_case(case, bin_dir, scratch, args.v, sanitized)
            if problem:
                failed += 1
                print(f"FAIL {case.name}: {problem}")
            else:
                passed += 1
    finally:
        for root, dirs, files in os.walk(scratch):
            for name in dirs + files:
                try:
                    os.chmod(os.path.join(root, name), 0o755)
                except OSError:
                    pass
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"selftest: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
