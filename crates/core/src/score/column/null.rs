//! The null's draws of one claim column: each draw's claim × cells table, counted in
//! whichever of three ways costs least for the column (each gives the same integer
//! counts as the definition, tests.rs):
//!
//! - run by run, where the column is mostly long runs of one category: a shifted run adds
//!   the difference of two prefix rows;
//! - by masks, for a claim of few categories: each category's mask rotated against each
//!   cell's mask, 256 units a few vector instructions (`score/masks.rs`);
//! - unit by unit otherwise.

use super::{count, informations, Row, Scratch, ROW};
use crate::score::cells::{CELLS, CODES, OFFSET};
use crate::score::information::XLnX;
use crate::score::masks::{bits_at, doubled, MASKED, MASKED_CELLS};
use crate::score::sequences::{Prefix, PrefixRow, Sequences};

/// How a column's null draws are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    Runs,
    Masks,
    Units,
}

/// Categories past which masks are not worth counting by (one mask per category but the
/// last, each read against every cell's): unit by unit costs the same per unit.
pub(super) const MASK_CATEGORIES: usize = 9;

/// Categories counted in one pass over the cells' masks.
const GROUP: usize = 4;

/// The way that costs least for column `ids` of `k` categories, `runs` maximal runs.
/// Per draw a run costs a difference of two prefix rows, a unit an increment (three
/// past [`CODED_CATEGORIES`]) and a category's mask a popcount per word and cell; the
/// weights are the times measured per draw on ETTh1's sweep (BENCHMARKS.md).
pub(super) fn cheapest(k: usize, runs: usize, seqs: &Sequences) -> Way {
    let n = seqs.units() as f64;
    let by_runs = runs as f64 * COST_RUN;
    let by_units = n * if k <= CODED_CATEGORIES {
        COST_UNIT
    } else {
        COST_UNIT_CELLS
    };
    let by_masks = if k <= MASK_CATEGORIES {
        (seqs.masks.words() * k.saturating_sub(1)) as f64 * COST_MASK_WORD
    } else {
        f64::INFINITY
    };
    if by_masks <= by_runs.min(by_units) {
        Way::Masks
    } else if by_runs <= by_units {
        Way::Runs
    } else {
        Way::Units
    }
}

/// Relative costs per draw: a run, a unit counted as one code, a unit counted as three
/// cells, and one category's mask over 64 units.
const COST_RUN: f64 = 9.0;
const COST_UNIT: f64 = 1.0;
const COST_UNIT_CELLS: f64 = 1.5;
const COST_MASK_WORD: f64 = 8.0;

/// Every null draw of column `ids` (categories `0..k`), counted the way `way`.
pub(super) fn null(
    way: Way,
    ids: &[u32],
    runs: &[(u32, u32, u32)],
    k: usize,
    seqs: &Sequences,
    xlnx: &XLnX,
    scratch: &mut Scratch,
) -> Null {
    match way {
        Way::Runs => match seqs.prefix() {
            Prefix::Narrow(p) => null_draws(k, seqs, xlnx, scratch, by_runs(p, runs, seqs)),
            Prefix::Wide(p) => null_draws(k, seqs, xlnx, scratch, by_runs(p, runs, seqs)),
        },
        Way::Masks => null_draws(k, seqs, xlnx, scratch, by_masks(ids, k, seqs)),
        Way::Units => null_draws(k, seqs, xlnx, scratch, by_units(ids, k, seqs)),
    }
}

/// Per outcome, each null draw's `(I(C; O), I(C; O | B̂))`.
pub(super) type Null = [Vec<(f64, f64)>; 3];

/// Every null draw's information, each draw's claim × cells table counted by `count_draw`
/// from the draw's shifts (one per sequence) into a cleared table.
fn null_draws(
    k: usize,
    seqs: &Sequences,
    xlnx: &XLnX,
    scratch: &mut Scratch,
    mut count_draw: impl FnMut(&[usize], &mut [Row]),
) -> Null {
    let nseq = seqs.ranges.len();
    let draws = seqs.shifts.len() / nseq.max(1);
    let mut null: Null = std::array::from_fn(|_| Vec::with_capacity(draws));
    let mut joint: Vec<Row> = vec![[0; ROW]; k];
    for shifts in seqs.shifts.chunks_exact(nseq.max(1)).take(draws) {
        joint.fill([0; ROW]);
        count_draw(shifts, &mut joint);
        for (t, v) in informations(&joint, seqs.units(), xlnx, scratch)
            .into_iter()
            .enumerate()
        {
            null[t].push(v);
        }
    }
    null
}

