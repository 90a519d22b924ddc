#!/usr/bin/env python3
"""Decomposition benchmark: every ETTh1 window (16,909 windows x 7 channels = 118,363 series
x 512, float32, db4, level 3, reflect) through pywt.wavedec and through wavebench's engines,
in the same run on the same machine.

    python scripts/bench_decompose.py ../shared/data/ETTh1.csv target/release/wavebench [repeats]
"""
import json
import subprocess
import sys
import time

import numpy as np
import pywt

SEQ, WAVELET, LEVEL, MODE = 512, "db4", 3, "reflect"


def main() -> None:
    path, binary = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    data = np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(1, 8), dtype=np.float64)
    windows = np.lib.stride_tricks.sliding_window_view(data.T, SEQ, axis=1)  # (7, W, SEQ)
    batch = np.ascontiguousarray(windows.reshape(-1, SEQ), dtype=np.float32)
    times = []
    for r in range(repeats + 1):
        t = time.perf_counter()
        out = pywt.wavedec(batch, WAVELET, level=LEVEL, mode=MODE, axis=-1)
        if r:
            times.append((time.perf_counter() - t) * 1e3)
    pywt_ms = sorted(times)[len(times) // 2]
    print(f"series: {batch.shape[0]} x {SEQ} {batch.dtype}, {WAVELET} level {LEVEL} {MODE}")
    print(f"{'pywt ' + pywt.__version__:<28} {pywt_ms:9.1f} ms  (median of {repeats})")
    cmd = [binary, "bench-decompose", path, "--engines", "native,torch-cpu", "--repeat", str(repeats),
           "--seq-len", str(SEQ), "--wavelet", WAVELET, "--level", str(LEVEL), "--mode", MODE, "--dtype", "f32"]
    if len(sys.argv) > 4:
        cmd[4] = sys.argv[4]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        rec = json.loads(line)
        if rec["what"] == "setup":
            assert rec["series"] == batch.shape[0], rec
            continue
        ms = rec["median_ms"]
        print(f"{'wavebench ' + rec['engine']:<28} {ms:9.1f} ms  {pywt_ms / ms:6.1f}x pywt   [{rec['device']}]")


if __name__ == "__main__":
    main()
