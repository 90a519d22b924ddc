"""A large CSV for load benchmarks (BENCHMARKS.md): hourly dates from 2000-01-01 and 7
random-walk channels with 3 decimals. Usage: python scripts/gen_big_csv.py OUT.csv [ROWS]
(15,000,000 rows make about 1.06 GB)."""
import sys

import numpy as np

out = sys.argv[1]
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 15_000_000
rng = np.random.default_rng(7)
chunk = 1_000_000
start = np.datetime64("2000-01-01T00:00:00")
level = np.zeros(7)
with open(out, "w") as f:
    f.write("date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT\n")
    for lo in range(0, rows, chunk):
        n = min(chunk, rows - lo)
        walk = level + np.cumsum(rng.normal(0, 0.1, (n, 7)), axis=0)
        level = walk[-1]
        dates = (start + np.arange(lo, lo + n) * np.timedelta64(1, "h")).astype(str)
        dates = np.char.replace(dates, "T", " ")
        body = np.char.mod("%.3f", walk)
        lines = [d + "," + ",".join(r) for d, r in zip(dates, body)]
        f.write("\n".join(lines) + "\n")
