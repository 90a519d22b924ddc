//! The feature and prompt records, as files: JSON lines, CSV and Parquet for features
//! (chosen by the output's extension), JSON lines for prompts; each written through
//! [`Output`], whole or a chunk of units at a time (the feature table's formats in
//! `feature_table.rs`).

use super::feature_table::{row, Csv, Parquet, Place};
use super::{is_stream, Output};
use crate::error::{Error, Result};
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;
use wavebench_core::features::Features;
use wavebench_core::features::Unit;

/// The feature table formats, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureFormat {
    Parquet,
    Csv,
    JsonLines,
}

impl FeatureFormat {
    pub fn for_path(path: &Path) -> Result<Self> {
        if path.as_os_str() == "-" || is_stream(path) {
            return Ok(FeatureFormat::JsonLines);
        }
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet") => Ok(FeatureFormat::Parquet),
            Some("csv") => Ok(FeatureFormat::Csv),
            Some("jsonl") | Some("ndjson") => Ok(FeatureFormat::JsonLines),
            _ => Err(Error::input(format!(
                "-o {}: expected a .parquet, .csv or .jsonl file (or - for JSON lines on stdout)",
                path.display()
            ))),
        }
    }
}

/// `header`: whether a CSV starts with its header line (not for shards after the first,
/// so that the shards concatenate to the whole run's file).
pub fn write_features(
    path: &Path,
    format: FeatureFormat,
    units: &[Unit],
    header: bool,
) -> Result<()> {
    stream_features(path, format, header, |put| put(units))
}

/// Writes the next chunk of a run's units (their features).
pub type PutUnits<'a> = dyn FnMut(&[Unit]) -> Result<()> + 'a;

/// Writes the next chunk of a run's units with their prompts.
pub type PutPrompts<'a> = dyn FnMut(&[Unit], &[String]) -> Result<()> + 'a;

/// Write the feature table of a run that computes its units a chunk at a time: `run` is
/// handed `put`, which writes one chunk (in order), so no more than a chunk is held.
pub fn stream_features(
    path: &Path,
    format: FeatureFormat,
    header: bool,
    run: impl FnOnce(&mut PutUnits<'_>) -> Result<()>,
) -> Result<()> {
    let mut out = Output::create(path)?;
    match format {
        FeatureFormat::JsonLines => {
            let ran = run(&mut |units: &[Unit]| {
                out.write(|w| {
                    for u in units {
                        serde_json::to_writer(&mut *w, &row(u)).map_err(io::Error::from)?;
                        w.write_all(b"\n")?;
                    }
                    Ok(())
                })?;
                stop_if_gone(&out)
            });
            return finish(out, ran);
        }
        FeatureFormat::Csv => {
            let mut csv = Csv::new(header);
            run(&mut |units: &[Unit]| out.write(|w| csv.write(w, units)))?;
        }
        FeatureFormat::Parquet => {
            let failed =
                |e: polars::prelude::PolarsError| Error::io(path, "write", io::Error::other(e));
            let mut parquet = Parquet::new(out.writer());
            run(&mut |units: &[Unit]| parquet.write(units).map_err(failed))?;
            parquet.finish().map_err(failed)?;
        }
    }
    out.finish()
}

/// Standard output's reader has gone (`| head`): what it wanted it has, so the run stops
/// (as `Cancelled`, which [`finish`] takes for what it is).
fn stop_if_gone(out: &Output) -> Result<()> {
    match out.reader_gone() {
        true => Err(Error::Cancelled),
        false => Ok(()),
    }
}

/// The output finished after its run: a run stopped because the reader had gone has
/// succeeded, as Unix tools do.
fn finish(out: Output, ran: Result<()>) -> Result<()> {
    match ran {
        Err(Error::Cancelled) if out.reader_gone() => Ok(()),
        Err(e) => Err(e),
        Ok(()) => out.finish(),
    }
}

/// `{["file",]"window","start","start_time","column","prompt","features":{…}}` a line.
pub fn write_prompts(path: &Path, units: &[Unit], prompts: &[String]) -> Result<()> {
    stream_prompts(path, |put| put(units, prompts))
}

/// Write the prompts of a run that computes them a chunk at a time (see
/// [`stream_features`]).
pub fn stream_prompts(
    path: &Path,
    run: impl FnOnce(&mut PutPrompts<'_>) -> Result<()>,
) -> Result<()> {
    let mut out = Output::create(path)?;
    let ran = run(&mut |units: &[Unit], prompts: &[String]| {
        if units.len() != prompts.len() {
            return Err(Error::Internal(format!(
                "{} prompts for {} units",
                prompts.len(),
                units.len()
            )));
        }
        out.write(|w| write_prompt_lines(w, units, prompts))?;
        stop_if_gone(&out)
    });
    finish(out, ran)
}

/// Each unit's line, serialised in parallel a block of lines at a time into a few large
/// buffers, on a second thread, while this one writes the block before: the write (a
/// copy into the page cache) overlaps the next block's formatting.
fn write_prompt_lines(w: &mut dyn Write, units: &[Unit], prompts: &[String]) -> io::Result<()> {
    #[derive(Serialize)]
    struct Line<'a> {
        #[serde(flatten)]
        place: Place<'a>,
        prompt: &'a str,
        features: &'a Features,
    }
    use rayon::prelude::*;
    const BLOCK: usize = 8192;
    const PIECE: usize = 256;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<Vec<u8>>>>(1);
        scope.spawn(move || {
            for (us, ps) in units.chunks(BLOCK).zip(prompts.chunks(BLOCK)) {
                let block = us
                    .par_chunks(PIECE)
                    .zip(ps.par_chunks(PIECE))
                    .map(|(us, ps)| {
                        // A line with its features is ~1.1-1.5 KB.
                        let mut buf = Vec::with_capacity(us.len() * 1536);
                        for (u, p) in us.iter().zip(ps) {
                            let line = Line {
                                place: Place::of(u),
                                prompt: p,
                                features: &u.features,
                            };
                            serde_json::to_writer(&mut buf, &line).map_err(io::Error::from)?;
                            buf.push(b'\n');
                        }
                        Ok(buf)
                    })
                    .collect::<io::Result<Vec<Vec<u8>>>>();
                let failed = block.is_err();
                // The writer has stopped (a write failed): nothing more to do.
                if tx.send(block).is_err() || failed {
                    return;
                }
            }
        });
        for block in rx {
            for buf in block? {
                w.write_all(&buf)?;
            }
        }
        Ok(())
    })
}
