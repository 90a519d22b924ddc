//! The sweep: every wavelet × level ranked best first by a chosen feature (the direction
//! is said), as a table and a heat map with wavelet and level labels, a colour scale and
//! hover values; clicking a row or a cell loads that configuration.

use crate::app::state::Settings;
use crate::sweep::{self, Metric, SweepRow};

#[derive(Default)]
pub struct SweepView {
    pub rows: Vec<SweepRow>,
    pub metric: Metric,
    /// Show configurations whose approximation band has fewer than 2 coefficients.
    pub show_degenerate: bool,
}

/// Dark blue (low) to yellow (high).
fn colour(t: f32) -> egui::Color32 {
    let t = t.clamp(0.0, 1.0);
    egui::Color32::from_rgb(
        (30.0 + 225.0 * t) as u8,
        (40.0 + 180.0 * t) as u8,
        (110.0 - 70.0 * t) as u8,
    )
}

impl SweepView {
    /// Draw; returns true when the user asks for a (new) sweep.
    pub fn ui(&mut self, ui: &mut egui::Ui, s: &mut Settings, running: bool) -> bool {
        let mut start = false;
        ui.horizontal_wrapped(|ui| {
            start = ui
                .add_enabled(!running, egui::Button::new("Run sweep"))
                .clicked();
            egui::ComboBox::from_label("rank by")
                .selected_text(self.metric.name())
                .show_ui(ui, |ui| {
                    for m in Metric::ALL {
                        ui.selectable_value(&mut self.metric, m, m.name());
                    }
                });
            ui.label(format!("best first: {}", self.metric.direction()));
            ui.checkbox(&mut self.show_degenerate, "show degenerate")
                .on_hover_text("Configurations whose approximation band has fewer than 2 coefficients (their std and SNR mean nothing)");
        });
        if self.rows.is_empty() {
            ui.label("Every wavelet and level over the data set (non-overlapping windows of the current length).");
            return start;
        }
        let m = self.metric;
        let order = sweep::ranked(&self.rows, m, self.show_degenerate);
        let height = ui.available_height();
        ui.columns(2, |cols| {
            egui::ScrollArea::vertical()
                .id_salt("sweep table")
                .max_height(height)
                .show(&mut cols[0], |ui| {
                    egui::Grid::new("sweep grid")
                        .striped(true)
                        .num_columns(3)
                        .show(ui, |ui| {
                            ui.strong("#");
                            ui.strong("configuration");
                            ui.strong(m.name());
                            ui.end_row();
                            for (rank, row) in order.iter().enumerate() {
                                ui.label(format!("{}", rank + 1));
                                let current =
                                    s.run.wavelet == row.wavelet && s.run.level == row.level;
                                let mut label = format!("{} level {}", row.wavelet, row.level);
                                if row.degenerate() {
                                    label.push_str(" (degenerate)");
                                }
                                if ui.selectable_label(current, label).clicked() {
                                    s.run.wavelet = row.wavelet.clone();
                                    s.run.level = row.level;
                                }
                                ui.label(format!("{:.4}", row.get(m)));
                                ui.end_row();
                            }
                        });
                });
            heat_map(&mut cols[1], &self.rows, m, self.show_degenerate, s);
        });
        start
    }
}

