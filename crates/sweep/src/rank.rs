//! A sweep's rows ranked by what `--by` names ([`RankBy`]), and every figure that follows
//! the ranking: ties, the gap to the best, test ranks, Spearman's ρ and the warnings.

pub use super::rank_by::{Metric, RankBy};
use super::SweepRow;
use wavebench_core::score::Part;
use wavebench_core::transform::Transform;

/// The rows best first by `by` (ties in grid order), degenerate ones left out unless
/// `keep_degenerate`, each transform-free template's rows as one (its first in grid
/// order, [`Candidate::covers`] the others).
pub fn ranked(rows: &[SweepRow], by: RankBy, keep_degenerate: bool) -> Vec<&SweepRow> {
    let mut order: Vec<&SweepRow> = candidates(rows)
        .into_iter()
        .filter(|c| keep_degenerate || !c.degenerate())
        .map(|c| c.row)
        .collect();
    order.sort_by(|a, b| by.of(b).total_cmp(&by.of(a)));
    order
}

/// A row as the ranking sees it: a transform-free template's prompts are the same under
/// every transform, so its rows are one row, which covers the others' transforms.
#[derive(Debug, Clone)]
struct Candidate<'a> {
    row: &'a SweepRow,
    covers: Vec<Transform>,
}

impl Candidate<'_> {
    /// A level too deep for its band is no fault of a row that prints no band's word.
    fn degenerate(&self) -> bool {
        !self.row.transform_free && self.row.degenerate()
    }
}

/// Every row once: a transform-free template's first row in grid order, covering the rest.
fn candidates(rows: &[SweepRow]) -> Vec<Candidate<'_>> {
    let mut out: Vec<Candidate<'_>> = Vec::with_capacity(rows.len());
    for row in rows {
        let first = row.transform_free.then(|| {
            out.iter_mut()
                .find(|c| c.row.transform_free && c.row.template == row.template)
        });
        match first.flatten() {
            Some(c) => c.covers.push(row.transform),
            None => out.push(Candidate {
                row,
                covers: Vec::new(),
            }),
        }
    }
    out
}

/// One row's place in a ranking, and how far it stands from the best by the same
/// quantity.
#[derive(Debug, Clone)]
pub struct Standing<'a> {
    pub row: &'a SweepRow,
    /// The other transforms a transform-free template's row stands for (its prompts are
    /// the same under each).
    pub covers: Vec<Transform>,
    /// Its place by the ranking (None: degenerate, left unranked).
    pub rank: Option<usize>,
    /// Its place among the ranked rows by the same quantity on test (competition ranking:
    /// values within 1e-12 share a place); None for a feature's mean.
    pub test_rank: Option<usize>,
    /// The 95% bootstrap interval of (the best's value − its value) of what is ranked,
    /// the best being the first ranked row; [NaN, NaN] where that has no replicates.
    pub behind: [f64; 2],
    /// `behind` contains 0: the data cannot tell it from the best.
    pub tied: bool,
    /// Its val score minus the Time-LLM baseline's, and that difference's 95% interval.
    pub gain: f64,
    pub gain_interval: [f64; 2],
    /// Likewise beyond the series-only forecaster: its val complementary score minus the
    /// baseline's, and that difference's 95% interval.
    pub complementary_gain: f64,
    pub complementary_gain_interval: [f64; 2],
    /// Its val forecast gain minus the baseline's (fractions of the series-only MSE), and
    /// that difference's 95% interval; NaN where the sweep has no forecast gain.
    pub forecast_gain: f64,
    pub forecast_gain_interval: [f64; 2],
}

