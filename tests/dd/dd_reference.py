#!/usr/bin/env python3
"""Double-double accuracy suite of eigsolve, checked against mpmath at ~200 bits.

usage: dd_reference.py --eigsolve EXE --matrices DIR [--regenerate] [--skip-slow]

Checks, one line each (ok/FAIL and the numbers); the exit status is 1 when any check fails:
  real matrices   every file of MATRICES is parsed HERE from its exact decimal strings
                  (mpmath.mpf(string), never through float), the full symmetric matrix is built
                  and mpmath.eigsy at 200 bits gives the reference eigenvalues; `eigsolve -p dd`
                  must match them within C_DD * n * 2^-104 * ||A||_2, and the dd eigenvalues
                  rounded to double must match `eigsolve -p d` within C_D * n * 2^-53 * ||A||_2.
  tridiagonal     laplace1d (2 - 2cos(k pi/(n+1)) in mpmath), kac (integers; the off-diagonals
                  of `generate kac` are rounded to double, so its file is checked against
                  mpmath.eigsy of the file and, at double accuracy, against the integers; a Kac
                  file written here with 40-digit off-diagonals is checked against the integers
                  at dd accuracy) and wilkinson W+ (mpmath.eigsy of the file).
  hadamard        `generate hadamard` n = 64, 128, spectra clustered, linear, wide: exact.
  eigenvectors    can_24, bcsstk01: ||A Z - Z L||_1 / (n ||A||_1) and ||I - Z^T Z||_1 / n,
                  computed in mpmath, must be <= C_DD * n * 2^-104.
  bitwise         two runs, and --threads 1, 2, 3, give byte-identical dd outputs.

Reference cache: mpmath.eigsy takes seconds per matrix (about 10 s for bcsstk03), so the
reference eigenvalues of the shared matrices are stored in reference/NAME.txt (40 significant
digits, with the SHA-256 of the matrix file they were computed from). They were made by
    /usr/bin/python3 tests/dd/dd_reference.py --eigsolve build/bin/eigsolve \
        --matrices tests/data/matrices --regenerate
A missing or stale cache entry (different SHA-256) is recomputed on the fly, with a note.
"""
import argparse
import hashlib
import math
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

mp.prec = 200

# Small real symmetric matrices of tests/data/matrices (references cached in reference/).
MATRICES = ["cholmod_fullrsa_array2.mtx", "full_symmetric_array4.mtx",
            "ldbc_undirected_example.mtx", "LFAT5.mtx", "Trefethen_20b.mtx", "can_24.mtx",
            "karate.mtx", "GD97_b.mtx", "bcsstk01.mtx", "bcsstm01.mtx", "bcsstk03.mtx"]
VECTOR_MATRICES = ["can_24.mtx", "bcsstk01.mtx"]
BITWISE_MATRIX = "bcsstk01.mtx"

C_DD = 50  # |err| <= C_DD * n * U_DD * ||A||
C_D = 50   # |round(dd) - d| <= C_D * n * U_D * ||A||
U_DD = mpf(2) ** -104
U_D = mpf(2) ** -53
REF_DIGITS = 40
HERE = os.path.dirname(os.path.abspath(__file__))
REF_DIR = os.path.join(HERE, "reference")
SUBPROCESS_TIMEOUT = 300

failures = []
worst = {}  # name -> worst dd ratio err / (n u ||A||)


def report(ok, what, detail):
    print(f"{'ok  ' if ok else 'FAIL'} {what:48s} {detail}", flush=True)
    if not ok:
        failures.append(what)
    return ok


def fmt(x):
    return mpmath.nstr(x, 3, min_fixed=0, max_fixed=0) if x != 0 else "0"


# ---------------------------------------------------------------------------------------------
# Matrix Market, parsed from the exact decimal strings
# ---------------------------------------------------------------------------------------------
def to_mpf(tok):
    return mpf(tok.replace("D", "e").replace("d", "e"))


