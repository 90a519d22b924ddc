#!/usr/bin/env python3
"""Decomposition benchmark: every ETTh1 window (16,909 windows x 7 channels = 118,363 series
x 512, float32, db4, level 3, reflect) through pywt.wavedec and through wavebench's engines,
on the same machine in the same run.

    python scripts/bench_decompose.py sample_data/ETTh1.csv target/release/wavebench [repeats] [rounds]

Shared machines drift by tens of percent within a minute, so the two are measured in
alternating rounds (pywt, then wavebench) and each speed-up is taken within its round; the
summary gives the median round. torch-cpu (about 2 s a run) is timed in the first round only.
"""
import json
import statistics
import subprocess
import sys
import time

import numpy as np
import pywt

SEQ, WAVELET, LEVEL, MODE = 512, "db4", 3, "reflect"


def time_pywt(batch: np.ndarray, repeats: int) -> float:
    """Median wall time of pywt.wavedec over the batch, after one warm-up run."""
    times = []
    for r in range(repeats + 1):
        t = time.perf_counter()
        pywt.wavedec(batch, WAVELET, level=LEVEL, mode=MODE, axis=-1)
        if r:
            times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def time_wavebench(path: str, binary: str, engines: str, repeats: int, series: int) -> dict:
    """{engine: (median ms, device)} from `wavebench bench-decompose`."""
    cmd = [binary, "bench-decompose", path, "--engines", engines, "--repeat", str(repeats),
           "--seq-len", str(SEQ), "--wavelet", WAVELET, "--level", str(LEVEL), "--mode", MODE,
           "--dtype", "f32"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = {}
    for line in res.stdout.splitlines():
        rec = json.loads(line)
        if rec["what"] == "setup":
            assert rec["series"] == series, rec
        else:
            out[rec["engine"]] = (rec["median_ms"], rec["device"])
    return out


def main() -> None:
    path, binary = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    data = np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(1, 8), dtype=np.float64)
    windows = np.lib.stride_tricks.sliding_window_view(data.T, SEQ, axis=1)  # (7, W, SEQ)
    batch = np.ascontiguousarray(windows.reshape(-1, SEQ), dtype=np.float32)
    print(f"series: {batch.shape[0]} x {SEQ} {batch.dtype}, {WAVELET} level {LEVEL} {MODE}; "
          f"pywt {pywt.__version__}; medians of {repeats} runs per round")
    speedups: dict = {}
    for r in range(rounds):
        pywt_ms = time_pywt(batch, repeats)
        engines = "native,torch-cpu" if r == 0 else "native"
        ours = time_wavebench(path, binary, engines, repeats, batch.shape[0])
        line = [f"round {r + 1}: pywt {pywt_ms:7.1f} ms"]
        for name, (ms, device) in ours.items():
            speedups.setdefault((name, device), []).append((pywt_ms / ms, ms))
            line.append(f"{name} {ms:7.1f} ms = {pywt_ms / ms:5.1f}x")
        print(" | ".join(line))
    print("median round:")
    for (name, device), runs in speedups.items():
        x = statistics.median(s for s, _ in runs)
        ms = statistics.median(m for _, m in runs)
        print(f"  wavebench {name:<22} {ms:8.1f} ms  {x:5.1f}x pywt  [{device}]")


if __name__ == "__main__":
    main()
