"""Does an engine compute what the native one does, through the CLI a researcher uses?

Runs `wavebench decompose`, `features` and `prompts` on DATA with the native engine and
with ENGINE (torch-cuda on a GPU machine; torch-cpu anywhere, as a dry run), for several
wavelets, levels and modes, and compares:
- coefficients: max |a - b| over each window's max |x|-scale (the coefficients' own max),
  which must stay under float32's few-ulp level (TOL);
- feature values: numeric columns by scaled error, categorical columns by mismatches
  (a float32 value next to a category's cut point may fall either side: counted, not hidden);
- prompts: how many are byte-identical.
It also checks that each run really used ENGINE (the npz records it), so a silent fallback
to the CPU cannot pass as agreement. Exit 1 when a coefficient exceeds TOL or the engine
fell back. numpy only.

usage: python scripts/engine_agreement.py BIN DATA [--engine torch-cuda] [--out DIR] [--stride S]
"""
import argparse
import csv
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

TOL = 1e-5  # float32 with one rounding per filter tap and level stays well inside this
CONFIGS = [  # wavelet, level, mode: short and long filters, every boundary family
    ("db4", 3, "reflect"),
    ("haar", 4, "periodization"),
    ("sym5", 2, "smooth"),
    ("coif2", 3, "symmetric"),
    ("bior2.2", 3, "zero"),
    ("db8", 5, "periodic"),
    ("dmey", 1, "antisymmetric"),
]


def run(bin_, args, engine):
    t = time.perf_counter()
    subprocess.run([bin_, *args, "--engine", engine, "-q"], check=True)
    return time.perf_counter() - t


def compare_coefficients(a, b, engine):
    za, zb = np.load(a), np.load(b)
    if str(zb["engine"]) != engine:
        return None, f"ran on {zb['engine']}, not {engine}"
    bands = [k for k in za.keys() if k.startswith(("cA", "cD"))]
    if sorted(bands) != sorted(k for k in zb.keys() if k.startswith(("cA", "cD"))):
        return None, "different bands"
    scale = np.maximum.reduce([np.abs(za[k]).max(axis=1) for k in bands])
    scale[scale == 0] = 1.0
    worst = 0.0
    for k in bands:
        if za[k].shape != zb[k].shape:
            return None, f"{k}: shape {za[k].shape} vs {zb[k].shape}"
        err = (np.abs(za[k].astype(np.float64) - zb[k]).max(axis=1)) / scale
        worst = max(worst, float(err.max()))
    return worst, None


def compare_features(a, b):
    with open(a) as fa, open(b) as fb:
        ra, rb = list(csv.reader(fa)), list(csv.reader(fb))
    if len(ra) != len(rb) or ra[0] != rb[0]:
        return {"error": f"{len(ra)} vs {len(rb)} rows, or different columns"}
    head, ra, rb = ra[0], ra[1:], rb[1:]
    worst, mismatched = {}, {}
    for j, name in enumerate(head):
        col_a = [r[j] for r in ra]
        col_b = [r[j] for r in rb]
        try:
            va, vb = np.array(col_a, dtype=np.float64), np.array(col_b, dtype=np.float64)
        except ValueError:
            n = sum(x != y for x, y in zip(col_a, col_b))
            if n:
                mismatched[name] = n
            continue
        if name.startswith(("lags_", "window", "start", "dominant_band", "trends_sign")):
            n = int((va != vb).sum())
            if n:
                mismatched[name] = n
            continue
        err = np.abs(va - vb) / np.maximum(np.abs(va), 1.0)
        worst[name] = float(np.nanmax(err)) if len(err) else 0.0
    top = sorted(worst.items(), key=lambda kv: -kv[1])[:3]
    return {"rows": len(ra), "worst_relative": top, "category_mismatches": mismatched}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("data")
    ap.add_argument("--engine", default="torch-cuda")
    ap.add_argument("--out", default="agreement")
    ap.add_argument("--seq-len", default="512")
    ap.add_argument("--stride", default="1", help="every STRIDE-th window (fewer, for a quick run)")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    ok = True
    report = {"engine": a.engine, "data": a.data, "tolerance": TOL, "configs": []}
    for wavelet, level, mode in CONFIGS:
        common = [a.data, "--wavelet", wavelet, "--level", str(level), "--mode", mode, "--seq-len", a.seq_len, "--stride", a.stride]
        row = {"wavelet": wavelet, "level": level, "mode": mode}
        secs = {}
        for eng in ("native", a.engine):
            tag = eng.replace("-", "_")
            secs[eng] = run(a.bin, ["decompose", *common, "-o", str(out / f"{tag}.npz")], eng)
            run(a.bin, ["features", *common, "-o", str(out / f"{tag}.csv")], eng)
            run(a.bin, ["prompts", *common, "-o", str(out / f"{tag}.jsonl")], eng)
        worst, why = compare_coefficients(out / "native.npz", out / f"{a.engine.replace('-', '_')}.npz", a.engine)
        row["coefficients_scaled_error"] = worst
        row["decompose_seconds"] = secs
        if why or worst > TOL:
            ok = False
            row["failure"] = why or f"scaled error {worst:.2e} > {TOL:.0e}"
        row["features"] = compare_features(out / "native.csv", out / f"{a.engine.replace('-', '_')}.csv")
        pa = (out / "native.jsonl").read_text().splitlines()
        pb = (out / f"{a.engine.replace('-', '_')}.jsonl").read_text().splitlines()
        row["prompts"] = {
            "count": len(pa),
            "identical": sum(json.loads(x)["prompt"] == json.loads(y)["prompt"] for x, y in zip(pa, pb))
            if len(pa) == len(pb)
            else f"{len(pa)} vs {len(pb)} lines",
        }
        report["configs"].append(row)
        print(json.dumps(row), flush=True)
    (out / "agreement.json").write_text(json.dumps(report, indent=1))
    print("agreement:", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
