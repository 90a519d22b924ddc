//! Compare: two configurations of the same window side by side: features and timings, the
//! prompt diff (above the fold), then both band stacks.

use crate::app::diff::Side;
use crate::sweep::Difference;
use wavebench_core::data::Table;
use wavebench_core::pipeline::Inspection;

/// `scores`: both configurations' val scores from the last sweep and their difference, if
/// the sweep holds both.
pub fn ui(
    ui: &mut egui::Ui,
    table: &Table,
    (a_name, a): (&str, &Inspection),
    (b_name, b): (&str, &Inspection),
    scores: Option<Difference>,
) {
    scores_line(ui, scores);
    feature_grid(ui, &feature_rows(a, b), a_name, b_name);
    ui.separator();
    prompt_diff(ui, a, b);
    ui.separator();
    band_stacks(ui, table, (a_name, a), (b_name, b));
}

/// Both configurations' val scores and their difference, or how to get them.
fn scores_line(ui: &mut egui::Ui, scores: Option<Difference>) {
    match scores {
        Some(d) => {
            ui.label(format!(
                "val score (bits above the null): A {:.4} [{:.4}, {:.4}] · B {:.4} [{:.4}, {:.4}] · A - B {:+.4} [{:+.4}, {:+.4}]{}",
                d.a,
                d.a_interval[0],
                d.a_interval[1],
                d.b,
                d.b_interval[0],
                d.b_interval[1],
                d.diff,
                d.interval[0],
                d.interval[1],
                if d.tied() {
                    ": tied, the data cannot tell them apart"
                } else {
                    ""
                }
            ));
        }
        None => {
            ui.weak("Run the sweep (Sweep pane) to score both configurations and the difference between them.");
        }
    }
}

/// The features compared, each with A's and B's value, and the inspection's time.
fn feature_rows(a: &Inspection, b: &Inspection) -> [(&'static str, String, String); 9] {
    let (fa, fb) = (&a.features, &b.features);
    [
        (
            "frequency pattern",
            fa.freq_pattern.to_string(),
            fb.freq_pattern.to_string(),
        ),
        (
            "trend",
            fa.trend_desc.to_string(),
            fb.trend_desc.to_string(),
        ),
        (
            "signal quality",
            fa.signal_quality.to_string(),
            fb.signal_quality.to_string(),
        ),
        (
            "difficulty",
            format!("{} ({:.1})", fa.difficulty, fa.difficulty_score),
            format!("{} ({:.1})", fb.difficulty, fb.difficulty_score),
        ),
        (
            "energy ratio",
            super::value_list(&fa.energy_ratio),
            super::value_list(&fb.energy_ratio),
        ),
        (
            "energy entropy",
            format!("{:.4}", fa.energy_entropy),
            format!("{:.4}", fb.energy_entropy),
        ),
        (
            "SNR",
            format!("{:.2} dB", fa.snr_db),
            format!("{:.2} dB", fb.snr_db),
        ),
        (
            "volatility ratio",
            format!("{:.3}", fa.volatility_ratio),
            format!("{:.3}", fb.volatility_ratio),
        ),
        (
            "time",
            format!("{:.3} ms", a.timer.total().as_secs_f64() * 1e3),
            format!("{:.3} ms", b.timer.total().as_secs_f64() * 1e3),
        ),
    ]
}

/// The features side by side, a value in bold where A's and B's differ.
fn feature_grid(ui: &mut egui::Ui, rows: &[(&str, String, String)], a_name: &str, b_name: &str) {
    // A and B share what the names leave of the pane, and their values wrap there: in a
    // narrow pane B's column was cut off, and the prompt diff below wrapped at that width.
    let column_width = super::grid_column_width(ui, rows.iter().map(|r| r.0), 2);
    egui::Grid::new("compare")
        .striped(true)
        .num_columns(3)
        .max_col_width(column_width)
        .show(ui, |ui| {
            ui.strong("");
            ui.strong(format!("A: {a_name}"));
            ui.strong(format!("B: {b_name}"));
            ui.end_row();
            for (k, va, vb) in rows {
                ui.label(*k);
                if va == vb {
                    ui.label(va);
                    ui.label(vb);
                } else {
                    ui.strong(va);
                    ui.strong(vb);
                }
                ui.end_row();
            }
        });
}

/// The prompts' line diff, changed words highlighted.
fn prompt_diff(ui: &mut egui::Ui, a: &Inspection, b: &Inspection) {
    ui.label("Prompt diff (- A, + B; changed words highlighted):");
    let (pa, pb) = (
        a.prompt.as_deref().unwrap_or(""),
        b.prompt.as_deref().unwrap_or(""),
    );
    let (removed, added) = (
        egui::Color32::from_rgb(230, 110, 110),
        egui::Color32::from_rgb(110, 200, 120),
    );
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    for line in crate::app::diff::diff_lines(pa, pb) {
        let (sign, colour) = match line.side {
            Side::Same => ("  ", ui.visuals().text_color()),
            Side::Removed => ("- ", removed),
            Side::Added => ("+ ", added),
        };
        let mut job = egui::text::LayoutJob::default();
        let plain = egui::TextFormat::simple(font.clone(), colour);
        job.append(sign, 0.0, plain.clone());
        for (marked, text) in &line.pieces {
            let mut f = plain.clone();
            if *marked {
                f.background = colour.gamma_multiply(0.35);
                f.underline = egui::Stroke::new(1.0, colour);
            }
            job.append(text, 0.0, f);
        }
        ui.label(job);
    }
}

/// Both band stacks, side by side where there is room, else A above B.
fn band_stacks(
    ui: &mut egui::Ui,
    table: &Table,
    (a_name, a): (&str, &Inspection),
    (b_name, b): (&str, &Inspection),
) {
    // The two stacks share their label column's width and their time axis: their plots
    // start at the same x and zoom together.
    let label_width = super::bands::label_width(ui, &super::bands::labels(a, table)).max(
        super::bands::label_width(ui, &super::bands::labels(b, table)),
    );
    let axis = egui::Id::unique("compare bands axis");
    let stack = |ui: &mut egui::Ui, side: &str, name: &str, r: &Inspection| {
        ui.label(format!("bands of {side}: {name}"));
        let id = egui::Id::unique(("compare", side));
        ui.push_id(id, |ui| {
            ui.allocate_ui(egui::vec2(ui.available_width(), 300.0), |ui| {
                super::bands::ui(
                    ui,
                    r,
                    table,
                    false,
                    super::bands::Stack {
                        id,
                        axis,
                        label_width: Some(label_width),
                    },
                )
            })
        });
    };
    // Side by side where each stack keeps room for its plots; else A above B, on one
    // left edge (in the default layout's pane, side by side left each plot ~90 points).
    if ui.available_width() >= 760.0 {
        ui.spacing_mut().item_spacing.x = 16.0;
        ui.columns(2, |cols| {
            stack(&mut cols[0], "A", a_name, a);
            stack(&mut cols[1], "B", b_name, b);
        });
    } else {
        stack(ui, "A", a_name, a);
        stack(ui, "B", b_name, b);
    }
}
