//! One claim's categories over a part's units, counted against the outcomes (and the
//! forecaster's predicted classes of them) as observed, under each of the null's shifts
//! and in each bootstrap replicate ([`ColumnStats`]): the information `I(C; O)` and the
//! complementary information `I(C; O | B̂)`.
//!
//! Claims change slowly from one window to the next (neighbouring windows share most of
//! their rows), so a column is mostly long runs of one category. Where it is, a shifted
//! table is summed run by run from the cells' prefix counts; where it is not (a large
//! stride), a claim of few categories is counted by bit masks and one of many unit by
//! unit, whichever costs least (null.rs). A bootstrap replicate is a
//! concatenation of pieces of the sequences: each sequence is walked once per column and
//! a piece's table is the difference of two snapshots of the walk. Every way gives the
//! same integer counts as the definition (tests.rs).

mod null;

use super::cells::OFFSET;
use super::information::{quantile_of, XLnX};
use super::sequences::Sequences;
use super::{PerTarget, Target};
use serde::{Deserialize, Serialize};

/// A claim × outcome pair's information, its null and how far it stands above it, in bits.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Info {
    /// The mutual information as observed.
    pub mi_bits: f64,
    /// The median and 95th percentile of the information under the null's shifts.
    pub null_median: f64,
    pub null_p95: f64,
    /// `(1 + #{null ≥ observed}) / (B + 1)`.
    pub p: f64,
    /// `mi_bits - null_median`.
    pub excess_bits: f64,
}

/// What one claim column tells about each outcome over one part, observed and against
/// the null ([`Info`]): `info` the mutual information `I(C; O)`, `complementary` what it
/// tells beyond the forecaster that reads only the series, `I(C; O | B̂)`; and both in
/// each bootstrap replicate.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ColumnStats {
    pub info: PerTarget<Info>,
    pub complementary: PerTarget<Info>,
    /// Per outcome, each replicate's `I(C; O)` (the designated outcome's only; the others
    /// are empty).
    pub boot: PerTarget<Vec<f64>>,
    /// Per outcome, each replicate's `I(C; O | B̂)` (likewise).
    pub boot_complementary: PerTarget<Vec<f64>>,
}

/// Values within this many bits of the observed one count as reaching it (so that a
/// null draw with the same table as observed counts, whatever the rounding).
const TIE_BITS: f64 = 1e-12;

/// Maximal runs of one category within a sequence: `(start, end, id)` in part units.
fn runs(ids: &[u32], seqs: &Sequences) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for r in &seqs.ranges {
        let mut s = r.start;
        while s < r.end {
            let id = ids[s];
            let mut e = s + 1;
            while e < r.end && ids[e] == id {
                e += 1;
            }
            out.push((s as u32, e as u32, id));
            s = e;
        }
    }
    out
}

/// One category's row of a claim × cells table, padded to a power of two so that a cell
/// index masked to it needs no bounds check in the unit-by-unit count.
type Row = [u32; ROW];
const ROW: usize = 32;

/// Counts one unit's three cells into its category's row.
#[inline]
fn count(joint: &mut [Row], id: u32, cells: &[u8; 3]) {
    let row = &mut joint[id as usize];
    for &c in cells {
        row[c as usize & (ROW - 1)] += 1;
    }
}

/// Entropy tables for one outcome of `k` classes, reused across draws.
#[derive(Default)]
struct Scratch {
    c: Vec<u32>,
    co: Vec<u32>,
    cb: Vec<u32>,
    cob: Vec<u32>,
}

/// `I(C; O)` and `I(C; O | B̂)` of outcome `t` from a table whose rows (one per category,
/// `stride` counts apart) hold the outcome's `kt²` cells from `offset`, over `n` units.
fn information(
    table: &[u32],
    (stride, offset): (usize, usize),
    t: usize,
    n: usize,
    xlnx: &XLnX,
    s: &mut Scratch,
) -> (f64, f64) {
    let kt = if t == 0 { 2 } else { 3 };
    // (C, O, B̂) as counted; its margins C, (C, O), (C, B̂), (O, B̂), O and B̂.
    s.c.clear();
    s.cob.clear();
    s.co.clear();
    s.cb.clear();
    let mut ob = [0u32; 9];
    for row in table.chunks_exact(stride) {
        let cell = &row[offset..offset + kt * kt];
        s.cob.extend_from_slice(cell);
        s.c.push(cell.iter().sum());
        for o in 0..kt {
            s.co.push(cell[o * kt..(o + 1) * kt].iter().sum());
        }
        for b in 0..kt {
            s.cb.push((0..kt).map(|o| cell[o * kt + b]).sum());
        }
        for (acc, v) in ob.iter_mut().zip(cell) {
            *acc += v;
        }
    }
    let mut o = [0u32; 3];
    let mut b = [0u32; 3];
    for oi in 0..kt {
        for bi in 0..kt {
            o[oi] += ob[oi * kt + bi];
            b[bi] += ob[oi * kt + bi];
        }
    }
    let h = |v: &[u32]| xlnx.entropy_mm(v, n);
    let mi = h(&s.c) + h(&o[..kt]) - h(&s.co);
    let cmi = h(&s.cb) + h(&ob[..kt * kt]) - h(&s.cob) - h(&b[..kt]);
    (mi, cmi)
}

/// Per outcome, `I(C; O)` and `I(C; O | B̂)` from a claim × cells table of `n` units.
fn informations(joint: &[Row], n: usize, xlnx: &XLnX, s: &mut Scratch) -> [(f64, f64); 3] {
    let table = joint.as_flattened();
    std::array::from_fn(|t| information(table, (ROW, OFFSET[t]), t, n, xlnx, s))
}

