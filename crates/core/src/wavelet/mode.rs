//! Signal-extension modes with PyWavelets' names and semantics.
//!
//! Each mode says what sample `k` of the infinitely extended signal is, for any integer `k`.
//! The answer is a small linear combination of real samples ([`Tap`]s): a copy for the
//! mirroring modes, a sign flip for `antisymmetric`, two or three terms for `smooth` and
//! `antireflect`. Engines turn these taps into a padding plan once per shape
//! (see `engine::plan`) instead of branching per sample.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Zero,
    Constant,
    Symmetric,
    Periodic,
    Smooth,
    Periodization,
    #[default]
    Reflect,
    Antisymmetric,
    Antireflect,
}

crate::names::named! {
    Mode, "mode":
    Zero = "zero",
    Constant = "constant",
    Symmetric = "symmetric",
    Periodic = "periodic",
    Smooth = "smooth",
    Periodization = "periodization",
    Reflect = "reflect",
    Antisymmetric = "antisymmetric",
    Antireflect = "antireflect",
}

/// `coef * x[index]`: one term of an extended sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tap {
    pub index: usize,
    pub coef: f64,
}

const fn tap(index: usize, coef: f64) -> Tap {
    Tap { index, coef }
}

impl Mode {
    /// Modes whose extension extrapolates, so deep coefficients grow far beyond the signal
    /// (10^4 x max|x| at level 5 in `smooth`): float32 loses too much there, so f32 input
    /// is transformed in f64 and rounded once at the end.
    pub fn extrapolates(self) -> bool {
        matches!(self, Mode::Smooth | Mode::Antireflect)
    }

    /// Shortest input pywt accepts in this mode (pywt refuses length 1 for [anti]reflect).
    pub fn min_input_len(self) -> usize {
        match self {
            Mode::Reflect | Mode::Antireflect => 2,
            _ => 1,
        }
    }

    /// Sample `k` of the extension of a length-`n` signal (`n >= 1`), as taps into it.
    ///
    /// `Periodization` extends periodically here; its odd-length padding (the last sample
    /// repeated) is applied by the plan, which is where pywt applies it too.
    pub fn extend(self, n: usize, k: isize) -> Vec<Tap> {
        debug_assert!(n >= 1);
        let ni = n as isize;
        if (0..ni).contains(&k) {
            return vec![tap(k as usize, 1.0)];
        }
        let last = n - 1;
        match self {
            Mode::Zero => vec![],
            Mode::Constant => vec![tap(if k < 0 { 0 } else { last }, 1.0)],
            Mode::Periodic | Mode::Periodization => vec![tap(k.rem_euclid(ni) as usize, 1.0)],
            Mode::Symmetric | Mode::Antisymmetric => {
                // Half-sample mirror: x0..x[n-1] x[n-1]..x0 x0.. — period 2n.
                let m = k.rem_euclid(2 * ni) as usize;
                if m < n {
                    vec![tap(m, 1.0)]
                } else {
                    let sign = if self == Mode::Antisymmetric {
                        -1.0
                    } else {
                        1.0
                    };
                    vec![tap(2 * n - 1 - m, sign)]
                }
            }
            Mode::Reflect => {
                if n == 1 {
                    return vec![tap(0, 1.0)];
                }
                // Whole-sample mirror: period 2(n-1).
                let p = 2 * (ni - 1);
                let m = k.rem_euclid(p) as usize;
                vec![tap(if m < n { m } else { p as usize - m }, 1.0)]
            }
            Mode::Smooth => {
                if n == 1 {
                    return vec![tap(0, 1.0)];
                }
                // First-order extrapolation from the two edge samples.
                if k < 0 {
                    let kf = k as f64;
                    vec![tap(0, 1.0 - kf), tap(1, kf)]
                } else {
                    let d = (k - (ni - 1)) as f64;
                    vec![tap(last, 1.0 + d), tap(last - 1, -d)]
                }
            }
            Mode::Antireflect => {
                if n == 1 {
                    return vec![tap(0, 1.0)];
                }
                // Point mirror about the edge samples, repeated: each full period of
                // 2(n-1) samples shifts the signal by 2(x[n-1] - x[0]).
                let p = ni - 1;
                let q = k.div_euclid(2 * p);
                let r = k.rem_euclid(2 * p);
                let drift = 2.0 * q as f64;
                let mut taps = if r <= p {
                    vec![tap(r as usize, 1.0)]
                } else {
                    vec![tap(last, 2.0), tap((2 * p - r) as usize, -1.0)]
                };
                if q != 0 {
                    taps.push(tap(last, drift));
                    taps.push(tap(0, -drift));
                }
                merge(taps)
            }
        }
    }
}

/// Sum the coefficients of taps on the same sample; drop those that cancel.
fn merge(taps: Vec<Tap>) -> Vec<Tap> {
    let mut out: Vec<Tap> = Vec::with_capacity(taps.len());
    for t in taps {
        match out.iter_mut().find(|o| o.index == t.index) {
            Some(o) => o.coef += t.coef,
            None => out.push(t),
        }
    }
    out.retain(|t| t.coef != 0.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(mode: Mode, x: &[f64], k: isize) -> f64 {
        mode.extend(x.len(), k)
            .iter()
            .map(|t| t.coef * x[t.index])
            .sum()
    }

    #[test]
    fn antireflect_matches_its_recurrence() {
        // x~[k] = 2 x~[p] - x~[2p - k] about each pivot p, a multiple of n-1.
        let x = [1.0, 4.0, 2.5, -3.0];
        let n = x.len() as isize;
        for k in n..40 {
            let p = (n - 1) * ((k - 1) / (n - 1));
            let want =
                2.0 * value(Mode::Antireflect, &x, p) - value(Mode::Antireflect, &x, 2 * p - k);
            assert!(
                (value(Mode::Antireflect, &x, k) - want).abs() < 1e-12,
                "k={k}"
            );
        }
        for k in (-40..0).rev() {
            let p = -(n - 1) * ((-k - 1) / (n - 1));
            let want =
                2.0 * value(Mode::Antireflect, &x, p) - value(Mode::Antireflect, &x, 2 * p - k);
            assert!(
                (value(Mode::Antireflect, &x, k) - want).abs() < 1e-12,
                "k={k}"
            );
        }
    }

    #[test]
    fn mirrors() {
        let x = [1.0, 2.0, 3.0];
        let s: Vec<f64> = (-4..7).map(|k| value(Mode::Symmetric, &x, k)).collect();
        assert_eq!(s, [3.0, 3.0, 2.0, 1.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 1.0]);
        let r: Vec<f64> = (-4..7).map(|k| value(Mode::Reflect, &x, k)).collect();
        assert_eq!(r, [1.0, 2.0, 3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0, 2.0, 3.0]);
        assert_eq!("Reflect".parse::<Mode>(), Ok(Mode::Reflect));
        assert!("reflection".parse::<Mode>().is_err());
    }
}