/// A draw counted run by run: a run of one category, shifted, adds the difference of two
/// prefix rows (`P` either width, chosen once for the column).
fn by_runs<'a, P: PrefixRow>(
    prefix: &'a [P],
    runs: &'a [(u32, u32, u32)],
    seqs: &'a Sequences,
) -> impl FnMut(&[usize], &mut [Row]) + 'a {
    // Per run, its sequence (runs are in sequence order).
    let mut run_seq = Vec::with_capacity(runs.len());
    let mut q = 0;
    for &(s, _, _) in runs {
        while seqs.ranges[q].end <= s as usize {
            q += 1;
        }
        run_seq.push(q as u32);
    }
    move |shifts, joint| {
        for (&(s, e, id), &q) in runs.iter().zip(&run_seq) {
            let q = q as usize;
            let r = &seqs.ranges[q];
            let m = r.len();
            // Sequence q's prefix rows start at `r.start + q` (one more row per sequence).
            let base = &prefix[r.start + q..=r.end + q];
            // Both terms are below m: a subtraction, not a division, wraps the sum.
            let x = s as usize - r.start + shifts[q];
            let x = if x >= m { x - m } else { x };
            let len = (e - s) as usize;
            let row = &mut joint[id as usize];
            if x + len <= m {
                base[x + len].add_difference(&base[x], row);
            } else {
                base[m].add_difference(&base[x], row);
                base[x + len - m].add_difference(&base[0], row);
            }
        }
    }
}

/// Claim × code tables counted unit by unit, four units at a time into four copies:
/// neighbouring units mostly share their category and cells, and one copy would make
/// each increment wait on the last.
struct Quad {
    k: usize,
    /// Copy `i`'s count of category `c` and code `x` at `(i · k + c) · CODES + x`.
    tables: Vec<u32>,
}

impl Quad {
    fn new(k: usize) -> Quad {
        Quad {
            k,
            tables: vec![0; 4 * k * CODES],
        }
    }

    /// Units `ids[j]` with codes `codes[j]`, pair by pair.
    #[inline(always)]
    fn add(&mut self, ids: &[u32], codes: &[u16]) {
        let size = self.k * CODES;
        let (t0, rest) = self.tables.split_at_mut(size);
        let (t1, rest) = rest.split_at_mut(size);
        let (t2, t3) = rest.split_at_mut(size);
        let at = |id: u32, code: u16| id as usize * CODES + code as usize;
        let mut i4 = ids.chunks_exact(4);
        let mut c4 = codes.chunks_exact(4);
        for (i, c) in (&mut i4).zip(&mut c4) {
            t0[at(i[0], c[0])] += 1;
            t1[at(i[1], c[1])] += 1;
            t2[at(i[2], c[2])] += 1;
            t3[at(i[3], c[3])] += 1;
        }
        for (&i, &c) in i4.remainder().iter().zip(c4.remainder()) {
            t0[at(i, c)] += 1;
        }
    }

    /// The copies summed, spread into each category's cells in `joint`, and cleared.
    fn drain_into(&mut self, joint: &mut [Row]) {
        let size = self.k * CODES;
        let (t0, rest) = self.tables.split_at_mut(size);
        for copy in rest.chunks_exact_mut(size) {
            for (a, b) in t0.iter_mut().zip(copy.iter_mut()) {
                *a += *b;
                *b = 0;
            }
        }
        for (row, table) in joint.iter_mut().zip(t0.chunks_exact_mut(CODES)) {
            // code = d · 81 + m · 9 + v
            for (d, by_d) in table.chunks_exact(81).enumerate() {
                for (m, by_m) in by_d.chunks_exact(9).enumerate() {
                    let mut sum = 0;
                    for (v, &x) in by_m.iter().enumerate() {
                        row[OFFSET[2] + v] += x;
                        sum += x;
                    }
                    row[OFFSET[1] + m] += sum;
                    row[d] += sum;
                }
            }
            table.fill(0);
        }
    }
}

