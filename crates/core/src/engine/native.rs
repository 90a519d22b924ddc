//! The native engine: pure Rust kernels, generic over f32/f64, parallel over series.
//!
//! Each level is a polyphase correlation: the extended input is split into its even and
//! odd samples, after which every filter tap is one multiply-add of contiguous vectors.
//! The correlation is written over [`Vector`] and compiled for AVX-512, AVX2+FMA or plain
//! Rust, chosen at run time. Scratch buffers live per rayon task (a chunk of series), so
//! the hot loop allocates nothing per series.

use super::batch::WindowBatch;
pub use super::lanes::LANES;
use super::lanes::{self, BandSums, Lane, LaneScratch};
use super::plan::{LevelPlan, Plan};
use super::summary::{BandSummary, Bands, SeriesSummary};
use super::StatsRequest;
use crate::data::Affine;
use crate::numeric::real::Real;
use crate::numeric::simd::{self, Isa, Portable, Vector};
use crate::numeric::{memory, parallel};
use crate::stats::{SeriesStats, SlidingOrder, StatsScratch};
use crate::timing::{Stage, StageClock};
use rayon::prelude::*;
use std::time::Instant;

/// Series per rayon task: big enough to amortise scheduling, small enough to balance.
const CHUNK: usize = 64;

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

/// `data` as f64 when the plan transforms this precision in f64 (`Plan::work_dtype`).
fn widened<T: Real>(data: &[T], plan: &Plan) -> Option<Vec<f64>> {
    (plan.work_dtype(T::DTYPE) != T::DTYPE).then(|| data.iter().map(|v| v.to_f64()).collect())
}

/// Decompose every series of `data` (row-major, `plan.len` samples each).
pub fn decompose<T: Real>(data: &[T], plan: &Plan) -> Vec<T> {
    decompose_on(Isa::active(), data, plan)
}

/// `decompose` with the kernels of `isa` (which this CPU must support). Every instruction
/// set gives the same bits.
pub fn decompose_on<T: Real>(isa: Isa, data: &[T], plan: &Plan) -> Vec<T> {
    if let Some(wide) = widened(data, plan) {
        return decompose_on(isa, &wide, plan)
            .into_iter()
            .map(T::from_f64)
            .collect();
    }
    let rows = data.len() / plan.len.max(1);
    let mut out = memory::zeroed::<T>(rows * plan.coeffs_per_series());
    fill(isa, data, plan, &mut out);
    out
}

/// `decompose` into a caller's buffer of `rows × plan.coeffs_per_series()` (plan once,
/// execute many: a buffer reused across batches costs no page faults). Inputs the plan
/// transforms in f64 (`Plan::work_dtype`) go through `decompose` instead.
pub fn decompose_into<T: Real>(data: &[T], plan: &Plan, out: &mut [T]) {
    fill(Isa::active(), data, plan, out)
}

fn fill<T: Real>(isa: Isa, data: &[T], plan: &Plan, out: &mut [T]) {
    assert!(isa.supported(), "the CPU lacks {}", isa.name());
    let (len, stride) = (plan.len, plan.coeffs_per_series());
    let rows = data.len() / len.max(1);
    assert_eq!(out.len(), rows * stride, "decompose_into: output size");
    assert_eq!(
        plan.work_dtype(T::DTYPE),
        T::DTYPE,
        "decompose_into: widened plan"
    );
    if rows == 0 || stride == 0 {
        return;
    }
    data.par_chunks(len * CHUNK)
        .zip(out.par_chunks_mut(stride * CHUNK))
        .for_each(|(xs, os)| dispatch::decompose_rows(isa, xs, os, plan));
}

