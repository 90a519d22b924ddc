//! The seed's four proposed optimisations, measured for real on the same data and engine
//! as the baseline (`wavebench bench --variants …`, and the app's timing view). Its notes guessed their gains (LRU
//! cache 30–50 %, adaptive level 20–40 %, batching 10–20 %, mixed precision); each variant
//! here is one workload, timed stage by stage like the baseline, and its prompts compared
//! with the baseline's.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use wavebench_core::data::Table;
use wavebench_core::engine::EngineError;
use wavebench_core::engine::{Plan, Selected};
use wavebench_core::features::Aggregate;
use wavebench_core::features::Unit;
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::Prepared;
use wavebench_core::timing::{Stage, Timer};

/// One workload of `bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Variant {
    /// The pipeline as it runs: every window once, one engine call per chunk.
    Baseline,
    /// An exact cache (keyed by the window's bytes) over two epochs in shuffled order (the seed guessed 30-50 % faster)
    Cache,
    /// The seed's level rule: seq_len < 200 -> 2, < 500 -> 3, else 4 (guessed 20-40 % faster)
    AdaptiveLevel,
    /// Inputs stored as bfloat16, computed in f32 (the seed's mixed precision)
    Bf16,
    /// One engine call per sample instead of one per batch of windows (batching was guessed 10-20 % faster)
    Batching,
}

impl Variant {
    /// What the variant does, as `bench --help` says it.
    pub fn about(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value()
            .and_then(|v| v.get_help().map(|h| h.to_string()))
            .unwrap_or_default()
    }

    /// Passes over the windows the workload makes: the cache's two epochs are compared
    /// with two of the baseline's, like with like.
    pub fn epochs(self) -> usize {
        match self {
            Variant::Cache => 2,
            _ => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Variant::Baseline => "baseline",
            Variant::Cache => "cache",
            Variant::AdaptiveLevel => "adaptive-level",
            Variant::Bf16 => "bf16",
            Variant::Batching => "batching",
        }
    }
}

/// The seed's adaptive level.
pub fn adaptive_level(seq_len: usize) -> usize {
    if seq_len < 200 {
        2
    } else if seq_len < 500 {
        3
    } else {
        4
    }
}

/// The plan of the seed's adaptive level for windows of `seq` samples, checked like any
/// level (docs/transform.md#levels).
pub fn adaptive_plan(
    wavelet: &'static wavebench_core::wavelet::Wavelet,
    mode: wavebench_core::wavelet::Mode,
    seq: usize,
) -> Result<Plan> {
    let plan = Plan::new(wavelet, mode, adaptive_level(seq), seq).map_err(EngineError::from)?;
    plan.check_level().map_err(EngineError::from)?;
    Ok(plan)
}

/// `x` stored as bfloat16 (round to nearest, ties to even) and read back.
pub fn bf16(x: f64) -> f64 {
    let b = (x as f32).to_bits();
    if !(x as f32).is_finite() {
        return x;
    }
    let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1)) & 0xffff_0000;
    f32::from_bits(rounded) as f64
}

/// What a variant's run produced, for the report.
pub struct VariantRun {
    /// One prompt per unit of the baseline's workload, in its order (the cache's two
    /// epochs are folded back to one prompt per window's unit).
    pub prompts: Vec<String>,
    pub cache_hit_rate: Option<f64>,
}

/// Everything a workload needs.
pub struct Workload<'a> {
    /// The run over `table`'s windows (sliding where the baseline may slide).
    pub prepared: Prepared,
    pub table: &'a Table,
    pub prompter: &'a Prompter,
    pub description: &'a str,
    pub pred_len: usize,
}

fn render(w: &Workload<'_>, units: &[Unit], timer: &mut Timer) -> Result<Vec<String>> {
    timer
        .time(Stage::Render, || {
            w.prompter
                .render_all(units, w.description, w.prepared.windows.seq_len, w.pred_len)
        })
        .map_err(|source| Error::Template {
            place: "template".into(),
            source,
        })
}

