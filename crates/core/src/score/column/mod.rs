//! One claim's categories over a part's units, counted against the outcomes (and the
//! forecaster's predicted classes of them) as observed, under each of the null's shifts
//! and in each bootstrap replicate ([`ColumnStats`]): the information `I(C; O)` and the
//! complementary information `I(C; O | B̂)`.
//!
//! Claims change slowly from one window to the next (neighbouring windows share most of
//! their rows), so a column is mostly long runs of one category. Where it is, a shifted
//! table is summed run by run from the cells' prefix counts; where it is not (a large
//! stride, a claim with many categories), unit by unit. A bootstrap replicate is a
//! concatenation of pieces of the sequences: each sequence is walked once per column and
//! a piece's table is the difference of two snapshots of the walk. Every way gives the
//! same integer counts as the definition (tests.rs).

use super::information::{quantile_of, XLnX};
use super::sequences::{Prefix, PrefixRow, Sequences, CODES, OFFSET};
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
    // A run costs a difference of two prefix rows (22 counts), a unit one increment (of
    // its claim × cells code) or three.
    let null = if runs.len() * 4 <= n {
        match seqs.prefix() {
            Prefix::Narrow(p) => null_by_runs(p, &runs, k, seqs, xlnx, &mut scratch),
            Prefix::Wide(p) => null_by_runs(p, &runs, k, seqs, xlnx, &mut scratch),
        }
    } else {
        null_by_units(ids, k, seqs, xlnx, &mut scratch)
    };

    // The bootstrap serves the score, which reads a claim's designated outcome only: its
    // cells alone are counted.
    let mut boot: [Vec<f64>; 3] = Default::default();
    let mut boot_c: [Vec<f64>; 3] = Default::default();
    if let Some(target) = target {
        let t = target as usize;
        (boot[t], boot_c[t]) = bootstrap(ids, k, t, seqs, xlnx, &mut scratch, SNAPSHOT_COUNTS)
            .into_iter()
            .unzip();
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

/// Per outcome, each null draw's `(I(C; O), I(C; O | B̂))`.
type Null = [Vec<(f64, f64)>; 3];

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

/// The null draws counted run by run: a run of one category, shifted, adds the
/// difference of two prefix rows (`P` either width, chosen once for the column).
fn null_by_runs<P: PrefixRow>(
    prefix: &[P],
    runs: &[(u32, u32, u32)],
    k: usize,
    seqs: &Sequences,
    xlnx: &XLnX,
    scratch: &mut Scratch,
) -> Null {
    // Per run, its sequence (runs are in sequence order).
    let mut run_seq = Vec::with_capacity(runs.len());
    let mut q = 0;
    for &(s, _, _) in runs {
        while seqs.ranges[q].end <= s as usize {
            q += 1;
        }
        run_seq.push(q as u32);
    }
    null_draws(k, seqs, xlnx, scratch, |shifts, joint| {
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
    })
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
const CODED_CATEGORIES: usize = 8;

/// The null draws counted unit by unit: unit `j` takes the cells of unit `(j + k) mod m`.
fn null_by_units(
    ids: &[u32],
    k: usize,
    seqs: &Sequences,
    xlnx: &XLnX,
    scratch: &mut Scratch,
) -> Null {
    let (cells, codes) = (&seqs.cells, &seqs.codes);
    let mut quad = (k <= CODED_CATEGORIES).then(|| Quad::new(k));
    null_draws(k, seqs, xlnx, scratch, |shifts, joint| {
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
    })
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
