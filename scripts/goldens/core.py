#!/usr/bin/env python3
"""The machinery the golden generators share (scripts/gen-goldens): element
types and the rounding and wrapping of the formats numpy lacks (bf16, the
f8/f4 formats, s2/s4/u2/u4), Lit values, hlo-run's text format (printing),
the module reader (constants and --input files), the eval family's registry
(@golden) and the semantics helpers its generators (eval_*.py) use.

Where the sign of a NaN result is not fixed by IEEE-754 (0/0, inf-inf, log(-1),
NaN operands of arithmetic), the modules canonicalize it in HLO with
`select(compare(r, r, NE), nan, r)`, and the functions here use canon().
"""
import math
import os
import re
import shlex
from decimal import Decimal

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(ROOT, "testdata")
EVAL_DIR = os.path.join(TESTDATA, "eval")

np.seterr(all="ignore")

# ============================================================================
# Element types
# ============================================================================

SINT = {"s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64}
UINT = {"u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64}
# Small float formats: (exponent bits, mantissa bits, exponent bias, kind).
#   ieee: inf and NaN as IEEE-754 (f16, bf16, f8e5m2, f8e4m3, f8e3m4);
#   fn:   no inf, S.1111.111 is NaN (f8e4m3fn);
#   fnuz: no inf, no -0, 0x80 is the only NaN (bias one more than IEEE's);
#   f4:   the MX formats f4e2m1fn, f6e2m3fn and f6e3m2fn, neither inf nor NaN;
#   e8m0: f8e8m0fnu, unsigned powers of two, 0xFF is NaN.
# Overflow follows ml_dtypes (what XLA uses): ieee -> inf, fn/fnuz -> NaN,
# f4 saturates to its largest value.
SMALL = {
    "f16": (5, 10, 15, "ieee"),
    "bf16": (8, 7, 127, "ieee"),
    "f8e5m2": (5, 2, 15, "ieee"),
    "f8e4m3": (4, 3, 7, "ieee"),
    "f8e3m4": (3, 4, 3, "ieee"),
    "f8e4m3fn": (4, 3, 7, "fn"),
    "f8e4m3fnuz": (4, 3, 8, "fnuz"),
    "f8e5m2fnuz": (5, 2, 16, "fnuz"),
    "f8e4m3b11fnuz": (4, 3, 11, "fnuz"),
    "f4e2m1fn": (2, 1, 1, "f4"),
    "f6e2m3fn": (2, 3, 1, "f4"),
    "f6e3m2fn": (3, 2, 3, "f4"),
    "f8e8m0fnu": (8, 0, 127, "e8m0"),
}
COMPLEX = {"c64": "f32", "c128": "f64"}


def is_sint(t): return t in SINT
def is_uint(t): return t in UINT
def is_int(t): return t in SINT or t in UINT
def is_small(t): return t in SMALL
def is_float(t): return t in ("f32", "f64") or t in SMALL
def is_complex(t): return t in COMPLEX


def int_bits(t):
    return SINT.get(t) or UINT[t]


def int_min(t):
    return -(1 << (SINT[t] - 1)) if is_sint(t) else 0


def int_max(t):
    return (1 << (SINT[t] - 1)) - 1 if is_sint(t) else (1 << UINT[t]) - 1


def wrap(t, v):
    """Two's-complement wrap of a Python int into integer type t."""
    n = int_bits(t)
    v &= (1 << n) - 1
    if is_sint(t) and v >= 1 << (n - 1):
        v -= 1 << n
    return v


def ubits(t, v):
    """The bit pattern of integer v of type t, as an unsigned int."""
    return v & ((1 << int_bits(t)) - 1)


def float_bits(t):
    return {"f32": 32, "f64": 64, "f16": 16, "bf16": 16}.get(t, 4 if t == "f4e2m1fn" else 8)


# ---- small float formats ----------------------------------------------------

def small_max(t):
    e, m, bias, kind = SMALL[t]
    if kind == "ieee":
        return (2 - 2.0 ** -m) * 2.0 ** ((2 ** e - 2) - bias)
    if kind == "fn":  # the top exponent keeps all mantissas but all-ones
        return (2 - 2.0 ** (1 - m)) * 2.0 ** ((2 ** e - 1) - bias)
    if kind in ("fnuz", "f4"):
        return (2 - 2.0 ** -m) * 2.0 ** ((2 ** e - 1) - bias)
    return 2.0 ** 127  # e8m0


NAN = float("nan")


def small_nan(t, negative=False):
    """The NaN a format gives (as the double hlo-run decodes it to)."""
    kind = SMALL[t][3]
    if kind in ("fnuz", "e8m0"):
        # 0x80 (fnuz) has the sign bit set; ir/float_formats decodes NaN
        # patterns with their sign bit, so the fnuz NaN prints as -nan.
        return -NAN if kind == "fnuz" else NAN
    if kind == "f4":
        raise ValueError(f"{t} has no NaN")
    return -NAN if negative else NAN


def small_overflow(t, negative):
    kind = SMALL[t][3]
    if kind == "ieee":
        return -math.inf if negative else math.inf
    if kind == "f4":
        return -small_max(t) if negative else small_max(t)
    return small_nan(t, negative)


def round_small(x, t):
    """Rounds the double x to format t, to nearest, ties to even, once."""
    e, m, bias, kind = SMALL[t]
    x = float(x)
    neg = math.copysign(1.0, x) < 0
    if math.isnan(x):
        return small_nan(t, neg)
    if kind == "e8m0":
        if neg or x == 0 or math.isinf(x):
            return NAN
        fe = math.frexp(x)[1] - 1
        r = round(x / 2.0 ** fe) * 2.0 ** fe  # 1.5 * 2^k ties up (to the even 2)
        if r > 2.0 ** 127 or r < 2.0 ** -127:
            raise ValueError("e8m0 value out of range in a golden")
        return r
    if math.isinf(x):
        return small_overflow(t, neg)
    a = abs(x)
    if a == 0:
        return -0.0 if neg and kind != "fnuz" else 0.0
    emin = 1 - bias
    fe = math.frexp(a)[1] - 1
    q = 2.0 ** (max(fe, emin) - m)
    v = round(a / q) * q  # Python's round is to nearest even, exact here
    if v > small_max(t):
        return small_overflow(t, neg)
    if v == 0 and kind == "fnuz":
        return 0.0
    return -v if neg else v


def encode_small(v, t):
    """Bits of a value already in format t."""
    e, m, bias, kind = SMALL[t]
    nbits = 1 + e + m if kind != "e8m0" else 8
    sign = 1 << (nbits - 1)
    if kind == "e8m0":
        if math.isnan(v):
            return 0xFF
        return int(math.log2(v)) + bias
    if math.isnan(v):
        if kind == "fnuz":
            return 0x80
        if kind == "fn":
            return (sign if math.copysign(1, v) < 0 else 0) | ((1 << (e + m)) - 1)
        return (sign if math.copysign(1, v) < 0 else 0) | (((1 << e) - 1) << m) | (1 << (m - 1))
    s = sign if math.copysign(1, v) < 0 else 0
    a = abs(v)
    if math.isinf(a):
        return s | (((1 << e) - 1) << m)
    emin = 1 - bias
    if a < 2.0 ** emin:
        mant = a / 2.0 ** (emin - m)
        assert mant == int(mant)
        return s | int(mant)
    fe = math.frexp(a)[1] - 1
    mant = (a / 2.0 ** fe - 1) * 2 ** m
    assert mant == int(mant), (v, t)
    return s | ((fe + bias) << m) | int(mant)


def decode_small(b, t):
    e, m, bias, kind = SMALL[t]
    nbits = 1 + e + m if kind != "e8m0" else 8
    b &= (1 << nbits) - 1
    if kind == "e8m0":
        return NAN if b == 0xFF else 2.0 ** (b - bias)
    neg = bool(b >> (nbits - 1))
    mag = b & ((1 << (nbits - 1)) - 1)
    exp, frac = mag >> m, mag & ((1 << m) - 1)
    if kind == "fnuz" and b == 0x80:
        return -NAN
    if kind == "fn" and mag == (1 << (e + m)) - 1:
        return -NAN if neg else NAN
    if kind == "ieee" and exp == (1 << e) - 1:
        v = math.inf if frac == 0 else NAN
    elif exp == 0:
        v = frac * 2.0 ** (1 - bias - m)
    else:
        v = (1 + frac / 2 ** m) * 2.0 ** (exp - bias)
    return -v if neg else v


# ---- rounding into f32 / f64 -------------------------------------------------

def f32(x):
    """Rounds a double to the nearest f32 (numpy's cast is IEEE RNE)."""
    return np.float32(x)


def round_int_to_float(n, t):
    """Exact RNE of the Python int n into float type t (no double rounding)."""
    if n == 0:
        return 0.0
    prec = {"f32": 24, "f64": 53}.get(t)
    if prec is None:
        prec = SMALL[t][1] + 1
    a = abs(n)
    shift = a.bit_length() - prec
    if shift > 0:
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    # a now has at most prec significant bits (it may be 2^k after a carry)
    v = float(a) if a.bit_length() <= 1024 else math.inf
    v = -v if n < 0 else v
    if t == "f32":
        return np.float32(v)  # exact, or inf past the f32 range
    if t == "f64":
        return v
    return round_small(v, t)  # exact unless past the range (overflow rule)


# ============================================================================
# Values
# ============================================================================

class Lit:
    """An array of element type t. Storage: ints as Python ints (object array),
    pred as bool, f32/f64 as numpy float32/float64 (bits kept), c64/c128 as
    numpy complex, and the small floats as float64 holding exact values."""

    def __init__(self, t, a):
        self.t = t
        if is_int(t):
            a = np.array(a, dtype=object)
            flat = a.reshape(-1)
            for i in range(flat.size):
                flat[i] = int(flat[i])
        elif t == "pred":
            a = np.array(a, dtype=bool)
        elif t == "f32":
            a = np.array(a, dtype=np.float32)
        elif t == "f64":
            a = np.array(a, dtype=np.float64)
        elif t == "c64":
            a = np.array(a, dtype=np.complex64)
        elif t == "c128":
            a = np.array(a, dtype=np.complex128)
        elif is_small(t):
            a = np.array(a, dtype=np.float64)
        else:
            raise ValueError(f"unknown element type {t}")
        self.a = a

    @property
    def dims(self):
        return self.a.shape

    def __repr__(self):
        return f"Lit({self.t}, {self.a!r})"


def L(t, values):
    """A literal of type t from (nested) Python values, rounded/wrapped to t."""
    a = np.array(values, dtype=object)
    return Lit(t, conv_array(t, a))


def conv_array(t, a):
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        v = a[idx]
        if is_int(t):
            out[idx] = wrap(t, int(v))
        elif t == "pred":
            out[idx] = bool(v)
        elif is_small(t):
            out[idx] = round_small(float(v), t)
        else:
            out[idx] = v
    if t == "f32":
        return np.array([np.float32(x) for x in out.reshape(-1)], dtype=np.float32).reshape(a.shape)
    return out


def elements(lit):
    return list(lit.a.reshape(-1))


# ============================================================================
# Printing: hlo-run's text format (LiteralStyle::kCompact)
# ============================================================================

def _roundtrip_fn(t):
    if t == "f64":
        return lambda d: d
    if t == "f32":
        return lambda d: float(np.float32(d))
    return lambda d: round_small(d, t)


def shortest_text(value, t):
    """ir/literal_text.cc AppendShortestFloat for a finite value: the text with
    the fewest characters that reads back to the value, then the closest to
    it, fixed before scientific. For f32/f64 this is what std::to_chars gives
    (checked against it)."""
    rt = _roundtrip_fn(t)
    best, best_err = None, 0
    p = 1
    # ir/literal_text.cc stops at 17 digits for the small formats (where a
    # longer text never wins); to_chars (f32/f64) may print a long fixed
    # integer with all its digits.
    cap = 17 if is_small(t) else 40
    while p <= cap and (best is None or p <= len(best)):
        s = "%.*e" % (p - 1, value)
        dec = float(s)
        p += 1
        if rt(dec) != value:
            continue
        # A format without infinity: a text past its largest value reads
        # back only by saturating, and a reader that range-checks refuses it
        # (ir/literal_text.cc: 2^127 in f8e8m0fnu is "1.7e+38", not "2e+38").
        if is_small(t) and SMALL[t][3] != "ieee" and abs(dec) > small_max(t):
            continue
        # to_chars measures closeness exactly; literal_text.cc does it in double
        # for the small formats (the same choice there).
        err = abs(dec - value) if is_small(t) else abs(Decimal(s) - Decimal(value))
        mant, exp = s.split("e")
        exp10 = int(exp)
        neg = mant.startswith("-")
        digits = mant.lstrip("-").replace(".", "")
        prec = len(digits)
        fixed = "-" if neg else ""
        if exp10 >= prec - 1:
            fixed += digits + "0" * (exp10 - (prec - 1))
        elif exp10 >= 0:
            fixed += digits[:exp10 + 1] + "." + digits[exp10 + 1:]
        else:
            fixed += "0." + "0" * (-exp10 - 1) + digits
        for text in (fixed, s):
            if best is None or len(text) < len(best) or (len(text) == len(best) and err < best_err):
                best, best_err = text, err
    return best


def float_text(value, t, bits=None):
    """One float element as hlo-run prints it. `bits` (f32/f64) gives NaN
    payloads: nan(0xPAYLOAD) when the mantissa is not the plain quiet NaN."""
    value = float(value)
    if math.isnan(value):
        sign = "-" if math.copysign(1.0, value) < 0 else ""
        payload = 0
        if bits is not None:
            m = {"f32": 23, "f64": 52, "f16": 10, "bf16": 7}[t]
            mant = bits & ((1 << m) - 1)
            payload = 0 if mant == 1 << (m - 1) else mant
        return sign + "nan" + (f"(0x{payload:x})" if payload else "")
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return shortest_text(value, t)


def element_text(lit, x):
    t = lit.t
    if t == "pred":
        return "true" if x else "false"
    if is_int(t):
        return str(int(x))
    if is_complex(t):
        part = COMPLEX[t]
        return f"({float_text(x.real, part)}, {float_text(x.imag, part)})"
    if t == "f32":
        return float_text(x, t, int(np.array(x, dtype=np.float32).view(np.uint32)))
    if t == "f64":
        return float_text(x, t, int(np.array(x, dtype=np.float64).view(np.uint64)))
    return float_text(x, t)


def shape_text(lit):
    return f"{lit.t}[{','.join(str(d) for d in lit.dims)}]"


def value_text(lit):
    a = lit.a
    if a.ndim == 0:
        return element_text(lit, a[()])

    def rec(sub):
        if sub.ndim == 1:
            return "{" + ", ".join(element_text(lit, x) for x in sub) + "}"
        return "{" + ", ".join(rec(s) for s in sub) + "}"
    return rec(a)


def result_shape(res):
    """The result's shape text without layouts: `(f32[2], s32[])`."""
    if isinstance(res, (list, tuple)):
        return "(" + ", ".join(result_shape(e) for e in res) + ")"
    return shape_text(res)


def declared_root_shape(text):
    """The ROOT instruction's shape as written in the module, layouts dropped."""
    for line in text.splitlines():
        m = re.match(r"\s*ROOT\s+%?[\w.\-]+\s*=\s*(.*?)\s+[a-z\-]+\(", line)
        if m and not line.lstrip().startswith("//"):
            if "ENTRY" in text[:text.find(line)]:
                # hlo-run holds a bounded dimension `<=N` at its bound N.
                return re.sub(r"\{[^}]*\}|\s|<=", "", m.group(1))
    return None


def result_text(res):
    """The whole result: `f32[2] {1, 2}` or `(f32[] 1, (s32[] 2))`."""
    if isinstance(res, (list, tuple)):
        parts = []
        for e in res:
            if isinstance(e, (list, tuple)):
                parts.append(result_text(e))
            else:
                parts.append(shape_text(e) + " " + value_text(e))
        return "(" + ", ".join(parts) + ")"
    return shape_text(res) + " " + value_text(res)


# ============================================================================
# Reading the module's constants and input files
# ============================================================================

_TOKEN = re.compile(r"\s*(-?nan\(0x[0-9a-fA-F]+\)|[-+]?nan|[-+]?inf|true|false|"
                    r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[{}(),])")


def tokenize(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot read literal at: {text[pos:pos + 30]!r}")
        out.append(m.group(1))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def scalar_value(t, tok):
    if t == "pred":
        return tok in ("true", "1")
    if is_int(t):
        v = int(tok)
        assert int_min(t) <= v <= int_max(t), f"{tok} does not fit {t}"
        return v
    neg = tok.startswith("-")
    body = tok.lstrip("+-")
    if t in ("f32", "f64"):
        m, nb = (23, 32) if t == "f32" else (52, 64)
        if body.startswith("nan"):
            payload = int(body[4:-1], 16) if "(" in body else 1 << (m - 1)
            bits = (((1 << (nb - 1 - m)) - 1) << m) | payload | ((1 << (nb - 1)) if neg else 0)
            dt = (np.uint32, np.float32) if t == "f32" else (np.uint64, np.float64)
            return np.array(bits, dtype=dt[0]).view(dt[1])[()]
        if t == "f32":
            return np.float32(tok.replace("inf", "inf"))
        return float(tok)
    if body.startswith("nan"):
        return small_nan(t, neg) if t != "f4e2m1fn" else None
    return round_small(float(tok), t)


def parse_literal(t, dims, text):
    toks = tokenize(text)
    vals = []
    i = 0
    comp = is_complex(t)
    while i < len(toks):
        tok = toks[i]
        if tok in "{},":
            i += 1
            continue
        if comp and tok == "(":
            re_, im = toks[i + 1], toks[i + 3]
            assert toks[i + 2] == "," and toks[i + 4] == ")"
            part = COMPLEX[t]
            vals.append(complex(float(scalar_value(part, re_)), float(scalar_value(part, im))))
            i += 5
            continue
        vals.append(scalar_value(t, tok))
        i += 1
    n = int(np.prod(dims)) if dims else 1
    if len(vals) != n:
        raise ValueError(f"literal of {t}{list(dims)} has {len(vals)} elements: {text[:80]}")
    if is_int(t) or t == "pred":
        a = np.array(vals, dtype=object).reshape(dims)
    elif t == "f32":
        a = np.array(vals, dtype=np.float32).reshape(dims)
    elif t == "f64":
        a = np.array(vals, dtype=np.float64).reshape(dims)
    elif comp:
        a = np.array(vals, dtype=np.complex64 if t == "c64" else np.complex128).reshape(dims)
    else:
        a = np.array(vals, dtype=np.float64).reshape(dims)
    return Lit(t, a)


_CONST = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*([a-z0-9]+)\[([0-9,]*)\](?:\{[^}]*\})?"
                    r"\s+constant\((.*)\)\s*$")
_SHAPE = re.compile(r"^\s*([a-z0-9]+)\[([0-9,]*)\](?:\{[^}]*\})?\s*(.*)$", re.S)


class Consts(dict):
    """The module's constants by instruction name, and its inputs."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)


def read_module(path):
    """The module text and its constants: ENTRY constants by name, those of
    other computations as COMPUTATION/NAME."""
    text = open(path, encoding="utf-8").read()
    consts = Consts()
    comp = None
    for line in text.splitlines():
        h = re.match(r"^\s*(ENTRY\s+)?%?([\w.\-]+)\s*(\(.*\)\s*->\s*.*)?\{\s*$", line)
        if h and not line.lstrip().startswith("HloModule"):
            comp = None if h.group(1) else h.group(2)
            continue
        m = _CONST.match(line)
        if m:
            name, t, dims, lit = m.groups()
            dims = tuple(int(d) for d in dims.split(",")) if dims else ()
            key = name if comp is None else f"{comp}/{name}"
            if key in consts:
                raise ValueError(f"{path}: constant {key} defined twice")
            consts[key] = parse_literal(t, dims, lit)
    return text, consts


def run_args(text):
    for line in text.splitlines()[:10]:
        m = re.match(r"\s*//\s*RUN:\s*(.*)$", line)
        if m:
            return shlex.split(m.group(1))
    return None


def entry_parameter_shapes(text):
    """{index: (type, dims)} of the ENTRY computation's parameters."""
    entry = text[text.find("ENTRY"):]
    shapes = {}
    for m in re.finditer(r"=\s*([a-z0-9]+)\[([0-9,]*)\](?:\{[^}]*\})?\s+parameter\((\d+)\)", entry):
        t, dims, i = m.groups()
        shapes[int(i)] = (t, tuple(int(d) for d in dims.split(",")) if dims else ())
    return shapes


def read_inputs(args, text):
    """The --input files of a RUN line, as Lits: .npy, or literal text with a
    shape (`f32[2] {1, 2}`) or without one (the parameter's shape)."""
    shapes = entry_parameter_shapes(text)
    inputs = []
    for i, a in enumerate(args):
        if a != "--input":
            continue
        path = os.path.join(TESTDATA, args[i + 1])
        # Multi-device runs may give the inputs once per device.
        t, dims = shapes[len(inputs) % len(shapes)]
        if path.endswith(".npy"):
            arr = np.load(path)
            inputs.append(Lit(t, arr if not is_int(t) else arr.astype(object)))
            continue
        body = open(path).read().strip()
        m = _SHAPE.match(body)
        if m and (m.group(1) in SINT or m.group(1) in UINT or m.group(1) in SMALL or
                  m.group(1) in ("pred", "f32", "f64", "c64", "c128")):
            t, d, body = m.groups()
            dims = tuple(int(x) for x in d.split(",")) if d else ()
        inputs.append(parse_literal(t, dims, body))
    return inputs


# ============================================================================
# The registry
# ============================================================================

TESTS = {}
INPUT_FILES = {}  # name -> function writing the module's generated input files


def golden(name, tol=None):
    """Registers the expected-value function of testdata/eval/NAME.hlo.
    tol=(rtol, atol): a tolerance module (NAME.expect + an empty NAME.out)."""
    def deco(fn):
        assert name not in TESTS, name
        TESTS[name] = (fn, tol)
        return fn
    return deco


# ============================================================================
# Semantics helpers (element by element; the arrays are small)
# ============================================================================

def ew(out_t, fn, *lits):
    """Elementwise: out[i] = fn(x0[i], x1[i], ...); rank-0 operands broadcast
    (select's pred and clamp's bounds may be scalars)."""
    dims = max((l.dims for l in lits), key=len)
    out = np.empty(dims, dtype=object)
    for idx in np.ndindex(dims):
        args = [l.a[()] if l.a.ndim == 0 else l.a[idx] for l in lits]
        out[idx] = fn(*args)
    if out_t == "f32":
        return Lit(out_t, np.array([np.float32(v) for v in out.reshape(-1)],
                                   dtype=np.float32).reshape(dims))
    if out_t == "f64":
        return Lit(out_t, np.array([float(v) for v in out.reshape(-1)],
                                   dtype=np.float64).reshape(dims))
    return Lit(out_t, out)


def isnan(x):
    return isinstance(x, (float, np.floating)) and math.isnan(float(x))


def canon(lit):
    """NaN -> the positive quiet NaN (the modules' select(r != r, nan, r))."""
    if is_small(lit.t):
        return ew(lit.t, lambda x: small_nan(lit.t) if math.isnan(x) else x, lit)
    return ew(lit.t, lambda x: (np.float32(NAN) if lit.t == "f32" else NAN) if isnan(x) else x, lit)


def farith(t, fn, *xs):
    """A float op as XLA evaluates it: f32/f64 natively (IEEE-exact for
    + - * / sqrt fmod), the narrower floats in f32 and rounded back once."""
    if t == "f32":
        return np.float32(fn(*[np.float32(x) for x in xs]))
    if t == "f64":
        return float(fn(*[np.float64(x) for x in xs]))
    return round_small(float(np.float32(fn(*[np.float32(x) for x in xs]))), t)


def ftrans(t, fn, *xs):
    """A transcendental: fn evaluated in double (math/numpy), rounded to t
    (the narrow floats via f32, as XLA computes them in f32)."""
    r = float(fn(*[float(x) for x in xs]))
    if t == "f32":
        return np.float32(r)
    if t == "f64":
        return r
    return round_small(float(np.float32(r)), t)


def fl(op):
    """Elementwise float op over Lits of one type (farith)."""
    return lambda *lits: ew(lits[0].t, lambda *xs: farith(lits[0].t, op, *xs), *lits)


def tr(fn):
    return lambda *lits: ew(lits[0].t, lambda *xs: ftrans(lits[0].t, fn, *xs), *lits)


# ---- integer semantics (XLA) ----------------------------------------------------

def idiv(t, a, b):
    """XLA integer division: truncates; x/0 = -1 (all bits set); INT_MIN/-1 =
    INT_MIN (elemental_ir_emitter / HloEvaluator; the spec leaves it to the
    implementation)."""
    if b == 0:
        return wrap(t, -1)
    if is_sint(t) and a == int_min(t) and b == -1:
        return a
    q = abs(a) // abs(b)
    return wrap(t, q if (a < 0) == (b < 0) else -q)


def irem(t, a, b):
    """XLA integer remainder: sign of the dividend; x%0 = x; INT_MIN%-1 = 0."""
    if b == 0:
        return a
    if is_sint(t) and a == int_min(t) and b == -1:
        return 0
    r = abs(a) % abs(b)
    return wrap(t, -r if a < 0 else r)


def ishl(t, a, b):
    """Shift amounts are read as unsigned; >= the bit width gives 0."""
    n = int_bits(t)
    return 0 if ubits(t, b) >= n else wrap(t, a << ubits(t, b))


def ishr_logical(t, a, b):
    n = int_bits(t)
    return 0 if ubits(t, b) >= n else wrap(t, ubits(t, a) >> ubits(t, b))


def ishr_arith(t, a, b):
    """Arithmetic shift of the bit pattern (also for unsigned types); past the
    width gives all sign bits."""
    n = int_bits(t)
    s = a if is_sint(t) else wrap("s%d" % n, a)
    if ubits(t, b) >= n:
        return wrap(t, -1 if s < 0 else 0)
    return wrap(t, s >> ubits(t, b))


def ipow(t, a, b):
    """XLA integer power: exponentiation by squaring (wrapping); a negative
    exponent gives 1 for base 1 and 0 otherwise (also for base -1); x^0 = 1."""
    if b < 0:
        return 1 if a == 1 else 0
    return wrap(t, pow(a, b, 1 << int_bits(t)))


def imulhi(t, a, b):
    return wrap(t, (a * b) >> int_bits(t))


def popcnt(t, a):
    return bin(ubits(t, a)).count("1")


def clz(t, a):
    n = int_bits(t)
    return n - ubits(t, a).bit_length()


# ---- float semantics -----------------------------------------------------------

def fmax(x, y):
    """IEEE-754 maximum (the spec): NaN propagates, +0 > -0."""
    if isnan(x) or isnan(y):
        return NAN
    if x == y == 0:
        return x if math.copysign(1, float(x)) > 0 else y
    return x if x > y else y


def fmin(x, y):
    if isnan(x) or isnan(y):
        return NAN
    if x == y == 0:
        return x if math.copysign(1, float(x)) < 0 else y
    return x if x < y else y


def round_afz(x):
    """roundToIntegralTiesToAway, exact (x - trunc(x) is exact)."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return x
    r = math.trunc(x)
    if abs(x - r) >= 0.5:
        r += math.copysign(1, x)
    return math.copysign(float(r), x) if r == 0 else float(r)


def round_even(x):
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return x
    r = float(round(x))
    return math.copysign(r, x) if r == 0 else r


def fsign(x):
    x = float(x)
    if math.isnan(x):
        return NAN
    if x == 0:
        return x
    return math.copysign(1.0, x)


def f2i(t, x):
    """float -> integer convert: truncate toward zero, saturate, NaN -> 0."""
    x = float(x)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return int_max(t) if x > 0 else int_min(t)
    v = math.trunc(x)
    return max(int_min(t), min(int_max(t), v))


def to_float(t, x):
    """Rounds a double/f32 value to float type t once."""
    if t == "f32":
        return np.float32(float(x))
    if t == "f64":
        return float(x)
    return round_small(float(x), t)


def total_key(t, x):
    """The TOTALORDER key: the sign-magnitude bits as an ordered integer."""
    if t == "f32":
        b = int(np.array(x, dtype=np.float32).view(np.int32))
        n = 32
    elif t == "f64":
        b = int(np.array(x, dtype=np.float64).view(np.int64))
        n = 64
    else:
        raw = encode_small(float(x), t)
        n = float_bits(t)
        b = raw - (1 << n) if raw >> (n - 1) else raw
    return b if b >= 0 else -(b & ((1 << (n - 1)) - 1)) - 1  # -0 -> -1, below +0


CMP = {
    "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b,
    "LT": lambda a, b: a < b, "LE": lambda a, b: a <= b,
    "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b,
}


def compare(direction, x, y, kind="default"):
    """compare of two Lits; kind TOTALORDER compares total_key."""
    t = x.t
    if kind == "TOTALORDER":
        return ew("pred", lambda a, b: CMP[direction](total_key(t, a), total_key(t, b)), x, y)
    if t == "pred":
        return ew("pred", lambda a, b: CMP[direction](int(a), int(b)), x, y)
    if is_float(t):
        return ew("pred", lambda a, b: CMP[direction](float(a), float(b)), x, y)
    return ew("pred", lambda a, b: CMP[direction](a, b), x, y)


def cvt(out_t, lit):
    """convert (XLA / StableHLO): ints wrap; int -> float and float -> float
    round once to nearest even; float -> int truncates and saturates, NaN is 0;
    -> pred is != 0; pred -> 0/1; complex -> real part; real -> complex."""
    t = lit.t

    def one(x):
        if t == "pred":
            x = int(x)
            src = "s32"
        else:
            src = t
        if is_complex(src):
            if is_complex(out_t):
                part = COMPLEX[out_t]
                return complex(float(to_float(part, x.real)), float(to_float(part, x.imag)))
            x = x.real
            src = COMPLEX[t]
        if out_t == "pred":
            return bool(x != 0) or isnan(x)
        if is_complex(out_t):
            part = COMPLEX[out_t]
            v = round_int_to_float(x, part) if is_int(src) else to_float(part, x)
            return complex(float(v), 0.0)
        if is_int(out_t):
            return wrap(out_t, x) if is_int(src) else f2i(out_t, x)
        if is_int(src):
            return round_int_to_float(x, out_t)
        return to_float(out_t, x)
    return ew(out_t, one, lit)


def bits_of(lit):
    """The element bit patterns of a Lit (unsigned ints)."""
    t = lit.t
    if is_int(t):
        return [ubits(t, v) for v in elements(lit)], int_bits(t)
    if t == "pred":
        return [int(v) for v in elements(lit)], 8
    if t == "f32":
        return [int(v) for v in lit.a.reshape(-1).view(np.uint32)], 32
    if t == "f64":
        return [int(v) for v in lit.a.reshape(-1).view(np.uint64)], 64
    if t == "f16":
        return [int(np.array(v, dtype=np.float16).view(np.uint16)) if not math.isnan(v)
                else encode_small(v, t) for v in elements(lit)], 16
    if t == "bf16":
        out = []
        for v in elements(lit):
            if math.isnan(v):
                out.append(encode_small(v, t))
            else:
                out.append(int(np.array(v, dtype=np.float32).view(np.uint32)) >> 16)
        return out, 16
    return [encode_small(v, t) for v in elements(lit)], float_bits(t)


def from_bits(t, bits):
    if is_int(t):
        return [wrap(t, b) for b in bits]
    if t == "f32":
        return list(np.array(bits, dtype=np.uint32).view(np.float32))
    if t == "f64":
        return list(np.array(bits, dtype=np.uint64).view(np.float64))
    return [decode_small(b, t) for b in bits]


def bitcast_convert(out_t, out_dims, lit):
    """bitcast-convert: the same bytes (little-endian, element [.., 0] of a
    wider->narrower split is the low part)."""
    bits, n = bits_of(lit)
    m = int_bits(out_t) if is_int(out_t) else float_bits(out_t)
    out = []
    if n == m:
        out = bits
    elif n > m:
        for b in bits:
            for k in range(n // m):
                out.append((b >> (k * m)) & ((1 << m) - 1))
    else:
        r = m // n
        for i in range(0, len(bits), r):
            out.append(sum(bits[i + k] << (k * n) for k in range(r)))
    vals = from_bits(out_t, out)
    if out_t == "f32":
        return Lit(out_t, np.array(vals, dtype=np.float32).reshape(out_dims))
    if out_t == "f64":
        return Lit(out_t, np.array(vals, dtype=np.float64).reshape(out_dims))
    return Lit(out_t, np.array(vals, dtype=object).reshape(out_dims))


def reduce_precision(lit, exponent_bits, mantissa_bits):
    """XLA's reduce-precision on the bit pattern: round the mantissa to nearest
    even, then values whose exponent is above the reduced range become inf and
    those below its smallest normal become (signed) zero; NaN stays NaN."""
    t = lit.t
    if t == "f32":
        src_e, src_m, ut = 8, 23, np.uint32
    elif t == "f64":
        src_e, src_m, ut = 11, 52, np.uint64
    else:
        raise ValueError(t)
    nbits = 1 + src_e + src_m
    out = []
    for v in lit.a.reshape(-1):
        x = int(np.array(v).view(ut))
        if math.isnan(float(v)):
            out.append(x)
            continue
        if mantissa_bits < src_m:
            last = 1 << (src_m - mantissa_bits)
            bias = (last >> 1) - 1 + ((x & last) >> (src_m - mantissa_bits))
            x = (x + bias) & ~(last - 1) & ((1 << nbits) - 1)
        if exponent_bits < src_e:
            ebias = (1 << (src_e - 1)) - 1
            rbias = (1 << (exponent_bits - 1)) - 1
            exp_mask = ((1 << src_e) - 1) << src_m
            xe = x & exp_mask
            sign = x & (1 << (nbits - 1))
            if xe > (ebias + rbias) << src_m:
                x = sign | exp_mask
            elif xe <= (ebias - rbias) << src_m:
                x = sign
        out.append(x)
    return Lit(t, np.array(out, dtype=ut).view(np.float32 if t == "f32" else np.float64)
               .reshape(lit.dims))


def stochastic_convert(out_t, lit, rnd):
    """XLA's stochastic rounding to an integer type: inf saturates, NaN is 0,
    values at or past the target's limits saturate; otherwise |x| is truncated
    and rounded up when random < fraction * 2^bits(random)."""
    t = lit.t
    rbits = int_bits(rnd.t)

    def lim(v):  # the limit as the operand type rounds it (XLA compares in that type)
        return float(to_float(t, v)) if is_float(t) else v

    def one(x, r):
        x = float(x)
        if math.isinf(x):
            return int_min(out_t) if x < 0 else int_max(out_t)
        if math.isnan(x):
            return 0
        if x >= lim(int_max(out_t)):
            return int_max(out_t)
        if x <= lim(int_min(out_t)):
            return int_min(out_t)
        neg = math.copysign(1, x) < 0
        a = abs(x)
        tr_ = math.trunc(a)
        frac = a - tr_
        if frac != 0 and r < int(math.ldexp(frac, rbits)):
            tr_ += 1
        return wrap(out_t, -tr_ if neg else tr_)
    return ew(out_t, one, lit, rnd)


# ---- data movement ---------------------------------------------------------------

def pad(lit, value, config):
    """config: [(low, high, interior)] per dimension. Interior padding first;
    then output index o of a dimension reads the interior-padded index
    o - low, so negative low/high crop."""
    a = lit.a
    pv = value.a[()]
    for d, (lo, hi, interior) in enumerate(config):
        if interior and a.shape[d] > 0:
            n = a.shape[d]
            shape = list(a.shape)
            shape[d] = n + (n - 1) * interior
            b = np.empty(shape, dtype=a.dtype)
            b[...] = pv
            sl = [slice(None)] * a.ndim
            sl[d] = slice(0, None, interior + 1)
            b[tuple(sl)] = a
            a = b
    out_shape = [n + lo + hi for n, (lo, hi, _) in zip(a.shape, config)]
    out = np.empty(out_shape, dtype=a.dtype)
    out[...] = pv
    src, dst = [], []
    for n, m, (lo, hi, _) in zip(a.shape, out_shape, config):
        k0, k1 = max(0, -lo), min(n, m - lo)
        if k1 <= k0:
            return Lit(lit.t, out)
        src.append(slice(k0, k1))
        dst.append(slice(k0 + lo, k1 + lo))
    out[tuple(dst)] = a[tuple(src)]
    return Lit(lit.t, out)


def dynamic_slice(lit, starts, sizes):
    """Start indices are clamped into [0, dim - size]."""
    sl = []
    for d, (s, n) in enumerate(zip(starts, sizes)):
        s = max(0, min(int(s), lit.dims[d] - n))
        sl.append(slice(s, s + n))
    return Lit(lit.t, lit.a[tuple(sl)].copy())


def dynamic_update_slice(lit, upd, starts):
    a = lit.a.copy()
    sl = []
    for d, s in enumerate(starts):
        s = max(0, min(int(s), lit.dims[d] - upd.dims[d]))
        sl.append(slice(s, s + upd.dims[d]))
    a[tuple(sl)] = upd.a
    return Lit(lit.t, a)


def physical(lit, minor_to_major):
    """The elements in memory order of a layout {minor_to_major}."""
    major_to_minor = list(reversed(minor_to_major))
    return np.transpose(lit.a, major_to_minor).reshape(-1)


def from_physical(t, flat, dims, minor_to_major):
    major_to_minor = list(reversed(minor_to_major))
    shape = [dims[d] for d in major_to_minor]
    a = np.array(flat).reshape(shape)
    inv = np.argsort(major_to_minor)
    return Lit(t, np.transpose(a, inv).copy())


# ---- reductions --------------------------------------------------------------------

def reduce_(lits, inits, dims, fn):
    """reduce (variadic): fn(accs, xs) -> accs; elements in row-major order,
    starting from the init values."""
    single = isinstance(lits, Lit)
    if single:
        lits, inits = [lits], [inits]
    shape = lits[0].dims
    keep = [d for d in range(len(shape)) if d not in dims]
    out_dims = tuple(shape[d] for d in keep)
    outs = [np.empty(out_dims, dtype=object) for _ in lits]
    for oidx in np.ndindex(out_dims):
        accs = [i.a[()] for i in inits]
        for ridx in np.ndindex(tuple(sorted_dims(dims, shape))):
            full = [0] * len(shape)
            for k, d in enumerate(keep):
                full[d] = oidx[k]
            for k, d in enumerate(sorted(dims)):
                full[d] = ridx[k]
            xs = [l.a[tuple(full)] for l in lits]
            accs = list(fn(accs, xs)) if not single else [fn(accs[0], xs[0])]
        for o, acc in zip(outs, accs):
            o[oidx] = acc
    res = [typed(l.t, o) for l, o in zip(lits, outs)]
    return res[0] if single else res


def sorted_dims(dims, shape):
    return [shape[d] for d in sorted(dims)]


def typed(t, obj_array):
    if t == "f32":
        return Lit(t, np.array([np.float32(v) for v in obj_array.reshape(-1)],
                               dtype=np.float32).reshape(obj_array.shape))
    return Lit(t, obj_array)


def reduce_window(lits, inits, size, stride=None, pad_=None, lhs_dilate=None, rhs_dilate=None,
                  fn=None):
    """reduce-window (spec): the operand is padded with the init values, with
    base_dilations - 1 init values between elements; each window of that
    array is reduced, in row-major window order, starting from the init
    values - so padding and holes contribute init values too."""
    single = isinstance(lits, Lit)
    if single:
        lits, inits = [lits], [inits]
    shape = lits[0].dims
    r = len(shape)
    stride = stride or [1] * r
    pad_ = pad_ or [(0, 0)] * r
    lhs_dilate = lhs_dilate or [1] * r
    rhs_dilate = rhs_dilate or [1] * r
    dilated = [(n - 1) * b + 1 if n > 0 else 0 for n, b in zip(shape, lhs_dilate)]
    padded = [dl + lo + hi for dl, (lo, hi) in zip(dilated, pad_)]
    eff = [(w - 1) * d + 1 for w, d in zip(size, rhs_dilate)]
    out_dims = tuple(max(0, (p - e) // s + 1) if p >= e else 0
                     for p, e, s in zip(padded, eff, stride))
    outs = [np.empty(out_dims, dtype=object) for _ in lits]
    for oidx in np.ndindex(out_dims):
        accs = [i.a[()] for i in inits]
        for widx in np.ndindex(tuple(size)):
            pos = []
            ok = True
            for d in range(r):
                p = oidx[d] * stride[d] + widx[d] * rhs_dilate[d] - pad_[d][0]
                if p < 0 or p >= dilated[d] or p % lhs_dilate[d]:
                    ok = False
                    break
                pos.append(p // lhs_dilate[d])
            xs = [l.a[tuple(pos)] for l in lits] if ok else [i.a[()] for i in inits]
            accs = list(fn(accs, xs)) if not single else [fn(accs[0], xs[0])]
        for o, acc in zip(outs, accs):
            o[oidx] = acc
    res = [typed(l.t, o) for l, o in zip(lits, outs)]
    return res[0] if single else res


def select_and_scatter(operand, source, init, size, stride, pad_, select, scatter):
    """XLA SelectAndScatter: per window (padding never selected) the first
    element e in row-major order, replaced by a later x when !select(e, x);
    the source value is scattered (combined with `scatter`) into a copy of
    the output filled with init."""
    shape = operand.dims
    r = len(shape)
    out = np.empty(shape, dtype=object)
    out[...] = init.a[()]
    for sidx in np.ndindex(source.dims):
        best = None
        for widx in np.ndindex(tuple(size)):
            pos = []
            ok = True
            for d in range(r):
                p = sidx[d] * stride[d] + widx[d] - pad_[d][0]
                if p < 0 or p >= shape[d]:
                    ok = False
                    break
                pos.append(p)
            if not ok:
                continue
            pos = tuple(pos)
            if best is None or not select(operand.a[best], operand.a[pos]):
                best = pos
        if best is not None:
            out[best] = scatter(out[best], source.a[sidx])
    return typed(operand.t, out)


def tup(*xs):
    return list(xs)


def read_text(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()
