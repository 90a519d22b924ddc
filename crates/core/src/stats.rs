//! Time-LLM input statistics of one series: min, max, median, trend and top lags.
//!
//! Lags follow Time-LLM's `calcute_lags`: the circular autocorrelation
//! `r = irfft(|rfft(x)|²)` (length T for even T, T-1 for odd T, torch's default), ranked by
//! `r_k / r_0` rounded to 9 decimals, larger first, the smaller lag first on ties. `r` is
//! symmetrised (`r_k = r_(n-k)` in exact arithmetic) before ranking so that rounding noise
//! can never put a mirror lag `n-k` before `k`, on any engine or precision.
//!
//! Time-LLM's ranking includes lag 0 (always first: `r_0` is the maximum) and the mirror
//! lags `n-k`, so most windows' "top lags" read `[0, 1, n-1, 2, n-2]`. The clean lags
//! (`LagRule::Clean`) rank only the lags `1..=n/2` by the same rule: periods the window
//! can show, each once.

use crate::numeric::select::{key64, value64, Select32};
use crate::numeric::Real;
use realfft::{num_complex::Complex, ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftPlanner};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::sync::{Arc, Mutex, OnceLock};

/// How many lags Time-LLM reports.
pub const TOP_LAGS: usize = 5;

/// The top lags of one series, inline (no allocation per series).
pub type Lags = SmallVec<[usize; TOP_LAGS]>;

/// Which top lags a prompt prints as `lags` (`--lags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LagRule {
    /// Time-LLM's: lag 0 and the mirror lags n-k included
    #[default]
    Timellm,
    /// Only lags 1..=n/2, each period once
    Clean,
}

impl LagRule {
    pub const ALL: [LagRule; 2] = [LagRule::Timellm, LagRule::Clean];

    pub fn name(self) -> &'static str {
        match self {
            LagRule::Timellm => "timellm",
            LagRule::Clean => "clean",
        }
    }
}

impl std::fmt::Display for LagRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    pub min: f64,
    pub max: f64,
    /// The lower middle value for even lengths (torch.median).
    pub median: f64,
    /// `x[T-1] - x[0]`, the sum of first differences.
    pub trend: f64,
    /// Time-LLM's top lags.
    pub lags: Lags,
    /// The top lags among `1..=n/2` (see the module's notes).
    #[serde(default)]
    pub lags_clean: Lags,
}

/// Planned FFTs and buffers for series of one length.
pub struct StatsScratch {
    len: usize,
    transform: Autocorrelation,
    /// The symmetrised lags 0..=n/2 of the autocorrelation, for the ranking.
    sym: Vec<f64>,
    /// f64 samples' order keys; f32 samples select in `select`.
    keys: Vec<i64>,
    select: Select32,
}

impl StatsScratch {
    pub fn new(len: usize) -> Self {
        // irfft length: 2 * (bins - 1), i.e. T for even T and T - 1 for odd T.
        let n = 2 * (len / 2);
        StatsScratch {
            len,
            transform: if len.is_multiple_of(2) && len >= 4 {
                Autocorrelation::Half(HalfLength::new(len))
            } else {
                Autocorrelation::Real(RealLength::new(len))
            },
            sym: Vec::with_capacity(n / 2 + 1),
            keys: Vec::new(),
            select: Select32::new(len),
        }
    }

    /// The statistics of `x`; lags only when `lags` (they cost two FFTs).
    pub fn compute<T: Real>(&mut self, x: &[T], lags: bool) -> SeriesStats {
        debug_assert_eq!(x.len(), self.len);
        let len = x.len();
        if len == 0 {
            return SeriesStats::default();
        }
        let trend = x[len - 1].to_f64() - x[0].to_f64();
        let mid = (len - 1) / 2;
        let (lags, lags_clean) = if lags {
            self.lags_of(x)
        } else {
            Default::default()
        };
        // Min, max and median in total order (as `SlidingOrder` takes them, so -0 < +0 on
        // every path). f32 samples (a training batch) go through the vectorised
        // selection; f32's total order is f64's on the widened values, so both give the
        // same numbers. f64 samples select over integer keys of that order: a plain
        // integer compare instead of `total_cmp`'s conversions at every step.
        let (min, max, median) = match T::as_f32s(x).and_then(|x| self.select.min_max_kth(x, mid)) {
            Some((min, max, median)) => (min as f64, max as f64, median as f64),
            None => {
                self.keys.clear();
                self.keys.extend(x.iter().map(|v| key64(v.to_f64())));
                let (lo, hi) = self
                    .keys
                    .iter()
                    .fold((i64::MAX, i64::MIN), |(lo, hi), &k| (lo.min(k), hi.max(k)));
                let median = *self.keys.select_nth_unstable(mid).1;
                (value64(lo), value64(hi), value64(median))
            }
        };
        SeriesStats {
            min,
            max,
            median,
            trend,
            lags,
            lags_clean,
        }
    }

