//! Is a prompt settled? Features computed from band moments that are only known within a
//! bound (`engine::sliding`) give the per-window path's prompt when every decision the
//! prompt's text depends on — each description's thresholds, each printed rounding — lies
//! further from its boundary than the bound can move it. Otherwise the group goes back to
//! the per-window path.

use super::{energy_ratios_into, Features};
use crate::engine::{BandSummary, SeriesSummary, SeriesTol};

/// The most bands a group is settled with here (a level of 15); one with more is
/// computed again per window.
const MAX_BANDS: usize = 16;

/// What a prompt's text reads of the wavelet features.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    /// A wavelet feature's number itself (an energy ratio, a std…), whose every digit only
    /// the per-window path gives.
    pub numbers: bool,
    pub pattern: bool,
    pub trend: bool,
    pub quality: bool,
    pub difficulty: bool,
    pub stability: bool,
    /// Which band holds the most energy (`dominant_band`: a sweep's claim), also where
    /// two bands are close.
    pub dominant: bool,
    /// `snr_db` to one decimal and `energy_entropy` to two (the detailed template).
    pub snr_1dp: bool,
    pub entropy_2dp: bool,
}

impl Reads {
    /// Time-LLM's prompt: statistics only.
    pub const NOTHING: Reads = Reads {
        numbers: false,
        pattern: false,
        trend: false,
        quality: false,
        difficulty: false,
        stability: false,
        dominant: false,
        snr_1dp: false,
        entropy_2dp: false,
    };

    /// The descriptions of the seed's templates.
    pub const DESCRIPTIONS: Reads = Reads {
        pattern: true,
        trend: true,
        quality: true,
        difficulty: true,
        ..Reads::NOTHING
    };

    /// What a template reads, from the names of the variables it uses.
    pub fn of_variables<'a>(names: impl IntoIterator<Item = &'a str>) -> Reads {
        let mut r = Reads::NOTHING;
        for name in names {
            match name {
                "freq_pattern" => r.pattern = true,
                "trend_desc" => r.trend = true,
                "signal_quality" => r.quality = true,
                "difficulty" => r.difficulty = true,
                "stability_desc" => r.stability = true,
                "dominant_band" => r.dominant = true,
                // Statistics, settings and the flag (read from the data) are exact on
                // every path.
                "min" | "max" | "median" | "trend" | "lags" | "description" | "seq_len"
                | "pred_len" | "degenerate" | "lags_clean" => {}
                _ => r.numbers = true,
            }
        }
        r
    }

    /// What either reads.
    pub fn union(self, o: Reads) -> Reads {
        Reads {
            numbers: self.numbers || o.numbers,
            pattern: self.pattern || o.pattern,
            trend: self.trend || o.trend,
            quality: self.quality || o.quality,
            difficulty: self.difficulty || o.difficulty,
            stability: self.stability || o.stability,
            dominant: self.dominant || o.dominant,
            snr_1dp: self.snr_1dp || o.snr_1dp,
            entropy_2dp: self.entropy_2dp || o.entropy_2dp,
        }
    }

    pub fn any(&self) -> bool {
        *self != Reads::NOTHING
    }
}

/// `|x - edge| > tol`, so `x` and every value within `tol` of it compare alike with `edge`.
fn clear(x: f64, edge: f64, tol: f64) -> bool {
    (x - edge).abs() > tol
}

/// An upper bound on `|ln x|` for a normal `x > 0`, from its binary exponent alone (at
/// most `ln 2` above): a bound is all the margin needs, and it takes no logarithm per band
/// of every series.
fn abs_ln_bound(x: f64) -> f64 {
    // x = m · 2^e with 1 ≤ m < 2: ln x lies in [e ln 2, (e + 1) ln 2).
    let e = ((x.to_bits() >> 52) & 0x7ff) as f64 - 1023.0;
    std::f64::consts::LN_2 * if x <= 1.0 { -e } else { e + 1.0 }
}

/// `x` and every value within `tol` of it print alike with `decimals` decimals.
fn rounds_alike(x: f64, decimals: i32, tol: f64) -> bool {
    let s = x * 10f64.powi(decimals);
    let frac = s - s.floor();
    // A little slack for the rounding of this test itself.
    (frac - 0.5).abs() / 10f64.powi(decimals) > tol + 1e-12 * x.abs().max(1.0)
}

/// How far the group's bounds can move what the prompt's words decide on, gathered in
/// one pass over the group. Fixed arrays on the stack: this runs for every prompt of a
/// sliding run. Past MAX_BANDS the group simply goes back to the per-window path.
struct Margins {
    bands: usize,
    /// The bound on the energy entropy.
    tol_entropy: f64,
    /// The bound on each band's energy ratio.
    tol_ratio: [f64; MAX_BANDS],
    /// Whether in some window the largest ratio could be another band's.
    ambiguous: bool,
    /// Whether each band's rise (last minus first, summed) keeps its sign.
    signs_settled: bool,
    /// Each band's moments pooled over the group.
    pooled: [BandSummary; MAX_BANDS],
    /// The bound on each pooled band's Σ(c - mean)².
    tol_m2: [f64; MAX_BANDS],
}

