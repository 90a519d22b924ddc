//! The per-series kernels: the polyphase correlation of one level, a series' whole
//! decomposition and its band summaries, and the row loops that `dispatch` compiles once
//! per instruction set.

use super::super::plan::{LevelPlan, Plan};
use super::super::summary::{BandSummary, Bands, SeriesSummary};
use super::super::StatsRequest;
use crate::numeric::real::Real;
use crate::numeric::simd::{self, Vector};
use crate::stats::StatsScratch;

/// How many series ahead `decompose_rows` prefetches its input.
const PREFETCH: usize = 2;

/// Samples of slack after each phase: the last vector of a correlation may read (and then
/// discard) up to one widest vector past the end.
const PAD: usize = 16;

/// Per-task working memory, sized once from the plan.
struct Scratch<T> {
    /// The even and odd samples of the current level's extended input.
    even: Vec<T>,
    odd: Vec<T>,
    /// The approximation carried to the next level.
    approx: Vec<T>,
    lo: Vec<T>,
    hi: Vec<T>,
}

impl<T: Real> Scratch<T> {
    fn new(plan: &Plan) -> Self {
        let ext = plan.max_ext_len();
        Scratch {
            even: vec![T::ZERO; ext.div_ceil(2) + PAD],
            odd: vec![T::ZERO; ext / 2 + PAD],
            // Above the maximum level (pywt computes it, with a warning) a level's output
            // can be longer than the series: hold the longest approximation.
            approx: vec![
                T::ZERO;
                plan.levels
                    .iter()
                    .map(|l| l.n_out)
                    .max()
                    .unwrap_or(0)
                    .max(plan.len)
            ],
            lo: plan.lo_rev.iter().map(|&v| T::from_f64(v)).collect(),
            hi: plan.hi_rev.iter().map(|&v| T::from_f64(v)).collect(),
        }
    }
}

/// Write the extended input `xe` of one level straight into its even (`xe[2m]`) and odd
/// (`xe[2m+1]`) phases: interior samples are strided copies, edges come from their taps.
#[inline(always)]
fn extend_split<T: Real>(x: &[T], lp: &LevelPlan, even: &mut [T], odd: &mut [T]) {
    let (lo, hi) = (lp.interior.start, lp.interior.end);
    if hi > lo {
        // xe[t] = src[t - lo] for t in lo..hi: one pass of pairs fills both phases.
        let mut src = &x[lp.src_start..lp.src_start + (hi - lo)];
        let mut t = lo;
        if t % 2 == 1 {
            odd[t / 2] = src[0];
            src = &src[1..];
            t += 1;
        }
        let base = t / 2;
        let pairs = src.chunks_exact(2);
        if let [last] = pairs.remainder() {
            even[base + src.len() / 2] = *last;
        }
        for ((e, o), p) in even[base..]
            .iter_mut()
            .zip(odd[base..].iter_mut())
            .zip(pairs)
        {
            *e = p[0];
            *o = p[1];
        }
    }
    for (t, taps) in &lp.edges {
        let mut v = T::ZERO;
        for tap in taps {
            v = T::from_f64(tap.coef).mul_add(x[tap.index], v);
        }
        if t % 2 == 0 {
            even[t / 2] = v;
        } else {
            odd[t / 2] = v;
        }
    }
}

/// `a[o] = Σ_j lo[j] xe[2o+j]`, `d[o] = Σ_j hi[j] xe[2o+j]` through the even/odd phases
/// (`xe[2m] = even[m]`, `xe[2m+1] = odd[m]`).
///
/// Both sums of a block of outputs stay in registers across all taps: one load and two
/// fused multiply-adds per tap and vector, the sum running over the taps in order from
/// zero (as `lanes::correlate` does, so the two kernels agree to the bit). Blocks of four
/// vectors give eight independent chains, enough to keep both FMA units busy; the rest
/// goes one vector at a time, the last one reading into the phases' padding and storing
/// only its real outputs.
#[inline(always)]
fn correlate<V: Vector>(
    even: &[V::T],
    odd: &[V::T],
    lo: &[V::T],
    hi: &[V::T],
    a: &mut [V::T],
    d: &mut [V::T],
) where
    V::T: Real,
{
    let (n, l, f) = (a.len(), V::LANES, lo.len());
    assert!(d.len() == n && hi.len() == f, "correlate: lengths");
    let reach = n.next_multiple_of(l) + f / 2;
    assert!(
        even.len() >= reach && odd.len() >= reach,
        "correlate: padding"
    );
    // SAFETY: the vector instructions are those of the caller's frame (`Vector`'s
    // contract); loads stay below `reach` (asserted), stores below `n`.
    unsafe {
        let mut o = 0;
        while o + 4 * l <= n {
            let (sa, sd) = block_sums::<V, 4>(even, odd, lo, hi, o);
            for k in 0..4 {
                sa[k].store(a.as_mut_ptr().add(o + k * l));
                sd[k].store(d.as_mut_ptr().add(o + k * l));
            }
            o += 4 * l;
        }
        while o < n {
            let ([sa], [sd]) = block_sums::<V, 1>(even, odd, lo, hi, o);
            let (pa, pd) = (a.as_mut_ptr().add(o), d.as_mut_ptr().add(o));
            if n - o >= l {
                sa.store(pa);
                sd.store(pd);
            } else {
                sa.store_part(pa, n - o);
                sd.store_part(pd, n - o);
            }
            o += l;
        }
    }
}

