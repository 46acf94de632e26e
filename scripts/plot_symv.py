#!/usr/bin/env python3
"""Plot GB/s vs n per implementation from the JSON of `eigsolve bench symv --json FILE`.

One panel per precision (s, d, c, z, dd), log2 x axis, one line per implementation
(eigsolve-tuned, eigsolve-ticket, eigsolve-twopass, cublas, cublas-atomics); a marker is hollow
where the implementation gave more than one distinct result over its runs (not reproducible)
or differed from the CPU reference. Optional dashed lines at given bandwidths (--ceiling).

    scripts/plot_symv.py bench_symv.json -o bench_symv.png [--ceiling 4540:dgemv]

Needs matplotlib (Debian: python3-matplotlib, installed by scripts/setup.sh).
"""
import argparse
import json
import sys

PRECISIONS = ["s", "d", "c", "z", "dd"]
NAMES = {"s": "float (ssymv)", "d": "double (dsymv)", "c": "complex float (chemv)",
         "z": "complex double (zhemv)", "dd": "double-double (ddsymv)"}
# Fixed colours and styles so that the same implementation looks the same in every plot.
STYLE = {
    "eigsolve-tuned": dict(color="C3", marker="o", lw=2.2, zorder=5),
    "eigsolve-ticket": dict(color="C1", marker="^", lw=1.2, ls="--"),
    "eigsolve-twopass": dict(color="C2", marker="v", lw=1.2, ls="--"),
    "cublas": dict(color="C0", marker="s", lw=1.6),
    "cublas-atomics": dict(color="C7", marker="D", lw=1.2, ls=":"),
}


def load(path):
    with open(path) as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        sys.exit(f"{path}: not an `eigsolve bench symv` JSON (no records[])")
    for i, r in enumerate(data["records"]):
        for k in ("precision", "n", "impl", "gbs"):
            if k not in r:
                sys.exit(f"{path}: record {i} has no '{k}'")
    return data


def series(records, precision):
    """{impl: [(n, gbs, reproducible)]} for one precision, sorted by n."""
    out = {}
    for r in records:
        if r["precision"] != precision or r.get("gbs") is None:
            continue
        ok = r.get("distinct", 1) in (None, 1) and r.get("bitwise_cpu") is not False
        out.setdefault(r["impl"], []).append((int(r["n"]), float(r["gbs"]), ok))
    for v in out.values():
        v.sort()
    return out


def order(impls):
    known = [i for i in STYLE if i in impls]
    return known + sorted(i for i in impls if i not in STYLE)


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit("matplotlib is missing: scripts/setup.sh installs python3-matplotlib (Debian; "
                 "run this script with /usr/bin/python3 if another python3 comes first on PATH)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(data, out, ceilings, title):
    plt = import_pyplot()
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    recs = data["records"]
    present = [p for p in PRECISIONS if any(r["precision"] == p for r in recs)]
    present += sorted({r["precision"] for r in recs} - set(PRECISIONS))
    if not present:
        sys.exit("no records to plot")
    cols = min(3, len(present))
    rows = (len(present) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), squeeze=False)
    for ax, p in zip(axes.flat, present):
        s = series(recs, p)
        sizes = sorted({n for v in s.values() for n, _, _ in v})
        for impl in order(s):
            pts = s[impl]
            st = dict(STYLE.get(impl, dict(marker="x", lw=1.0)))
            ns = [n for n, _, _ in pts]
            gb = [g for _, g, _ in pts]
            line, = ax.plot(ns, gb, label=impl, markersize=5, **st)
            bad = [(n, g) for n, g, ok in pts if not ok]
            if bad:  # hollow markers: not reproducible or not equal to the CPU reference
                ax.plot([n for n, _ in bad], [g for _, g in bad], ls="none",
                        marker=st.get("marker", "x"), markersize=9, mfc="white",
                        mec=line.get_color(), mew=1.5, zorder=6)
        for value, label in ceilings:
            ax.axhline(value, color="0.4", lw=0.8, ls="-.")
            ax.annotate(label, (0.99, value), xycoords=("axes fraction", "data"),
                        fontsize=7, color="0.3", va="bottom", ha="right")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sizes))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(round(v))}"))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        top = max([g for v in s.values() for _, g, _ in v] + [c for c, _ in ceilings])
        ax.set_ylim(0, top * 1.1)
        ax.set_title(NAMES.get(p, p))
        ax.set_xlabel("n")
        ax.set_ylabel("GB/s (n²/2 elements read)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    for ax in list(axes.flat)[len(present):]:
        ax.set_visible(False)
    fig.suptitle(title or f"SYMV/HEMV effective bandwidth — {data.get('gpu', '?')}, "
                 f"{data.get('date', '')} (hollow: >1 distinct result or ≠ CPU)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def parse_ceiling(text):
    value, _, label = text.partition(":")
    return float(value), label or f"{value} GB/s"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="output of `eigsolve bench symv --json FILE`")
    ap.add_argument("-o", "--output", help="PNG to write (default: the JSON's name with .png)")
    ap.add_argument("--ceiling", action="append", default=[], type=parse_ceiling,
                    metavar="GBS[:LABEL]", help="a horizontal reference line (repeatable)")
    ap.add_argument("--title", help="figure title (default: GPU and date from the JSON)")
    args = ap.parse_args(argv)
    data = load(args.json)
    out = args.output or (args.json[:-5] if args.json.endswith(".json") else args.json) + ".png"
    plot(data, out, args.ceiling, args.title)
    # A one-line text summary per precision: best GB/s of each implementation at the largest n.
    for p in PRECISIONS:
        s = series(data["records"], p)
        if not s:
            continue
        nmax = max(n for v in s.values() for n, _, _ in v)
        parts = [f"{i} {g:.0f}" for i in order(s) for n, g, _ in s[i] if n == nmax]
        print(f"{p:>2} n={nmax}: " + ", ".join(parts) + " GB/s")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
