//! `wavebench bench INPUT --engines … --repeat R -o REPORT.{json,csv,md}`: the whole
//! pipeline, every stage timed, prompts rendered and discarded, after a warm-up.

use super::run::{self, PromptOpts, Run};
use super::Common;
use crate::backend::LOCAL;
use crate::error::{Error, Result};
use crate::export;
use crate::timing_report::{Machine, Report};
use crate::variants::{self, Variant, VariantRun, Workload};
use std::path::Path;
use wavebench_core::config::Config;
use wavebench_core::engine::{EngineKind, Plan, Selected};
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::Backend;
use wavebench_core::run_spec::Prepared;
use wavebench_core::timing::{RunReport, Stage, Timer};

pub fn run(
    path: &Path,
    engines: &super::Engines,
    variants: &[Variant],
    repeat: usize,
    output: Option<&Path>,
    common: &Common,
    opts: &PromptOpts,
) -> Result<()> {
    let format = super::run::report_format(output, "report")?;
    if let Some(shard) = opts.shard {
        // A shard's timing would be read as the whole run's.
        return Err(Error::input(format!(
            "--shard {}/{}: bench times the whole run on one machine; shard `prompts` or `features` instead, or bench a smaller run with --rows",
            shard.index, shard.count
        )));
    }
    let r = Run::prepare(path, common, opts)?;
    let path = r.single_file("bench")?;
    let prompter = r.prompter()?;
    let cfg = r.cfg();
    let first = r.spec.load(path)?;
    for w in &first.warnings {
        eprintln!("wavebench: {w}");
    }
    // Prompts are rendered and discarded: nothing written could change, so it may slide.
    let prepared = r
        .spec
        .prepare(&first)?
        .sliding(r.spec.slide(&prompter, false));
    let adaptive = adaptive_plan(variants, cfg, prepared.windows.seq_len)?;
    let bench = Bench {
        r: &r,
        path,
        prepared: &prepared,
        prompter: &prompter,
        adaptive: adaptive.as_ref(),
        repeat,
        quiet: common.data.quiet,
    };
    let mut runs = Vec::new();
    let mut gpu = None;
    for &kind in &engines.0 {
        let mut engine = LOCAL.engine(kind);
        run::notice(&engine.notice, common.data.quiet);
        let said = engine.notice.clone();
        if engine.engine.kind() == EngineKind::TorchCuda {
            gpu = Some(engine.engine.device_name());
        }
        // The baseline's prompts, to count what each variant changes.
        let mut baseline: Option<Vec<String>> = None;
        let compare = variants.iter().any(|&v| v != Variant::Baseline);
        for &variant in variants {
            let (timers, first_outcome) =
                bench.time_variant(&mut engine, variant, compare, &mut baseline)?;
            let compared = baseline.as_ref().filter(|_| compare);
            let units = prepared.windows.count * first.channels.len();
            runs.push(variant_report(
                &engine,
                variant,
                units,
                prepared.windows.seq_len,
                &timers,
                first_outcome.zip(compared),
            ));
        }
        if engine.notice != said {
            run::notice(&engine.notice, common.data.quiet);
        }
    }
    let report = Report {
        config: cfg,
        machine: Machine::describe(gpu),
        runs,
        meanwhile: None,
    };
    let text = report.render(format)?;
    let out = output.unwrap_or(Path::new("-"));
    export::write_atomic(out, |w| w.write_all(text.as_bytes()))
}

/// The seed's adaptive level's plan for windows of `seq_len`, where it is among
/// `variants`: checked like any level (docs/transform.md#levels).
fn adaptive_plan(variants: &[Variant], cfg: &Config, seq_len: usize) -> Result<Option<Plan>> {
    if !variants.contains(&Variant::AdaptiveLevel) {
        return Ok(None);
    }
    variants::adaptive_plan(cfg.transform.wavelet, cfg.transform.mode, seq_len)
        .map(Some)
        .map_err(|e| e.within("--variants adaptive-level"))
}

