//! The claims a researcher defines, as a sweep reads them: compiled from the run's
//! `[claims]`, and the `last` and `mean` of every scored unit they see besides the features.

use crate::error::{Error, Result};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::run_spec::RunSpec;
use wavebench_core::score::{ClaimVars, DefinedClaim, Scorer};

/// The claims `base` defines (its `[claims]`, `--claim`), compiled; the error names the
/// claim at fault.
pub fn defined_claims(base: &Config) -> Result<Vec<Arc<DefinedClaim>>> {
    DefinedClaim::of_table(&base.claims).map_err(|e| Error::input(e.to_string()))
}

/// Per file, `[last, mean]` of every unit of its scored windows as the features see them
/// (window-major, channel-minor, as [`Horizons`] numbers them): what defined claims read
/// besides the features.
pub(super) fn facts_of(
    tables: &[(&str, &Table)],
    scorer: &Scorer,
    base: &RunSpec,
) -> Result<Vec<Vec<[f64; 2]>>> {
    let normalize = base.normalize();
    let mut out = Vec::with_capacity(tables.len());
    for ((_, table), h) in tables.iter().zip(&scorer.files) {
        // A plan's errors name the file already.
        let prepared = base.prepare(table)?;
        let w = &prepared.windows;
        let values: Vec<Vec<f64>> = table.channels.iter().map(|c| c.values.to_f64()).collect();
        let mut facts = Vec::with_capacity(h.scored.len() * values.len());
        for window in h.scored.clone() {
            let s = w.start(window - w.first);
            for v in &values {
                facts.push(ClaimVars::facts(&v[s..s + w.seq_len], normalize));
            }
        }
        out.push(facts);
    }
    Ok(out)
}