impl Margins {
    /// The group's margins over `bands` bands; None where the group cannot be settled
    /// here (a series with other bands, or an energy within its bound of zero).
    #[inline(always)]
    fn of(group: &[SeriesSummary], tols: &[SeriesTol], bands: usize) -> Option<Margins> {
        let m = group.len() as f64;
        let mut tol_entropy = 0.0;
        let mut tol_ratio = [0.0; MAX_BANDS];
        let mut ambiguous = false;
        let mut rises = [0.0; MAX_BANDS];
        let mut tol_rises = [0.0; MAX_BANDS];
        let mut tol_energy = [0.0; MAX_BANDS];
        let mut tol_sum = [0.0; MAX_BANDS];
        let mut pooled = [BandSummary::default(); MAX_BANDS];
        let mut r = [0.0; MAX_BANDS];
        let mut tr = [0.0; MAX_BANDS];
        for (s, t) in group.iter().zip(tols) {
            if s.bands.len() != bands || t.bands.len() != bands {
                return None;
            }
            let total: f64 = s.bands.iter().map(|b| b.energy).sum();
            let tol_total: f64 = t.bands.iter().map(|b| b.energy).sum();
            // Near zero energy the ratios switch to uniform (and 1e-10 floors the total).
            if total - tol_total <= 2e-10 {
                return None;
            }
            let (r, tr) = (&mut r[..bands], &mut tr[..bands]);
            energy_ratios_into(&s.bands, r);
            for ((tr, r), b) in tr.iter_mut().zip(r.iter()).zip(&t.bands) {
                *tr = (b.energy + r * tol_total) / (total - tol_total);
            }
            // |Δ(-p ln p)| ≤ max |1 + ln p| over the interval, times its width.
            tol_entropy += r
                .iter()
                .zip(tr.iter())
                .map(|(&r, &t)| (abs_ln_bound((r - t).max(1e-10)) + 1.0) * t)
                .sum::<f64>()
                / m;
            let top = (0..bands).fold(0, |b, k| if r[k] > r[b] { k } else { b });
            ambiguous |= (0..bands).any(|k| k != top && r[top] - r[k] <= tr[top] + tr[k]);
            for k in 0..bands {
                tol_ratio[k] += tr[k] / m;
                rises[k] += s.bands[k].last - s.bands[k].first;
                tol_rises[k] += 2.0 * t.delta;
                tol_energy[k] += t.bands[k].energy;
                tol_sum[k] += t.bands[k].sum;
                pooled[k] = pooled[k].pooled(&s.bands[k]);
            }
        }
        let signs_settled = (0..bands).all(|k| clear(rises[k], 0.0, tol_rises[k]));
        // Σ(c - mean)² over the pooled coefficients = Σc² - (Σc)²/N, and its bound.
        let mut tol_m2 = [0.0; MAX_BANDS];
        for (k, tol) in tol_m2[..bands].iter_mut().enumerate() {
            let n = pooled[k].len.max(1) as f64;
            let sum = (pooled[k].mean * n).abs();
            *tol = tol_energy[k] + (2.0 * sum * tol_sum[k] + tol_sum[k] * tol_sum[k]) / n;
        }
        Some(Margins {
            bands,
            tol_entropy,
            tol_ratio,
            ambiguous,
            signs_settled,
            pooled,
            tol_m2,
        })
    }

    /// Relative bound on band `k`'s std², None when the std could be zero.
    fn rel_var(&self, k: usize) -> Option<f64> {
        (self.pooled[k].m2 > self.tol_m2[k])
            .then(|| self.tol_m2[k] / (self.pooled[k].m2 - self.tol_m2[k]))
    }

    /// The bound on the SNR in dB (from the first and last bands), None when either std
    /// could be zero.
    fn snr_tol(&self) -> Option<f64> {
        match (self.rel_var(0), self.rel_var(self.bands - 1)) {
            (Some(a), Some(b)) => Some(10.0 / std::f64::consts::LN_10 * (a + b)),
            _ => None,
        }
    }

    /// Whether the frequency pattern's words (entropy, dominant share, the named band)
    /// stand within the margins.
    fn pattern_settled(&self, f: &Features) -> bool {
        let tol_dom = self.tol_ratio.get(f.dominant_band).copied().unwrap_or(0.0);
        let named = |k: usize| f.energy_ratio[k] + self.tol_ratio[k] > 0.7;
        clear(f.energy_entropy, 0.5, self.tol_entropy)
            && clear(f.energy_entropy, 1.0, self.tol_entropy)
            && clear(f.dominant_energy, 0.7, tol_dom)
            && !(self.ambiguous && (0..self.bands).any(named))
    }

