"""Runs a test script's independent checks on a thread pool (each starts
its own tool processes), each in a fresh folder of one temporary folder,
printing each failure as it comes. Shared by fusion_agreement.py and
pass_sweep.py."""
import argparse
import concurrent.futures
import os
import tempfile


def run_all(tasks, jobs, verbose=False):
    """tasks: (label, fn, args) triples; fn(*args, folder) returns None or
    a failure message. Returns the failure messages, in the order they
    came."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = {}
        for i, (label, fn, args) in enumerate(tasks):
            folder = os.path.join(tmp, str(i))
            os.makedirs(folder)
            futures[pool.submit(fn, *args, folder)] = label
        for fut in concurrent.futures.as_completed(futures):
            msg = fut.result()
            if msg:
                failures.append(msg)
                print(msg, flush=True)
            elif verbose:
                print(f"ok: {futures[fut]}", flush=True)
    return failures


def parse_options(description, root):
    """The scripts' options: --bin (the tools' folder, default
    root/build/bin), --jobs (runs at once) and -v (print each passing run)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--bin", default=os.path.join(root, "build", "bin"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args()
