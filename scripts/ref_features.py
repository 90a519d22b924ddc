#!/usr/bin/env python3
"""Reference features and prompts (docs/features.md, docs/prompts.md), written independently of the Rust code from
pywt + numpy, with the prompts built by Python f-strings (the seed's formats).

Writes tests/fixtures/features/<case>.json for a few configurations over
sample_data/synthetic.csv: the input windows' description, and for each aggregation
(series, sample, batch) every unit's features and its prompt under each built-in template.

    python scripts/ref_features.py
"""
import csv
import json
import math
import os
import warnings

import numpy as np
import pywt

DESCRIPTION = "Synthetic hourly test data with known structure."
PRED_LEN = 24
CASES = [
    # name, wavelet, level, mode, columns, rows, seq_len, stride, batch_size
    ("db4-l3-reflect", "db4", 3, "reflect", None, (0, 400), 96, 48, 3),
    ("sym5-l2-periodization", "sym5", 2, "periodization", ["regime", "random_walk"], (1000, 1300), 64, 40, 2),
    ("haar-l4-symmetric-odd", "haar", 4, "symmetric", ["trend_seasonal"], (0, 220), 33, 30, 4),
]
PATTERN_NAMES = ["trend", "seasonal", "fluctuation", "noise"]
TREND_NAMES = ["long-term", "seasonal", "medium-term", "short-term"]


def pattern_name(k):
    return PATTERN_NAMES[k] if k < 4 else f"band{k}"


def trend_name(k):
    return TREND_NAMES[k] if k < 4 else f"scale{k}"


def revin(x):
    return (x - x.mean()) / np.sqrt(x.var() + 1e-5)


