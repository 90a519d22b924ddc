//! `wavebench prompts INPUT --template … -o OUT.jsonl`: one JSON object a line.

use super::run::{PromptOpts, Run};
use super::Common;
use crate::error::{Error, Result};
use crate::export;
use std::path::Path;
use wavebench_core::timing::Stage;

pub fn run(
    path: &Path,
    output: &Path,
    common: &Common,
    opts: &PromptOpts,
    timellm_bank: Option<&Path>,
) -> Result<()> {
    let r = Run::prepare(path, common, opts)?;
    let prompter = r.prompter()?;
    let cfg = r.cfg();
    // Each chunk's prompts are rendered and written before the next is computed.
    export::stream_prompts(output, |put| {
        r.each_chunk("prompts", r.spec.slide(&prompter, true), |f, timer| {
            let prompts = timer
                .time(Stage::Render, || {
                    prompter.render_all(&f.units, &cfg.description, f.seq_len, cfg.pred_len)
                })
                .map_err(|source| Error::Template {
                    place: format!("template '{}'", cfg.template),
                    source,
                })?;
            put(&f.units, &prompts)
        })
    })?;
    if cfg.description.is_empty() && prompter.variables().iter().any(|v| v == "description") {
        eprintln!(
            "wavebench: warning: the description is empty, so every prompt says \"Dataset description: \" and nothing after it (give --description TEXT or @FILE)"
        );
    }
    if let Some(dir) = timellm_bank {
        let file = write_timellm_bank(dir, path, &cfg.description)?;
        if !common.data.quiet {
            eprintln!("wavebench: Time-LLM's description: {}", file.display());
        }
    }
    Ok(())
}

/// Write `description` where Time-LLM's `load_content` reads it: `DIR/ETT.txt` for an ETT
/// file (Time-LLM shares one description among ETTh1, ETTh2, ETTm1 and ETTm2), else
/// `DIR/<file stem>.txt` (Time-LLM reads `<--data>.txt`: rename it if yours differs). No
/// newline is added: Time-LLM puts the file's text into its prompt as it is.
fn write_timellm_bank(dir: &Path, input: &Path, description: &str) -> Result<std::path::PathBuf> {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty() && !s.contains(['*', '?', '[']))
        .ok_or_else(|| {
            Error::input(format!(
                "--timellm-bank: {} names no one data set; give a file",
                input.display()
            ))
        })?;
    let name = if stem.contains("ETT") {
        "ETT".to_string()
    } else {
        stem
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "create the folder", e))?;
    let file = dir.join(format!("{name}.txt"));
    export::write_atomic(&file, |w| w.write_all(description.as_bytes()))?;
    Ok(file)
}
