//! The inverse transforms: pywt's `idwt` and `waverec`, and the multiresolution analysis
//! (each band alone through `waverec`). Pure Rust on the CPU, f32 or f64; they run on a
//! window's worth of coefficients at a time (the app's bands view, `wavebench mra`,
//! `wavebench waverec`), where a kernel per engine would not pay.

use super::plan::{idwt_len, Plan};
use crate::numeric::real::Real;
use crate::wavelet::{Mode, Wavelet};
use rayon::prelude::*;

/// One level of pywt's `idwt`: `a` and `d` of equal length (either may be all zeros).
pub fn idwt<T: Real>(a: &[T], d: &[T], rec_lo: &[f64], rec_hi: &[f64], mode: Mode) -> Vec<T> {
    let n = a.len();
    let f = rec_lo.len();
    let m = idwt_len(n, f, mode);
    let mut out = vec![T::ZERO; m];
    if m == 0 {
        return out;
    }
    let lo: Vec<T> = rec_lo.iter().map(|&v| T::from_f64(v)).collect();
    let hi: Vec<T> = rec_hi.iter().map(|&v| T::from_f64(v)).collect();
    if mode == Mode::Periodization {
        // Upsample, filter, and wrap around the period 2n.
        let shift = (f / 2) as isize - 1;
        for i in 0..n {
            for j in 0..f {
                let t = (2 * i + j) as isize - shift;
                out[t.rem_euclid(m as isize) as usize] += a[i] * lo[j] + d[i] * hi[j];
            }
        }
    } else {
        // Upsample and filter, keeping the part not affected by the padding.
        for i in 0..n {
            for j in 0..f {
                let t = (2 * i + j) as isize - (f as isize - 2);
                if t >= 0 && (t as usize) < m {
                    out[t as usize] += a[i] * lo[j] + d[i] * hi[j];
                }
            }
        }
    }
    out
}

/// Why a list of bands cannot be inverted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InverseError {
    #[error("waverec needs at least 2 bands (cA_n and cD_n), got {0}")]
    TooFewBands(usize),
    #[error(
        "band {band} has {got} coefficients but the level above reconstructs {want} \
         (bands must be [cA_n, cD_n, ..., cD_1] of one decomposition)"
    )]
    Lengths {
        band: usize,
        got: usize,
        want: usize,
    },
}

/// Check that `[cA_n, cD_n, …, cD_1]` lengths chain as `waverec` needs (pywt's rule: the
/// approximation may be one longer than the next detail band, then it is trimmed).
pub fn check_band_lens(lens: &[usize], wavelet: &Wavelet, mode: Mode) -> Result<(), InverseError> {
    let filter_len = wavelet.rec_lo.len();
    if lens.len() < 2 {
        return Err(InverseError::TooFewBands(lens.len()));
    }
    let mut a = lens[0];
    for (band, &d) in lens.iter().enumerate().skip(1) {
        if a == d + 1 {
            a -= 1;
        }
        if a != d {
            return Err(InverseError::Lengths {
                band,
                got: d,
                want: a,
            });
        }
        a = idwt_len(d, filter_len, mode);
    }
    Ok(())
}

/// pywt's `waverec` over `[cA_n, cD_n, …, cD_1]` (lengths as `check_band_lens` accepts).
pub fn waverec<T: Real>(bands: &[&[T]], wavelet: &Wavelet, mode: Mode) -> Vec<T> {
    let mut a: Vec<T> = bands[0].to_vec();
    for d in &bands[1..] {
        if a.len() == d.len() + 1 {
            a.pop();
        }
        a = idwt(&a, d, &wavelet.rec_lo, &wavelet.rec_hi, mode);
    }
    a
}

/// Per-band reconstruction (multiresolution analysis) of one series' coefficients laid
/// out as `plan` says: band `k` alone through `waverec`, trimmed to the input length. The
/// components sum to the signal.
pub fn mra<T: Real>(coeffs: &[T], plan: &Plan) -> Vec<Vec<T>> {
    let offsets = &plan.offsets;
    let zeros: Vec<Vec<T>> = plan.band_lens.iter().map(|&l| vec![T::ZERO; l]).collect();
    (0..plan.bands())
        .map(|k| {
            let bands: Vec<&[T]> = (0..plan.bands())
                .map(|j| {
                    if j == k {
                        &coeffs[offsets[j]..offsets[j] + plan.band_lens[j]]
                    } else {
                        zeros[j].as_slice()
                    }
                })
                .collect();
            let mut rec = waverec(&bands, plan.wavelet, plan.mode);
            rec.truncate(plan.len);
            rec
        })
        .collect()
}

/// `mra` of every series in a batch of coefficients (series-major, `plan`'s layout), in
/// parallel: `out[s]` holds series `s`'s components, band-major, `plan.len` samples each.
pub fn mra_batch<T: Real>(coeffs: &[T], plan: &Plan) -> Vec<T> {
    let per = plan.coeffs_per_series();
    let width = plan.bands() * plan.len;
    let series = coeffs.len().checked_div(per).unwrap_or(0);
    let mut out = vec![T::ZERO; series * width];
    out.par_chunks_mut(width.max(1))
        .zip(coeffs.par_chunks(per.max(1)))
        .for_each(|(o, c)| {
            for (k, comp) in mra(c, plan).into_iter().enumerate() {
                o[k * plan.len..k * plan.len + comp.len()].copy_from_slice(&comp);
            }
        });
    out
}
