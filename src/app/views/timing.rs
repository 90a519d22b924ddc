//! The timing breakdown: one labelled horizontal bar per stage in pipeline order (ms and
//! share); the seed's proposed optimisations, switched on one by one and measured over
//! the whole data set beside the baseline; and the last runs' stages as a stacked area,
//! all in the same stage colours.

use crate::app::commands::{Commands, UiCommand};
use crate::variants::{Measured, Variant};
use egui_plot::{Line, Plot, PlotPoints};
use std::collections::VecDeque;
use wavebench_core::pipeline::Inspection;
use wavebench_core::timing::Stage;

const HISTORY: usize = 120;

/// The proposals the view can switch on, in the order shown.
const VARIANTS: [Variant; 4] = [
    Variant::Cache,
    Variant::AdaptiveLevel,
    Variant::Bf16,
    Variant::Batching,
];

pub struct TimingView {
    /// Milliseconds per stage (in `Stage::ALL` order) of the last runs.
    history: VecDeque<Vec<f64>>,
    /// Which of `VARIANTS` are switched on.
    pub chosen: [bool; VARIANTS.len()],
    /// The last measurement of the proposals: what it ran on, and its rows.
    pub measured: Option<(String, Vec<Measured>)>,
    /// Open (or close) the proposals' section on the next frame; it starts closed so the
    /// first screen shows the stages and their history.
    pub open_variants: Option<bool>,
}

impl Default for TimingView {
    fn default() -> Self {
        TimingView {
            history: VecDeque::new(),
            chosen: [true, true, true, false],
            measured: None,
            open_variants: None,
        }
    }
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

    /// The proposals switched on.
    pub fn chosen(&self) -> Vec<Variant> {
        VARIANTS
            .iter()
            .zip(self.chosen)
            .filter(|(_, on)| *on)
            .map(|(&v, _)| v)
            .collect()
    }

    /// Draw; a flipped switch or "Measure" asks for the proposals to be measured (again),
    /// through `commands`. `current` names the settings a measurement would run with;
    /// `running` says one is under way.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        r: &Inspection,
        current: &str,
        running: bool,
        commands: &mut Commands,
    ) {
        // Scrolls when the proposals' table is open in a small pane.
        let measure = egui::ScrollArea::vertical()
            .id_salt("timing")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui, r, current, running))
            .inner;
        if measure {
            commands.send(UiCommand::MeasureVariants);
        }
    }

    fn contents(
        &mut self,
        ui: &mut egui::Ui,
        r: &Inspection,
        current: &str,
        running: bool,
    ) -> bool {
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
            .spacing([6.0, 1.0])
            .show(ui, |ui| {
                let bar_w = (ui.available_width() - 210.0).max(60.0);
                for (i, (stage, v)) in rows.iter().enumerate() {
                    // Stage names in the pane's own size (they were smaller than the rest).
                    ui.label(stage.name());
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
                        egui::RichText::new(format!("{v:8.3} ms {:5.1} %", share(*v))).monospace(),
                    );
                    ui.end_row();
                }
            });
        ui.add_space(4.0);
        let measure = self.variants_ui(ui, current, running);
        ui.add_space(4.0);
        self.history_plot(ui);
        measure
    }

    /// A stacked area of the last runs: each stage a band between the running sums.
    fn history_plot(&self, ui: &mut egui::Ui) {
        let runs: Vec<&Vec<f64>> = self.history.iter().collect();
        Plot::new("history")
            .height((ui.available_height() - 4.0).max(60.0))
            .x_axis_label("run (last 120); colours as above")
            .y_axis_label("ms")
            .y_grid_spacer(super::time_axis::value_spacer())
            .y_axis_formatter(super::time_axis::value_label)
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

    /// The proposals' switches and, once measured, one row per variant: a bar of its
    /// stages (scaled to the slowest), its total against the baseline's, the prompts it
    /// changed and the cache's hit rate. Returns true when a measurement is asked for.
    fn variants_ui(&mut self, ui: &mut egui::Ui, current: &str, running: bool) -> bool {
        let mut measure = false;
        egui::CollapsingHeader::new("The seed's proposals, over the whole data set")
            .id_salt("proposals")
            .open(self.open_variants.take())
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    for (v, on) in VARIANTS.iter().zip(&mut self.chosen) {
                        // Live: each switch measures again at once (when nothing runs).
                        measure |= ui.checkbox(on, v.name()).on_hover_text(v.about()).changed();
                    }
                    measure |= UiCommand::MeasureVariants
                        .button(ui, !running)
                        .on_hover_text("Run the baseline and every switched-on proposal over all windows of the current settings (each once, after a warm-up)")
                        .clicked();
                    if running {
                        ui.spinner();
                    }
                });
                let Some((label, rows)) = &self.measured else {
                    ui.small(format!("Not measured yet: {current}."));
                    return;
                };
                let stale = if label == current {
                    String::new()
                } else {
                    " (the settings have changed since: Measure again)".into()
                };
                ui.small(format!("Measured on {label}{stale}."));
                variant_rows(ui, rows);
            });
        measure && !running
    }
}