/// Decompose consecutive series of `xs` into consecutive rows of `os`.
#[inline(always)]
fn decompose_rows<V: Vector>(xs: &[V::T], os: &mut [V::T], plan: &Plan)
where
    V::T: Real,
{
    let mut s = Scratch::new(plan);
    for (i, (x, o)) in xs
        .chunks_exact(plan.len)
        .zip(os.chunks_exact_mut(plan.coeffs_per_series()))
        .enumerate()
    {
        // The hardware prefetcher alone left the loads of each new series waiting on
        // memory (42% of the kernel's samples); asking two series ahead overlaps that wait
        // with the transform of the current one.
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
fn summarize_rows<V: Vector>(
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
    let mut scratch = stats.map(|_| StatsScratch::new(plan.len));
    for (i, (x, sum)) in xs.chunks_exact(plan.len).zip(sums.iter_mut()).enumerate() {
        decompose_series::<V>(x, plan, &mut coeffs, &mut s);
        band_summaries(&coeffs, plan, &mut sum.bands);
        if let (Some(st), Some(req)) = (scratch.as_mut(), stats) {
            sum.stats = Some(st.compute(x, req.lags_for(first + i)));
        }
    }
}

/// The row loops compiled once per instruction set, chosen at run time: the binary stays
/// portable, and CPUs with AVX-512 or AVX2+FMA get their vectors. (The kernels are
/// `inline(always)` so they are compiled inside these frames; a closure is not reliably
/// inlined there, so each entry point is spelled out.)
mod dispatch {
    use super::*;

    pub fn decompose_rows<T: Real>(isa: Isa, xs: &[T], os: &mut [T], plan: &Plan) {
        match isa {
            // SAFETY (both): callers checked `isa.supported()`.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { x86::decompose_rows_avx512(xs, os, plan) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { x86::decompose_rows_avx2(xs, os, plan) },
            _ => super::decompose_rows::<Portable<T>>(xs, os, plan),
        }
    }

    pub fn summarize_rows<T: Real>(
        isa: Isa,
        xs: &[T],
        sums: &mut [SeriesSummary],
        plan: &Plan,
        first: usize,
        stats: Option<StatsRequest>,
    ) {
        match isa {
            // SAFETY (both): callers checked `isa.supported()`.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { x86::summarize_rows_avx512(xs, sums, plan, first, stats) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { x86::summarize_rows_avx2(xs, sums, plan, first, stats) },
            _ => super::summarize_rows::<Portable<T>>(xs, sums, plan, first, stats),
        }
    }

    /// The lane kernels are eight-wide arrays either way, so AVX-512 runs the AVX2 frame
    /// (an AVX-512 frame measured the same: 113–141 ms for the batch pipeline both ways).
    pub fn summarize_task<W: Real>(
        isa: Isa,
        batch: &WindowBatch<'_>,
        w0: usize,
        sums: &mut [SeriesSummary],
        plan: &Plan,
        stats: Option<StatsRequest>,
        clock: &StageClock,
    ) {
        #[cfg(target_arch = "x86_64")]
        if isa >= Isa::Avx2 {
            // SAFETY: callers checked `isa.supported()`.
            return unsafe { x86::summarize_task::<W>(batch, w0, sums, plan, stats, clock) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        super::summarize_task::<W>(batch, w0, sums, plan, stats, clock)
    }

    /// As `summarize_task`: the lane kernels in an AVX2 frame.
    pub fn slices_task<W: Real>(
        isa: Isa,
        rows: &[&[W]],
        first: usize,
        plan: &Plan,
        scratch: &mut SlicesScratch<W>,
        sums: &mut [SeriesSummary],
    ) -> Result<(), usize> {
        #[cfg(target_arch = "x86_64")]
        if isa >= Isa::Avx2 {
            // SAFETY: callers checked `isa.supported()`.
            return unsafe { x86::slices_task::<W>(rows, first, plan, scratch, sums) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        super::slices_task::<W, false>(rows, first, plan, scratch, sums)
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::super::{
            decompose_rows, summarize_rows, Plan, Real, SeriesSummary, SlicesScratch, StageClock,
            StatsRequest, WindowBatch,
        };

        #[target_feature(enable = "avx512f,avx2,fma")]
        pub unsafe fn decompose_rows_avx512<T: Real>(xs: &[T], os: &mut [T], plan: &Plan) {
            decompose_rows::<T::Avx512>(xs, os, plan)
        }

        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn decompose_rows_avx2<T: Real>(xs: &[T], os: &mut [T], plan: &Plan) {
            decompose_rows::<T::Avx2>(xs, os, plan)
        }

        #[target_feature(enable = "avx512f,avx2,fma")]
        pub unsafe fn summarize_rows_avx512<T: Real>(
            xs: &[T],
            sums: &mut [SeriesSummary],
            plan: &Plan,
            first: usize,
            stats: Option<StatsRequest>,
        ) {
            summarize_rows::<T::Avx512>(xs, sums, plan, first, stats)
        }

        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn summarize_rows_avx2<T: Real>(
            xs: &[T],
            sums: &mut [SeriesSummary],
            plan: &Plan,
            first: usize,
            stats: Option<StatsRequest>,
        ) {
            summarize_rows::<T::Avx2>(xs, sums, plan, first, stats)
        }

        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn slices_task<W: Real>(
            rows: &[&[W]],
            first: usize,
            plan: &Plan,
            scratch: &mut SlicesScratch<W>,
            sums: &mut [SeriesSummary],
        ) -> Result<(), usize> {
            super::super::slices_task::<W, true>(rows, first, plan, scratch, sums)
        }

        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn summarize_task<W: Real>(
            batch: &WindowBatch<'_>,
            w0: usize,
            sums: &mut [SeriesSummary],
            plan: &Plan,
            stats: Option<StatsRequest>,
            clock: &StageClock,
        ) {
            super::super::summarize_task::<W>(batch, w0, sums, plan, stats, clock)
        }
    }
}

/// Summaries of every series: band statistics taken while the coefficients are in cache,
/// plus the Time-LLM statistics of the series itself that `stats` asks for.
pub fn summarize<T: Real>(
    data: &[T],
    plan: &Plan,
    stats: Option<StatsRequest>,
) -> Vec<SeriesSummary> {
    summarize_on(Isa::active(), data, plan, stats)
}

/// `summarize` with the kernels of `isa` (which this CPU must support).
pub fn summarize_on<T: Real>(
    isa: Isa,
    data: &[T],
    plan: &Plan,
    stats: Option<StatsRequest>,
) -> Vec<SeriesSummary> {
    assert!(isa.supported(), "the CPU lacks {}", isa.name());
    if let Some(wide) = widened(data, plan) {
        return summarize_on(isa, &wide, plan, stats);
    }
    let len = plan.len;
    let rows = data.len() / len.max(1);
    let mut out = vec![SeriesSummary::default(); rows];
    if rows == 0 {
        return out;
    }
    data.par_chunks(len * CHUNK)
        .zip(out.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (xs, sums))| {
            dispatch::summarize_rows(isa, xs, sums, plan, c * CHUNK, stats)
        });
    out
}

/// Windows per rayon task of `summarize_windows`: each task restarts its sliding medians.
const TASK_WINDOWS: usize = 256;
/// Windows per block inside a task (all channels): a block's samples and coefficients stay
/// in L2 while it goes through the stages one after another.
const BLOCK_WINDOWS: usize = 16;

/// Summaries of every series of a window batch, computed in `W` (the plan's working
/// precision), without ever materialising the batch: each task reads its windows block by
/// block, normalised, and takes min/max/median from sliding sorted windows of the raw
/// channel (normalisation is monotone, so those map straight across). Thread time per
/// stage goes to `clock`.
pub fn summarize_windows<W: Real>(
    batch: &WindowBatch<'_>,
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> Vec<SeriesSummary> {
    summarize_windows_on::<W>(Isa::active(), batch, plan, stats, clock)
}

/// `summarize_windows` with the kernels of `isa` (which this CPU must support).
pub fn summarize_windows_on<W: Real>(
    isa: Isa,
    batch: &WindowBatch<'_>,
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> Vec<SeriesSummary> {
    assert!(isa.supported(), "the CPU lacks {}", isa.name());
    debug_assert_eq!(batch.seq_len(), plan.len);
    let n = batch.channel_count();
    let mut out = vec![SeriesSummary::default(); batch.series()];
    if out.is_empty() {
        return out;
    }
    // A small batch (a training step's 32 windows) is still spread over every thread.
    let windows = batch.series() / n.max(1);
    let task = windows
        .div_ceil(rayon::current_num_threads())
        .clamp(1, TASK_WINDOWS);
    out.par_chunks_mut(task * n)
        .enumerate()
        .for_each(|(t, sums)| {
            dispatch::summarize_task::<W>(isa, batch, t * task, sums, plan, stats, clock)
        });
    out
}

/// One task: windows `batch.range.start + w0 ..` (as many as `sums` holds), block by block,
/// eight series per lane group (see `lanes`).
#[inline(always)]
fn summarize_task<W: Real>(
    batch: &WindowBatch<'_>,
    w0: usize,
    sums: &mut [SeriesSummary],
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) {
    let (n, len, stride) = (batch.channel_count(), plan.len, plan.coeffs_per_series());
    let block = BLOCK_WINDOWS * n;
    let groups = block.div_ceil(LANES);
    let mut s = LaneScratch::<W>::new(plan);
    let mut xs: Vec<Lane<W>> = vec![[W::ZERO; LANES]; groups * len];
    let mut coeffs: Vec<Lane<W>> = vec![[W::ZERO; LANES]; groups * stride];
    let mut band_sums = vec![BandSums::default(); groups * plan.bands()];
    let mut maps: Vec<Affine> = Vec::with_capacity(block);
    let mut order: Vec<SlidingOrder> = (0..n)
        .map(|_| SlidingOrder::for_stride(len, batch.windows.stride))
        .collect();
    let mut fft = stats.map(|_| StatsScratch::new(len));
    let mut row = vec![W::ZERO; len];
    for (b, sums) in sums.chunks_mut(block).enumerate() {
        // Series k of this block: window `first + k / n`, channel `k % n`, lane k % LANES
        // of group k / LANES.
        let local = w0 + b * BLOCK_WINDOWS;
        let first = batch.range.start + local;
        let used = sums.len().div_ceil(LANES);
        let mut t = Instant::now();
        maps.clear();
        let k0 = local * n;
        batch.affines(k0..k0 + sums.len(), &mut maps);
        for k in 0..sums.len() {
            let group = &mut xs[k / LANES * len..][..len];
            let lane = k % LANES;
            batch.fill_mapped(first + k / n, k % n, maps[k], |t, v| group[t][lane] = v);
        }
        t = clock.lap(Stage::Prepare, t);
        for ((x, c), bs) in xs
            .chunks_exact(len)
            .zip(coeffs.chunks_exact_mut(stride))
            .zip(band_sums.chunks_exact_mut(plan.bands()))
            .take(used)
        {
            lanes::decompose(x, plan, c, bs, &mut s);
        }
        t = clock.lap(Stage::Decompose, t);
        for ((group, c), bs) in sums
            .chunks_mut(LANES)
            .zip(coeffs.chunks_exact(stride))
            .zip(band_sums.chunks_exact(plan.bands()))
        {
            lanes::band_summaries(c, bs, plan, group);
        }
        t = clock.lap(Stage::Frequency, t);
        let (Some(req), Some(fft)) = (stats, fft.as_mut()) else {
            continue;
        };
        for (k, sum) in sums.iter_mut().enumerate() {
            let (i, c) = (first + k / n, k % n);
            let (lo, hi, mid) = order[c].window(batch.channels[c], batch.windows.start(i));
            let norm = |v: f64| batch.dtype.round(maps[k].map(v));
            let x = &xs[k / LANES * len..][..len];
            let lane = k % LANES;
            let (lags, lags_clean) = if req.lags_for(local * n + k) {
                for (r, v) in row.iter_mut().zip(x) {
                    *r = v[lane];
                }
                fft.lags_of(&row)
            } else {
                Default::default()
            };
            sum.stats = Some(SeriesStats {
                min: norm(lo),
                max: norm(hi),
                median: norm(mid),
                trend: x[len - 1][lane].to_f64() - x[0][lane].to_f64(),
                lags,
                lags_clean,
            });
        }
        clock.lap(Stage::Statistics, t);
    }
}

/// Summaries of series held as rows in memory (a training step's batch), in their own
/// precision `W` (the plan's working one): the lane kernels of `summarize_windows` read
/// straight from the rows, so every bit is the window path's. The calling thread works
/// too, a lane group at a time (`parallel::for_each_piece_with`). Beside each lane group's
/// summaries, `then(summaries)`, computed by the thread that made them while they are in
/// its cache (what a caller would otherwise compute after the pass, alone): one `U` per
/// [`LANES`] rows. `Err(k)`: row k holds a sample that is not finite.
#[allow(clippy::type_complexity)]
pub fn summarize_slices<W: Real, U: Send + Default>(
    rows: &[&[W]],
    plan: &Plan,
    stats: Option<StatsRequest>,
    then: impl Fn(&[SeriesSummary]) -> U + Sync,
) -> Result<(Vec<SeriesSummary>, Vec<U>), usize> {
    let isa = Isa::active();
    debug_assert_eq!(plan.work_dtype(W::DTYPE), W::DTYPE);
    debug_assert!(rows.iter().all(|r| r.len() == plan.len));
    // Made in place: `vec![x; n]` copied a whole default summary per item (4% of a batch).
    let mut out: Vec<SeriesSummary> = (0..rows.len()).map(|_| Default::default()).collect();
    let mut per_group: Vec<U> = (0..rows.len().div_ceil(LANES))
        .map(|_| Default::default())
        .collect();
    parallel::for_each_piece_with(
        &mut out,
        LANES,
        &mut per_group,
        parallel::State {
            key: (plan.key(), stats),
            make: || SlicesScratch::new(plan, stats),
        },
        |scratch, first, sums, u| {
            let rows = &rows[first..first + sums.len()];
            dispatch::slices_task::<W>(isa, rows, first, plan, scratch, sums)?;
            *u = then(sums);
            Ok::<_, usize>(())
        },
    )?;
    Ok((out, per_group))
}

/// One thread's working memory for `slices_task`, with the statistics asked for (and
/// their FFTs) when there are any: made once per thread and shape (kept between calls).
pub struct SlicesScratch<W> {
    lanes: LaneScratch<W>,
    coeffs: Vec<Lane<W>>,
    band_sums: Vec<BandSums>,
    stats: Option<(StatsRequest, StatsScratch)>,
}

impl<W: Real> SlicesScratch<W> {
    fn new(plan: &Plan, stats: Option<StatsRequest>) -> Self {
        SlicesScratch {
            lanes: LaneScratch::new(plan),
            coeffs: vec![[W::ZERO; LANES]; plan.coeffs_per_series()],
            band_sums: vec![BandSums::default(); plan.bands()],
            stats: stats.map(|req| (req, StatsScratch::new(plan.len))),
        }
    }
}

/// The summaries of `rows` (rows `first..` of the batch) into `sums`, one lane group at a
/// time: its samples (16 KB at T = 512 in f32) and coefficients stay in L1 from the gather
/// to the band moments.
#[inline(always)]
fn slices_task<W: Real, const AVX2: bool>(
    rows: &[&[W]],
    first: usize,
    plan: &Plan,
    s: &mut SlicesScratch<W>,
    sums: &mut [SeriesSummary],
) -> Result<(), usize> {
    debug_assert_eq!(rows.len(), sums.len());
    for (g, (group, sums)) in rows.chunks(LANES).zip(sums.chunks_mut(LANES)).enumerate() {
        let k0 = first + g * LANES;
        // Gathered straight into the first level's extension (no copy of the samples).
        lanes::gather::<W, AVX2>(group, s.lanes.input(plan));
        lanes::decompose_input(plan, &mut s.coeffs, &mut s.band_sums, &mut s.lanes);
        if !BandSums::finite(&s.band_sums) {
            // A sample that is not finite, or finite ones whose coefficients overflow
            // (computed on, as any engine does).
            let bad = group
                .iter()
                .position(|r| r.iter().any(|v| !v.to_f64().is_finite()));
            if let Some(bad) = bad {
                return Err(k0 + bad);
            }
        }
        lanes::band_summaries(&s.coeffs, &s.band_sums, plan, sums);
        for (i, (row, sum)) in group.iter().zip(sums).enumerate() {
            sum.stats = s
                .stats
                .as_mut()
                .map(|(req, st)| st.compute(row, req.lags_for(k0 + i)));
        }
    }
    Ok(())
}
