//! The features and their descriptions.

use wavebench_core::features::{Degenerate, Features};
use wavebench_core::prompt::pyfmt::Repr;

/// What a degenerate unit's flag means, in the app's words.
pub fn degenerate_note(d: Degenerate) -> &'static str {
    match d {
        Degenerate::Constant => {
            "Constant window: every value is the same, so the wavelet features describe nothing (the prompt says \"constant input\")."
        }
        Degenerate::Level => {
            "Level too deep for the window: the approximation band holds under 2 coefficients, so SNR, volatility, signal quality, stability and difficulty describe the level, not the data."
        }
    }
}

/// One row of the table: name, value, and an optional hover text.
type Row = (&'static str, String, Option<String>);

fn rows(f: &Features) -> Vec<Row> {
    let band = wavebench_core::engine::plan::band_names(f.energy_ratio.len().saturating_sub(1))
        .get(f.dominant_band)
        .map_or_else(|| "?".to_owned(), |s| s.clone());
    // A constant window has no energy in any band: its shares and their entropy are 0/0.
    let constant = f.degenerate == Some(Degenerate::Constant);
    let undefined = |shown: String| if constant { "—".to_string() } else { shown };
    vec![
        ("frequency pattern", f.freq_pattern.to_string(), None),
        ("trend", f.trend_desc.to_string(), None),
        ("signal quality", f.signal_quality.to_string(), None),
        ("stability", f.stability_desc.to_string(), None),
        (
            "difficulty",
            format!("{} ({:.1})", f.difficulty, f.difficulty_score),
            None,
        ),
        (
            "energy ratio",
            undefined(super::value_list(&f.energy_ratio)),
            None,
        ),
        (
            "energy entropy",
            undefined(format!("{:.4}", f.energy_entropy)),
            None,
        ),
        (
            "dominant band",
            undefined(format!("{band} ({:.3})", f.dominant_energy)),
            None,
        ),
        (
            "trend consistency",
            format!("{:.2}", f.trend_consistency),
            None,
        ),
        ("SNR", format!("{:.2} dB", f.snr_db), None),
        (
            "volatility ratio",
            format!("{:.3}", f.volatility_ratio),
            None,
        ),
        (
            "min / max / median",
            format!("{:.4} / {:.4} / {:.4}", f.min, f.max, f.median),
            Some(format!(
                "as the prompt prints them: {} / {} / {}",
                Repr(f.min),
                Repr(f.max),
                Repr(f.median)
            )),
        ),
        (
            "top lags (prompt)",
            format!("{:?}", f.lags),
            Some(
                "The lags the prompt prints, by the rule chosen under Prompt (Time-LLM's, clean or peaks)"
                    .into(),
            ),
        ),
        (
            "top lags (clean)",
            format!("{:?}", f.lags_clean),
            Some(
                "Lags 1..=T/2 only: lag 0 and the mirror lags T-k left out, each period once"
                    .into(),
            ),
        ),
    ]
}

pub fn ui(ui: &mut egui::Ui, f: &Features) {
    if let Some(d) = f.degenerate {
        ui.colored_label(ui.visuals().warn_fg_color, degenerate_note(d));
    }
    let rows = rows(f);
    // The values wrap in the width the names leave, so a deep level's list of ratios
    // stays inside a narrow pane instead of running off its edge.
    let column_width = super::grid_column_width(ui, rows.iter().map(|r| r.0), 1);
    egui::Grid::new("features")
        .striped(true)
        .num_columns(2)
        .max_col_width(column_width)
        .show(ui, |ui| {
            for (k, v, hover) in rows {
                ui.label(k);
                let r = ui.label(v);
                if let Some(h) = hover {
                    r.on_hover_text(h);
                }
                ui.end_row();
            }
        });
}
