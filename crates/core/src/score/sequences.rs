//! A scored part's units as sequences, one per file × channel in window order, and how
//! they are resampled: the null's circular shifts and the bootstrap's circular blocks
//! (docs/score.md#the-null, #uncertainty-and-ties). Made once per data set: every configuration is
//! counted against the same shifts and the same blocks, so its null draws and its
//! replicates are paired with every other configuration's.
//!
//! Overlapping windows are not independent: at stride 1 neighbouring units share all but
//! one input row and all but one horizon row. A shift of at least T + P rows keeps both
//! sequences' autocorrelation and pairs each claim with an outcome it shares no row with;
//! a block of T + P rows keeps the dependence a unit has on its neighbours.

use super::cells::{code, CELLS};
use super::information::{uniform, SplitMix64};
use super::masks::CellMasks;
use std::ops::Range;

/// The seed of the null's draws (docs/score.md#the-null).
pub const NULL_SEED: u64 = 0x005E_ED0F_B175;
/// The seed of the bootstrap's block starts (docs/score.md#uncertainty-and-ties).
pub const BOOTSTRAP_SEED: u64 = 0x005E_ED0B_0075;

/// How many null draws and bootstrap replicates a sweep makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Protocol {
    /// Circular shifts per part (`--null-draws`).
    pub null_draws: usize,
    /// Block-bootstrap replicates per part (`--bootstrap`).
    pub bootstrap: usize,
    /// The series-only forecasters are fit on every train unit, or (asked for with
    /// `--fit-subset-above UNITS`) on a deterministic subset of a data set with more train
    /// units than that ([`super::forecaster::fit_every`]).
    #[serde(default)]
    pub fit_subset_above: Option<usize>,
}

impl Protocol {
    /// The one statement of the draws' and replicates' bounds: at least 1 of each, at
    /// most [`Protocol::MAX_DRAWS`] (past that the figures' precision no longer changes,
    /// and the time and memory grow without bound).
    pub fn check(&self) -> Result<(), super::ScoreError> {
        use super::ScoreError;
        let max = Self::MAX_DRAWS;
        match (self.null_draws, self.bootstrap) {
            (0, _) => Err(ScoreError::NoDraws),
            (draws, _) if draws > max => Err(ScoreError::TooManyDraws { draws, max }),
            (_, 0) => Err(ScoreError::NoReplicates),
            (_, replicates) if replicates > max => {
                Err(ScoreError::TooManyReplicates { replicates, max })
            }
            _ => Ok(()),
        }
    }

    /// The most null draws, and the most bootstrap replicates, a sweep makes: p-values
    /// then resolve 1e-4 and the intervals' percentiles are steady, while time and memory
    /// grow with each.
    pub const MAX_DRAWS: usize = 9_999;
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol {
            null_draws: 99,
            bootstrap: 199,
            fit_subset_above: None,
        }
    }
}

/// A linear piece of one bootstrap block: units `start..end` of sequence `seq` (a block
/// that wraps past the sequence's end is two pieces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Piece {
    pub seq: u32,
    pub start: u32,
    pub end: u32,
}

/// The prefix counts, 16-bit where every sequence is shorter than 65,536 units (a
/// count within one never exceeds its length): half the memory, which on a Traffic-sized
/// file is 190 MB of the sweep's peak, and half the reads of every null draw.
#[derive(Debug, Clone)]
pub(super) enum Prefix {
    Narrow(Vec<[u16; CELLS]>),
    Wide(Vec<[u32; CELLS]>),
}

impl Default for Prefix {
    fn default() -> Self {
        Prefix::Narrow(Vec::new())
    }
}

/// A row of prefix counts in either width: what the null's run-by-run count reads, made
/// generic so that the width is chosen once per column, not once per run.
pub(super) trait PrefixRow: Copy {
    /// Adds `self - lo` to `row`, cell by cell.
    fn add_difference(&self, lo: &Self, row: &mut [u32]);
}

impl PrefixRow for [u16; CELLS] {
    #[inline(always)]
    fn add_difference(&self, lo: &Self, row: &mut [u32]) {
        let row: &mut [u32; CELLS] = (&mut row[..CELLS]).try_into().expect("a row of CELLS");
        for i in 0..CELLS {
            row[i] += u32::from(self[i].wrapping_sub(lo[i]));
        }
    }
}

impl PrefixRow for [u32; CELLS] {
    #[inline(always)]
    fn add_difference(&self, lo: &Self, row: &mut [u32]) {
        let row: &mut [u32; CELLS] = (&mut row[..CELLS]).try_into().expect("a row of CELLS");
        for i in 0..CELLS {
            row[i] += self[i].wrapping_sub(lo[i]);
        }
    }
}