/// Categories past which a unit-by-unit null counts three cells per unit instead of one
/// code (a claim × code table that no longer stays in the cache).
pub(super) const CODED_CATEGORIES: usize = 8;

/// A draw counted unit by unit: unit `j` takes the cells of unit `(j + k) mod m`.
fn by_units<'a>(
    ids: &'a [u32],
    k: usize,
    seqs: &'a Sequences,
) -> impl FnMut(&[usize], &mut [Row]) + 'a {
    let (cells, codes) = (&seqs.cells, &seqs.codes);
    let mut quad = (k <= CODED_CATEGORIES).then(|| Quad::new(k));
    move |shifts, joint| {
        for (r, &kq) in seqs.ranges.iter().zip(shifts) {
            let m = r.len();
            let ids = &ids[r.clone()];
            match quad.as_mut() {
                Some(quad) => {
                    let codes = &codes[r.clone()];
                    quad.add(&ids[..m - kq], &codes[kq..]);
                    quad.add(&ids[m - kq..], &codes[..kq]);
                }
                None => {
                    let cells = &cells[r.clone()];
                    for (&id, c) in ids[..m - kq].iter().zip(&cells[kq..]) {
                        count(joint, id, c);
                    }
                    for (&id, c) in ids[m - kq..].iter().zip(&cells[..kq]) {
                        count(joint, id, c);
                    }
                }
            }
        }
        if let Some(quad) = quad.as_mut() {
            quad.drain_into(joint);
        }
    }
}

/// A draw counted by masks: per sequence, each category's mask (but the last's) rotated
/// by the draw's shift and counted against each cell's mask; each outcome's first cell
/// and the last category are the rest.
fn by_masks<'a>(
    ids: &[u32],
    k: usize,
    seqs: &'a Sequences,
) -> impl FnMut(&[usize], &mut [Row]) + 'a {
    let counted = k.saturating_sub(1);
    // Per sequence, its counted categories' doubled masks.
    let doubles: Vec<Vec<Vec<u64>>> = seqs
        .ranges
        .iter()
        .map(|r| {
            let ids = &ids[r.clone()];
            (0..counted as u32)
                .map(|c| doubled(|j| ids[j] == c, r.len()))
                .collect()
        })
        .collect();
    let mut sizes = vec![0u32; k];
    for &id in ids {
        sizes[id as usize] += 1;
    }
    let masks = &seqs.masks;
    let mut rotated = vec![0u64; counted * masks.words()];
    move |shifts, joint| {
        // Each counted category's masks rotated, laid out as the cells' words.
        for (q, (r, &kq)) in seqs.ranges.iter().zip(shifts).enumerate() {
            // Bit j of the rotation is unit (j - kq) mod m: unit i's claim meets unit
            // (i + kq) mod m's cells.
            let from = r.len() - kq;
            let words = masks.starts[q]..masks.starts[q + 1];
            for (c, d) in doubles[q].iter().enumerate() {
                let out = &mut rotated[c * masks.words()..][words.clone()];
                for (w, out) in out.iter_mut().enumerate() {
                    *out = bits_at(d, from + 64 * w);
                }
            }
        }
        // Four categories at a time: their byte counters fill the vector registers.
        let words = masks.words().max(1);
        for (g, group) in rotated.chunks(GROUP * words).enumerate() {
            let mut add = |counts: &[[u32; MASKED]]| {
                for (row, counts) in joint[GROUP * g..].iter_mut().zip(counts) {
                    for (&cell, &n) in MASKED_CELLS.iter().zip(counts) {
                        row[cell] = n;
                    }
                }
            };
            match group.len() / words {
                1 => add(&masks.shared::<1>(group)),
                2 => add(&masks.shared::<2>(group)),
                3 => add(&masks.shared::<3>(group)),
                _ => add(&masks.shared::<GROUP>(group)),
            }
        }
        for c in 0..counted {
            let row = &mut joint[c];
            for (t, &lo) in OFFSET.iter().enumerate() {
                let cells = if t == 0 { 4 } else { 9 };
                let rest: u32 = row[lo + 1..lo + cells].iter().sum();
                row[lo] = sizes[c] - rest;
            }
        }
        if let Some((last, counted)) = joint[..k].split_last_mut() {
            for cell in 0..CELLS {
                last[cell] = masks.totals[cell] - counted.iter().map(|r| r[cell]).sum::<u32>();
            }
        }
    }
}
