//! `wavebench prompts INPUT --template … -o OUT.jsonl`: one JSON object a line.

use super::run::{PromptOpts, Run};
use super::{Common, Failure};
use crate::export;
use crate::timing::Stage;
use std::path::Path;

pub fn run(path: &Path, output: &Path, common: &Common, opts: &PromptOpts) -> Result<(), Failure> {
    let r = Run::prepare(path, common, opts)?;
    let prompter = r.prompter()?;
    let (units, mut timer) = r.units(common.quiet, "prompts")?;
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
