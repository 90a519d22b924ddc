"""Check that two builds of the wheel's extension module give the same bits (BENCHMARKS.md).

A kernel change meant to keep every result exactly: this runs `features` (series, sample
and batch) and `timellm_prompts` of both builds over f32 and f64 batches, four wavelets and
modes and three shapes, each build in its own process, and compares the pickled results.

    cp crates/python/python/wavebench/_wavebench.abi3.so /tmp/base.so   # before a change
    maturin develop --release -m crates/python/Cargo.toml                # after it
    python scripts/ab_bits.py /tmp/base.so crates/python/python/wavebench/_wavebench.abi3.so
"""
import pickle
import subprocess
import sys

import numpy as np

from ab_wheel import load

CASES = [("db4", 3, "reflect"), ("db2", 2, "symmetric"), ("haar", 4, "periodization"),
         ("sym5", 3, "smooth")]
SHAPES = [(32, 7, 512), (3, 5, 97), (1, 1, 64), (4, 3, 333)]


def results(path):
    """Every result of the build at `path`, in a fixed order (errors as their text)."""
    m = load(path)
    rng = np.random.default_rng(1)
    out = []
    for dtype in (np.float32, np.float64):
        for shape in SHAPES:
            x = (rng.standard_normal(shape) * 3 + 5).astype(dtype)
            for wavelet, level, mode in CASES:
                try:
                    for aggregate in ("series", "sample", "batch"):
                        f = m.features(x, wavelet, level, mode, aggregate, "none")
                        out.append({k: v.tobytes() if hasattr(v, "tobytes") else v
                                    for k, v in sorted(f.items())})
                    out.append(m.timellm_prompts(x, "d", 96, 5, "none"))
                except Exception as e:  # the same refusal is the same result
                    out.append(repr(e))
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--dump":
        sys.stdout.buffer.write(pickle.dumps(results(sys.argv[2])))
        return
    base, new = sys.argv[1:3]
    a, b = (pickle.loads(subprocess.run([sys.executable, __file__, "--dump", p],
                                        check=True, capture_output=True).stdout)
            for p in (base, new))
    assert len(a) == len(b), (len(a), len(b))
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    print(f"{len(a)} results, {len(differ)} differ" + (f" (first: #{differ[0]})" if differ else ""))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
