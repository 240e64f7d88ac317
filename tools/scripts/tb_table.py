#!/usr/bin/env python3
"""Markdown table of a generation run: per job, positions, W/D/L, distances and bytes from
`mill-tb info`, time, speed and peak memory from the logs of `mill-tb generate`.

usage: tb_table.py INFO_FILE LOG [LOG ...]   (a later log's line for a job wins)
"""
import re
import sys

info = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 13 and f[0].endswith(tuple("0123456789")) and "-" in f[0]:
        name = f[0].rsplit("-", 1)[1]
        info[name] = dict(zip(
            ["slots", "positions", "wins", "draws", "losses", "mill", "maxw", "maxl", "spoilt",
             "bytes"], map(int, f[1:11])))

jobs = {}
pat = re.compile(r" (\d+v\d+): solved (\d+) positions \((\d+) slots\), (\d+) levels, setup ([\d.]+)s,"
                 r" total ([\d.]+)s, ([\d.]+) M positions/s, written in ([\d.]+)s(?:, peak memory (.*))?")
for log in sys.argv[2:]:
    for line in open(log):
        m = pat.search(line)
        if m:
            jobs[m.group(1)] = m.groups()

def pair(name):
    w, b = name.split("v")
    return [name] if w == b else [name, f"{b}v{w}"]

print("| job | positions | wins | draws | losses | spoilt | longest mill | levels | solve | write |"
      " positions/s | peak memory | files |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
tot = dict(positions=0, wins=0, draws=0, losses=0, spoilt=0, bytes=0, solve=0.0, write=0.0)
for name, g in sorted(jobs.items(), key=lambda kv: (sum(map(int, kv[0].split("v"))), kv[0])):
    tabs = [info[t] for t in pair(name) if t in info]
    s = {k: sum(t[k] for t in tabs) for k in ["positions", "wins", "draws", "losses", "spoilt", "bytes"]}
    mill = max(t["mill"] for t in tabs)
    for k in s:
        tot[k] += s[k]
    tot["solve"] += float(g[5])
    tot["write"] += float(g[7])
    print(f"| {name} | {s['positions']:,} | {s['wins']:,} | {s['draws']:,} | {s['losses']:,} |"
          f" {s['spoilt']:,} | {mill} | {g[3]} | {float(g[5]):.1f} s | {float(g[7]):.1f} s |"
          f" {float(g[6]):.2f} M | {g[8] or '-'} | {s['bytes'] / 1e6:.1f} MB |")
print(f"| all | {tot['positions']:,} | {tot['wins']:,} | {tot['draws']:,} | {tot['losses']:,} |"
      f" {tot['spoilt']:,} | | | {tot['solve']:.0f} s | {tot['write']:.0f} s |"
      f" {tot['positions'] / tot['solve'] / 1e6:.2f} M | | {tot['bytes'] / 1e9:.2f} GB |")
