//! Information in bits: plug-in entropies with the Miller–Madow correction, the mutual
//! information of a claim and an outcome, the null's and the bootstrap's random numbers,
//! and the diversity of prompt texts (docs/score.md#information).

use std::f64::consts::LN_2;
use xxhash_rust::xxh3::xxh3_128;

/// The entropy in bits of a distribution given by its cell counts over `n` units: plug-in
/// `-Σ p ln p` plus Miller and Madow's `(m - 1) / 2n` (m the non-empty cells), in nats,
/// then bits.
pub fn entropy_mm(counts: &[u32], n: usize) -> f64 {
    (plug_in_nats(counts, n) + miller_madow(counts, n)) / LN_2
}

/// The plug-in entropy in bits, without correction.
pub fn entropy_plug_in(counts: impl IntoIterator<Item = u32>, n: usize) -> f64 {
    let counts: Vec<u32> = counts.into_iter().collect();
    plug_in_nats(&counts, n) / LN_2
}

fn plug_in_nats(counts: &[u32], n: usize) -> f64 {
    let n = n as f64;
    -counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            p * p.ln()
        })
        .sum::<f64>()
}

fn miller_madow(counts: &[u32], n: usize) -> f64 {
    let m = counts.iter().filter(|&&c| c > 0).count();
    if n == 0 || m == 0 {
        return 0.0;
    }
    (m - 1) as f64 / (2.0 * n as f64)
}

/// `I(C; O) = H(C) + H(O) - H(C, O)` in bits, each entropy Miller–Madow corrected, over
/// units whose claim category is `claim[i]` (< `k_claim`) and outcome class `outcome[i]`
/// (< `k_outcome`). The correction can make a near-zero value slightly negative; it is
/// reported as it is.
pub fn mutual_information(claim: &[u32], outcome: &[u32], k_claim: usize, k_outcome: usize) -> f64 {
    assert_eq!(
        claim.len(),
        outcome.len(),
        "one claim and one outcome per unit"
    );
    let n = claim.len();
    if n == 0 {
        return 0.0;
    }
    let mut joint = vec![0u32; k_claim * k_outcome];
    for (&a, &b) in claim.iter().zip(outcome) {
        joint[a as usize * k_outcome + b as usize] += 1;
    }
    mutual_information_of_table(&joint, k_claim, k_outcome, n)
}

/// `mutual_information` from the joint counts (`joint[claim · k_outcome + outcome]`) of
/// `n` units.
pub fn mutual_information_of_table(
    joint: &[u32],
    k_claim: usize,
    k_outcome: usize,
    n: usize,
) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let mut c = vec![0u32; k_claim];
    let mut o = vec![0u32; k_outcome];
    for (cell, &count) in joint.iter().enumerate() {
        c[cell / k_outcome] += count;
        o[cell % k_outcome] += count;
    }
    entropy_mm(&c, n) + entropy_mm(&o, n) - entropy_mm(joint, n)
}

/// `c ln c` for every count up to a part's units, so that an entropy over many tables (the
/// null's draws, the bootstrap's replicates) costs a lookup per cell, not a logarithm:
/// `H = ln n - Σ c ln c / n`, the plug-in entropy `-Σ p ln p` rearranged (equal to within
/// a few ulps).
#[derive(Debug, Clone, Default)]
pub struct XLnX(Vec<f64>);

impl XLnX {
    /// The table for counts `0..=n`.
    pub fn new(n: usize) -> XLnX {
        XLnX(
            (0..=n)
                .map(|c| {
                    if c == 0 {
                        0.0
                    } else {
                        c as f64 * (c as f64).ln()
                    }
                })
                .collect(),
        )
    }

    /// [`entropy_mm`] of `counts` over `n` units (every count ≤ the table's n).
    pub fn entropy_mm(&self, counts: &[u32], n: usize) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let mut sum = 0.0;
        let mut cells = 0usize;
        for &c in counts {
            sum += self.0[c as usize];
            cells += usize::from(c > 0);
        }
        let n = n as f64;
        ((n.ln() - sum / n) + cells.saturating_sub(1) as f64 / (2.0 * n)) / LN_2
    }

    /// `I(C; O)` in bits from a joint table `joint[claim · k_outcome + outcome]` of `n`
    /// units, as [`mutual_information_of_table`].
    pub fn mutual_information(&self, joint: &[u32], k_outcome: usize, n: usize) -> f64 {
        let k_claim = joint.len() / k_outcome;
        let mut c = vec![0u32; k_claim];
        let mut o = [0u32; 8];
        for (cell, &count) in joint.iter().enumerate() {
            c[cell / k_outcome] += count;
            o[cell % k_outcome] += count;
        }
        self.entropy_mm(&c, n) + self.entropy_mm(&o[..k_outcome], n) - self.entropy_mm(joint, n)
    }
}

/// numpy's quantile `q` (linear) of `values`, sorted in place: the null's and the
/// bootstrap's summaries.
pub fn quantile_of(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    super::outcomes::quantile(values, q)
}

