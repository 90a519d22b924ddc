//! A forecaster that sees only the series: ridge regression of each outcome on the
//! window's own values, fit on the train units of every channel pooled
//! (docs/score.md#what-the-prompt-adds-beyond-the-series). Its predicted classes are what a forecaster
//! reading the numbers already knows; the complementary bits `I(C; O | B̂)` are what a
//! claim tells beyond them.

use super::tiles::{cross_rows, gram_rows};
use super::Terciles;
use rayon::prelude::*;

/// Fit windows per window length: the fit reads one train window in
/// `ceil(T / (FIT_SPACING · stride))`, fit windows at most T/32 rows apart (every window
/// up to T = 32 or at a stride of T/32 rows or more, one in 16 at T = 512 and stride 1).
/// Windows that close share all but a few rows, so their claims barely differ, and each
/// configuration computes the features of a sixteenth of the train windows instead of
/// all of them (which doubled ETTh1's sweep; an eighth added a third). Windows farther
/// apart than that are all read: thinning them would throw away what they tell.
pub const FIT_SPACING: usize = 32;

/// Every k-th train window of a file is a fit window (counted from its first window), for
/// windows of `seq_len` rows `stride` rows apart.
pub fn fit_stride(seq_len: usize, stride: usize) -> usize {
    seq_len.div_ceil(FIT_SPACING * stride.max(1)).max(1)
}

/// One train window in how many the forecasters are fit on
/// (docs/score.md#what-the-prompt-adds-beyond-the-series): every one, unless a subset was
/// asked for above `subset_above` train units (windows whose horizon lies in train, ×
/// channels) and the data set has more; then one in [`fit_stride`] (windows
/// at most T/32 rows apart, the forecast gain's fit windows), counted from each file's
/// first window. Not the default: on a Traffic-shaped file the subset's naive_mase and
/// vol_ratio classes agree with the exact fit's on 38 % and 43 % of units (direction's on
/// 99.8 %), so the complementary bits for those outcomes are read against another guess.
pub fn fit_every(
    train_units: usize,
    seq_len: usize,
    stride: usize,
    subset_above: Option<usize>,
) -> usize {
    match subset_above {
        Some(n) if train_units > n => fit_stride(seq_len, stride),
        _ => 1,
    }
}

/// What the forecaster regresses on one unit: the window rescaled to its last value and
/// its mean step, `z = (x - x[T-1]) / s` with `s = mean|diff(x)|`, and a constant.
/// None where `s` is 0 (the unit has no outcome either).
pub fn inputs(x: &[f64], out: &mut Vec<f64>) -> Option<f64> {
    let t = x.len();
    let last = *x.last()?;
    let s = x.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / (t - 1) as f64;
    if !(s > 0.0 && s.is_finite()) {
        return None;
    }
    out.clear();
    out.extend(x.iter().map(|v| (v - last) / s));
    out.push(1.0);
    Some(s)
}

/// The three regression targets of a unit: `(mean(H) - x[T-1]) / s`, `ln naive_mase`,
/// `ln vol_ratio` (None where one is not finite: a horizon that never leaves the last
/// value, say).
pub fn targets(x: &[f64], h: &[f64], s: f64, o: &super::Outcome) -> Option<[f64; 3]> {
    let last = *x.last()?;
    let mean = h.iter().sum::<f64>() / h.len() as f64;
    let y = [(mean - last) / s, o.naive_mase.ln(), o.vol_ratio.ln()];
    y.iter().all(|v| v.is_finite()).then_some(y)
}

/// A unit's horizon as the horizon forecaster's targets: `(H - x[T-1]) / s`, P values
/// (docs/score.md#forecast-gain-beyond-the-series).
pub fn horizon_targets(x: &[f64], h: &[f64], s: f64, out: &mut Vec<f64>) {
    let last = x.last().copied().unwrap_or(0.0);
    out.clear();
    out.extend(h.iter().map(|v| (v - last) / s));
}

/// The normal equations' sums over the fitted units: `AᵀA` (upper triangle, row-major,
/// `(T+1)²`), `Aᵀy` per target, and `AᵀY` of the horizon's P targets (row-major,
/// `(T+1) × P`), A's rows being [`inputs`].
#[derive(Debug, Clone)]
pub struct Gram {
    dim: usize,
    pred_len: usize,
    ata: Vec<f64>,
    aty: [Vec<f64>; 3],
    aty_horizon: Vec<f64>,
    pub units: usize,
    /// Rows waiting to be added, a block at a time (a rank-k update reuses each row of
    /// `AᵀA` across the block).
    rows: Vec<f64>,
    ys: Vec<[f64; 3]>,
    horizons: Vec<f64>,
}

