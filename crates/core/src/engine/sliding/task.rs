//! One task of the sliding path: consecutive windows of one channel, in six stages. Once
//! per task, the span's stationary transform and its phased prefix sums (`span`); then
//! block by block, the windows' normalisation and statistics ([`statistics`]), their
//! edge coefficients ([`edges`]), the moments of every band some plan has ([`moments`],
//! in `task/moments.rs`),
//! and each plan's summaries and bounds from them ([`assemble`]). All but the last serve
//! every plan of the job: they are the deepest plan's, a shallower plan's levels are its
//! first ones, and detail band `j` is the same in every plan that reaches level `j` (only
//! the approximation band is each plan's own). Every stage is `inline(always)`, so it is
//! compiled into the caller's instruction-set frame (`run_task`).

mod moments;

use super::plan::{SlidePlan, Src};
use super::products::products;
use super::span::{phased, transform};
use super::{Job, Out, BLOCK, TASK_WINDOWS, U64};
use crate::data::Affine;
use crate::engine::summary::{BandTol, SeriesSummary, SeriesTol};
use crate::engine::StatsRequest;
use crate::numeric::real::{DType, Real};
use crate::numeric::simd;
use crate::stats::{SeriesStats, SlidingOrder, SlidingRange, StatsScratch};
use crate::timing::Stage;
use moments::{band_id, moments, EdgeSums, Moments};
use std::ops::Range;
use std::time::Instant;

/// What the blocks of one task share.
struct Span<'a> {
    /// The channel, and the task's first window.
    c: usize,
    w0: usize,
    /// The channel's row where the span starts.
    start: usize,
    /// The span's first window's mean, taken out of every sample before the transform.
    origin: f64,
    /// The unit roundoff of the per-window path's precision.
    unit: f64,
    /// `A_j` over the span, level by level.
    approx: &'a [Vec<f64>],
    /// Every level's edge slots side by side: level l's start at `at_level[l]`.
    at_level: Vec<usize>,
}

impl Span<'_> {
    /// Where window `i`'s series sits in the task's output (all channels, window-major).
    fn slot(&self, i: usize, channels: usize) -> usize {
        (i - self.w0) * channels + self.c
    }
}

/// Each window's extremes (and median, for the statistics), as the windows slide.
enum Order {
    /// With the statistics: a sorted window.
    Sorted(SlidingOrder),
    /// Without: min and max alone, for the error bound.
    Range(SlidingRange),
}

impl Order {
    /// `(min, max, lower median)` of `series[start..]`'s window; the median is NaN
    /// without the statistics, which alone read it.
    #[inline(always)]
    fn window(&mut self, series: &[f64], start: usize) -> (f64, f64, f64) {
        match self {
            Order::Sorted(o) => o.window(series, start),
            Order::Range(r) => {
                let (lo, hi) = r.window(series, start);
                (lo, hi, f64::NAN)
            }
        }
    }
}

/// One task's working memory for its blocks of windows.
struct Scratch<W> {
    order: Order,
    fft: Option<StatsScratch>,
    row: Vec<W>,
    maps: Vec<Affine>,
    /// Every edge of every window of the block, slot-major (`slot * BLOCK + window`).
    edge_a: Vec<f64>,
    edge_d: Vec<f64>,
    /// One side's inputs, a row of `BLOCK` windows each.
    xs: Vec<f64>,
    /// Each window's bound on the per-window path's error, before a plan's gain.
    spread: [f64; BLOCK],
    edge_sums: EdgeSums,
    /// Every band's moments for the block's windows, band-major (`band_id · BLOCK + window`).
    moments: Vec<Moments>,
}