/// Both filters' sums for the `B` vectors of outputs from `o` on, over all taps.
///
/// # Safety
/// As [`Vector`]'s methods; `even`/`odd` must hold `o + B·LANES + lo.len() / 2` samples.
#[inline(always)]
unsafe fn block_sums<V: Vector, const B: usize>(
    even: &[V::T],
    odd: &[V::T],
    lo: &[V::T],
    hi: &[V::T],
    o: usize,
) -> ([V; B], [V; B])
where
    V::T: Real,
{
    let zero = V::splat(V::T::ZERO);
    let (mut sa, mut sd) = ([zero; B], [zero; B]);
    for (j, (&cl, &ch)) in lo.iter().zip(hi).enumerate() {
        // Tap j reads xe[2o + j]: phase j % 2, from index j / 2 + o.
        let p = if j % 2 == 0 { even } else { odd }.as_ptr().add(j / 2 + o);
        let (cl, ch) = (V::splat(cl), V::splat(ch));
        for k in 0..B {
            let x = V::load(p.add(k * V::LANES));
            sa[k] = cl.mul_add(x, sa[k]);
            sd[k] = ch.mul_add(x, sd[k]);
        }
    }
    (sa, sd)
}

/// Decompose one series into `out` (bands concatenated, pywt order).
#[inline(always)]
fn decompose_series<V: Vector>(x: &[V::T], plan: &Plan, out: &mut [V::T], s: &mut Scratch<V::T>)
where
    V::T: Real,
{
    let offsets = &plan.offsets;
    let n = plan.level;
    for (lvl, lp) in plan.levels.iter().enumerate() {
        // Level 1 reads the series itself; deeper levels the previous approximation,
        // which is free to be overwritten once split into the phases.
        let input = if lvl == 0 { x } else { &s.approx[..lp.n_in] };
        extend_split(input, lp, &mut s.even, &mut s.odd);
        // Detail band of this level: cD_(lvl+1) sits at index n - lvl.
        let (head, tail) = out.split_at_mut(offsets[n - lvl]);
        let d = &mut tail[..lp.n_out];
        let a = if lvl + 1 == n {
            &mut head[..lp.n_out]
        } else {
            &mut s.approx[..lp.n_out]
        };
        correlate::<V>(&s.even, &s.odd, &s.lo, &s.hi, a, d);
    }
}

/// Decompose consecutive series of `xs` into consecutive rows of `os`.
#[inline(always)]
pub(super) fn decompose_rows<V: Vector>(xs: &[V::T], os: &mut [V::T], plan: &Plan)
where
    V::T: Real,
{
    let mut s = Scratch::new(plan);
    for (i, (x, o)) in xs
        .chunks_exact(plan.len)
        .zip(os.chunks_exact_mut(plan.coeffs_per_series()))
        .enumerate()
    {
        // Ask for the series two ahead: the hardware prefetcher alone leaves each new
        // series' loads waiting on memory, and this overlaps that wait with the transform
        // of the current one (BENCHMARKS.md, "Measurements behind the code").
        if let Some(next) = xs.get((i + PREFETCH) * plan.len..(i + PREFETCH + 1) * plan.len) {
            simd::prefetch(next);
        }
        decompose_series::<V>(x, plan, o, &mut s);
    }
}

/// The summary of each band of one series' coefficients. A plain loop, not an iterator
/// chain: the sums must be inlined into the caller's vector frame to be vectorised.
#[inline(always)]
fn band_summaries<T: Real>(coeffs: &[T], plan: &Plan, bands: &mut Bands<BandSummary>) {
    bands.clear();
    bands.reserve_exact(plan.bands());
    for k in 0..plan.bands() {
        let o = plan.offsets[k];
        bands.push(BandSummary::of(&coeffs[o..o + plan.band_lens[k]]));
    }
}

/// Summarise consecutive series of `xs` into `sums`.
#[inline(always)]
pub(super) fn summarize_rows<V: Vector>(
    xs: &[V::T],
    sums: &mut [SeriesSummary],
    plan: &Plan,
    first: usize,
    stats: Option<StatsRequest>,
) where
    V::T: Real,
{
    let mut s = Scratch::new(plan);
    let mut coeffs = vec![V::T::ZERO; plan.coeffs_per_series()];
    let mut scratch = stats.map(|req| StatsScratch::new(plan.len).ranking(req.lags));
    for (i, (x, sum)) in xs.chunks_exact(plan.len).zip(sums.iter_mut()).enumerate() {
        decompose_series::<V>(x, plan, &mut coeffs, &mut s);
        band_summaries(&coeffs, plan, &mut sum.bands);
        if let (Some(st), Some(req)) = (scratch.as_mut(), stats) {
            sum.stats = Some(st.compute(x, req.lags_for(first + i)));
        }
    }
}