/// The null's summary of an observed value and its draws.
fn against(observed: f64, null: &mut [f64]) -> Info {
    let reached = null.iter().filter(|&&v| v >= observed - TIE_BITS).count();
    let median = quantile_of(null, 0.5);
    Info {
        mi_bits: observed,
        null_median: median,
        null_p95: quantile_of(null, 0.95),
        p: (1 + reached) as f64 / (null.len() + 1) as f64,
        excess_bits: observed - median,
    }
}

/// The claim column `ids` (categories `0..k`, one per unit of `seqs`) against the
/// outcomes: observed and under every null shift; in every bootstrap replicate, against
/// its designated outcome `target` (none: no replicates).
pub fn column_stats(
    ids: &[u32],
    k: usize,
    target: Option<Target>,
    seqs: &Sequences,
    xlnx: &XLnX,
) -> ColumnStats {
    let n = seqs.units();
    assert_eq!(ids.len(), n, "one claim per unit");
    let mut scratch = Scratch::default();
    let mut joint: Vec<Row> = vec![[0; ROW]; k];
    for (&id, c) in ids.iter().zip(&seqs.cells) {
        count(&mut joint, id, c);
    }
    let observed = informations(&joint, n, xlnx, &mut scratch);

    let runs = runs(ids, seqs);
    let null = null::null(
        null::cheapest(k, runs.len(), seqs),
        ids,
        &runs,
        k,
        seqs,
        xlnx,
        &mut scratch,
    );

    // The bootstrap serves the score, which reads a claim's designated outcome only: its
    // cells alone are counted.
    let mut boot: PerTarget<Vec<f64>> = Default::default();
    let mut boot_c: PerTarget<Vec<f64>> = Default::default();
    if let Some(target) = target {
        let t = target as usize;
        (boot[target], boot_c[target]) =
            bootstrap(ids, k, t, seqs, xlnx, &mut scratch, SNAPSHOT_COUNTS)
                .into_iter()
                .unzip();
    }

    let info = PerTarget::from_fn(|t| {
        let mut v: Vec<f64> = null[t as usize].iter().map(|x| x.0).collect();
        against(observed[t as usize].0, &mut v)
    });
    let complementary = PerTarget::from_fn(|t| {
        let mut v: Vec<f64> = null[t as usize].iter().map(|x| x.1).collect();
        against(observed[t as usize].1, &mut v)
    });
    ColumnStats {
        info,
        complementary,
        boot,
        boot_complementary: boot_c,
    }
}

/// Past this many counts in one sequence's snapshots (marks × categories × cells), the
/// bootstrap counts each replicate unit by unit instead (a claim of thousands of
/// categories).
const SNAPSHOT_COUNTS: usize = 1 << 22;

/// Each bootstrap replicate's `(I(C; O), I(C; O | B̂))` about outcome `t`.
///
/// Every replicate is a concatenation of pieces of the sequences. Each sequence is walked
/// once, its running claim × cell table kept at every place a piece starts or ends; a
/// piece's table is then the difference of two of those. So a column's bootstrap costs
/// one pass over the units and a few counts per piece, not a pass per replicate.
fn bootstrap(
    ids: &[u32],
    k: usize,
    t: usize,
    seqs: &Sequences,
    xlnx: &XLnX,
    scratch: &mut Scratch,
    snapshot_counts: usize,
) -> Vec<(f64, f64)> {
    let n = seqs.units();
    let (lo, kk) = (OFFSET[t], if t == 0 { 4 } else { 9 });
    let width = k * kk;
    let replicates = seqs.blocks.len();
    let cell = |c: &[u8; 3]| c[t] as usize - lo;
    let index = &seqs.boot_index;
    let most_marks = index.marks.iter().map(Vec::len).max().unwrap_or(0);
    let mut tables = vec![0u32; replicates * width];
    if most_marks.saturating_mul(width) <= snapshot_counts {
        let mut acc = vec![0u32; width];
        let mut snaps: Vec<u32> = Vec::new();
        for (q, r) in seqs.ranges.iter().enumerate() {
            acc.fill(0);
            snaps.clear();
            let (ids, cells) = (&ids[r.clone()], &seqs.cells[r.clone()]);
            let mut at = 0;
            for &mark in &index.marks[q] {
                let mark = mark as usize;
                for (&id, c) in ids[at..mark].iter().zip(&cells[at..mark]) {
                    acc[id as usize * kk + cell(c)] += 1;
                }
                at = mark;
                snaps.extend_from_slice(&acc);
            }
            for &[rep, from, to] in &index.pieces[q] {
                let table = &mut tables[rep as usize * width..][..width];
                let from = &snaps[from as usize * width..][..width];
                let to = &snaps[to as usize * width..][..width];
                for ((v, a), b) in table.iter_mut().zip(to).zip(from) {
                    *v += a - b;
                }
            }
        }
    } else {
        for (pieces, table) in seqs.blocks.iter().zip(tables.chunks_exact_mut(width)) {
            for p in pieces {
                let r = &seqs.ranges[p.seq as usize];
                let g = r.start + p.start as usize..r.start + p.end as usize;
                for (&id, c) in ids[g.clone()].iter().zip(&seqs.cells[g]) {
                    table[id as usize * kk + cell(c)] += 1;
                }
            }
        }
    }
    (0..replicates)
        .map(|r| information(&tables[r * width..][..width], (kk, 0), t, n, xlnx, scratch))
        .collect()
}

#[cfg(test)]
mod tests;