/// One row per measured variant (see `TimingView::variants_ui`): its name, then a bar of
/// its stages with its numbers beneath, so the rows fit a narrow pane.
fn variant_rows(ui: &mut egui::Ui, rows: &[Measured]) {
    let total_ms = |m: &Measured| {
        m.median_run()
            .map_or(0.0, |t| t.total().as_secs_f64() * 1e3)
    };
    let base = rows
        .iter()
        .find(|m| m.variant == Variant::Baseline)
        .map_or(0.0, total_ms);
    let slowest = rows.iter().map(total_ms).fold(0.0, f64::max);
    egui::Grid::new("proposals")
        .num_columns(2)
        .spacing([8.0, 6.0])
        .show(ui, |ui| {
            for m in rows {
                ui.label(m.variant.name());
                ui.vertical(|ui| {
                    let timer = match (&m.result, m.median_run()) {
                        (Ok(_), Some(t)) => t,
                        (Ok(_), None) => return,
                        (Err(e), _) => {
                            ui.colored_label(ui.visuals().warn_fg_color, "cannot run");
                            ui.add(egui::Label::new(egui::RichText::new(e).small()).wrap());
                            return;
                        }
                    };
                    // Stages in their colours, the slowest variant's bar the full width.
                    let (rect, resp) = ui.allocate_exact_size(
                        egui::vec2((ui.available_width() - 8.0).max(60.0), 10.0),
                        egui::Sense::hover(),
                    );
                    let mut x = rect.min.x;
                    let mut tip = Vec::new();
                    for (i, (stage, ms)) in timer.stages_ms().into_iter().enumerate() {
                        if ms <= 0.0 || slowest <= 0.0 {
                            continue;
                        }
                        let w = (ms / slowest) as f32 * rect.width();
                        ui.painter().rect_filled(
                            egui::Rect::from_min_size(
                                egui::pos2(x, rect.min.y),
                                egui::vec2(w, 10.0),
                            ),
                            0.0,
                            colour(i),
                        );
                        x += w;
                        tip.push(format!("{}: {ms:.3} ms", stage.name()));
                    }
                    resp.on_hover_text(tip.join("\n"));
                    let words = variant_words(m, total_ms(m), base);
                    ui.add(egui::Label::new(egui::RichText::new(words).small()).wrap());
                });
                ui.end_row();
            }
        });
}

/// A variant's numbers beneath its bar: its total, and against the baseline's `base` ms
/// how much faster or slower, the prompts it changed, and the cache's hit rate.
fn variant_words(m: &Measured, total: f64, base: f64) -> String {
    let mut words = vec![format!("{total:.1} ms")];
    if m.variant == Variant::Baseline {
        words.push(format!("{} prompts", m.prompts));
    } else {
        // Like with like: the cache's two epochs against two of the
        // baseline's.
        let (base, epochs) = (base * m.variant.epochs() as f64, m.variant.epochs());
        if base > 0.0 && total > 0.0 {
            let than = match epochs {
                1 => String::new(),
                n => format!(" than {n} baseline epochs"),
            };
            words.push(if total <= base {
                format!("{:.2}× faster{than}", base / total)
            } else {
                format!("{:.2}× slower{than}", total / base)
            });
        }
        words.push(format!(
            "{} of {} prompts changed",
            m.prompts_changed, m.prompts
        ));
    }
    if let Some(h) = m.cache_hit_rate {
        words.push(format!("{:.1} % cache hits", h * 100.0));
    }
    words.join(" · ")
}
