//! One task's work, for one instruction set (`dispatch` instantiates each per ISA): a task
//! of windows through the lane kernels (`summarize_task`), or a lane group of rows in
//! memory (`slices_task`), with its working memory. The drivers (`windows`) share tasks
//! out over the threads.

use crate::data::Affine;
use crate::engine::batch::WindowBatch;
use crate::engine::lanes::{self, BandSums, Lane, LaneScratch, LANES};
use crate::engine::plan::Plan;
use crate::engine::summary::SeriesSummary;
use crate::engine::StatsRequest;
use crate::numeric::real::Real;
use crate::stats::{SeriesStats, SlidingOrder, StatsScratch};
use crate::timing::{Stage, StageClock};
use std::time::Instant;

/// Windows per block inside a task (all channels): a block's samples and coefficients stay
/// in L2 while it goes through the stages one after another.
const BLOCK_WINDOWS: usize = 16;

/// One task: windows `batch.range.start + w0 ..` (as many as `sums` holds), block by block,
/// eight series per lane group (see `lanes`).
#[inline(always)]
pub(super) fn summarize_task<W: Real>(
    batch: &WindowBatch<'_>,
    w0: usize,
    sums: &mut [SeriesSummary],
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) {
    let (n, len, stride) = (batch.channel_count(), plan.len, plan.coeffs_per_series());
    let block = BLOCK_WINDOWS * n;
    // Working memory for the series this task holds, not a whole block's: the sliding
    // path recomputes its unsettled windows one at a time, and must not zero a block's
    // ~1 MB for each.
    let groups = block.min(sums.len()).div_ceil(LANES);
    let mut s = LaneScratch::<W>::new(plan);
    let mut xs: Vec<Lane<W>> = vec![[W::ZERO; LANES]; groups * len];
    let mut coeffs: Vec<Lane<W>> = vec![[W::ZERO; LANES]; groups * stride];
    let mut band_sums = vec![BandSums::default(); groups * plan.bands()];
    let mut maps: Vec<Affine> = Vec::with_capacity(block);
    let mut order: Vec<SlidingOrder> = (0..n)
        .map(|_| SlidingOrder::for_stride(len, batch.windows.stride))
        .collect();
    let mut fft = stats.map(|req| StatsScratch::new(len).ranking(req.lags));
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

/// One thread's working memory for `slices_task`, with the statistics asked for (and
/// their FFTs) when there are any: made once per thread and shape (kept between calls).
pub struct SlicesScratch<W> {
    lanes: LaneScratch<W>,
    coeffs: Vec<Lane<W>>,
    band_sums: Vec<BandSums>,
    stats: Option<(StatsRequest, StatsScratch)>,
}

impl<W: Real> SlicesScratch<W> {
    pub(super) fn new(plan: &Plan, stats: Option<StatsRequest>) -> Self {
        SlicesScratch {
            lanes: LaneScratch::new(plan),
            coeffs: vec![[W::ZERO; LANES]; plan.coeffs_per_series()],
            band_sums: vec![BandSums::default(); plan.bands()],
            stats: stats.map(|req| (req, StatsScratch::new(plan.len).ranking(req.lags))),
        }
    }
}

/// The summaries of `rows` (rows `first..` of the batch) into `sums`, one lane group at a
/// time: its samples (16 KB at T = 512 in f32) and coefficients stay in L1 from the gather
/// to the band moments.
#[inline(always)]
pub(super) fn slices_task<W: Real, const AVX2: bool>(
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
