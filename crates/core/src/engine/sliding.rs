//! The sliding-window path: overlapping windows share their coefficients.
//!
//! Window `w` of a channel `X`, at level `j`, has every coefficient that the signal
//! extension does not reach equal to a sample of the channel's undecimated (à trous)
//! transform: `cA_j[o] = A_j[w + 2^j·o]`, `cD_j[o] = D_j[w + 2^j·o]`, with
//!
//! ```text
//! A_0 = X,   A_j[p] = Σ_t lo[t]·A_(j-1)[p + 2^(j-1)·(t + first)],   D_j likewise with hi,
//! ```
//!
//! computed once per channel (`lo`/`hi` the plan's correlation filters, `first` where the
//! extended input starts). Only the few coefficients at each end of each band depend on the
//! window: they come from precomputed weights over the window's first and last samples
//! and the previous level's coefficients (`Level`). Band sums and sums of squares are then
//! differences of prefix sums over the right phase of `A_j`/`D_j`, plus those edges: per
//! window the cost is O(levels × filter length) instead of O(window length).
//!
//! Normalisation is affine per window and the transform linear, so the normalised moments
//! follow from the raw ones and the transform of a constant window (`ones`); the window's
//! mean and scale are computed exactly as the per-window path does, so min/max/median and
//! every statistic are the same to the bit. The band moments are not: they are f64 sums
//! over the exact transform, where the per-window path rounds to the run's precision. Each
//! series therefore carries a [`SeriesTol`], a bound on how far apart the two can be, and
//! `features::margin` sends a prompt back to the per-window path whenever a description
//! could fall on the other side of a threshold within that bound.

use super::batch::WindowBatch;
use super::plan::Plan;
use super::summary::{BandSummary, BandTol, SeriesSummary, SeriesTol};
use super::StatsRequest;
use crate::numeric::real::{DType, Real};
use crate::numeric::simd::Isa;
use crate::stats::{SeriesStats, SlidingOrder, StatsScratch};
use crate::timing::{Stage, StageClock};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::ops::Range;
use std::time::Instant;

/// Windows per task (one channel each), at fixed places in the run: a task holds the
/// windows whose run number lies in one `[k·TASK_WINDOWS, (k+1)·TASK_WINDOWS)`, and its
/// transform and prefix sums start at window `k·TASK_WINDOWS` whichever part of the run
/// the batch holds. So a window's summary has the same bits whether the run is whole,
/// sharded or chunked, and on any number of threads (`Shape::rows` hands a chunk the rows
/// back to its first task's start). 256 keeps 16 tasks in a pipeline chunk for the threads;
/// each task transforms `seq_len` samples beyond its windows.
pub const TASK_WINDOWS: usize = 256;
/// Windows per block inside a task, timed stage by stage.
const BLOCK: usize = 64;

/// f64's unit roundoff.
const U64: f64 = f64::EPSILON / 2.0;

/// Where an edge coefficient's input comes from.
#[derive(Debug, Clone, Copy)]
enum Src {
    /// Sample `i` of the window (level 1).
    Raw(usize),
    /// Coefficient `i` of the previous level's approximation, from the stationary sequence.
    Interior(usize),
    /// The previous level's edge approximation in this slot.
    Edge(usize),
}

/// One level: which outputs slide, and the weights of the others.
#[derive(Debug, Clone)]
struct Level {
    /// `2^(j-1)`, the spacing of the previous level's sequence.
    dil: usize,
    first: isize,
    n_out: usize,
    /// Outputs equal to the stationary sequences at `w + 2^j·o`.
    interior: Range<usize>,
    /// The edges before and after the interior.
    sides: [Side; 2],
}

/// The edge outputs at one end of a level: slots (outputs `0..interior.start`, then
/// `interior.end..n_out`), the inputs they read, and per input a column of weights (the
/// low-pass filter's for each slot, then the high-pass filter's), so that each input is
/// one multiply-add into independent sums.
#[derive(Debug, Clone)]
struct Side {
    slots: Range<usize>,
    refs: Vec<Src>,
    columns: Vec<f64>,
}

impl Level {
    fn edges(&self) -> usize {
        self.interior.start + self.n_out - self.interior.end
    }

