//! The circular autocorrelation `irfft(|rfft(x)|²)` of a series, planned once per length:
//! through complex FFTs of half the length for even lengths, `realfft` otherwise.

use crate::numeric::Real;
use realfft::{num_complex::Complex, ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftPlanner};
use std::sync::{Arc, Mutex, OnceLock};

/// How a series' circular autocorrelation `irfft(|rfft(x)|²)` is computed.
pub(super) enum Autocorrelation {
    /// Even lengths: one complex FFT of half the length each way.
    Half(HalfLength),
    /// Odd lengths (the inverse is one shorter than the series) and length 2.
    Real(RealLength),
}

/// Plan once per length for the whole process, execute many: every task of every run
/// (and every call from Python) makes a scratch, and planning computes twiddles with
/// sin/cos each time.
fn planned<P, R>(
    planner: &'static OnceLock<Mutex<P>>,
    make: fn() -> P,
    plan: impl FnOnce(&mut P) -> R,
) -> R {
    let mut planner = planner
        .get_or_init(|| Mutex::new(make()))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    plan(&mut planner)
}

/// The autocorrelation of an even length n = 2N through complex FFTs of length N.
///
/// The samples pair up as `z_j = x_2j + i x_2j+1`; from `Z = FFT_N(z)`, bins `k` and
/// `m = N - k` of the power spectrum `P = |rfft(x)|²` are `|E ± t O|²` with `E`, `O` the
/// spectra of the even and odd samples and `t = e^(-2πik/n)`. The inverse of a real,
/// even spectrum packs the same way, `w = IFFT_N(W)` with `w_j = r_2j + i r_2j+1` and
/// `W_k = (P_k + P_m) + i e^(2πik/n) (P_k - P_m)`. Both meet in one pass over the pairs:
/// with `p = |Z_k|²`, `q = |Z_m|²`, `h = 2 Im(Z_k Z_m)` and `D = h cos θ - (p - q) sin θ`,
/// `W_k = (p + q - D sin θ) + i D cos θ` and `W_m = (p + q + D sin θ) + i D cos θ`.
/// Against `realfft` (which pre- and post-processes around each complex FFT, and makes the
/// n/2 + 1 spectrum in between) this is one short pass instead of three.
pub(super) struct HalfLength {
    plan: Arc<HalfPlan>,
    buf: Vec<Complex<f64>>,
    scratch: Vec<Complex<f64>>,
}

/// What [`HalfLength`] needs of a length n, made once per length for the process.
struct HalfPlan {
    forward: Arc<dyn Fft<f64>>,
    inverse: Arc<dyn Fft<f64>>,
    /// `cos θ_k` and `sin θ_k`, `θ_k = 2πk/n`, for k in 0..=N/2.
    cos: Vec<f64>,
    sin: Vec<f64>,
}

/// The FFT planner and the [`HalfPlan`]s made so far.
struct HalfPlanner {
    ffts: FftPlanner<f64>,
    plans: std::collections::HashMap<usize, Arc<HalfPlan>>,
}

impl HalfPlanner {
    pub(super) fn new() -> Self {
        HalfPlanner {
            ffts: FftPlanner::new(),
            plans: Default::default(),
        }
    }

    fn plan(&mut self, n: usize) -> Arc<HalfPlan> {
        let ffts = &mut self.ffts;
        self.plans
            .entry(n)
            .or_insert_with(|| {
                let half = n / 2;
                let (cos, sin) = (0..=half / 2)
                    .map(|k| match 4 * k == n {
                        true => (0.0, 1.0), // θ = π/2 exactly, where cos would round to 6e-17
                        false => {
                            let (sin, cos) =
                                (2.0 * std::f64::consts::PI * k as f64 / n as f64).sin_cos();
                            (cos, sin)
                        }
                    })
                    .unzip();
                Arc::new(HalfPlan {
                    forward: ffts.plan_fft_forward(half),
                    inverse: ffts.plan_fft_inverse(half),
                    cos,
                    sin,
                })
            })
            .clone()
    }
}

