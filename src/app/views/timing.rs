//! The timing breakdown: per-stage bars with their share, a rolling history of the last
//! runs, engine and device.

use crate::pipeline::Inspection;
use egui_plot::{Bar, BarChart, Line, Plot, PlotPoints};
use std::collections::VecDeque;

const HISTORY: usize = 120;

#[derive(Default)]
pub struct TimingView {
    history: VecDeque<f64>,
}

impl TimingView {
    /// Record a finished run's total (ms).
    pub fn record(&mut self, r: &Inspection) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(r.timer.total().as_secs_f64() * 1e3);
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, r: &Inspection) {
        let total = r.timer.total().as_secs_f64() * 1e3;
        ui.label(format!(
            "{} on {}: {:.3} ms this run, {} host syncs",
            r.engine, r.device, total, r.timer.host_syncs
        ));
        let stages = r.timer.stages_ms();
        let bars: Vec<Bar> = stages
            .iter()
            .enumerate()
            .map(|(i, (s, ms))| {
                Bar::new(i as f64, *ms).name(format!(
                    "{} {:.1} %",
                    s.name(),
                    if total > 0.0 { ms / total * 100.0 } else { 0.0 }
                ))
            })
            .collect();
        ui.horizontal_wrapped(|ui| {
            for (i, (stage, ms)) in stages.iter().enumerate() {
                let share = if total > 0.0 { ms / total * 100.0 } else { 0.0 };
                ui.small(format!("{i} {} {ms:.3} ms ({share:.1} %)", stage.name()));
            }
        });
        ui.columns(2, |cols| {
            Plot::new("stages").height(140.0).show(&mut cols[0], |p| {
                p.bar_chart(BarChart::new("ms per stage", bars))
            });
            Plot::new("history").height(140.0).show(&mut cols[1], |p| {
                p.line(Line::new(
                    "total ms (last runs)",
                    PlotPoints::from_iter(
                        self.history.iter().enumerate().map(|(i, &v)| [i as f64, v]),
                    ),
                ));
            });
        });
    }
}
