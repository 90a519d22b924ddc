//! Intervals the data cannot give are not shown (docs/score.md#intervals-withheld): a
//! part none of whose channel sequences holds two bootstrap blocks has replicates that
//! barely differ from the observed units, and a figure whose two percentiles lie within
//! [`COLLAPSED`] of each other says only that its replicates did not vary. Such an
//! interval is NaN in the reports (JSON null, "—" in the tables), and no tie, "above 0" or
//! gain verdict is drawn from it. One warning per part names a fix that passes the same
//! count (a val or test share, or a `--seq-len`), or says the file is too short.

use super::{PartUnits, Sweep};
use wavebench_core::score::{Layout, Part, Split};

/// Below this width a 95% interval says only that the replicates did not vary.
pub const COLLAPSED: f64 = 1e-12;

/// An interval as the reports show it: NaN where its part's intervals are withheld or its
/// percentiles collapse.
pub fn shown(interval: [f64; 2], withheld: bool) -> [f64; 2] {
    // A NaN width (no replicates) is not wide enough either.
    let wide = (interval[1] - interval[0]).partial_cmp(&COLLAPSED);
    if withheld
        || !matches!(
            wide,
            Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
        )
    {
        [f64::NAN; 2]
    } else {
        interval
    }
}

impl PartUnits {
    /// Why this part's intervals are withheld, if they are: none of its sequences holds
    /// two bootstrap blocks of `span` units.
    pub fn withheld(&self) -> Option<String> {
        let longest = self.longest.max(self.shortest);
        (longest < 2 * self.span).then(|| {
            format!(
                "no channel sequence holds 2 bootstrap blocks (2 × (T + P) = {} units; the longest holds {longest})",
                2 * self.span
            )
        })
    }
}

impl Sweep {
    /// The part's units as sequences (val or test; train is not scored).
    pub fn units_of(&self, part: Part) -> &PartUnits {
        match part {
            Part::Test => &self.parts.test,
            Part::Val | Part::Train => &self.parts.val,
        }
    }

    /// Whether `part`'s intervals are withheld.
    pub fn withholds(&self, part: Part) -> bool {
        self.units_of(part).withheld().is_some()
    }

    /// An interval of `part` as the reports show it ([`shown`]).
    pub fn shown(&self, part: Part, interval: [f64; 2]) -> [f64; 2] {
        shown(interval, self.withholds(part))
    }

    /// One warning per part whose intervals are withheld: why, and a fix that passes the
    /// same count, or that the file is too short for intervals.
    pub fn withheld_warnings(&self) -> Vec<String> {
        [Part::Val, Part::Test]
            .into_iter()
            .filter_map(|part| {
                let why = self.units_of(part).withheld()?;
                let fix = Shape::of(self).map_or_else(
                    || "the data is too short for intervals".to_string(),
                    |shape| shape.fix(part),
                );
                Some(format!(
                    "{}: {why}, so its intervals are withheld and no tie or gain verdict is drawn from them; {fix}",
                    part.name()
                ))
            })
            .collect()
    }
}

/// What the count of a part's units depends on: the core's [`Layout`] (every file's
/// rows, the window, horizon and stride) and the split.
struct Shape<'a> {
    layout: Layout,
    split: &'a Split,
}

impl<'a> Shape<'a> {
    fn of(s: &'a Sweep) -> Option<Shape<'a>> {
        Some(Shape {
            layout: Layout {
                files: s
                    .files
                    .iter()
                    .map(|(_, b)| b.train.start..b.test.end)
                    .collect(),
                seq_len: s.base.seq_len?,
                pred_len: s.base.pred_len,
                stride: s.base.stride.max(1),
            },
            split: &s.split,
        })
    }

    /// Whether `split` at windows of `seq_len` gives `part` a sequence of two blocks and
    /// every part the units a sweep needs.
    fn holds(&self, split: &Split, seq_len: usize, part: Part) -> bool {
        let layout = Layout {
            seq_len,
            ..self.layout.clone()
        };
        layout.fits(split)
            && layout
                .longest(split)
                .is_some_and(|l| l[part as usize] >= 2 * layout.span())
    }

    /// The smallest change that gives `part` two blocks: a larger share of the rows (taken
    /// from train), else a shorter window; or that the data is too short.
    fn fix(&self, part: Part) -> String {
        if let Split::Ratios { train, val, test } = *self.split {
            for step in 1..100 {
                let d = step as f64 / 100.0;
                let (t, v, s) = match part {
                    Part::Test => (train - d, val, test + d),
                    _ => (train - d, val + d, test),
                };
                if t < 0.01 {
                    break;
                }
                let round = |x: f64| (x * 100.0).round() / 100.0;
                let split = Split::Ratios {
                    train: round(t),
                    val: round(v),
                    test: round(s),
                };
                if self.holds(&split, self.layout.seq_len, part) {
                    return format!("give --split {split}");
                }
            }
        }
        if let Some(t) = (2..self.layout.seq_len)
            .rev()
            .find(|&t| self.holds(self.split, t, part))
        {
            return format!("give --seq-len {t} or less");
        }
        "the data is too short for intervals".to_string()
    }
}