def read_mtx(path):
    """Returns (n, A) with A a list of lists of mpf: the full symmetric matrix of a real
    Matrix Market file (coordinate or array; real, integer or pattern; symmetric or general)."""
    with open(path, "r", newline=None) as f:
        lines = f.read().splitlines()
    banner = lines[0].split()
    if len(banner) != 5 or banner[0] != "%%MatrixMarket" or banner[1].lower() != "matrix":
        raise ValueError(f"{path}: bad banner {lines[0]!r}")
    fmt_, field, sym = (t.lower() for t in banner[2:])
    if field not in ("real", "integer", "pattern") or sym not in ("symmetric", "general"):
        raise ValueError(f"{path}: unsupported {field} {sym}")
    data = [ln.split() for ln in lines[1:] if ln.strip() and not ln.lstrip().startswith("%")]
    size, body = data[0], data[1:]
    n = int(size[0])
    if int(size[1]) != n:
        raise ValueError(f"{path}: not square")
    A = [[mpf(0)] * n for _ in range(n)]
    seen = set()
    if fmt_ == "coordinate":
        nnz = int(size[2])
        if len(body) != nnz:
            raise ValueError(f"{path}: {len(body)} entries, header says {nnz}")
        for t in body:
            i, j = int(t[0]) - 1, int(t[1]) - 1
            v = mpf(1) if field == "pattern" else to_mpf(t[2])
            key = (max(i, j), min(i, j)) if sym == "symmetric" else (i, j)
            if key in seen:
                raise ValueError(f"{path}: duplicate entry {i + 1} {j + 1}")
            seen.add(key)
            A[i][j] = v
            if sym == "symmetric":
                A[j][i] = v
    else:
        vals = [to_mpf(t[0]) for t in body]
        k = 0
        for j in range(n):
            for i in range(j if sym == "symmetric" else 0, n):
                A[i][j] = vals[k]
                if sym == "symmetric":
                    A[j][i] = vals[k]
                k += 1
        if k != len(vals):
            raise ValueError(f"{path}: {len(vals)} values, expected {k}")
    for i in range(n):
        for j in range(i):
            if A[i][j] != A[j][i]:
                raise ValueError(f"{path}: not symmetric at ({i + 1}, {j + 1})")
    return n, A


def read_dense_mtx(path):
    """A Matrix Market `array real general` file (our eigenvector output): list of columns."""
    with open(path) as f:
        lines = [ln for ln in f.read().splitlines() if ln.strip() and not ln.startswith("%")]
    rows, cols = (int(t) for t in lines[0].split()[:2])
    vals = [mpf(ln.split()[0]) for ln in lines[1:]]
    if len(vals) != rows * cols:
        raise ValueError(f"{path}: {len(vals)} values, expected {rows * cols}")
    return [[vals[j * rows + i] for i in range(rows)] for j in range(cols)]


def eigvals_mp(A):
    n = len(A)
    M = mp.matrix(n, n)
    for i in range(n):
        for j in range(n):
            M[i, j] = A[i][j]
    return sorted(mp.eigsy(M, eigvals_only=True))


# ---------------------------------------------------------------------------------------------
# Reference cache
# ---------------------------------------------------------------------------------------------
def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def cached_reference(path, A, regenerate):
    name = os.path.basename(path)
    cache = os.path.join(REF_DIR, os.path.splitext(name)[0] + ".txt")
    digest = sha256(path)
    if not regenerate and os.path.exists(cache):
        with open(cache) as f:
            lines = f.read().splitlines()
        meta = dict(ln[2:].split(" ", 1) for ln in lines if ln.startswith("# ") and " " in ln[2:])
        if meta.get("sha256") == digest:
            return [mpf(ln) for ln in lines if ln and not ln.startswith("#")]
        print(f"note: {cache} is stale (sha256 differs): recomputing", flush=True)
    elif not regenerate:
        print(f"note: no cached reference for {name}: computing it", flush=True)
    ref = eigvals_mp(A)
    if regenerate:
        os.makedirs(REF_DIR, exist_ok=True)
        with open(cache, "w") as f:
            f.write(f"# eigenvalues of tests/data/matrices/{name}, ascending: mpmath {mpmath.__version__}"
                    f" eigsy at {mp.prec} bits on the exact decimal entries, {REF_DIGITS} digits\n")
            f.write(f"# sha256 {digest}\n# n {len(A)}\n")
            for x in ref:
                f.write(mpmath.nstr(x, REF_DIGITS, strip_zeros=False, min_fixed=1, max_fixed=0) + "\n")
    return ref


