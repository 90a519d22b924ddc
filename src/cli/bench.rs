//! `wavebench bench INPUT --engines … --repeat R -o REPORT.{json,csv,md}`: the whole
//! pipeline, every stage timed, prompts rendered and discarded, after a warm-up.

use super::run::{self, PromptOpts, Run};
use super::{Common, Failure};
use crate::engine::{self, EngineKind};
use crate::export;
use crate::timing::{Machine, Report, RunReport, Stage, Timer};
use std::path::Path;

pub fn run(
    path: &Path,
    engines: &str,
    repeat: usize,
    output: Option<&Path>,
    common: &Common,
    opts: &PromptOpts,
) -> Result<(), Failure> {
    let format = match output.and_then(|p| p.extension()).and_then(|e| e.to_str()) {
        _ if output.is_none_or(|p| p == Path::new("-") || export::is_stream(p)) => "md",
        Some(e @ ("json" | "csv" | "md")) => e,
        _ => {
            return Err(Failure::Input(format!(
                "-o {}: expected a .json, .csv or .md report",
                output.map_or(String::new(), |p| p.display().to_string())
            )))
        }
    };
    let r = Run::prepare(path, common, opts)?;
    let path = r.single_file("bench")?;
    let prompter = r.prompter()?;
    let cfg = r.cfg();
    let first = r.spec.load(path)?;
    for w in &first.warnings {
        eprintln!("wavebench: {w}");
    }
    let prepared = r.spec.prepare(&first)?;
    let mut runs = Vec::new();
    let mut gpu = None;
    for name in engines.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let kind: EngineKind = name
            .parse()
            .map_err(|e: String| Failure::Input(format!("--engines: {e}")))?;
        let sel = engine::select(kind);
        let (mut eng, mut notice) = (sel.engine, sel.notice);
        run::notice(&notice, common.quiet);
        let said = notice.clone();
        if eng.kind() == EngineKind::TorchCuda {
            gpu = Some(eng.device_name());
        }
        let bar = run::progress(repeat + 1, common.quiet, eng.kind().name());
        let mut timers = Vec::with_capacity(repeat);
        for rep in 0..=repeat {
            let mut timer = Timer::new(cfg.precise_timing);
            // Each repeat loads the file again: loading is a stage of the pipeline.
            let table = timer.time(Stage::Load, || r.spec.load(path))?;
            let shape = prepared.shape(&r.spec, &table);
            let units =
                crate::pipeline::features(&mut eng, &mut notice, &shape, &mut timer, |_| true)?;
            let rendered = timer.time(Stage::Render, || {
                prompter.render_all(
                    &units,
                    &cfg.description,
                    prepared.windows.seq_len,
                    cfg.pred_len,
                )
            });
            std::hint::black_box(
                rendered
                    .map_err(|e| Failure::Input(format!("template '{}': {e}", cfg.template)))?,
            );
            if rep > 0 {
                timers.push(timer); // the first run warms plans, pools and caches
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        if notice != said {
            run::notice(&notice, common.quiet);
        }
        let series = prepared.windows.count * first.channels.len();
        runs.push(RunReport::from_runs(
            eng.kind().name(),
            &eng.device_name(),
            series,
            prepared.windows.seq_len,
            &timers,
        ));
    }
    let report = Report {
        config: cfg,
        machine: Machine::describe(gpu),
        runs,
    };
    let text = report.render(format).map_err(Failure::Internal)?;
    let out = output.unwrap_or(Path::new("-"));
    export::write_atomic(out, |w| w.write_all(text.as_bytes())).map_err(Failure::Input)
}