impl Prefix {
    /// Each sequence's running counts, from 0 at its start.
    fn of(ranges: &[Range<usize>], cells: &[[u8; 3]]) -> Prefix {
        fn running<T: Copy + Default + std::ops::AddAssign + From<u8>>(
            ranges: &[Range<usize>],
            cells: &[[u8; 3]],
        ) -> Vec<[T; CELLS]> {
            let mut prefix = Vec::with_capacity(cells.len() + ranges.len());
            for r in ranges {
                let mut acc = [T::default(); CELLS];
                prefix.push(acc);
                for unit in &cells[r.clone()] {
                    for &c in unit {
                        acc[c as usize] += T::from(1);
                    }
                    prefix.push(acc);
                }
            }
            prefix
        }
        if ranges.iter().all(|r| r.len() <= usize::from(u16::MAX)) {
            Prefix::Narrow(running(ranges, cells))
        } else {
            Prefix::Wide(running(ranges, cells))
        }
    }
}

/// The bootstrap's pieces sorted by sequence, for a count that walks each sequence once
/// per column instead of once per replicate: per sequence, the distinct places where a
/// piece starts or ends (`marks`, local units, ascending), and each piece as its
/// replicate and the indices of its two marks.
#[derive(Debug, Clone, Default)]
pub(super) struct BootIndex {
    pub marks: Vec<Vec<u32>>,
    pub pieces: Vec<Vec<[u32; 3]>>,
}

impl BootIndex {
    fn of(sequences: usize, blocks: &[Vec<Piece>]) -> BootIndex {
        let mut marks: Vec<Vec<u32>> = vec![Vec::new(); sequences];
        for p in blocks.iter().flatten() {
            marks[p.seq as usize].extend([p.start, p.end]);
        }
        for m in &mut marks {
            m.sort_unstable();
            m.dedup();
        }
        let mut pieces: Vec<Vec<[u32; 3]>> = vec![Vec::new(); sequences];
        for (rep, block) in blocks.iter().enumerate() {
            for p in block {
                let m = &marks[p.seq as usize];
                let at = |x: u32| m.partition_point(|&v| v < x) as u32;
                pieces[p.seq as usize].push([rep as u32, at(p.start), at(p.end)]);
            }
        }
        BootIndex { marks, pieces }
    }
}

/// One scored part's units in sequence order, their cells, and the null's shifts
/// and the bootstrap's blocks over them.
#[derive(Debug, Clone, Default)]
pub struct Sequences {
    /// Each sequence's units, as a range of the part's units.
    pub ranges: Vec<Range<usize>>,
    /// T + P rows in units: `ceil((T + P) / stride)`.
    pub span: usize,
    /// Each unit's cells ([`cells`]).
    pub(super) cells: Vec<[u8; 3]>,
    /// Each unit's cells as one [`code`].
    pub(super) codes: Vec<u16>,
    /// Per sequence `q`, its cells' counts over its first `j` units at
    /// `prefix[ranges[q].start + q + j]`.
    prefix: Prefix,
    /// The cells as bit masks, for claims of few categories.
    pub(super) masks: CellMasks,
    /// The shift of sequence `q` in null draw `b`: `shifts[b · sequences + q]`.
    pub(super) shifts: Vec<usize>,
    /// Per replicate, the pieces of its blocks in order.
    pub(super) blocks: Vec<Vec<Piece>>,
    /// The same pieces, sequence by sequence.
    pub(super) boot_index: BootIndex,
    /// The effective sample size of the direction outcome, summed over the sequences.
    pub n_eff: f64,
}

