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
use super::summary::{BandSummary, Bands};
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
    ext: Vec<Lane<T>>,
    approx: Vec<Lane<T>>,
    lo: Vec<T>,
    hi: Vec<T>,
}

impl<T: Real> LaneScratch<T> {
    pub fn new(plan: &Plan) -> Self {
        LaneScratch {
            ext: vec![zero(); plan.max_ext_len()],
            approx: vec![zero(); plan.len],
            lo: plan.lo_rev.iter().map(|&v| T::from_f64(v)).collect(),
            hi: plan.hi_rev.iter().map(|&v| T::from_f64(v)).collect(),
        }
    }
}

/// The extended input of one level: interior copies plus the mode's edge taps.
#[inline(always)]
fn extend<T: Real>(x: &[Lane<T>], lp: &LevelPlan, ext: &mut [Lane<T>]) {
    let (lo, hi) = (lp.interior.start, lp.interior.end);
    ext[lo..hi].copy_from_slice(&x[lp.src_start..lp.src_start + (hi - lo)]);
    for (t, taps) in &lp.edges {
        let mut v = zero::<T>();
        for tap in taps {
            v = madd(v, T::from_f64(tap.coef), &x[tap.index]);
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

/// `a[o] = Σ_j lo[j] ext[2o+j]`, `d[o] = Σ_j hi[j] ext[2o+j]`, both sums in registers.
#[inline(always)]
fn correlate<T: Real>(ext: &[Lane<T>], lo: &[T], hi: &[T], a: &mut [Lane<T>], d: &mut [Lane<T>]) {
    let f = lo.len();
    for (o, (a, d)) in a.iter_mut().zip(d.iter_mut()).enumerate() {
        let window = &ext[2 * o..2 * o + f];
        let (mut sa, mut sd) = (zero::<T>(), zero::<T>());
        for ((s, &l), &h) in window.iter().zip(lo).zip(hi) {
            sa = madd(sa, l, s);
            sd = madd(sd, h, s);
        }
        *a = sa;
        *d = sd;
    }
}

/// Decompose eight series `x` (`plan.len` samples) into `out` (bands concatenated in
/// pywt order, `plan.coeffs_per_series()` entries).
#[inline(always)]
pub fn decompose<T: Real>(x: &[Lane<T>], plan: &Plan, out: &mut [Lane<T>], s: &mut LaneScratch<T>) {
    let n = plan.level;
    for (lvl, lp) in plan.levels.iter().enumerate() {
        let input = if lvl == 0 { x } else { &s.approx[..lp.n_in] };
        extend(input, lp, &mut s.ext);
        let (head, tail) = out.split_at_mut(plan.offsets[n - lvl]);
        let d = &mut tail[..lp.n_out];
        let a = if lvl + 1 == n {
            &mut head[..lp.n_out]
        } else {
            &mut s.approx[..lp.n_out]
        };
        correlate(&s.ext[..lp.ext_len], &s.lo, &s.hi, a, d);
    }
}

/// The band summaries of the first `lanes` series of `coeffs` into `out[series][band]`.
/// Moments are two-pass (mean, then squared deviations), as numpy does them.
#[inline(always)]
pub fn band_summaries<T: Real>(coeffs: &[Lane<T>], plan: &Plan, out: &mut [Bands<BandSummary>]) {
    for b in out.iter_mut() {
        b.clear();
        b.reserve_exact(plan.bands());
    }
    for k in 0..plan.bands() {
        let band = &coeffs[plan.offsets[k]..plan.offsets[k] + plan.band_lens[k]];
        let len = band.len();
        let (mut sum, mut energy) = ([0.0f64; LANES], [0.0f64; LANES]);
        for c in band {
            let v: [f64; LANES] = c.map(|v| v.to_f64());
            sum = std::array::from_fn(|l| sum[l] + v[l]);
            energy = std::array::from_fn(|l| energy[l] + v[l] * v[l]);
        }
        let mean: [f64; LANES] = sum.map(|s| if len > 0 { s / len as f64 } else { 0.0 });
        let mut m2 = [0.0f64; LANES];
        for c in band {
            let v: [f64; LANES] = c.map(|v| v.to_f64());
            m2 = std::array::from_fn(|l| m2[l] + (v[l] - mean[l]) * (v[l] - mean[l]));
        }
        for (l, b) in out.iter_mut().enumerate() {
            b.push(match (band.first(), band.last()) {
                (Some(first), Some(last)) => BandSummary {
                    energy: energy[l],
                    mean: mean[l],
                    m2: m2[l],
                    first: first[l].to_f64(),
                    last: last[l].to_f64(),
                    len,
                },
                _ => BandSummary::default(),
            });
        }
    }
}
