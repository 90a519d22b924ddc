//! `wavebench features INPUT -o OUT.{parquet,csv,jsonl}`.

use super::run::{PromptOpts, Run};
use super::Common;
use crate::error::Result;
use crate::export;
use std::path::Path;
use wavebench_core::pipeline::NoSlide;

pub fn run(path: &Path, output: &Path, common: &Common, opts: &PromptOpts) -> Result<()> {
    let format = export::FeatureFormat::for_path(output)?;
    let r = Run::prepare(path, common, opts)?;
    // CSV shards after the first leave out the header: `cat` of the shards is the whole
    // run's file, as it is for JSON lines.
    let header = opts.shard.is_none_or(|s| s.index == 1);
    export::stream_features(output, format, header, |put| {
        r.each_chunk("features", Err(NoSlide::FeaturesWritten), |f, _| {
            put(&f.units)
        })
    })
}
