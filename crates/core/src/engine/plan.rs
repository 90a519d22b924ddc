//! A decomposition plan: everything about a (wavelet, mode, level, length) that does not
//! depend on the data, computed once and executed over many series (rustfft's "plan once,
//! execute many").
//!
//! Every DWT level is the same computation in every mode:
//!
//! ```text
//! out[o] = Σ_j  f[j] · xe[2o + j],   o in 0..n_out,  f = the decomposition filter reversed
//! ```
//!
//! where `xe` is the input extended by the mode. The plan says, for each position of `xe`,
//! which input samples it is made of: a plain copy in the interior, a few [`Tap`]s at the
//! edges. This matches pywt's `downsampling_convolution` (and its periodization variant,
//! which pads odd inputs with their last sample and starts at `F/2`).

use super::DType;
use crate::wavelet::{self, Mode, Tap, Wavelet};
use std::ops::Range;

/// One level of the forward transform.
#[derive(Debug, Clone)]
pub struct LevelPlan {
    pub n_in: usize,
    pub n_out: usize,
    /// `2 * n_out + F - 1` samples of the extended input.
    pub ext_len: usize,
    /// Positions of `xe` that copy `x[t - interior.start + src_start]` verbatim.
    pub interior: Range<usize>,
    pub src_start: usize,
    /// Every other position of `xe`, with its taps into the input (empty = zero).
    pub edges: Vec<(usize, Vec<Tap>)>,
}

impl LevelPlan {
    pub fn new(n_in: usize, filter_len: usize, mode: Mode) -> Self {
        let f = filter_len as isize;
        let n = n_in as isize;
        let n_out = wavelet::dwt_len(n_in, filter_len, mode);
        let ext_len = 2 * n_out + filter_len - 1;
        // Index into the (conceptually infinite) extended signal of xe[0].
        let (first, period_len) = if mode == Mode::Periodization {
            (f / 2 - f + 1, n + (n & 1))
        } else {
            (-(f - 2), n)
        };
        let taps_at = |k: isize| -> Vec<Tap> {
            if mode == Mode::Periodization {
                // pywt pads an odd input with its last sample, then wraps.
                let j = k.rem_euclid(period_len) as usize;
                vec![Tap {
                    index: j.min(n_in - 1),
                    coef: 1.0,
                }]
            } else {
                mode.extend(n_in, k)
            }
        };
        let lo = (-first).clamp(0, ext_len as isize) as usize;
        let hi = (n - first).clamp(lo as isize, ext_len as isize) as usize;
        let edges = (0..ext_len)
            .filter(|t| !(lo..hi).contains(t))
            .map(|t| (t, taps_at(first + t as isize)))
            .collect();
        LevelPlan {
            n_in,
            n_out,
            ext_len,
            interior: lo..hi,
            src_start: (lo as isize + first) as usize,
            edges,
        }
    }

    /// The whole input appears verbatim in the extension (`xe[interior] = x`), so a kernel
    /// can write its input straight there and only fill the edges.
    pub fn holds_input(&self) -> bool {
        self.src_start == 0 && self.interior.len() == self.n_in
    }
}

/// Why a plan cannot be made: input that pywt would refuse too.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum PlanError {
    #[error("series of length {len} is too short for mode '{mode}' (needs at least {min})")]
    TooShort { len: usize, mode: Mode, min: usize },
    #[error("level must be at least 1")]
    ZeroLevel,
    #[error("wavelet '{wavelet}' ({taps} taps) needs windows of at least {need} samples for level 1; these have {len}")]
    NoLevelFits {
        wavelet: &'static str,
        taps: usize,
        need: usize,
        len: usize,
    },
    #[error("level {level} is above the maximum level {max} for length {len} and wavelet '{wavelet}' (features need 1 <= level <= {max})")]
    AboveMaxLevel {
        level: usize,
        max: usize,
        len: usize,
        wavelet: &'static str,
    },
}

/// Features need a level the windows can hold: `1 <= level <= max_level(len)`
/// (docs/transform.md#levels). The one level rule; [`crate::transform::Transform`] and
/// the views read it.
pub fn check_level(wavelet: &'static Wavelet, level: usize, len: usize) -> Result<(), PlanError> {
    let max = wavelet.max_level(len);
    let name = wavelet.name.as_str();
    if max < 1 {
        let taps = wavelet.filter_length;
        return Err(PlanError::NoLevelFits {
            wavelet: name,
            taps,
            need: 2 * (taps - 1),
            len,
        });
    }
    if level > max {
        return Err(PlanError::AboveMaxLevel {
            level,
            max,
            len,
            wavelet: name,
        });
    }
    Ok(())
}