fn features(
    engine: &mut Selected,
    prepared: &Prepared,
    table: &Table,
    timer: &mut Timer,
) -> Result<Vec<Unit>> {
    Ok(prepared.features(table, engine, timer, |_| true)?)
}

/// Run `variant` once. `plan` is the adaptive level's plan for that variant.
pub fn run(
    variant: Variant,
    engine: &mut Selected,
    w: &Workload<'_>,
    adaptive: Option<&Plan>,
    timer: &mut Timer,
) -> Result<VariantRun> {
    let (prepared, table) = (&w.prepared, w.table);
    let done = |prompts| VariantRun {
        prompts,
        cache_hit_rate: None,
    };
    match variant {
        Variant::Baseline => {
            let units = features(engine, prepared, table, timer)?;
            render(w, &units, timer).map(done)
        }
        Variant::AdaptiveLevel => {
            let plan = adaptive
                .ok_or_else(|| Error::internal("internal: no plan for the adaptive level"))?;
            let adapted = prepared.with_plan(plan.clone());
            let units = features(engine, &adapted, table, timer)?;
            render(w, &units, timer).map(done)
        }
        Variant::Bf16 => {
            let stored = timer.time(Stage::Prepare, || Table {
                channels: table
                    .channels
                    .iter()
                    .map(|c| wavebench_core::data::Channel {
                        name: c.name.clone(),
                        values: wavebench_core::engine::Values::F64(
                            c.values.iter_f64().map(bf16).collect(),
                        ),
                    })
                    .collect(),
                ..table.clone()
            });
            let units = features(engine, prepared, &stored, timer)?;
            render(w, &units, timer).map(done)
        }
        Variant::Batching => {
            if prepared.aggregate() == Aggregate::Batch {
                return Err(Error::input(
                    "batching compares one call per sample with one per batch of windows: it needs aggregate series or sample, not batch",
                ));
            }
            let mut units = Vec::new();
            for i in 0..prepared.windows.count {
                units.extend(features(engine, &prepared.part(i..i + 1), table, timer)?);
            }
            render(w, &units, timer).map(done)
        }
        Variant::Cache => cache(engine, w, timer),
    }
}

/// One variant run once, warm, beside the baseline (the app's timing view).
pub struct Measured {
    pub variant: Variant,
    /// Its stages in each timed run, or why it cannot run on this workload.
    pub result: Result<Vec<Timer>, String>,
    /// Prompts that differ from the baseline's, of how many.
    pub prompts_changed: usize,
    pub prompts: usize,
    pub cache_hit_rate: Option<f64>,
}

impl Measured {
    /// The run whose total time is the median's (the upper one of an even count).
    pub fn median_run(&self) -> Option<&Timer> {
        let runs = self.result.as_ref().ok()?;
        let mut by_total: Vec<&Timer> = runs.iter().collect();
        by_total.sort_by_key(|t| t.total());
        by_total.get(by_total.len() / 2).copied()
    }
}

