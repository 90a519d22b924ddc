//! `wavebench bench INPUT --engines … --repeat R -o REPORT.{json,csv,md}`: the whole
//! pipeline, every stage timed, prompts rendered and discarded, after a warm-up.

use super::run::{self, PromptOpts, Run};
use super::Common;
use crate::backend::LOCAL;
use crate::error::{Error, Result};
use crate::export;
use crate::timing_report::{Machine, Report};
use crate::variants::{self, Variant, Workload};
use std::path::Path;
use wavebench_core::engine::EngineKind;
use wavebench_core::run_spec::Backend;
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
    // The seed's adaptive level, checked like any level (docs/transform.md#levels).
    let adaptive = if variants.contains(&Variant::AdaptiveLevel) {
        let plan = variants::adaptive_plan(
            cfg.transform.wavelet,
            cfg.transform.mode,
            prepared.windows.seq_len,
        )
        .map_err(|e| Error::input(format!("--variants adaptive-level: {e}")))?;
        Some(plan)
    } else {
        None
    };
    let variant_fail = |v: Variant, e: Error| {
        Error::input(format!("--variants {}: {}", v.name(), super::message(&e)))
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
            let label = format!("{} {}", engine.engine.kind().name(), variant.name());
            let bar = run::progress_of(repeat + 1, common.data.quiet, &label, "runs");
            let mut timers = Vec::with_capacity(repeat);
            let mut first_outcome = None;
            for rep in 0..=repeat {
                let mut timer = Timer::new(cfg.precise_timing);
                // Each repeat loads the file again: loading is a stage of the pipeline.
                let table = timer.time(Stage::Load, || r.spec.load(path))?;
                let work = Workload {
                    prepared: prepared.clone(),
                    table: &table,
                    prompter: &prompter,
                    description: &cfg.description,
                    pred_len: cfg.pred_len,
                };
                if compare && baseline.is_none() && variant != Variant::Baseline {
                    // Untimed: the reference the variants are compared with (a timed baseline
                    // run that comes first gives it for free, below).
                    let mut scratch = Timer::new(false);
                    let out =
                        variants::run(Variant::Baseline, &mut engine, &work, None, &mut scratch)
                            .map_err(|e| variant_fail(Variant::Baseline, e))?;
                    baseline = Some(out.prompts);
                }
                let out = variants::run(variant, &mut engine, &work, adaptive.as_ref(), &mut timer)
                    .map_err(|e| variant_fail(variant, e))?;
                if rep > 0 {
                    timers.push(timer); // the first run warms plans, pools and caches
                } else {
                    if variant == Variant::Baseline && baseline.is_none() {
                        baseline = Some(out.prompts.clone());
                    }
                    let collisions = (variant == Variant::Cache)
                        .then(|| variants::seed_key_collisions(&work.prepared, work.table));
                    first_outcome = Some((out, collisions));
                }
                bar.inc(1);
            }
            bar.finish_and_clear();
            // The cache's two epochs compute every series twice: its throughput counts
            // both, so it compares with the baseline's like with like.
            let series = prepared.windows.count * first.channels.len() * variant.epochs();
            let mut report = RunReport::from_runs(
                engine.engine.kind().name(),
                &engine.engine.device_name(),
                series,
                prepared.windows.seq_len,
                &timers,
            );
            if compare {
                if let (Some((out, collisions)), Some(base)) = (first_outcome, &baseline) {
                    let changed = variants::changed(&out.prompts, base);
                    report.variant = Some(variant.name().into());
                    report.variant_means = Some(variant.about());
                    report.prompts_changed = Some(changed);
                    report.prompts = Some(base.len());
                    report.cache_hit_rate = out.cache_hit_rate;
                    report.seed_key_collisions = collisions;
                }
            }
            runs.push(report);
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
