#!/usr/bin/env python3
"""Generate tests/fixtures/repr/repr.txt: CPython's repr() of doubles, for pyfmt::Repr.

Each line is `<16 hex digits of the IEEE-754 bits> <repr(x)>`. The values: random bit
patterns (every exponent, subnormals included), decimals of a few digits, the fixed and
scientific notation edges, and numbers near 2^53 whose exact value lies halfway between
two shortest candidates (repr picks the even digit; Rust's `{:e}` picks by other rules).

Run from the repository root (any CPython 3):  python scripts/gen_repr_fixture.py
"""
import math
import os
import random
import struct
import sys


def values():
    rng = random.Random(20261123)
    out = []
    while len(out) < 1500:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            out.append(x)
    out += [rng.randint(-10**6, 10**6) / 1000 for _ in range(300)]
    out += [rng.uniform(-1, 1) * 10.0 ** rng.randint(-8, 20) for _ in range(300)]
    # Halfway cases: in [2^50, 2^51) the spacing is 1/4, so N.25 and N.75 lie exactly
    # between two shortest candidates (N.2 and N.3 both round-trip); repr takes the even.
    for _ in range(400):
        x = rng.randint(2**50, 2**51 - 1) + rng.choice([0.25, 0.75])
        out += [x, -x]
    for e in range(-325, 309):
        out += [10.0 ** e if e > -324 else 5e-324, 1.5 * 10.0 ** e if e < 308 else 1.5e308]
    out += [0.0, -0.0, 1e-5, 1e-4, 9.999999999999999e-5, 1e16, 9999999999999998.0,
            sys.float_info.max, sys.float_info.min, 5e-324, sys.float_info.epsilon]
    return [x for x in out if math.isfinite(x)]


def main(path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for x in values():
            f.write(f"{struct.pack('>d', x).hex()} {x!r}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/repr/repr.txt")