impl Standing<'_> {
    /// "db4 level 3", or for a row that covers other transforms its template's name and
    /// how many it stands for.
    pub fn label(&self) -> String {
        match self.covers.len() {
            0 => self.row.label(),
            n => format!("{} (any of {} transforms)", self.row.template, n + 1),
        }
    }

    /// "db4 L3" as the heat map's columns name levels (the app's table, where width is
    /// short); a covering row's label as [`Standing::label`].
    pub fn short_label(&self) -> String {
        match self.covers.len() {
            0 => {
                let t = &self.row.transform;
                format!("{} L{}", t.name(), t.level)
            }
            _ => self.label(),
        }
    }

    /// The label with the mode where it is not reflect, and the template.
    pub fn label_full(&self) -> String {
        match self.covers.len() {
            0 => self.row.label_full(),
            _ => self.label(),
        }
    }
}

/// A sweep's rows in report order (ranked first, then the degenerate ones), with test
/// ranks, ties and Spearman's ρ of the val and test values, all of the quantity ranked.
#[derive(Debug, Clone)]
pub struct Standings<'a> {
    pub by: RankBy,
    pub rows: Vec<Standing<'a>>,
    /// Spearman's rank correlation of val and test values over the ranked rows (None
    /// under 3 rows, when either is constant, or for a feature's mean).
    pub spearman: Option<f64>,
    /// Spearman's ρ of the val complementary scores and the val forecast gains over the
    /// ranked rows: whether the bits' proxy agrees with the forecaster.
    pub agreement: Option<f64>,
    /// Where in `rows` the best ranked row is.
    top: Option<usize>,
}

/// Test values within this of each other share a test rank.
const TEST_TIE: f64 = 1e-12;

impl<'a> Standings<'a> {
    pub fn of(sweep: &'a super::Sweep, by: RankBy, keep_degenerate: bool) -> Standings<'a> {
        let base = &sweep.baseline.val;
        let all = candidates(&sweep.rows);
        let (mut best, left): (Vec<Candidate>, Vec<Candidate>) = all
            .into_iter()
            .partition(|c| keep_degenerate || !c.degenerate());
        // Stable: equal values keep grid order.
        best.sort_by(|a, b| by.of(b.row).total_cmp(&by.of(a.row)));
        let tests: Vec<f64> = best.iter().map(|c| by.on_test(c.row)).collect();
        let test_ranks = competition_ranks(&tests);
        let top_boot = best.first().and_then(|c| by.replicates(c.row));
        let top_row = best.first().map(|c| c.row);
        // Val's intervals, as the reports show them (withheld where the part cannot
        // give them, or where a figure's percentiles collapse).
        let shown = |i: [f64; 2]| sweep.shown(Part::Val, i);
        let paired = |a: &[f64], b: &[f64]| shown(wavebench_core::score::paired_interval(a, b));
        let standing = |rank: Option<usize>, test_rank: Option<usize>, c: Candidate<'a>| {
            let row = c.row;
            let is_top = top_row.is_some_and(|t| std::ptr::eq(t, row));
            let behind = match (&top_boot, by.replicates(row)) {
                // The best is behind itself by nothing in every replicate.
                (Some(_), Some(_)) if is_top && !sweep.withholds(Part::Val) => [0.0; 2],
                (Some(t), Some(r)) => paired(t, &r),
                _ => [f64::NAN; 2],
            };
            Standing {
                row,
                covers: c.covers,
                rank,
                test_rank: test_rank.filter(|_| by.has_test()),
                behind,
                tied: rank.is_some() && behind[0] <= 0.0 && 0.0 <= behind[1],
                gain: row.val.score_bits - base.score_bits,
                gain_interval: paired(&row.val.boot, &base.boot),
                complementary_gain: row.val.complementary_bits - base.complementary_bits,
                complementary_gain_interval: paired(
                    &row.val.boot_complementary,
                    &base.boot_complementary,
                ),
                forecast_gain: match (&row.val.forecast, &base.forecast) {
                    (Some(r), Some(b)) => r.gain - b.gain,
                    _ => f64::NAN,
                },
                forecast_gain_interval: match (&row.val.forecast, &base.forecast) {
                    (Some(r), Some(b)) => paired(&r.boot, &b.boot),
                    _ => [f64::NAN; 2],
                },
            }
        };
        let val: Vec<f64> = best.iter().map(|c| by.of(c.row)).collect();
        let spearman = if by.has_test() {
            spearman(&val, &tests)
        } else {
            None
        };
        let agreement = {
            let [bits, gains] = [RankBy::Complementary, RankBy::Forecast]
                .map(|m| best.iter().map(|c| m.of(c.row)).collect::<Vec<f64>>());
            if gains.iter().all(|g| g.is_finite()) {
                self::spearman(&bits, &gains)
            } else {
                None
            }
        };
        let mut out: Vec<Standing> = best
            .into_iter()
            .zip(test_ranks)
            .enumerate()
            .map(|(i, (c, t))| standing(Some(i + 1), Some(t), c))
            .collect();
        let top = (!out.is_empty()).then_some(0);
        out.extend(left.into_iter().map(|c| standing(None, None, c)));
        Standings {
            by,
            spearman,
            agreement,
            top,
            rows: out,
        }
    }

