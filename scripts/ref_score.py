#!/usr/bin/env python3
"""The sweep's score (docs/score.md), written independently of the Rust code from numpy
+ pywt, with the claims and prompts of scripts/ref_features.py.

For one data file and one configuration it prints, as JSON, what `wavebench sweep`
writes for that configuration: the units per part, the train terciles, and for val and
test every claim x outcome's mutual information (Miller-Madow) against its null of
circular shifts (median, 95th percentile, p, excess), the score with its circular block
bootstrap interval (and every replicate's score), the effective sample size, the claims'
category counts, the prompts' diversity, and the forecast gain of the template's claims
and of the Time-LLM baseline's (docs/score.md#forecast-gain-beyond-the-series).

    python scripts/ref_score.py DATA.csv --seq-len 64 --stride 3 --pred-len 16 \\
        --wavelet db2 --level 2 --mode reflect --template dwt-balanced [--split 0.7,0.1,0.2] \\
        [--null-draws 99] [--bootstrap 199] [--level-claim]

--level-claim adds the claim a researcher would define as
`level:direction={{ "above" if last > mean else "below" }} its window mean`: designated,
so it joins every template's score (not the Time-LLM baseline's).
"""
import argparse
import csv
import json
import math
import re
import warnings

import numpy as np

import ref_features as rf

CLAIMS = ["trend", "trend_desc", "difficulty", "difficulty_high", "signal_quality",
          "stability_desc", "freq_pattern", "dominant_band", "lags"]
OUTCOMES = ["direction", "naive_mase", "vol_ratio"]
SCORED = {"trend": "direction", "trend_desc": "direction", "difficulty": "naive_mase",
          "difficulty_high": "naive_mase", "signal_quality": "naive_mase",
          "stability_desc": "vol_ratio", "freq_pattern": "vol_ratio", "dominant_band": "vol_ratio"}
# The claims each built-in template prints, and so the ones its score sums.
DWT = ["trend_desc", "difficulty", "signal_quality", "freq_pattern"]
PRINTED = {"timellm": ["trend"], "dwt-minimal": ["trend_desc", "difficulty_high", "signal_quality",
                                                 "freq_pattern"],
           "dwt-balanced": DWT, "dwt-detailed": DWT}
SEED = 0x5EED0FB175          # the null's shifts
BOOT_SEED = 0x5EED0B0075     # the bootstrap's block starts
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
    """I(C; O) in bits, each entropy Miller-Madow corrected; c and o are integer codes."""
    c, o = np.asarray(c), np.asarray(o)
    n = len(c)
    if n == 0:
        return 0.0
    joint = c.astype(np.int64) * (int(o.max()) + 1) + o
    count = lambda v: np.unique(v, return_counts=True)[1]
    return entropy_mm(count(c), n) + entropy_mm(count(o), n) - entropy_mm(count(joint), n)


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


class Rng:
    def __init__(self, seed):
        self.state = seed

    def uniform(self):
        self.state, r = splitmix64(self.state)
        return (r >> 11) / 2.0 ** 53


