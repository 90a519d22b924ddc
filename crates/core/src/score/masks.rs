//! A part's cells as bit masks: per cell, one bit per unit, each sequence starting on a
//! word of its own. A claim of few categories is counted against a shifted sequence by
//! rotating its categories' masks and counting the bits they share with each cell's mask,
//! 256 units a few vector instructions, where counting unit by unit costs an increment
//! per unit.
//!
//! Each outcome's first cell is not kept: within a category the outcome's cells sum to
//! the category's units, so that cell is the rest.

use super::cells::{CELLS, OFFSET};
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
        let mut slot = [None; CELLS];
        for (i, &c) in MASKED_CELLS.iter().enumerate() {
            slot[c] = Some(i);
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
                    if let Some(i) = slot[c as usize] {
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
    #[cfg(test)]
    fn of_sequence(&self, i: usize, q: usize) -> &[u64] {
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

impl CellMasks {
    /// Per category `c` and masked cell `i`, the bits the category's rotated masks
    /// (`rotated[c · words ..][..words]`, laid out as the cells' words) share with the
    /// cell's.
    pub fn shared<const C: usize>(&self, rotated: &[u64]) -> [[u32; MASKED]; C] {
        let words = self.words();
        assert_eq!(
            rotated.len(),
            C * words,
            "internal: a rotation per category"
        );
        #[cfg(target_arch = "x86_64")]
        if crate::numeric::simd::Isa::Avx2.supported() {
            // SAFETY: the CPU has AVX2; the lengths are checked above.
            return unsafe { x86::shared_cells::<C>(rotated, &self.bits, words) };
        }
        let mut out = [[0; MASKED]; C];
        for (i, cell) in self.bits.chunks_exact(words.max(1)).enumerate() {
            for (c, out) in out.iter_mut().enumerate() {
                let rotated = &rotated[c * words..][..words];
                out[i] = rotated
                    .iter()
                    .zip(cell)
                    .map(|(a, b)| (a & b).count_ones())
                    .sum();
            }
        }
        out
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::MASKED;
    use std::arch::x86_64::*;

    /// [`super::CellMasks::shared`]: cell by cell, four words at a time, each byte's bits
    /// counted by two nibble lookups into byte counters, which are summed into 64-bit
    /// lanes (`sad`) every 31 rounds, before a byte could pass 255 (8 a round). One load
    /// of a cell's words serves every category.
    ///
    /// # Safety
    /// The CPU must have AVX2; `rotated` holds `C · words` words and `bits` `MASKED ·
    /// words`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn shared_cells<const C: usize>(
        rotated: &[u64],
        bits: &[u64],
        words: usize,
    ) -> [[u32; MASKED]; C] {
        let nibbles = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let low = _mm256_set1_epi8(0x0f);
        let zero = _mm256_setzero_si256();
        let blocks = words / 4;
        let rp = rotated.as_ptr();
        let mut out = [[0u32; MASKED]; C];
        for i in 0..MASKED {
            let cell = &bits[i * words..][..words];
            let cp = cell.as_ptr();
            let mut total = [zero; C];
            let mut b = 0;
            while b < blocks {
                let end = (b + 31).min(blocks);
                let mut bytes = [zero; C];
                while b < end {
                    let x = _mm256_loadu_si256(cp.add(4 * b).cast());
                    for (c, acc) in bytes.iter_mut().enumerate() {
                        let r = _mm256_loadu_si256(rp.add(c * words + 4 * b).cast());
                        let v = _mm256_and_si256(x, r);
                        let lo = _mm256_shuffle_epi8(nibbles, _mm256_and_si256(v, low));
                        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), low);
                        let hi = _mm256_shuffle_epi8(nibbles, hi);
                        *acc = _mm256_add_epi8(*acc, _mm256_add_epi8(lo, hi));
                    }
                    b += 1;
                }
                for (t, acc) in total.iter_mut().zip(bytes) {
                    *t = _mm256_add_epi64(*t, _mm256_sad_epu8(acc, zero));
                }
            }
            for (c, total) in total.into_iter().enumerate() {
                let mut lanes = [0u64; 4];
                _mm256_storeu_si256(lanes.as_mut_ptr().cast(), total);
                let rotated = &rotated[c * words..][..words];
                let tail: u32 = (4 * blocks..words)
                    .map(|w| (rotated[w] & cell[w]).count_ones())
                    .sum();
                out[c][i] = lanes.iter().sum::<u64>() as u32 + tail;
            }
        }
        out
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

    /// The counts agree with bit-by-bit counting, at lengths around the vectors' four
    /// words and the byte counters' 31 rounds, with full words (the most a counter takes).
    #[test]
    fn shared_bits_are_counted_whatever_the_length() {
        let mut next = crate::testing::xorshift(0x1234_5678_9abc_def0);
        for len in [1, 3, 4, 5, 123, 124, 125, 300] {
            // Two sequences, one of `len` words and one of 2.
            let (m, ranges) = (
                64 * len + 2 * 64,
                vec![0..64 * len, 64 * len..64 * len + 100],
            );
            let cells: Vec<[u8; 3]> = (0..m)
                .map(|_| {
                    let h = next();
                    let full = h.is_multiple_of(5);
                    let d = if full { 1 } else { (h % 4) as u8 };
                    [d, 4 + (h / 4 % 9) as u8, 13 + (h / 36 % 9) as u8]
                })
                .collect();
            let masks = CellMasks::of(&ranges, &cells[..64 * len + 100]);
            let words = masks.words();
            let mut rotated: Vec<u64> = (0..3 * words).map(|_| next()).collect();
            rotated[..words].fill(u64::MAX);
            let got = masks.shared::<3>(&rotated);
            for (i, cell) in masks.bits.chunks_exact(words).enumerate() {
                for c in 0..3 {
                    let want = (0..words * 64)
                        .filter(|&j| {
                            (rotated[c * words + j / 64] & cell[j / 64]) >> (j % 64) & 1 == 1
                        })
                        .count() as u32;
                    assert_eq!(got[c][i], want, "{len} words, category {c}, cell {i}");
                }
            }
        }
    }

    #[test]
    fn a_rotation_is_read_from_the_doubled_mask() {
        let m = 150;
        let member = |j: usize| j.is_multiple_of(3) || j.is_multiple_of(7);
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
