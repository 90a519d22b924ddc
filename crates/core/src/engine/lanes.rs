//! The native kernels across series: eight series side by side, one per SIMD lane.
//!
//! When many series of one length are summarised (the prompt pipeline), laying them out as
//! `[sample][series]` makes every step a plain lane-wise operation: a filter tap is one
//! vector multiply-add shared by eight series, both filters' sums stay in registers for a
//! whole output, and band moments need no horizontal reduction and no tail loops. Each
//! coefficient is summed in the same order as the per-series kernel in `native`, so the
//! coefficients are bit for bit the same.
//!
//! Everything here is `inline(always)`, to be compiled inside the caller's AVX2+FMA frame.

use super::plan::{LevelPlan, Plan};
use super::summary::{BandSummary, SeriesSummary};
use crate::numeric::real::Real;

/// Series per lane group.
pub const LANES: usize = 8;

/// Sample `t` of eight series.
pub type Lane<T> = [T; LANES];

#[inline(always)]
fn zero<T: Real>() -> Lane<T> {
    [T::ZERO; LANES]
}

/// Working memory for one lane group, sized once from the plan.
pub struct LaneScratch<T> {
    /// The extended input of the level being transformed, and of the next level (the two
    /// swap after each level): a level's approximation is written straight into the next
    /// level's extension, and the group's samples straight into the first level's, so no
    /// level copies its input (BENCHMARKS.md, "Measurements behind the code").
    ext: Vec<Lane<T>>,
    next: Vec<Lane<T>>,
    /// A level's input when its extension does not hold it verbatim (`holds_input`).
    approx: Vec<Lane<T>>,
    lo: Vec<T>,
    hi: Vec<T>,
}

impl<T: Real> LaneScratch<T> {
    pub fn new(plan: &Plan) -> Self {
        LaneScratch {
            ext: vec![zero(); plan.max_ext_len()],
            next: vec![zero(); plan.max_ext_len()],
            approx: vec![zero(); plan.len],
            lo: plan.lo_rev.iter().map(|&v| T::from_f64(v)).collect(),
            hi: plan.hi_rev.iter().map(|&v| T::from_f64(v)).collect(),
        }
    }

    /// Where the next group's `plan.len` samples go before `decompose_input`.
    pub fn input(&mut self, plan: &Plan) -> &mut [Lane<T>] {
        match plan.levels.first() {
            Some(lp) if lp.holds_input() => &mut self.ext[lp.interior.clone()],
            _ => &mut self.approx[..plan.len],
        }
    }
}

/// Up to eight series `rows` (equal length) side by side into `xs`, unused lanes zeroed.
/// `AVX2`: the caller's frame has AVX2, so eight f32 rows go through an 8×8 register
/// transpose (the element-wise gather was a third of the kernel: a scalar load and insert
/// per sample). Finiteness is not checked here: a sample that is not finite makes its
/// series' band energies so (`BandSums::finite`), which costs nothing per sample.
#[inline(always)]
pub fn gather<T: Real, const AVX2: bool>(rows: &[&[T]], xs: &mut [Lane<T>]) {
    let len = xs.len();
    assert!(
        rows.len() <= LANES && rows.iter().all(|r| r.len() == len),
        "gather: rows"
    );
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if AVX2 && rows.len() == LANES && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        // SAFETY: T is f32 (checked above), so the casts only rename the type; the caller's
        // frame has AVX2 (`AVX2`); every row holds `len` samples (asserted above).
        unsafe {
            let rows: [*const f32; LANES] = std::array::from_fn(|l| rows[l].as_ptr().cast());
            let xs = std::slice::from_raw_parts_mut(xs.as_mut_ptr().cast::<[f32; LANES]>(), len);
            done = transpose_f32(rows, xs);
        }
    }
    for (t, x) in xs.iter_mut().enumerate().skip(done) {
        *x = std::array::from_fn(|l| rows.get(l).map_or(T::ZERO, |r| r[t]));
    }
}