impl HalfLength {
    pub(super) fn new(n: usize) -> Self {
        static PLANNER: OnceLock<Mutex<HalfPlanner>> = OnceLock::new();
        let plan = planned(&PLANNER, HalfPlanner::new, |p| p.plan(n));
        let scratch = plan
            .forward
            .get_inplace_scratch_len()
            .max(plan.inverse.get_inplace_scratch_len());
        HalfLength {
            buf: vec![Complex::default(); n / 2],
            scratch: vec![Complex::default(); scratch],
            plan,
        }
    }

    /// The autocorrelation r of `x` (n values, unnormalised).
    pub(super) fn autocorrelation<T: Real>(&mut self, x: &[T]) -> &[f64] {
        #[cfg(target_arch = "x86_64")]
        if crate::numeric::simd::Isa::active() >= crate::numeric::simd::Isa::Avx2 {
            // SAFETY: the CPU has AVX2 and FMA (`Isa::active` checks them).
            unsafe { x86::half_length(self, x) };
            return self.reals();
        }
        self.run::<T, false>(x);
        self.reals()
    }

    /// The inverse's output as the n reals it interleaves (`w_j = r_2j + i r_2j+1`), read
    /// in place: copying them out was a twentieth of the transform.
    fn reals(&self) -> &[f64] {
        // SAFETY: Complex<f64> is repr(C), two f64s without padding, so N of them are 2N
        // f64s in order, borrowed for as long as `self`.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<f64>(), 2 * self.buf.len()) }
    }

    /// Everything but the FFTs is short loops, compiled in the caller's frame (AVX2 when
    /// it has it: outside it, packing the samples alone was a twentieth of a prompt).
    #[inline(always)]
    fn run<T: Real, const AVX2: bool>(&mut self, x: &[T]) {
        for (z, pair) in self.buf.iter_mut().zip(x.chunks_exact(2)) {
            *z = Complex::new(pair[0].to_f64(), pair[1].to_f64());
        }
        let plan = &*self.plan;
        plan.forward
            .process_with_scratch(&mut self.buf, &mut self.scratch);
        spectrum_pairs::<AVX2>(&mut self.buf, &plan.cos, &plan.sin);
        plan.inverse
            .process_with_scratch(&mut self.buf, &mut self.scratch);
    }
}

/// `Z` into `W` in place (see [`HalfLength`]); `cos` and `sin` for bins 0..=N/2.
/// `AVX2`: four pairs a vector (the caller's frame must have AVX2).
#[inline(always)]
fn spectrum_pairs<const AVX2: bool>(buf: &mut [Complex<f64>], cos: &[f64], sin: &[f64]) {
    let half = buf.len();
    let pair = |zk: Complex<f64>, zm: Complex<f64>, cos: f64, sin: f64| {
        let (p, q) = (zk.norm_sqr(), zm.norm_sqr());
        let h = 2.0 * (zk.re * zm.im + zk.im * zm.re);
        let d = h * cos - (p - q) * sin;
        (
            Complex::new(p + q - d * sin, d * cos),
            Complex::new(p + q + d * sin, d * cos),
        )
    };
    // Bins 0 and N/2 pair with themselves (the formula for m assumes m ≠ k).
    buf[0] = pair(buf[0], buf[0], cos[0], sin[0]).0;
    if half.is_multiple_of(2) {
        let mid = half / 2;
        buf[mid] = pair(buf[mid], buf[mid], cos[mid], sin[mid]).0;
    }
    // The others: bin k of the lower half with bin N - k of the upper.
    let (lower, upper) = buf.split_at_mut(half / 2 + 1);
    let pairs = upper.len();
    assert!(
        cos.len() > pairs && sin.len() > pairs,
        "spectrum_pairs: twiddles"
    );
    let (lower, cos, sin) = (&mut lower[1..=pairs], &cos[1..=pairs], &sin[1..=pairs]);
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: the caller's frame has AVX2 (`AVX2`); the slices have one length.
        done = unsafe { x86::spectrum_pairs(lower, upper, cos, sin) };
    }
    for i in done..pairs {
        let m = pairs - 1 - i;
        (lower[i], upper[m]) = pair(lower[i], upper[m], cos[i], sin[i]);
    }
}

/// The autocorrelation through real FFTs (`realfft`), for the lengths `HalfLength` does
/// not take.
pub(super) struct RealLength {
    forward: Arc<dyn RealToComplex<f64>>,
    inverse: Option<Arc<dyn ComplexToReal<f64>>>,
    input: Vec<f64>,
    spectrum: Vec<Complex<f64>>,
    corr: Vec<f64>,
    scratch: Vec<Complex<f64>>,
}