    fn slot(&self, o: usize) -> Option<usize> {
        if o < self.interior.start {
            Some(o)
        } else if o >= self.interior.end {
            Some(o - self.interior.end + self.interior.start)
        } else {
            None
        }
    }
}

/// Everything about a plan that the sliding path needs, computed once.
#[derive(Debug, Clone)]
pub struct SlidePlan {
    len: usize,
    filter: usize,
    levels: Vec<Level>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The constant window's coefficients per band (pywt order), and their Σ, Σ², Σ|·|.
    ones: Vec<Vec<f64>>,
    ones_sum: Vec<f64>,
    ones_sq: Vec<f64>,
    ones_abs: Vec<f64>,
    /// `ones` at each band's edge slots.
    edge_ones: Vec<Vec<f64>>,
    /// The per-window path's coefficients are within `gain · u · max|x|` of the exact
    /// transform (`u` the unit roundoff of its precision).
    gain: f64,
}

impl SlidePlan {
    /// None when some level has no coefficient the extension leaves alone (windows too
    /// short for the filter), where nothing would slide.
    pub fn new(plan: &Plan) -> Option<SlidePlan> {
        let f = plan.wavelet.filter_length;
        let mut levels: Vec<Level> = Vec::with_capacity(plan.level);
        let mut gain = 1.0;
        for (lvl, lp) in plan.levels.iter().enumerate() {
            if lp.interior.is_empty() {
                return None;
            }
            let first = lp.src_start as isize - lp.interior.start as isize;
            let prev = levels.last().map_or(0..plan.len, |l| l.interior.clone());
            let slides = |o: usize| {
                let (a, b) = (2 * o, 2 * o + f - 1);
                a >= lp.interior.start
                    && b < lp.interior.end
                    && a as isize + first >= prev.start as isize
                    && (b as isize + first) < prev.end as isize
            };
            let start = (0..lp.n_out).find(|&o| slides(o))?;
            let end = (start..lp.n_out).take_while(|&o| slides(o)).last()? + 1;
            // The extended input at position u, as weights over the level's input.
            let xe = |u: usize| -> Vec<(usize, f64)> {
                if lp.interior.contains(&u) {
                    vec![((u as isize + first) as usize, 1.0)]
                } else {
                    lp.edges
                        .iter()
                        .find(|(t, _)| *t == u)
                        .map(|(_, taps)| taps.iter().map(|t| (t.index, t.coef)).collect())
                        .unwrap_or_default()
                }
            };
            let mut reach: f64 = 1.0;
            for (_, taps) in &lp.edges {
                reach = reach.max(taps.iter().map(|t| t.coef.abs()).sum());
            }
            let norm1 = |v: &[f64]| v.iter().map(|c| c.abs()).sum::<f64>();
            gain *= reach * norm1(&plan.lo_rev).max(norm1(&plan.hi_rev));
            let side = |outs: Range<usize>, slots: Range<usize>| -> Option<Side> {
                let weights: Vec<BTreeMap<usize, (f64, f64)>> = outs
                    .map(|o| {
                        let mut w = BTreeMap::new();
                        for t in 0..f {
                            for (i, c) in xe(2 * o + t) {
                                let e = w.entry(i).or_insert((0.0, 0.0));
                                e.0 += plan.lo_rev[t] * c;
                                e.1 += plan.hi_rev[t] * c;
                            }
                        }
                        w
                    })
                    .collect();
                let mut inputs: Vec<usize> =
                    weights.iter().flat_map(|w| w.keys().copied()).collect();
                inputs.sort_unstable();
                inputs.dedup();
                let refs = inputs
                    .iter()
                    .map(|&i| match levels.last() {
                        None => Src::Raw(i),
                        Some(p) => match p.slot(i) {
                            Some(s) => Src::Edge(s),
                            None => Src::Interior(i),
                        },
                    })
                    .collect();
                let mut columns = Vec::with_capacity(inputs.len() * 2 * weights.len());
                for i in &inputs {
                    let at =
                        |w: &BTreeMap<usize, (f64, f64)>| w.get(i).copied().unwrap_or((0.0, 0.0));
                    columns.extend(weights.iter().map(|w| at(w).0));
                    columns.extend(weights.iter().map(|w| at(w).1));
                }
                Some(Side {
                    slots,
                    refs,
                    columns,
                })
            };
            let edges_before = start;
            let sides = [
                side(0..start, 0..edges_before)?,
                side(end..lp.n_out, edges_before..edges_before + lp.n_out - end)?,
            ];
            levels.push(Level {
                dil: 1 << lvl,
                first,
                n_out: lp.n_out,
                interior: start..end,
                sides,
            });
        }
        let coeffs = super::native::decompose(&vec![1.0f64; plan.len], plan);
        let ones: Vec<Vec<f64>> = (0..plan.bands())
            .map(|k| coeffs[plan.offsets[k]..][..plan.band_lens[k]].to_vec())
            .collect();
        let edge_ones = (0..plan.bands())
            .map(|k| {
                let lv = &levels[if k == 0 {
                    plan.level
                } else {
                    plan.level + 1 - k
                } - 1];
                (0..lv.n_out)
                    .filter(|o| lv.slot(*o).is_some())
                    .map(|o| ones[k][o])
                    .collect()
            })
            .collect();
        Some(SlidePlan {
            len: plan.len,
            edge_ones,
            filter: f,
            ones_sum: ones.iter().map(|b| b.iter().sum()).collect(),
            ones_sq: ones.iter().map(|b| b.iter().map(|v| v * v).sum()).collect(),
            ones_abs: ones
                .iter()
                .map(|b| b.iter().map(|v| v.abs()).sum())
                .collect(),
            ones,
            // Rounding of the input, then of every tap at every level, amplified by the
            // filters' gain (the standard bound, with room for second-order terms).
            gain: 1.1 * gain * (1.0 + (plan.level * f) as f64),
            levels,
            lo: plan.lo_rev.clone(),
            hi: plan.hi_rev.clone(),
        })
    }