impl Sequences {
    /// `cells` holds each unit's cells, sequence after sequence (`ranges`); `span` is
    /// T + P rows in units.
    pub fn new(ranges: Vec<Range<usize>>, cells: Vec<[u8; 3]>, span: usize, p: Protocol) -> Self {
        let prefix = Prefix::of(&ranges, &cells);
        let codes = cells.iter().map(code).collect();
        let masks = CellMasks::of(&ranges, &cells);
        let mut rng = SplitMix64::new(NULL_SEED);
        let mut shifts = Vec::with_capacity(p.null_draws * ranges.len());
        for _ in 0..p.null_draws {
            let u = uniform(&mut rng);
            shifts.extend(ranges.iter().map(|r| shift(r.len(), span, u)));
        }
        let mut rng = SplitMix64::new(BOOTSTRAP_SEED);
        let blocks = (0..p.bootstrap)
            .map(|_| {
                let mut pieces = Vec::new();
                for (q, r) in ranges.iter().enumerate() {
                    let m = r.len();
                    let l = span.clamp(1, m.max(1));
                    let mut left = m;
                    for _ in 0..m.div_ceil(l) {
                        let start = ((uniform(&mut rng) * m as f64) as usize).min(m - 1);
                        let len = l.min(left);
                        left -= len;
                        let first = (start + len).min(m);
                        pieces.push(Piece {
                            seq: q as u32,
                            start: start as u32,
                            end: first as u32,
                        });
                        if start + len > m {
                            pieces.push(Piece {
                                seq: q as u32,
                                start: 0,
                                end: (start + len - m) as u32,
                            });
                        }
                    }
                }
                pieces
            })
            .collect::<Vec<_>>();
        let boot_index = BootIndex::of(ranges.len(), &blocks);
        let n_eff = ranges
            .iter()
            .map(|r| {
                let d: Vec<f64> = cells[r.clone()].iter().map(|c| (c[0] / 2) as f64).collect();
                effective_size(&d)
            })
            .sum();
        Sequences {
            ranges,
            span,
            cells,
            codes,
            prefix,
            masks,
            shifts,
            blocks,
            boot_index,
            n_eff,
        }
    }

    pub fn units(&self) -> usize {
        self.cells.len()
    }

    /// The shortest sequence's units (0 without any).
    pub fn shortest(&self) -> usize {
        self.ranges.iter().map(|r| r.len()).min().unwrap_or(0)
    }

    pub fn longest(&self) -> usize {
        self.ranges.iter().map(|r| r.len()).max().unwrap_or(0)
    }

    /// Whether some sequence is shorter than 2(T + P) rows: its shifts cannot all keep a
    /// claim apart from the outcomes it shares rows with, so the null leans towards the
    /// observed value (conservative).
    pub fn conservative(&self) -> bool {
        self.ranges.iter().any(|r| r.len() < 2 * self.span)
    }

    /// Whether some sequence can be shifted at all (3 units or more).
    pub fn shiftable(&self) -> bool {
        self.ranges.iter().any(|r| r.len() >= 3)
    }

    /// The prefix counts: per sequence `q`, its cells' counts over its first `j` units at
    /// `[ranges[q].start + q + j]`.
    pub(super) fn prefix(&self) -> &Prefix {
        &self.prefix
    }

    /// The cells' counts over units `start..end` of sequence `q` (local, `end ≤ m`): the
    /// difference of two prefix rows.
    #[cfg(test)]
    fn counts(&self, q: usize, start: usize, end: usize) -> [u32; CELLS] {
        let base = self.ranges[q].start + q;
        let mut out = [0; CELLS];
        match &self.prefix {
            Prefix::Narrow(p) => p[base + end].add_difference(&p[base + start], &mut out),
            Prefix::Wide(p) => p[base + end].add_difference(&p[base + start], &mut out),
        }
        out
    }
}

/// Null draw `u`'s shift of a sequence of `m` units: `k = lo + floor(u · (hi - lo + 1))`
/// with `lo = min(span, floor(m / 3))`, `hi = m - lo`; used modulo m.
pub fn shift(m: usize, span: usize, u: f64) -> usize {
    if m == 0 {
        return 0;
    }
    let lo = span.min(m / 3);
    let hi = m - lo;
    let k = lo + ((u * (hi - lo + 1) as f64) as usize).min(hi - lo);
    k % m
}

