//! Sums over independent accumulators.
//!
//! `iter().sum()` over floats is one dependency chain: one add per add-latency, never
//! vectorised (float addition is not associative, so the compiler keeps the order). Eight
//! lanes combined pairwise keep vector units busy and, like numpy's pairwise sum, round
//! less than a running total. (The shape matters: mapping a whole fixed-size chunk first,
//! then adding lane by lane, is what LLVM turns into vector code; checked in the assembly.)

use super::simd::Isa;

const LANES: usize = 8;

/// `Σ f(x_i)`.
#[inline(always)]
pub fn sum_by<T: Copy>(x: &[T], f: impl Fn(T) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let (chunks, rest) = x.as_chunks::<LANES>();
    for c in chunks {
        let v: [f64; LANES] = c.map(&f);
        for j in 0..LANES {
            acc[j] += v[j];
        }
    }
    let tail: f64 = rest.iter().map(|&v| f(v)).sum();
    combine(acc) + tail
}

/// `(Σ f(x_i), Σ f(x_i)²)` in one pass.
#[inline(always)]
pub fn sum_and_squares_by<T: Copy>(x: &[T], f: impl Fn(T) -> f64) -> (f64, f64) {
    let (mut a, mut b) = ([0.0f64; LANES], [0.0f64; LANES]);
    let (chunks, rest) = x.as_chunks::<LANES>();
    for c in chunks {
        let v: [f64; LANES] = c.map(&f);
        for j in 0..LANES {
            a[j] += v[j];
        }
        for j in 0..LANES {
            b[j] += v[j] * v[j];
        }
    }
    let (mut ta, mut tb) = (0.0, 0.0);
    for &v in rest {
        let v = f(v);
        ta += v;
        tb += v * v;
    }
    (combine(a) + ta, combine(b) + tb)
}

/// `Σ f(s, x_s,i)` for each of `K` equal-length series `xs[s]`, each to the same bits as
/// `sum_by(xs[s], …)`: the series' chains run side by side, so the adder's latency is
/// hidden behind the other series instead of stalling one chain (about K× the throughput).
/// Plain Rust: the fallback of [`sum_each`] and [`squares_about_each`], which use AVX2
/// where the CPU has it.
#[inline(always)]
fn sum_by_each<const K: usize>(xs: [&[f64]; K], f: impl Fn(usize, f64) -> f64) -> [f64; K] {
    let len = xs[0].len();
    assert!(xs.iter().all(|x| x.len() == len), "series of equal length");
    let full = len / LANES * LANES;
    let mut acc = [[0.0f64; LANES]; K];
    let mut i = 0;
    while i < full {
        for s in 0..K {
            let c: &[f64; LANES] = xs[s][i..i + LANES].try_into().expect("a whole chunk");
            let v: [f64; LANES] = c.map(|x| f(s, x));
            for j in 0..LANES {
                acc[s][j] += v[j];
            }
        }
        i += LANES;
    }
    std::array::from_fn(|s| combine(acc[s]) + tail(&xs[s][full..], |v| f(s, v)))
}

/// `Σ x` of each of `K` equal-length series, to the bits of `sum_by(x, |v| v)`.
#[inline(always)]
pub fn sum_each<const K: usize>(xs: [&[f64]; K]) -> [f64; K] {
    each::<K, false>(xs, [0.0; K])
}

/// `Σ (x - m)²` of each of `K` equal-length series about its own `m`, to the bits of
/// `sum_by(x, |v| (v - m) * (v - m))`.
#[inline(always)]
pub fn squares_about_each<const K: usize>(xs: [&[f64]; K], means: [f64; K]) -> [f64; K] {
    each::<K, true>(xs, means)
}

/// `Σ term(x)` of each series, in AVX2 where the CPU has it.
#[inline(always)]
fn each<const K: usize, const SQUARE: bool>(xs: [&[f64]; K], means: [f64; K]) -> [f64; K] {
    #[cfg(target_arch = "x86_64")]
    if Isa::active() >= Isa::Avx2 {
        // SAFETY: `Isa::active` checked that this CPU has AVX2.
        return unsafe { x86::each::<K, SQUARE>(xs, means) };
    }
    sum_by_each(xs, |s, v| term::<SQUARE>(v, means[s]))
}

/// The summed term: `x`, or `(x - m)²` when `SQUARE`.
#[inline(always)]
fn term<const SQUARE: bool>(v: f64, m: f64) -> f64 {
    if SQUARE {
        (v - m) * (v - m)
    } else {
        v
    }
}