    /// Whether the ranked quantity has intervals, and so ties and gaps to the best.
    pub fn has_intervals(&self) -> bool {
        self.rows
            .first()
            .is_some_and(|s| s.behind.iter().all(|v| v.is_finite()))
    }

    /// The ranked rows tied with the best (the best among them).
    pub fn tied(&self) -> impl Iterator<Item = &Standing<'a>> {
        self.rows.iter().filter(|s| s.tied)
    }

    /// Whether the best by the ranking is outside the test top 10% by the same quantity,
    /// and so does not generalise: its test rank and the ranked rows.
    pub fn val_best_falls(&self) -> Option<(&Standing<'a>, usize, usize)> {
        let ranked = self.rows.iter().filter(|s| s.rank.is_some()).count();
        let top = &self.rows[self.top?];
        let k = top.test_rank?;
        (k > ranked.div_ceil(10)).then_some((top, k, ranked))
    }

    /// The sweep's warnings and this ranking's: too few effective units, a conservative
    /// null, a val best that falls on test, and the verdicts on the Time-LLM baseline of
    /// the quantity ranked.
    pub fn warnings(&self, sweep: &super::Sweep) -> Vec<String> {
        let mut w = sweep.warnings();
        if let Some((s, k, n)) = self.val_best_falls() {
            w.push(format!(
                "val's best by {} ({}) ranks {k} of {n} on test, outside the test top 10%: the choice does not carry over",
                self.by.name(),
                s.label()
            ));
        }
        if self.none_beats_the_baseline() {
            let base = &sweep.baseline.val;
            w.push(match self.by {
                RankBy::Forecast => format!(
                    "no configuration's forecast gain over the Time-LLM baseline (its trend word alone: {} of the series-only forecaster's val MSE) has an interval above 0: on this data the wavelet's words lower the forecaster's error by nothing the data can tell",
                    base.forecast.as_ref().map_or("—".to_string(), |g| format!("{:.3} %", 100.0 * g.gain))
                ),
                RankBy::Complementary => format!(
                    "no configuration's gain beyond the series over the Time-LLM baseline (its trend word alone: {:.4} bits beyond the series on val) has an interval above 0: on this data the wavelet's words add nothing beyond the series the data can tell from it",
                    base.complementary_bits
                ),
                _ => {
                    // Beyond the series-only forecaster, rows may still tell more than its
                    // word.
                    let beyond = self
                        .ranked()
                        .filter(|s| s.complementary_gain_interval[0] > 0.0)
                        .count();
                    format!(
                        "no configuration's gain over the Time-LLM baseline (its trend word alone: {:.4} bits on val) has an interval above 0: on this data the wavelet's words add nothing the data can tell from it{}",
                        base.score_bits,
                        match beyond {
                            0 => String::new(),
                            n => format!(
                                ", though beyond the series-only forecaster {n} row{} do (\"gain beyond the series\" above 0)",
                                if n == 1 { "" } else { "s" }
                            ),
                        }
                    )
                }
            });
        }
        if self.beats_only_before_the_series() {
            w.push(format!(
                "rows beat the Time-LLM baseline's score, but beyond the series-only forecaster none tells more than its trend word ({:.4} bits on val; no paired interval above 0): what their words add, the series already says",
                sweep.baseline.val.complementary_bits
            ));
        }
        w
    }

    fn ranked(&self) -> impl Iterator<Item = &Standing<'a>> {
        self.rows.iter().filter(|s| s.rank.is_some())
    }

    /// Rows with wavelet words are ranked, and none's gain over Time-LLM's own prompt, in
    /// the quantity ranked, has an interval wholly above 0 (no verdict for a quantity the
    /// baseline has no value of).
    pub fn none_beats_the_baseline(&self) -> bool {
        // No verdict from a quantity the baseline has no value of, nor from withheld
        // intervals (NaN), either way.
        let judged = || {
            self.ranked()
                .filter_map(|s| verdict(self.by, s))
                .filter(|i| i[0].is_finite())
        };
        self.ranked().any(|s| !s.row.transform_free)
            && judged().next().is_some()
            && !judged().any(|i| i[0] > 0.0)
    }

    /// Ranked by the score: some ranked row's gain over the baseline has an interval
    /// above 0, but no row's gain beyond the series-only forecaster does: the words beat
    /// Time-LLM's only on what the series already tells. (Where no row beats it at all,
    /// `none_beats_the_baseline` warns instead.)
    pub fn beats_only_before_the_series(&self) -> bool {
        self.by == RankBy::Score
            && self.ranked().any(|s| s.gain_interval[0] > 0.0)
            && !self
                .ranked()
                .any(|s| s.complementary_gain_interval[0] > 0.0)
    }
}