impl RealLength {
    pub(super) fn new(len: usize) -> Self {
        static PLANNER: OnceLock<Mutex<RealFftPlanner<f64>>> = OnceLock::new();
        let n = 2 * (len / 2);
        let (forward, inverse) = planned(&PLANNER, RealFftPlanner::new, |p| {
            (
                p.plan_fft_forward(len.max(1)),
                (n > 0).then(|| p.plan_fft_inverse(n)),
            )
        });
        let scratch_len = forward
            .get_scratch_len()
            .max(inverse.as_ref().map_or(0, |i| i.get_scratch_len()));
        RealLength {
            input: forward.make_input_vec(),
            spectrum: forward.make_output_vec(),
            corr: vec![0.0; n],
            scratch: vec![Complex::default(); scratch_len],
            forward,
            inverse,
        }
    }

    /// The autocorrelation r of `x` (T - 1 values for odd T, unnormalised); None when
    /// there is no lag but 0 (one sample).
    pub(super) fn autocorrelation<T: Real>(&mut self, x: &[T]) -> Option<&[f64]> {
        let Some(inverse) = &self.inverse else {
            return None;
        };
        for (i, v) in self.input.iter_mut().zip(x) {
            *i = v.to_f64();
        }
        // The planned sizes match the buffers by construction; these cannot fail.
        let _ = self.forward.process_with_scratch(
            &mut self.input,
            &mut self.spectrum,
            &mut self.scratch,
        );
        for c in self.spectrum.iter_mut() {
            *c = Complex::new(c.norm_sqr(), 0.0);
        }
        let n = self.corr.len();
        // Inverse length n uses bins 0..=n/2; the rfft of T gave exactly that many.
        let _ = inverse.process_with_scratch(
            &mut self.spectrum[..n / 2 + 1],
            &mut self.corr,
            &mut self.scratch,
        );
        Some(&self.corr)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// `HalfLength::run` compiled for AVX2 (the same operations, so the same bits).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn half_length<T: Real>(h: &mut HalfLength, x: &[T]) {
        h.run::<T, true>(x)
    }

    /// The pairs of `super::spectrum_pairs` four at a time: pair i is `lower[i]` with
    /// `upper[len - 1 - i]`. Returns how many were done (a multiple of 4). The same
    /// operations as the scalar formula, unfused, so the same bits.
    ///
    /// # Safety
    /// AVX2 must be available (the caller's frame); the four slices have one length.
    #[inline(always)]
    pub unsafe fn spectrum_pairs(
        lower: &mut [Complex<f64>],
        upper: &mut [Complex<f64>],
        cos: &[f64],
        sin: &[f64],
    ) -> usize {
        use std::arch::x86_64::*;
        let pairs = lower.len();
        assert!(
            upper.len() == pairs && cos.len() == pairs && sin.len() == pairs,
            "spectrum_pairs: lengths"
        );
        let full = pairs / 4 * 4;
        // Complex<f64> is two f64s (repr(C)), so the slices are runs of f64.
        let lo = lower.as_mut_ptr().cast::<f64>();
        let up = upper.as_mut_ptr().cast::<f64>();
        let swap = |v: __m256d| _mm256_permute2f128_pd::<0x01>(v, v);
        // Lanes hold pairs i, i+2, i+1, i+3 after the unpacks; the twiddles follow suit.
        let order = |p: *const f64| _mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_loadu_pd(p));
        let two = _mm256_set1_pd(2.0);
        let mut i = 0;
        while i < full {
            let base = pairs - 4 - i; // upper[base..base + 4] pairs with i + 3 ..= i
            let (a0, a1) = (
                _mm256_loadu_pd(lo.add(2 * i)),
                _mm256_loadu_pd(lo.add(2 * i + 4)),
            );
            let m01 = swap(_mm256_loadu_pd(up.add(2 * base + 4)));
            let m23 = swap(_mm256_loadu_pd(up.add(2 * base)));
            let (kr, ki) = (_mm256_unpacklo_pd(a0, a1), _mm256_unpackhi_pd(a0, a1));
            let (mr, mi) = (_mm256_unpacklo_pd(m01, m23), _mm256_unpackhi_pd(m01, m23));
            let (c, s) = (order(cos.as_ptr().add(i)), order(sin.as_ptr().add(i)));
            let p = _mm256_add_pd(_mm256_mul_pd(kr, kr), _mm256_mul_pd(ki, ki));
            let q = _mm256_add_pd(_mm256_mul_pd(mr, mr), _mm256_mul_pd(mi, mi));
            let h = _mm256_mul_pd(
                two,
                _mm256_add_pd(_mm256_mul_pd(kr, mi), _mm256_mul_pd(ki, mr)),
            );
            let d = _mm256_sub_pd(_mm256_mul_pd(h, c), _mm256_mul_pd(_mm256_sub_pd(p, q), s));
            let (pq, ds, im) = (
                _mm256_add_pd(p, q),
                _mm256_mul_pd(d, s),
                _mm256_mul_pd(d, c),
            );
            let (wk, wm) = (_mm256_sub_pd(pq, ds), _mm256_add_pd(pq, ds));
            _mm256_storeu_pd(lo.add(2 * i), _mm256_unpacklo_pd(wk, im));
            _mm256_storeu_pd(lo.add(2 * i + 4), _mm256_unpackhi_pd(wk, im));
            _mm256_storeu_pd(up.add(2 * base + 4), swap(_mm256_unpacklo_pd(wm, im)));
            _mm256_storeu_pd(up.add(2 * base), swap(_mm256_unpackhi_pd(wm, im)));
            i += 4;
        }
        full
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::lags::rank_lags;
    use crate::stats::StatsScratch;

