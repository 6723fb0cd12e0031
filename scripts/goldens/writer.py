"""The shared tail of every golden family: writes a generated file or, with
--check, compares it; keeps the counts and problems; and finds the files in
testdata/eval/ that no generator produces or reads.

Paths are relative to testdata/ (`eval/NAME.out`).
"""
import os
import re
import shlex

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(ROOT, "testdata")

# Files under testdata/eval/ that no generator writes, and why. Everything
# else there must be written by a generator, or be a module (or an input
# file it names) that a generator reads.
HAND_WRITTEN = {
    "eval/README.md": "the folder's documentation",
}
_ERROR_MODULE = ("an error module (// RUN-ERROR:): NAME.err is hlo-run's diagnostic in "
                 "design.md's error format, not a value a generator could compute")
for _name in ("collective_deadlock", "collective_group_mismatch", "collective_infeed_missing",
              "lapack_error_attribute", "lapack_error_legacy_sizes", "lapack_error_result_shape",
              "limit_max_memory_inputs", "limit_max_memory_live",
              "lapack_error_gehrd_empty", "lapack_error_svd_vector_rank",
              "sdy_error_axis_repeated", "sdy_error_out_axis_reused",
              "sdy_error_out_subaxes_overlap", "sdy_error_subaxis_overflow"):
    HAND_WRITTEN[f"eval/{_name}.hlo"] = _ERROR_MODULE
    HAND_WRITTEN[f"eval/{_name}.err"] = _ERROR_MODULE
# Degenerate LAPACK calls whose expected values follow from the routines'
# definitions by hand (each module's comment gives the reasoning): empty
# results and info 0, the factors of lapack_gtsv_single's matrices, the
# singular values of a diagonal matrix.
_BY_DEFINITION = "expected values from the routine's definition, worked out in the module's comment"
for _name in ("lapack_empty_results", "lapack_gtsv_no_rhs", "lapack_svd_no_vectors"):
    for _ext in ("hlo", "expect", "out"):
        HAND_WRITTEN[f"eval/{_name}.{_ext}"] = _BY_DEFINITION
# Folders whose files are all checked for a generator.
GENERATED_FOLDERS = ("eval",)


def read_text(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


class Writer:
    """Writes (or with check=True compares) generated files and collects
    what went wrong. A family calls file() for each file it generates,
    claim() for each file it reads, problem() for anything else."""

    def __init__(self, check=False, verbose=False):
        self.check, self.verbose = check, verbose
        self.problems = []
        self.written = self.same = 0
        self.produced, self.claimed = set(), set()

    def problem(self, text):
        self.problems.append(text)

    def claim(self, rel):
        """rel is a generator's input (a hand-written module, an --input file)."""
        self.claimed.add(rel)

    def claim_module(self, rel, text):
        """The module `rel` and every existing file its RUN lines name."""
        self.claim(rel)
        for line in text.splitlines():
            m = re.match(r"\s*//\s*RUN(?:-ERROR)?:\s*(.*)$", line)
            if not m:
                continue
            try:
                words = shlex.split(m.group(1))
            except ValueError:
                continue
            for w in words:
                if os.path.isfile(os.path.join(TESTDATA, w)):
                    self.claim(w)

    def file(self, rel, data):
        """Generated file rel: text (str), binary (bytes), or None (must not
        exist: a file an earlier version generated)."""
        self.produced.add(rel)
        path = os.path.join(TESTDATA, rel)
        if data is None:
            self.produced.discard(rel)
            if not os.path.exists(path):
                return
            if self.check:
                self.problem(f"{rel}: should not exist")
            else:
                os.remove(path)
                self.written += 1
            return
        if isinstance(data, bytes):
            old = open(path, "rb").read() if os.path.exists(path) else None
        else:
            old = read_text(path)
        if old == data:
            self.same += 1
            return
        if self.check:
            self.problem(f"{rel}: stale")
            return
        if isinstance(data, bytes):
            with open(path, "wb") as f:
                f.write(data)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(data)
        self.written += 1
        if self.verbose:
            print(f"wrote {rel}")

    def unclaimed(self):
        """Files in the generated folders that nothing produces, reads or lists."""
        known = self.produced | self.claimed | set(HAND_WRITTEN)
        out = []
        for folder in GENERATED_FOLDERS:
            for dirpath, _, files in os.walk(os.path.join(TESTDATA, folder)):
                for f in files:
                    rel = os.path.relpath(os.path.join(dirpath, f), TESTDATA)
                    if rel not in known:
                        out.append(rel)
        return sorted(out)
