//! What the sliding path needs of a plan, computed once: per level, which outputs are
//! samples of the stationary sequences and, for the edge outputs, the weights over the
//! inputs they read; the constant window's transform; the per-window path's error gain.

use crate::engine::plan::{LevelPlan, Plan};
use std::collections::BTreeMap;
use std::ops::Range;

/// Where an edge coefficient's input comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Src {
    /// Sample `i` of the window (level 1).
    Raw(usize),
    /// Coefficient `i` of the previous level's approximation, from the stationary sequence.
    Interior(usize),
    /// The previous level's edge approximation in this slot.
    Edge(usize),
}

/// One level: which outputs slide, and the weights of the others.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Level {
    /// `2^(j-1)`, the spacing of the previous level's sequence.
    pub(super) dil: usize,
    pub(super) first: isize,
    pub(super) n_out: usize,
    /// Outputs equal to the stationary sequences at `w + 2^j·o`.
    pub(super) interior: Range<usize>,
    /// The edges before and after the interior.
    pub(super) sides: [Side; 2],
}

/// The edge outputs at one end of a level: slots (outputs `0..interior.start`, then
/// `interior.end..n_out`), the inputs they read, and per input a column of weights (the
/// low-pass filter's for each slot, then the high-pass filter's), so that each input is
/// one multiply-add into independent sums.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Side {
    pub(super) slots: Range<usize>,
    pub(super) refs: Vec<Src>,
    pub(super) columns: Vec<f64>,
    /// Per tile of `TILE_ROWS` output rows (low-pass slots, then high-pass), the inputs
    /// with a nonzero weight in any of its rows: a zero weight adds a zero to a sum that
    /// started at +0 and can never be -0, so the inputs outside change no bit.
    pub(super) tile_inputs: Vec<Range<usize>>,
}

/// Output rows per register tile of the edge products (`task::products`).
pub(super) const TILE_ROWS: usize = 4;

/// For each tile of `TILE_ROWS` of the `rows` rows, the range of inputs (columns of
/// `rows` weights each) where some weight of the tile is not zero.
fn tile_inputs(columns: &[f64], rows: usize) -> Vec<Range<usize>> {
    if rows == 0 {
        return Vec::new(); // a side without outputs
    }
    let cols: Vec<&[f64]> = columns.chunks_exact(rows).collect();
    (0..rows)
        .step_by(TILE_ROWS)
        .map(|r0| {
            let tile = r0..(r0 + TILE_ROWS).min(rows);
            let weighs = |col: &&[f64]| col[tile.clone()].iter().any(|&w| w != 0.0);
            match (cols.iter().position(weighs), cols.iter().rposition(weighs)) {
                (Some(first), Some(last)) => first..last + 1,
                _ => 0..0,
            }
        })
        .collect()
}

impl Level {
    pub(super) fn edges(&self) -> usize {
        self.interior.start + self.n_out - self.interior.end
    }

    pub(super) fn slot(&self, o: usize) -> Option<usize> {
        if o < self.interior.start {
            Some(o)
        } else if o >= self.interior.end {
            Some(o - self.interior.end + self.interior.start)
        } else {
            None
        }
    }
}

/// Everything about a plan that the sliding path needs, computed once.
#[derive(Debug, Clone)]
pub struct SlidePlan {
    pub(super) len: usize,
    pub(super) filter: usize,
    pub(super) levels: Vec<Level>,
    pub(super) lo: Vec<f64>,
    pub(super) hi: Vec<f64>,
    /// The constant window's coefficients per band (pywt order), and their Σ, Σ², Σ|·|.
    pub(super) ones: Vec<Vec<f64>>,
    pub(super) ones_sum: Vec<f64>,
    pub(super) ones_sq: Vec<f64>,
    pub(super) ones_abs: Vec<f64>,
    /// `ones` at each band's edge slots.
    pub(super) edge_ones: Vec<Vec<f64>>,
    /// The per-window path's coefficients are within `gain · u · max|x|` of the exact
    /// transform (`u` the unit roundoff of its precision).
    pub(super) gain: f64,
}

impl Level {
    /// Level `lp` (the `lvl`-th, from 0) of `plan`, after `prev` (None at the first), and
    /// the factor it multiplies the per-window path's error gain by. None when no output
    /// slides (windows too short for the filter).
    fn of(plan: &Plan, lvl: usize, lp: &LevelPlan, prev: Option<&Level>) -> Option<(Level, f64)> {
        let f = plan.wavelet.filter_length;
        if lp.interior.is_empty() {
            return None;
        }
        let first = lp.src_start as isize - lp.interior.start as isize;
        let inputs = prev.map_or(0..plan.len, |l| l.interior.clone());
        let slides = |o: usize| {
            let (a, b) = (2 * o, 2 * o + f - 1);
            a >= lp.interior.start
                && b < lp.interior.end
                && a as isize + first >= inputs.start as isize
                && (b as isize + first) < inputs.end as isize
        };
        let start = (0..lp.n_out).find(|&o| slides(o))?;
        let end = (start..lp.n_out).take_while(|&o| slides(o)).last()? + 1;
        // The extended input at position u, as weights over the level's input.
        let extended = |u: usize| -> Vec<(usize, f64)> {
            if lp.interior.contains(&u) {
                vec![((u as isize + first) as usize, 1.0)]
            } else {
                lp.edges
                    .iter()
                    .find(|(t, _)| *t == u)
                    .map(|(_, taps)| taps.iter().map(|t| (t.index, t.coef)).collect())
                    .unwrap_or_default()
            }
        };
        let mut reach: f64 = 1.0;
        for (_, taps) in &lp.edges {
            reach = reach.max(taps.iter().map(|t| t.coef.abs()).sum());
        }
        let norm1 = |v: &[f64]| v.iter().map(|c| c.abs()).sum::<f64>();
        let gain = reach * norm1(&plan.lo_rev).max(norm1(&plan.hi_rev));
        let edges_before = start;
        let sides = [
            Side::of(plan, 0..start, 0..edges_before, &extended, prev),
            Side::of(
                plan,
                end..lp.n_out,
                edges_before..edges_before + lp.n_out - end,
                &extended,
                prev,
            ),
        ];
        let level = Level {
            dil: 1 << lvl,
            first,
            n_out: lp.n_out,
            interior: start..end,
            sides,
        };
        Some((level, gain))
    }
}