/// Eight f32 rows into lanes, eight samples at a time through the registers: returns how
/// many samples were done (a multiple of 8).
///
/// Each register is loaded as two halves, four samples of row r and of row r + 4, so one
/// 4x4 transpose per 128-bit lane (unpacks and shuffles) finishes it: 16 shuffles per
/// 8x8 block where whole-row loads took 24 (the 128-bit inserts from memory go with
/// the loads).
///
/// # Safety
/// AVX2 must be available (the caller's frame). Each of `rows` points to `xs.len()`
/// samples. (Raw pointers: a slice per row cost a bounds check per row and block.)
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose_f32(rows: [*const f32; LANES], xs: &mut [[f32; LANES]]) -> usize {
    use std::arch::x86_64::*;
    let full = xs.len() / LANES * LANES;
    for t in (0..full).step_by(LANES) {
        // Samples t + h..t + h + 4 of rows r (low lane) and r + 4 (high lane).
        let half =
            |r: usize, h: usize| _mm256_loadu2_m128(rows[r + 4].add(t + h), rows[r].add(t + h));
        let out = &mut xs[t..t + LANES];
        for h in [0, 4] {
            let a: [__m256; 4] = std::array::from_fn(|r| half(r, h));
            let t0 = _mm256_unpacklo_ps(a[0], a[1]);
            let t1 = _mm256_unpackhi_ps(a[0], a[1]);
            let t2 = _mm256_unpacklo_ps(a[2], a[3]);
            let t3 = _mm256_unpackhi_ps(a[2], a[3]);
            let cols = [
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xEE>(t0, t2),
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xEE>(t1, t3),
            ];
            for (c, v) in cols.into_iter().enumerate() {
                _mm256_storeu_ps(out[h + c].as_mut_ptr(), v);
            }
        }
    }
    full
}

/// The extended input of one level: interior copies plus the mode's edge taps.
#[inline(always)]
fn extend<T: Real>(x: &[Lane<T>], lp: &LevelPlan, ext: &mut [Lane<T>]) {
    let (lo, hi) = (lp.interior.start, lp.interior.end);
    ext[lo..hi].copy_from_slice(&x[lp.src_start..lp.src_start + (hi - lo)]);
    edges(lp, Some(x), ext);
}

/// The mode's edge taps of one level's extension, from the input `x`, or with `None`
/// from the interior, which holds the input already (`holds_input`).
#[inline(always)]
fn edges<T: Real>(lp: &LevelPlan, x: Option<&[Lane<T>]>, ext: &mut [Lane<T>]) {
    let lo = lp.interior.start;
    for (t, taps) in &lp.edges {
        let mut v = zero::<T>();
        for tap in taps {
            // Both samples are read and one kept, not a `match` with one read: LLVM's code
            // for the loops around a `match` slows the whole lane kernel (BENCHMARKS.md,
            // "Measurements behind the code").
            let s = x.map_or(ext[lo + tap.index], |x| x[tap.index]);
            v = madd(v, T::from_f64(tap.coef), &s);
        }
        ext[*t] = v;
    }
}

/// `c · s + acc` lane-wise, fused like every native kernel. (Whole arrays by value: LLVM
/// turns this shape into vector code; the same arithmetic updated in place through `&mut`
/// came out scalar.)
#[inline(always)]
fn madd<T: Real>(acc: Lane<T>, c: T, s: &Lane<T>) -> Lane<T> {
    std::array::from_fn(|k| c.mul_add(s[k], acc[k]))
}

/// One band's sums about its first coefficient `shift`, lane-wise in f64, added in
/// coefficient order: Σ(c - shift) and Σ(c - shift)², from which `BandSummary::
/// from_sums` gives the band's mean, squared deviations and energy.
#[derive(Clone, Copy, Default)]
pub struct BandSums {
    shift: [f64; LANES],
    dev: [f64; LANES],
    dev2: [f64; LANES],
}

impl BandSums {
    /// Whether every band's sums are finite in every lane. A sample that is not finite
    /// makes every coefficient it reaches so (NaN, or ±inf whose square stays infinite),
    /// and every sample reaches the first level's detail band. Finite samples whose
    /// coefficients overflow give infinite sums too: callers look at the samples.
    pub fn finite(sums: &[BandSums]) -> bool {
        sums.iter().all(|b| b.dev2.iter().all(|e| e.is_finite()))
    }

