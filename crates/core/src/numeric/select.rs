//! Order statistics of f32 samples: the minimum, the maximum and the k-th smallest, in
//! `f32::total_cmp`'s order (so -0 < +0), for Time-LLM's min/max/median of every series;
//! and the integer keys of that order, for f64 too.
//!
//! The samples become integer keys that order as the floats do, and the selection is a
//! quickselect that partitions out of place, eight keys a vector: a compare gives the
//! lanes below and above the pivot as bit masks, and one permute per side packs them to
//! the front of that side's buffer (the permutes come from a 256-entry table, one per
//! mask). A batch's median was a fifth of a Time-LLM prompt batch with the standard
//! library's selection over i64 keys; every round here is branch-free, and keys equal to
//! the pivot are set aside as a third part, so repeated values (quantised data, constant
//! series) end the search instead of slowing it.
//!
//! The selected value is exact, so every path (and `WAVEBENCH_ISA=portable`) gives the
//! same bits.

/// An integer that orders as `f32::total_cmp` orders its value (negative numbers have
/// their magnitude bits flipped, which is its own inverse).
#[inline(always)]
pub fn key(v: f32) -> i32 {
    key_of_bits(v.to_bits() as i32)
}

/// [`key`] of an f32's bits.
#[inline(always)]
fn key_of_bits(b: i32) -> i32 {
    b ^ (((b >> 31) as u32) >> 1) as i32
}

/// The f32 of a [`key`].
#[inline(always)]
pub fn value(k: i32) -> f32 {
    f32::from_bits((k ^ (((k >> 31) as u32) >> 1) as i32) as u32)
}