/// The 95% percentile interval of bootstrap replicates (numpy's linear quantiles 2.5%
/// and 97.5%); [NaN, NaN] without replicates.
pub fn interval(replicates: &[f64]) -> [f64; 2] {
    let mut v = replicates.to_vec();
    [quantile_of(&mut v, 0.025), quantile_of(&mut v, 0.975)]
}

/// The 95% interval of `a - b` over paired replicates (the same blocks for both);
/// [NaN, NaN] when they are not paired (other lengths) or there are none.
pub fn paired_interval(a: &[f64], b: &[f64]) -> [f64; 2] {
    if a.len() != b.len() || a.is_empty() {
        return [f64::NAN; 2];
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    interval(&d)
}

/// A uniform number in [0, 1) from SplitMix64: its top 53 bits (`(next >> 11) / 2^53`).
pub fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64 (Steele, Lea and Flood), the null's and the bootstrap's random numbers: a few
/// lines that any language reproduces, so both can be checked independently.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// How varied a set of prompt texts is: distinct texts and the plug-in entropy of their
/// distribution in bits, as written and with every run of digits masked (the words alone).
/// Texts are told apart by a 128-bit hash (XXH3): two different texts of a sweep share one
/// with a probability far below 10⁻²⁵.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Diversity {
    pub distinct: usize,
    pub entropy_bits: f64,
    pub distinct_masked: usize,
    pub entropy_masked_bits: f64,
}

/// A text told apart by its hashes (XXH3-128): as written, and with its digits masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextKey {
    pub text: u128,
    pub masked: u128,
}

impl Diversity {
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Diversity {
        let mut buf = Vec::new();
        let mut hashes: Vec<TextKey> = texts
            .into_iter()
            .map(|t| Diversity::hashes(t, &mut buf))
            .collect();
        Diversity::of_hashes(&mut hashes)
    }

    /// What one text adds to its set: the hashes of the text and of its words alone
    /// (digits masked), so that a caller may keep 32 bytes per prompt, not its text.
    pub fn hashes(text: &str, buf: &mut Vec<u8>) -> TextKey {
        mask_digits_into(text.as_bytes(), buf);
        TextKey {
            text: xxh3_128(text.as_bytes()),
            masked: xxh3_128(buf),
        }
    }

    /// The diversity of the texts whose [`Diversity::hashes`] these are (or any keys
    /// that are equal where the texts are), in any order (they are sorted here).
    pub fn of_hashes(hashes: &mut [TextKey]) -> Diversity {
        let (distinct, entropy_bits) = runs(hashes, |h| h.text);
        let (distinct_masked, entropy_masked_bits) = runs(hashes, |h| h.masked);
        Diversity {
            distinct,
            entropy_bits,
            distinct_masked,
            entropy_masked_bits,
        }
    }
}

/// How many distinct `key`s the texts have, and the plug-in entropy of their counts.
fn runs(hashes: &mut [TextKey], key: impl Fn(&TextKey) -> u128 + Copy) -> (usize, f64) {
    let n = hashes.len();
    hashes.sort_unstable_by_key(key);
    let mut counts: Vec<u32> = hashes
        .chunk_by(|a, b| key(a) == key(b))
        .map(|run| run.len() as u32)
        .collect();
    // Summed in an order of their own, not the hashes': the same bits whatever keys tell
    // the texts apart.
    counts.sort_unstable();
    (counts.len(), entropy_plug_in(counts, n))
}

/// `text` with each maximal run of ASCII digits replaced by one `#` (Python's
/// `re.sub(r"[0-9]+", "#", text)`), into `out`.
pub fn mask_digits(text: &str, out: &mut String) {
    let mut bytes = Vec::with_capacity(text.len());
    mask_digits_into(text.as_bytes(), &mut bytes);
    out.clear();
    // Only ASCII digits were replaced, by an ASCII byte: still UTF-8.
    out.push_str(&String::from_utf8_lossy(&bytes));
}

fn mask_digits_into(text: &[u8], out: &mut Vec<u8>) {
    out.clear();
    mask_digits_onto(text, out, false);
}

/// `text` masked as [`mask_digits`] does, appended to `out`, where the text `out` masks
/// ends in a digit when `after_digit` (a run of digits that goes on into `text` is
/// masked once): so the masks of a text's pieces, appended in turn, are the text's mask.
pub fn mask_digits_onto(text: &[u8], out: &mut Vec<u8>, after_digit: bool) {
    // Eight bytes at a time: a word without a digit (most of a prompt's words) is copied
    // whole; one with a digit goes byte by byte, branch-free: every byte is written and
    // the write position moves on unless the byte continues a run of digits.
    let mut j = out.len();
    out.resize(j + text.len(), 0);
    let mut in_digits = after_digit;
    let mut words = text.chunks_exact(8);
    for w in &mut words {
        let word = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        if !has_digit(word) {
            out[j..j + 8].copy_from_slice(w);
            j += 8;
            in_digits = false;
            continue;
        }
        for &b in w {
            let digit = b.is_ascii_digit();
            out[j] = if digit { b'#' } else { b };
            j += usize::from(!(digit && in_digits));
            in_digits = digit;
        }
    }
    for &b in words.remainder() {
        let digit = b.is_ascii_digit();
        out[j] = if digit { b'#' } else { b };
        j += usize::from(!(digit && in_digits));
        in_digits = digit;
    }
    out.truncate(j);
}

