#!/usr/bin/python3
"""Per batch, over several `rooflineplan validate` outputs: the median |error| of the expected time
(against each run's median) and of the bound (against each run's fastest), the runs inside the
10-90% interval, and whether the bound stayed below every run. Usage: summarize.py validate-*.txt"""
import re, statistics, sys

rows = {}  # (phase, batch) -> list of (bound err, expected err, inside, total)
bound_lines = []
for path in sys.argv[1:]:
    for line in open(path, encoding='utf-8'):
        m = re.match(r'\s+(decode|prefill)\s+(\d+)\s.*?\s([+-]\d+\.\d)%\s+([+-]\d+\.\d)%\s+(\d+)/(\d+)\s', line)
        if m:
            key = (m.group(1), int(m.group(2)))
            rows.setdefault(key, []).append((float(m.group(3)), float(m.group(4)), int(m.group(5)), int(m.group(6))))
        elif line.startswith('bound:'):
            bound_lines.append(f'{path}: {line.strip()}')
print(f'{len(sys.argv) - 1} validate runs')
print(f'{"phase":8} {"batch":>5} {"expected |err| median":>22} {"per run":>24} {"bound err median":>17} {"inside":>8}')
inside = total = 0
for (phase, batch), v in sorted(rows.items(), key=lambda kv: (kv[0][0] != 'decode', kv[0][1])):
    e = [abs(x[1]) for x in v]
    b = [x[0] for x in v]
    i, n = sum(x[2] for x in v), sum(x[3] for x in v)
    inside, total = inside + i, total + n
    print(f'{phase:8} {batch:5d} {statistics.median(e):21.1f}% {" ".join(f"{x[1]:+.1f}" for x in v):>24} '
          f'{statistics.median(b):+16.1f}% {i:4d}/{n}')
print(f'coverage: {inside} of {total} runs ({100 * inside / total:.0f}%) inside the 10-90% interval')
for l in bound_lines: print(l)
