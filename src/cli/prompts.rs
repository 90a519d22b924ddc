//! `wavebench prompts INPUT --template … -o OUT.jsonl`: one JSON object a line.

use super::run::{PromptOpts, Run};
use super::Common;
use crate::error::{Error, Result};
use crate::export;
use std::path::Path;
use wavebench_core::timing::Stage;

pub fn run(path: &Path, output: &Path, common: &Common, opts: &PromptOpts) -> Result<()> {
    let r = Run::prepare(path, common, opts)?;
    let prompter = r.prompter()?;
    let (files, mut timer) = r.units("prompts", r.spec.slide(&prompter, true))?;
    let cfg = r.cfg();
    let mut units = Vec::new();
    let mut prompts = Vec::new();
    for f in files {
        let rendered = timer.time(Stage::Render, || {
            prompter.render_all(&f.units, &cfg.description, f.seq_len, cfg.pred_len)
        });
        prompts.extend(
            rendered.map_err(|e| Error::input(format!("template '{}': {e}", cfg.template)))?,
        );
        units.extend(f.units);
    }
    export::write_prompts(output, &units, &prompts)
}
