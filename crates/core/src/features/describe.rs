//! The wording of the features (docs/features.md#descriptions): thresholds and names in one place.
//!
//! Every wording is formatted once for the process (`wordings`, for up to 32 bands) and
//! then borrowed, so a prompt's descriptions cost no allocation; only wordings of more
//! bands are made per case.

use super::Text;
use std::sync::OnceLock;

/// Names of the bands in frequency-pattern descriptions, by band index.
const PATTERN_BANDS: [&str; 4] = ["trend", "seasonal", "fluctuation", "noise"];

/// Names of the bands in trend descriptions, by band index.
const TREND_BANDS: [&str; 4] = ["long-term", "seasonal", "medium-term", "short-term"];

const PATTERN_BASES: [&str; 3] = [
    "single-scale dominant",
    "dual-scale pattern",
    "multi-scale complex",
];

const DIRECTIONS: [&str; 2] = ["upward", "downward"];

const STABILITY_BASES: [&str; 4] = [
    "stable trend with high short-term volatility",
    "moderate volatility across scales",
    "balanced multi-scale variations",
    "trend-dominated with low noise",
];

/// Bands the wordings are made for once (a sweep makes them for every unit of hundreds of
/// configurations); past this many, per case.
const WORDED_BANDS: usize = 32;

/// The wordings built from the tables above, made on first use.
struct Wordings {
    /// `"{base} ({band})"` per pattern base and band.
    patterns: Vec<Vec<String>>,
    /// `"mostly {direction}, except {band}"` per direction and band.
    mostly: Vec<Vec<String>>,
    /// `"mixed ({up}/{n} scales upward)"` per `n` and `up`.
    mixed: Vec<Vec<String>>,
    /// `"{base} (strong mid-frequency components)"` per stability base.
    strong_mid: Vec<String>,
}

fn wordings() -> &'static Wordings {
    static WORDINGS: OnceLock<Wordings> = OnceLock::new();
    WORDINGS.get_or_init(|| Wordings {
        patterns: PATTERN_BASES
            .iter()
            .map(|base| {
                (0..WORDED_BANDS)
                    .map(|k| format!("{base} ({})", pattern_band_name(k)))
                    .collect()
            })
            .collect(),
        mostly: DIRECTIONS
            .iter()
            .map(|dir| {
                (0..WORDED_BANDS)
                    .map(|k| format!("mostly {dir}, except {}", trend_band_name(k)))
                    .collect()
            })
            .collect(),
        mixed: (0..=WORDED_BANDS)
            .map(|n| {
                (0..=n)
                    .map(|up| format!("mixed ({up}/{n} scales upward)"))
                    .collect()
            })
            .collect(),
        strong_mid: STABILITY_BASES
            .iter()
            .map(|base| format!("{base} (strong mid-frequency components)"))
            .collect(),
    })
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
    match wordings().patterns[base].get(dominant) {
        Some(text) => text.as_str().into(),
        None => format!("{} ({})", PATTERN_BASES[base], pattern_band_name(dominant)).into(),
    }
}

pub fn trend(signs: &[i8], consistency: f64) -> Text {
    let s0 = signs.first().copied().unwrap_or(0);
    // Index into DIRECTIONS: zero counts as downward.
    let dir = usize::from(s0 <= 0);
    if consistency == 1.0 {
        ["consistent upward", "consistent downward"][dir].into()
    } else if consistency >= 0.75 {
        let k = signs.iter().position(|&s| s != s0).unwrap_or(0);
        match wordings().mostly[dir].get(k) {
            Some(text) => text.as_str().into(),
            None => format!("mostly {}, except {}", DIRECTIONS[dir], trend_band_name(k)).into(),
        }
    } else {
        let up = signs.iter().filter(|&&s| s > 0).count();
        match wordings().mixed.get(signs.len()).and_then(|m| m.get(up)) {
            Some(text) => text.as_str().into(),
            None => format!("mixed ({up}/{} scales upward)", signs.len()).into(),
        }
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
    if strong_mid {
        wordings().strong_mid[class].as_str().into()
    } else {
        STABILITY_BASES[class].into()
    }
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

    /// Every wording with a named band, as the functions give it, borrowed (no allocation).
    #[test]
    fn named_wordings_are_borrowed_and_read_as_formatted() {
        for (b, entropy) in [0.2, 0.7, 1.2].into_iter().enumerate() {
            for (k, band) in PATTERN_BANDS.iter().enumerate() {
                let got = frequency_pattern(entropy, k, 0.9);
                assert_eq!(got, format!("{} ({band})", PATTERN_BASES[b]));
                assert!(matches!(got, Text::Borrowed(_)));
            }
        }
        // Three of four scales one way: the odd one out (scales 1 to 3) is named.
        for (d, s) in [1i8, -1].into_iter().enumerate() {
            for k in 1..TREND_BANDS.len() {
                let mut signs = [s; 4];
                signs[k] = -s;
                let got = trend(&signs, 0.75);
                let want = format!("mostly {}, except {}", DIRECTIONS[d], TREND_BANDS[k]);
                assert_eq!(got, want);
                assert!(matches!(got, Text::Borrowed(_)));
            }
        }
        for (class, ratio) in [6.0, 3.0, 1.0, 0.1].into_iter().enumerate() {
            assert_eq!(
                stability(ratio, true),
                format!(
                    "{} (strong mid-frequency components)",
                    STABILITY_BASES[class]
                )
            );
            assert_eq!(stability(ratio, false), STABILITY_BASES[class]);
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
        // Unnamed bands and mixed trends are borrowed too, up to WORDED_BANDS bands.
        for got in [
            frequency_pattern(1.2, 6, 0.8),
            trend(&[-1, -1, -1, -1, -1, 1], 5.0 / 6.0),
            trend(&[1, -1, 1, -1], 0.5),
        ] {
            assert!(matches!(got, Text::Borrowed(_)), "{got}");
        }
        let many: Vec<i8> = (0..40).map(|i| if i % 3 == 0 { 1 } else { -1 }).collect();
        let got = trend(&many, 0.5);
        assert_eq!(got, "mixed (14/40 scales upward)");
        assert!(matches!(got, Text::Owned(_)));
        assert_eq!(
            frequency_pattern(0.2, 35, 0.9),
            "single-scale dominant (band35)"
        );
    }
}
