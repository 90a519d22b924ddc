//! The wording of the features (SPEC §5): thresholds and names in one place.

/// Names of the bands in frequency-pattern descriptions, by band index.
pub fn pattern_band_name(k: usize) -> String {
    match k {
        0 => "trend".into(),
        1 => "seasonal".into(),
        2 => "fluctuation".into(),
        3 => "noise".into(),
        k => format!("band{k}"),
    }
}

/// Names of the bands in trend descriptions, by band index.
pub fn trend_band_name(k: usize) -> String {
    match k {
        0 => "long-term".into(),
        1 => "seasonal".into(),
        2 => "medium-term".into(),
        3 => "short-term".into(),
        k => format!("scale{k}"),
    }
}

pub fn frequency_pattern(entropy: f64, dominant: usize, dominant_energy: f64) -> String {
    let base = if entropy < 0.5 {
        "single-scale dominant"
    } else if entropy < 1.0 {
        "dual-scale pattern"
    } else {
        "multi-scale complex"
    };
    if dominant_energy > 0.7 {
        format!("{base} ({})", pattern_band_name(dominant))
    } else {
        base.to_string()
    }
}

pub fn trend(signs: &[i8], consistency: f64) -> String {
    let dir = |s: i8| if s > 0 { "upward" } else { "downward" };
    let s0 = signs.first().copied().unwrap_or(0);
    if consistency == 1.0 {
        format!("consistent {}", dir(s0))
    } else if consistency >= 0.75 {
        let k = signs.iter().position(|&s| s != s0).unwrap_or(0);
        format!("mostly {}, except {}", dir(s0), trend_band_name(k))
    } else {
        let up = signs.iter().filter(|&&s| s > 0).count();
        format!("mixed ({up}/{} scales upward)", signs.len())
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

pub fn stability(volatility_ratio: f64, strong_mid: bool) -> String {
    let base = if volatility_ratio > 5.0 {
        "stable trend with high short-term volatility"
    } else if volatility_ratio > 2.0 {
        "moderate volatility across scales"
    } else if volatility_ratio > 0.5 {
        "balanced multi-scale variations"
    } else {
        "trend-dominated with low noise"
    };
    if strong_mid {
        format!("{base} (strong mid-frequency components)")
    } else {
        base.to_string()
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
