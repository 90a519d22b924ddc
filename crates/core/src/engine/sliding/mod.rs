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

mod plan;
mod products;
mod span;
mod task;

pub use plan::SlidePlan;

use super::batch::WindowBatch;
use super::summary::{SeriesSummary, SeriesTol};
use super::StatsRequest;
use crate::numeric::real::Real;
use crate::numeric::simd::Isa;
use crate::timing::StageClock;
use rayon::prelude::*;
use std::ops::Range;

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

/// [`summarize_levels`] of one plan: what the tests compare with the per-window path and
/// with several levels at once.
#[cfg(test)]
fn summarize_windows<W: Real>(
    batch: &WindowBatch<'_>,
    sp: &SlidePlan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> (Vec<SeriesSummary>, Vec<SeriesTol>) {
    summarize_levels::<W>(batch, std::slice::from_ref(sp), stats, clock)
        .pop()
        .unwrap_or_default()
}

/// Summaries of every series of `batch` (window-major, as the engines return them) by the
/// sliding path, each with its tolerance against the per-window path, under each of
/// `sps`: plans of one wavelet, mode and window length at increasing levels
/// (`SlidePlan::shares_levels_with`), one result per plan, each with the bits it gets
/// alone. `W` is the plan's working precision, used for the lags exactly as the
/// per-window path uses it. Level `j`'s stationary sequences, edges and prefix sums, and
/// detail band `j`'s moments, do not depend on how deep the plan goes, so they are
/// computed once, for the deepest; only each plan's approximation band and its bounds
/// (the per-window path's gain grows with depth) are its own (a sweep over levels 1..8
/// transforms 8 levels, not 36, and takes 16 bands' moments, not 44).
pub fn summarize_levels<W: Real>(
    batch: &WindowBatch<'_>,
    sps: &[SlidePlan],
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> Vec<(Vec<SeriesSummary>, Vec<SeriesTol>)> {
    debug_assert!(sps.iter().all(|sp| batch.seq_len() == sp.len));
    debug_assert!(sps.windows(2).all(|p| p[1].shares_levels_with(&p[0])));
    let n = batch.channel_count();
    // Made in place: `vec![x; n]` copies a whole default summary per item.
    let mut outs: Vec<(Vec<SeriesSummary>, Vec<SeriesTol>)> = sps
        .iter()
        .map(|_| {
            (
                (0..batch.series()).map(|_| Default::default()).collect(),
                (0..batch.series()).map(|_| Default::default()).collect(),
            )
        })
        .collect();
    if batch.series() == 0 || sps.is_empty() {
        return outs;
    }
    // A task takes consecutive windows of every channel, so its series are one contiguous
    // run of each output and are written in place (a summary is a few hundred bytes,
    // too many to move into place afterwards).
    let mut tasks: Vec<(Range<usize>, Vec<Out<'_>>)> = Vec::new();
    let mut rests: Vec<Out<'_>> = outs
        .iter_mut()
        .map(|(s, t)| Out {
            sums: &mut s[..],
            tols: &mut t[..],
        })
        .collect();
    let mut w0 = batch.range.start;
    while w0 < batch.range.end {
        let run_number = batch.windows.first + w0;
        let w1 = (w0 + TASK_WINDOWS - run_number % TASK_WINDOWS).min(batch.range.end);
        let mut here = Vec::with_capacity(rests.len());
        for rest in &mut rests {
            let (s, s_rest) = std::mem::take(&mut rest.sums).split_at_mut((w1 - w0) * n);
            let (t, t_rest) = std::mem::take(&mut rest.tols).split_at_mut((w1 - w0) * n);
            here.push(Out { sums: s, tols: t });
            (rest.sums, rest.tols) = (s_rest, t_rest);
        }
        tasks.push((w0..w1, here));
        w0 = w1;
    }
    let job = Job {
        batch,
        sps,
        stats,
        clock,
    };
    tasks.into_par_iter().for_each(|(w, mut outs)| {
        for c in 0..n {
            run_task::<W>(&job, c, w.clone(), &mut outs);
        }
    });
    outs
}

/// One plan's summaries and bounds of a task's windows (all channels, window-major).
#[derive(Default)]
struct Out<'a> {
    sums: &'a mut [SeriesSummary],
    tols: &'a mut [SeriesTol],
}

/// What every task of one `summarize_levels` call shares.
#[derive(Clone, Copy)]
struct Job<'a, 'b> {
    batch: &'a WindowBatch<'b>,
    /// The plans, by increasing level; the deepest (last) transforms.
    sps: &'a [SlidePlan],
    stats: Option<StatsRequest>,
    clock: &'a StageClock,
}

impl Job<'_, '_> {
    fn deepest(&self) -> &SlidePlan {
        &self.sps[self.sps.len() - 1]
    }
}

/// `task`, compiled for AVX2 and FMA where the CPU has them, so its sums and edge loops
/// run in 256-bit vectors. The results are the same bits: Rust never fuses or reorders
/// float operations by itself, and `mul_add` is fused on every target.
fn run_task<W: Real>(job: &Job<'_, '_>, c: usize, w: Range<usize>, outs: &mut [Out<'_>]) {
    #[cfg(target_arch = "x86_64")]
    if Isa::active() >= Isa::Avx2 {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn task_avx2<W: Real>(
            job: &Job<'_, '_>,
            c: usize,
            w: Range<usize>,
            outs: &mut [Out<'_>],
        ) {
            task::task::<W>(job, c, w, outs)
        }
        // SAFETY: `Isa::active` checked that this CPU has AVX2 and FMA.
        return unsafe { task_avx2::<W>(job, c, w, outs) };
    }
    task::task::<W>(job, c, w, outs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Normalize, Windows};
    use crate::engine::plan::Plan;
    use crate::numeric::real::DType;
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

    /// Several levels at once give each level the bits it gets alone: summaries, bounds
    /// and statistics, for every mode, in both precisions.
    #[test]
    fn levels_together_are_each_level_alone() {
        let x: Vec<f64> = (0..900)
            .map(|i| {
                let t = i as f64;
                20.0 + 0.01 * t + (t / 5.0).sin() * 2.0 + ((i * 7919) % 97) as f64 / 40.0
            })
            .collect();
        let y: Vec<f64> = x.iter().rev().map(|v| 3.0 - 0.5 * v).collect();
        let len = 128;
        let windows = Windows {
            first_row: 0,
            first: 7,
            seq_len: len,
            stride: 1,
            count: x.len() - len + 1,
        };
        let mut compared = 0;
        for name in ["haar", "db4", "sym5", "bior3.5"] {
            for mode in Mode::ALL {
                let w = wavelet::lookup(name).unwrap();
                let sps: Vec<SlidePlan> = (1..=w.max_level(len))
                    .map_while(|level| SlidePlan::new(&Plan::new(w, mode, level, len).unwrap()))
                    .collect();
                if sps.len() < 2 {
                    continue;
                }
                for dtype in [DType::F64, DType::F32] {
                    let batch = WindowBatch {
                        channels: vec![&x, &y],
                        windows,
                        range: 3..windows.count - 2,
                        normalize: Normalize::Revin,
                        dtype,
                    };
                    let clock = StageClock::default();
                    let req = Some(StatsRequest::ALL);
                    let (together, alone): (Vec<_>, Vec<_>) = match dtype {
                        DType::F32 => (
                            summarize_levels::<f32>(&batch, &sps, req, &clock),
                            sps.iter()
                                .map(|sp| summarize_windows::<f32>(&batch, sp, req, &clock))
                                .collect(),
                        ),
                        DType::F64 => (
                            summarize_levels::<f64>(&batch, &sps, req, &clock),
                            sps.iter()
                                .map(|sp| summarize_windows::<f64>(&batch, sp, req, &clock))
                                .collect(),
                        ),
                    };
                    assert_eq!(together.len(), sps.len());
                    // Without statistics (a sweep lends them) the bands and bounds are the
                    // same: min and max then come from the monotone queues.
                    let bare = match dtype {
                        DType::F32 => summarize_levels::<f32>(&batch, &sps, None, &clock),
                        DType::F64 => summarize_levels::<f64>(&batch, &sps, None, &clock),
                    };
                    assert_eq!(bare.len(), together.len());
                    for ((b, t), l) in bare.iter().zip(&together).zip(1..) {
                        assert_eq!(b.0.len(), t.0.len());
                        assert!(b.0.iter().all(|s| s.stats.is_none()));
                        let bands = |v: &[SeriesSummary]| {
                            format!("{:?}", v.iter().map(|s| &s.bands).collect::<Vec<_>>())
                        };
                        let ctx = format!("{name} {mode} {dtype:?} level {l}, no statistics");
                        assert_eq!(bands(&b.0), bands(&t.0), "{ctx}");
                        assert_eq!(format!("{:?}", b.1), format!("{:?}", t.1), "{ctx}");
                    }
                    for (l, (t, a)) in together.iter().zip(&alone).enumerate() {
                        let ctx = format!("{name} {mode} {dtype:?} level {}", l + 1);
                        assert_eq!(t.0.len(), 2 * (windows.count - 5), "{ctx}");
                        assert_eq!(t.0[0].bands.len(), l + 2, "{ctx}");
                        assert!(t.0[0].stats.is_some(), "{ctx}");
                        // Debug prints each f64 in its shortest round-trip form: equal
                        // text, equal bits.
                        assert_eq!(format!("{t:?}"), format!("{a:?}"), "{ctx}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 40, "{compared} levels compared");
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
