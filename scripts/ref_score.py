#!/usr/bin/env python3
"""The sweep's score (docs/score.md), written independently of the Rust code from numpy
+ pywt, with the claims and prompts of scripts/ref_features.py.

For one data file and one configuration it prints, as JSON, what `wavebench sweep`
writes for that configuration: the units per part, the train terciles, and for val and
test every claim x outcome's mutual information (Miller-Madow) and noise floor, the
claims' category counts, the score and the prompts' diversity.

    python scripts/ref_score.py DATA.csv --seq-len 64 --stride 3 --pred-len 16 \\
        --wavelet db2 --level 2 --mode reflect --template dwt-balanced [--split 0.7,0.1,0.2]
"""
import argparse
import csv
import json
import math
import re
import warnings

import numpy as np

import ref_features as rf

CLAIMS = ["trend", "trend_desc", "difficulty", "signal_quality", "stability_desc",
          "freq_pattern", "dominant_band", "lags"]
OUTCOMES = ["direction", "naive_mase", "vol_ratio"]
SCORED = {"trend": "direction", "trend_desc": "direction", "difficulty": "naive_mase",
          "signal_quality": "naive_mase", "stability_desc": "vol_ratio",
          "freq_pattern": "vol_ratio", "dominant_band": "vol_ratio"}
SEED = 0x5EED0FB175
MASK = (1 << 64) - 1


def borders(split, n):
    if split in ("ett-hour", "ett-minute"):
        k = 4 if split == "ett-minute" else 1
        a, b = 8640 * k, 2880 * k
        return [(0, a), (a, a + b), (a + b, a + 2 * b)]
    train, _, test = (float(v) for v in split.split(","))
    n_train, n_test = int(n * train), int(n * test)
    n_val = n - n_train - n_test
    return [(0, n_train), (n_train, n_train + n_val), (n_train + n_val, n)]


def outcome(x, h):
    steps = np.mean(np.abs(np.diff(x)))
    vol_x = np.std(np.diff(x))
    if steps == 0 or vol_x == 0:
        return None
    return (1 if h.mean() > x[-1] else 0,
            np.mean(np.abs(h - x[-1])) / steps,
            np.std(np.diff(h)) / vol_x)


def entropy_mm(counts, n):
    p = np.array([c for c in counts if c > 0], dtype=float) / n
    return (-np.sum(p * np.log(p)) + (len(p) - 1) / (2 * n)) / math.log(2)


def mutual_information(c, o):
    n = len(c)
    if n == 0:
        return 0.0
    joint = {}
    for a, b in zip(c, o):
        joint[(a, b)] = joint.get((a, b), 0) + 1
    count = lambda v: list({k: v.count(k) for k in set(v)}.values())
    return entropy_mm(count(list(c)), n) + entropy_mm(count(list(o)), n) - entropy_mm(list(joint.values()), n)


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def permutation(n):
    p = list(range(n))
    state = SEED
    for i in range(n - 1, 0, -1):
        state, r = splitmix64(state)
        j = r % (i + 1)
        p[i], p[j] = p[j], p[i]
    return p


def plug_in_bits(texts):
    counts = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    p = np.array(list(counts.values()), dtype=float) / len(texts)
    return len(counts), float(-np.sum(p * np.log2(p)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--seq-len", type=int, required=True)
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--pred-len", type=int, default=96)
    ap.add_argument("--split", default="0.7,0.1,0.2")
    ap.add_argument("--wavelet", required=True)
    ap.add_argument("--level", type=int, required=True)
    ap.add_argument("--mode", default="reflect")
    ap.add_argument("--template", default="dwt-balanced")
    ap.add_argument("--description", default="")
    a = ap.parse_args()
    warnings.simplefilter("ignore")

    with open(a.data) as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    columns = []
    for k, name in enumerate(header):
        try:
            columns.append(np.array([float(r[k]) for r in body]))
        except ValueError:
            pass  # the date column
    n, t, p = len(body), a.seq_len, a.pred_len
    parts = borders(a.split, n)
    windows = (n - t) // a.stride + 1
    rf.DESCRIPTION, rf.PRED_LEN = a.description, p
    bands = [f"cA{a.level}"] + [f"cD{j}" for j in range(a.level, 0, -1)]

    train_values = [[], []]
    units = {1: [], 2: []}  # part -> [(claims, outcome classes later, raw outcome, prompt)]
    left_out = 0
    for w in range(windows):
        s = w * a.stride
        horizon = (s + t, s + t + p)
        part = next((k for k, (b0, b1) in enumerate(parts) if b0 <= horizon[0] and horizon[1] <= b1), None)
        if part is None:
            continue
        for col in columns:
            o = outcome(col[s:s + t], col[s + t:s + t + p])
            if o is None:
                left_out += 1
                continue
            if part == 0:
                train_values[0].append(o[1])
                train_values[1].append(o[2])
                continue
            f = rf.features([rf.revin(col[s:s + t])], a.wavelet, a.level, a.mode)
            claims = {
                "trend": "upward" if f["trend"] > 0 else "downward",
                "trend_desc": f["trend_desc"],
                "difficulty": f["difficulty"],
                "signal_quality": f["signal_quality"],
                "stability_desc": f["stability_desc"],
                "freq_pattern": f["freq_pattern"],
                "dominant_band": bands[f["dominant_band"]],
                "lags": str(f["lags"]),
            }
            units[part].append((claims, o, rf.prompts(f, t)[a.template]))
    q_mase = np.quantile(train_values[0], [1 / 3, 2 / 3])
    q_vol = np.quantile(train_values[1], [1 / 3, 2 / 3])
    tercile = lambda v, q: 0 if v < q[0] else (1 if v < q[1] else 2)

    out = {"units": {"train": len(train_values[0]), "val": len(units[1]), "test": len(units[2]),
                     "left_out": left_out},
           "terciles": {"naive_mase": [float(q) for q in q_mase], "vol_ratio": [float(q) for q in q_vol]}}
    for part, name in ((1, "val"), (2, "test")):
        us = units[part]
        classes = {"direction": [u[1][0] for u in us],
                   "naive_mase": [tercile(u[1][1], q_mase) for u in us],
                   "vol_ratio": [tercile(u[1][2], q_vol) for u in us]}
        perm = permutation(len(us))
        permuted = {k: [v[i] for i in perm] for k, v in classes.items()}
        claims, categories, score = {}, {}, 0.0
        for c in CLAIMS:
            col = [u[0][c] for u in us]
            claims[c] = {o: {"mi_bits": mutual_information(col, classes[o]),
                             "noise_bits": mutual_information(col, permuted[o])} for o in OUTCOMES}
            if c in SCORED:
                score += claims[c][SCORED[c]]["mi_bits"]
            categories[c] = {k: col.count(k) for k in set(col)}
        texts = [u[2] for u in us]
        distinct, entropy = plug_in_bits(texts)
        distinct_m, entropy_m = plug_in_bits([re.sub(r"[0-9]+", "#", x) for x in texts])
        out[name] = {"units": len(us), "score_bits": score, "claims": claims, "categories": categories,
                     "diversity": {"distinct": distinct, "entropy_bits": entropy,
                                   "distinct_masked": distinct_m, "entropy_masked_bits": entropy_m}}
    json.dump(out, fp=__import__("sys").stdout, indent=1)


if __name__ == "__main__":
    main()
