#!/usr/bin/env python3
"""Reads the device chase's stamp file (EIGSOLVE_GPU_BULGE_STAMPS / _OUT,
householder/cuda/bulge_chase_device.cu) and prints where a level's time goes.

    scripts/chase_stamps.py stamps.csv [--skip-last 2]

The file has one line per stamp: sweep, idx, code, clock (the SM's clock64), ns (globaltimer).
code & 15 is the event (1 after a phase's barrier, 2 a wait's poll saw its value, 3 the wait
returned, 4 a publish began, 5 it ended, 6 the sweep was drawn), code >> 4 the progress value of
a wait or publish (of a draw: the SM that runs the sweep, since session 34). Per sweep the kernel runs

    level 0:      wait(3) A1 A2 A3 publish(1) wait(4) C1 C2 C3 publish(2)
    level k >= 1: wait(2k+3) B1 .. B5 publish(2k+1) wait(2k+4) C1 C2 C3 publish(2k+2)

(B1 load + right + larfg 1, B2 larfg 2, B3 larfg 3, B4 left's chains, B5 left's update + store;
C1 load + share, C2 sym2's y, C3 alpha + update + store). With task C's early reads (s and d since
session 32) C1 and C2 run before the wait, then C3 the one deferred chain's end and C4 alpha +
update + store (session 33's reverted build also moved task B's B1 before its wait). Steps are
named in the order they run (B1, B2, ... counting the phases of a part). The report gives, over the full levels
of the window's sweeps (the last --skip-last levels of each sweep left out), the median cycles of
every step, the spin of each wait (from the stamp before it to the poll's success), the handoff
(the waiter's poll success minus the publisher's flag store, globaltimer, where the waiter was
already spinning) and the lag between consecutive sweeps.
"""
import argparse
import statistics
import sys
from collections import defaultdict

EACH, POLLED, WAITED, PUBLISHING, PUBLISHED, SWEEP = 1, 2, 3, 4, 5, 6
NAMES = {EACH: "each", POLLED: "polled", WAITED: "waited", PUBLISHING: "publishing",
         PUBLISHED: "published", SWEEP: "sweep"}


def read(path):
    header = ""
    rows = defaultdict(list)
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                header = line.strip()
                continue
            if line.startswith("sweep"):
                continue
            s, j, code, clk, ns = (int(x) for x in line.split(","))
            rows[s].append((j, code & 15, code >> 4, clk, ns))
    for s in rows:
        rows[s].sort()
    return header, rows


