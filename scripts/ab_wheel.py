"""Compare two builds of the wheel's extension module on a noisy machine (BENCHMARKS.md).

The shared VM's speed drifts by up to 2x within minutes, so timings taken minutes apart
cannot be compared. This runs the two builds' `_wavebench*.so` in alternating processes
(one build per process: each loads its own rayon pool), several rounds, and reports each
call's best median per build. Keep a copy of the base build's .so before rebuilding:

    cp crates/python/python/wavebench/_wavebench.abi3.so /tmp/base.so   # before a change
    maturin develop --release -m crates/python/Cargo.toml                # after it
    python scripts/ab_wheel.py /tmp/base.so crates/python/python/wavebench/_wavebench.abi3.so

RAYON_NUM_THREADS=1 in the environment compares the single-thread kernels (steadier).
"""
import argparse
import importlib.machinery
import importlib.util
import statistics
import subprocess
import sys
import time

CALLS = ("batch_features", "timellm_prompts")


def load(path):
    loader = importlib.machinery.ExtensionFileLoader("_wavebench", path)
    spec = importlib.util.spec_from_file_location("_wavebench", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def measure(path, batch):
    """Best median (seconds) of each call, one line per call: `name seconds`."""
    import numpy as np

    w = load(path)
    x = np.random.default_rng(0).standard_normal(batch).astype(np.float32)
    # The generator's transform (planned once), or a build's older per-call function.
    if hasattr(w, "Transform"):
        batch_features = w.Transform("db4", 3, "reflect").batch_features
    else:
        batch_features = lambda x: w.batch_features(x, "db4", 3, "reflect")  # noqa: E731
    calls = {
        "batch_features": (lambda: batch_features(x), 300),
        "timellm_prompts": (lambda: w.timellm_prompts(x, "bench", 96, 5, "none"), 60),
    }
    for name in CALLS:
        f, n = calls[name]
        f()
        medians = []
        for _ in range(5):
            times = []
            for _ in range(n):
                t0 = time.perf_counter()
                f()
                times.append(time.perf_counter() - t0)
            medians.append(statistics.median(times))
        print(name, min(medians))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, nargs=3, default=[32, 7, 512], metavar=("B", "N", "T"))
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # the child process's mode
    args = ap.parse_args()
    if args.measure:
        measure(args.measure, tuple(args.batch))
        return
    best = {}
    for _ in range(args.rounds):
        for label, path in (("base", args.base), ("new", args.new)):
            out = subprocess.run(
                [sys.executable, __file__, args.base, args.new, "--measure", path,
                 "--batch", *map(str, args.batch)],
                check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                name, seconds = line.split()
                key = (name, label)
                best[key] = min(best.get(key, float("inf")), float(seconds))
    print("| call | base µs | new µs | base / new |")
    print("|---|---|---|---|")
    for name in CALLS:
        b, n = best[(name, "base")], best[(name, "new")]
        print(f"| {name} | {b * 1e6:.1f} | {n * 1e6:.1f} | {b / n:.3f} |")


if __name__ == "__main__":
    main()
