#!/usr/bin/env python3
"""Write assets/wavelets.json: every discrete wavelet of PyWavelets with its filter bank.

Run from the repository root with the project's venv (`make assets` does this):
    python scripts/gen_wavelets.py
Floats are written with Python's repr, which round-trips exactly to the same f64.
"""
import importlib.metadata
import json
import os
import sys

import pywt

FAMILY_ORDER = ["haar", "db", "sym", "coif", "bior", "rbio", "dmey"]


def main(out_path: str) -> None:
    wavelets = []
    names = pywt.wavelist(kind="discrete")
    for family in FAMILY_ORDER:
        for name in pywt.wavelist(family=family, kind="discrete"):
            w = pywt.Wavelet(name)
            dec_lo, dec_hi, rec_lo, rec_hi = (list(map(float, f)) for f in w.filter_bank)
            wavelets.append(
                {
                    "name": name,
                    "family": w.short_family_name,
                    "family_name": w.family_name,
                    "filter_length": len(dec_lo),
                    "orthogonal": bool(w.orthogonal),
                    "biorthogonal": bool(w.biorthogonal),
                    "symmetry": w.symmetry,
                    "vanishing_moments_psi": w.vanishing_moments_psi,
                    "dec_lo": dec_lo,
                    "dec_hi": dec_hi,
                    "rec_lo": rec_lo,
                    "rec_hi": rec_hi,
                }
            )
    assert sorted(w["name"] for w in wavelets) == sorted(names), "family walk missed a wavelet"
    doc = {
        "generator": "scripts/gen_wavelets.py",
        "pywt_version": pywt.__version__,
        "pywavelets_distribution": importlib.metadata.version("pywavelets"),
        "count": len(wavelets),
        "wavelets": wavelets,
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(wavelets)} wavelets (pywt {pywt.__version__}) to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join("assets", "wavelets.json"))