# ---------------------------------------------------------------------------------------------
# Running eigsolve
# ---------------------------------------------------------------------------------------------
class Runner:
    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.count = exe, tmp, 0
        self.generate_failed = set()

    def run(self, args):
        r = subprocess.run([self.exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=SUBPROCESS_TIMEOUT)
        if r.returncode != 0:
            err = r.stderr.decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"eigsolve {' '.join(args[:3])}... exited {r.returncode}: "
                               f"{(err[0] if err else '')[:200]}")

    def solve(self, path, precision, extra=()):
        self.count += 1
        out = os.path.join(self.tmp, f"w{self.count}.txt")
        self.run([path, "-p", precision, "-q", "-o", out] + list(extra))
        with open(out, "rb") as f:
            raw = f.read()
        return raw, out

    def generate(self, kind, n, extra=(), exact=False):
        """`eigsolve generate`; when it fails, one FAIL line (per kind) and the same matrix
        written by fallback_generate, so that the dd checks still run."""
        self.count += 1
        mtx = os.path.join(self.tmp, f"{kind}{n}_{self.count}.mtx")
        ev = os.path.join(self.tmp, f"{kind}{n}_{self.count}_exact.txt")
        args = ["generate", kind, "--n", str(n), "-o", mtx] + list(extra)
        if exact:
            args += ["--eigenvalues-output", ev]
        try:
            self.run(args)
        except RuntimeError as e:
            if kind not in self.generate_failed:
                self.generate_failed.add(kind)
                report(False, f"eigsolve generate {kind}", f"{e} (using the Python generator)")
            fallback_generate(kind, n, list(extra), mtx, ev if exact else None)
        return mtx, ev


def parse_values(raw):
    return [mpf(t) for t in raw.decode().split()]


def compare(what, ours, ref, n, norm, c, u, extra=""):
    """max|ours - ref| <= c n u ||A||; returns the ratio err / (n u ||A||)."""
    if len(ours) != len(ref):
        report(False, what, f"{len(ours)} eigenvalues, expected {len(ref)}")
        return None
    err = max((abs(a - b) for a, b in zip(ours, ref)), default=mpf(0))
    scale = n * u * norm if norm != 0 else u
    ratio = err / scale
    report(ratio <= c, what, f"n={n:4d} max|err|={fmt(err)} ||A||={fmt(norm)} "
           f"err/(n u ||A||)={float(ratio):.3g} (<= {c}){extra}")
    return ratio


def note_worst(name, ratio):
    if ratio is not None:
        worst[name] = max(worst.get(name, 0), float(ratio))