/// `m / (1 + 2 Σ ρ_k)` for a sequence `x`, summing its autocorrelations ρ_k from lag 1
/// while they are positive; a sequence without spread counts as 1.
pub fn effective_size(x: &[f64]) -> f64 {
    let m = x.len();
    if m == 0 {
        return 0.0;
    }
    let mean = x.iter().sum::<f64>() / m as f64;
    let d: Vec<f64> = x.iter().map(|v| v - mean).collect();
    let c0: f64 = d.iter().map(|v| v * v).sum();
    if c0 == 0.0 {
        return 1.0;
    }
    let mut sum = 0.0;
    for k in 1..m {
        let ck: f64 = d[..m - k].iter().zip(&d[k..]).map(|(a, b)| a * b).sum();
        let rho = ck / c0;
        if rho <= 0.0 {
            break;
        }
        sum += rho;
    }
    m as f64 / (1.0 + 2.0 * sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds are stated once and each refusal names its option with the value given.
    #[test]
    fn the_protocol_refuses_no_draws_and_too_many_by_option() {
        let flag = |o: crate::names::Opt| format!("--{}", o.name().replace('_', "-"));
        let said = |null_draws, bootstrap| {
            Protocol {
                null_draws,
                bootstrap,
                fit_subset_above: None,
            }
            .check()
            .map_err(|e| e.phrase().worded(flag))
        };
        assert_eq!(said(99, 199), Ok(()));
        assert_eq!(said(9_999, 9_999), Ok(()));
        let refused = [
            (
                said(0, 199),
                "--null-draws 0: the null needs at least 1 draw (99 by default)",
            ),
            (
                said(10_000, 199),
                "--null-draws 10000: at most 9999 (the null's p-values then resolve 1e-4)",
            ),
            (
                said(99, 0),
                "--bootstrap 0: the intervals and ties need at least 1 replicate (199 by default)",
            ),
            (
                said(99, 10_000),
                "--bootstrap 10000: at most 9999 replicates",
            ),
        ];
        for (got, want) in refused {
            assert_eq!(got, Err(want.to_string()));
        }
    }

    #[test]
    fn shifts_stay_apart_from_the_unit() {
        // m = 100 units, span 10: shifts 10..=90, never closer than 10 to the unit itself.
        for i in 0..1000 {
            let k = shift(100, 10, i as f64 / 1000.0);
            assert!((10..=90).contains(&k), "{k}");
        }
        assert_eq!(shift(100, 10, 0.0), 10);
        assert_eq!(shift(100, 10, 0.999_999), 90);
        // A short sequence: lo = floor(m/3).
        assert_eq!(shift(7, 50, 0.0), 2);
        assert_eq!(shift(1, 50, 0.5), 0);
    }

    /// The counts over any stretch of a sequence are the cells counted one by one, in
    /// 16-bit prefixes (every sequence under 65,536 units) and 32-bit ones (one longer).
    #[test]
    fn counts_over_a_stretch_are_its_cells_counted() {
        let cell = |i: usize| -> [u8; 3] {
            let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            [
                (h % 4) as u8,
                4 + (h / 4 % 9) as u8,
                13 + (h / 36 % 9) as u8,
            ]
        };
        let p = Protocol {
            null_draws: 1,
            bootstrap: 1,
            ..Protocol::default()
        };
        for (ranges, wide) in [
            (vec![0..1000, 1000..66_535], false),
            (vec![0..10, 10..70_010], true),
        ] {
            let n = ranges.last().unwrap().end;
            let s = Sequences::new(ranges.clone(), (0..n).map(cell).collect(), 50, p);
            assert_eq!(matches!(s.prefix, Prefix::Wide(_)), wide);
            for (q, r) in ranges.iter().enumerate() {
                let m = r.len();
                for (a, b) in [
                    (0, m),
                    (0, 0),
                    (m / 3, m / 2),
                    (m - 1, m),
                    (7, m.min(65_540)),
                ] {
                    let mut want = [0u32; CELLS];
                    for i in r.start + a..r.start + b {
                        for c in cell(i) {
                            want[c as usize] += 1;
                        }
                    }
                    assert_eq!(s.counts(q, a, b), want, "sequence {q}, units {a}..{b}");
                }
            }
        }
    }

    #[test]
    fn blocks_cover_each_sequence_once_in_length() {
        let ranges = vec![0..10, 10..35, 35..36];
        let s = Sequences::new(
            ranges.clone(),
            vec![[0, 4, 13]; 36],
            7,
            Protocol {
                null_draws: 3,
                bootstrap: 20,
                ..Protocol::default()
            },
        );
        for pieces in &s.blocks {
            let mut per_seq = [0usize; 3];
            for p in pieces {
                assert!(p.start < p.end && p.end as usize <= ranges[p.seq as usize].len());
                per_seq[p.seq as usize] += (p.end - p.start) as usize;
            }
            assert_eq!(per_seq, [10, 25, 1]);
        }
        assert_eq!(s.shifts.len(), 9);
    }

    #[test]
    fn effective_size_of_independent_and_of_blocky_sequences() {
        // Alternating: ρ_1 < 0, nothing summed.
        let x: Vec<f64> = (0..100).map(|i| (i % 2) as f64).collect();
        assert_eq!(effective_size(&x), 100.0);
        // Runs of 10 equal values: far fewer effective units.
        let x: Vec<f64> = (0..100).map(|i| ((i / 10) % 2) as f64).collect();
        assert!(effective_size(&x) < 20.0, "{}", effective_size(&x));
        assert_eq!(effective_size(&[1.0; 5]), 1.0);
    }
}