/// Wavelets down, levels across, coloured by the metric; a colour bar beneath.
fn heat_map(ui: &mut egui::Ui, rows: &[SweepRow], m: Metric, degenerate: bool, s: &mut Settings) {
    let shown: Vec<&SweepRow> = rows
        .iter()
        .filter(|r| degenerate || !r.degenerate())
        .collect();
    let levels = shown.iter().map(|r| r.level).max().unwrap_or(1);
    let mut names: Vec<&str> = Vec::new();
    for r in &shown {
        if !names.contains(&r.wavelet.as_str()) {
            names.push(&r.wavelet);
        }
    }
    let (lo, hi) = shown
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
            (lo.min(r.get(m)), hi.max(r.get(m)))
        });
    let t_of = |v: f64| {
        if hi > lo {
            ((v - lo) / (hi - lo)) as f32
        } else {
            0.5
        }
    };
    let text = ui.visuals().text_color();
    let small = egui::FontId::proportional(10.0);
    // Colour scale: the metric named on its own line, the bar as wide as the column
    // leaves beside its end values (a fixed 140 px bar pushed the upper value and the
    // name out of a narrow pane).
    ui.small(format!("colour: {}", m.name()));
    ui.horizontal(|ui| {
        ui.small(format!("{lo:.2}"));
        let ends = super::text_width(ui, &format!("{hi:.2}"), &small);
        let width = (ui.available_width() - ends - ui.spacing().item_spacing.x).clamp(28.0, 140.0);
        let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 10.0), egui::Sense::hover());
        const STEPS: usize = 28;
        let step = width / STEPS as f32;
        for i in 0..STEPS {
            let x = rect.left() + i as f32 * step;
            ui.painter().rect_filled(
                egui::Rect::from_min_size(egui::pos2(x, rect.top()), egui::vec2(step, 10.0)),
                0.0,
                colour(i as f32 / (STEPS - 1) as f32),
            );
        }
        ui.small(format!("{hi:.2}"));
    });
    // The names' column as wide as the longest name, and the cells share the rest (less
    // the scroll bar): at 70 px and 14 px cells, level 7 fell off a narrow pane.
    let label_w = 6.0
        + names
            .iter()
            .map(|n| super::text_width(ui, n, &small))
            .fold(0.0, f32::max);
    let scroll_bar = ui.spacing().scroll.allocated_width() + ui.spacing().item_spacing.x;
    let cell = egui::vec2(
        ((ui.available_width() - label_w - scroll_bar) / levels as f32).clamp(8.0, 40.0),
        12.0,
    );
    // Level labels across the top.
    let (top, _) = ui.allocate_exact_size(
        egui::vec2(label_w + cell.x * levels as f32, 14.0),
        egui::Sense::hover(),
    );
    for l in 1..=levels {
        ui.painter().text(
            top.min + egui::vec2(label_w + cell.x * (l as f32 - 0.5), 0.0),
            egui::Align2::CENTER_TOP,
            format!("L{l}"),
            small.clone(),
            text,
        );
    }
    egui::ScrollArea::vertical()
        .id_salt("sweep heat map")
        .show(ui, |ui| {
            let (rect, _) = ui.allocate_exact_size(
                egui::vec2(
                    label_w + cell.x * levels as f32,
                    cell.y * names.len() as f32,
                ),
                egui::Sense::hover(),
            );
            for (i, n) in names.iter().enumerate() {
                ui.painter().text(
                    rect.min + egui::vec2(label_w - 4.0, cell.y * (i as f32 + 0.5)),
                    egui::Align2::RIGHT_CENTER,
                    *n,
                    small.clone(),
                    text,
                );
            }
            for r in &shown {
                let i = names.iter().position(|n| *n == r.wavelet).unwrap_or(0);
                let min = rect.min
                    + egui::vec2(label_w + cell.x * (r.level - 1) as f32, cell.y * i as f32);
                let cell_rect = egui::Rect::from_min_size(min, cell);
                ui.painter()
                    .rect_filled(cell_rect.shrink(0.5), 0.0, colour(t_of(r.get(m))));
                let response = ui.interact(
                    cell_rect,
                    ui.scope_id().with((&r.wavelet, r.level)),
                    egui::Sense::click(),
                );
                if response.clicked() {
                    s.run.wavelet = r.wavelet.clone();
                    s.run.level = r.level;
                }
                response.on_hover_text(format!(
                    "{} level {}: {} = {:.4}{}",
                    r.wavelet,
                    r.level,
                    m.name(),
                    r.get(m),
                    if r.degenerate() { " (degenerate)" } else { "" }
                ));
            }
        });
}
