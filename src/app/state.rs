//! What the app remembers between sessions (serde, through eframe's storage).

use crate::data::{Missing, Normalize};
use crate::engine::{DType, EngineKind};
use crate::features::Aggregate;
use crate::wavelet::Mode;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub file: Option<PathBuf>,
    pub channel: usize,
    pub seq_len: usize,
    pub window: usize,
    /// First data row used (0-based) and the end (exclusive; 0 = to the end of the file).
    pub row_start: usize,
    pub row_end: usize,
    /// Synchronise the device at stage boundaries (exact stage times on CUDA).
    pub precise_timing: bool,
    /// Columns the exports include (empty = every numeric column).
    pub export_columns: Vec<String>,
    /// Window stride for data-set-wide work (exports).
    pub stride: usize,
    pub batch_size: usize,
    pub wavelet: String,
    pub level: usize,
    pub mode: Mode,
    pub engine: EngineKind,
    pub dtype: DType,
    pub normalize: Normalize,
    pub missing: Missing,
    pub aggregate: Aggregate,
    /// Built-in template name, or "custom" for `template_text`.
    pub template: String,
    /// The editor's text (starts as the chosen built-in).
    pub template_text: String,
    pub description: String,
    pub pred_len: usize,
    /// Plot raw coefficients instead of the per-band reconstruction.
    pub raw_coefficients: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            file: None,
            channel: 0,
            seq_len: 512,
            window: 0,
            export_columns: Vec::new(),
            row_start: 0,
            row_end: 0,
            precise_timing: true,
            stride: 1,
            batch_size: 32,
            wavelet: "db4".into(),
            level: 3,
            mode: Mode::Reflect,
            engine: EngineKind::Native,
            dtype: DType::F32,
            normalize: Normalize::Revin,
            missing: Missing::Interpolate,
            aggregate: Aggregate::Series,
            template: crate::prompt::DEFAULT_TEMPLATE.into(),
            template_text: crate::prompt::builtin(crate::prompt::DEFAULT_TEMPLATE)
                .unwrap_or_default()
                .to_string(),
            description: String::new(),
            pred_len: 96,
            raw_coefficients: false,
        }
    }
}

impl Settings {
    /// The selected rows, when they are not the whole file.
    pub fn row_range(&self) -> Option<crate::data::RowRange> {
        let end = (self.row_end > self.row_start).then_some(self.row_end);
        (self.row_start > 0 || end.is_some()).then_some(crate::data::RowRange {
            start: self.row_start,
            end,
        })
    }

    /// The CLI's configuration for these settings (what "export configuration" writes).
    pub fn config(&self) -> crate::config::Config {
        crate::config::Config {
            wavelet: self.wavelet.clone(),
            level: self.level,
            mode: self.mode,
            engine: self.engine,
            dtype: self.dtype,
            seq_len: Some(self.seq_len),
            stride: self.stride,
            batch_size: self.batch_size,
            rows: self.row_range().map(|r| r.to_string()),
            columns: (!self.export_columns.is_empty()).then(|| self.export_columns.clone()),
            precise_timing: self.precise_timing,
            normalize: Some(self.normalize),
            missing: self.missing,
            template: self.template.clone(),
            description: self.description.clone(),
            pred_len: self.pred_len,
            aggregate: self.aggregate,
            ..Default::default()
        }
    }
}