    fn bands(&self) -> usize {
        self.levels.len() + 1
    }

    /// The level (1-based) and kind of band `k` in pywt order.
    fn band(&self, k: usize) -> (usize, bool) {
        let n = self.levels.len();
        if k == 0 {
            (n, true)
        } else {
            (n + 1 - k, false)
        }
    }
}

/// Summaries of every series of `batch` (window-major, as the engines return them) by the
/// sliding path, each with its tolerance against the per-window path. `W` is the plan's
/// working precision, used for the lags exactly as the per-window path uses it.
pub fn summarize_windows<W: Real>(
    batch: &WindowBatch<'_>,
    sp: &SlidePlan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> (Vec<SeriesSummary>, Vec<SeriesTol>) {
    debug_assert_eq!(batch.seq_len(), sp.len);
    let n = batch.channel_count();
    let mut sums = vec![SeriesSummary::default(); batch.series()];
    let mut tols = vec![SeriesTol::default(); batch.series()];
    if sums.is_empty() {
        return (sums, tols);
    }
    // A task takes consecutive windows of every channel, so its series are one contiguous
    // run of the output and are written in place (a summary is a few hundred bytes: moving
    // 118,363 of them into place was 8 % of a run).
    let mut tasks = Vec::new();
    let (mut rest_s, mut rest_t) = (&mut sums[..], &mut tols[..]);
    let mut w0 = batch.range.start;
    while w0 < batch.range.end {
        let run_number = batch.windows.first + w0;
        let w1 = (w0 + TASK_WINDOWS - run_number % TASK_WINDOWS).min(batch.range.end);
        let (s, s_rest) = std::mem::take(&mut rest_s).split_at_mut((w1 - w0) * n);
        let (t, t_rest) = std::mem::take(&mut rest_t).split_at_mut((w1 - w0) * n);
        tasks.push((w0..w1, s, t));
        (rest_s, rest_t, w0) = (s_rest, t_rest, w1);
    }
    let job = Job {
        batch,
        sp,
        stats,
        clock,
    };
    tasks.into_par_iter().for_each(|(w, sums, tols)| {
        for c in 0..n {
            run_task::<W>(&job, c, w.clone(), sums, tols);
        }
    });
    (sums, tols)
}

/// A band's sequence (`A_j` or `D_j`) over a task's span, and its prefix sums of values
/// and squares along each phase of step `2^j`.
struct Phased<'a> {
    v: &'a [f64],
    sum: Vec<f64>,
    sq: Vec<f64>,
}

