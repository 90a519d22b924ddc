//! One claim's categories over a part's units, counted against the outcomes (and the
//! forecaster's predicted classes of them) as observed, under each of the null's shifts
//! and in each bootstrap replicate ([`ColumnStats`]): the information `I(C; O)` and the
//! complementary information `I(C; O | B̂)`.
//!
//! Claims change slowly from one window to the next (neighbouring windows share most of
//! their rows), so a column is mostly long runs of one category. Where it is, a shifted or
//! resampled table is summed run by run from the cells' prefix counts; where it
//! is not (a large stride, a claim with many categories), unit by unit. Both give the same
//! integer counts.

use super::information::{quantile_of, XLnX};
use super::sequences::{Sequences, CELLS, OFFSET};
use super::Target;
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
    pub info: [Info; 3],
    pub complementary: [Info; 3],
    /// Per outcome, each replicate's `I(C; O)` (the designated outcome's only; the others
    /// are empty).
    pub boot: [Vec<f64>; 3],
    /// Per outcome, each replicate's `I(C; O | B̂)` (likewise).
    pub boot_complementary: [Vec<f64>; 3],
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

/// Adds a run's cell counts to `row` (one category's).
#[inline]
fn add_counts(row: &mut [u32], counts: &[u32; CELLS]) {
    for (r, c) in row.iter_mut().zip(counts) {
        *r += c;
    }
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
    let runs = runs(ids, seqs);
    // A run costs a difference of two prefix rows (22 counts), a unit three increments.
    let by_runs = runs.len() * 4 <= n;
    let mut joint: Vec<Row> = vec![[0; ROW]; k];
    let mut scratch = Scratch::default();
    let cells = &seqs.cells;

    for (&id, c) in ids.iter().zip(cells) {
        count(&mut joint, id, c);
    }
    let observed = informations(&joint, n, xlnx, &mut scratch);

    let nseq = seqs.ranges.len();
    let draws = seqs.shifts.len() / nseq.max(1);
    let mut null: [Vec<(f64, f64)>; 3] = std::array::from_fn(|_| Vec::with_capacity(draws));
    // Per run, its sequence (runs are in sequence order).
    let mut run_seq = Vec::with_capacity(runs.len());
    if by_runs {
        let mut q = 0;
        for &(s, _, _) in &runs {
            while seqs.ranges[q].end <= s as usize {
                q += 1;
            }
            run_seq.push(q);
        }
    }
    for b in 0..draws {
        joint.fill([0; ROW]);
        let shifts = &seqs.shifts[b * nseq..(b + 1) * nseq];
        if by_runs {
            for (&(s, e, id), &q) in runs.iter().zip(&run_seq) {
                let r = &seqs.ranges[q];
                let m = r.len();
                let x = (s as usize - r.start + shifts[q]) % m;
                let len = (e - s) as usize;
                let row = &mut joint[id as usize][..CELLS];
                if x + len <= m {
                    add_counts(row, &seqs.counts(q, x, x + len));
                } else {
                    add_counts(row, &seqs.counts(q, x, m));
                    add_counts(row, &seqs.counts(q, 0, x + len - m));
                }
            }
        } else {
            for (q, r) in seqs.ranges.iter().enumerate() {
                let m = r.len();
                let kq = shifts[q];
                let (ids, cells) = (&ids[r.clone()], &cells[r.clone()]);
                // Unit j takes the cells of unit (j + k) mod m.
                for (&id, c) in ids[..m - kq].iter().zip(&cells[kq..]) {
                    count(&mut joint, id, c);
                }
                for (&id, c) in ids[m - kq..].iter().zip(&cells[..kq]) {
                    count(&mut joint, id, c);
                }
            }
        }
        for (t, v) in informations(&joint, n, xlnx, &mut scratch)
            .into_iter()
            .enumerate()
        {
            null[t].push(v);
        }
    }

    // The bootstrap serves the score, which reads a claim's designated outcome only: its
    // cells alone are counted.
    let replicates = if target.is_some() {
        seqs.blocks.len()
    } else {
        0
    };
    let mut boot: [Vec<f64>; 3] = Default::default();
    let mut boot_c: [Vec<f64>; 3] = Default::default();
    if let Some(target) = target {
        let t = target as usize;
        let (lo, kk) = (OFFSET[t], if t == 0 { 4 } else { 9 });
        let mut table = vec![0u32; k * kk];
        let starts: Vec<u32> = runs.iter().map(|r| r.0).collect();
        for pieces in &seqs.blocks[..replicates] {
            table.fill(0);
            for p in pieces {
                let q = p.seq as usize;
                let r = &seqs.ranges[q];
                let (gx, gy) = (r.start + p.start as usize, r.start + p.end as usize);
                if by_runs {
                    let mut i = starts.partition_point(|&s| s as usize <= gx) - 1;
                    while i < runs.len() && (runs[i].0 as usize) < gy {
                        let (s, e, id) = runs[i];
                        let from = (s as usize).max(gx) - r.start;
                        let to = (e as usize).min(gy) - r.start;
                        let counts = seqs.counts(q, from, to);
                        let row = &mut table[id as usize * kk..(id as usize + 1) * kk];
                        for (r, c) in row.iter_mut().zip(&counts[lo..]) {
                            *r += c;
                        }
                        i += 1;
                    }
                } else {
                    for (&id, c) in ids[gx..gy].iter().zip(&cells[gx..gy]) {
                        table[id as usize * kk + (c[t] as usize - lo)] += 1;
                    }
                }
            }
            let (mi, cmi) = information(&table, (kk, 0), t, n, xlnx, &mut scratch);
            boot[t].push(mi);
            boot_c[t].push(cmi);
        }
    }

    let mut info = [Info::default(); 3];
    let mut complementary = [Info::default(); 3];
    for t in 0..3 {
        let mut v: Vec<f64> = null[t].iter().map(|x| x.0).collect();
        info[t] = against(observed[t].0, &mut v);
        let mut v: Vec<f64> = null[t].iter().map(|x| x.1).collect();
        complementary[t] = against(observed[t].1, &mut v);
    }
    ColumnStats {
        info,
        complementary,
        boot,
        boot_complementary: boot_c,
    }
}

#[cfg(test)]
mod tests;