def timellm_stats(x):
    t = len(x)
    r = np.fft.irfft(np.abs(np.fft.rfft(x)) ** 2)  # n = T for even T, T - 1 for odd
    n = len(r)
    sym = r.copy()
    for k in range(1, n):
        sym[k] = 0.5 * (r[k] + r[(n - k) % n])
    ratio = np.round(sym / sym[0], 9) if sym[0] != 0 else np.zeros(n)
    lags = [int(i) for i in np.argsort(-ratio, kind="stable")[:5]]
    return {
        "min": float(x.min()),
        "max": float(x.max()),
        "median": float(np.sort(x)[(t - 1) // 2]),
        "trend": float(x[-1] - x[0]),
        "lags": lags,
    }


def features(group, wavelet, level, mode):
    """group: list of normalised series (window-major, channel-minor)."""
    coeffs = [pywt.wavedec(x, wavelet, mode=mode, level=level) for x in group]
    bands = level + 1
    ratios, entropies, argmaxes = [], [], []
    for cs in coeffs:
        e = np.array([float(np.sum(c * c)) for c in cs])
        total = e.sum()
        r = np.full(bands, 1.0 / bands) if total == 0 else e / max(total, 1e-10)
        p = np.maximum(r, 1e-10)
        ratios.append(r)
        entropies.append(float(-np.sum(p * np.log(p))))
        argmaxes.append(int(np.argmax(r)))
    ratio = np.mean(ratios, axis=0)
    entropy = float(np.mean(entropies))
    counts = np.bincount(argmaxes, minlength=bands)
    dominant = int(np.argmax(counts))
    dominant_energy = float(ratio[dominant])
    trends, stds = [], []
    for k in range(bands):
        # docs/features.md: t_k = (c[last] - c[0]) / (len - 1), pooled over the group's
        # series. np.diff(c).mean() is the same number but rounds: where c[last] == c[0]
        # exactly it gives +-1e-17, and so a sign the definition does not.
        steps = sum(len(cs[k]) - 1 for cs in coeffs)
        rise = sum(float(cs[k][-1] - cs[k][0]) for cs in coeffs)
        trends.append(rise / steps if steps else 0.0)
        allc = np.concatenate([cs[k] for cs in coeffs])
        stds.append(float(np.std(allc, ddof=1)) if len(allc) > 1 else 0.0)
    signs = [1 if t > 0 else (-1 if t < 0 else 0) for t in trends]
    consistency = 0.5 if signs[0] == 0 else sum(1 for s in signs if s == signs[0]) / bands
    s0, sn = stds[0], stds[-1]
    if sn == 0:
        snr = 60.0 if s0 > 0 else 0.0
    else:
        snr = float(np.clip(10 * math.log10(max(s0 ** 2 / sn ** 2, 1e-10)), -60, 60))
    vol = sn / (s0 + 1e-10)
    norm_h = entropy / math.log(bands)
    score = float(np.clip(40 * (1 - consistency), 0, 40) + 35 * np.clip(norm_h, 0, 1) + 25 / (1 + math.exp((snr - 10) / 5)))

    base = "single-scale dominant" if entropy < 0.5 else ("dual-scale pattern" if entropy < 1.0 else "multi-scale complex")
    freq = base + (f" ({pattern_name(dominant)})" if dominant_energy > 0.7 else "")
    direction = "upward" if signs[0] > 0 else "downward"
    if consistency == 1.0:
        trend_desc = f"consistent {direction}"
    elif consistency >= 0.75:
        k = next(i for i, s in enumerate(signs) if s != signs[0])
        trend_desc = f"mostly {direction}, except {trend_name(k)}"
    else:
        trend_desc = f"mixed ({sum(1 for s in signs if s > 0)}/{bands} scales upward)"
    quality = "high SNR (clean)" if snr > 20 else ("moderate SNR" if snr > 10 else "low SNR (noisy)")
    if vol > 5:
        stability = "stable trend with high short-term volatility"
    elif vol > 2:
        stability = "moderate volatility across scales"
    elif vol > 0.5:
        stability = "balanced multi-scale variations"
    else:
        stability = "trend-dominated with low noise"
    middle = stds[1:-1]
    if middle and np.mean(middle) > s0 and np.mean(middle) > sn:
        stability += " (strong mid-frequency components)"
    difficulty = "low" if score < 15 else ("moderate" if score < 30 else "high")

    stats = [timellm_stats(x) for x in group]
    return {
        "energy_ratio": [float(v) for v in ratio],
        "energy_entropy": entropy,
        "dominant_band": dominant,
        "dominant_energy": dominant_energy,
        "freq_pattern": freq,
        "trends": trends,
        "trends_sign": signs,
        "trend_consistency": consistency,
        "trend_desc": trend_desc,
        "band_stds": stds,
        "snr_db": snr,
        "volatility_ratio": vol,
        "stability_desc": stability,
        "signal_quality": quality,
        "difficulty_score": score,
        "difficulty": difficulty,
        "min": float(np.mean([s["min"] for s in stats])),
        "max": float(np.mean([s["max"] for s in stats])),
        "median": float(np.mean([s["median"] for s in stats])),
        "trend": stats[0]["trend"],
        "lags": stats[0]["lags"],
    }


def prompts(f, seq_len):
    d, p, l = DESCRIPTION, PRED_LEN, seq_len
    timellm = (
        f"<|start_prompt|>Dataset description: {d}"
        f"Task description: forecast the next {str(p)} steps given the previous {str(l)} steps information; "
        "Input statistics: "
        f"min value {str(f['min'])}, "
        f"max value {str(f['max'])}, "
        f"median value {str(f['median'])}, "
        f"the trend of input is {'upward' if f['trend'] > 0 else 'downward'}, "
        f"top 5 lags are : {str(f['lags'])}<|<end_prompt>|>"
    )
    header = (f"<|start_prompt|>Dataset description: {d}\n"
              f"Task description: forecast the next {p} steps given the previous {l} steps information; \n")
    diff = f", forecast difficulty: {f['difficulty']}" if f["difficulty"] != "moderate" else ""
    balanced = (header
                + f"Input statistics: range [{f['min']:.2f}, {f['max']:.2f}], median {f['median']:.2f}\n"
                + f"Pattern analysis: {f['freq_pattern']}, trend is {f['trend_desc']}, signal quality is {f['signal_quality']}{diff}\n"
                + f"Dominant periodicities: {f['lags'][:3]}<|<end_prompt>|>")
    high = ", high difficulty" if f["difficulty"] == "high" else ""
    minimal = (f"<|start_prompt|>{d}\n"
               f"Forecast {p} from {l}: [{f['min']:.1f},{f['max']:.1f}]@{f['median']:.1f}\n"
               f"{f['freq_pattern']}, {f['trend_desc']}, {f['signal_quality']}{high}\n"
               f"Cycles: {f['lags'][:2]}<|<end_prompt>|>")
    detailed = (header
                + "Input statistics:\n"
                + f"  - Value range: [{f['min']:.2f}, {f['max']:.2f}]\n"
                + f"  - Median: {f['median']:.2f}\n"
                + "Multi-scale wavelet analysis:\n"
                + f"  - Frequency pattern: {f['freq_pattern']}\n"
                + f"  - Trend behavior: {f['trend_desc']}\n"
                + f"  - Signal quality: {f['signal_quality']} (SNR: {f['snr_db']:.1f} dB)\n"
                + f"  - Energy entropy: {f['energy_entropy']:.2f}\n"
                + f"  - Prediction difficulty: {f['difficulty']}\n"
                + f"Temporal patterns: top periodicities are {f['lags'][:5]}<|<end_prompt>|>")
    return {"timellm": timellm, "dwt-minimal": minimal, "dwt-balanced": balanced, "dwt-detailed": detailed}


def main():
    with open(os.path.join("sample_data", "synthetic.csv")) as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    out_dir = os.path.join("tests", "fixtures", "features")
    os.makedirs(out_dir, exist_ok=True)
    warnings.simplefilter("ignore")
    for name, wavelet, level, mode, columns, (r0, r1), seq, stride, bsize in CASES:
        cols = columns or header[1:]
        data = {c: np.array([float(r[header.index(c)]) for r in body[r0:r1]]) for c in cols}
        nwin = (r1 - r0 - seq) // stride + 1
        series = []  # window-major, channel-minor
        for w in range(nwin):
            for c in cols:
                series.append((w, c, revin(data[c][w * stride:w * stride + seq])))
        units = {"series": [], "sample": [], "batch": []}
        for w, c, x in series:
            units["series"].append({"window": w, "start": r0 + w * stride, "column": c, "group": [x]})
        for w in range(nwin):
            units["sample"].append({"window": w, "start": r0 + w * stride, "column": None,
                                    "group": [x for ww, _, x in series if ww == w]})
        for b0 in range(0, nwin, bsize):
            units["batch"].append({"window": b0, "start": r0 + b0 * stride, "column": None,
                                   "group": [x for ww, _, x in series if b0 <= ww < b0 + bsize]})
        doc = {"generator": "scripts/ref_features.py", "pywt_version": pywt.__version__,
               "wavelet": wavelet, "level": level, "mode": mode, "columns": cols, "rows": [r0, r1],
               "seq_len": seq, "stride": stride, "batch_size": bsize, "pred_len": PRED_LEN,
               "description": DESCRIPTION, "units": {}}
        for agg, us in units.items():
            doc["units"][agg] = []
            for u in us:
                f = features(u["group"], wavelet, level, mode)
                # JSON readers need not round floats correctly: repr strings are exact.
                exact = {k: repr(v) for k, v in f.items() if isinstance(v, float)}
                doc["units"][agg].append({"window": u["window"], "start": u["start"], "column": u["column"],
                                          "features": f, "exact": exact, "prompts": prompts(f, seq)})
        with open(os.path.join(out_dir, name + ".json"), "w") as fh:
            json.dump(doc, fh, indent=1)
    print("wrote", len(CASES), "feature fixtures")


if __name__ == "__main__":
    main()
