#!/usr/bin/env python3
"""Finish-time model of the device bulge chase's pipeline (bench/NOTES.md, session 31 section 2).

Each task of sweep i, level k takes a fixed time: task B (task A for k = 0) beta, task C gamma;
every wait on another warp's progress adds h. Two schedules, with the waits the kernels used:

  one warp per sweep (householder/cuda/bulge_chase_device.cu, the default): B0 C0 B1 C1 ... in
    order; B(i, k) after sweep i-1's B(i-1, k+1), C(i, k) after C(i-1, k+1) (or all of sweep i-1);
  two warps per sweep (the pair schedule of commits af9a164..4d699c4, removed): the B chain and
    the C chain apart; B(i, k) after B(i-1, k+1) and C(i-1, k), C(i, k) after B(i, k) (+ hi) and
    C(i-1, k+1).

usage: scripts/chase_model.py [n b]   (prints the makespans and their ratio for a few beta, gamma, h)
"""
import sys


def levels(n, b, i):
    """Levels of sweep i: k with i + 1 + k b <= n - 1."""
    return (n - 2 - i) // b + 1


def one_warp(n, b, beta, gamma, h):
    B, C = {}, {}
    for i in range(n - 1):
        t = 0.0
        for k in range(levels(n, b, i)):
            w = t
            if i > 0:
                last = levels(n, b, i - 1) - 1
                w = max(w, (B[i - 1, k + 1] if k + 1 <= last else C[i - 1, last]) + h)
            B[i, k] = t = w + beta
            w = t
            if i > 0:
                last = levels(n, b, i - 1) - 1
                w = max(w, C[i - 1, min(k + 1, last)] + h)
            C[i, k] = t = w + gamma
    return max(C.values())


def pair(n, b, beta, gamma, h, hi=0.0):
    B, C = {}, {}
    for i in range(n - 1):
        L = levels(n, b, i)
        tb = tc = 0.0
        for k in range(L):
            w = tb
            if i > 0:
                last = levels(n, b, i - 1) - 1
                w = max(w, B[i - 1, min(k + 1, last)] + h, C[i - 1, min(k, last)] + h)
            B[i, k] = tb = w + beta
        for k in range(L):
            w = max(tc, B[i, k] + hi)
            if i > 0:
                last = levels(n, b, i - 1) - 1
                w = max(w, C[i - 1, min(k + 1, last)] + h)
            C[i, k] = tc = w + gamma
    return max(C.values())


def main():
    n, b = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (1024, 32)
    for beta, gamma, h in [(1, 1, 0), (1.5, 1, 0), (1, 1, 1), (1, 1, 3)]:
        o, p = one_warp(n, b, beta, gamma, h), pair(n, b, beta, gamma, h)
        print(f"n {n} b {b} beta {beta} gamma {gamma} h {h}: one warp {o:.0f}, pair {p:.0f}, "
              f"pair / one warp {p / o:.2f}")


if __name__ == "__main__":
    main()