impl Side {
    /// The edge outputs `outs` of a level into `slots`, each the filters over the extended
    /// input (`extended`: a position's weights over the level's input), whose inputs come
    /// from the previous level `prev` (None: the window's samples).
    fn of(
        plan: &Plan,
        outs: Range<usize>,
        slots: Range<usize>,
        extended: &dyn Fn(usize) -> Vec<(usize, f64)>,
        prev: Option<&Level>,
    ) -> Side {
        let f = plan.wavelet.filter_length;
        let weights: Vec<BTreeMap<usize, (f64, f64)>> = outs
            .map(|o| {
                let mut w = BTreeMap::new();
                for t in 0..f {
                    for (i, c) in extended(2 * o + t) {
                        let e = w.entry(i).or_insert((0.0, 0.0));
                        e.0 += plan.lo_rev[t] * c;
                        e.1 += plan.hi_rev[t] * c;
                    }
                }
                w
            })
            .collect();
        let mut inputs: Vec<usize> = weights.iter().flat_map(|w| w.keys().copied()).collect();
        inputs.sort_unstable();
        inputs.dedup();
        let refs = inputs
            .iter()
            .map(|&i| match prev {
                None => Src::Raw(i),
                Some(p) => match p.slot(i) {
                    Some(s) => Src::Edge(s),
                    None => Src::Interior(i),
                },
            })
            .collect();
        let mut columns = Vec::with_capacity(inputs.len() * 2 * weights.len());
        for i in &inputs {
            let at = |w: &BTreeMap<usize, (f64, f64)>| w.get(i).copied().unwrap_or((0.0, 0.0));
            columns.extend(weights.iter().map(|w| at(w).0));
            columns.extend(weights.iter().map(|w| at(w).1));
        }
        let tile_inputs = tile_inputs(&columns, 2 * weights.len());
        Side {
            slots,
            refs,
            columns,
            tile_inputs,
        }
    }
}

impl SlidePlan {
    /// None when some level has no coefficient the extension leaves alone (windows too
    /// short for the filter), where nothing would slide.
    pub fn new(plan: &Plan) -> Option<SlidePlan> {
        let f = plan.wavelet.filter_length;
        let mut levels: Vec<Level> = Vec::with_capacity(plan.level);
        let mut gain = 1.0;
        for (lvl, lp) in plan.levels.iter().enumerate() {
            let (level, level_gain) = Level::of(plan, lvl, lp, levels.last())?;
            gain *= level_gain;
            levels.push(level);
        }
        let coeffs = crate::engine::native::decompose(&vec![1.0f64; plan.len], plan);
        let ones: Vec<Vec<f64>> = (0..plan.bands())
            .map(|k| coeffs[plan.offsets[k]..][..plan.band_lens[k]].to_vec())
            .collect();
        let edge_ones = (0..plan.bands())
            .map(|k| {
                let lv = &levels[if k == 0 {
                    plan.level
                } else {
                    plan.level + 1 - k
                } - 1];
                (0..lv.n_out)
                    .filter(|o| lv.slot(*o).is_some())
                    .map(|o| ones[k][o])
                    .collect()
            })
            .collect();
        Some(SlidePlan {
            len: plan.len,
            edge_ones,
            filter: f,
            ones_sum: ones.iter().map(|b| b.iter().sum()).collect(),
            ones_sq: ones.iter().map(|b| b.iter().map(|v| v * v).sum()).collect(),
            ones_abs: ones
                .iter()
                .map(|b| b.iter().map(|v| v.abs()).sum())
                .collect(),
            ones,
            // Rounding of the input, then of every tap at every level, amplified by the
            // filters' gain (the standard bound, with room for second-order terms).
            gain: 1.1 * gain * (1.0 + (plan.level * f) as f64),
            levels,
            lo: plan.lo_rev.clone(),
            hi: plan.hi_rev.clone(),
        })
    }

    /// Whether this plan goes deeper than `shallower` through the same levels (one
    /// wavelet, mode and window length): `sliding::summarize_levels` then computes their
    /// levels once for both.
    pub fn shares_levels_with(&self, shallower: &SlidePlan) -> bool {
        self.len == shallower.len
            && self.lo == shallower.lo
            && self.hi == shallower.hi
            && self.levels.len() > shallower.levels.len()
            && self.levels.starts_with(&shallower.levels)
    }

    pub(super) fn bands(&self) -> usize {
        self.levels.len() + 1
    }

    /// The level (1-based) and kind of band `k` in pywt order.
    pub(super) fn band(&self, k: usize) -> (usize, bool) {
        let n = self.levels.len();
        if k == 0 {
            (n, true)
        } else {
            (n + 1 - k, false)
        }
    }
}
