#!/usr/bin/env python3
"""Plot seconds vs n for ours and cuSOLVER from the JSON of `eigsolve bench eig --json FILE`.

One panel per precision found (s, d, c, z, dd), log-log axes, one line per implementation and
vectors setting (eigsolve, cusolver); several JSON files are merged (later files win on the same
(precision, n, vectors, impl)). A hollow marker: more than one distinct result over the runs, or
different from the CPU backend.

    scripts/plot_eig.py a.json [b.json ...] -o bench_eig.png

Needs matplotlib (Debian: python3-matplotlib, installed by scripts/setup.sh).
"""
import argparse
import json
import sys

PRECISIONS = ["s", "d", "c", "z", "dd"]
STYLE = {"eigsolve": dict(color="C3", marker="o", lw=2.0),
         "cusolver": dict(color="C0", marker="s", lw=1.6)}


def load(paths):
    recs = {}
    gpu = None
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict) or not isinstance(data.get("records"), list):
            sys.exit(f"{path}: not an `eigsolve bench eig` JSON (no records[])")
        gpu = data.get("gpu", gpu)
        for i, r in enumerate(data["records"]):
            for k in ("precision", "n", "impl", "seconds", "vectors"):
                if k not in r:
                    sys.exit(f"{path}: record {i} has no '{k}'")
            if r.get("reduction") == "two-stage":  # bench eig --reduction two-stage: its own line
                r = dict(r, impl=r["impl"] + " two-stage")
            recs[(r["precision"], r["n"], bool(r["vectors"]), r["impl"])] = r
    return gpu, list(recs.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--output", default="bench_eig.png")
    a = ap.parse_args()
    gpu, recs = load(a.json)
    precs = [p for p in PRECISIONS if any(r["precision"] == p for r in recs)]
    if not precs:
        sys.exit("no records")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(precs), figsize=(4.6 * len(precs), 4.0), squeeze=False)
    for ax, p in zip(axes[0], precs):
        for impl in ("eigsolve", "cusolver"):
            for vec in (False, True):
                rs = sorted((r for r in recs if r["precision"] == p and r["impl"] == impl
                             and bool(r["vectors"]) == vec), key=lambda r: r["n"])
                if not rs:
                    continue
                st = dict(STYLE.get(impl, {}))
                if vec:
                    st["ls"] = "--"
                ns = [r["n"] for r in rs]
                ax.plot(ns, [r["seconds"] for r in rs], label=impl + (" (vectors)" if vec else ""),
                        **st)
                for r in rs:
                    bad = r.get("distinct", 1) != 1 or r.get("bitwise_cpu") is False
                    if bad:
                        ax.plot([r["n"]], [r["seconds"]], marker=st.get("marker", "o"),
                                mfc="white", color=st.get("color"), ms=9)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("seconds (median)")
        ax.set_title(p)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"eigenvalues: eigsolve --device cuda vs cuSOLVER ({gpu or 'GPU'})", fontsize=10)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
