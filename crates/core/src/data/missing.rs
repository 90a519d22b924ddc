//! What to do with missing cells (empty or NaN): refuse, interpolate, drop or zero them.

use super::{err, refuse, DataError, Opt, Table, OPTION};
use crate::numeric::real::{Real, Values};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Missing {
    /// Stop, naming file, column and first row.
    #[default]
    Error,
    /// Linear between the neighbours; edges take the nearest value.
    Interpolate,
    /// Drop every row that has a missing cell in any channel.
    Drop,
    Zero,
}

crate::names::named! {
    Missing, "missing-value policy":
    Error = "error",
    Interpolate = "interpolate",
    Drop = "drop",
    Zero = "zero",
}

impl Missing {
    /// Apply the policy in place to every channel of `table`.
    pub fn apply(self, table: &mut Table) -> Result<(), DataError> {
        match self {
            Missing::Error => {
                for c in &table.channels {
                    if let Some(row) = c.values.iter_f64().position(|v| v.is_nan()) {
                        return refuse(&[Opt::Missing], format!(
                            "{}: column '{}', data row {row}: missing value (choose {OPTION} interpolate|drop|zero)",
                            table.path.display(),
                            c.name
                        ));
                    }
                }
            }
            Missing::Zero => table
                .channels
                .iter_mut()
                .for_each(|c| c.values.map_in_place(|v| if v.is_nan() { 0.0 } else { v })),
            Missing::Interpolate => {
                for c in &mut table.channels {
                    let ok = match &mut c.values {
                        Values::F32(v) => interpolate(v),
                        Values::F64(v) => interpolate(v),
                    };
                    if !ok {
                        return err(format!(
                            "{}: column '{}' has no values at all",
                            table.path.display(),
                            c.name
                        ));
                    }
                }
            }
            Missing::Drop => {
                let mut keep = vec![true; table.rows()];
                for c in &table.channels {
                    for (k, v) in keep.iter_mut().zip(c.values.iter_f64()) {
                        *k &= !v.is_nan();
                    }
                }
                for c in &mut table.channels {
                    c.values.retain_rows(&keep);
                }
                if let Some(time) = &mut table.time {
                    time.retain(&keep);
                }
                if table.rows() == 0 {
                    return refuse(
                        &[Opt::Missing],
                        format!(
                            "{}: every row has a missing value; nothing left after {OPTION} drop",
                            table.path.display()
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

/// Linear interpolation over NaN runs (in f64, rounded to the stored precision); false
/// when every value is missing.
fn interpolate<T: Real>(v: &mut [T]) -> bool {
    let known: Vec<usize> = (0..v.len()).filter(|&i| !v[i].to_f64().is_nan()).collect();
    let (Some(&first), Some(&last)) = (known.first(), known.last()) else {
        return false;
    };
    for i in 0..first {
        v[i] = v[first];
    }
    for i in last + 1..v.len() {
        v[i] = v[last];
    }
    for w in known.windows(2) {
        let (a, b) = (w[0], w[1]);
        for i in a + 1..b {
            let t = (i - a) as f64 / (b - a) as f64;
            let (va, vb) = (v[a].to_f64(), v[b].to_f64());
            v[i] = T::from_f64(va + t * (vb - va));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn interpolates_inside_and_holds_edges() {
        let mut v = [f64::NAN, 1.0, f64::NAN, f64::NAN, 4.0, f64::NAN];
        assert!(super::interpolate(&mut v));
        assert_eq!(v, [1.0, 1.0, 2.0, 3.0, 4.0, 4.0]);
    }
}
