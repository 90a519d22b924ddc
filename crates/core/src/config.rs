//! The run configuration: what the CLI's options, `--config FILE.toml`, the app's settings
//! and its "export configuration" all describe — one type, one set of defaults (the
//! seed's: db4, level 3, reflect ([`Transform`]); engine auto; missing values refused). `run_spec`
//! validates it and builds runs from it; the TOML file format is the application's.

use crate::data::{Missing, Normalize, RowRange, TimeColumn};
use crate::engine::{DType, EngineKind};
use crate::features::Aggregate;
use crate::pipeline::PathChoice;
use crate::prompt::TemplateSource;
use crate::score::ClaimSpecs;
use crate::stats::LagRule;
use crate::transform::Transform;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The wavelet, level and mode: `wavelet`, `level` and `mode` in the file.
    #[serde(flatten)]
    pub transform: Transform,
    pub engine: EngineKind,
    pub dtype: DType,
    /// Channels to use; every numeric column when absent.
    pub columns: Option<Vec<String>>,
    /// `START..END` data rows.
    pub rows: Option<RowRange>,
    /// Window length; the whole series when absent.
    pub seq_len: Option<usize>,
    pub stride: usize,
    /// Normalisation; the command's default when absent (none for decompose, revin else).
    pub normalize: Option<Normalize>,
    pub missing: Missing,
    /// The time axis: detected (auto), none, or a column's name.
    pub time_column: TimeColumn,
    /// In a data set, skip a file that cannot be used (with a warning) instead of stopping.
    pub skip_bad_files: bool,
    /// Where the prompts' template comes from: a built-in's name or a template file.
    pub template: TemplateSource,
    /// Dataset description for the prompt.
    pub description: String,
    pub pred_len: usize,
    pub aggregate: Aggregate,
    /// Windows per prompt for `aggregate = "batch"`.
    pub batch_size: usize,
    /// Synchronise the device at stage boundaries so stage times are exact (CUDA).
    pub precise_timing: bool,
    /// How band summaries are computed: `auto`, `window` or `sliding` (see
    /// `pipeline::PathChoice`).
    pub path: PathChoice,
    /// Describe constant windows as the seed did (band claims, top lags) instead of
    /// "constant input": for reproducing old runs byte for byte.
    pub seed_compatible: bool,
    /// Which top lags prompts print as `lags`: Time-LLM's (lag 0 and mirror lags
    /// included) or the clean ones (1..=T/2).
    pub lags: LagRule,
    /// Claims a researcher defines for the sweep, `NAME` or `NAME:OUTCOME` = template
    /// (docs/score.md#claims-you-define); in name order.
    #[serde(skip_serializing_if = "ClaimSpecs::is_empty")]
    pub claims: ClaimSpecs,
}

/// What a run's units and their Time-LLM statistics depend on: the configuration less its
/// transform and what the prompts say (template, description, claims). A caller that
/// scores many configurations of one data set (the app's Data set pane) keeps its scored
/// units while this is unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitsKey {
    engine: EngineKind,
    dtype: DType,
    columns: Option<Vec<String>>,
    rows: Option<RowRange>,
    seq_len: Option<usize>,
    stride: usize,
    normalize: Option<Normalize>,
    missing: Missing,
    time_column: TimeColumn,
    skip_bad_files: bool,
    pred_len: usize,
    aggregate: Aggregate,
    batch_size: usize,
    precise_timing: bool,
    path: PathChoice,
    seed_compatible: bool,
    lags: LagRule,
}

impl Config {
    /// Its [`UnitsKey`]. Every field is named here: a new one must be sorted into the key
    /// or out of it before this compiles.
    pub fn units_key(&self) -> UnitsKey {
        let Config {
            transform: _,
            template: _,
            description: _,
            claims: _,
            engine,
            dtype,
            columns,
            rows,
            seq_len,
            stride,
            normalize,
            missing,
            time_column,
            skip_bad_files,
            pred_len,
            aggregate,
            batch_size,
            precise_timing,
            path,
            seed_compatible,
            lags,
        } = self.clone();
        UnitsKey {
            engine,
            dtype,
            columns,
            rows,
            seq_len,
            stride,
            normalize,
            missing,
            time_column,
            skip_bad_files,
            pred_len,
            aggregate,
            batch_size,
            precise_timing,
            path,
            seed_compatible,
            lags,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            transform: Transform::default(),
            engine: EngineKind::Auto,
            dtype: DType::F32,
            columns: None,
            rows: None,
            seq_len: None,
            stride: 1,
            normalize: None,
            missing: Missing::Error,
            time_column: TimeColumn::Auto,
            skip_bad_files: false,
            template: TemplateSource::default(),
            description: String::new(),
            pred_len: 96,
            aggregate: Aggregate::Series,
            batch_size: 32,
            precise_timing: false,
            path: PathChoice::Auto,
            seed_compatible: false,
            lags: LagRule::Timellm,
            claims: Default::default(),
        }
    }
}
