//! What a sweep runs over ([`Request`]): the data options, the grid, the templates, the
//! split and the protocol; the run configuration of each grid point, and whether its runs
//! slide.

use crate::{Grid, Point};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::engine::{self, DType};
use wavebench_core::features::{Aggregate, Reads};
use wavebench_core::pipeline::{NoSlide, PathChoice};
use wavebench_core::prompt::Prompter;
use wavebench_core::score::{Claim, DefinedClaim, Protocol, Split};
use wavebench_core::transform::Transform;

/// What a sweep runs over: the data options of `base` (columns, rows, seq_len, stride,
/// pred_len, description, missing), the grid, the templates and the split.
#[derive(Clone)]
pub struct Request {
    pub base: Config,
    pub grid: Grid,
    /// Each template's name and compiled form; every template is scored on the same
    /// features (the claims), and differs in its prompts' diversity.
    pub templates: Vec<(String, Arc<Prompter>)>,
    pub split: Split,
    /// The null's draws and the bootstrap's replicates.
    pub protocol: Protocol,
}

impl Request {
    /// The data options alone (windows, rows, horizon), for what does not depend on the
    /// transform: its transform is haar at level 1, which every window of 2 or more rows
    /// allows, so the base's wavelet and level (which a sweep does not run) refuse nothing.
    pub(crate) fn data_config(&self) -> Config {
        let mut cfg = self.config(None);
        cfg.transform = Transform {
            wavelet: wavebench_core::wavelet::lookup("haar").expect("haar is in the catalogue"),
            level: 1,
            mode: self.base.transform.mode,
        };
        cfg
    }

    /// The run of one grid point (or the base's wavelet for None): f64 on the native
    /// engine, one prompt per series.
    pub(crate) fn config(&self, p: Option<&Point>) -> Config {
        Config {
            transform: p.map_or(self.base.transform, |p| p.transform),
            dtype: DType::F64,
            aggregate: Aggregate::Series,
            engine: engine::EngineKind::Native,
            ..self.base.clone()
        }
    }
}

/// Whether a sweep's runs slide: unless `path = "window"`, and then only where every
/// claim and every prompt comes out as the per-window path's (sliding is the faster over
/// a whole grid; BENCHMARKS.md, the sweep of every wavelet × valid level).
pub(crate) fn slide(req: &Request, defined: &[Arc<DefinedClaim>]) -> Result<Reads, NoSlide> {
    match req.base.path {
        PathChoice::Window => Err(NoSlide::WindowPath),
        _ => Ok(req
            .templates
            .iter()
            .map(|(_, p)| p.reads())
            .chain(defined.iter().map(|d| d.reads()))
            .fold(Claim::READS, Reads::union)),
    }
}