/// The baseline and each of `chosen`, each timed `repeats` times after an untimed baseline
/// run that warms plans and pools and gives the reference prompts. `progress(done,
/// total)` is told after each run and answers whether to go on.
pub fn measure(
    engine: &mut Selected,
    w: &Workload<'_>,
    wavelet: &'static wavebench_core::wavelet::Wavelet,
    mode: wavebench_core::wavelet::Mode,
    chosen: &[Variant],
    repeats: usize,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<Measured>> {
    let mut order = vec![Variant::Baseline];
    order.extend(chosen.iter().filter(|&&v| v != Variant::Baseline));
    let repeats = repeats.max(1);
    let total = order.len() * repeats + 1;
    let reference = run(Variant::Baseline, engine, w, None, &mut Timer::new(false))?.prompts;
    if !progress(1, total) {
        return Err(Error::Cancelled);
    }
    let mut out = Vec::with_capacity(order.len());
    let mut done = 1;
    for &variant in &order {
        let mut timers = Vec::with_capacity(repeats);
        let mut outcome = None;
        for _ in 0..repeats {
            let mut timer = Timer::new(false);
            let o = match variant {
                Variant::AdaptiveLevel => adaptive_plan(wavelet, mode, w.prepared.windows.seq_len)
                    .and_then(|plan| run(variant, engine, w, Some(&plan), &mut timer)),
                _ => run(variant, engine, w, None, &mut timer),
            };
            done += 1;
            if !progress(done, total) {
                return Err(Error::Cancelled);
            }
            let failed = o.is_err();
            timers.push(timer);
            outcome = Some(o);
            if failed {
                break; // it cannot run on this workload: once is enough to say why
            }
        }
        let Some(outcome) = outcome else { continue };
        out.push(match outcome {
            Ok(o) => Measured {
                variant,
                result: Ok(timers),
                prompts_changed: changed(&o.prompts, &reference),
                prompts: reference.len(),
                cache_hit_rate: o.cache_hit_rate,
            },
            Err(e) => Measured {
                variant,
                result: Err(e.to_string()),
                prompts_changed: 0,
                prompts: reference.len(),
                cache_hit_rate: None,
            },
        });
    }
    Ok(out)
}

/// Prompts of `got` that differ from `base`'s, position by position, plus any count
/// difference.
pub fn changed(got: &[String], base: &[String]) -> usize {
    got.iter().zip(base).filter(|(a, b)| a != b).count() + got.len().abs_diff(base.len())
}

/// A window's samples over every channel, as its cache key's bytes.
fn window<'a>(
    prepared: &Prepared,
    table: &'a Table,
    i: usize,
) -> impl Iterator<Item = wavebench_core::engine::SeriesRef<'a>> + 'a {
    let (start, len) = (prepared.windows.start(i), prepared.windows.seq_len);
    table
        .channels
        .iter()
        .map(move |c| c.values.rows(start..start + len))
}

/// A permutation of `0..n` (Fisher–Yates on a xorshift), the same for the same seed.
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    v
}

/// Two epochs over the windows in shuffled order, as a training loop visits them; each
/// visit looks the window up by its bytes (hash, then a byte comparison, so a hit is
/// always the same window's data) and computes it on a miss.
fn cache(engine: &mut Selected, w: &Workload<'_>, timer: &mut Timer) -> Result<VariantRun> {
    let (prepared, table) = (&w.prepared, w.table);
    if prepared.aggregate() == Aggregate::Batch {
        return Err(Error::input(
            "the cache keeps each window's prompts: it needs aggregate series or sample, not batch",
        ));
    }
    let n = prepared.windows.count;
    let mut store: HashMap<u64, Vec<(usize, Vec<String>)>> = HashMap::new();
    let mut per_window: Vec<Option<Vec<String>>> = vec![None; n];
    let (mut hits, mut visits) = (0usize, 0usize);
    for epoch in 1..=2u64 {
        for i in shuffled(n, epoch) {
            visits += 1;
            let key = timer.time(Stage::Prepare, || {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                for s in window(prepared, table, i) {
                    for v in s.iter_f64() {
                        v.to_bits().hash(&mut h);
                    }
                }
                h.finish()
            });
            let found = timer.time(Stage::Prepare, || {
                store.get(&key).and_then(|entries| {
                    entries
                        .iter()
                        .find(|(j, _)| window(prepared, table, *j).eq(window(prepared, table, i)))
                        .map(|(_, p)| p.clone())
                })
            });
            let prompts = match found {
                Some(p) => {
                    hits += 1;
                    p
                }
                None => {
                    let units = features(engine, &prepared.part(i..i + 1), table, timer)?;
                    let p = render(w, &units, timer)?;
                    store.entry(key).or_default().push((i, p.clone()));
                    p
                }
            };
            per_window[i].get_or_insert(prompts);
        }
    }
    Ok(VariantRun {
        prompts: per_window.into_iter().flatten().flatten().collect(),
        cache_hit_rate: Some(hits as f64 / visits.max(1) as f64),
    })
}