/// What a plan is made from: plans with equal keys are the same plan (so scratch sized
/// and filled for one serves the other).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlanKey {
    pub wavelet: &'static str,
    pub mode: Mode,
    pub level: usize,
    pub len: usize,
}

/// A full multilevel decomposition of series of one length.
#[derive(Debug, Clone)]
pub struct Plan {
    pub wavelet: &'static Wavelet,
    pub mode: Mode,
    pub level: usize,
    pub len: usize,
    pub levels: Vec<LevelPlan>,
    /// `[cA_n, cD_n, …, cD_1]` lengths, pywt order.
    pub band_lens: Vec<usize>,
    /// Where each band starts inside one series' concatenated coefficients.
    pub offsets: Vec<usize>,
    /// Decomposition filters reversed, so each level is a correlation.
    pub lo_rev: Vec<f64>,
    pub hi_rev: Vec<f64>,
}

impl Plan {
    /// The transform this plan computes.
    pub fn transform(&self) -> crate::transform::Transform {
        crate::transform::Transform {
            wavelet: self.wavelet,
            level: self.level,
            mode: self.mode,
        }
    }

    /// Features need a level these windows can hold ([`check_level`]).
    pub fn check_level(&self) -> Result<(), PlanError> {
        check_level(self.wavelet, self.level, self.len)
    }

    pub fn new(
        wavelet: &'static Wavelet,
        mode: Mode,
        level: usize,
        len: usize,
    ) -> Result<Self, PlanError> {
        if level == 0 {
            return Err(PlanError::ZeroLevel);
        }
        let f = wavelet.filter_length;
        let mut levels = Vec::with_capacity(level);
        let mut n = len;
        for _ in 0..level {
            if n < mode.min_input_len() {
                return Err(PlanError::TooShort {
                    len: n,
                    mode,
                    min: mode.min_input_len(),
                });
            }
            let lp = LevelPlan::new(n, f, mode);
            n = lp.n_out;
            levels.push(lp);
        }
        let band_lens = wavelet::band_lengths(len, f, mode, level);
        let offsets = band_lens.iter().scan(0, |acc, &l| {
            let o = *acc;
            *acc += l;
            Some(o)
        });
        Ok(Plan {
            offsets: offsets.collect(),
            wavelet,
            mode,
            level,
            len,
            band_lens,
            levels,
            lo_rev: wavelet.dec_lo.iter().rev().copied().collect(),
            hi_rev: wavelet.dec_hi.iter().rev().copied().collect(),
        })
    }

    /// The precision a batch of `dtype` is transformed in: f32 is widened to f64 in the
    /// extrapolating modes (see `Mode::extrapolates`), and rounded once at the end.
    pub fn work_dtype(&self, dtype: DType) -> DType {
        if self.mode.extrapolates() {
            DType::F64
        } else {
            dtype
        }
    }

    pub fn key(&self) -> PlanKey {
        PlanKey {
            wavelet: &self.wavelet.name,
            mode: self.mode,
            level: self.level,
            len: self.len,
        }
    }

    pub fn bands(&self) -> usize {
        self.level + 1
    }

    /// Coefficients per series, all bands together.
    pub fn coeffs_per_series(&self) -> usize {
        self.band_lens.iter().sum()
    }

    /// The longest extended input of any level (scratch size).
    pub fn max_ext_len(&self) -> usize {
        self.levels.iter().map(|l| l.ext_len).max().unwrap_or(0)
    }

    /// Samples at each end of band `k` that the signal extension reaches, i.e. whose
    /// value depends on the mode (the app shades them).
    pub fn boundary_width(&self, band: usize) -> usize {
        let f = self.wavelet.filter_length;
        // Band k comes from level (n - k + 1) for details, level n for the approximation;
        // each level adds (F - 2)/2 affected outputs and halves what came before.
        let lvl = if band == 0 {
            self.level
        } else {
            self.level + 1 - band
        };
        let mut w = 0usize;
        for _ in 0..lvl {
            w = (w + f - 1).div_ceil(2);
        }
        w.min(self.band_lens[band])
    }
}

/// The names of a level-`level` decomposition's bands, in pywt's order: `cA_n, cD_n, …,
/// cD_1`.
pub fn band_names(level: usize) -> Vec<String> {
    std::iter::once(format!("cA{level}"))
        .chain((1..=level).rev().map(|j| format!("cD{j}")))
        .collect()
}

