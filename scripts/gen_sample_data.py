#!/usr/bin/env python3
"""Write sample_data/synthetic.csv (and synthetic_gaps.csv): a multi-channel hourly series
with known structure, for demos and tests. Deterministic (fixed seed).

Channels (4,000 hourly rows from 2020-01-01):
  trend_seasonal  linear trend + daily (24 h) and weekly (168 h) cycles, noise at SNR 20 dB
  noisy_seasonal  the same daily cycle under heavy noise, SNR 0 dB
  regime          a level + variance change at row 2,500 (a regime change)
  random_walk     cumulative Gaussian steps
synthetic_gaps.csv is the same data with ~2% of cells emptied (for --missing policies).
"""
import csv
import math
import os
import random


def main(out_dir: str) -> None:
    rng = random.Random(20261122)
    n = 4000
    rows = []
    walk = 0.0
    for t in range(n):
        daily = math.sin(2 * math.pi * t / 24)
        weekly = 0.5 * math.sin(2 * math.pi * t / 168)
        signal = 0.002 * t + daily + weekly
        # SNR 20 dB: noise power = signal power / 100; signal power of the cycles ~0.625
        ts = signal + rng.gauss(0, math.sqrt(0.625 / 100))
        ns = daily + rng.gauss(0, math.sqrt(0.5))  # SNR 0 dB against the daily cycle (power 0.5)
        regime = (1.0 + rng.gauss(0, 0.1)) if t < 2500 else (3.0 + rng.gauss(0, 0.6))
        walk += rng.gauss(0, 0.1)
        day, hour = divmod(t, 24)
        rows.append([day, hour, round(ts, 6), round(ns, 6), round(regime, 6), round(walk, 6)])
    header = ["date", "trend_seasonal", "noisy_seasonal", "regime", "random_walk"]

    def stamp(day: int, hour: int) -> str:
        import datetime
        d = datetime.datetime(2020, 1, 1) + datetime.timedelta(days=day, hours=hour)
        return d.strftime("%Y-%m-%d %H:%M:%S")

    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "synthetic.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([stamp(r[0], r[1])] + r[2:])
    gaps = random.Random(7)
    with open(os.path.join(out_dir, "synthetic_gaps.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([stamp(r[0], r[1])] + ["" if gaps.random() < 0.02 else v for v in r[2:]])


if __name__ == "__main__":
    main(os.path.join("sample_data"))