/// How many windows the seed's cache key (md5 of each channel's float32 mean, std, min and
/// max) would have answered with another window's prompt: windows whose key an earlier,
/// different window already had.
pub fn seed_key_collisions(prepared: &Prepared, table: &Table) -> usize {
    let mut seen: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut wrong = 0;
    for i in 0..prepared.windows.count {
        let key: Vec<u32> = window(prepared, table, i)
            .flat_map(|s| {
                let x: Vec<f32> = s.iter_f64().map(|v| v as f32).collect();
                let n = x.len() as f32;
                let mean = x.iter().sum::<f32>() / n;
                let var =
                    x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / (n - 1.0).max(1.0);
                let (lo, hi) = x
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                        (a.min(v), b.max(v))
                    });
                [mean, var.sqrt(), lo, hi].map(f32::to_bits)
            })
            .collect();
        match seen.get(&key) {
            Some(&j) if !window(prepared, table, j).eq(window(prepared, table, i)) => wrong += 1,
            Some(_) => {}
            None => {
                seen.insert(key, i);
            }
        }
    }
    wrong
}

/// The timing report of a measurement over the whole data set (the app's File ▸ Export
/// timing): one run per variant that ran, each with its stages and, beside the baseline,
/// how many prompts it changed; `series`: the data set's windows × channels.
pub fn report<'a>(
    config: &'a wavebench_core::config::Config,
    engine: &Selected,
    series: usize,
    length: usize,
    rows: &[Measured],
) -> crate::timing_report::Report<&'a wavebench_core::config::Config> {
    use crate::timing_report::{Machine, Report};
    use wavebench_core::timing::RunReport;
    let kind = engine.engine.kind();
    let device = engine.engine.device_name();
    let compared = rows.iter().any(|m| m.variant != Variant::Baseline);
    let runs = rows
        .iter()
        .filter_map(|m| {
            let timers = m.result.as_ref().ok()?;
            let mut r = RunReport::from_runs(
                kind.name(),
                &device,
                series * m.variant.epochs(),
                length,
                timers,
            );
            if compared {
                r.variant = Some(m.variant.name().into());
                r.variant_means = Some(m.variant.about());
                r.prompts_changed = Some(m.prompts_changed);
                r.prompts = Some(m.prompts);
                r.cache_hit_rate = m.cache_hit_rate;
            }
            Some(r)
        })
        .collect();
    let gpu = (kind == wavebench_core::engine::EngineKind::TorchCuda).then_some(device);
    Report {
        config,
        machine: Machine::describe(gpu),
        runs,
        meanwhile: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_keeps_eight_bits_of_mantissa_rounding_to_even() {
        assert_eq!(bf16(1.0), 1.0);
        assert_eq!(bf16(1.0 + 1.0 / 256.0), 1.0); // a tie: to even
        assert_eq!(bf16(1.0 + 3.0 / 256.0), 1.0 + 4.0 / 256.0);
        assert_eq!(bf16(-2.5e-3), -bf16(2.5e-3));
        assert!((bf16(std::f64::consts::PI) - std::f64::consts::PI).abs() < 0.01);
    }

    #[test]
    fn shuffles_are_permutations_and_differ_per_epoch() {
        let (a, b) = (shuffled(1000, 1), shuffled(1000, 2));
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, (0..1000).collect::<Vec<_>>());
        assert_ne!(a, b);
    }

    #[test]
    fn the_seeds_level_rule() {
        assert_eq!(
            [96, 199, 200, 336, 499, 500, 720].map(adaptive_level),
            [2, 2, 3, 3, 3, 4, 4]
        );
    }
}
