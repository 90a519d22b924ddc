//! The configuration panel: wavelet (family + search), level up to the maximum, mode,
//! engine, precision, normalisation, template and prompt options.

use crate::app::state::Settings;
use wavebench_core::config::Config;
use wavebench_core::data::Normalize;
use wavebench_core::engine::{DType, EngineKind};
use wavebench_core::prompt::{TemplateSource, BUILTINS, EDITOR};
use wavebench_core::stats::LagRule;
use wavebench_core::transform::Transform;
use wavebench_core::wavelet::{self, Mode};

#[derive(Default)]
pub struct ConfigView {
    family: String,
    search: String,
}

impl ConfigView {
    /// `rows`: the loaded table's, which bound the window the view computes.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        settings: &mut Settings,
        rows: Option<usize>,
        device: &str,
    ) {
        let seq_len = rows.map_or(settings.seq_len(), |r| settings.shown_len(r));
        self.wavelet_ui(ui, &mut settings.run.transform, seq_len);
        ui.separator();
        engine_ui(ui, &mut settings.run, device);
        ui.separator();
        prompt_ui(ui, &mut settings.run, &mut settings.template_text);
    }

    /// The wavelet (by family and name), its level (up to the maximum windows of
    /// `seq_len` allow) and its mode.
    fn wavelet_ui(&mut self, ui: &mut egui::Ui, t: &mut Transform, seq_len: usize) {
        ui.heading("Wavelet");
        ui.horizontal(|ui| {
            egui::ComboBox::from_label("family")
                .selected_text(if self.family.is_empty() {
                    "all families"
                } else {
                    &self.family
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.family, String::new(), "all families");
                    for f in wavelet::families() {
                        ui.selectable_value(&mut self.family, f.to_string(), f);
                    }
                });
            ui.add(
                egui::TextEdit::singleline(&mut self.search)
                    .hint_text("search")
                    .desired_width(70.0),
            );
        });
        egui::ComboBox::from_label("wavelet")
            .selected_text(t.name())
            .show_ui(ui, |ui| {
                for w in wavelet::all().iter().filter(|w| {
                    (self.family.is_empty() || w.family == self.family)
                        && w.name.contains(self.search.trim())
                }) {
                    let chosen = std::ptr::eq(t.wavelet, w);
                    let label = format!("{} ({} taps)", w.name, w.filter_length);
                    if ui.selectable_label(chosen, label).clicked() {
                        t.wavelet = w;
                    }
                }
            });
        // The maximum the engine checks, for the window the view computes.
        match t.max_level(seq_len) {
            0 => {
                let w = t.wavelet;
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "'{}' ({} taps) needs windows of at least {} rows for level 1; this window has {seq_len}: choose a shorter wavelet or a longer window",
                        w.name,
                        w.filter_length,
                        2 * (w.filter_length - 1)
                    ),
                );
            }
            max => {
                t.level = t.level.clamp(1, max);
                ui.add(egui::Slider::new(&mut t.level, 1..=max).text(format!("level (max {max})")));
            }
        }
        egui::ComboBox::from_label("mode")
            .selected_text(t.mode.name())
            .show_ui(ui, |ui| {
                for m in Mode::ALL {
                    ui.selectable_value(&mut t.mode, m, m.name());
                }
            });
    }
}

/// The engine, its device, precise timing, the precision and the normalisation.
fn engine_ui(ui: &mut egui::Ui, s: &mut Config, device: &str) {
    ui.heading("Engine");
    egui::ComboBox::from_label("engine")
        .selected_text(s.engine.name())
        .show_ui(ui, |ui| {
            for k in EngineKind::ALL {
                ui.selectable_value(&mut s.engine, k, k.name());
            }
        });
    ui.small(device);
    ui.checkbox(&mut s.precise_timing, "precise timing")
        .on_hover_text("Synchronise the GPU at each stage boundary so stage times are exact (CUDA; costs a little speed)");
    ui.horizontal(|ui| {
        ui.selectable_value(&mut s.dtype, DType::F32, "f32");
        ui.selectable_value(&mut s.dtype, DType::F64, "f64");
    });
    // Unset means the features' default (RevIN), as on the command line.
    let mut normalize = s.normalize.unwrap_or(Normalize::Revin);
    egui::ComboBox::from_label("normalise")
        .selected_text(normalize.name())
        .show_ui(ui, |ui| {
            for n in Normalize::ALL {
                ui.selectable_value(&mut normalize, n, n.name());
            }
        });
    if Some(normalize) != s.normalize && !(s.normalize.is_none() && normalize == Normalize::Revin) {
        s.normalize = Some(normalize);
    }
}

/// The template (a built-in's choice replaces the editor's text), the description, the
/// prediction length, the top lags and the seed's wording.
fn prompt_ui(ui: &mut egui::Ui, s: &mut Config, template_text: &mut String) {
    ui.heading("Prompt");
    let before = s.template.clone();
    egui::ComboBox::from_label("template")
        .selected_text(s.template.to_string())
        .show_ui(ui, |ui| {
            for (name, _) in BUILTINS {
                ui.selectable_value(&mut s.template, TemplateSource::Builtin(name), name);
            }
            ui.selectable_value(&mut s.template, TemplateSource::Editor, EDITOR);
        });
    if s.template != before {
        if let Some(src) = s.template.builtin_text() {
            *template_text = src.to_string();
        }
    }
    ui.add(egui::TextEdit::singleline(&mut s.description).hint_text("dataset description"));
    ui.add(egui::Slider::new(&mut s.pred_len, 1..=1024).text("prediction length"));
    egui::ComboBox::from_label("top lags")
        .selected_text(s.lags.name())
        .show_ui(ui, |ui| {
            for l in LagRule::ALL {
                ui.selectable_value(&mut s.lags, l, l.name());
            }
        })
        .response
        .on_hover_text("Which top lags the prompt prints: Time-LLM's (lag 0 and the mirror lags T-k included), clean (lags 1..=T/2, each period once) or peaks (the autocorrelation's local maxima: the periods the window repeats at, e.g. 24 for hourly data with a daily cycle)");
    ui.checkbox(&mut s.seed_compatible, "seed's wording for constant windows")
        .on_hover_text("Describe a constant window with band claims and lags, as the seed did, instead of \"constant input\" (to reproduce old runs byte for byte)");
}
