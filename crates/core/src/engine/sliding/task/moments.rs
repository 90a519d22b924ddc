//! The sliding path's band moments: each window's Σ, Σ² and first and last coefficient of
//! a band, from the phase's prefix sums over the interior and the block's edge
//! coefficients, normalised by the window's own affine map, with this path's rounding
//! bound. A stage of [`super::task`], `inline(always)` into its instruction-set frame.

use super::{Scratch, Span};
use crate::engine::sliding::plan::SlidePlan;
use crate::engine::sliding::span::{Phased, Phases};
use crate::engine::sliding::{Job, BLOCK, U64};
use crate::engine::summary::BandSummary;
use std::ops::Range;

/// One band's moments in one window, and what its bound needs besides the plan's gain.
#[derive(Clone, Copy, Default)]
pub(super) struct Moments {
    pub(super) summary: BandSummary,
    /// `sqrt(n · energy)`.
    pub(super) root: f64,
    /// This path's own rounding of the energy and of the sum.
    pub(super) slide_e: f64,
    pub(super) slide_s: f64,
}

/// Where band `(j, is_a)` of the job's plans sits among the bands of a block's moments
/// (`Scratch::moments`): the detail bands first, then the approximations, by level.
pub(super) fn band_id(deepest: &SlidePlan, (j, is_a): (usize, bool)) -> usize {
    match is_a {
        true => deepest.levels.len() + j - 1,
        false => j - 1,
    }
}

/// A block's sums over a band's edge coefficients `v`, window by window (the constant
/// window's coefficient `o` at each edge): Σv, Σv², Σv·o, Σ|v| and Σ|v·o|.
#[derive(Clone, Copy)]
pub(super) struct EdgeSums {
    sum: [f64; BLOCK],
    sq: [f64; BLOCK],
    cross: [f64; BLOCK],
    abs: [f64; BLOCK],
    abs_cross: [f64; BLOCK],
}

impl Default for EdgeSums {
    fn default() -> Self {
        EdgeSums {
            sum: [0.0; BLOCK],
            sq: [0.0; BLOCK],
            cross: [0.0; BLOCK],
            abs: [0.0; BLOCK],
            abs_cross: [0.0; BLOCK],
        }
    }
}

impl EdgeSums {
    /// Zero the first `nb` windows' sums.
    #[inline(always)]
    fn clear(&mut self, nb: usize) {
        for acc in [
            &mut self.sum,
            &mut self.sq,
            &mut self.cross,
            &mut self.abs,
            &mut self.abs_cross,
        ] {
            acc[..nb].fill(0.0);
        }
    }

    /// Add one edge: its coefficient in each window (`edge`), `o` in the constant window's.
    #[inline(always)]
    fn add(&mut self, edge: &[f64], o: f64) {
        for (b, &v) in edge.iter().enumerate() {
            self.sum[b] += v;
            self.sq[b] += v * v;
            self.cross[b] += v * o;
            self.abs[b] += v.abs();
            self.abs_cross[b] += (v * o).abs();
        }
    }
}

/// A band's interior outputs `o` in `interior` of the window at `q` (its offset in the
/// span), from the phase's prefix sums: their Σ and Σ², and the size of the prefix sums
/// read (which this path's rounding scales with).
struct Interior {
    sum: f64,
    sq: f64,
    prefix: f64,
}

impl Interior {
    #[inline(always)]
    fn of(ph: &Phased<'_>, q: usize, step: usize, interior: Range<usize>) -> Interior {
        let (lo, hi) = (interior.start, interior.end);
        let at = |o: usize| q + step * o;
        let before = |p: &[f64]| {
            if lo > 0 {
                p[at(lo - 1)]
            } else if q >= step {
                p[q - step]
            } else {
                0.0
            }
        };
        let (s_hi, s_lo) = (ph.sum[at(hi - 1)], before(&ph.sum));
        let (q_hi, q_lo) = (ph.sq[at(hi - 1)], before(&ph.sq));
        Interior {
            sum: s_hi - s_lo,
            sq: q_hi - q_lo,
            prefix: q_hi.abs() + q_lo.abs(),
        }
    }
}

/// Band `k` of plan `sp`, every window of the block side by side, into its place in
/// `s.moments`: the edge sums run over the slot-major edges in vectors, then each window's
/// moments (normalised) and this path's rounding are assembled from the prefix sums and
/// the edges.
#[inline(always)]
pub(super) fn moments<W>(
    job: &Job<'_, '_>,
    sp: &SlidePlan,
    k: usize,
    span: &Span<'_>,
    phases: &Phases<'_>,
    block: &[usize],
    s: &mut Scratch<W>,
) {
    let windows = job.batch.windows;
    let nb = block.len();
    let (j, is_a) = sp.band(k);
    let at_band = band_id(job.deepest(), (j, is_a)) * BLOCK;
    let ph = phases.get(j, is_a);
    let lv = &sp.levels[j - 1];
    let step = 1usize << j;
    let all = if is_a { &s.edge_a } else { &s.edge_d };
    let base = span.at_level[j - 1];
    let edge = |e: usize| &all[(base + e) * BLOCK..][..nb];
    s.edge_sums.clear(nb);
    for (e, &o) in sp.edge_ones[k].iter().enumerate() {
        s.edge_sums.add(edge(e), o);
    }
    let edges = &s.edge_sums;
    let ones = &sp.ones[k];
    let (lo, hi) = (lv.interior.start, lv.interior.end);
    let len = lv.n_out;
    let n = len as f64;
    let k_int = ones[lo];
    let out = &mut s.moments[at_band..][..nb];
    for (b, ((&i, aff), out)) in block.iter().zip(&s.maps).zip(out).enumerate() {
        let q = windows.start(i) - span.start;
        let shift = aff.mean - span.origin;
        let scale = aff.scale;
        let at = |o: usize| q + step * o;
        let interior = Interior::of(ph, q, step, lv.interior.clone());
        let (sum, sq) = (interior.sum + edges.sum[b], interior.sq + edges.sq[b]);
        let cross = k_int * interior.sum + edges.cross[b];
        let s_n = scale * (sum - shift * sp.ones_sum[k]);
        let q_n = scale * scale * (sq - 2.0 * shift * cross + shift * shift * sp.ones_sq[k]);
        let mean = s_n / n;
        let coef = |o: usize| match lv.slot(o) {
            Some(e) => edge(e)[b],
            None => ph.v[at(o)],
        };
        let value = |o: usize| scale * (coef(o) - shift * ones[o]);
        let energy = q_n.max(0.0);
        let summary = BandSummary {
            energy,
            mean,
            m2: (q_n - s_n * mean).max(0.0),
            first: value(0),
            last: value(len - 1),
            len,
        };
        // This path's rounding: f64 sums whose terms are as large as the prefix sums
        // (`q / step + hi` of them: `step` is a power of two).
        let prefix = interior.prefix;
        let terms = (((q >> j) + hi) as f64 * prefix).sqrt();
        let slide_e = 16.0
            * U64
            * scale
            * scale
            * (prefix
                + edges.sq[b]
                + 2.0 * shift.abs() * (k_int.abs() * terms + edges.abs_cross[b])
                + shift * shift * sp.ones_sq[k]);
        let slide_s = 16.0 * U64 * scale * (terms + edges.abs[b] + shift.abs() * sp.ones_abs[k]);
        *out = Moments {
            summary,
            root: (n * energy).sqrt(),
            slide_e,
            slide_s,
        };
    }
}