# ---------------------------------------------------------------------------------------------
# The matrices of app/generate.cpp, rewritten here (used only when `eigsolve generate` fails)
# ---------------------------------------------------------------------------------------------
def hadamard_spectrum(n, spectrum):
    if spectrum == "linear":
        lam = [k - n // 2 for k in range(n)]
    elif spectrum == "wide":
        lam = [(-1 if k % 2 else 1) * 2 ** (k % 21) for k in range(n)]
    else:
        pattern = [-64, -3, -3, 0, 0, 0, 1, 1, 1, 1, 2, 5, 5, 100]
        lam = [pattern[k % 14] for k in range(n)]
    return sorted(lam)


def fallback_generate(kind, n, extra, mtx, ev):
    exact = None
    if kind == "hadamard":
        spectrum = extra[extra.index("--spectrum") + 1] if "--spectrum" in extra else "clustered"
        exact = hadamard_spectrum(n, spectrum)
        # A = H diag(lambda) H / n: entries are exact fractions, written as exact decimals
        sign = [[-1 if bin(i & j).count("1") % 2 else 1 for j in range(n)] for i in range(n)]
        body = []
        for j in range(n):
            for i in range(j, n):
                v = Fraction(sum(sign[i][k] * exact[k] * sign[k][j] for k in range(n)), n)
                body.append(exact_decimal(v))
        text = f"%%MatrixMarket matrix array real symmetric\n{n} {n}\n" + "\n".join(body) + "\n"
    else:
        if kind == "laplace1d":
            d, e = [2.0] * n, [-1.0] * (n - 1)
        elif kind == "kac":
            d, e = [0.0] * n, [math.sqrt((i + 1) * (n - 1 - i)) for i in range(n - 1)]
            exact = [-(n - 1) + 2 * i for i in range(n)]
        elif kind == "wilkinson":
            d, e = [abs((n - 1) / 2 - i) for i in range(n)], [1.0] * (n - 1)
        else:
            raise ValueError(f"no fallback generator for {kind}")
        lines = []
        for i in range(n):
            lines.append(f"{i + 1} {i + 1} {d[i]!r}")
            if i + 1 < n:
                lines.append(f"{i + 2} {i + 1} {e[i]!r}")
        text = (f"%%MatrixMarket matrix coordinate real symmetric\n{n} {n} {len(lines)}\n"
                + "\n".join(lines) + "\n")
    with open(mtx, "w") as f:
        f.write(text)
    if ev is not None:
        if exact is None:
            exact = sorted(2 - 2 * mp.cos(k * mp.pi / (n + 1)) for k in range(1, n + 1))
        with open(ev, "w") as f:
            f.write("".join(f"{x}\n" for x in exact))


def exact_decimal(v):
    """The exact decimal expansion of a Fraction whose denominator is a power of two."""
    num, den = v.numerator, v.denominator
    k = den.bit_length() - 1
    assert den == 1 << k
    digits = str(abs(num) * 5 ** k).rjust(k + 1, "0")
    s = digits[:len(digits) - k] + ("." + digits[len(digits) - k:] if k else "")
    return ("-" if num < 0 else "") + s


# ---------------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------------
def check_real_matrix(rn, path, regenerate):
    name = os.path.basename(path)
    t0 = time.time()
    n, A = read_mtx(path)
    ref = cached_reference(path, A, regenerate)
    norm = max(abs(ref[0]), abs(ref[-1]))
    raw, _ = rn.solve(path, "dd")
    ours = parse_values(raw)
    t_dd = time.time()
    r = compare(f"dd {name}", ours, ref, n, norm, C_DD, U_DD)
    note_worst(name, r)
    raw_d, _ = rn.solve(path, "d")
    d = parse_values(raw_d)
    ours_as_double = [mpf(float(x)) for x in ours]
    compare(f"dd~d {name}", ours_as_double, d, n, norm, C_D, U_D,
            f" [{t_dd - t0:.1f}s + {time.time() - t_dd:.1f}s]")


def check_laplace(rn, n):
    mtx, _ = rn.generate("laplace1d", n)
    ours = parse_values(rn.solve(mtx, "dd")[0])
    ref = sorted(2 - 2 * mp.cos(k * mp.pi / (n + 1)) for k in range(1, n + 1))
    norm = max(abs(x) for x in ref)
    name = f"laplace1d n={n}"
    r = compare(f"dd {name} vs 2-2cos(k pi/(n+1))", ours, ref, n, norm, C_DD, U_DD)
    note_worst(name, r)
    err = max(abs(a - b) for a, b in zip(ours, ref)) if len(ours) == n else mpf(1)
    report(err <= mpf("1e-29") * norm, f"dd {name} absolute", f"max|err|/||T||={fmt(err / norm)} (<= 1e-29)")


def kac_exact(n):
    return [mpf(-(n - 1) + 2 * i) for i in range(n)]


def check_kac(rn, tmp, n):
    # 1. `generate kac`: off-diagonals sqrt(k (n - k)) rounded to double and written as the
    #    shortest round-trip decimal; the dd solve sees that decimal matrix.
    mtx, _ = rn.generate("kac", n)
    nn, A = read_mtx(mtx)
    ours = parse_values(rn.solve(mtx, "dd")[0])
    ref = eigvals_mp(A)
    norm = max(abs(x) for x in ref)
    name = f"kac n={n}"
    note_worst(name, compare(f"dd {name} (generated) vs mpmath", ours, ref, n, norm, C_DD, U_DD))
    compare(f"dd {name} (generated) vs integers, double", ours, kac_exact(n), n, norm, C_D, U_D)
    # 2. the same matrix with 40-digit off-diagonals: exact integers at dd accuracy.
    path = os.path.join(tmp, f"kac{n}_exact.mtx")
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"% Kac matrix, off-diagonals sqrt(k (n-k)) to 40 digits\n{n} {n} {n - 1}\n")
        for i in range(n - 1):
            v = mp.sqrt((i + 1) * (n - 1 - i))
            f.write(f"{i + 2} {i + 1} {mpmath.nstr(v, 40, strip_zeros=False)}\n")
    ours = parse_values(rn.solve(path, "dd")[0])
    ex = kac_exact(n)
    name40 = f"kac n={n} (40 digits)"
    note_worst(name40, compare(f"dd {name40} vs integers", ours, ex, n, n - 1, C_DD, U_DD))
    err = max(abs(a - b) for a, b in zip(ours, ex)) if len(ours) == n else mpf(1)
    report(err <= mpf("1e-29") * (n - 1), f"dd {name40} absolute",
           f"max|err|/||T||={fmt(err / (n - 1))} (<= 1e-29)")