/// `variant`'s report on `engine` from its timed runs over `series` series of `len`
/// samples, with what it changed against the baseline's prompts where it is compared
/// (its warm-up's outcome beside the baseline's prompts).
fn variant_report(
    engine: &Selected,
    variant: Variant,
    series: usize,
    len: usize,
    timers: &[Timer],
    compared: Option<(FirstOutcome, &Vec<String>)>,
) -> RunReport {
    // The cache's two epochs compute every series twice: its throughput counts both, so
    // it compares with the baseline's like with like.
    let mut report = RunReport::from_runs(
        engine.engine.kind().name(),
        &engine.engine.device_name(),
        series * variant.epochs(),
        len,
        timers,
    );
    if let Some((
        FirstOutcome {
            run: out,
            collisions,
        },
        base,
    )) = compared
    {
        report.variant = Some(variant.name().into());
        report.variant_means = Some(variant.about());
        report.prompts_changed = Some(variants::changed(&out.prompts, base));
        report.prompts = Some(base.len());
        report.cache_hit_rate = out.cache_hit_rate;
        report.seed_key_collisions = collisions;
    }
    report
}

/// What every variant's runs share: the file and its windows, the prompter, the seed's
/// adaptive plan where it is measured, and how many timed runs follow the warm-up.
struct Bench<'a> {
    r: &'a Run,
    path: &'a Path,
    prepared: &'a Prepared,
    prompter: &'a Prompter,
    adaptive: Option<&'a Plan>,
    repeat: usize,
    quiet: bool,
}

/// A variant's warm-up run, and (for the cache) the seed key's collisions.
struct FirstOutcome {
    run: VariantRun,
    collisions: Option<usize>,
}

impl Bench<'_> {
    /// `variant` on `engine`: a warm-up run, then `repeat` timed ones, each loading the
    /// file again (loading is a stage of the pipeline). Where `compare`, `baseline` gets
    /// the baseline's prompts: untimed before the first other variant, unless a timed
    /// baseline run came first and gave them for free.
    fn time_variant(
        &self,
        engine: &mut Selected,
        variant: Variant,
        compare: bool,
        baseline: &mut Option<Vec<String>>,
    ) -> Result<(Vec<Timer>, Option<FirstOutcome>)> {
        let cfg = self.r.cfg();
        let variant_fail = |v: Variant, e: Error| {
            Error::input(format!("--variants {}: {}", v.name(), super::message(&e)))
        };
        let label = format!("{} {}", engine.engine.kind().name(), variant.name());
        let bar = run::progress_of(self.repeat + 1, self.quiet, &label, "runs");
        let mut timers = Vec::with_capacity(self.repeat);
        let mut first_outcome = None;
        for rep in 0..=self.repeat {
            let mut timer = Timer::new(cfg.precise_timing);
            let table = timer.time(Stage::Load, || self.r.spec.load(self.path))?;
            let work = Workload {
                prepared: self.prepared.clone(),
                table: &table,
                prompter: self.prompter,
                description: &cfg.description,
                pred_len: cfg.pred_len,
            };
            if compare && baseline.is_none() && variant != Variant::Baseline {
                let mut scratch = Timer::new(false);
                let out = variants::run(Variant::Baseline, engine, &work, None, &mut scratch)
                    .map_err(|e| variant_fail(Variant::Baseline, e))?;
                *baseline = Some(out.prompts);
            }
            let out = variants::run(variant, engine, &work, self.adaptive, &mut timer)
                .map_err(|e| variant_fail(variant, e))?;
            if rep > 0 {
                timers.push(timer); // the first run warms plans, pools and caches
            } else {
                if variant == Variant::Baseline && baseline.is_none() {
                    *baseline = Some(out.prompts.clone());
                }
                let collisions = (variant == Variant::Cache)
                    .then(|| variants::seed_key_collisions(&work.prepared, work.table));
                first_outcome = Some(FirstOutcome {
                    run: out,
                    collisions,
                });
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        Ok((timers, first_outcome))
    }
}