impl<W: Real> Scratch<W> {
    /// For the windows of plan `sp` (the job's deepest), `slots` edge slots over its
    /// levels, with the statistics' sorted order and FFTs where they are asked for.
    fn new(sp: &SlidePlan, stride: usize, slots: usize, stats: Option<StatsRequest>) -> Self {
        let t_len = sp.len;
        Scratch {
            order: match stats {
                Some(_) => Order::Sorted(SlidingOrder::for_stride(t_len, stride)),
                None => Order::Range(SlidingRange::new(t_len)),
            },
            fft: stats.map(|req| StatsScratch::new(t_len).ranking(req.lags)),
            row: vec![W::ZERO; t_len],
            maps: Vec::with_capacity(BLOCK),
            edge_a: vec![0.0; BLOCK * slots],
            edge_d: vec![0.0; BLOCK * slots],
            xs: Vec::new(),
            spread: [0.0; BLOCK],
            edge_sums: EdgeSums::default(),
            moments: vec![Moments::default(); 2 * sp.levels.len() * BLOCK],
        }
    }
}

/// The channel's rows the task of windows `w` of channel `c` transforms. The span starts
/// at the task's first window in the run's numbering (TASK_WINDOWS), when the batch holds
/// its rows; a batch made by hand that does not, or whose rows there are not finite
/// (outside this part of the run, so unchecked), starts at its own.
fn span_rows(job: &Job<'_, '_>, c: usize, w: &Range<usize>) -> Range<usize> {
    let windows = job.batch.windows;
    let first = windows.start(w.start);
    let channel = job.batch.channels[c];
    let start = first
        .checked_sub((windows.first + w.start) % TASK_WINDOWS * windows.stride)
        .filter(|&s| channel[s..first].iter().all(|v| v.is_finite()))
        .unwrap_or(first);
    start..windows.start(w.end - 1) + job.deepest().len
}

/// Where each level's edge slots start when every level's sit side by side, and (last)
/// how many there are in all.
fn edge_slot_starts(sp: &SlidePlan) -> Vec<usize> {
    let mut at_level = Vec::with_capacity(sp.levels.len() + 1);
    at_level.push(0);
    for lv in &sp.levels {
        at_level.push(at_level.last().copied().unwrap_or(0) + lv.edges());
    }
    at_level
}

/// Windows `w` of channel `c`, into each plan's `outs`, which hold the series of windows
/// `w` (all channels, window-major).
#[inline(always)]
pub(super) fn task<W: Real>(job: &Job<'_, '_>, c: usize, w: Range<usize>, outs: &mut [Out<'_>]) {
    let Job {
        batch,
        stats,
        clock,
        ..
    } = *job;
    let sp = job.deepest();
    let t_len = sp.len;
    let rows = span_rows(job, c, &w);
    let xs = &batch.channels[c][rows.clone()];
    let mut t = Instant::now();

    // Transform the span relative to its first window's mean: the sums then carry no large
    // offset to cancel (every window's own mean is taken out exactly below, whatever the
    // origin), and the origin does not depend on where the batch ends.
    let origin = xs[..t_len].iter().sum::<f64>() / t_len as f64;
    let (approx, detail) = transform(sp, xs, origin);
    t = clock.lap(Stage::Decompose, t);
    let phases = phased(job.sps, &approx, &detail);
    t = clock.lap(Stage::Frequency, t);

    let at_level = edge_slot_starts(sp);
    let slots = at_level[sp.levels.len()];
    let span = Span {
        c,
        w0: w.start,
        start: rows.start,
        origin,
        unit: match batch.dtype {
            DType::F32 => f32::EPSILON as f64 / 2.0,
            DType::F64 => U64,
        },
        approx: &approx,
        at_level,
    };
    let mut s = Scratch::<W>::new(sp, batch.windows.stride, slots, stats);
    let ws: Vec<usize> = w.collect();
    let blocks: Vec<&[usize]> = ws.chunks(BLOCK).collect();
    let channels = batch.channel_count();
    ask_for(&span, blocks.first().copied(), outs, channels);
    for (b, &block) in blocks.iter().enumerate() {
        ask_for(&span, blocks.get(b + 1).copied(), outs, channels);
        // The per-window path's own normalisation, to the bit.
        s.maps.clear();
        let raws: Vec<&[f64]> = block.iter().map(|&i| batch.raw(i, c)).collect();
        batch.normalize.affines_into(&raws, &mut s.maps);
        t = clock.lap(Stage::Prepare, t);
        statistics(job, &span, block, &mut s, outs);
        t = clock.lap(Stage::Statistics, t);
        edges(job, &span, block, &mut s);
        t = clock.lap(Stage::Decompose, t);
        // The deepest plan's detail bands serve every plan; each plan's approximation
        // band is its own.
        let deepest = job.deepest();
        for k in 1..deepest.bands() {
            moments(job, deepest, k, &span, &phases, block, &mut s);
        }
        for sp in job.sps {
            moments(job, sp, 0, &span, &phases, block, &mut s);
        }
        for (sp, out) in job.sps.iter().zip(outs.iter_mut()) {
            assemble(job, sp, &span, block, &s, out);
        }
        t = clock.lap(Stage::Frequency, t);
    }
}

/// Ask the caches for the summaries and bounds of `block`'s windows under every plan, a
/// block ahead: each is written in lines not touched since an earlier chunk, one series
/// `channels` apart, so the stores must not wait on memory.
#[inline(always)]
fn ask_for(span: &Span<'_>, block: Option<&[usize]>, outs: &[Out<'_>], channels: usize) {
    for &i in block.unwrap_or_default() {
        let slot = span.slot(i, channels);
        for out in outs {
            simd::prefetch(&out.sums[slot..=slot]);
            simd::prefetch(&out.tols[slot..=slot]);
        }
    }
}