    /// The sums of a band whose first coefficient is `c`, with `c` added.
    #[inline(always)]
    fn first<T: Real>(c: &Lane<T>) -> Self {
        BandSums {
            shift: widen(c),
            ..Default::default()
        }
        .with(c)
    }

    /// With one more coefficient. (By value: LLVM keeps the arrays in registers.)
    #[inline(always)]
    fn with<T: Real>(self, c: &Lane<T>) -> Self {
        let v = widen(c);
        let e: [f64; LANES] = std::array::from_fn(|l| v[l] - self.shift[l]);
        BandSums {
            shift: self.shift,
            dev: std::array::from_fn(|l| self.dev[l] + e[l]),
            dev2: std::array::from_fn(|l| e[l].mul_add(e[l], self.dev2[l])),
        }
    }
}

/// `a[o] = Σ_j lo[j] ext[2o+j]`, `d[o] = Σ_j hi[j] ext[2o+j]`, both sums in registers,
/// and the band sums of `d` (and of `a` when `SUM_A`: the last level's approximation is
/// a band) as the outputs leave the registers.
///
/// Four outputs at a time: eight independent chains of fused multiply-adds keep both FMA
/// units busy, where one output's two chains waited on the adder's latency at every tap
/// (a quarter of the throughput). Each sum still runs over the taps in order from zero.
/// The band sums (per coefficient and half lane: a conversion, a subtraction, an add and
/// a multiply-add) run beside the transform's multiply-adds, one block behind: passes of
/// their own over the coefficients cost a seventh of a lane group, and the squared
/// deviations' second pass (the mean first) another sixth.
#[inline(always)]
fn correlate<T: Real, const SUM_A: bool>(
    ext: &[Lane<T>],
    lo: &[T],
    hi: &[T],
    a: &mut [Lane<T>],
    d: &mut [Lane<T>],
) -> (BandSums, BandSums) {
    const B: usize = 4;
    let (n, f) = (a.len(), lo.len());
    assert!(d.len() == n && hi.len() == f, "correlate: lengths");
    // One output from the window `ext[2o..2o + f]`.
    let one = |o: usize| {
        let (mut sa, mut sd) = (zero::<T>(), zero::<T>());
        for ((s, &l), &h) in ext[2 * o..2 * o + f].iter().zip(lo).zip(hi) {
            sa = madd(sa, l, s);
            sd = madd(sd, h, s);
        }
        (sa, sd)
    };
    if n == 0 {
        return Default::default();
    }
    // The first outputs alone: the band sums are taken about them.
    let (a0, d0) = one(0);
    (a[0], d[0]) = (a0, d0);
    let mut rd = BandSums::first(&d0);
    let mut ra = if SUM_A {
        BandSums::first(&a0)
    } else {
        BandSums::default()
    };
    let mut o = 1;
    while o + B <= n {
        let window = &ext[2 * o..2 * o + 2 * (B - 1) + f];
        let (mut sa, mut sd) = ([zero::<T>(); B], [zero::<T>(); B]);
        // Each tap's samples as a window of the block's: no bounds check in the loop (an
        // index range per tap costs two).
        for ((taps, &l), &h) in window.windows(2 * B - 1).zip(lo).zip(hi) {
            for b in 0..B {
                let s = &taps[2 * b];
                sa[b] = madd(sa[b], l, s);
                sd[b] = madd(sd[b], h, s);
            }
        }
        a[o..o + B].copy_from_slice(&sa);
        d[o..o + B].copy_from_slice(&sd);
        // The previous block's outputs are summed from memory: converted straight from the
        // registers, LLVM split each filter's sums into half-width vectors (twice the
        // multiply-adds), and read back at once, the loads waited on the stores.
        if o > B {
            let (pa, pd) = std::hint::black_box((&a[o - B..o], &d[o - B..o]));
            for b in 0..B {
                rd = rd.with(&pd[b]);
                if SUM_A {
                    ra = ra.with(&pa[b]);
                }
            }
        }
        o += B;
    }
    for b in o.saturating_sub(B).max(1)..o {
        rd = rd.with(&d[b]);
        if SUM_A {
            ra = ra.with(&a[b]);
        }
    }
    for o in o..n {
        let (sa, sd) = one(o);
        rd = rd.with(&sd);
        if SUM_A {
            ra = ra.with(&sa);
        }
        (a[o], d[o]) = (sa, sd);
    }
    (ra, rd)
}

