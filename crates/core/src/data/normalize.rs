//! Per-window, per-channel normalisation before features.

use crate::numeric::sums;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Normalize {
    #[default]
    None,
    /// `(x - mean) / std` (population std; a constant series becomes zeros).
    Zscore,
    /// Time-LLM's RevIN: `(x - mean) / sqrt(var_biased + 1e-5)`.
    Revin,
}

crate::names::named! {
    Normalize, "normalisation":
    None = "none",
    Zscore = "zscore",
    Revin = "revin",
}

impl Normalize {
    /// The map this normalisation applies to the series `x`.
    #[inline(always)]
    pub fn affine(self, x: &[f64]) -> Affine {
        if self == Normalize::None || x.is_empty() {
            return Affine::IDENTITY;
        }
        let n = x.len() as f64;
        let mean = sums::sum_by(x, |v| v) / n;
        let var = sums::sum_by(x, |v| (v - mean) * (v - mean)) / n;
        self.map_of(mean, var)
    }

    /// The map for a series of this mean and (biased) variance.
    #[inline(always)]
    fn map_of(self, mean: f64, var: f64) -> Affine {
        let denom = match self {
            Normalize::Revin => (var + 1e-5).sqrt(),
            _ if var > 0.0 => var.sqrt(),
            _ => 1.0,
        };
        Affine {
            mean,
            scale: 1.0 / denom,
        }
    }

    /// `affine` of each of `K` equal-length series, to the same bits, computed side by side
    /// (see `sums::sum_each`): the per-window sums are latency-bound one at a time.
    #[inline(always)]
    pub fn affines<const K: usize>(self, xs: [&[f64]; K]) -> [Affine; K] {
        if self == Normalize::None || xs.iter().any(|x| x.len() != xs[0].len() || x.is_empty()) {
            return xs.map(|x| self.affine(x));
        }
        let n = xs[0].len() as f64;
        let mean = sums::sum_each(xs).map(|s| s / n);
        let sq = sums::squares_about_each(xs, mean);
        std::array::from_fn(|s| self.map_of(mean[s], sq[s] / n))
    }

    /// `affines` over any number of equal-length series, four at a time.
    #[inline(always)]
    pub fn affines_into(self, xs: &[&[f64]], out: &mut Vec<Affine>) {
        let mut groups = xs.chunks_exact(4);
        for g in &mut groups {
            out.extend(self.affines([g[0], g[1], g[2], g[3]]));
        }
        out.extend(groups.remainder().iter().map(|x| self.affine(x)));
    }

    /// Normalise one series in place.
    pub fn apply(self, x: &mut [f64]) {
        let a = self.affine(x);
        x.iter_mut().for_each(|v| *v = a.map(*v));
    }
}

/// `v ↦ (v - mean) · scale` with `scale = 1 / std > 0` (a multiply: division would be most
/// of a window's cost). Monotone, also after rounding, so order statistics of a normalised
/// window are the normalised order statistics of the raw one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine {
    pub mean: f64,
    pub scale: f64,
}

impl Affine {
    pub const IDENTITY: Affine = Affine {
        mean: 0.0,
        scale: 1.0,
    };

    #[inline(always)]
    pub fn map(&self, v: f64) -> f64 {
        (v - self.mean) * self.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_by_side_maps_equal_one_at_a_time_to_the_bit() {
        for len in [1usize, 5, 8, 96, 333, 512] {
            let xs: Vec<Vec<f64>> = (0..7)
                .map(|s| {
                    (0..len)
                        .map(|i| ((i * 3 + s * 11) as f64 * 0.71).cos() * 37.5 + s as f64)
                        .collect()
                })
                .collect();
            let refs: Vec<&[f64]> = xs.iter().map(Vec::as_slice).collect();
            for norm in Normalize::ALL {
                let mut got = Vec::new();
                norm.affines_into(&refs, &mut got);
                assert_eq!(got.len(), refs.len());
                for (g, x) in got.iter().zip(&refs) {
                    let want = norm.affine(x);
                    assert_eq!(
                        (g.mean.to_bits(), g.scale.to_bits()),
                        (want.mean.to_bits(), want.scale.to_bits()),
                        "{norm} len {len}"
                    );
                }
            }
        }
    }
}
