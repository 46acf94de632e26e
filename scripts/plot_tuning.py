#!/usr/bin/env python3
"""How good is symv_select between sampled sizes? Model's choice vs best measured configuration.

symv_select (symv/cuda/select.cpp) predicts the time of every configuration of a tuning table at
order n by piecewise-linear interpolation of log(ms) over log(n) between the table's sampled sizes
(end segments extended) and takes the configuration with the smallest prediction (ties: the
first). This script replays exactly that model and compares the configuration it picks with the
fastest configuration actually measured at sizes the model did not see:

  --check FILE     a second tuning file measured at other ("unsampled") sizes, e.g. from
                   eigsolve tune symv --sizes 1536,3072,6144,12288,24576 -o check.json
  --leave-one-out  no second file: for each sampled size k, the model is rebuilt from the table
                   without k and judged against the measurements at k (at the two end sizes the
                   model extrapolates; those points are marked)

For every precision and test size it prints the chosen configuration, its measured time, the best
measured configuration and the gap (chosen / best - 1, in %), with the same numbers for two
simple alternatives (the best configuration at the nearest sampled size, and the default
configuration ticket-t2-m4-w-ldg), and it plots the gaps (one panel per precision, log2 n).

    scripts/plot_tuning.py symv/cuda/tables/sm_90.json --check check.json -o tuning_check.png
    scripts/plot_tuning.py symv/cuda/tables/sm_90.json --leave-one-out -o tuning_loo.png

Needs matplotlib for the PNG (Debian: python3-matplotlib); --no-plot prints only.
"""
import argparse
import json
import math
import sys

PRECISIONS = ["s", "d", "c", "z", "dd"]
BYTES = {"s": 4, "d": 8, "c": 8, "z": 16, "dd": 16}
DEFAULT_CONFIG = "ticket-t2-m4-w-ldg"  # symv_default_config()


# ---- the model of symv/cuda/select.cpp, replayed ----------------------------------------------

def predict(xs, ys, x):
    """select.cpp predict(): piecewise-linear in (xs, ys), end segments extended."""
    if len(xs) == 1:
        return ys[0]
    i = 1
    while i + 1 < len(xs) and x > xs[i]:
        i += 1
    w = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
    return ys[i - 1] + w * (ys[i] - ys[i - 1])


def model_choice(sizes, configs, ms, n):
    """select.cpp symv_select_for(): index of the configuration with the smallest predicted
    log-time at n (strict <, so ties go to the first)."""
    log_n = [math.log(float(s)) for s in sizes]
    x = math.log(float(n))
    best, best_t = 0, 0.0
    for c in range(len(configs)):
        v = predict(log_n, [math.log(float(m)) for m in ms[c]], x)
        if c == 0 or v < best_t:
            best, best_t = c, v
    return best


# ---- tables -------------------------------------------------------------------------------------

def load_table(path):
    with open(path) as f:
        data = json.load(f)
    precs = data.get("precisions") if isinstance(data, dict) else None
    if not isinstance(precs, dict):
        sys.exit(f"{path}: not a SYMV tuning table (no 'precisions' object)")
    out = {}
    for p, v in precs.items():
        sizes, configs, ms = v.get("sizes"), v.get("configs"), v.get("ms")
        if not sizes or not configs or ms is None or len(ms) != len(configs) or any(
                len(row) != len(sizes) for row in ms):
            sys.exit(f"{path}: precision {p}: sizes/configs/ms have inconsistent shapes")
        order = sorted(range(len(sizes)), key=lambda s: sizes[s])  # select.cpp assumes ascending
        out[p] = {"sizes": [int(sizes[s]) for s in order], "configs": list(configs),
                  "ms": [[float(row[s]) for s in order] for row in ms]}
    return data, out


def measured(table, n):
    """{config name: ms} measured at n in a precision table (n must be one of its sizes)."""
    s = table["sizes"].index(n)
    return {c: table["ms"][k][s] for k, c in enumerate(table["configs"])}


FLOAT_EARLY_FROM = 6144  # symv/cuda/symv_launch.cuh kFloatEarlyFrom


def rule_early(p, n):
    """early_mode's default count (symv/cuda/symv_launch.cuh) as a name suffix: d 8; s 8 from
    n = 6144, 1 below (used by scripts/early_rule_table.py too)."""
    return "e8" if p == "d" or n >= FLOAT_EARLY_FROM else "e1"


