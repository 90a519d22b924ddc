//! `wavebench features INPUT -o OUT.{parquet,csv,jsonl}`.

use super::run::{PromptOpts, Run};
use super::{Common, Failure};
use crate::export;
use std::path::Path;

pub fn run(path: &Path, output: &Path, common: &Common, opts: &PromptOpts) -> Result<(), Failure> {
    let format = export::FeatureFormat::for_path(output).map_err(Failure::Input)?;
    let r = Run::prepare(path, common, opts)?;
    let (units, _) = r.units(common.quiet, "features")?;
    export::write_features(output, format, &units).map_err(Failure::Input)
}