def check_wilkinson(rn, n):
    mtx, _ = rn.generate("wilkinson", n)
    nn, A = read_mtx(mtx)
    ours = parse_values(rn.solve(mtx, "dd")[0])
    ref = eigvals_mp(A)
    norm = max(abs(x) for x in ref)
    name = f"wilkinson n={n}"
    note_worst(name, compare(f"dd {name} vs mpmath", ours, ref, n, norm, C_DD, U_DD))


def check_hadamard(rn, n, spectrum):
    mtx, ev = rn.generate("hadamard", n, ["--spectrum", spectrum], exact=True)
    with open(ev) as f:
        exact = sorted(parse_values(f.read().encode()))
    # The generated file must hold the exact dyadic entries (integer / n).
    _, A = read_mtx(mtx)
    inexact = sum(1 for row in A for a in row if (a * n) != mpmath.floor(a * n))
    report(inexact == 0 and all(x == mpmath.floor(x) for x in exact),
           f"hadamard n={n} {spectrum} file exact", f"{inexact} entries not integer/{n}")
    ours = parse_values(rn.solve(mtx, "dd")[0])
    norm = max(abs(x) for x in exact)
    name = f"hadamard n={n} {spectrum}"
    note_worst(name, compare(f"dd {name} vs exact", ours, exact, n, norm, C_DD, U_DD))


def norm1(cols):
    return max(sum(abs(x) for x in c) for c in cols)


def check_vectors(rn, tmp, path):
    name = os.path.basename(path)
    n, A = read_mtx(path)
    z = os.path.join(tmp, f"Z_{name}")
    raw, _ = rn.solve(path, "dd", ["--vectors", "--vectors-output", z])
    lam = parse_values(raw)
    Z = read_dense_mtx(z)  # columns
    if len(Z) != n or len(lam) != n or any(len(c) != n for c in Z):
        report(False, f"dd vectors {name}", f"got {len(Z)} vectors, {len(lam)} values, n={n}")
        return
    anorm = norm1(A)  # symmetric: columns = rows
    # R = A Z - Z L, column by column; G = I - Z^T Z
    R = []
    for j in range(n):
        zj = Z[j]
        R.append([mpmath.fsum(A[i][k] * zj[k] for k in range(n)) - lam[j] * zj[i] for i in range(n)])
    G = []
    for j in range(n):
        G.append([(1 if i == j else 0) - mpmath.fsum(Z[i][k] * Z[j][k] for k in range(n))
                  for i in range(n)])
    res = norm1(R) / (n * anorm)
    orth = norm1(G) / n
    tol = C_DD * n
    rr, ro = res / U_DD, orth / U_DD
    worst[f"{name} residual"] = float(rr)
    worst[f"{name} orthogonality"] = float(ro)
    report(rr <= tol, f"dd vectors {name} residual",
           f"||AZ-ZL||_1/(n||A||_1)={fmt(res)} = {float(rr):.3g} u_dd (<= {tol})")
    report(ro <= tol, f"dd vectors {name} orthogonality",
           f"||I-Z^T Z||_1/n={fmt(orth)} = {float(ro):.3g} u_dd (<= {tol})")
    return z


