//! Sums over independent accumulators.
//!
//! `iter().sum()` over floats is one dependency chain: one add per add-latency, never
//! vectorised (float addition is not associative, so the compiler keeps the order). Eight
//! lanes combined pairwise keep vector units busy and, like numpy's pairwise sum, round
//! less than a running total. (The shape matters: mapping a whole fixed-size chunk first,
//! then adding lane by lane, is what LLVM turns into vector code; checked in the assembly.)

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
#[inline(always)]
pub fn sum_by_each<const K: usize>(xs: [&[f64]; K], f: impl Fn(usize, f64) -> f64) -> [f64; K] {
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
    std::array::from_fn(|s| {
        let tail: f64 = xs[s][full..].iter().map(|&v| f(s, v)).sum();
        combine(acc[s]) + tail
    })
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
            for s in 0..4 {
                let one = sum_by(&xs[s], |v| v * (s + 1) as f64);
                assert_eq!(each[s].to_bits(), one.to_bits(), "n = {n}, series {s}");
            }
        }
    }
}
