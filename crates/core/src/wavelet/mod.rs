//! What a wavelet is: the 106 discrete filter banks of PyWavelets, their families and names.
//!
//! The banks are data (`assets/wavelets.json`, written by `scripts/gen_wavelets.py` from
//! `pywt.Wavelet(name).filter_bank`), parsed once on first use.

mod mode;

pub use mode::{Mode, Tap};

use serde::Deserialize;
use std::sync::OnceLock;

/// One discrete wavelet: its four filters exactly as pywt's `filter_bank` gives them.
#[derive(Debug, Clone, Deserialize)]
pub struct Wavelet {
    pub name: String,
    /// Short family name as pywt spells it: `haar`, `db`, `sym`, `coif`, `bior`, `rbio`, `dmey`.
    pub family: String,
    pub family_name: String,
    pub filter_length: usize,
    pub orthogonal: bool,
    pub biorthogonal: bool,
    pub symmetry: String,
    pub dec_lo: Vec<f64>,
    pub dec_hi: Vec<f64>,
    pub rec_lo: Vec<f64>,
    pub rec_hi: Vec<f64>,
}

#[derive(Deserialize)]
struct Bank {
    pywt_version: String,
    wavelets: Vec<Wavelet>,
}

fn bank() -> &'static Bank {
    static BANK: OnceLock<Bank> = OnceLock::new();
    BANK.get_or_init(|| {
        // The asset is compiled in; a parse failure is a build defect caught by every test.
        serde_json::from_str(include_str!("../../../../assets/wavelets.json"))
            .expect("assets/wavelets.json is valid")
    })
}

/// Every wavelet, grouped by family in pywt's order (haar, db, sym, coif, bior, rbio, dmey).
pub fn all() -> &'static [Wavelet] {
    &bank().wavelets
}

/// The PyWavelets version the filter banks were generated with.
pub fn pywt_version() -> &'static str {
    &bank().pywt_version
}

/// The family names, in display order.
pub fn families() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for w in all() {
        if !out.contains(&w.family.as_str()) {
            out.push(&w.family);
        }
    }
    out
}

/// Unknown wavelet name: carries the closest known names for the message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown wavelet '{name}'{}", suggestion_text(.suggestions))]
pub struct UnknownWavelet {
    pub name: String,
    pub suggestions: Vec<String>,
}

fn suggestion_text(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", s.join(", "))
    }
}

/// Look a wavelet up by its pywt name (case-insensitive).
pub fn lookup(name: &str) -> Result<&'static Wavelet, UnknownWavelet> {
    let wanted = name.trim().to_ascii_lowercase();
    all()
        .iter()
        .find(|w| w.name == wanted)
        .ok_or_else(|| UnknownWavelet {
            name: name.to_string(),
            suggestions: nearest_names(&wanted, 3),
        })
}

/// The `k` known names closest to `name` by edit distance (ties in catalogue order).
pub fn nearest_names(name: &str, k: usize) -> Vec<String> {
    crate::suggest::nearest(name, all().iter().map(|w| w.name.as_str()), k)
}

impl Wavelet {
    /// pywt's `dwt_max_level(n, filter_len)`: `floor(log2(n / (L - 1)))`, 0 when `n < L - 1`.
    pub fn max_level(&self, n: usize) -> usize {
        max_level(n, self.filter_length)
    }
}

/// `floor(log2(n / (filter_len - 1)))`, 0 when `n < filter_len - 1` (pywt's `dwt_max_level`).
pub fn max_level(n: usize, filter_len: usize) -> usize {
    if filter_len < 2 || n < filter_len - 1 {
        return 0;
    }
    // Integer form of floor(log2(n / (L-1))): the largest j with (L-1) * 2^j <= n.
    let mut level = 0;
    while (filter_len - 1) << (level + 1) <= n {
        level += 1;
    }
    level
}

/// Coefficient count of one DWT level for an input of length `n`.
pub fn dwt_len(n: usize, filter_len: usize, mode: Mode) -> usize {
    if mode == Mode::Periodization {
        n.div_ceil(2)
    } else {
        (n + filter_len - 1) / 2
    }
}

/// Lengths of `[cA_n, cD_n, …, cD_1]` for a `level`-deep decomposition of length `n`.
pub fn band_lengths(n: usize, filter_len: usize, mode: Mode, level: usize) -> Vec<usize> {
    let mut lens = Vec::with_capacity(level + 1);
    let mut cur = n;
    for _ in 0..level {
        cur = dwt_len(cur, filter_len, mode);
        lens.push(cur);
    }
    lens.push(*lens.last().unwrap_or(&n));
    lens.reverse();
    lens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_has_every_pywt_discrete_wavelet() {
        assert_eq!(all().len(), 106);
        assert_eq!(
            families(),
            ["haar", "db", "sym", "coif", "bior", "rbio", "dmey"]
        );
        assert_eq!(lookup("DB4").unwrap().filter_length, 8);
        assert_eq!(lookup("dmey").unwrap().filter_length, 62);
    }

    #[test]
    fn unknown_names_suggest_neighbours() {
        let e = lookup("db44").unwrap_err();
        assert!(e.suggestions.contains(&"db4".to_string()), "{e}");
        let e = lookup("symm4").unwrap_err();
        assert_eq!(e.suggestions[0], "sym4", "{e}");
    }

    #[test]
    fn max_level_matches_pywt() {
        // pywt.dwt_max_level(512, 8) == 6, (7, 8) == 0, (14, 8) == 1, (6, 8) == 0, (1, 2) == 0
        assert_eq!(max_level(512, 8), 6);
        assert_eq!(max_level(7, 8), 0);
        assert_eq!(max_level(14, 8), 1);
        assert_eq!(max_level(6, 8), 0);
        assert_eq!(max_level(1, 2), 0);
        assert_eq!(max_level(2, 2), 1);
        assert_eq!(max_level(1000, 2), 9);
    }

    #[test]
    fn band_lengths_follow_pywt() {
        // pywt.wavedec(np.zeros(512), "db4", level=3) lengths: [70, 70, 133, 259]
        assert_eq!(band_lengths(512, 8, Mode::Reflect, 3), [70, 70, 133, 259]);
        assert_eq!(band_lengths(17, 8, Mode::Periodization, 2), [5, 5, 9]);
    }
}