/// The block's statistics (min/max/median from the sliding order, the trend, the lags
/// where asked for), each window's tolerance `delta` against the per-window path under
/// each plan, and its summaries and tolerances cleared for the bands.
#[inline(always)]
fn statistics<W: Real>(
    job: &Job<'_, '_>,
    span: &Span<'_>,
    block: &[usize],
    s: &mut Scratch<W>,
    outs: &mut [Out<'_>],
) {
    let (batch, stats) = (job.batch, job.stats);
    let (c, t_len, n) = (span.c, job.deepest().len, batch.channel_count());
    let windows = batch.windows;
    for (b, (&i, aff)) in block.iter().zip(&s.maps).enumerate() {
        let start = windows.start(i);
        let raw = &batch.channels[c][start..start + t_len];
        let norm = |v: f64| batch.dtype.round(aff.map(v));
        let (lo_v, hi_v, mid_v) = s.order.window(batch.channels[c], start);
        // How far apart the two paths' coefficients can be: the per-window path's
        // rounding, plus this path's own (f64, on values offset by the window's mean).
        let big = norm(lo_v).abs().max(norm(hi_v).abs());
        let shift = aff.mean - span.origin;
        let spread = span.unit * big + 4.0 * U64 * (big + shift.abs() * aff.scale);
        s.spread[b] = spread;
        let mut stats = stats.map(|req| {
            let (lags, lags_clean) = match s.fft.as_mut() {
                Some(fft) if req.lags_for((i - batch.range.start) * n + c) => {
                    for (r, &v) in s.row.iter_mut().zip(raw) {
                        *r = W::from_f64(norm(v));
                    }
                    fft.lags_of(&s.row)
                }
                _ => Default::default(),
            };
            SeriesStats {
                min: norm(lo_v),
                max: norm(hi_v),
                median: norm(mid_v),
                trend: norm(raw[t_len - 1]) - norm(raw[0]),
                lags,
                lags_clean,
            }
        });
        let slot = span.slot(i, n);
        let plans = job.sps.len();
        for (k, (sp, out)) in job.sps.iter().zip(outs.iter_mut()).enumerate() {
            let tol = &mut out.tols[slot];
            tol.delta = sp.gain * spread;
            tol.bands.clear();
            let summary = &mut out.sums[slot];
            summary.bands.clear();
            // The last plan takes the statistics; the others a copy.
            summary.stats = if k + 1 == plans {
                stats.take()
            } else {
                stats.clone()
            };
        }
    }
}

/// Every edge coefficient of every window of the block, level by level, slot-major. Per
/// level and side it is a small matrix product, outputs = weights · inputs (rows: the
/// low-pass slots, then the high-pass ones; columns: the block's windows), computed in
/// register tiles (`products`).
#[inline(always)]
fn edges<W>(job: &Job<'_, '_>, span: &Span<'_>, block: &[usize], s: &mut Scratch<W>) {
    let (batch, sp) = (job.batch, job.deepest());
    let (windows, channel) = (batch.windows, batch.channels[span.c]);
    let at_level = &span.at_level;
    let nb = block.len();
    for (l, lv) in sp.levels.iter().enumerate() {
        let (prev, cur) = s.edge_a.split_at_mut(at_level[l] * BLOCK);
        let cur_a = &mut cur[..lv.edges() * BLOCK];
        let cur_d = &mut s.edge_d[at_level[l] * BLOCK..][..lv.edges() * BLOCK];
        cur_a.fill(0.0);
        cur_d.fill(0.0);
        for side in &lv.sides {
            let ne = side.slots.len();
            if ne == 0 {
                continue;
            }
            // The side's inputs, a row of the block's windows each.
            let inputs = side.refs.len();
            if s.xs.len() < inputs * BLOCK {
                s.xs.resize(inputs * BLOCK, 0.0);
            }
            for (src, x) in side.refs.iter().zip(s.xs.chunks_exact_mut(BLOCK)) {
                let x = &mut x[..nb];
                match *src {
                    Src::Raw(i) => {
                        for (x, &w) in x.iter_mut().zip(block) {
                            *x = channel[windows.start(w) + i] - span.origin;
                        }
                    }
                    Src::Interior(i) => {
                        let (a, step) = (&span.approx[l - 1], sp.levels[l - 1].dil * 2);
                        for (x, &w) in x.iter_mut().zip(block) {
                            *x = a[windows.start(w) - span.start + step * i];
                        }
                    }
                    Src::Edge(e) => {
                        x.copy_from_slice(&prev[(at_level[l - 1] + e) * BLOCK..][..nb]);
                    }
                }
            }
            let first = side.slots.start * BLOCK;
            let (lo, hi) = (&mut cur_a[first..], &mut cur_d[first..]);
            products(side, &s.xs[..inputs * BLOCK], nb, lo, hi);
        }
    }
}

/// Plan `sp`'s summaries and bounds of the block's windows, band by band in pywt order,
/// from the moments of its bands: a bound widens this path's rounding by the per-window
/// path's (`delta`, the plan's gain times the window's spread).
#[inline(always)]
fn assemble<W>(
    job: &Job<'_, '_>,
    sp: &SlidePlan,
    span: &Span<'_>,
    block: &[usize],
    s: &Scratch<W>,
    out: &mut Out<'_>,
) {
    let channels = job.batch.channel_count();
    let nb = block.len();
    for k in 0..sp.bands() {
        let moments = &s.moments[band_id(job.deepest(), sp.band(k)) * BLOCK..][..nb];
        for ((&i, m), &spread) in block.iter().zip(moments).zip(&s.spread) {
            let slot = span.slot(i, channels);
            let (summary, tol): (&mut SeriesSummary, &mut SeriesTol) =
                (&mut out.sums[slot], &mut out.tols[slot]);
            let delta = sp.gain * spread;
            let n = m.summary.len as f64;
            summary.bands.push(m.summary);
            tol.bands.push(BandTol {
                energy: 2.0 * delta * m.root + n * delta * delta + m.slide_e,
                sum: n * delta + m.slide_s,
            });
        }
    }
}