/// Each band's frequency range in cycles per sample, in band order (cA_n, cD_n … cD_1):
/// cD_j holds [2^-(j+1), 2^-j], periods of 2^j to 2^(j+1) samples; cA_n holds
/// [0, 2^-(n+1)], periods above 2^(n+1). These are the ideal half-band splits; a real
/// filter's pass band overlaps its neighbours' near the edges.
pub fn band_frequencies(level: usize) -> Vec<[f64; 2]> {
    let half = |j: usize| 0.5f64.powi(j as i32);
    std::iter::once([0.0, half(level + 1)])
        .chain((1..=level).rev().map(|j| [half(j + 1), half(j)]))
        .collect()
}

/// Each band's periods as text, in band order: in the data's time units when its time
/// axis is a regular grid of dates (`step_ms`), else in samples ("8–16 samples"). A band
/// says both ends in one unit ([`period_span`]); the approximation, open above, says its
/// lower end (`> 16 h`).
pub fn band_periods(level: usize, step_ms: Option<f64>) -> Vec<String> {
    let step = step_ms.filter(|ms| *ms > 0.0);
    band_frequencies(level)
        .into_iter()
        .map(|[lo, hi]| {
            let short = 1.0 / hi;
            match (lo == 0.0, step) {
                (true, Some(ms)) => format!("> {}", crate::data::time::duration_text(short * ms)),
                (true, None) => format!("> {short} samples"),
                (false, Some(ms)) => period_span(short * ms, ms / lo),
                (false, None) => format!("{short}–{} samples", 1.0 / lo),
            }
        })
        .collect()
}

/// A band's periods `short..long` (milliseconds) in one unit: the largest unit in which
/// both ends are whole numbers under 1000 ("80–160 min", "32–64 h", "2–4 d"), else the
/// largest in which the short end is at least 1, to one decimal ("5.3–10.7 h"): never
/// "320 min–10.7 h".
pub fn period_span(short: f64, long: f64) -> String {
    use crate::data::time::DURATION_UNITS;
    let whole = |n: f64| (n - n.round()).abs() < 1e-6 * n.max(1.0);
    let number = |n: f64| {
        if whole(n) {
            format!("{}", n.round())
        } else {
            format!("{n:.1}")
        }
    };
    let (size, unit) = DURATION_UNITS
        .into_iter()
        .find(|&(size, _)| {
            let (a, b) = (short / size, long / size);
            a >= 1.0 && whole(a) && whole(b) && b < 1000.0
        })
        .or_else(|| {
            DURATION_UNITS
                .into_iter()
                .find(|&(size, _)| short / size >= 1.0)
        })
        .unwrap_or((1.0, "ms"));
    format!("{}–{} {unit}", number(short / size), number(long / size))
}

/// Inverse-transform geometry of one level: pywt's `idwt` output length.
pub fn idwt_len(n_coeffs: usize, filter_len: usize, mode: Mode) -> usize {
    if mode == Mode::Periodization {
        2 * n_coeffs
    } else {
        (2 * n_coeffs + 2).saturating_sub(filter_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_hold_octaves_in_the_datas_time_units() {
        assert_eq!(
            band_frequencies(2),
            vec![[0.0, 0.125], [0.125, 0.25], [0.25, 0.5]]
        );
        // weather: a sample every 10 minutes; cD1 holds periods of 2 to 4 samples.
        let weather = band_periods(3, Some(600_000.0));
        assert_eq!(
            weather,
            ["> 160 min", "80–160 min", "40–80 min", "20–40 min"]
        );
        // One unit a band: at level 5, cD5 holds 32 to 64 steps of 10 minutes.
        let deep = band_periods(7, Some(600_000.0));
        assert_eq!(deep[3], "320–640 min");
        assert_eq!(deep[2], "10.7–21.3 h");
        assert_eq!(deep[1], "21.3–42.7 h");
        assert_eq!(deep[0], "> 42.7 h");
        assert_eq!(period_span(2.0 * 86_400_000.0, 4.0 * 86_400_000.0), "2–4 d");
        // ETTh1: hourly; cD3 holds 8 to 16 hours.
        assert_eq!(band_periods(3, Some(3_600_000.0))[1], "8–16 h");
        assert_eq!(band_periods(1, None), ["> 4 samples", "2–4 samples"]);
        // Whole days where they are whole.
        assert_eq!(band_periods(5, Some(3_600_000.0))[1], "32–64 h");
        assert_eq!(crate::data::time::duration_text(48.0 * 3_600_000.0), "2 d");
    }
}
