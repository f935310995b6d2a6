#!/usr/bin/env python3
"""A search's JSON-lines output over the binade [1, 2) against a published worst-case list:
how many published cases it found, and how many cases it lists with k >= 44 that the list
lacks. Usage: binade-check.py CASES.jsonl PUBLISHED.wc"""
import json
import sys

found = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    found[float.fromhex(d["x"])] = d["k"]
published = set()
for line in open(sys.argv[2]):
    tok = line.split("#")[0].split()
    if tok and 1.0 <= float.fromhex(tok[0]) < 2.0:
        published.add(float.fromhex(tok[0]))
missing = published - set(found)
extra = [x for x, k in found.items() if x not in published and k >= 44]
print(f"binade: {len(found)} cases listed, {len(published)} published in [1,2), "
      f"{len(published) - len(missing)} found, {len(missing)} missing"
      + (": " + " ".join(float.hex(x) for x in sorted(missing)[:5]) if missing else "")
      + f", {len(extra)} listed with k >= 44 not published")
