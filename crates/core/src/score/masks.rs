//! A part's cells as bit masks: per cell, one bit per unit, each sequence starting on a
//! word of its own. A claim of few categories is counted against a shifted sequence by
//! rotating its categories' masks and counting the bits they share with each cell's mask
//! (popcount), 64 units per instruction, where counting unit by unit costs one increment
//! per unit.
//!
//! Each outcome's first cell is not kept: within a category the outcome's cells sum to
//! the category's units, so that cell is the rest.

use super::sequences::{CELLS, OFFSET};
use std::ops::Range;

/// How many cells have masks: all but each outcome's first.
pub const MASKED: usize = CELLS - OFFSET.len();

/// The cells that have masks, in the order of a word's masks.
pub const MASKED_CELLS: [usize; MASKED] = {
    let mut out = [0; MASKED];
    let (mut i, mut c) = (0, 0);
    while c < CELLS {
        if c != OFFSET[0] && c != OFFSET[1] && c != OFFSET[2] {
            out[i] = c;
            i += 1;
        }
        c += 1;
    }
    out
};

/// The part's cells as masks.
#[derive(Debug, Clone, Default)]
pub struct CellMasks {
    /// Sequence `q`'s words: `starts[q]..starts[q + 1]`.
    pub starts: Vec<usize>,
    /// Per masked cell `i` ([`MASKED_CELLS`]), its bits at `bits[i · words + w]` (`words`
    /// the last start): bit `j` of word `w` is unit `64 (w - starts[q]) + j` of sequence
    /// `q`; bits past a sequence's end are 0.
    pub bits: Vec<u64>,
    /// The part's units in each cell.
    pub totals: [u32; CELLS],
}

impl CellMasks {
    /// The masks of `cells`, sequence after sequence (`ranges`).
    pub fn of(ranges: &[Range<usize>], cells: &[[u8; 3]]) -> CellMasks {
        let mut slot = [usize::MAX; CELLS];
        for (i, &c) in MASKED_CELLS.iter().enumerate() {
            slot[c] = i;
        }
        let mut starts = vec![0];
        for r in ranges {
            starts.push(starts[starts.len() - 1] + r.len().div_ceil(64));
        }
        let words = starts[starts.len() - 1];
        let mut bits = vec![0u64; MASKED * words];
        let mut totals = [0u32; CELLS];
        for (r, &first) in ranges.iter().zip(&starts) {
            for (j, unit) in cells[r.clone()].iter().enumerate() {
                for &c in unit {
                    totals[c as usize] += 1;
                    if let Some(&i) = slot.get(c as usize).filter(|&&i| i != usize::MAX) {
                        bits[i * words + first + j / 64] |= 1 << (j % 64);
                    }
                }
            }
        }
        CellMasks {
            starts,
            bits,
            totals,
        }
    }

    /// All sequences' words.
    pub fn words(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    /// Masked cell `i`'s words over sequence `q`.
    pub fn of_sequence(&self, i: usize, q: usize) -> &[u64] {
        let at = i * self.words();
        &self.bits[at + self.starts[q]..at + self.starts[q + 1]]
    }
}

/// A sequence of `m` units as one category's mask written twice over (`2m` bits, then
/// two zero words), so that any rotation of it is a window of 64-bit reads.
pub fn doubled(member: impl Fn(usize) -> bool, m: usize) -> Vec<u64> {
    let mut out = vec![0u64; (2 * m).div_ceil(64) + 2];
    for j in 0..m {
        if member(j) {
            for b in [j, j + m] {
                out[b / 64] |= 1 << (b % 64);
            }
        }
    }
    out
}

/// The 64 bits of `doubled` from bit `at`.
#[inline(always)]
pub fn bits_at(doubled: &[u64], at: usize) -> u64 {
    let (w, s) = (at / 64, at % 64);
    if s == 0 {
        doubled[w]
    } else {
        (doubled[w] >> s) | (doubled[w + 1] << (64 - s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_hold_each_cell_of_each_unit() {
        let ranges = vec![0..70, 70..71, 71..200];
        let cells: Vec<[u8; 3]> = (0..200u32)
            .map(|i| [(i % 4) as u8, 4 + (i * 7 % 9) as u8, 13 + (i * 5 % 9) as u8])
            .collect();
        let m = CellMasks::of(&ranges, &cells);
        assert_eq!(m.starts, vec![0, 2, 3, 6]);
        for (q, r) in ranges.iter().enumerate() {
            for (i, &c) in MASKED_CELLS.iter().enumerate() {
                let words = m.of_sequence(i, q);
                assert_eq!(words.len(), r.len().div_ceil(64));
                for (j, unit) in cells[r.clone()].iter().enumerate() {
                    let set = words[j / 64] >> (j % 64) & 1 == 1;
                    assert_eq!(set, unit.contains(&(c as u8)), "sequence {q} unit {j}");
                }
                // Past the end, nothing.
                for j in r.len()..words.len() * 64 {
                    assert_eq!(words[j / 64] >> (j % 64) & 1, 0);
                }
            }
        }
        assert_eq!(m.totals.iter().sum::<u32>(), 3 * 200);
        assert_eq!(MASKED_CELLS[..4], [1, 2, 3, 5]);
    }

    #[test]
    fn a_rotation_is_read_from_the_doubled_mask() {
        let m = 150;
        let member = |j: usize| j % 3 == 0 || j % 7 == 0;
        let d = doubled(member, m);
        for k in [0, 1, 63, 64, 65, 149] {
            // Bit j of the rotation is unit (j - k) mod m.
            for j in 0..m {
                let bit = bits_at(&d, m - k + j / 64 * 64) >> (j % 64) & 1 == 1;
                assert_eq!(bit, member((j + m - k) % m), "shift {k}, unit {j}");
            }
        }
    }
}
