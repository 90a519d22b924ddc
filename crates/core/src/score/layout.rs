//! How many units a data set's rows give each part, from its shape alone (every file's
//! rows, the window, horizon, stride and split): the count that a sweep's refusals check
//! and that every value they suggest is searched with, so a suggestion passes the check it
//! was made by (docs/score.md#split).

use super::{Part, Split};
use std::ops::Range;

/// The shape units are counted from.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Each file's rows (the `--rows` range, or all).
    pub files: Vec<Range<usize>>,
    pub seq_len: usize,
    pub pred_len: usize,
    pub stride: usize,
}

/// What a refusal may suggest, each found by [`Layout::fits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    PredLen(usize),
    SeqLen(usize),
    Stride(usize),
}

/// Units a part needs: train one (the forecaster and the terciles), val and test three
/// each (a circular shift moves a sequence by at least a third of it).
fn needed(part: Part) -> usize {
    match part {
        Part::Train => 1,
        Part::Val | Part::Test => 3,
    }
}

impl Layout {
    /// T + P in units: the bootstrap's block, the null's least shift.
    pub fn span(&self) -> usize {
        self.seq_len
            .saturating_add(self.pred_len)
            .div_ceil(self.stride.max(1))
    }

    /// A channel's units in `part` of a file whose windows start at `first`, every
    /// `stride` rows: windows whose horizon lies wholly in the part (in val and test the
    /// window may reach back into the part before; in train it lies in train too).
    pub fn units_in(&self, first: usize, part_rows: &Range<usize>) -> usize {
        let stride = self.stride.max(1);
        let lo = part_rows.start.saturating_sub(self.seq_len).max(first);
        let Some(hi) = part_rows
            .end
            .checked_sub(self.seq_len.saturating_add(self.pred_len))
        else {
            return 0;
        };
        if hi < lo {
            return 0;
        }
        let (k0, k1) = ((lo - first).div_ceil(stride), (hi - first) / stride);
        (k1 + 1).saturating_sub(k0)
    }

    /// Each part's longest channel sequence over the files, under `split`; None where the
    /// split cannot cut a file.
    pub fn longest(&self, split: &Split) -> Option<[usize; 3]> {
        let mut longest = [0usize; 3];
        for rows in &self.files {
            let b = split.borders(rows.start, rows.len()).ok()?;
            for p in Part::ALL {
                let n = self.units_in(rows.start, b.part(p));
                longest[p as usize] = longest[p as usize].max(n);
            }
        }
        Some(longest)
    }

    /// Whether every part gets the units a sweep needs under `split`.
    pub fn fits(&self, split: &Split) -> bool {
        self.pred_len >= 2
            && self
                .longest(split)
                .is_some_and(|l| Part::ALL.into_iter().all(|p| l[p as usize] >= needed(p)))
    }

    /// The same layout with another window, horizon or stride.
    fn with(&self, seq_len: usize, pred_len: usize, stride: usize) -> Layout {
        Layout {
            files: self.files.clone(),
            seq_len,
            pred_len,
            stride,
        }
    }

    /// The largest value below `given` (and at least `least`) for which the layout that
    /// `with` makes of it fits; none above the longest file's rows can, so a huge value
    /// given is no huge search.
    fn largest(
        &self,
        split: &Split,
        given: usize,
        least: usize,
        with: impl Fn(usize) -> Layout,
    ) -> Option<usize> {
        let rows = self.files.iter().map(|r| r.len()).max().unwrap_or(0);
        (least..given.min(rows + 1))
            .rev()
            .find(|&v| with(v).fits(split))
    }

    /// The longest horizon that fits, if any does.
    pub fn longest_pred_len(&self, split: &Split) -> Option<usize> {
        self.largest(split, self.pred_len, 2, |p| {
            self.with(self.seq_len, p, self.stride)
        })
    }

    /// The longest window that fits, if any does.
    pub fn longest_seq_len(&self, split: &Split) -> Option<usize> {
        self.largest(split, self.seq_len, 2, |t| {
            self.with(t, self.pred_len, self.stride)
        })
    }

    /// The largest stride below this one that fits, if any does.
    pub fn largest_stride(&self, split: &Split) -> Option<usize> {
        self.largest(split, self.stride, 1, |s| {
            self.with(self.seq_len, self.pred_len, s)
        })
    }

    /// The first of these that fits, in the order a researcher would rather change them:
    /// the stride (the same windows, more of them), the horizon, the window.
    pub fn fix(&self, split: &Split) -> Option<Fix> {
        self.largest_stride(split)
            .map(Fix::Stride)
            .or_else(|| self.longest_pred_len(split).map(Fix::PredLen))
            .or_else(|| self.longest_seq_len(split).map(Fix::SeqLen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Time-LLM's ILI set-up: 966 weekly rows, 36-row windows. Val (0.1 of the rows: 97)
    /// holds a 97-row horizon once, so a shift cannot move it: the longest horizon that
    /// leaves val three units is 95.
    #[test]
    fn the_longest_horizon_leaves_three_units_to_shift() {
        let l = Layout {
            files: std::iter::once(0..966).collect(),
            seq_len: 36,
            pred_len: 200,
            stride: 1,
        };
        let split = Split::default();
        assert!(!l.fits(&split));
        assert_eq!(l.longest_pred_len(&split), Some(95));
        assert!(l.with(36, 95, 1).fits(&split));
        assert!(!l.with(36, 96, 1).fits(&split));
        assert_eq!(l.fix(&split), Some(Fix::PredLen(95)));
    }

    #[test]
    fn units_count_the_windows_whose_horizon_lies_in_the_part() {
        let l = Layout {
            files: std::iter::once(0..100).collect(),
            seq_len: 10,
            pred_len: 5,
            stride: 3,
        };
        // Val rows 70..80: windows start at 0, 3, 6, …; a horizon [s+10, s+15) in 70..80
        // means s in 60..=65: 60 and 63.
        assert_eq!(l.units_in(0, &(70..80)), 2);
        assert_eq!(l.units_in(0, &(70..74)), 0);
        assert_eq!(l.longest(&Split::default()), Some([19, 2, 5]));
    }
}
