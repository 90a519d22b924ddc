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

/// One task's working memory: the series of the block it holds (not a whole block's when
/// it holds fewer: the sliding path recomputes its unsettled windows one at a time, and
/// must not zero a block's ~1 MB for each), their coefficients and band sums, and what the
/// statistics need.
struct TaskScratch<W> {
    lanes: LaneScratch<W>,
    xs: Vec<Lane<W>>,
    coeffs: Vec<Lane<W>>,
    band_sums: Vec<BandSums>,
    maps: Vec<Affine>,
    /// Each channel's sliding order (min, max, median), window after window.
    order: Vec<SlidingOrder>,
    fft: Option<StatsScratch>,
    /// One series out of its lane, for its lags.
    row: Vec<W>,
}

impl<W: Real> TaskScratch<W> {
    fn new(
        batch: &WindowBatch<'_>,
        series: usize,
        plan: &Plan,
        stats: Option<StatsRequest>,
    ) -> Self {
        let (n, len, stride) = (batch.channel_count(), plan.len, plan.coeffs_per_series());
        let block = BLOCK_WINDOWS * n;
        let groups = block.min(series).div_ceil(LANES);
        TaskScratch {
            lanes: LaneScratch::new(plan),
            xs: vec![[W::ZERO; LANES]; groups * len],
            coeffs: vec![[W::ZERO; LANES]; groups * stride],
            band_sums: vec![BandSums::default(); groups * plan.bands()],
            maps: Vec::with_capacity(block),
            order: (0..n)
                .map(|_| SlidingOrder::for_stride(len, batch.windows.stride))
                .collect(),
            fft: stats.map(|req| StatsScratch::new(len).ranking(req.lags)),
            row: vec![W::ZERO; len],
        }
    }
}

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
    let mut s = TaskScratch::<W>::new(batch, sums.len(), plan, stats);
    for (b, sums) in sums.chunks_mut(BLOCK_WINDOWS * n).enumerate() {
        // Series k of this block: window `first + k / n`, channel `k % n`, lane k % LANES
        // of group k / LANES.
        let local = w0 + b * BLOCK_WINDOWS;
        let first = batch.range.start + local;
        let used = sums.len().div_ceil(LANES);
        let mut t = Instant::now();
        s.maps.clear();
        let k0 = local * n;
        batch.affines(k0..k0 + sums.len(), &mut s.maps);
        for k in 0..sums.len() {
            let group = &mut s.xs[k / LANES * len..][..len];
            let lane = k % LANES;
            batch.fill_mapped(first + k / n, k % n, s.maps[k], |t, v| group[t][lane] = v);
        }
        t = clock.lap(Stage::Prepare, t);
        for ((x, c), bs) in
            s.xs.chunks_exact(len)
                .zip(s.coeffs.chunks_exact_mut(stride))
                .zip(s.band_sums.chunks_exact_mut(plan.bands()))
                .take(used)
        {
            lanes::decompose(x, plan, c, bs, &mut s.lanes);
        }
        t = clock.lap(Stage::Decompose, t);
        for ((group, c), bs) in sums
            .chunks_mut(LANES)
            .zip(s.coeffs.chunks_exact(stride))
            .zip(s.band_sums.chunks_exact(plan.bands()))
        {
            lanes::band_summaries(c, bs, plan, group);
        }
        t = clock.lap(Stage::Frequency, t);
        if let Some(req) = stats {
            block_stats(batch, local, req, &mut s, sums);
            clock.lap(Stage::Statistics, t);
        }
    }
}

/// The statistics of the block whose first window is `local` (in the batch's range) from
/// its samples in `s.xs`: min, max and median from each channel's sliding order, the trend,
/// the lags where `req` asks for them.
#[inline(always)]
fn block_stats<W: Real>(
    batch: &WindowBatch<'_>,
    local: usize,
    req: StatsRequest,
    s: &mut TaskScratch<W>,
    sums: &mut [SeriesSummary],
) {
    let (n, len) = (batch.channel_count(), s.row.len());
    let first = batch.range.start + local;
    let Some(fft) = s.fft.as_mut() else {
        return;
    };
    for (k, sum) in sums.iter_mut().enumerate() {
        let (i, c) = (first + k / n, k % n);
        let (lo, hi, mid) = s.order[c].window(batch.channels[c], batch.windows.start(i));
        let norm = |v: f64| batch.dtype.round(s.maps[k].map(v));
        let x = &s.xs[k / LANES * len..][..len];
        let lane = k % LANES;
        let (lags, lags_clean) = if req.lags_for(local * n + k) {
            for (r, v) in s.row.iter_mut().zip(x) {
                *r = v[lane];
            }
            fft.lags_of(&s.row)
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