def shift(m, span, u):
    lo = min(span, m // 3)
    hi = m - lo
    return (lo + min(int(u * (hi - lo + 1)), hi - lo)) % m


def effective_size(x):
    x = np.asarray(x, dtype=float)
    m = len(x)
    d = x - x.mean()
    c0 = np.dot(d, d)
    if c0 == 0:
        return 1.0
    total = 0.0
    for k in range(1, m):
        rho = np.dot(d[:m - k], d[k:]) / c0
        if rho <= 0:
            break
        total += rho
    return m / (1 + 2 * total)


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
    ap.add_argument("--null-draws", type=int, default=99)
    ap.add_argument("--bootstrap", type=int, default=199)
    ap.add_argument("--level-claim", action="store_true")
    ap.add_argument("--fit-subset-above", type=int, default=None)
    a = ap.parse_args()
    claim_names = CLAIMS + (["level"] if a.level_claim else [])
    if a.level_claim:
        SCORED["level"] = "direction"
        for printed in PRINTED.values():
            if "level" not in printed:  # dwt-balanced and dwt-detailed share one list
                printed.append("level")
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
    train_windows = []  # (x, h, outcome, window) of every train unit with an outcome
    # docs/score.md#forecast-gain-beyond-the-series: the fit units are the units of every
    # k-th train window (k = ceil(T / (32 * stride)), counted from window 0) with an outcome.
    fit_every = max(1, -(-t // (32 * a.stride)))
    fit_units = []  # (claims, x, h, channel)
    units = {1: [], 2: []}  # part -> [(claims, outcome classes later, raw outcome, prompt)]
    left_out = 0
    for w in range(windows):
        s = w * a.stride
        horizon = (s + t, s + t + p)
        part = next((k for k, (b0, b1) in enumerate(parts) if b0 <= horizon[0] and horizon[1] <= b1), None)
        if part is None:
            continue
        for ch, col in enumerate(columns):
            o = outcome(col[s:s + t], col[s + t:s + t + p])
            if o is None:
                left_out += 1
                continue
            if part == 0:
                train_values[0].append(o[1])
                train_values[1].append(o[2])
                train_windows.append((col[s:s + t], col[s + t:s + t + p], o, w))
                if w % fit_every:
                    continue
            f = rf.features([rf.revin(col[s:s + t])], a.wavelet, a.level, a.mode)
            claims = {
                "trend": "upward" if f["trend"] > 0 else "downward",
                "trend_desc": f["trend_desc"],
                "difficulty": f["difficulty"],
                "difficulty_high": "high" if f["difficulty"] == "high" else "not high",
                "signal_quality": f["signal_quality"],
                "stability_desc": f["stability_desc"],
                "freq_pattern": f["freq_pattern"],
                "dominant_band": bands[f["dominant_band"]],
                "lags": str(f["lags"]),
            }
            if a.level_claim:
                x = col[s:s + t]
                claims["level"] = ("above" if x[-1] > x.mean() else "below") + " its window mean"
            if part == 0:
                fit_units.append((claims, col[s:s + t], col[s + t:s + t + p], ch))
                continue
            units[part].append((claims, o, rf.prompts(f, t)[a.template], ch, w, col[s:s + t]))
    q_mase = np.quantile(train_values[0], [1 / 3, 2 / 3])
    q_vol = np.quantile(train_values[1], [1 / 3, 2 / 3])
    tercile = lambda v, q: 0 if v < q[0] else (1 if v < q[1] else 2)

    # The series-only forecaster: ridge on z = (x - x[T-1]) / mean|diff x| and a constant.
    def inputs(x):
        scale = np.mean(np.abs(np.diff(x)))
        return np.append((x - x[-1]) / scale, 1.0), scale

    # docs/score.md#what-the-prompt-adds-beyond-the-series: with --fit-subset-above N and
    # more than N train units (windows whose horizon lies in train, x channels), the
    # forecasters are fit on the units of every k-th train window (the fit units' k).
    train_count = sum(1 for w in range(windows)
                      if parts[0][0] <= w * a.stride + t and w * a.stride + t + p <= parts[0][1]) * len(columns)
    every = fit_every if a.fit_subset_above is not None and train_count > a.fit_subset_above else 1
    fitted = [u for u in train_windows if u[3] % every == 0]
    rows, ys, hs = [], [], []
    for x, h, o, _ in fitted:
        z, scale = inputs(x)
        y = [(h.mean() - x[-1]) / scale, math.log(o[1]) if o[1] > 0 else -math.inf,
             math.log(o[2]) if o[2] > 0 else -math.inf]
        if all(math.isfinite(v) for v in y):
            rows.append(z)
            ys.append(y)
            hs.append((h - x[-1]) / scale)
    A, Y = np.array(rows), np.array(ys)
    G = A.T @ A
    lam = 1e-3 * np.trace(G[:t, :t]) / t
    G[np.arange(t), np.arange(t)] += lam
    beta = np.linalg.solve(G, A.T @ Y)  # (T + 1) x 3
    # The horizon forecaster: the same ridge on the same units, the P targets (H - x[T-1]) / s.
    horizon_beta = np.linalg.solve(G, A.T @ np.array(hs))  # (T + 1) x P

    def residual(x, h):
        z, scale = inputs(x)
        return (h - x[-1]) / scale - z @ horizon_beta, scale

    # Each channel's std over the train part's rows (numpy's, ddof 0; 1 where 0).
    b0, b1 = parts[0]
    sigma = [float(np.std(col[b0:b1])) or 1.0 for col in columns]
    fit_r = np.array([residual(x, h)[0] for _, x, h, _ in fit_units])

    def fit_claims(names):
        """The ridge of the fit units' residuals on the claims' categories: per kept claim its
        categories' coefficient rows, and the claims left out (over 64 categories)."""
        cols, kept = [], []
        for c in names:
            cats = sorted({u[0][c] for u in fit_units})
            if len(cats) > 64:
                continue
            kept.append((c, cats))
            cols.extend((c, v) for v in cats)
        k = len(cols)
        if k == 0:
            return {}, 0
        D = np.array([[1.0 if u[0][c] == v else 0.0 for c, v in cols] for u in fit_units])
        DtD = D.T @ D
        mu = 1e-3 * np.trace(DtD) / k
        b = np.linalg.solve(DtD + mu * np.eye(k), D.T @ fit_r)
        return {cv: b[i] for i, cv in enumerate(cols)}, k
    train_pred = np.array([inputs(x)[0] @ beta for x, _, _, _ in fitted])
    q_fm = np.quantile(train_pred[:, 1], [1 / 3, 2 / 3])
    q_fv = np.quantile(train_pred[:, 2], [1 / 3, 2 / 3])

    def predicted(x):
        pr = inputs(x)[0] @ beta
        return [1 if pr[0] > 0 else 0, tercile(pr[1], q_fm), tercile(pr[2], q_fv)]

    out = {"units": {"train": len(train_values[0]), "val": len(units[1]), "test": len(units[2]),
                     "left_out": left_out},
           "terciles": {"naive_mase": [float(q) for q in q_mase], "vol_ratio": [float(q) for q in q_vol]}}
    span = -(-(t + p) // a.stride)  # ceil((T + P) / stride)
    for part, name in ((1, "val"), (2, "test")):
        # The units in sequence order: channel, then window.
        us = sorted(units[part], key=lambda u: (u[3], u[4]))
        classes = {"direction": [u[1][0] for u in us],
                   "naive_mase": [tercile(u[1][1], q_mase) for u in us],
                   "vol_ratio": [tercile(u[1][2], q_vol) for u in us]}
        seqs = []  # (start, end) of each channel's units
        for i, u in enumerate(us):
            if i == 0 or u[3] != us[i - 1][3]:
                seqs.append([i, i + 1])
            else:
                seqs[-1][1] = i + 1
        rng = Rng(SEED)
        shifted = []  # per draw, the index each unit takes its outcome from
        for _ in range(a.null_draws):
            uu = rng.uniform()
            idx = []
            for s0, s1 in seqs:
                m = s1 - s0
                k = shift(m, span, uu)
                idx.extend(s0 + (j + k) % m for j in range(m))
            shifted.append(np.array(idx))
        rng = Rng(BOOT_SEED)
        replicates = []  # per replicate, the indices of its units
        for _ in range(a.bootstrap):
            idx = []
            for s0, s1 in seqs:
                m = s1 - s0
                block = max(1, min(span, m))
                left = m
                for _ in range(-(-m // block)):
                    start = min(int(rng.uniform() * m), m - 1)
                    n_take = min(block, left)
                    left -= n_take
                    idx.extend(s0 + (start + j) % m for j in range(n_take))
            replicates.append(np.array(idx))
        cls = {k: np.array(v) for k, v in classes.items()}
        guess = np.array([predicted(u[5]) for u in us])
        # Per outcome, (outcome, predicted class) as one code: what is shifted together.
        fc = {o: guess[:, i] for i, o in enumerate(OUTCOMES)}

        def cmi(ids, o, idx=None):
            """I(C; O | B) = H(C,B) + H(O,B) - H(C,O,B) - H(B), each Miller-Madow."""
            oo, bb = (cls[o], fc[o]) if idx is None else (cls[o][idx], fc[o][idx])
            n = len(ids)
            cnt = lambda v: np.unique(v, return_counts=True)[1]
            return (entropy_mm(cnt(ids * 3 + bb), n) + entropy_mm(cnt(oo * 3 + bb), n)
                    - entropy_mm(cnt(ids * 9 + oo * 3 + bb), n) - entropy_mm(cnt(bb), n))

        def against(observed, null):
            med = float(np.quantile(null, 0.5))
            return {"mi_bits": observed, "null_median": med,
                    "null_p95": float(np.quantile(null, 0.95)),
                    "p": (1 + int(np.sum(null >= observed - 1e-12))) / (len(null) + 1),
                    "excess_bits": observed - med}

        forecaster = {o: against(mutual_information(fc[o], cls[o]),
                                 np.array([mutual_information(fc[o], cls[o][sh]) for sh in shifted]))
                      for o in OUTCOMES}
        claims, complementary, categories, score, mi_sum, comp = {}, {}, {}, 0.0, 0.0, 0.0
        boot_scores = np.zeros(a.bootstrap)
        boot_comp = np.zeros(a.bootstrap)
        base_score, base_boot = 0.0, np.zeros(a.bootstrap)
        base_comp, base_comp_boot = 0.0, np.zeros(a.bootstrap)
        for c in claim_names:
            col = [u[0][c] for u in us]
            names = {}
            ids = np.array([names.setdefault(v, len(names)) for v in col])
            claims[c], complementary[c] = {}, {}
            for o in OUTCOMES:
                # The claim shifted against outcome and prediction together.
                cm = cmi(ids, o)
                complementary[c][o] = against(cm, np.array([cmi(ids, o, sh) for sh in shifted]))
                mi = mutual_information(ids, cls[o])
                null = np.array([mutual_information(ids, cls[o][sh]) for sh in shifted])
                med = float(np.quantile(null, 0.5))
                claims[c][o] = {"mi_bits": mi, "null_median": med,
                                "null_p95": float(np.quantile(null, 0.95)),
                                "p": (1 + int(np.sum(null >= mi - 1e-12))) / (a.null_draws + 1),
                                "excess_bits": mi - med}
                if SCORED.get(c) == o and c == "trend":  # Time-LLM's baseline
                    base_score += mi - med
                    base_boot += np.array([mutual_information(ids[r], cls[o][r]) for r in replicates]) - med
                    bmed = complementary[c][o]["null_median"]
                    base_comp += cm - bmed
                    base_comp_boot += np.array([cmi(ids[r], o, r) for r in replicates]) - bmed
                if SCORED.get(c) == o and c in PRINTED[a.template]:
                    score += mi - med
                    mi_sum += mi
                    boot_scores += np.array([mutual_information(ids[r], cls[o][r]) for r in replicates]) - med
                    cmed = complementary[c][o]["null_median"]
                    comp += cm - cmed
                    boot_comp += np.array([cmi(ids[r], o, r) for r in replicates]) - cmed
            categories[c] = {k: col.count(k) for k in set(col)}
        # The forecast gain of the template's claims and of the baseline's, per unit errors
        # standardised by the channel's sigma, the same replicates.
        res = [residual(u[5], columns[u[3]][u[4] * a.stride + t:u[4] * a.stride + t + p]) for u in us]
        errors0 = np.array([(sc / sigma[u[3]]) ** 2 * np.sum(r ** 2) for (r, sc), u in zip(res, us)])
        abs0 = sum(sc / sigma[u[3]] * np.sum(np.abs(r)) for (r, sc), u in zip(res, us))

        def forecast(names):
            coef, k = fit_claims([c for c in names if c != "lags"])
            e1, abs1 = [], 0.0
            for (r, sc), u in zip(res, us):
                g = sum((coef[(c, u[0][c])] for c in names if (c, u[0][c]) in coef), np.zeros(p))
                w = sc / sigma[u[3]]
                e1.append(w * w * np.sum((g - r) ** 2))
                abs1 += w * np.sum(np.abs(g - r))
            e1 = np.array(e1)
            cells = len(us) * p
            boot = [1 - e1[r].sum() / errors0[r].sum() for r in replicates]
            return {"mse_series": float(errors0.sum() / cells), "mse_with_claims": float(e1.sum() / cells),
                    "mae_series": float(abs0 / cells), "mae_with_claims": float(abs1 / cells),
                    "gain": float(1 - e1.sum() / errors0.sum()), "columns": k,
                    "interval": [float(q) for q in np.quantile(boot, [0.025, 0.975])],
                    "boot": [float(v) for v in boot]}

        n_eff = sum(effective_size(classes["direction"][s0:s1]) for s0, s1 in seqs)
        texts = [u[2] for u in us]
        distinct, entropy = plug_in_bits(texts)
        distinct_m, entropy_m = plug_in_bits([re.sub(r"[0-9]+", "#", x) for x in texts])
        # docs/score.md#intervals-withheld: no channel sequence of two blocks, no interval.
        longest = max((s1 - s0 for s0, s1 in seqs), default=0)
        out[name] = {"units": len(us), "score_bits": score, "mi_bits_sum": mi_sum,
                     "longest": longest, "span": span,
                     "intervals_withheld": bool(longest < 2 * span),
                     "interval": [float(q) for q in np.quantile(boot_scores, [0.025, 0.975])],
                     "boot": [float(v) for v in boot_scores], "n_eff": n_eff,
                     "complementary_bits": comp,
                     "baseline": {"score_bits": base_score, "boot": [float(v) for v in base_boot],
                                  "complementary_bits": base_comp,
                                  "boot_complementary": [float(v) for v in base_comp_boot]},
                     "boot_complementary": [float(v) for v in boot_comp],
                     "complementary_interval": [float(q) for q in np.quantile(boot_comp, [0.025, 0.975])],
                     "forecaster": forecaster, "forecast_classes": [float(v) for v in [*q_fm, *q_fv]],
                     "forecast": forecast(PRINTED[a.template]),
                     "baseline_forecast": forecast(["trend"]),
                     "claims": claims, "complementary": complementary, "categories": categories,
                     "diversity": {"distinct": distinct, "entropy_bits": entropy,
                                   "distinct_masked": distinct_m, "entropy_masked_bits": entropy_m}}
    json.dump(out, fp=__import__("sys").stdout, indent=1)


if __name__ == "__main__":
    main()