/// The scalar tail after the whole chunks, added in order as `sum_by` does.
#[inline(always)]
fn tail(rest: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    rest.iter().map(|&v| f(v)).sum()
}

/// Side-by-side sums in AVX2 registers. Written with intrinsics because LLVM, given the
/// plain version's arrays of lanes, pairs lanes of different series into two-wide vectors
/// and spills (BENCHMARKS.md, "Measurements behind the code"). Each
/// series' eight lanes are two 4-lane accumulators, added in the same order as `sum_by`'s
/// (no fused multiply-add), so the bits are the same.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{combine, tail, term, LANES};
    use std::arch::x86_64::*;

    /// `SQUARE`: sum `(x - m)²` instead of `x`.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn each<const K: usize, const SQUARE: bool>(
        xs: [&[f64]; K],
        means: [f64; K],
    ) -> [f64; K] {
        let len = xs[0].len();
        assert!(xs.iter().all(|x| x.len() == len), "series of equal length");
        let chunks = len / LANES;
        let m: [__m256d; K] = means.map(|m| _mm256_set1_pd(m));
        let (mut lo, mut hi) = ([_mm256_setzero_pd(); K], [_mm256_setzero_pd(); K]);
        for i in 0..chunks {
            for s in 0..K {
                // SAFETY: chunk `i` of every series lies within its `len` samples.
                let p = xs[s].as_ptr().add(i * LANES);
                let (mut a, mut b) = (_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)));
                if SQUARE {
                    a = _mm256_sub_pd(a, m[s]);
                    b = _mm256_sub_pd(b, m[s]);
                    a = _mm256_mul_pd(a, a);
                    b = _mm256_mul_pd(b, b);
                }
                lo[s] = _mm256_add_pd(lo[s], a);
                hi[s] = _mm256_add_pd(hi[s], b);
            }
        }
        let full = chunks * LANES;
        std::array::from_fn(|s| {
            let mut acc = [0.0f64; LANES];
            _mm256_storeu_pd(acc.as_mut_ptr(), lo[s]);
            _mm256_storeu_pd(acc.as_mut_ptr().add(4), hi[s]);
            combine(acc) + tail(&xs[s][full..], |v| term::<SQUARE>(v, means[s]))
        })
    }
}

#[inline(always)]
fn combine(a: [f64; LANES]) -> f64 {
    ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_add_up_to_the_exact_sum() {
        // Multiples of 1/2 add exactly in any order, so every lane layout must agree.
        for n in [0usize, 1, 7, 8, 9, 31, 512, 1001] {
            let x: Vec<f64> = (0..n).map(|i| (i as f64) * 0.5 - 3.0).collect();
            let exact: f64 = x.iter().sum();
            assert_eq!(sum_by(&x, |v| v), exact, "n = {n}");
            let (s, q) = sum_and_squares_by(&x, |v| v);
            assert_eq!(s, exact);
            assert_eq!(q, x.iter().map(|v| v * v).sum::<f64>(), "n = {n}");
        }
    }

    #[test]
    fn side_by_side_sums_are_each_series_own_to_the_bit() {
        // Values that round differently in every order: only the same order gives the bits.
        for n in [1usize, 7, 8, 9, 96, 512, 1001] {
            let xs: Vec<Vec<f64>> = (0..4)
                .map(|s| {
                    (0..n)
                        .map(|i| ((i * 7 + s * 13) as f64 * 0.37).sin() * 1e3 + 0.1)
                        .collect()
                })
                .collect();
            let each = sum_by_each([&xs[0][..], &xs[1], &xs[2], &xs[3]], |s, v| {
                v * (s + 1) as f64
            });
            let refs = [&xs[0][..], &xs[1], &xs[2], &xs[3]];
            let sums = sum_each(refs);
            let means = sums.map(|v| v / n as f64);
            let squares = squares_about_each(refs, means);
            for s in 0..4 {
                let one = sum_by(&xs[s], |v| v * (s + 1) as f64);
                assert_eq!(each[s].to_bits(), one.to_bits(), "n = {n}, series {s}");
                let plain = sum_by(&xs[s], |v| v);
                assert_eq!(sums[s].to_bits(), plain.to_bits(), "n = {n}, series {s}");
                let m = means[s];
                let sq = sum_by(&xs[s], |v| (v - m) * (v - m));
                assert_eq!(squares[s].to_bits(), sq.to_bits(), "n = {n}, series {s}");
            }
        }
    }
}