/// The gain over the Time-LLM baseline the verdicts of a ranking by `by` read: the
/// score's, or the complementary score's; None for what the baseline has no value of.
fn verdict(by: RankBy, st: &Standing<'_>) -> Option<[f64; 2]> {
    match by {
        RankBy::Score => Some(st.gain_interval),
        RankBy::Complementary => Some(st.complementary_gain_interval),
        RankBy::Forecast => Some(st.forecast_gain_interval),
        RankBy::Mean(_) | RankBy::Pair(..) => None,
    }
}

/// Competition ranks of `v` highest first (1, 2, 2, 4): values within [`TEST_TIE`] of the
/// first of a run share its place.
fn competition_ranks(v: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&i, &j| v[j].total_cmp(&v[i]));
    let mut ranks = vec![0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let lead = v[order[i]];
        let mut j = i + 1;
        while j < order.len() && (lead - v[order[j]]).abs() <= TEST_TIE {
            j += 1;
        }
        for &k in &order[i..j] {
            ranks[k] = i + 1;
        }
        i = j;
    }
    ranks
}

/// Spearman's ρ: Pearson's correlation of the ranks (average ranks for ties).
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (average_ranks(a), average_ranks(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

/// Ranks 1..=n of `v` ascending, ties given their average rank (scipy's `rankdata`).
fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && v[order[j]] == v[order[i]] {
            j += 1;
        }
        let r = (i + j + 1) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = r;
        }
        i = j;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_as_scipy() {
        // scipy.stats.spearmanr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).statistic = 0.8207826816681233
        let r = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((r - 0.8207826816681233).abs() < 1e-12, "{r}");
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn test_ranks_share_a_place_within_their_tolerance() {
        let v = [0.5, 0.7, 0.7 + 5e-13, 0.1, 0.7 - 1e-13, 0.2];
        assert_eq!(competition_ranks(&v), vec![4, 1, 1, 6, 1, 5]);
        assert_eq!(competition_ranks(&[]), Vec::<usize>::new());
    }
}
