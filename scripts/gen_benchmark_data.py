"""Files shaped like the long-horizon benchmarks the field sweeps (issue 45, BENCHMARKS.md):
hourly dates from 2016-07-01, every channel a random walk with a daily and a weekly cycle
of its own amplitude and phase, plus noise, written with 4 decimals.

    python scripts/gen_benchmark_data.py traffic OUT.csv      # 17,544 rows x 862 channels
    python scripts/gen_benchmark_data.py electricity OUT.csv  # 26,304 rows x 321 channels
    python scripts/gen_benchmark_data.py NAME OUT.csv ROWS CHANNELS   # any other shape

The values are synthetic (seeded, so every run writes the same bytes); only the shape,
the time axis and the kind of structure are the published sets'.
"""
import sys

import numpy as np

SHAPES = {"traffic": (17_544, 862), "electricity": (26_304, 321)}


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 3 and argv[1] not in SHAPES):
        sys.exit(__doc__)
    name, out = argv[1], argv[2]
    rows, channels = (int(argv[3]), int(argv[4])) if len(argv) == 5 else SHAPES[name]
    rng = np.random.default_rng(45)
    hours = np.arange(rows)[:, None]
    daily = rng.uniform(0.5, 2.0, channels) * np.sin(2 * np.pi * hours / 24 + rng.uniform(0, 2 * np.pi, channels))
    weekly = rng.uniform(0.2, 1.0, channels) * np.sin(2 * np.pi * hours / 168 + rng.uniform(0, 2 * np.pi, channels))
    walk = np.cumsum(rng.normal(0, 0.05, (rows, channels)), axis=0)
    values = 10 + daily + weekly + walk + rng.normal(0, 0.1, (rows, channels))
    start = np.datetime64("2016-07-01T00:00:00")
    dates = np.char.replace((start + np.arange(rows) * np.timedelta64(1, "h")).astype(str), "T", " ")
    header = "date," + ",".join(f"{name}_{k}" for k in range(channels))
    with open(out, "w") as f:
        f.write(header + "\n")
        for lo in range(0, rows, 2048):
            hi = min(rows, lo + 2048)
            body = np.char.mod("%.4f", values[lo:hi])
            f.write("\n".join(d + "," + ",".join(r) for d, r in zip(dates[lo:hi], body)) + "\n")


if __name__ == "__main__":
    main(sys.argv)