/// Decompose eight series `x` (`plan.len` samples) into `out` (bands concatenated in
/// pywt order, `plan.coeffs_per_series()` entries), and each band's sums into `sums`
/// (`plan.bands()` entries, same order) for `band_summaries`.
#[inline(always)]
pub fn decompose<T: Real>(
    x: &[Lane<T>],
    plan: &Plan,
    out: &mut [Lane<T>],
    sums: &mut [BandSums],
    s: &mut LaneScratch<T>,
) {
    s.input(plan).copy_from_slice(x);
    decompose_input(plan, out, sums, s);
}

/// `decompose` of the samples written to `s.input(plan)`.
#[inline(always)]
pub fn decompose_input<T: Real>(
    plan: &Plan,
    out: &mut [Lane<T>],
    sums: &mut [BandSums],
    s: &mut LaneScratch<T>,
) {
    let n = plan.level;
    assert_eq!(sums.len(), plan.bands(), "decompose: band sums");
    for (lvl, lp) in plan.levels.iter().enumerate() {
        if lp.holds_input() {
            edges(lp, None, &mut s.ext);
        } else {
            extend(&s.approx[..lp.n_in], lp, &mut s.ext);
        }
        let (head, tail) = out.split_at_mut(plan.offsets[n - lvl]);
        let d = &mut tail[..lp.n_out];
        let a = match plan.levels.get(lvl + 1) {
            None => &mut head[..lp.n_out],
            Some(next) if next.holds_input() => &mut s.next[next.interior.clone()],
            Some(_) => &mut s.approx[..lp.n_out],
        };
        let ext = &s.ext[..lp.ext_len];
        if lvl + 1 == n {
            (sums[0], sums[n - lvl]) = correlate::<T, true>(ext, &s.lo, &s.hi, a, d);
        } else {
            (_, sums[n - lvl]) = correlate::<T, false>(ext, &s.lo, &s.hi, a, d);
        }
        std::mem::swap(&mut s.ext, &mut s.next);
    }
}

#[inline(always)]
fn widen<T: Real>(c: &Lane<T>) -> [f64; LANES] {
    c.map(|v| v.to_f64())
}

/// The band summaries of the first `out.len()` series of `coeffs` into their summaries'
/// `bands`, from `decompose`'s coefficients (first and last) and band sums (the moments).
/// (Into the summaries themselves: made in a scratch and moved there, they were copied
/// a quarter kilobyte per series.)
#[inline(always)]
pub fn band_summaries<T: Real>(
    coeffs: &[Lane<T>],
    sums: &[BandSums],
    plan: &Plan,
    out: &mut [SeriesSummary],
) {
    assert_eq!(sums.len(), plan.bands(), "band_summaries: band sums");
    assert!(out.len() <= LANES, "band_summaries: one summary per lane");
    for s in out.iter_mut() {
        s.bands.clear();
        s.bands.reserve_exact(plan.bands());
    }
    for (k, s) in sums.iter().enumerate() {
        let band = &coeffs[plan.offsets[k]..plan.offsets[k] + plan.band_lens[k]];
        let len = band.len();
        for (l, b) in out.iter_mut().map(|o| &mut o.bands).enumerate() {
            b.push(match (band.first(), band.last()) {
                (Some(first), Some(last)) => {
                    // The sums are taken about the first coefficient (`BandSums::first`).
                    debug_assert_eq!(s.shift[l].to_bits(), first[l].to_f64().to_bits());
                    BandSummary::from_sums(s.shift[l], s.dev[l], s.dev2[l], last[l].to_f64(), len)
                }
                _ => BandSummary::default(),
            });
        }
    }
}