def early_alias(p, name, n):
    """The other spelling of the same kernel at n, or None. For s and d a two-pass 16-byte plain
    configuration without "-eE" runs early_mode's default count (d: 8; s: 8 from n = 6144, 1
    below), so at n it is the name with that suffix, and back: a table measured before session 67
    (no suffixes) can be judged by a file measured since (tune spaces with -e1/-e8), and the
    reverse."""
    parts = name.split("-")
    if p not in ("s", "d") or len(parts) not in (5, 6):
        return None
    if parts[0] != "twopass" or parts[3] != "w" or parts[4] not in ("ldg", "cg", "cs"):
        return None
    default = rule_early(p, n)
    if len(parts) == 5:
        return name + "-" + default
    return "-".join(parts[:5]) if parts[5] == default else None


def evaluate(model, truth_at, n, p=None):
    """One test point: the model (sizes/configs/ms) picks; truth_at = {config: ms} judges (a
    configuration it lacks is looked up under early_alias's spelling for precision p)."""
    c = model_choice(model["sizes"], model["configs"], model["ms"], n)
    chosen = model["configs"][c]
    best = min(truth_at, key=lambda k: truth_at[k])
    # The best configuration at the nearest sampled size (in log n).
    near = min(range(len(model["sizes"])), key=lambda s: abs(math.log(model["sizes"][s] / n)))
    near_cfg = min(range(len(model["configs"])), key=lambda k: model["ms"][k][near])
    near_name = model["configs"][near_cfg]

    def measured_as(name):
        if name in truth_at:
            return name
        alias = early_alias(p, name, n)
        return alias if alias in truth_at else None

    def gap(name):
        name = measured_as(name)
        if name is None:
            return None
        return 100.0 * (truth_at[name] / truth_at[best] - 1.0)

    chosen_as = measured_as(chosen)
    if chosen_as is None:
        print(f"warning: n={n}: the model's choice {chosen} was not measured there",
              file=sys.stderr)
    return {"n": n, "chosen": chosen, "chosen_ms": truth_at.get(chosen_as), "best": best,
            "best_ms": truth_at[best], "gap": gap(chosen), "nearest": near_name,
            "nearest_gap": gap(near_name), "default_gap": gap(DEFAULT_CONFIG)}


def check_points(table, check):
    """Test points from a second file measured at other sizes."""
    out = {}
    for p, t in table.items():
        if p not in check:
            continue
        pts = []
        for n in check[p]["sizes"]:
            if n in t["sizes"]:
                print(f"note: {p} n={n} is a sampled size of the table (kept, gap ~ noise)",
                      file=sys.stderr)
            r = evaluate(t, measured(check[p], n), n, p)
            r["extrapolated"] = n < t["sizes"][0] or n > t["sizes"][-1]
            pts.append(r)
        out[p] = pts
    return out


def leave_one_out_points(table):
    """Test points: each sampled size in turn, the model built without it."""
    out = {}
    for p, t in table.items():
        if len(t["sizes"]) < 3:
            continue
        pts = []
        for s, n in enumerate(t["sizes"]):
            model = {"sizes": t["sizes"][:s] + t["sizes"][s + 1:], "configs": t["configs"],
                     "ms": [row[:s] + row[s + 1:] for row in t["ms"]]}
            r = evaluate(model, measured(t, n), n)
            r["extrapolated"] = s == 0 or s == len(t["sizes"]) - 1
            pts.append(r)
        out[p] = pts
    return out


# ---- output -------------------------------------------------------------------------------------

def fmt_gap(g):
    return "   n/a" if g is None else f"{g:6.1f}"


def report(points, mode):
    print(f"# model = select.cpp (log ms over log n, piecewise linear); mode: {mode}")
    print("# gap = measured time of the configuration / best measured at that n - 1, in %")
    print(f"{'p':>2} {'n':>6} {'x':1} {'model choice':<22} {'ms':>9} {'GB/s':>6} "
          f"{'best measured':<22} {'ms':>9} {'gap%':>6} {'near%':>6} {'dflt%':>6}")
    for p in [q for q in PRECISIONS if q in points] + sorted(set(points) - set(PRECISIONS)):
        for r in points[p]:
            gbs = (r["n"] ** 2 / 2 * BYTES.get(p, 8) / (r["chosen_ms"] * 1e6)
                   if r["chosen_ms"] else float("nan"))
            print(f"{p:>2} {r['n']:>6} {'e' if r['extrapolated'] else ' '} {r['chosen']:<22} "
                  f"{r['chosen_ms'] if r['chosen_ms'] is not None else float('nan'):9.4f} "
                  f"{gbs:6.0f} {r['best']:<22} {r['best_ms']:9.4f} {fmt_gap(r['gap'])} "
                  f"{fmt_gap(r['nearest_gap'])} {fmt_gap(r['default_gap'])}")
    print("# summary (interior points; 'e' = extrapolated, beyond the sampled range):")
    for p, pts in points.items():
        inner = [r["gap"] for r in pts if not r["extrapolated"] and r["gap"] is not None]
        allg = [r["gap"] for r in pts if r["gap"] is not None]
        if allg:
            mean_in = f"{sum(inner) / len(inner):.1f}" if inner else "n/a"
            max_in = f"{max(inner):.1f}" if inner else "n/a"
            print(f"{p:>2}: mean gap {mean_in} %, max gap {max_in} % over {len(inner)} interior "
                  f"points; max {max(allg):.1f} % over all {len(allg)}")