/// What every task of one `summarize_windows` call shares.
#[derive(Clone, Copy)]
struct Job<'a, 'b> {
    batch: &'a WindowBatch<'b>,
    sp: &'a SlidePlan,
    stats: Option<StatsRequest>,
    clock: &'a StageClock,
}

/// `task`, compiled for AVX2 and FMA where the CPU has them, so its sums and edge loops
/// run in 256-bit vectors. The results are the same bits: Rust never fuses or reorders
/// float operations by itself, and `mul_add` is fused on every target.
fn run_task<W: Real>(
    job: &Job<'_, '_>,
    c: usize,
    w: Range<usize>,
    sums: &mut [SeriesSummary],
    tols: &mut [SeriesTol],
) {
    #[cfg(target_arch = "x86_64")]
    if Isa::active() >= Isa::Avx2 {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn task_avx2<W: Real>(
            job: &Job<'_, '_>,
            c: usize,
            w: Range<usize>,
            sums: &mut [SeriesSummary],
            tols: &mut [SeriesTol],
        ) {
            task::<W>(job, c, w, sums, tols)
        }
        // SAFETY: `Isa::active` checked that this CPU has AVX2 and FMA.
        return unsafe { task_avx2::<W>(job, c, w, sums, tols) };
    }
    task::<W>(job, c, w, sums, tols)
}

