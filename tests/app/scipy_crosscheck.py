#!/usr/bin/env python3
"""Cross-check eigsolve against scipy.linalg.eigvalsh on the shared real matrices.

usage: scipy_crosscheck.py EIGSOLVE MATRICES_DIR
Each matrix is read with scipy.io.mmread (independent of our reader) and solved by LAPACK
through SciPy; eigsolve's eigenvalues must agree within 50 * n * eps * ||A||_2.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io
import scipy.linalg

FILES = ["bcsstk01.mtx", "bcsstk03.mtx", "LFAT5.mtx", "LUNDA.mtx", "lund_b.mtx", "GD97_b.mtx",
         "plat362.mtx", "494_bus.mtx", "gr_30_30.mtx", "1138_bus.mtx", "Trefethen_20b.mtx",
         "can_24.mtx", "karate.mtx", "ldbc_undirected_example.mtx", "full_symmetric_array4.mtx",
         "cholmod_fullrsa_array2.mtx", "lis_testmat0_laplace2d_general.mtx", "mhd1280b.mtx",
         "cholmod_c_hermitian3.mtx", "fmm_array_hermitian3.mtx", "bcsstm01.mtx"]


def main():
    exe, mdir = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in FILES:
            path = os.path.join(mdir, name)
            a = scipy.io.mmread(path)
            a = a.toarray() if hasattr(a, "toarray") else np.asarray(a)
            ref = scipy.linalg.eigvalsh(a)
            out = os.path.join(tmp, "w.txt")
            subprocess.run([exe, path, "-q", "-o", out], check=True)
            ours = np.loadtxt(out, ndmin=1)
            n = a.shape[0]
            norm = max(abs(ref[0]), abs(ref[-1]))
            tol = 50 * n * np.finfo(float).eps * norm
            err = np.max(np.abs(ours - ref)) if len(ours) == len(ref) else np.inf
            ok = err <= tol
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name:40s} n={n:5d} max|ours-scipy|={err:.3e} tol={tol:.3e}")
    print(f"{len(FILES) - failures}/{len(FILES)} matrices agree with SciPy")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