def plot(points, out, title):
    try:
        import matplotlib
    except ImportError:
        sys.exit("matplotlib is missing: scripts/setup.sh installs python3-matplotlib (Debian; "
                 "run this script with /usr/bin/python3 if another python3 comes first on PATH)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    precs = [p for p in PRECISIONS if p in points] + sorted(set(points) - set(PRECISIONS))
    cols = min(3, len(precs))
    rows = (len(precs) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), squeeze=False)
    series = [("gap", "model (select.cpp)", dict(color="C3", marker="o", lw=2.0, zorder=5)),
              ("nearest_gap", "best at nearest sampled n", dict(color="C0", marker="s", lw=1.0,
                                                                  ls="--")),
              ("default_gap", f"default {DEFAULT_CONFIG}", dict(color="C7", marker="x", lw=1.0,
                                                                 ls=":"))]
    for ax, p in zip(axes.flat, precs):
        pts = points[p]
        ns = [r["n"] for r in pts]
        for key, label, st in series:
            xy = [(r["n"], r[key]) for r in pts if r[key] is not None]
            if xy:
                ax.plot([a for a, _ in xy], [b for _, b in xy], label=label, **st)
        ext = [(r["n"], r["gap"]) for r in pts if r["extrapolated"] and r["gap"] is not None]
        if ext:
            ax.plot([a for a, _ in ext], [b for _, b in ext], ls="none", marker="o", ms=11,
                    mfc="none", mec="C3", label="extrapolated (outside sampled n)")
        for r in pts:
            if r["gap"] is not None:
                ax.annotate(f"{r['gap']:.1f}%", (r["n"], r["gap"]), textcoords="offset points",
                            xytext=(0, 6), ha="center", fontsize=7, color="C3")
        ax.axhline(0, color="0.3", lw=0.8)
        ax.axhspan(0, 5, color="C2", alpha=0.08)  # "within a few %"
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sorted(set(ns))))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(round(v))}"))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_yscale("symlog", linthresh=10, linscale=1.5)
        ax.set_ylim(bottom=-1)
        ax.set_title(f"precision {p}")
        ax.set_xlabel("n (not in the model)")
        ax.set_ylabel("slower than best measured, %")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    for ax in list(axes.flat)[len(precs):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", help="the tuning table (e.g. symv/cuda/tables/sm_90.json)")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", metavar="FILE", help="tuning file measured at unsampled sizes")
    g.add_argument("--leave-one-out", action="store_true",
                   help="judge the model at each sampled size with that size left out")
    ap.add_argument("-p", "--precision", action="append", help="only these precisions")
    ap.add_argument("-o", "--output", help="PNG to write (default: tuning_check.png or "
                    "tuning_loo.png beside the table)")
    ap.add_argument("--no-plot", action="store_true", help="print the table only")
    ap.add_argument("--json", metavar="FILE", help="also write the points as JSON")
    args = ap.parse_args(argv)

    meta, table = load_table(args.table)
    if args.precision:
        table = {p: t for p, t in table.items() if p in args.precision}
    if args.check:
        _, check = load_table(args.check)
        points, mode = check_points(table, check), f"second file {args.check}"
    else:
        points, mode = leave_one_out_points(table), "leave one sampled size out"
    if not any(points.values()):
        sys.exit("no test points (no common precision, or fewer than 3 sampled sizes)")
    report(points, mode)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"table": args.table, "mode": mode, "points": points}, f, indent=1)
    if not args.no_plot:
        import os
        out = args.output or os.path.join(os.path.dirname(args.table) or ".",
                                          "tuning_check.png" if args.check else "tuning_loo.png")
        plot(points, out, f"symv_select model vs best measured — {meta.get('gpu', '?')}, "
             f"{meta.get('date', '')}; {mode}")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