/// Rows added to the sums at a time.
const BLOCK: usize = 128;

impl Gram {
    /// For windows of `t` values and horizons of `pred_len`.
    pub fn new(t: usize, pred_len: usize) -> Gram {
        let dim = t + 1;
        Gram {
            dim,
            pred_len,
            ata: vec![0.0; dim * dim],
            aty: std::array::from_fn(|_| vec![0.0; dim]),
            aty_horizon: vec![0.0; dim * pred_len],
            units: 0,
            rows: Vec::with_capacity(BLOCK * dim),
            ys: Vec::with_capacity(BLOCK),
            horizons: Vec::with_capacity(BLOCK * pred_len),
        }
    }

    /// One fitted unit: its inputs (T + 1 values), targets and horizon targets (P values,
    /// [`horizon_targets`]).
    pub fn add(&mut self, a: &[f64], y: [f64; 3], horizon: &[f64]) {
        debug_assert_eq!(a.len(), self.dim);
        debug_assert_eq!(horizon.len(), self.pred_len);
        self.rows.extend_from_slice(a);
        self.ys.push(y);
        self.horizons.extend_from_slice(horizon);
        self.units += 1;
        if self.ys.len() == BLOCK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let (dim, k) = (self.dim, self.ys.len());
        if k == 0 {
            return;
        }
        // AᵀA += BᵀB for the block B of rows: four rows of AᵀA per task, each a strip of
        // register tiles (4 × 8 entries summed over the block's rows in registers).
        let rows = &self.rows;
        self.ata
            .par_chunks_mut(4 * dim)
            .enumerate()
            .for_each(|(t, out)| gram_rows(rows, dim, 4 * t, out));
        for (a, y) in self.rows.chunks_exact(dim).zip(&self.ys) {
            for (t, aty) in self.aty.iter_mut().enumerate() {
                for (o, v) in aty.iter_mut().zip(a) {
                    *o += y[t] * v;
                }
            }
        }
        // AᵀY += BᵀH for the block's horizons H: four rows of AᵀY per task, in register
        // tiles as AᵀA's.
        let (p, horizons) = (self.pred_len, &self.horizons);
        if p > 0 {
            self.aty_horizon
                .par_chunks_mut(4 * p)
                .enumerate()
                .for_each(|(t, out)| cross_rows(rows, dim, horizons, p, 4 * t, out));
        }
        self.rows.clear();
        self.ys.clear();
        self.horizons.clear();
    }

    /// The sums of another file's units.
    pub fn merge(&mut self, mut other: Gram) {
        other.flush();
        self.flush();
        for (a, b) in self.ata.iter_mut().zip(&other.ata) {
            *a += b;
        }
        for (a, b) in self.aty.iter_mut().zip(&other.aty) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        for (a, b) in self.aty_horizon.iter_mut().zip(&other.aty_horizon) {
            *a += b;
        }
        self.units += other.units;
    }
}

/// The fitted coefficients per target (T input weights and a constant), and the horizon
/// forecaster's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Forecaster {
    pub beta: [Vec<f64>; 3],
    pub horizon: HorizonForecaster,
}

/// The series-only forecaster of the whole horizon: the same ridge on the same units, P
/// targets `(H - x[T-1]) / s` (docs/score.md#forecast-gain-beyond-the-series).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HorizonForecaster {
    pub pred_len: usize,
    /// `(T+1) × P`, row-major: input `i`'s weight for step `p` at `i·P + p`.
    pub beta: Vec<f64>,
}

impl HorizonForecaster {
    /// The predicted targets of units whose inputs are `a` (rows of T + 1 values),
    /// written to `out` (rows of P): one product of the block with the coefficients.
    pub fn predict_into(&self, a: &[f64], out: &mut [f64]) {
        let p = self.pred_len;
        let dim = self.beta.len() / p.max(1);
        debug_assert_eq!(a.len() / dim.max(1), out.len() / p.max(1));
        out.fill(0.0);
        for (a, out) in a.chunks_exact(dim).zip(out.chunks_exact_mut(p)) {
            for (ai, b) in a.iter().zip(self.beta.chunks_exact(p)) {
                for (o, v) in out.iter_mut().zip(b) {
                    *o += ai * v;
                }
            }
        }
    }
}

