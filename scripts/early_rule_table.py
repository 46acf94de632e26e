#!/usr/bin/env python3
"""A SYMV tuning table without the early-column dimension, from one measured with it.

`eigsolve tune symv` (session 67 on) measures s and d's two-pass 16-byte ldg/cs configurations
with 1 and with 8 early columns (names ending -e1, -e8). This writes the same measurements as the
tuner of session 66 would have tabled them: each -e1/-e8 pair becomes the unsuffixed configuration,
whose time at each n is that of the count early_mode's default rule runs there (d: 8; s: 8 from
n = 6144, 1 below: plot_tuning.rule_early, after symv/cuda/symv_launch.cuh early_mode). An A/B of the two tables
(EIGSOLVE_SYMV_TABLE) then measures what choosing the count per size gains over the rule, on the
same measurements.

    scripts/early_rule_table.py tune-sd.json rule-sd.json
"""
import json
import re
import sys

from plot_tuning import rule_early  # the rule, written once for both scripts


def derive(table):
    out = json.loads(json.dumps(table))
    for p, v in table["precisions"].items():
        cfgs, ms, pairs = [], [], {}
        for k, c in enumerate(v["configs"]):
            m = re.fullmatch(r"(.*)-(e1|e8)", c)
            if m:
                pairs.setdefault(m.group(1), {})[m.group(2)] = v["ms"][k]
            else:
                cfgs.append(c)
                ms.append(v["ms"][k])
        for base, by in pairs.items():
            if set(by) != {"e1", "e8"}:
                sys.exit(f"{p}: {base} lacks one of -e1/-e8")
            cfgs.append(base)
            ms.append([by[rule_early(p, n)][i] for i, n in enumerate(v["sizes"])])
        best = []
        for i, n in enumerate(v["sizes"]):
            k = min(range(len(cfgs)), key=lambda k: ms[k][i])
            best.append({"n": n, "config": cfgs[k], "ms": ms[k][i]})
        o = out["precisions"][p]
        o["configs"], o["ms"], o["best"] = cfgs, ms, best
    out["derived"] = ("scripts/early_rule_table.py: each -e1/-e8 pair replaced by the unsuffixed "
                      "configuration with the time of the count early_mode's rule runs at that n")
    return out


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        table = json.load(f)
    with open(argv[2], "w") as f:
        json.dump(derive(table), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
