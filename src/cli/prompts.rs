//! `wavebench prompts INPUT --template … -o OUT.jsonl`: one JSON object a line.

use super::run::{self, PromptOpts, Run};
use super::{Common, Failure};
use crate::engine;
use crate::export;
use crate::timing::{Stage, Timer};
use std::path::Path;

pub fn run(path: &Path, output: &Path, common: &Common, opts: &PromptOpts) -> Result<(), Failure> {
    let r = Run::prepare(path, common, opts)?;
    let prompter = r.prompter()?;
    let sel = engine::select(r.cfg.engine);
    let (mut eng, mut notice) = (sel.engine, sel.notice);
    run::notice(&notice, common.quiet);
    let bar = run::progress(r.windows.count, common.quiet, "prompts");
    let mut timer = Timer::new(r.cfg.precise_timing);
    let units = crate::pipeline::features(&mut eng, &mut notice, &r.shape(), &mut timer, |done| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    run::notice(&notice, common.quiet);
    let prompts = timer.time(Stage::Render, || {
        prompter.render_all(
            &units,
            &r.cfg.description,
            r.windows.seq_len,
            r.cfg.pred_len,
        )
    });
    let prompts =
        prompts.map_err(|e| Failure::Input(format!("template '{}': {e}", r.cfg.template)))?;
    export::write_prompts(output, &units, &prompts).map_err(Failure::Input)
}