    /// The top lags of `x` alone (two FFTs): Time-LLM's and the clean ones.
    pub fn lags_of<T: Real>(&mut self, x: &[T]) -> (Lags, Lags) {
        debug_assert_eq!(x.len(), self.len);
        if x.is_empty() {
            return Default::default();
        }
        let corr = match &mut self.transform {
            Autocorrelation::Half(h) => h.autocorrelation(x),
            Autocorrelation::Real(r) => match r.autocorrelation(x) {
                Some(corr) => corr,
                None => return (smallvec::smallvec![0], Lags::new()),
            },
        };
        rank_lags(corr, &mut self.sym)
    }
}

/// How a series' circular autocorrelation `irfft(|rfft(x)|²)` is computed.
enum Autocorrelation {
    /// Even lengths: one complex FFT of half the length each way.
    Half(HalfLength),
    /// Odd lengths (the inverse is one shorter than the series) and length 2.
    Real(RealLength),
}

/// Plan once per length for the whole process, execute many: every task of every run
/// (and every call from Python) makes a scratch, and planning computes twiddles with
/// sin/cos each time (measured: 1 % of a Time-LLM batch for the pair pass's alone).
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
struct HalfLength {
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
    fn new() -> Self {
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
    fn new(n: usize) -> Self {
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
    fn autocorrelation<T: Real>(&mut self, x: &[T]) -> &[f64] {
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
struct RealLength {
    forward: Arc<dyn RealToComplex<f64>>,
    inverse: Option<Arc<dyn ComplexToReal<f64>>>,
    input: Vec<f64>,
    spectrum: Vec<Complex<f64>>,
    corr: Vec<f64>,
    scratch: Vec<Complex<f64>>,
}

impl RealLength {
    fn new(len: usize) -> Self {
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
    fn autocorrelation<T: Real>(&mut self, x: &[T]) -> Option<&[f64]> {
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

/// Min, max and median of consecutive windows of one series, kept as a sorted window.
///
/// Moving a window by a stride `s` replaces `s` samples, each one binary search and one
/// short shift, instead of a fresh selection over the whole window: with stride 1 that is
/// ~20× less work than `select_nth_unstable` per window.
pub struct SlidingOrder {
    len: usize,
    sorted: Vec<f64>,
    /// Start of the window `sorted` holds (None when it holds none in order).
    at: Option<usize>,
    /// The last window could not slide from the one before: windows far apart (a batch of
    /// separate samples) take a linear-time selection instead of a sort.
    jumped: bool,
}

impl SlidingOrder {
    pub fn new(len: usize) -> Self {
        SlidingOrder {
            len,
            sorted: Vec::with_capacity(len),
            at: None,
            jumped: false,
        }
    }

    /// For windows `stride` apart: ones too far apart to slide select from the start.
    pub fn for_stride(len: usize, stride: usize) -> Self {
        SlidingOrder {
            jumped: stride > len / 8,
            ..SlidingOrder::new(len)
        }
    }

    /// `(min, max, lower median)` of `series[start..start + len]`.
    pub fn window(&mut self, series: &[f64], start: usize) -> (f64, f64, f64) {
        let len = self.len;
        match self.at {
            // A short step: swap the samples that left for those that came in.
            Some(at) if at <= start && start - at <= len / 8 => {
                for t in at..start {
                    self.replace(series[t], series[t + len]);
                }
            }
            _ if self.jumped => {
                // Far from the last window too: select the median, scan for the extremes.
                let s = &mut self.sorted;
                s.clear();
                s.extend_from_slice(&series[start..start + len]);
                let (_, &mut median, _) = s.select_nth_unstable_by((len - 1) / 2, f64::total_cmp);
                let pick = |a: f64, b: f64, want: std::cmp::Ordering| {
                    if b.total_cmp(&a) == want {
                        b
                    } else {
                        a
                    }
                };
                let (lo, hi) = s.iter().fold((s[0], s[0]), |(lo, hi), &v| {
                    (
                        pick(lo, v, std::cmp::Ordering::Less),
                        pick(hi, v, std::cmp::Ordering::Greater),
                    )
                });
                self.at = None;
                return (lo, hi, median);
            }
            _ => {
                self.jumped = self.at.is_some();
                self.sorted.clear();
                self.sorted.extend_from_slice(&series[start..start + len]);
                self.sorted.sort_unstable_by(f64::total_cmp);
            }
        }
        self.at = Some(start);
        let s = &self.sorted;
        (s[0], s[len - 1], s[(len - 1) / 2])
    }

    /// Remove one sample equal to `old` and insert `new`, keeping the order.
    fn replace(&mut self, old: f64, new: f64) {
        let s = &mut self.sorted;
        let lt = |v: f64| move |a: &f64| a.total_cmp(&v).is_lt();
        let i = s.partition_point(lt(old));
        let j = s.partition_point(lt(new));
        if j > i {
            // Everything in i+1..j is below `new`: close the gap at i, put `new` just before j.
            s.copy_within(i + 1..j, i);
            s[j - 1] = new;
        } else {
            // Everything in j..i is at or above `new`: open a gap at j over `old`'s slot.
            s.copy_within(j..i, j + 1);
            s[j] = new;
        }
    }
}

/// Indices of the `TOP_LAGS` largest autocorrelations, by the rule in the module docs.
/// `sym` is working memory (the symmetrised half of `corr`).
fn rank_lags(corr: &[f64], sym: &mut Vec<f64>) -> (Lags, Lags) {
    #[cfg(target_arch = "x86_64")]
    if crate::numeric::simd::Isa::active() >= crate::numeric::simd::Isa::Avx2 {
        // SAFETY: the CPU has AVX2 and FMA (`Isa::active` checks them).
        return unsafe { x86::rank_lags(corr, sym) };
    }
    rank_lags_in(corr, sym)
}

#[inline(always)]
fn rank_lags_in(corr: &[f64], sym: &mut Vec<f64>) -> (Lags, Lags) {
    let n = corr.len();
    let Some(&r0) = corr.first() else {
        return Default::default();
    };
    if r0 == 0.0 {
        // r_0 = Σx² = 0 only for a zero series: every lag ties at 0, the smallest first.
        return (
            (0..n.min(TOP_LAGS)).collect(),
            (1..=(n / 2).min(TOP_LAGS)).collect(),
        );
    }
    let scale = 1.0 / r0;
    // Lags 0..=n/2, symmetrised; a lag k of the other half has its mirror n-k's value,
    // so it is ranked from there (half the values to scan, and no writes into `corr`).
    // (Indexed loops, not iterator adapters: those were compiled outside the AVX2 frame.)
    sym.clear();
    sym.resize(n / 2 + 1, 0.0);
    sym[0] = r0;
    for k in 1..n.div_ceil(2) {
        sym[k] = 0.5 * (corr[k] + corr[n - k]);
    }
    if n.is_multiple_of(2) {
        sym[n / 2] = corr[n / 2];
    }
    let round9 = |v: f64| (v * 1e9).round() / 1e9;
    // Only lags whose raw ratio is near the top can be among the best TOP_LAGS, so the
    // rounding and the ordering run on those few: with V at most the TOP_LAGS-th largest
    // value over all lags, each of the best TOP_LAGS rounds to at least V's rounded ratio,
    // so its ratio is at most 1e-8 below V's (`scale` > 0: ratios order as the values).
    // V: the lags 1..n/2 that have a mirror go into GROUPS groups by residue (their maxima
    // a lane-wise max over rows). r_0 and the TOP_LAGS / 2 largest group maxima, each
    // counted with its mirror, are at least TOP_LAGS lags, so V = min(r_0, the smallest
    // of those maxima) is at most the TOP_LAGS-th largest of all.
    const GROUPS: usize = 32;
    const KEPT: usize = TOP_LAGS / 2;
    let max = |a: f64, b: f64| if a > b { a } else { b };
    let min = |a: f64, b: f64| if a < b { a } else { b };
    let doubled = &sym[1..n.div_ceil(2).max(1)];
    // Whole rows make new maxima (updated in place, they became masked stores, which are
    // slow on AMD; `array::from_fn` was not inlined); the partial last row pads with -∞.
    let mut maxima = [f64::NEG_INFINITY; GROUPS];
    for row in doubled.chunks(GROUPS) {
        let mut next = maxima;
        for i in 0..GROUPS {
            next[i] = max(maxima[i], row.get(i).copied().unwrap_or(f64::NEG_INFINITY));
        }
        maxima = next;
    }
    // The KEPT largest maxima, largest first, without branches: each value moves down
    // the ones it passes.
    let mut top = [f64::NEG_INFINITY; KEPT];
    for m in maxima {
        for i in (1..KEPT).rev() {
            top[i] = max(top[i], min(top[i - 1], m));
        }
        top[0] = max(top[0], m);
    }
    let v = min(r0, top[KEPT - 1]);
    let floor = if scale > 0.0 {
        v * scale - 1e-8
    } else {
        // Not for a real series (r_0 = Σx² > 0): rank every lag.
        f64::NEG_INFINITY
    };
    let mut candidates: SmallVec<[(f64, usize); 16]> = SmallVec::new();
    // Eight lags at a time, looked at one by one only when one of them passes.
    const STEP: usize = 8;
    for (at, row) in sym.chunks(STEP).enumerate() {
        if !row.iter().fold(false, |hit, &c| hit | (c * scale >= floor)) {
            continue;
        }
        for (k, &c) in (at * STEP..).zip(row) {
            if c * scale >= floor {
                let ratio = round9(c * scale);
                candidates.push((ratio, k));
                if k > 0 && 2 * k != n {
                    candidates.push((ratio, n - k));
                }
            }
        }
    }
    // Larger rounded ratio first, the smaller lag first on ties (compared as numbers, so
    // -0 ties with 0).
    candidates.sort_unstable_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    let timellm = candidates.iter().take(TOP_LAGS).map(|&(_, k)| k).collect();
    (timellm, clean_lags(sym, scale))
}

/// The top lags among `1..=n/2` of the symmetrised `sym` (lags `0..=n/2`), by the same
/// rule as Time-LLM's: rounded ratio descending, the smaller lag first on ties. Only
/// values near the TOP_LAGS-th largest can be among them, so those few are rounded and
/// sorted (the ranking's own prefilter, without mirrors).
fn clean_lags(sym: &[f64], scale: f64) -> Lags {
    let lags = sym.get(1..).unwrap_or(&[]);
    // The TOP_LAGS largest values, largest first (a pass that rarely inserts).
    let mut top = [f64::NEG_INFINITY; TOP_LAGS];
    for &v in lags {
        if v > top[TOP_LAGS - 1] {
            let mut i = TOP_LAGS - 1;
            while i > 0 && top[i - 1] < v {
                top[i] = top[i - 1];
                i -= 1;
            }
            top[i] = v;
        }
    }
    let v = top[TOP_LAGS.min(lags.len()).max(1) - 1];
    let floor = if scale > 0.0 {
        v * scale - 1e-8
    } else {
        // Not for a real series (r_0 = Σx² > 0): rank every lag.
        f64::NEG_INFINITY
    };
    let round9 = |v: f64| (v * 1e9).round() / 1e9;
    let mut candidates: SmallVec<[(f64, usize); 16]> = lags
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c * scale >= floor)
        .map(|(i, &c)| (round9(c * scale), i + 1))
        .collect();
    candidates.sort_unstable_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    candidates.iter().take(TOP_LAGS).map(|&(_, k)| k).collect()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// `super::rank_lags_in` compiled for AVX2 (the same operations, so the same bits).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn rank_lags(corr: &[f64], sym: &mut Vec<f64>) -> (Lags, Lags) {
        super::rank_lags_in(corr, sym)
    }

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

    #[test]
    fn median_is_lower_middle_and_trend_is_end_minus_start() {
        let mut s = StatsScratch::new(4);
        let st = s.compute(&[3.0f64, 1.0, 4.0, 2.0], true);
        assert_eq!((st.min, st.max, st.median, st.trend), (1.0, 4.0, 2.0, -1.0));
    }

    #[test]
    fn minus_zero_is_below_plus_zero() {
        // As SlidingOrder picks them.
        let st = StatsScratch::new(3).compute(&[0.0f64, -0.0, 1.0], false);
        assert_eq!(st.min.to_bits(), (-0.0f64).to_bits());
        assert_eq!(st.median.to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn f32_samples_give_the_statistics_of_their_f64_values() {
        // Spread values, repeats, both zeros: the f32 selection against the f64 one.
        let series: Vec<f32> = (0..600)
            .map(|i| match i % 9 {
                0 => -0.0,
                1 => 0.0,
                _ => ((i * 7919) % 613) as f32 * 0.37 - 100.0 + (i % 3) as f32,
            })
            .collect();
        for len in [1, 2, 3, 8, 33, 64, 511, 512, 600] {
            let x = &series[series.len() - len..];
            let wide: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let (a, b) = (
                StatsScratch::new(len).compute(x, true),
                StatsScratch::new(len).compute(&wide, true),
            );
            let bits = |s: &SeriesStats| [s.min, s.max, s.median, s.trend].map(f64::to_bits);
            assert_eq!(bits(&a), bits(&b), "len {len}");
            assert_eq!(a.lags, b.lags, "len {len}");
        }
    }

    #[test]
    fn sliding_order_matches_a_fresh_selection() {
        // A series with repeats, so removals meet equal values.
        let series: Vec<f64> = (0..400)
            .map(|i| ((i * 37) % 23) as f64 - (i % 5) as f64 * 0.5)
            .collect();
        // Strides past len / 8 jump (sort, then selections); 64 and 97 jump past the window.
        let cases = [
            (1, 1),
            (2, 1),
            (16, 1),
            (64, 3),
            (64, 8),
            (64, 50),
            (33, 2),
            (64, 64),
            (32, 97),
            (1, 5),
        ];
        for (len, stride) in cases {
            let mut order = SlidingOrder::new(len);
            let mut told = SlidingOrder::for_stride(len, stride);
            let mut st = StatsScratch::new(len);
            for start in (0..=series.len() - len).step_by(stride) {
                let w = &series[start..start + len];
                let fresh = st.compute(w, false);
                assert_eq!(
                    order.window(&series, start),
                    (fresh.min, fresh.max, fresh.median),
                    "len {len}, stride {stride}, start {start}"
                );
                assert_eq!(
                    told.window(&series, start),
                    (fresh.min, fresh.max, fresh.median),
                    "told the stride: len {len}, stride {stride}, start {start}"
                );
            }
        }
    }

    #[test]
    fn lags_of_a_period_4_signal() {
        let x: Vec<f64> = (0..16).map(|i| [1.0, 0.0, -1.0, 0.0][i % 4]).collect();
        let mut s = StatsScratch::new(16);
        let st = s.compute(&x, true);
        // r peaks at multiples of 4; mirror lags come out smaller first.
        assert_eq!(&st.lags[..4], &[0, 4, 8, 12]);
        // Clean: 4 and 8 (= n/2) are the only periods; then the rest in lag order.
        assert_eq!(&st.lags_clean[..2], &[4, 8]);
        assert!(st.lags_clean.iter().all(|&k| (1..=8).contains(&k)));
    }

    /// The prefiltered ranking (only lags near the top rounded and sorted) against a full
    /// sort by (rounded ratio descending, lag ascending), on series with many exact ties.
    #[test]
    fn ranking_matches_a_full_sort() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        for case in 0..400 {
            let n: usize = [2, 6, 8, 9, 16, 64, 100, 512][case % 8];
            // Few distinct values (ties), or continuous ones, or all zero.
            let corr: Vec<f64> = (0..n)
                .map(|_| match case % 3 {
                    0 => (next() % 4) as f64 - 1.0,
                    1 => (next() % 1_000_000) as f64 / 7.0 - 5e4,
                    _ => 0.0,
                })
                .collect();
            let got = rank_lags(&corr, &mut Vec::new());
            // The dispatched build (AVX2 here) and the plain one agree.
            assert_eq!(got, rank_lags_in(&corr, &mut Vec::new()), "case {case}");
            // The module's rule: r_k and r_(n-k) both become their mean.
            let mut sym = corr.clone();
            for k in 1..n.div_ceil(2) {
                let m = 0.5 * (corr[k] + corr[n - k]);
                sym[k] = m;
                sym[n - k] = m;
            }
            let scale = if sym[0] != 0.0 { 1.0 / sym[0] } else { 0.0 };
            let mut all: Vec<(f64, usize)> = sym
                .iter()
                .enumerate()
                .map(|(k, &c)| (((c * scale) * 1e9).round() / 1e9, k))
                .collect();
            // Compared as numbers (-0 ties with 0), as the ranking compares them.
            all.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap().then(a.1.cmp(&b.1)));
            let want: Vec<usize> = all.iter().take(TOP_LAGS).map(|p| p.1).collect();
            assert_eq!(got.0[..], want[..], "case {case}, n {n}: {corr:?}");
            // Clean: the same order over the lags 1..=n/2 alone.
            let clean: Vec<usize> = all
                .iter()
                .filter(|p| (1..=n / 2).contains(&p.1))
                .take(TOP_LAGS)
                .map(|p| p.1)
                .collect();
            assert_eq!(got.1[..], clean[..], "clean, case {case}, n {n}: {corr:?}");
        }
    }

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
            assert_eq!(rank_lags(&a, &mut sa), rank_lags(&b, &mut sb), "n {n}");
        }
    }

    #[test]
    fn odd_length_uses_t_minus_one_autocorrelation() {
        let x = [1.0f64, 2.0, 0.5, -1.0, 3.0];
        let mut s = StatsScratch::new(5);
        assert_eq!(s.compute(&x, true).lags.len(), 4);
    }
}
