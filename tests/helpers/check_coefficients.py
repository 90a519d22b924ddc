"""Judge wavebench's coefficient files with NumPy, pandas and PyWavelets (tests/coefficients.rs).

usage: check_coefficients.py CSV SEQ_LEN WAVELET LEVEL MODE KIND FILE...
KIND is coeffs (decompose), components (mra) or signal (waverec). Prints one JSON object:
per file, the largest difference from pywt (wavedec, mra, or the window itself), the
number of series and their labels as the file holds them.
"""
import json
import sys

import numpy as np
import pandas as pd
import pywt

csv, seq_len, wavelet, level, mode, kind, *files = sys.argv[1:]
seq_len, level = int(seq_len), int(level)
data = pd.read_csv(csv)
names = [f"cA{level}"] + [f"cD{j}" for j in range(level, 0, -1)]


def reference(column, start):
    x = data[column].to_numpy(dtype=np.float64)[start:start + seq_len].copy()
    if kind == "coeffs":
        return x, pywt.wavedec(x, wavelet, mode=mode, level=level)
    if kind == "components":
        return x, pywt.mra(x, wavelet, level=level, mode=mode, transform="dwt")
    return x, [x]


def load(path):
    """(bands per series, columns, starts, start_times) from any of the formats."""
    if path.endswith(".npz"):
        z = np.load(path)
        keys = ["signal"] if kind == "signal" else names
        bands = [[z[k][i] for k in keys] for i in range(len(z["column"]))]
        meta = {k: str(z[k]) for k in ("wavelet", "mode", "dtype", "kind")}
        meta["level"] = int(z["level"])
        return bands, list(z["column"]), list(map(int, z["start"])), list(z["start_time"]), meta
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq
        df = pd.read_parquet(path)
        keys = ["signal"] if kind == "signal" else names
        bands = [[np.asarray(df[k][i]) for k in keys] for i in range(len(df))]
        meta = json.loads(pq.read_metadata(path).metadata[b"wavebench"])
        return bands, list(df["column"]), list(map(int, df["start"])), list(df["start_time"]), meta
    if path.endswith(".npy"):
        a = np.load(path)
        return [[row] for row in a], None, None, None, None
    doc = json.load(open(path))
    bands = [[np.asarray(s[kind])] if kind == "signal" else [np.asarray(b) for b in s[kind]]
             for s in doc["series"]]
    meta = {k: doc[k] for k in ("wavelet", "mode", "level", "dtype")}
    return (bands, [s["column"] for s in doc["series"]], [s["start"] for s in doc["series"]],
            [s["start_time"] for s in doc["series"]], meta)


out = {}
labels = None
for path in files:
    bands, columns, starts, times, meta = load(path)
    if columns is None:  # .npy: rows in the order of the labelled formats, bands side by side
        columns, starts = labels
    else:
        labels = (columns, starts)
    err = 0.0
    for got, column, start in zip(bands, columns, starts):
        x, want = reference(str(column), start)
        if len(got) == 1 and len(want) > 1:
            want = [np.concatenate(want)]
        if kind == "signal":
            got = [got[0][:seq_len]]  # pywt.waverec's odd-length rule: one extra sample
        assert len(got) == len(want), (path, len(got), len(want))
        for g, w in zip(got, want):
            assert g.shape == w.shape, (path, g.shape, w.shape)
            err = max(err, float(np.max(np.abs(g - w))) / max(1.0, float(np.max(np.abs(x)))))
    out[path] = {
        "max_rel_err": err,
        "series": len(bands),
        "columns": [str(c) for c in columns],
        "starts": [int(s) for s in starts],
        "start_times": None if times is None else [str(t) for t in times],
        "meta": meta,
    }
print(json.dumps(out))
