//! The claims a researcher defines, as a sweep reads them: compiled from the run's
//! `[claims]`, and the `last` and `mean` of every scored unit they see besides the features.

use crate::error::Result;
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::run_spec::RunSpec;
use wavebench_core::score::{ClaimVars, DefinedClaim, Scorer, WindowFacts};

/// The claims `base` defines (its `[claims]`, `--claim`), compiled; the error names the
/// claim at fault.
pub fn defined_claims(base: &Config) -> Result<Vec<Arc<DefinedClaim>>> {
    Ok(DefinedClaim::of_specs(&base.claims)?)
}

/// One file's `[last, mean]` per unit as the features see them, window-major,
/// channel-minor: of its scored windows (as [`Horizons`] numbers them), and of its fit
/// windows.
#[derive(Debug, Clone, Default)]
pub(super) struct Facts {
    pub scored: Vec<WindowFacts>,
    pub fit: Vec<WindowFacts>,
}

/// Per file, the [`Facts`] of its units: what defined claims read besides the features.
pub(super) fn facts_of(
    tables: &[(&str, &Table)],
    scorer: &Scorer,
    base: &RunSpec,
) -> Result<Vec<Facts>> {
    let normalize = base.normalize();
    let mut out = Vec::with_capacity(tables.len());
    for ((_, table), h) in tables.iter().zip(&scorer.files) {
        // A plan's errors name the file already.
        let prepared = base.prepare(table)?;
        let w = &prepared.windows;
        let values: Vec<Vec<f64>> = table.channels.iter().map(|c| c.values.to_f64()).collect();
        let of = |windows: &mut dyn Iterator<Item = usize>| {
            let mut facts = Vec::new();
            for window in windows {
                let s = w.start(window - w.first);
                for v in &values {
                    facts.push(ClaimVars::facts(&v[s..s + w.seq_len], normalize));
                }
            }
            facts
        };
        out.push(Facts {
            scored: of(&mut h.scored.clone()),
            fit: of(&mut h.fit_windows.iter().copied()),
        });
    }
    Ok(out)
}