    /// `Σ_t x_t x_(t+k mod n)`, straight from the definition.
    fn direct_autocorrelation(x: &[f64]) -> Vec<f64> {
        let n = x.len();
        (0..n)
            .map(|k| (0..n).map(|t| x[t] * x[(t + k) % n]).sum())
            .collect()
    }

    #[test]
    fn half_length_transform_gives_the_autocorrelation() {
        let mut bits = crate::testing::xorshift(0x853c_49e6_748f_ea9b);
        let mut next = move || (bits() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
        // Even N and odd N, powers of two and not, an offset series.
        for n in [4, 6, 8, 10, 12, 16, 30, 64, 96, 100, 256, 336, 512, 720] {
            let x: Vec<f64> = (0..n)
                .map(|t| next() + 0.3 * (t as f64 * 0.7).sin() + 2.0)
                .collect();
            // Both transforms are unnormalised (n times the sums; the ranking uses ratios).
            let want: Vec<f64> = direct_autocorrelation(&x)
                .iter()
                .map(|r| r * n as f64)
                .collect();
            let (mut half, mut real) = (HalfLength::new(n), RealLength::new(n));
            let a = half.autocorrelation(&x).to_vec();
            let b = real.autocorrelation(&x).expect("n > 1").to_vec();
            assert_eq!((a.len(), b.len()), (want.len(), want.len()));
            let tol = 1e-12 * want[0];
            for k in 0..n {
                assert!(
                    (a[k] - want[k]).abs() <= tol,
                    "n {n}, lag {k}: {} vs {}",
                    a[k],
                    want[k]
                );
                assert!((b[k] - want[k]).abs() <= tol, "n {n}, lag {k}: realfft");
            }
            // The vector pair pass gives the scalar one's bits.
            half.run::<f64, false>(&x);
            let plain = half.reals();
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                plain.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "n {n}"
            );
            // Both paths rank the same lags (no near-ties in these series).
            let (mut sa, mut sb) = (Vec::new(), Vec::new());
            assert_eq!(
                rank_lags(&a, &mut sa, false),
                rank_lags(&b, &mut sb, false),
                "n {n}"
            );
            assert_eq!(
                rank_lags(&a, &mut sa, true),
                rank_lags(&b, &mut sb, true),
                "n {n}"
            );
        }
    }

    #[test]
    fn odd_length_uses_t_minus_one_autocorrelation() {
        let x = [1.0f64, 2.0, 0.5, -1.0, 3.0];
        let mut s = StatsScratch::new(5);
        assert_eq!(s.compute(&x, true).lags.len(), 4);
    }
}
