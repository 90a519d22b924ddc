//! The sweep: every wavelet × level ranked by a chosen feature, as a sortable table and a
//! heat map; clicking a row or a cell loads that configuration.

use crate::app::state::Settings;
use crate::sweep::{Metric, SweepRow};

#[derive(Default)]
pub struct SweepView {
    pub rows: Vec<SweepRow>,
    pub metric: Metric,
    pub descending: bool,
}

impl SweepView {
    /// Draw; returns true when the user asks for a (new) sweep.
    pub fn ui(&mut self, ui: &mut egui::Ui, s: &mut Settings, running: bool) -> bool {
        let mut start = false;
        ui.horizontal(|ui| {
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
            ui.checkbox(&mut self.descending, "largest first");
        });
        if self.rows.is_empty() {
            ui.label("Every wavelet and level over the data set (non-overlapping windows of the current length).");
            return start;
        }
        let m = self.metric;
        let mut order: Vec<&SweepRow> = self.rows.iter().collect();
        order.sort_by(|a, b| a.get(m).total_cmp(&b.get(m)));
        if self.descending {
            order.reverse();
        }
        ui.columns(2, |cols| {
            egui::ScrollArea::vertical()
                .id_salt("sweep table")
                .max_height(320.0)
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
                                let current = s.wavelet == row.wavelet && s.level == row.level;
                                if ui
                                    .selectable_label(
                                        current,
                                        format!("{} level {}", row.wavelet, row.level),
                                    )
                                    .clicked()
                                {
                                    s.wavelet = row.wavelet.clone();
                                    s.level = row.level;
                                }
                                ui.label(format!("{:.4}", row.get(m)));
                                ui.end_row();
                            }
                        });
                });
            heat_map(&mut cols[1], &self.rows, m, s);
        });
        start
    }
}

/// Wavelets down, levels across, colour by the metric (dark = low, bright = high).
fn heat_map(ui: &mut egui::Ui, rows: &[SweepRow], m: Metric, s: &mut Settings) {
    let levels = rows.iter().map(|r| r.level).max().unwrap_or(1);
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.wavelet.as_str()) {
            names.push(&r.wavelet);
        }
    }
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
            (lo.min(r.get(m)), hi.max(r.get(m)))
        });
    let cell = egui::vec2(28.0, 6.0);
    egui::ScrollArea::vertical()
        .id_salt("sweep heat map")
        .max_height(320.0)
        .show(ui, |ui| {
            let (rect, _) = ui.allocate_exact_size(
                egui::vec2(cell.x * levels as f32 + 60.0, cell.y * names.len() as f32),
                egui::Sense::hover(),
            );
            for r in rows {
                let i = names.iter().position(|n| *n == r.wavelet).unwrap_or(0);
                let t = if hi > lo {
                    ((r.get(m) - lo) / (hi - lo)) as f32
                } else {
                    0.5
                };
                let min =
                    rect.min + egui::vec2(60.0 + cell.x * (r.level - 1) as f32, cell.y * i as f32);
                let cell_rect = egui::Rect::from_min_size(min, cell);
                let colour = egui::Color32::from_rgb(
                    (40.0 + 215.0 * t) as u8,
                    (60.0 + 120.0 * t) as u8,
                    (120.0 - 80.0 * t) as u8,
                );
                ui.painter().rect_filled(cell_rect.shrink(0.5), 0.0, colour);
                let response = ui.interact(
                    cell_rect,
                    ui.scope_id().with((&r.wavelet, r.level)),
                    egui::Sense::click(),
                );
                if response.clicked() {
                    s.wavelet = r.wavelet.clone();
                    s.level = r.level;
                }
                response.on_hover_text(format!("{} level {}: {:.4}", r.wavelet, r.level, r.get(m)));
            }
            for (i, n) in names.iter().enumerate().step_by(4) {
                ui.painter().text(
                    rect.min + egui::vec2(0.0, cell.y * i as f32),
                    egui::Align2::LEFT_TOP,
                    *n,
                    egui::FontId::monospace(7.0),
                    ui.visuals().text_color(),
                );
            }
        });
}
