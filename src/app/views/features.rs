//! The features and their descriptions.

use crate::features::Features;
use crate::prompt::pyfmt;

pub fn ui(ui: &mut egui::Ui, f: &Features) {
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    egui::Grid::new("features")
        .striped(true)
        .num_columns(2)
        .show(ui, |ui| {
            let mut row = |k: &str, v: String| {
                ui.label(k);
                let r = ui.label(v);
                ui.end_row();
                r
            };
            row("frequency pattern", f.freq_pattern.to_string());
            row("trend", f.trend_desc.to_string());
            row("signal quality", f.signal_quality.to_string());
            row("stability", f.stability_desc.to_string());
            row(
                "difficulty",
                format!("{} ({:.1})", f.difficulty, f.difficulty_score),
            );
            row("energy ratio", list(&f.energy_ratio));
            row("energy entropy", format!("{:.4}", f.energy_entropy));
            row(
                "dominant band",
                format!(
                    "{} ({:.3})",
                    super::band_names(f.energy_ratio.len() - 1)
                        .get(f.dominant_band)
                        .map_or("?", |s| s.as_str()),
                    f.dominant_energy
                ),
            );
            row("trend consistency", format!("{:.2}", f.trend_consistency));
            row("SNR", format!("{:.2} dB", f.snr_db));
            row("volatility ratio", format!("{:.3}", f.volatility_ratio));
            row(
                "min / max / median",
                format!("{:.4} / {:.4} / {:.4}", f.min, f.max, f.median),
            )
            .on_hover_text(format!(
                "as the prompt prints them: {} / {} / {}",
                pyfmt::repr(f.min),
                pyfmt::repr(f.max),
                pyfmt::repr(f.median)
            ));
            row("top lags", format!("{:?}", f.lags));
        });
}