def check_bitwise(rn, tmp, path, with_vectors=False):
    name = os.path.basename(path)
    outs = {}
    for label, extra in (("run1", []), ("run2", []), ("t1", ["-t", "1"]), ("t2", ["-t", "2"]),
                         ("t3", ["-t", "3"])):
        if with_vectors:
            z = os.path.join(tmp, f"Zbit_{label}_{name}")
            raw, _ = rn.solve(path, "dd", extra + ["--vectors-output", z])
            with open(z, "rb") as f:
                raw += f.read()
        else:
            raw, _ = rn.solve(path, "dd", extra)
        outs[label] = raw
    base = outs["run1"]
    diff = [k for k, v in outs.items() if v != base]
    what = f"bitwise dd {name}{' +vectors' if with_vectors else ''}"
    report(not diff, what, "runs 1, 2 and --threads 1, 2, 3 identical" if not diff
           else f"differ from run1: {', '.join(diff)}")


def check_bitwise_hadamard(rn, tmp, n):
    mtx, _ = rn.generate("hadamard", n, ["--spectrum", "clustered"])
    check_bitwise(rn, tmp, mtx)


def guarded(what, fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # one broken check must not hide the others
        report(False, what, f"{type(e).__name__}: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--eigsolve", required=True)
    ap.add_argument("--matrices", required=True)
    ap.add_argument("--regenerate", action="store_true",
                    help="recompute the cached mpmath references in reference/")
    ap.add_argument("--skip-slow", action="store_true", help="leave out bcsstk03 and n=128")
    args = ap.parse_args()
    if not os.access(args.eigsolve, os.X_OK):
        print(f"FAIL eigsolve binary not found or not executable: {args.eigsolve}")
        return 1
    t_start = time.time()
    with tempfile.TemporaryDirectory(prefix="dd_reference_") as tmp:
        rn = Runner(args.eigsolve, tmp)
        for name in MATRICES:
            if args.skip_slow and name == "bcsstk03.mtx":
                continue
            path = os.path.join(args.matrices, name)
            guarded(f"dd {name}", check_real_matrix, rn, path, args.regenerate)
        guarded("laplace1d", check_laplace, rn, 50)
        guarded("kac", check_kac, rn, tmp, 40)
        guarded("wilkinson", check_wilkinson, rn, 21)
        for n in (64,) if args.skip_slow else (64, 128):
            for spectrum in ("clustered", "linear", "wide"):
                guarded(f"hadamard n={n} {spectrum}", check_hadamard, rn, n, spectrum)
        for name in VECTOR_MATRICES:
            guarded(f"dd vectors {name}", check_vectors, rn, tmp, os.path.join(args.matrices, name))
        guarded("bitwise", check_bitwise, rn, tmp, os.path.join(args.matrices, BITWISE_MATRIX))
        guarded("bitwise +vectors", check_bitwise, rn, tmp,
                os.path.join(args.matrices, "can_24.mtx"), True)
        guarded("bitwise hadamard", check_bitwise_hadamard, rn, tmp, 64 if args.skip_slow else 128)
    print("worst ratios err/(n u ||A||) (vectors: measure/u_dd):")
    for k, v in worst.items():
        print(f"  {k:40s} {v:.3g}")
    print(f"{len(failures)} failed check(s); {rn.count} eigsolve runs in {time.time() - t_start:.1f}s")
    for f in failures:
        print(f"  FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
