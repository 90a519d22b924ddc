//! What happened after each window: the horizon outcomes a prompt's claims are scored
//! against (docs/score.md#outcomes), and their terciles.

/// The horizon outcome of one unit (one channel of one window): `x` its input of T raw
/// values, `h` the next `pred_len` rows.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// mean(h) > x[T-1].
    pub up: bool,
    /// mean|h - x[T-1]| / mean|x[t] - x[t-1]|: the naive forecast's error, scaled by the
    /// input's own step size.
    pub naive_mase: f64,
    /// std(diff(h)) / std(diff(x)), population standard deviations.
    pub vol_ratio: f64,
}

impl Outcome {
    /// The outcome of input `x` and horizon `h`, or None where a denominator is 0 (a
    /// constant or perfectly linear input: the unit is left out) or a value is not finite.
    /// `x` needs at least 2 values and `h` at least 2.
    pub fn of(x: &[f64], h: &[f64]) -> Option<Outcome> {
        let last = *x.last()?;
        if x.len() < 2 || h.len() < 2 {
            return None;
        }
        let steps = mean(x.windows(2).map(|w| (w[1] - w[0]).abs()), x.len() - 1);
        let vol_x = std_of_diff(x);
        if steps == 0.0 || vol_x == 0.0 {
            return None;
        }
        let mean_h = mean(h.iter().copied(), h.len());
        let err = mean(h.iter().map(|v| (v - last).abs()), h.len());
        let o = Outcome {
            up: mean_h > last,
            naive_mase: err / steps,
            vol_ratio: std_of_diff(h) / vol_x,
        };
        (o.naive_mase.is_finite() && o.vol_ratio.is_finite()).then_some(o)
    }
}

fn mean(v: impl Iterator<Item = f64>, n: usize) -> f64 {
    v.sum::<f64>() / n as f64
}

/// The population standard deviation of the first differences (two passes).
fn std_of_diff(x: &[f64]) -> f64 {
    let n = x.len() - 1;
    let m = mean(x.windows(2).map(|w| w[1] - w[0]), n);
    mean(x.windows(2).map(|w| (w[1] - w[0] - m).powi(2)), n).sqrt()
}

/// numpy's default (`linear`) quantile `q` of `values`: the order statistic at `q·(n-1)`,
/// interpolated as numpy's `_lerp` does (from the upper neighbour for fractions ≥ 0.5), so
/// cut points equal numpy's to the bit.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let virt = q * (n - 1) as f64;
    let lo = (virt.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let t = virt - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

/// Tercile cut points of the train units' values: numpy's quantiles 1/3 and 2/3.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Terciles {
    pub q1: f64,
    pub q2: f64,
}

impl Terciles {
    pub fn of(values: &mut [f64]) -> Terciles {
        values.sort_by(f64::total_cmp);
        Terciles {
            q1: quantile(values, 1.0 / 3.0),
            q2: quantile(values, 2.0 / 3.0),
        }
    }

    /// 0 = low (< q1), 1 = mid (< q2), 2 = high.
    pub fn class(&self, v: f64) -> u32 {
        if v < self.q1 {
            0
        } else if v < self.q2 {
            1
        } else {
            2
        }
    }
}

pub const TERCILE_NAMES: [&str; 3] = ["low", "mid", "high"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_by_hand() {
        let x = [1.0, 2.0, 4.0];
        let h = [5.0, 3.0, 6.0];
        let o = Outcome::of(&x, &h).unwrap();
        assert!(o.up); // mean 14/3 > 4
                       // steps: mean(1, 2) = 1.5; error: mean(1, 1, 2) = 4/3.
        assert!((o.naive_mase - (4.0 / 3.0) / 1.5).abs() < 1e-15);
        // diff(x) = 1, 2: std 0.5; diff(h) = -2, 3: std 2.5.
        assert!((o.vol_ratio - 5.0).abs() < 1e-15);
        assert!(!Outcome::of(&x, &[4.0, 4.0]).unwrap().up);
    }

    #[test]
    fn constant_and_linear_inputs_are_left_out() {
        assert_eq!(Outcome::of(&[3.0; 8], &[1.0, 2.0]), None);
        assert_eq!(Outcome::of(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0]), None);
        assert_eq!(Outcome::of(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(Outcome::of(&[1.0, 3.0, 4.0], &[1.0, f64::NAN]), None);
    }

    #[test]
    fn quantiles_match_numpy() {
        // np.quantile(np.arange(10.0), [1/3, 2/3]) = [3.0, 6.0];
        // np.quantile([1.0, 2.0, 4.0, 8.0], [1/3, 2/3]) = [2.0, 4.0] (both exact);
        // np.quantile([0.0, 1.0], 2/3) = 0.6666666666666667 (upper neighbour: 1 - 1/3).
        let v: Vec<f64> = (0..10).map(f64::from).collect();
        let t = Terciles::of(&mut v.clone());
        assert_eq!((t.q1, t.q2), (3.0, 6.0));
        let t = Terciles::of(&mut [8.0, 1.0, 4.0, 2.0]);
        assert_eq!((t.q1, t.q2), (2.0, 4.0));
        assert_eq!(quantile(&[0.0, 1.0], 2.0 / 3.0), 1.0 - (1.0 - 2.0 / 3.0));
        assert_eq!(
            [t.class(1.9), t.class(2.0), t.class(3.9), t.class(4.0)],
            [0, 1, 1, 2]
        );
    }
}