/// Whether any byte of `w` is an ASCII digit (b'0'..=b'9'), without a branch per byte:
/// a byte is a digit when `b - 0x30` and `0x39 - b` both keep their top bit clear, for
/// bytes below 0x80 (a byte at or above 0x80 is never a digit).
fn has_digit(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let ascii = !w & HIGH; // top bit set where the byte is < 0x80
    let low = w & !HIGH; // the bytes' low seven bits
                         // low + 0x50 sets the top bit where low >= 0x30 (no carry between bytes: < 0x80 + 0x50).
    let ge_30 = (low + 0x50 * ONES) & HIGH;
    // low + 0x46 sets it where low >= 0x3A.
    let ge_3a = (low + 0x46 * ONES) & HIGH;
    ge_30 & !ge_3a & ascii != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_by_hand() {
        // Two equal cells: 1 bit, plus (2 - 1) / (2·4) nats.
        let h = entropy_mm(&[2, 2, 0], 4);
        assert!((h - (1.0 + 0.125 / LN_2)).abs() < 1e-15);
        assert_eq!(entropy_mm(&[5], 5), 0.0);
        assert!((entropy_plug_in([1, 1, 1, 1], 4) - 2.0).abs() < 1e-15);
    }

    #[test]
    fn information_of_a_copy_and_of_independence() {
        // A claim that is the outcome: MI = H(O) + its correction (the joint has as many
        // cells as O).
        let o = [0, 1, 0, 1, 1, 0, 0, 1];
        let mi = mutual_information(&o, &o, 2, 2);
        assert!((mi - entropy_mm(&[4, 4], 8)).abs() < 1e-12, "{mi}");
        // Independent by construction: every (claim, outcome) cell once. Plug-in MI is 0;
        // the correction adds (2-1)/2n twice and subtracts (4-1)/2n.
        let c = [0, 0, 1, 1];
        let o = [0, 1, 0, 1];
        let mi = mutual_information(&c, &o, 2, 2);
        assert!((mi - (-1.0 / 8.0) / LN_2).abs() < 1e-15, "{mi}");
    }

    #[test]
    fn splitmix64_and_the_table_entropy() {
        // The table's entropy equals the direct one.
        let t = XLnX::new(40);
        for counts in [&[2u32, 2, 0][..], &[5], &[1, 7, 0, 32], &[10, 10, 10, 10]] {
            let n = counts.iter().sum::<u32>() as usize;
            assert!((t.entropy_mm(counts, n) - entropy_mm(counts, n)).abs() < 1e-13);
        }
        // SplitMix64's published first output for seed 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn digit_words_found_as_bytes_are() {
        for b in 0..=255u8 {
            for k in 0..8 {
                let mut bytes = [b'a'; 8];
                bytes[k] = b;
                assert_eq!(
                    has_digit(u64::from_le_bytes(bytes)),
                    b.is_ascii_digit(),
                    "{b} at {k}"
                );
            }
        }
        let mut m = String::new();
        mask_digits(
            "Input statistics: range [-2.39, 13.38], median 0.11 héllo 42",
            &mut m,
        );
        assert_eq!(m, "Input statistics: range [-#.#, #.#], median #.# héllo #");
    }

    #[test]
    fn diversity_masks_numbers() {
        let d = Diversity::of([
            "range [1.5, 20]",
            "range [2.25, 3]",
            "range [1.5, 20]",
            "flat",
        ]);
        assert_eq!((d.distinct, d.distinct_masked), (3, 2));
        assert!((d.entropy_bits - 1.5).abs() < 1e-15);
        let mut m = String::new();
        mask_digits("lags [0, 12, 511], x-0.25", &mut m);
        assert_eq!(m, "lags [#, #, #], x-#.#");
    }

    #[test]
    fn a_texts_pieces_masked_in_turn_are_its_mask() {
        // Every cut of texts whose runs of digits cross the cuts, or end or start them.
        let texts = [
            "range [12.5, 3] 7",
            "123456789012345678",
            "a1b22c333d4444e55555f",
            "x",
            "",
            "9 lags [0, 12, 511]99",
        ];
        for text in texts {
            let bytes = text.as_bytes();
            let mut whole = Vec::new();
            mask_digits_into(bytes, &mut whole);
            for cut in 0..=bytes.len() {
                for cut2 in cut..=bytes.len() {
                    let mut pieces = Vec::new();
                    let mut after = false;
                    for piece in [&bytes[..cut], &bytes[cut..cut2], &bytes[cut2..]] {
                        mask_digits_onto(piece, &mut pieces, after);
                        after = match piece.last() {
                            Some(b) => b.is_ascii_digit(),
                            None => after,
                        };
                    }
                    assert_eq!(pieces, whole, "{text:?} cut at {cut} and {cut2}");
                }
            }
        }
    }
}