/// [`key`] for f64: orders as `f64::total_cmp`.
#[inline(always)]
pub fn key64(v: f64) -> i64 {
    let b = v.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The f64 of a [`key64`].
#[inline(always)]
pub fn value64(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

/// Keys left when the partitioning stops and the standard selection finishes.
const SMALL: usize = 32;
/// Rounds after which a run of bad pivots hands over to the standard selection (which
/// has a worst-case guarantee); a random series needs about ten rounds for 512 samples.
const MAX_ROUNDS: usize = 48;

/// Buffers for selections over series of up to one length, made once per task.
pub struct Select32 {
    /// The keys, and the two sides of each round's partition; the three take turns.
    /// Eight spare slots each, for the full-vector stores of the packed lanes.
    bufs: [Vec<i32>; 3],
}

impl Select32 {
    pub fn new(len: usize) -> Self {
        Select32 {
            bufs: std::array::from_fn(|_| vec![0; len + 8]),
        }
    }

    /// `(min, max, k-th smallest)` of `x` in total order (`k` from 0); `None` for no
    /// samples or `k` out of range.
    pub fn min_max_kth(&mut self, x: &[f32], k: usize) -> Option<(f32, f32, f32)> {
        if k >= x.len() {
            return None;
        }
        for b in &mut self.bufs {
            if b.len() < x.len() + 8 {
                b.resize(x.len() + 8, 0);
            }
        }
        #[cfg(target_arch = "x86_64")]
        if super::simd::Isa::active() >= super::simd::Isa::Avx2
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the CPU has AVX2 (`Isa::active` checks it) and POPCNT.
            return Some(unsafe { x86::min_max_kth(&mut self.bufs, x, k) });
        }
        Some(min_max_kth::<false>(&mut self.bufs, x, k))
    }
}

/// The selection, generic over how one round partitions (`AVX2`: with the packing
/// permutes; the caller's frame must have AVX2).
#[inline(always)]
fn min_max_kth<const AVX2: bool>(
    bufs: &mut [Vec<i32>; 3],
    x: &[f32],
    mut k: usize,
) -> (f32, f32, f32) {
    let n = x.len();
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    if n <= SMALL {
        // No round: the keys go to buffer 0 for the standard selection.
        for (o, &v) in bufs[0][..n].iter_mut().zip(x) {
            *o = key(v);
            (lo, hi) = (lo.min(*o), hi.max(*o));
        }
    }
    // The first round partitions the samples themselves, making their keys and the
    // extremes on the way (no pass of its own for the keys); later rounds take turns over
    // the three buffers.
    let (mut cur, mut len) = (0, n);
    for round in 0..MAX_ROUNDS {
        if len <= SMALL {
            break;
        }
        let (lt, gt) = ((cur + 1) % 3, (cur + 2) % 3);
        let Ok([src, below, above]) = bufs.get_disjoint_mut([cur, lt, gt]) else {
            unreachable!("three distinct buffers")
        };
        let (pivot, nl, ng);
        if round == 0 {
            let at = |i: usize| key(x[i]);
            pivot = median3(at(n / 4), at(n / 2), at(3 * n / 4));
            (nl, ng, lo, hi) = partition::<AVX2, true>(f32_bits(x), pivot, below, above);
        } else {
            let src = &src[..len];
            pivot = median3(src[len / 4], src[len / 2], src[3 * len / 4]);
            (nl, ng, _, _) = partition::<AVX2, false>(src, pivot, below, above);
        }
        let equal = len - nl - ng;
        if k < nl {
            (cur, len) = (lt, nl);
        } else if k < nl + equal {
            return (value(lo), value(hi), value(pivot));
        } else {
            k -= nl + equal;
            (cur, len) = (gt, ng);
        }
    }
    let kth = *bufs[cur][..len].select_nth_unstable(k).1;
    (value(lo), value(hi), value(kth))
}

/// The bits of f32s, as the first round reads them.
fn f32_bits(x: &[f32]) -> &[i32] {
    // SAFETY: f32 and i32 have one size and alignment, and every bit pattern is an i32.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<i32>(), x.len()) }
}

#[inline(always)]
fn median3(a: i32, b: i32, c: i32) -> i32 {
    a.max(b).min(a.min(b).max(c))
}

/// The keys of `src` below `pivot` packed into `below`, those above into `above`, each in
/// their order in `src`; returns both counts, and with `FIRST` the smallest and largest
/// key. `FIRST`: `src` holds f32 bits, each made a key first. Both buffers hold
/// `src.len() + 8` keys.
#[inline(always)]
fn partition<const AVX2: bool, const FIRST: bool>(
    src: &[i32],
    pivot: i32,
    below: &mut [i32],
    above: &mut [i32],
) -> (usize, usize, i32, i32) {
    assert!(
        below.len() >= src.len() + 8 && above.len() >= src.len() + 8,
        "partition: buffers"
    );
    let mut done = 0;
    let (mut nl, mut ng) = (0, 0);
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: the caller's frame has AVX2 (`AVX2`); the buffers' sizes are checked.
        (done, nl, ng, lo, hi) = unsafe { x86::partition::<FIRST>(src, pivot, below, above) };
    }
    // Branch-free: every key is written to both sides, and kept where it belongs.
    for &v in &src[done..] {
        let v = if FIRST { key_of_bits(v) } else { v };
        if FIRST {
            (lo, hi) = (lo.min(v), hi.max(v));
        }
        below[nl] = v;
        nl += (v < pivot) as usize;
        above[ng] = v;
        ng += (v > pivot) as usize;
    }
    (nl, ng, lo, hi)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// For each 8-bit mask, the lanes it selects, in order, then the rest (never kept).
    static PACK: [[i32; 8]; 256] = {
        let mut table = [[0; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut lane, mut at) = (0i32, 0);
            while lane < 8 {
                if mask & (1 << lane) != 0 {
                    table[mask][at] = lane;
                    at += 1;
                }
                lane += 1;
            }
            mask += 1;
        }
        table
    };

    /// `super::min_max_kth` compiled for AVX2 (and POPCNT, which every AVX2 CPU has:
    /// without it the lane counts were emulated with byte shuffles).
    ///
    /// # Safety
    /// The CPU must have AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn min_max_kth(bufs: &mut [Vec<i32>; 3], x: &[f32], k: usize) -> (f32, f32, f32) {
        super::min_max_kth::<true>(bufs, x, k)
    }

    /// The whole vectors of `super::partition`: returns how many keys were done (a
    /// multiple of 8), the two counts, and with `FIRST` the extremes.
    ///
    /// # Safety
    /// AVX2 must be available (the caller's frame); `below` and `above` hold at least
    /// `src.len() + 8` keys, so a full vector stored at any count stays inside.
    #[inline(always)]
    pub unsafe fn partition<const FIRST: bool>(
        src: &[i32],
        pivot: i32,
        below: &mut [i32],
        above: &mut [i32],
    ) -> (usize, usize, usize, i32, i32) {
        let full = src.len() / 8 * 8;
        let p = _mm256_set1_epi32(pivot);
        let (mut nl, mut ng) = (0usize, 0usize);
        let (mut lo, mut hi) = (_mm256_set1_epi32(i32::MAX), _mm256_set1_epi32(i32::MIN));
        for i in (0..full).step_by(8) {
            let mut v = _mm256_loadu_si256(src.as_ptr().add(i).cast());
            if FIRST {
                // `super::key_of_bits`, eight at a time.
                v = _mm256_xor_si256(v, _mm256_srli_epi32::<1>(_mm256_srai_epi32::<31>(v)));
                (lo, hi) = (_mm256_min_epi32(lo, v), _mm256_max_epi32(hi, v));
            }
            let lt = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(p, v))) as usize;
            let gt = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, p))) as usize;
            let pack = |mask: usize| {
                _mm256_permutevar8x32_epi32(v, _mm256_loadu_si256(PACK[mask].as_ptr().cast()))
            };
            _mm256_storeu_si256(below.as_mut_ptr().add(nl).cast(), pack(lt));
            _mm256_storeu_si256(above.as_mut_ptr().add(ng).cast(), pack(gt));
            nl += lt.count_ones() as usize;
            ng += gt.count_ones() as usize;
        }
        let lanes = |v: __m256i| {
            let mut out = [0i32; 8];
            _mm256_storeu_si256(out.as_mut_ptr().cast(), v);
            out
        };
        let lo = lanes(lo).into_iter().fold(i32::MAX, i32::min);
        let hi = lanes(hi).into_iter().fold(i32::MIN, i32::max);
        (full, nl, ng, lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Order statistics by sorting, in total order.
    fn by_sorting(x: &[f32], k: usize) -> (f32, f32, f32) {
        let mut s = x.to_vec();
        s.sort_by(f32::total_cmp);
        (s[0], s[s.len() - 1], s[k])
    }

    fn bits(t: (f32, f32, f32)) -> (u32, u32, u32) {
        (t.0.to_bits(), t.1.to_bits(), t.2.to_bits())
    }

    #[test]
    fn keys_order_as_total_cmp_and_invert() {
        let v = [
            f32::NEG_INFINITY,
            -3.5,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            1e-45,
            2.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} < {}", w[0], w[1]);
        }
        for x in v {
            assert_eq!(value(key(x)).to_bits(), x.to_bits());
        }
        let v = [
            f64::NEG_INFINITY,
            -3.5,
            -1e-300,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::MAX,
            f64::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(key64(w[0]) < key64(w[1]), "{} < {}", w[0], w[1]);
        }
        for x in v {
            assert_eq!(value64(key64(x)).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn every_rank_matches_sorting_on_every_path() {
        let mut next = crate::testing::xorshift(7);
        let mut cases: Vec<Vec<f32>> = vec![
            vec![1.0],
            vec![0.0, -0.0, 0.0, -0.0],
            vec![2.5; 100],
            (0..300).map(|i| i as f32).collect(),
            (0..300).rev().map(|i| i as f32).collect(),
            (0..333).map(|i| (i % 7) as f32 - 3.0).collect(),
        ];
        for len in [2, 7, 8, 9, 31, 32, 33, 64, 65, 100, 512, 1000] {
            // Spread values, and values with many repeats (quantised data).
            cases.push(
                (0..len)
                    .map(|_| (next() % 20_001) as f32 / 100.0 - 100.0)
                    .collect(),
            );
            cases.push((0..len).map(|_| (next() % 5) as f32 * 0.5).collect());
        }
        let mut sel = Select32::new(4);
        for x in &cases {
            let ranks = [0, x.len() / 2, (x.len() - 1) / 2, x.len() - 1];
            for k in ranks {
                let want = bits(by_sorting(x, k));
                assert_eq!(
                    bits(sel.min_max_kth(x, k).unwrap()),
                    want,
                    "len {} k {k}",
                    x.len()
                );
                assert_eq!(
                    bits(min_max_kth::<false>(&mut sel.bufs, x, k)),
                    want,
                    "portable, len {} k {k}",
                    x.len()
                );
            }
        }
        assert_eq!(sel.min_max_kth(&[], 0), None);
        assert_eq!(sel.min_max_kth(&[1.0, 2.0], 2), None);
    }

    type Parts = (usize, usize, i32, i32);

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn partition_avx2<const FIRST: bool>(
        s: &[i32],
        p: i32,
        b: &mut [i32],
        a: &mut [i32],
    ) -> Parts {
        partition::<true, FIRST>(s, p, b, a)
    }

    /// Both kinds of round on both paths: keys as they are, and f32 bits made keys (with
    /// the extremes) on the way.
    #[test]
    fn the_three_parts_split_at_the_pivot() {
        type Partition = fn(&[i32], i32, &mut [i32], &mut [i32]) -> Parts;
        let mut paths: Vec<(&str, Partition, Partition)> = vec![(
            "portable",
            partition::<false, false>,
            partition::<false, true>,
        )];
        #[cfg(target_arch = "x86_64")]
        if crate::numeric::simd::Isa::Avx2.supported() && is_x86_feature_detected!("popcnt") {
            // SAFETY: this CPU has AVX2 and POPCNT (checked here).
            paths.push((
                "avx2",
                |s, p, b, a| unsafe { partition_avx2::<false>(s, p, b, a) },
                |s, p, b, a| unsafe { partition_avx2::<true>(s, p, b, a) },
            ));
        }
        // 37 keys: four whole vectors and a tail, with repeats of the pivot; and as f32s
        // of both signs (the extremes in the tail once, in a whole vector once).
        let keys: Vec<i32> = (0..37).map(|i| (i * 7) % 11 - 5).collect();
        let floats = |big: usize| -> Vec<f32> {
            let mut v: Vec<f32> = keys.iter().map(|&k| k as f32 * 0.5).collect();
            v[big] = -1e30;
            v[36 - big] = f32::INFINITY;
            v
        };
        for (name, keys_round, first_round) in paths {
            let (mut below, mut above) = (vec![0; 45], vec![0; 45]);
            let (nl, ng, _, _) = keys_round(&keys, 0, &mut below, &mut above);
            let want_below: Vec<i32> = keys.iter().copied().filter(|&v| v < 0).collect();
            let want_above: Vec<i32> = keys.iter().copied().filter(|&v| v > 0).collect();
            assert_eq!(below[..nl], want_below[..], "{name}");
            assert_eq!(above[..ng], want_above[..], "{name}");
            for big in [0, 3] {
                let x = floats(big);
                let want: Vec<i32> = x.iter().map(|&v| key(v)).collect();
                let pivot = key(0.0);
                let (nl, ng, lo, hi) = first_round(f32_bits(&x), pivot, &mut below, &mut above);
                let want_below: Vec<i32> = want.iter().copied().filter(|&v| v < pivot).collect();
                let want_above: Vec<i32> = want.iter().copied().filter(|&v| v > pivot).collect();
                assert_eq!(below[..nl], want_below[..], "{name}, first round");
                assert_eq!(above[..ng], want_above[..], "{name}, first round");
                assert_eq!(
                    (lo, hi),
                    (key(-1e30), key(f32::INFINITY)),
                    "{name}, big {big}"
                );
            }
        }
    }
}
