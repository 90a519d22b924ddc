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
use serde::Serialize;

/// A claim × outcome pair's information, its null and how far it stands above it, in bits.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Default)]
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

/// Adds `hi - lo` to `row` (one category's cell counts).
#[inline]
fn add_difference(row: &mut [u32], hi: &[u32; CELLS], lo: &[u32; CELLS]) {
    for ((r, h), l) in row.iter_mut().zip(hi).zip(lo) {
        *r += h - l;
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
                    let (hi, lo) = seqs.counts(q, x, x + len);
                    add_difference(row, &hi, &lo);
                } else {
                    let (hi, lo) = seqs.counts(q, x, m);
                    add_difference(row, &hi, &lo);
                    let (hi, lo) = seqs.counts(q, 0, x + len - m);
                    add_difference(row, &hi, &lo);
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
                        let (h, l) = seqs.counts(q, from, to);
                        let row = &mut table[id as usize * kk..(id as usize + 1) * kk];
                        for ((r, h), l) in row.iter_mut().zip(&h[lo..]).zip(&l[lo..]) {
                            *r += h - l;
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
mod tests {
    use super::*;
    use crate::score::information::entropy_mm;
    use crate::score::sequences::{cells, Protocol};
    use crate::score::Target;
    use rustc_hash::FxHashMap;

    fn lcg(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        }
    }

    /// Random outcome and predicted classes per unit.
    fn random_cells(n: usize, seed: u64) -> Vec<[u8; 3]> {
        let mut next = lcg(seed);
        (0..n)
            .map(|_| {
                let o = [(next() % 2) as u8, (next() % 3) as u8, (next() % 3) as u8];
                let b = [(next() % 2) as u8, (next() % 3) as u8, (next() % 3) as u8];
                cells(o, b)
            })
            .collect()
    }

    /// Sequences of made-up cells and a claim column in runs of `run_len`.
    fn made(run_len: usize) -> (Vec<u32>, Sequences) {
        let ranges = vec![0..300, 300..420, 420..800];
        let mut next = lcg(99);
        let mut ids = Vec::new();
        let mut id = 0;
        for i in 0..800 {
            if i % run_len == 0 {
                id = (next() % 4) as u32;
            }
            ids.push(id);
        }
        let p = Protocol {
            null_draws: 19,
            bootstrap: 29,
        };
        (ids, Sequences::new(ranges, random_cells(800, 12345), 40, p))
    }

    /// An entropy from its definition, over hashable values.
    fn h<K: std::hash::Hash + Eq>(v: impl Iterator<Item = K>, n: usize) -> f64 {
        let mut m: FxHashMap<K, u32> = FxHashMap::default();
        for k in v {
            *m.entry(k).or_default() += 1;
        }
        let c: Vec<u32> = m.into_values().collect();
        entropy_mm(&c, n)
    }

    /// `(I(C; O), I(C; O | B̂))` per outcome over (claim, cells) pairs, from the definitions.
    fn by_definition(pairs: &[(u32, [u8; 3])]) -> [(f64, f64); 3] {
        let n = pairs.len();
        std::array::from_fn(|t| {
            let kt = if t == 0 { 2 } else { 3 };
            let ob = |c: &[u8; 3]| (c[t] as usize - OFFSET[t]) as u32;
            let o = |c: &[u8; 3]| ob(c) / kt;
            let b = |c: &[u8; 3]| ob(c) % kt;
            let mi = h(pairs.iter().map(|p| p.0), n) + h(pairs.iter().map(|p| o(&p.1)), n)
                - h(pairs.iter().map(|p| (p.0, o(&p.1))), n);
            let cmi = h(pairs.iter().map(|p| (p.0, b(&p.1))), n)
                + h(pairs.iter().map(|p| ob(&p.1)), n)
                - h(pairs.iter().map(|p| (p.0, ob(&p.1))), n)
                - h(pairs.iter().map(|p| b(&p.1)), n);
            (mi, cmi)
        })
    }

    /// Each table counted unit by unit from its definition: observed, per null draw, per
    /// replicate.
    type Brute = ([(f64, f64); 3], Vec<[(f64, f64); 3]>, Vec<[(f64, f64); 3]>);
    fn brute(ids: &[u32], s: &Sequences) -> Brute {
        let observed: Vec<(u32, [u8; 3])> =
            ids.iter().copied().zip(s.cells.iter().copied()).collect();
        let nseq = s.ranges.len();
        let null = (0..s.shifts.len() / nseq)
            .map(|b| {
                let mut pairs = Vec::new();
                for (q, r) in s.ranges.iter().enumerate() {
                    let m = r.len();
                    for j in 0..m {
                        let k = s.shifts[b * nseq + q];
                        pairs.push((ids[r.start + j], s.cells[r.start + (j + k) % m]));
                    }
                }
                by_definition(&pairs)
            })
            .collect();
        let boot = s
            .blocks
            .iter()
            .map(|pieces| {
                let mut pairs = Vec::new();
                for p in pieces {
                    let r = &s.ranges[p.seq as usize];
                    let g = r.start + p.start as usize..r.start + p.end as usize;
                    pairs.extend(
                        ids[g.clone()]
                            .iter()
                            .copied()
                            .zip(s.cells[g].iter().copied()),
                    );
                }
                by_definition(&pairs)
            })
            .collect();
        (by_definition(&observed), null, boot)
    }

    #[test]
    fn runs_and_units_count_the_same_tables_as_the_definition() {
        // Long runs take the run path, runs of 1 the unit path.
        for run_len in [1, 3, 25] {
            let (ids, s) = made(run_len);
            let (observed, null, boot) = brute(&ids, &s);
            for (t, target) in Target::ALL.into_iter().enumerate() {
                let got = column_stats(&ids, 4, Some(target), &s, &XLnX::new(s.units()));
                assert!(got
                    .boot
                    .iter()
                    .enumerate()
                    .all(|(u, b)| (u == t) != b.is_empty()));
                let what = format!("runs of {run_len}, outcome {t}");
                assert!(
                    (got.info[t].mi_bits - observed[t].0).abs() < 1e-12,
                    "{what}"
                );
                assert!(
                    (got.complementary[t].mi_bits - observed[t].1).abs() < 1e-12,
                    "{what}"
                );
                let mut n: Vec<f64> = null.iter().map(|v| v[t].0).collect();
                assert!(
                    (got.info[t].null_median - quantile_of(&mut n, 0.5)).abs() < 1e-12,
                    "{what}"
                );
                let mut n: Vec<f64> = null.iter().map(|v| v[t].1).collect();
                assert!(
                    (got.complementary[t].null_p95 - quantile_of(&mut n, 0.95)).abs() < 1e-12,
                    "{what}"
                );
                assert_eq!(got.boot[t].len(), boot.len());
                for (r, b) in boot.iter().enumerate() {
                    assert!(
                        (got.boot[t][r] - b[t].0).abs() < 1e-12,
                        "{what} replicate {r}"
                    );
                    assert!(
                        (got.boot_complementary[t][r] - b[t].1).abs() < 1e-12,
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_claim_that_is_the_outcome_stands_above_its_null() {
        let (_, s) = made(5);
        let ids: Vec<u32> = s.cells.iter().map(|c| c[0] as u32 / 2).collect();
        let got = column_stats(&ids, 2, Some(Target::Direction), &s, &XLnX::new(s.units()));
        let d = got.info[Target::Direction as usize];
        assert!(d.mi_bits > 0.9 && d.p == 1.0 / 20.0, "{d:?}");
        assert!(d.excess_bits > 0.9);
        // The forecaster's classes are random here: the claim adds all it knows.
        assert!(got.complementary[0].excess_bits > 0.9);
    }

    /// A slowly changing category sequence: runs of random length around `mean_run`.
    fn runs_of(n: usize, mean_run: u64, k: u64, seed: u64) -> Vec<u32> {
        let mut next = lcg(seed);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let len = 1 + next() % (2 * mean_run);
            let id = (next() % k) as u32;
            out.extend(std::iter::repeat_n(id, len as usize));
        }
        out.truncate(n);
        out
    }

    #[test]
    fn a_placebo_claim_scores_within_its_null() {
        // Outcomes and a claim that know nothing of each other, both in long runs, as
        // overlapping windows make them: a shuffle would call the chance agreement of two
        // slow sequences information; the circular shifts keep the runs and do not.
        let m = 2000;
        let ranges = vec![0..m, m..2 * m, 2 * m..3 * m];
        let o = runs_of(3 * m, 60, 18, 7);
        let b = runs_of(3 * m, 60, 18, 8);
        let unit_cells: Vec<[u8; 3]> = o
            .iter()
            .zip(&b)
            .map(|(&o, &b)| {
                let (o, b) = (o as u8, b as u8);
                cells([o / 9, o / 3 % 3, o % 3], [b / 9, b / 3 % 3, b % 3])
            })
            .collect();
        let s = Sequences::new(ranges, unit_cells, 100, Protocol::default());
        let xlnx = XLnX::new(s.units());
        // Forty placebo claims × three outcomes: a calibrated null flags about 5% of them
        // at p ≤ 0.05 (binomial: 6 expected, at most 12 in all but 1 in 1000 cases).
        let mut flagged = 0;
        let mut excess = Vec::new();
        for seed in 100..140 {
            let placebo = runs_of(3 * m, 60, 3, seed);
            let got = column_stats(&placebo, 3, None, &s, &xlnx);
            for i in got.info {
                flagged += usize::from(i.p <= 0.05);
                excess.push(i.excess_bits);
                // Chance agreement of slow sequences is far above a shuffle's floor
                // (~(k-1)(c-1)/(2n ln 2) ≈ 0.0005 bits here): a shuffle would call it
                // information.
                assert!(i.null_median > 0.002, "seed {seed}: {i:?}");
            }
        }
        assert!(flagged <= 12, "{flagged} of 120 placebo pairs at p ≤ 0.05");
        // And their excess centres on 0.
        let median = quantile_of(&mut excess, 0.5);
        assert!(median.abs() < 0.003, "median excess {median}");
    }
}