    /// Whether what `reads` reads of the SNR, the difficulty and the stability stands
    /// within the margins.
    fn spread_settled(&self, f: &Features, reads: &Reads) -> bool {
        let Some(snr_tol) = self.snr_tol() else {
            return false;
        };
        if reads.quality && !(clear(f.snr_db, 10.0, snr_tol) && clear(f.snr_db, 20.0, snr_tol)) {
            return false;
        }
        if reads.snr_1dp && !rounds_alike(f.snr_db, 1, snr_tol) {
            return false;
        }
        if reads.difficulty {
            // Consistency is exact once the signs are; the sigmoid's slope is at most 1/20.
            let n = self.bands.saturating_sub(1).max(1) as f64;
            let tol = 35.0 * self.tol_entropy / (n + 1.0).ln() + 25.0 / 20.0 * snr_tol;
            if !self.signs_settled
                || !clear(f.difficulty_score, 15.0, tol)
                || !clear(f.difficulty_score, 30.0, tol)
            {
                return false;
            }
        }
        !reads.stability || self.stability_settled(f)
    }

    /// Whether the stability words (the volatility ratio's bands, the middle bands' std
    /// against the outer ones') stand within the margins.
    fn stability_settled(&self, f: &Features) -> bool {
        let last = self.bands - 1;
        let (Some(a), Some(b)) = (self.rel_var(0), self.rel_var(last)) else {
            return false;
        };
        let tol = f.volatility_ratio * 0.5 * (a + b) * 1.01;
        if [0.5, 2.0, 5.0]
            .iter()
            .any(|&e| !clear(f.volatility_ratio, e, tol))
        {
            return false;
        }
        if self.bands <= 3 {
            return true;
        }
        let std_tol = |k: usize| self.rel_var(k).map(|r| f.band_stds[k] * 0.5 * r * 1.01);
        let mut tol_mids = 0.0;
        for k in 1..last {
            let Some(t) = std_tol(k) else {
                return false;
            };
            tol_mids += t;
        }
        let (Some(t0), Some(tn)) = (std_tol(0), std_tol(last)) else {
            return false;
        };
        let mid = f.band_stds[1..last].iter().sum::<f64>() / (last - 1) as f64;
        let tol_mid = tol_mids / (last - 1) as f64;
        clear(mid, f.band_stds[0], tol_mid + t0) && clear(mid, f.band_stds[last], tol_mid + tn)
    }
}

/// Whether `f`, computed from `group` whose moments are within `tols` of the per-window
/// path's, reads the same as the per-window path's features for everything in `reads`.
pub fn settled(group: &[SeriesSummary], tols: &[SeriesTol], f: &Features, reads: &Reads) -> bool {
    if reads.numbers {
        return false;
    }
    if !reads.any() {
        return true;
    }
    let bands = f.energy_ratio.len();
    if group.is_empty() || group.len() != tols.len() || bands > MAX_BANDS {
        return false;
    }
    let Some(margins) = Margins::of(group, tols, bands) else {
        return false;
    };
    if reads.pattern && !margins.pattern_settled(f) {
        return false;
    }
    if reads.dominant && margins.ambiguous {
        return false;
    }
    if reads.trend && !margins.signs_settled {
        return false;
    }
    let spread = reads.quality || reads.difficulty || reads.snr_1dp || reads.stability;
    if spread && !margins.spread_settled(f, reads) {
        return false;
    }
    !reads.entropy_2dp || rounds_alike(f.energy_entropy, 2, margins.tol_entropy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundings_near_a_half_are_not_settled() {
        assert!(rounds_alike(12.32, 1, 0.01));
        assert!(!rounds_alike(12.349, 1, 0.01));
        assert!(!rounds_alike(-0.751, 2, 0.01));
        assert!(rounds_alike(60.0, 1, 0.04));
    }

    #[test]
    fn the_log_bound_bounds_the_log() {
        for x in [1e-10, 3e-7, 0.1, 0.25, 0.3, 0.5, 0.999, 1.0, 1.5, 2.0, 7.3] {
            let (b, exact) = (abs_ln_bound(x), f64::ln(x).abs());
            assert!(
                b >= exact && b <= exact + std::f64::consts::LN_2,
                "{x}: {b} vs {exact}"
            );
        }
    }

    #[test]
    fn template_variables_map_to_reads() {
        assert_eq!(
            Reads::of_variables(["min", "lags", "description"]),
            Reads::NOTHING
        );
        let r = Reads::of_variables(["freq_pattern", "median"]);
        assert!(r.pattern && !r.numbers && !r.trend);
        assert!(Reads::of_variables(["energy_ratio"]).numbers);
    }
}
