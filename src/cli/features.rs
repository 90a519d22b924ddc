//! `wavebench features INPUT -o OUT.{parquet,csv,jsonl}`.

use super::run::{self, PromptOpts, Run};
use super::{Common, Failure};
use crate::engine;
use crate::export;
use crate::timing::Timer;
use std::path::Path;

pub fn run(path: &Path, output: &Path, common: &Common, opts: &PromptOpts) -> Result<(), Failure> {
    let format = export::FeatureFormat::for_path(output).map_err(Failure::Input)?;
    let r = Run::prepare(path, common, opts)?;
    let sel = engine::select(r.cfg.engine);
    let (mut eng, mut notice) = (sel.engine, sel.notice);
    run::notice(&notice, common.quiet);
    let bar = run::progress(r.windows.count, common.quiet, "features");
    let mut timer = Timer::new(r.cfg.precise_timing);
    let units = crate::pipeline::features(&mut eng, &mut notice, &r.shape(), &mut timer, |done| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    run::notice(&notice, common.quiet);
    export::write_features(output, format, &units).map_err(Failure::Input)
}
