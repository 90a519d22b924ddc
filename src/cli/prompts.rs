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
    bank: Option<&Bank>,
) -> Result<()> {
    let mut r = Run::prepare(path, common, opts)?;
    let prompter = r.prompter()?;
    r.spec.renders_with(&prompter);
    let cfg = r.cfg();
    // The bank is checked before the prompts are made: a refusal after them loses the run.
    let bank_file = bank.map(|b| b.check(path, &cfg.description)).transpose()?;
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
    if let Some(file) = bank_file {
        write_bank(&file, &cfg.description)?;
        if !common.data.quiet {
            eprintln!("wavebench: Time-LLM's description: {}", file.display());
        }
    }
    Ok(())
}

/// `--timellm-bank DIR [--overwrite-bank]`: where Time-LLM's description goes, and whether
/// a different one already there may be replaced.
pub struct Bank {
    pub dir: std::path::PathBuf,
    pub overwrite: bool,
}

impl Bank {
    /// The bank file for `input`, refused before any work when the description is empty
    /// (it is all the file holds) or when the file holds another description and
    /// `--overwrite-bank` was not given: a researcher's own text is never lost in silence.
    fn check(&self, input: &Path, description: &str) -> Result<std::path::PathBuf> {
        let file = bank_file(&self.dir, input)?;
        if description.is_empty() {
            return Err(Error::input(format!(
                "--timellm-bank: the description is empty, and it is all {} would hold: give --description TEXT or @FILE",
                file.display()
            )));
        }
        if file.is_dir() {
            return Err(Error::input(format!(
                "--timellm-bank: {} is a folder; Time-LLM reads a file there",
                file.display()
            )));
        }
        if let Ok(held) = std::fs::read(&file) {
            if held != description.as_bytes() && !self.overwrite {
                return Err(Error::input(format!(
                    "--timellm-bank: {} holds another description ({} bytes); give --overwrite-bank to replace it, or another folder",
                    file.display(),
                    held.len()
                )));
            }
        }
        Ok(file)
    }
}

/// Where Time-LLM's `load_content` reads the description of `input`: `DIR/ETT.txt` for an
/// ETT file (Time-LLM shares one description among ETTh1, ETTh2, ETTm1 and ETTm2), else
/// `DIR/<file stem>.txt` (Time-LLM reads `<--data>.txt`: rename it if yours differs).
pub fn bank_file(dir: &Path, input: &Path) -> Result<std::path::PathBuf> {
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
    Ok(dir.join(format!("{name}.txt")))
}

/// Write `description` into the bank `file`, its folder made if missing. No newline is
/// added: Time-LLM puts the file's text into its prompt as it is.
fn write_bank(file: &Path, description: &str) -> Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "create the folder", e))?;
    }
    export::write_atomic(file, |w| w.write_all(description.as_bytes()))
}