def levels_of(events):
    """Splits a sweep's events into levels: a list of lists of (ev, val, clk, ns)."""
    out, cur = [], []
    for _, ev, val, clk, ns in events:
        if ev == SWEEP:
            continue
        cur.append((ev, val, clk, ns))
        # a level ends with the publish of part 2 (even value, or kDone)
        if ev == PUBLISHED and (val % 2 == 0 or val >= 0x7fffffff):
            out.append(cur)
            cur = []
    return out


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--skip-last", type=int, default=2)
    a = ap.parse_args()
    header, rows = read(a.file)
    print(header)
    sweeps = sorted(rows)
    if not sweeps:
        sys.exit("no stamps")
    # clock rate from each sweep's first and last stamps
    ghz = []
    for s in sweeps:
        e = rows[s]
        if len(e) > 10 and e[-1][4] > e[0][4]:
            ghz.append((e[-1][3] - e[0][3]) / (e[-1][4] - e[0][4]))
    f = med(ghz)
    print(f"sweeps {sweeps[0]} .. {sweeps[-1]} ({len(sweeps)}), SM clock {f:.3f} GHz (clock64 / globaltimer)")
    # published flag times per (sweep, value)
    pub = {}
    for s in sweeps:
        for _, ev, val, clk, ns in rows[s]:
            if ev == PUBLISHED:
                pub[(s, val)] = ns
    steps = defaultdict(list)
    spin_ns = defaultdict(list)
    handoff = defaultdict(list)
    level_ns = []
    seqs = defaultdict(int)
    for s in sweeps:
        lv = levels_of(rows[s])
        first = 1
        last = len(lv) - a.skip_last
        for li in range(first, max(first, last)):
            L = lv[li]
            # expected: W(p) W(d) E*5 P P W(p) W(d) E*3 P P  (polled absent when i == 0)
            names = []
            nb = 0
            part = "B"
            for ev, val, clk, ns in L:
                if ev == EACH:
                    nb += 1
                    names.append(f"{part}{nb}")
                elif ev == POLLED:
                    names.append(f"{part}.poll")
                elif ev == WAITED:
                    names.append(f"{part}.fence_in")
                elif ev == PUBLISHING:
                    names.append(f"{part}.bar")
                elif ev == PUBLISHED:
                    names.append(f"{part}.fence_out")
                    part, nb = "C", 0
            seqs[tuple(names)] += 1
            prev = lv[li - 1][-1]
            for (ev, val, clk, ns), nm in zip(L, names):
                if prev is not None:
                    d = clk - prev[2]
                    steps[nm].append(d)
                    if ev == POLLED:
                        spin_ns[nm].append(ns - prev[3])
                if ev == POLLED and (s - 1, val) in pub and prev is not None:
                    h = ns - pub[(s - 1, val)]
                    # the waiter was spinning when the flag went up
                    if pub[(s - 1, val)] > prev[3]:
                        handoff[nm].append(h)
                prev = (ev, val, clk, ns)
            level_ns.append(L[-1][3] - L[0][3])
    # the steps print in the order they run: the most common sequence of a level's steps (with
    # the early reads, EIGSOLVE_GPU_BULGE_EARLY, a task's first steps come before its poll)
    common = max(seqs, key=seqs.get) if seqs else ()
    order = list(common) + sorted(nm for nm in steps if nm not in common)
    total = 0.0
    print(f"{'step':<12}{'median cyc':>11}{'  ~ns':>8}{'   p10 cyc':>11}{'   p90 cyc':>11}{'  count':>8}")
    for nm in order:
        xs = sorted(steps.get(nm, []))
        if not xs:
            continue
        m = med(xs)
        total += m
        p10 = xs[len(xs) // 10]
        p90 = xs[(9 * len(xs)) // 10]
        print(f"{nm:<12}{m:>11.0f}{m / f:>8.0f}{p10:>11}{p90:>11}{len(xs):>8}")
    print(f"{'sum of medians':<12}{total:>11.0f}{total / f:>8.0f}")
    print(f"level (first stamp to last, median): {med(level_ns):.0f} ns over {len(level_ns)} levels")
    for nm in ("B.poll", "C.poll"):
        xs = handoff.get(nm, [])
        print(f"handoff {nm}: median {med(xs):.0f} ns over {len(xs)} waits that spun "
              f"(flag store -> poll success); spin median {med(spin_ns.get(nm, [])):.0f} ns")
    # lag between consecutive sweeps at the same level (waited of part 1)
    lag = []
    for s in sweeps[1:]:
        if s - 1 not in rows:
            continue
        a0 = {(val): ns for _, ev, val, clk, ns in rows[s] if ev == WAITED}
        a1 = {(val): ns for _, ev, val, clk, ns in rows[s - 1] if ev == WAITED}
        for v in a0:
            if v in a1 and v % 2 == 1 and v > 5:
                lag.append(a0[v] - a1[v])
    print(f"lag between sweeps (same wait, sweep i minus i-1): median {med(lag):.0f} ns over {len(lag)}")
    # where the sweeps ran (the draw's value; files before session 34 have 0 there)
    sm = {s: val for s in sweeps for _, ev, val, clk, ns in rows[s] if ev == SWEEP}
    if sm and any(sm.values()):
        same = sum(1 for s in sweeps[1:] if s in sm and s - 1 in sm and sm[s] == sm[s - 1])
        print(f"SMs: {len(set(sm.values()))} for {len(sm)} sweeps; sweep i on sweep i-1's SM: "
              f"{same} of {len(sm) - 1}")
        print("sweep:SM " + " ".join(f"{s}:{sm[s]}" for s in sorted(sm)))


if __name__ == "__main__":
    main()
