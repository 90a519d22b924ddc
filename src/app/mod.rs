//! The workbench window (SPEC §9). This first version shows a data set's series, the
//! current window and its per-band reconstruction, with the wavelet, level and mode knobs;
//! the app issue grows it into the full workbench.

use crate::data::{self, LoadOptions, Missing, Table, Windows};
use crate::engine::{native, Plan};
use crate::wavelet::{self, Mode};
use egui_plot::{Legend, Line, Plot, PlotPoints, VLine};
use std::path::PathBuf;

pub fn run(file: Option<PathBuf>) -> Result<(), crate::cli::Failure> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1280.0, 800.0])
            .with_title("wavebench"),
        ..Default::default()
    };
    eframe::run_native(
        "wavebench",
        options,
        Box::new(move |_cc| Ok(Box::new(Workbench::new(file)))),
    )
    .map_err(|e| crate::cli::Failure::Internal(format!("cannot open the window: {e}")))
}

pub struct Workbench {
    table: Option<Table>,
    status: String,
    channel: usize,
    seq_len: usize,
    window: usize,
    wavelet: String,
    level: usize,
    mode: Mode,
}

impl Workbench {
    pub fn new(file: Option<PathBuf>) -> Self {
        let mut app = Workbench {
            table: None,
            status: "Open a data file (File ▸ Open or drop one here).".into(),
            channel: 0,
            seq_len: 512,
            window: 0,
            wavelet: "db4".into(),
            level: 3,
            mode: Mode::Reflect,
        };
        if let Some(f) = file {
            app.open(f);
        }
        app
    }

    fn open(&mut self, path: PathBuf) {
        match data::load(&path, &LoadOptions::default())
            .and_then(|mut t| Missing::Interpolate.apply(&mut t).map(|_| t))
        {
            Ok(t) => {
                self.status = format!(
                    "{}: {} rows × {} channels",
                    path.display(),
                    t.rows(),
                    t.channels.len()
                );
                self.seq_len = self.seq_len.min(t.rows());
                self.window = 0;
                self.channel = 0;
                self.table = Some(t);
            }
            Err(e) => self.status = e.0,
        }
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let dropped: Vec<PathBuf> = ui.ctx().input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if let Some(p) = dropped.into_iter().next() {
            self.open(p);
        }
        egui::Panel::top("menu").show(ui, |ui| {
            ui.horizontal(|ui| {
                if ui.button("Open…").clicked() {
                    if let Some(p) = rfd::FileDialog::new().pick_file() {
                        self.open(p);
                    }
                }
                ui.label(&self.status);
            });
        });
        egui::Panel::left("config").show(ui, |ui| self.config_ui(ui));
        egui::CentralPanel::default().show(ui, |ui| self.views_ui(ui));
    }
}

impl Workbench {
    fn config_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Configuration");
        let Some(table) = &self.table else { return };
        egui::ComboBox::from_label("channel")
            .selected_text(&table.channels[self.channel].name)
            .show_ui(ui, |ui| {
                for (i, c) in table.channels.iter().enumerate() {
                    ui.selectable_value(&mut self.channel, i, &c.name);
                }
            });
        let rows = table.rows();
        ui.add(egui::Slider::new(&mut self.seq_len, 2..=rows.min(4096)).text("window length"));
        let windows = rows.saturating_sub(self.seq_len) + 1;
        self.window = self.window.min(windows - 1);
        ui.add(egui::Slider::new(&mut self.window, 0..=windows - 1).text("window"));
        egui::ComboBox::from_label("wavelet")
            .selected_text(&self.wavelet)
            .show_ui(ui, |ui| {
                for w in wavelet::all() {
                    ui.selectable_value(&mut self.wavelet, w.name.clone(), &w.name);
                }
            });
        egui::ComboBox::from_label("mode")
            .selected_text(self.mode.name())
            .show_ui(ui, |ui| {
                for m in Mode::ALL {
                    ui.selectable_value(&mut self.mode, m, m.name());
                }
            });
        let max = wavelet::lookup(&self.wavelet)
            .map_or(1, |w| w.max_level(self.seq_len))
            .max(1);
        self.level = self.level.clamp(1, max);
        ui.add(egui::Slider::new(&mut self.level, 1..=max).text("level"));
    }

    fn views_ui(&mut self, ui: &mut egui::Ui) {
        let Some(table) = &self.table else {
            ui.centered_and_justified(|ui| ui.label("No data loaded."));
            return;
        };
        let Ok(win) = Windows::new(table.rows(), None, Some(self.seq_len), 1) else {
            return;
        };
        let start = win.start(self.window.min(win.count - 1));
        let values = &table.channels[self.channel].values;
        let link = egui::Id::unique("x");
        Plot::new("series")
            .height(160.0)
            .legend(Legend::default())
            .link_axis(link, [true, false])
            .show(ui, |p| {
                p.line(Line::new(
                    "series",
                    PlotPoints::from_iter(values.iter().enumerate().map(|(i, &v)| [i as f64, v])),
                ));
                p.vline(VLine::new("window start", start as f64));
                p.vline(VLine::new("window end", (start + self.seq_len) as f64));
            });
        let Ok(w) = wavelet::lookup(&self.wavelet) else {
            return;
        };
        let Ok(plan) = Plan::new(w, self.mode, self.level, self.seq_len) else {
            return;
        };
        let x = &values[start..start + self.seq_len];
        let coeffs = native::decompose(x, &plan);
        let comps = native::mra(&coeffs, &plan);
        let names = band_names(self.level);
        let h = (ui.available_height() / comps.len() as f32 - 8.0).max(60.0);
        egui::ScrollArea::vertical().show(ui, |ui| {
            for (k, c) in comps.iter().enumerate() {
                Plot::new(("band", k))
                    .height(h)
                    .legend(Legend::default())
                    .link_axis(link, [true, false])
                    .show(ui, |p| {
                        p.line(Line::new(
                            names[k].clone(),
                            PlotPoints::from_iter(
                                c.iter().enumerate().map(|(i, &v)| [(start + i) as f64, v]),
                            ),
                        ));
                    });
            }
        });
    }
}

/// `cA_n, cD_n, …, cD_1`.
pub fn band_names(level: usize) -> Vec<String> {
    std::iter::once(format!("cA{level}"))
        .chain((1..=level).rev().map(|j| format!("cD{j}")))
        .collect()
}
