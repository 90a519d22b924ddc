#!/usr/bin/env python3
"""Generate the pywt parity fixtures under tests/fixtures/dwt/.

For every discrete wavelet x every mode x lengths {1, 2, L-1, L, 17, 64, 255, 1000} x
levels {1, max}: pywt.wavedec on a float64 input and on the same input as float32. Plus,
per wavelet and mode, pywt.mra (per-band reconstruction) at lengths 37 and 64.

Inputs are not stored: they come from a 64-bit LCG that tests/common reproduces exactly
(values are multiples of 2^-20 in [-8, 8), exact in float32 too).

Files: index.json (cases, offsets), f64.bin and f32.bin (little-endian coefficients of
wavedec, bands concatenated in pywt order), mra.bin (f64 components).

Run from the repository root with the project's venv:  python scripts/gen_fixtures.py
"""
import importlib.metadata
import json
import os
import sys
import warnings

import numpy as np
import pywt

MASK = (1 << 64) - 1


def lcg_series(seed: int, n: int) -> np.ndarray:
    state = seed & MASK
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        out[i] = ((state >> 40) - (1 << 23)) / float(1 << 20)
    return out


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    modes = ["zero", "constant", "symmetric", "periodic", "smooth", "periodization",
             "reflect", "antisymmetric", "antireflect"]
    cases, mra_cases = [], []
    f64_parts, f32_parts, mra_parts = [], [], []
    off64 = off32 = offm = 0
    seed = 1
    warnings.simplefilter("ignore")  # level > max_level warns; that is the point
    for name in pywt.wavelist(kind="discrete"):
        w = pywt.Wavelet(name)
        flen = w.dec_len
        lengths = sorted({1, 2, max(flen - 1, 1), flen, 17, 64, 255, 1000})
        for mode in modes:
            for n in lengths:
                x = lcg_series(seed, n)
                maxl = pywt.dwt_max_level(n, flen)
                for level in sorted({1, max(maxl, 1)}):
                    case = {"wavelet": name, "mode": mode, "n": n, "level": level, "seed": seed}
                    try:
                        c64 = pywt.wavedec(x, w, mode=mode, level=level)
                        c32 = pywt.wavedec(x.astype(np.float32), w, mode=mode, level=level)
                    except ValueError as e:
                        case["error"] = str(e)
                        cases.append(case)
                        continue
                    assert all(c.dtype == np.float32 for c in c32)
                    case["band_lens"] = [len(c) for c in c64]
                    case["offset"] = off64
                    flat64 = np.concatenate(c64)
                    flat32 = np.concatenate(c32)
                    f64_parts.append(flat64.astype("<f8").tobytes())
                    f32_parts.append(flat32.astype("<f4").tobytes())
                    off64 += len(flat64)
                    cases.append(case)
                seed += 1
            for n in (37, 64):
                x = lcg_series(seed, n)
                level = max(1, min(2, pywt.dwt_max_level(n, flen)))
                comps = pywt.mra(x, w, level=level, transform="dwt", mode=mode)
                flat = np.concatenate(comps)
                mra_cases.append({"wavelet": name, "mode": mode, "n": n, "level": level,
                                  "seed": seed, "offset": offm, "components": len(comps)})
                mra_parts.append(flat.astype("<f8").tobytes())
                offm += len(flat)
                seed += 1
    with open(os.path.join(out_dir, "f64.bin"), "wb") as f:
        f.write(b"".join(f64_parts))
    with open(os.path.join(out_dir, "f32.bin"), "wb") as f:
        f.write(b"".join(f32_parts))
    with open(os.path.join(out_dir, "mra.bin"), "wb") as f:
        f.write(b"".join(mra_parts))
    index = {
        "generator": "scripts/gen_fixtures.py",
        "pywt_version": pywt.__version__,
        "pywavelets_distribution": importlib.metadata.version("pywavelets"),
        "numpy_version": np.__version__,
        "cases": cases,
        "mra": mra_cases,
    }
    with open(os.path.join(out_dir, "index.json"), "w") as f:
        json.dump(index, f, separators=(",", ":"))
    print(f"{len(cases)} wavedec cases ({off64} values), {len(mra_cases)} mra cases", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "fixtures", "dwt"))
