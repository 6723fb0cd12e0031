#!/usr/bin/env python3
"""Runs the golden tests in testdata/ with hlo-test (a thin wrapper).

  scripts/golden.py --bin build/bin [--update] [--filter REGEX] [-v] [-j N]

is `build/bin/hlo-test testdata [--update] [--filter REGEX] [-v] [-j N]`; see
README "Writing golden tests" for what the RUN lines, hlo-test.cfg files,
.out/.err files and CHECK lines mean.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--filter", default="")
    ap.add_argument("-j", "--jobs", type=int)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    argv = [os.path.join(os.path.abspath(a.bin), "hlo-test"), os.path.join(ROOT, "testdata")]
    argv += ["--update"] if a.update else []
    argv += ["--filter", a.filter] if a.filter else []
    argv += ["-j", str(a.jobs)] if a.jobs else []
    argv += ["-v"] if a.verbose else []
    sys.stdout.flush()
    os.execv(argv[0], argv)


if __name__ == "__main__":
    sys.exit(main())