/// Windows `w` of channel `c`, into `sums`/`tols`, which hold the series of windows `w`
/// (all channels, window-major).
#[inline(always)]
fn task<W: Real>(
    job: &Job<'_, '_>,
    c: usize,
    w: Range<usize>,
    sums: &mut [SeriesSummary],
    tols: &mut [SeriesTol],
) {
    let Job {
        batch,
        sp,
        stats,
        clock,
    } = *job;
    let (t_len, f, nl) = (sp.len, sp.filter, sp.levels.len());
    let windows = batch.windows;
    // The span starts at the task's first window in the run's numbering (TASK_WINDOWS),
    // when the batch holds its rows; a batch made by hand that does not, or whose rows
    // there are not finite (outside this part of the run, so unchecked), starts at its own.
    let first = windows.start(w.start);
    let channel = batch.channels[c];
    let span0 = first
        .checked_sub((windows.first + w.start) % TASK_WINDOWS * windows.stride)
        .filter(|&s| channel[s..first].iter().all(|v| v.is_finite()))
        .unwrap_or(first);
    let span1 = windows.start(w.end - 1) + t_len;
    let xs = &channel[span0..span1];
    let span = xs.len();
    let mut t = Instant::now();

    // Transform the span relative to its first window's mean: the sums then carry no large
    // offset to cancel (every window's own mean is taken out exactly below, whatever the
    // origin), and the origin does not depend on where the batch ends.
    let origin = xs[..t_len].iter().sum::<f64>() / t_len as f64;
    let a0: Vec<f64> = xs.iter().map(|v| v - origin).collect();
    // A_j and D_j over the span; zero where the span does not hold their inputs (no
    // window's interior reads there).
    let mut approx: Vec<Vec<f64>> = Vec::with_capacity(nl);
    let mut detail: Vec<Vec<f64>> = Vec::with_capacity(nl);
    let mut valid = 0..span as isize;
    for lv in &sp.levels {
        let src = approx.last().unwrap_or(&a0);
        let d = lv.dil as isize;
        let lo = valid.start - d * lv.first;
        let hi = valid.end - d * (f as isize - 1 + lv.first);
        let (mut a, mut dd) = (vec![0.0; span], vec![0.0; span]);
        if hi > lo {
            let (lo, hi) = (lo as usize, hi as usize);
            for tap in 0..f {
                let off = (lo as isize + d * (tap as isize + lv.first)) as usize;
                let input = &src[off..off + (hi - lo)];
                let (cl, ch) = (sp.lo[tap], sp.hi[tap]);
                for ((x, ya), yd) in input.iter().zip(&mut a[lo..hi]).zip(&mut dd[lo..hi]) {
                    *ya += cl * x;
                    *yd += ch * x;
                }
            }
        }
        valid = lo..hi.max(lo);
        approx.push(a);
        detail.push(dd);
    }
    t = clock.lap(Stage::Decompose, t);
    let phased: Vec<Phased> = (0..sp.bands())
        .map(|k| {
            let (j, is_a) = sp.band(k);
            let v = if is_a { &approx[j - 1] } else { &detail[j - 1] };
            let step = 1 << j;
            let (mut sum, mut sq) = (v.clone(), v.iter().map(|x| x * x).collect::<Vec<_>>());
            for q in step..span {
                sum[q] += sum[q - step];
                sq[q] += sq[q - step];
            }
            Phased { v, sum, sq }
        })
        .collect();
    t = clock.lap(Stage::Frequency, t);

    let unit = match batch.dtype {
        DType::F32 => f32::EPSILON as f64 / 2.0,
        DType::F64 => U64,
    };
    // Every level's edge slots side by side: level l's start at `at_level[l]`.
    let mut at_level = Vec::with_capacity(nl + 1);
    at_level.push(0);
    for lv in &sp.levels {
        at_level.push(at_level.last().copied().unwrap_or(0) + lv.edges());
    }
    let slots = at_level[nl];
    let mut order = SlidingOrder::for_stride(t_len, windows.stride);
    let mut fft = stats.map(|_| StatsScratch::new(t_len));
    let mut row = vec![W::ZERO; t_len];
    let mut maps = Vec::with_capacity(BLOCK);
    let (mut edge_a, mut edge_d) = (vec![0.0; BLOCK * slots], vec![0.0; BLOCK * slots]);
    let mut xv = vec![0.0; BLOCK];
    let mut deltas = [0.0; BLOCK];
    let mut edge_sums = [[0.0; BLOCK]; 5];
    let n = batch.channel_count();
    let slot = |i: usize| (i - w.start) * n + c;
    let ws: Vec<usize> = w.clone().collect();
    for block in ws.chunks(BLOCK) {
        // The per-window path's own normalisation, to the bit.
        maps.clear();
        let raws: Vec<&[f64]> = block.iter().map(|&i| batch.raw(i, c)).collect();
        batch.normalize.affines_into(&raws, &mut maps);
        t = clock.lap(Stage::Prepare, t);

        for (b, (&i, aff)) in block.iter().zip(&maps).enumerate() {
            let s = windows.start(i);
            let raw = &batch.channels[c][s..s + t_len];
            let norm = |v: f64| batch.dtype.round(aff.map(v));
            let (lo_v, hi_v, mid_v) = order.window(batch.channels[c], s);
            // How far apart the two paths' coefficients can be: the per-window path's
            // rounding, plus this path's own (f64, on values offset by the window's mean).
            let big = norm(lo_v).abs().max(norm(hi_v).abs());
            let shift = aff.mean - origin;
            let delta = sp.gain * (unit * big + 4.0 * U64 * (big + shift.abs() * aff.scale));
            deltas[b] = delta;
            let tol = &mut tols[slot(i)];
            tol.delta = delta;
            tol.bands.clear();
            let summary = &mut sums[slot(i)];
            summary.bands.clear();
            summary.stats = stats.map(|req| {
                let (lags, lags_clean) = match fft.as_mut() {
                    Some(fft) if req.lags_for((i - batch.range.start) * n + c) => {
                        for (r, &v) in row.iter_mut().zip(raw) {
                            *r = W::from_f64(norm(v));
                        }
                        fft.lags_of(&row)
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
        }
        t = clock.lap(Stage::Statistics, t);

        // Every edge of every window of the block, slot-major (`slot * BLOCK + window`): each
        // input is one multiply-add over the block's windows, in vectors.
        let nb = block.len();
        for (l, lv) in sp.levels.iter().enumerate() {
            let (prev, cur) = edge_a.split_at_mut(at_level[l] * BLOCK);
            let cur_a = &mut cur[..lv.edges() * BLOCK];
            let cur_d = &mut edge_d[at_level[l] * BLOCK..][..lv.edges() * BLOCK];
            cur_a.fill(0.0);
            cur_d.fill(0.0);
            for side in &lv.sides {
                let ne = side.slots.len();
                if ne == 0 {
                    continue;
                }
                for (src, col) in side.refs.iter().zip(side.columns.chunks_exact(2 * ne)) {
                    let x = &mut xv[..nb];
                    match *src {
                        Src::Raw(i) => {
                            for (x, &w) in x.iter_mut().zip(block) {
                                *x = batch.channels[c][windows.start(w) + i] - origin;
                            }
                        }
                        Src::Interior(i) => {
                            let (a, step) = (&approx[l - 1], sp.levels[l - 1].dil * 2);
                            for (x, &w) in x.iter_mut().zip(block) {
                                *x = a[windows.start(w) - span0 + step * i];
                            }
                        }
                        Src::Edge(e) => {
                            x.copy_from_slice(&prev[(at_level[l - 1] + e) * BLOCK..][..nb]);
                        }
                    }
                    let (cl, ch) = col.split_at(ne);
                    for (k, (wa, wd)) in side.slots.clone().zip(cl.iter().zip(ch)) {
                        let ya = &mut cur_a[k * BLOCK..][..nb];
                        for (y, x) in ya.iter_mut().zip(x.iter()) {
                            *y += wa * x;
                        }
                        let yd = &mut cur_d[k * BLOCK..][..nb];
                        for (y, x) in yd.iter_mut().zip(x.iter()) {
                            *y += wd * x;
                        }
                    }
                }
            }
        }
        t = clock.lap(Stage::Decompose, t);

        // Band by band, every window of the block side by side: the edge sums run over
        // the slot-major edges in vectors, then each window's moments are assembled.
        for (k, ph) in phased.iter().enumerate() {
            let (j, is_a) = sp.band(k);
            let lv = &sp.levels[j - 1];
            let step = 1usize << j;
            let all = if is_a { &edge_a } else { &edge_d };
            let base = at_level[j - 1];
            let edge = |e: usize| &all[(base + e) * BLOCK..][..nb];
            for acc in edge_sums.iter_mut() {
                acc[..nb].fill(0.0);
            }
            let [s_edge, q_edge, x_edge, abs_edge, abs_xk] = &mut edge_sums;
            for (e, &o) in sp.edge_ones[k].iter().enumerate() {
                for (b, &v) in edge(e).iter().enumerate() {
                    s_edge[b] += v;
                    q_edge[b] += v * v;
                    x_edge[b] += v * o;
                    abs_edge[b] += v.abs();
                    abs_xk[b] += (v * o).abs();
                }
            }
            let ones = &sp.ones[k];
            let (lo, hi) = (lv.interior.start, lv.interior.end);
            let len = lv.n_out;
            let n = len as f64;
            let k_int = ones[lo];
            for (b, (&i, aff)) in block.iter().zip(&maps).enumerate() {
                let q = windows.start(i) - span0;
                let shift = aff.mean - origin;
                let scale = aff.scale;
                let delta = deltas[b];
                let at = |o: usize| q + step * o;
                let before = |p: &[f64]| {
                    if lo > 0 {
                        p[at(lo - 1)]
                    } else if q >= step {
                        p[q - step]
                    } else {
                        0.0
                    }
                };
                let (s_hi, s_lo) = (ph.sum[at(hi - 1)], before(&ph.sum));
                let (q_hi, q_lo) = (ph.sq[at(hi - 1)], before(&ph.sq));
                let (s_int, q_int) = (s_hi - s_lo, q_hi - q_lo);
                let (sum, sq) = (s_int + s_edge[b], q_int + q_edge[b]);
                let cross = k_int * s_int + x_edge[b];
                let s_n = scale * (sum - shift * sp.ones_sum[k]);
                let q_n =
                    scale * scale * (sq - 2.0 * shift * cross + shift * shift * sp.ones_sq[k]);
                let mean = s_n / n;
                let coef = |o: usize| match lv.slot(o) {
                    Some(e) => edge(e)[b],
                    None => ph.v[at(o)],
                };
                let value = |o: usize| scale * (coef(o) - shift * ones[o]);
                sums[slot(i)].bands.push(BandSummary {
                    energy: q_n.max(0.0),
                    mean,
                    m2: (q_n - s_n * mean).max(0.0),
                    first: value(0),
                    last: value(len - 1),
                    len,
                });
                // This path's rounding: f64 sums whose terms are as large as the prefix sums
                // (`q / step + hi` of them: `step` is a power of two).
                let prefix = q_hi.abs() + q_lo.abs();
                let terms = (((q >> j) + hi) as f64 * prefix).sqrt();
                let slide_e = 16.0
                    * U64
                    * scale
                    * scale
                    * (prefix
                        + q_edge[b]
                        + 2.0 * shift.abs() * (k_int.abs() * terms + abs_xk[b])
                        + shift * shift * sp.ones_sq[k]);
                let slide_s =
                    16.0 * U64 * scale * (terms + abs_edge[b] + shift.abs() * sp.ones_abs[k]);
                tols[slot(i)].bands.push(BandTol {
                    energy: 2.0 * delta * (n * q_n.max(0.0)).sqrt() + n * delta * delta + slide_e,
                    sum: n * delta + slide_s,
                });
            }
        }
        t = clock.lap(Stage::Frequency, t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Normalize, Windows};
    use crate::wavelet::{self, Mode};

    /// The sliding path's band summaries equal the per-window transform's, for every mode
    /// and a few wavelets and levels, within the tolerance it reports.
    #[test]
    fn slides_to_the_per_window_summaries() {
        let x: Vec<f64> = (0..700)
            .map(|i| {
                let t = i as f64;
                50.0 + 0.02 * t + (t / 7.0).sin() * 3.0 + ((i * 7919) % 101) as f64 / 50.0
            })
            .collect();
        for name in ["db4", "haar", "sym5", "coif2", "bior3.5"] {
            for mode in Mode::ALL {
                for level in [1, 3] {
                    let w = wavelet::lookup(name).unwrap();
                    let plan = Plan::new(w, mode, level, 96).unwrap();
                    let Some(sp) = SlidePlan::new(&plan) else {
                        continue;
                    };
                    let windows = Windows {
                        first_row: 0,
                        first: 0,
                        seq_len: 96,
                        stride: 1,
                        count: x.len() - 96 + 1,
                    };
                    for (normalize, dtype) in [
                        (Normalize::Revin, DType::F64),
                        (Normalize::None, DType::F64),
                        (Normalize::Revin, DType::F32),
                    ] {
                        // The pipeline does not slide extrapolating modes in f32 (see
                        // `pipeline::sliding_path`): their bound is too loose to use.
                        if mode.extrapolates() && dtype == DType::F32 {
                            continue;
                        }
                        let batch = WindowBatch {
                            channels: vec![&x],
                            windows,
                            range: 0..windows.count,
                            normalize,
                            dtype,
                        };
                        let clock = StageClock::default();
                        let req = Some(StatsRequest::ALL);
                        let ((sums, tols), exact) = match plan.work_dtype(dtype) {
                            DType::F32 => (
                                summarize_windows::<f32>(&batch, &sp, req, &clock),
                                super::super::native::summarize_windows::<f32>(
                                    &batch, &plan, req, &clock,
                                ),
                            ),
                            DType::F64 => (
                                summarize_windows::<f64>(&batch, &sp, req, &clock),
                                super::super::native::summarize_windows::<f64>(
                                    &batch, &plan, req, &clock,
                                ),
                            ),
                        };
                        assert_eq!(sums.len(), exact.len());
                        for (i, ((s, t), e)) in sums.iter().zip(&tols).zip(&exact).enumerate() {
                            let ctx = format!(
                                "{name} {mode} level {level} {normalize} {dtype:?} window {i}"
                            );
                            assert_eq!(s.stats, e.stats, "{ctx}");
                            assert_eq!(s.bands.len(), e.bands.len(), "{ctx}");
                            let total: f64 = e.bands.iter().map(|b| b.energy).sum();
                            for (k, ((a, b), bt)) in
                                s.bands.iter().zip(&e.bands).zip(&t.bands).enumerate()
                            {
                                assert_eq!(a.len, b.len, "{ctx} band {k}");
                                assert!(
                                    (a.energy - b.energy).abs() <= bt.energy,
                                    "{ctx} band {k} energy {} vs {} (tol {})",
                                    a.energy,
                                    b.energy,
                                    bt.energy
                                );
                                let (sa, sb) = (a.mean * a.len as f64, b.mean * b.len as f64);
                                assert!(
                                    (sa - sb).abs() <= bt.sum,
                                    "{ctx} band {k} sum {sa} vs {sb} (tol {})",
                                    bt.sum
                                );
                                assert!(
                                    (a.first - b.first).abs() <= t.delta,
                                    "{ctx} band {k} first"
                                );
                                assert!((a.last - b.last).abs() <= t.delta, "{ctx} band {k} last");
                                // The bound is not vacuous: far below the series' energy (the
                                // extrapolating modes' edge taps make it looser there).
                                let slack = match (mode.extrapolates(), dtype) {
                                    (false, DType::F64) => 1e-9,
                                    (true, _) => 1e-5,
                                    // f32: bounds the per-window path's rounding.
                                    (false, DType::F32) => 1e-3,
                                };
                                assert!(
                                    bt.energy <= slack * total,
                                    "{ctx} band {k} loose tol {}",
                                    bt.energy
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// A window's summary has the same bits however the run is split (chunks, shards) and
    /// on any number of threads: tasks and their sums start at fixed places in the run.
    #[test]
    fn summaries_do_not_depend_on_the_split_or_the_threads() {
        let wave = |i: usize, f: f64| {
            let t = i as f64;
            1e3 + 5.0 * (t / f).sin() + ((i * 7919) % 101) as f64 / 7.0
        };
        let a: Vec<f64> = (0..1400).map(|i| wave(i, 11.0)).collect();
        let b: Vec<f64> = (0..1400).map(|i| -wave(i, 3.0)).collect();
        let plan = Plan::new(wavelet::lookup("db4").unwrap(), Mode::Reflect, 3, 96).unwrap();
        let sp = SlidePlan::new(&plan).unwrap();
        let whole = Windows {
            first_row: 0,
            first: 0,
            seq_len: 96,
            stride: 2,
            count: (a.len() - 96) / 2 + 1,
        };
        assert!(whole.count > 2 * TASK_WINDOWS);
        let run = |windows: Windows, threads: usize| {
            let batch = WindowBatch {
                channels: vec![&a, &b],
                windows,
                range: 0..windows.count,
                normalize: Normalize::Revin,
                dtype: DType::F32,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let req = Some(StatsRequest::ALL);
            let (sums, tols) =
                pool.install(|| summarize_windows::<f32>(&batch, &sp, req, &StageClock::default()));
            // Debug prints each f64 in its shortest round-trip form: equal text, equal bits.
            (format!("{sums:?}"), format!("{tols:?}"), sums.len())
        };
        let want = run(whole, 1);
        assert_eq!(want.2, 2 * whole.count);
        assert_eq!(run(whole, 3), want, "3 threads");
        let per_window = |text: &str| -> Vec<String> {
            text.split("SeriesSummary {")
                .skip(1)
                .map(String::from)
                .collect()
        };
        let all = per_window(&want.0);
        assert_eq!(all.len(), want.2);
        for cut in [1, 255, 256, 300, 517] {
            // A part of the run (a shard, a chunk) with the channels' rows from row 0, as
            // `Shape::rows` hands them: its windows keep their numbers in the run.
            let part = whole.part(cut..whole.count);
            let (got, _, n) = run(part, 2);
            assert_eq!(n, 2 * part.count);
            let got = per_window(&got);
            assert_eq!(got.len(), n);
            // The last record has no trailing comma: compare all but the joining text.
            let trim = |s: &String| s.trim_end_matches([']', ',', ' ']).to_string();
            for (k, (g, w)) in got.iter().zip(&all[2 * cut..]).enumerate() {
                assert_eq!(trim(g), trim(w), "cut {cut}, series {k}");
            }
        }
    }
}
