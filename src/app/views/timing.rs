//! The timing breakdown: one labelled horizontal bar per stage in pipeline order (ms and
//! share), and the last runs' stages as a stacked area in the same colours.

use crate::pipeline::Inspection;
use crate::timing::Stage;
use egui_plot::{Line, Plot, PlotPoints};
use std::collections::VecDeque;

const HISTORY: usize = 120;

#[derive(Default)]
pub struct TimingView {
    /// Milliseconds per stage (in `Stage::ALL` order) of the last runs.
    history: VecDeque<Vec<f64>>,
}

/// One colour per stage, the same in both charts.
fn colour(i: usize) -> egui::Color32 {
    egui::epaint::Hsva::new(i as f32 / Stage::ALL.len() as f32, 0.65, 0.85, 1.0).into()
}

impl TimingView {
    /// Record a finished run.
    pub fn record(&mut self, r: &Inspection) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        let ms = r.timer.stages_ms();
        self.history.push_back(
            Stage::ALL
                .iter()
                .map(|s| ms.iter().find(|(t, _)| t == s).map_or(0.0, |x| x.1))
                .collect(),
        );
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, r: &Inspection) {
        let total = r.timer.total().as_secs_f64() * 1e3;
        ui.label(format!(
            "{} on {}: {total:.3} ms, {} host syncs",
            r.engine, r.device, r.timer.host_syncs
        ));
        let ms = r.timer.stages_ms();
        let rows: Vec<(Stage, f64)> = Stage::ALL
            .iter()
            .map(|s| (*s, ms.iter().find(|(t, _)| t == s).map_or(0.0, |x| x.1)))
            .collect();
        let share = |v: f64| if total > 0.0 { v / total * 100.0 } else { 0.0 };
        let longest = rows.iter().map(|r| r.1).fold(0.0, f64::max);
        // One row per stage in pipeline order: name, bar (in the stage's colour), ms, share.
        egui::Grid::new("stage bars")
            .num_columns(3)
            .spacing([6.0, 0.0])
            .show(ui, |ui| {
                let bar_w = (ui.available_width() - 190.0).max(60.0);
                for (i, (stage, v)) in rows.iter().enumerate() {
                    ui.small(stage.name());
                    let (rect, resp) =
                        ui.allocate_exact_size(egui::vec2(bar_w, 10.0), egui::Sense::hover());
                    let w = if longest > 0.0 {
                        (v / longest) as f32
                    } else {
                        0.0
                    };
                    ui.painter().rect_filled(
                        egui::Rect::from_min_size(rect.min, egui::vec2(rect.width() * w, 10.0)),
                        2.0,
                        colour(i),
                    );
                    resp.on_hover_text(format!("{}: {v:.4} ms", stage.name()));
                    ui.label(
                        egui::RichText::new(format!("{v:8.3} ms {:5.1} %", share(*v)))
                            .monospace()
                            .size(10.0),
                    );
                    ui.end_row();
                }
            });
        // Stacked area of the last runs: each stage a band between the running sums.
        let runs: Vec<&Vec<f64>> = self.history.iter().collect();
        Plot::new("history")
            .height((ui.available_height() - 4.0).max(60.0))
            .x_axis_label("run (last 120); colours as above")
            .y_axis_label("ms")
            .include_y(0.0)
            .show(ui, |p| {
                // Running sums per stage; drawn largest first, each filled down to zero, so
                // every stage shows as the band between its sum and the one below.
                let mut sums: Vec<(usize, Vec<f64>)> = Vec::new();
                let mut acc = vec![0.0; runs.len()];
                for k in 0..Stage::ALL.len() {
                    if runs.iter().all(|r| r[k] == 0.0) {
                        continue;
                    }
                    for (a, r) in acc.iter_mut().zip(&runs) {
                        *a += r[k];
                    }
                    sums.push((k, acc.clone()));
                }
                for (k, ys) in sums.iter().rev() {
                    p.line(
                        Line::new(
                            Stage::ALL[*k].name(),
                            PlotPoints::from_iter(
                                ys.iter().enumerate().map(|(i, &y)| [i as f64, y]),
                            ),
                        )
                        .color(colour(*k))
                        .fill(0.0)
                        .fill_alpha(1.0),
                    );
                }
            });
    }
}
