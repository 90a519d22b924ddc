//! The wording of the features (SPEC §5): thresholds and names in one place.
//!
//! Descriptions are static text wherever the wording allows (every combination with the
//! four named bands is spelled out below by `named!`); only wordings with numbers or
//! unnamed bands are made per case.

use super::Text;

/// Names of the bands in frequency-pattern descriptions, by band index.
const PATTERN_BANDS: [&str; 4] = ["trend", "seasonal", "fluctuation", "noise"];

/// Names of the bands in trend descriptions, by band index.
const TREND_BANDS: [&str; 4] = ["long-term", "seasonal", "medium-term", "short-term"];

/// `[$head + $band + $tail for every named band]`, spelled at compile time; the names
/// must match `PATTERN_BANDS` / `TREND_BANDS` (a unit test checks).
macro_rules! named {
    ($head:literal, [$($band:literal),*], $tail:literal) => {
        [$(concat!($head, $band, $tail)),*]
    };
}

pub fn pattern_band_name(k: usize) -> Text {
    match PATTERN_BANDS.get(k) {
        Some(&name) => name.into(),
        None => format!("band{k}").into(),
    }
}

pub fn trend_band_name(k: usize) -> Text {
    match TREND_BANDS.get(k) {
        Some(&name) => name.into(),
        None => format!("scale{k}").into(),
    }
}

const PATTERN_BASES: [&str; 3] = [
    "single-scale dominant",
    "dual-scale pattern",
    "multi-scale complex",
];
/// `"{base} ({band})"` for every base and named band.
const PATTERNS: [[&str; 4]; 3] = [
    named!(
        "single-scale dominant (",
        ["trend", "seasonal", "fluctuation", "noise"],
        ")"
    ),
    named!(
        "dual-scale pattern (",
        ["trend", "seasonal", "fluctuation", "noise"],
        ")"
    ),
    named!(
        "multi-scale complex (",
        ["trend", "seasonal", "fluctuation", "noise"],
        ")"
    ),
];

pub fn frequency_pattern(entropy: f64, dominant: usize, dominant_energy: f64) -> Text {
    let base = if entropy < 0.5 {
        0
    } else if entropy < 1.0 {
        1
    } else {
        2
    };
    if dominant_energy <= 0.7 {
        return PATTERN_BASES[base].into();
    }
    match PATTERNS[base].get(dominant) {
        Some(&text) => text.into(),
        None => format!("{} ({})", PATTERN_BASES[base], pattern_band_name(dominant)).into(),
    }
}

/// `"mostly {dir}, except {band}"` for both directions and every named band.
const MOSTLY: [[&str; 4]; 2] = [
    named!(
        "mostly upward, except ",
        ["long-term", "seasonal", "medium-term", "short-term"],
        ""
    ),
    named!(
        "mostly downward, except ",
        ["long-term", "seasonal", "medium-term", "short-term"],
        ""
    ),
];

pub fn trend(signs: &[i8], consistency: f64) -> Text {
    let s0 = signs.first().copied().unwrap_or(0);
    let dir = |s: i8| usize::from(s <= 0);
    if consistency == 1.0 {
        ["consistent upward", "consistent downward"][dir(s0)].into()
    } else if consistency >= 0.75 {
        let k = signs.iter().position(|&s| s != s0).unwrap_or(0);
        match MOSTLY[dir(s0)].get(k) {
            Some(&text) => text.into(),
            None => format!(
                "mostly {}, except {}",
                ["upward", "downward"][dir(s0)],
                trend_band_name(k)
            )
            .into(),
        }
    } else {
        let up = signs.iter().filter(|&&s| s > 0).count();
        format!("mixed ({up}/{} scales upward)", signs.len()).into()
    }
}

pub fn quality(snr_db: f64) -> &'static str {
    if snr_db > 20.0 {
        "high SNR (clean)"
    } else if snr_db > 10.0 {
        "moderate SNR"
    } else {
        "low SNR (noisy)"
    }
}

/// `[plain, with the mid-frequency note]` per volatility class.
const STABILITY: [[&str; 2]; 4] = [
    [
        "stable trend with high short-term volatility",
        "stable trend with high short-term volatility (strong mid-frequency components)",
    ],
    [
        "moderate volatility across scales",
        "moderate volatility across scales (strong mid-frequency components)",
    ],
    [
        "balanced multi-scale variations",
        "balanced multi-scale variations (strong mid-frequency components)",
    ],
    [
        "trend-dominated with low noise",
        "trend-dominated with low noise (strong mid-frequency components)",
    ],
];

pub fn stability(volatility_ratio: f64, strong_mid: bool) -> Text {
    let class = if volatility_ratio > 5.0 {
        0
    } else if volatility_ratio > 2.0 {
        1
    } else if volatility_ratio > 0.5 {
        2
    } else {
        3
    };
    STABILITY[class][usize::from(strong_mid)].into()
}

pub fn difficulty(score: f64) -> &'static str {
    if score < 15.0 {
        "low"
    } else if score < 30.0 {
        "moderate"
    } else {
        "high"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spelled-out tables say exactly what the formats would.
    #[test]
    fn static_wordings_match_their_formats() {
        for (b, base) in PATTERN_BASES.iter().enumerate() {
            for (k, band) in PATTERN_BANDS.iter().enumerate() {
                assert_eq!(PATTERNS[b][k], format!("{base} ({band})"));
            }
        }
        for (d, dir) in ["upward", "downward"].iter().enumerate() {
            for (k, band) in TREND_BANDS.iter().enumerate() {
                assert_eq!(MOSTLY[d][k], format!("mostly {dir}, except {band}"));
            }
        }
        for row in STABILITY {
            assert_eq!(
                row[1],
                format!("{} (strong mid-frequency components)", row[0])
            );
        }
        assert_eq!(
            frequency_pattern(1.2, 6, 0.8),
            "multi-scale complex (band6)"
        );
        assert_eq!(
            trend(&[-1, -1, -1, -1, -1, 1], 5.0 / 6.0),
            "mostly downward, except scale5"
        );
        assert_eq!(trend(&[1, -1, 1, -1], 0.5), "mixed (2/4 scales upward)");
        assert!(matches!(frequency_pattern(0.2, 1, 0.9), Text::Borrowed(_)));
    }
}
