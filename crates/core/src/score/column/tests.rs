//! The column statistics against tables counted unit by unit from their definitions.
use super::null::{null, Way, CODED_CATEGORIES};
use super::*;
use crate::score::cells::cells;
use crate::score::information::entropy_mm;
use crate::score::sequences::Protocol;
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

/// Sequences of made-up cells and a claim column of 4 categories in runs of `run_len`.
fn made(run_len: usize) -> (Vec<u32>, Sequences) {
    made_of(run_len, 4)
}

/// [`made`] with `k` categories.
fn made_of(run_len: usize, k: u64) -> (Vec<u32>, Sequences) {
    let ranges = vec![0..300, 300..420, 420..800];
    let mut next = lcg(99);
    let mut ids = Vec::new();
    let mut id = 0;
    for i in 0..800 {
        if i % run_len == 0 {
            id = (next() % k) as u32;
        }
        ids.push(id);
    }
    let p = Protocol {
        null_draws: 19,
        bootstrap: 29,
        ..Protocol::default()
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
        let cmi = h(pairs.iter().map(|p| (p.0, b(&p.1))), n) + h(pairs.iter().map(|p| ob(&p.1)), n)
            - h(pairs.iter().map(|p| (p.0, ob(&p.1))), n)
            - h(pairs.iter().map(|p| b(&p.1)), n);
        (mi, cmi)
    })
}

/// Each table counted unit by unit from its definition: observed, per null draw, per
/// replicate.
type Brute = ([(f64, f64); 3], Vec<[(f64, f64); 3]>, Vec<[(f64, f64); 3]>);
fn brute(ids: &[u32], s: &Sequences) -> Brute {
    let observed: Vec<(u32, [u8; 3])> = ids.iter().copied().zip(s.cells.iter().copied()).collect();
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
    // Long runs take the run path, runs of 1 the unit path (one code per unit up to
    // CODED_CATEGORIES, three cells past it).
    const { assert!(4 <= CODED_CATEGORIES && 12 > CODED_CATEGORIES) };
    for (run_len, k) in [(1, 4), (3, 4), (25, 4), (1, 12), (25, 12)] {
        let (ids, s) = made_of(run_len, k);
        let (observed, null, boot) = brute(&ids, &s);
        for (t, target) in Target::ALL.into_iter().enumerate() {
            let got = column_stats(&ids, k as usize, Some(target), &s, &XLnX::new(s.units()));
            assert!(got
                .boot
                .0
                .iter()
                .enumerate()
                .all(|(u, b)| (u == t) != b.is_empty()));
            let what = format!("runs of {run_len}, {k} categories, outcome {t}");
            assert!(
                (got.info[target].mi_bits - observed[t].0).abs() < 1e-12,
                "{what}"
            );
            assert!(
                (got.complementary[target].mi_bits - observed[t].1).abs() < 1e-12,
                "{what}"
            );
            let mut n: Vec<f64> = null.iter().map(|v| v[t].0).collect();
            assert!(
                (got.info[target].null_median - quantile_of(&mut n, 0.5)).abs() < 1e-12,
                "{what}"
            );
            let mut n: Vec<f64> = null.iter().map(|v| v[t].1).collect();
            assert!(
                (got.complementary[target].null_p95 - quantile_of(&mut n, 0.95)).abs() < 1e-12,
                "{what}"
            );
            assert_eq!(got.boot[target].len(), boot.len());
            for (r, b) in boot.iter().enumerate() {
                assert!(
                    (got.boot[target][r] - b[t].0).abs() < 1e-12,
                    "{what} replicate {r}"
                );
                assert!(
                    (got.boot_complementary[target][r] - b[t].1).abs() < 1e-12,
                    "{what}"
                );
            }
        }
    }
}

/// Each way of counting the null gives every draw the definition's information, whatever
/// the column: runs long or short, one category to many.
#[test]
fn every_way_counts_each_null_draw_as_the_definition() {
    for (run_len, k) in [
        (1, 1),
        (1, 2),
        (7, 3),
        (1, 4),
        (25, 5),
        (3, 9),
        (1, 12),
        (25, 12),
    ] {
        let (ids, s) = made_of(run_len, k);
        let (_, want, _) = brute(&ids, &s);
        let runs = runs(&ids, &s);
        let k = k as usize;
        let ways = [Way::Runs, Way::Units, Way::Masks];
        for way in ways {
            let xlnx = XLnX::new(s.units());
            let got = null(way, &ids, &runs, k, &s, &xlnx, &mut Scratch::default());
            for (t, got) in got.iter().enumerate() {
                assert_eq!(got.len(), want.len());
                for (b, (g, w)) in got.iter().zip(&want).enumerate() {
                    let what = format!("{way:?}, runs of {run_len}, {k} categories, draw {b}");
                    assert!((g.0 - w[t].0).abs() < 1e-12, "{what}: {g:?} {:?}", w[t]);
                    assert!((g.1 - w[t].1).abs() < 1e-12, "{what}: {g:?} {:?}", w[t]);
                }
            }
        }
    }
}

/// A claim of too many categories to keep every sequence's snapshots counts each
/// replicate unit by unit: the same tables.
#[test]
fn the_bootstrap_counts_the_same_with_and_without_snapshots() {
    for run_len in [1, 25] {
        let (ids, s) = made(run_len);
        let xlnx = XLnX::new(s.units());
        for t in 0..3 {
            let mut scratch = Scratch::default();
            let snapped = bootstrap(&ids, 4, t, &s, &xlnx, &mut scratch, SNAPSHOT_COUNTS);
            let direct = bootstrap(&ids, 4, t, &s, &xlnx, &mut scratch, 0);
            assert_eq!(snapped.len(), s.blocks.len());
            assert_eq!(snapped, direct, "runs of {run_len}, outcome {t}");
        }
    }
}

#[test]
fn a_claim_that_is_the_outcome_stands_above_its_null() {
    let (_, s) = made(5);
    let ids: Vec<u32> = s.cells.iter().map(|c| c[0] as u32 / 2).collect();
    let got = column_stats(&ids, 2, Some(Target::Direction), &s, &XLnX::new(s.units()));
    let d = got.info[Target::Direction];
    assert!(d.mi_bits > 0.9 && d.p == 1.0 / 20.0, "{d:?}");
    assert!(d.excess_bits > 0.9);
    // The forecaster's classes are random here: the claim adds all it knows.
    assert!(got.complementary[Target::Direction].excess_bits > 0.9);
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
        for i in got.info.0 {
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