impl Forecaster {
    /// Ridge regression: `(AᵀA + λ I_T) β = Aᵀy` with `λ = 1e-3 · trace(ZᵀZ) / T` (Z the T
    /// input columns; the constant is not penalised). None without fitted units.
    pub fn fit(mut g: Gram) -> Option<Forecaster> {
        g.flush();
        let (dim, t) = (g.dim, g.dim - 1);
        if g.units == 0 {
            return None;
        }
        let mut m = g.ata.clone();
        // The lower triangle from the upper.
        for i in 0..dim {
            for j in 0..i {
                m[i * dim + j] = m[j * dim + i];
            }
        }
        let trace: f64 = (0..t).map(|i| m[i * dim + i]).sum();
        let lambda = 1e-3 * trace / t as f64;
        for i in 0..t {
            m[i * dim + i] += lambda;
        }
        let l = cholesky(&m, dim)?;
        let p = g.pred_len;
        // Each step's column of AᵀY solved alone, then laid out row-major.
        let mut horizon = vec![0.0; dim * p];
        for step in 0..p {
            let column: Vec<f64> = (0..dim).map(|i| g.aty_horizon[i * p + step]).collect();
            for (i, v) in solve(&l, dim, &column).into_iter().enumerate() {
                horizon[i * p + step] = v;
            }
        }
        Some(Forecaster {
            beta: g.aty.map(|b| solve(&l, dim, &b)),
            horizon: HorizonForecaster {
                pred_len: p,
                beta: horizon,
            },
        })
    }

    /// The three predictions for one unit's inputs.
    pub fn predict(&self, a: &[f64]) -> [f64; 3] {
        // The three sums side by side, each in the inputs' order as `Iterator::sum` adds
        // (from -0.0): the same bits, three chains of dependent adds instead of one after
        // another (this runs for every scored unit and every fitted one).
        let [b0, b1, b2] = self.beta.each_ref();
        let n = a.len().min(b0.len()).min(b1.len()).min(b2.len());
        let mut s = [-0.0f64; 3];
        for i in 0..n {
            s[0] += b0[i] * a[i];
            s[1] += b1[i] * a[i];
            s[2] += b2[i] * a[i];
        }
        s
    }
}

/// The lower Cholesky factor of a symmetric positive definite `n × n` matrix.
pub(super) fn cholesky(m: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            if i == j {
                let d = m[i * n + i] - s;
                // Not positive, or NaN: not positive definite.
                if d.is_nan() || d <= 0.0 {
                    return None;
                }
                l[i * n + i] = d.sqrt();
            } else {
                l[i * n + j] = (m[i * n + j] - s) / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// `x` with `L Lᵀ x = b`.
pub(super) fn solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i * n + i];
    }
    x
}

/// How predictions become classes: up when the direction's prediction is > 0; the others
/// by the terciles of the train units' predictions.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ForecastClasses {
    pub naive_mase: Terciles,
    pub vol_ratio: Terciles,
}

impl ForecastClasses {
    /// The classes of a unit's three predictions (direction 0/1, terciles 0/1/2).
    pub fn of(&self, p: [f64; 3]) -> [u8; 3] {
        [
            u8::from(p[0] > 0.0),
            self.naive_mase.class(p[1]) as u8,
            self.vol_ratio.class(p[2]) as u8,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ridge_recovers_a_linear_rule() {
        // y = 2·a0 − a1 + 0.5, a tiny ridge: the fit is close to the rule.
        let mut g = Gram::new(2, 1);
        let mut x = 1u64;
        let mut r = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for _ in 0..1000 {
            let a = [r() * 10.0, r() * 10.0, 1.0];
            let y = 2.0 * a[0] - a[1] + 0.5;
            g.add(&a, [y, -y, 0.0], &[3.0 * y]);
        }
        let f = Forecaster::fit(g).unwrap();
        assert!((f.beta[0][0] - 2.0).abs() < 1e-2, "{:?}", f.beta[0]);
        assert!((f.beta[0][1] + 1.0).abs() < 1e-2);
        assert!((f.beta[0][2] - 0.5).abs() < 1e-2);
        let p = f.predict(&[1.0, 1.0, 1.0]);
        assert!((p[0] - 1.5).abs() < 1e-2 && (p[1] + 1.5).abs() < 1e-2);
        // The horizon's one step, 3y, from the same sums.
        let mut h = [0.0];
        f.horizon.predict_into(&[1.0, 1.0, 1.0], &mut h);
        assert!((h[0] - 4.5).abs() < 3e-2, "{h:?}");
    }

    #[test]
    fn cholesky_solves() {
        let m = [4.0, 2.0, 2.0, 3.0];
        let l = cholesky(&m, 2).unwrap();
        let x = solve(&l, 2, &[2.0, 1.0]);
        // 4x + 2y = 2, 2x + 3y = 1: x = 0.5, y = 0.
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15);
    }
}
