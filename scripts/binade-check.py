#!/usr/bin/env python3
"""A search's JSON-lines output over a binade against a published worst-case list: how many
published cases it found, and how many cases it lists with k >= 44 that the list lacks.
Usage: binade-check.py CASES.jsonl PUBLISHED.wc [FROM TO [KMIN]]   (default [1, 2); FROM and TO
are the search's --from and --to, hex floats, so FROM < TO also for negative binades; KMIN, the
hardness from which a listed case must be published to not count as extra, default 44)"""
import json
import sys

lo, hi = (float.fromhex(a) for a in sys.argv[3:5]) if len(sys.argv) >= 5 else (1.0, 2.0)
kmin = int(sys.argv[5]) if len(sys.argv) >= 6 else 44
found = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "x" in d and "k" in d:
        found[float.fromhex(d["x"])] = d["k"]
published = set()
for line in open(sys.argv[2]):
    tok = line.split("#")[0].split()
    try:
        x = float.fromhex(tok[0]) if tok else None
    except ValueError:  # +inf, nan, snan: special inputs, no binade's
        continue
    if x is not None and lo <= x < hi:
        published.add(x)
missing = published - set(found)
extra = [x for x, k in found.items() if x not in published and k >= kmin]
print(f"binade [{float.hex(lo)}, {float.hex(hi)}): {len(found)} cases listed, "
      f"{len(published)} published, {len(published) - len(missing)} found, {len(missing)} missing"
      + (": " + " ".join(float.hex(x) for x in sorted(missing)[:5]) if missing else "")
      + f", {len(extra)} listed with k >= {kmin} not published"
      + (": " + " ".join(float.hex(x) for x in sorted(extra)[:5]) if extra else ""))
