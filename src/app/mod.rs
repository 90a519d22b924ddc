//! The workbench window (SPEC §9). The UI thread only draws: a worker thread owns the data
//! and the engines (`worker.rs`), answers requests tagged with a generation number, and the
//! UI keeps only the newest answer. Each view lives in `views/`; what is remembered between
//! sessions is `state::Settings`.

pub mod state;
pub mod views;
pub mod worker;

use crate::data::Table;
use crate::pipeline::Inspection;
use state::Settings;
use std::path::PathBuf;
use std::sync::Arc;
use worker::{Job, JobKind, JobOutput, Reply, Request, Worker};

pub fn run(file: Option<PathBuf>) -> Result<(), crate::cli::Failure> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1400.0, 900.0])
            .with_title("wavebench"),
        ..Default::default()
    };
    eframe::run_native(
        "wavebench",
        options,
        Box::new(move |cc| {
            let saved: Option<Settings> = cc
                .storage
                .and_then(|s| eframe::get_value(s, eframe::APP_KEY));
            Ok(Box::new(Workbench::new(
                file.or(saved.as_ref().and_then(|s| s.file.clone())),
                saved.unwrap_or_default(),
                &cc.egui_ctx,
            )))
        }),
    )
    .map_err(|e| crate::cli::Failure::Internal(format!("cannot open the window: {e}")))
}

/// Configuration B of the compare view: its own wavelet, level, mode, precision,
/// normalisation and template, on A's data, window and channel.
pub struct Compare {
    pinned: Settings,
    pub result: Option<Box<Inspection>>,
    asked: Option<Settings>,
    gen: u64,
}

impl Compare {
    pub fn settings_for(&self, a: &Settings) -> Settings {
        let p = &self.pinned;
        Settings {
            wavelet: p.wavelet.clone(),
            level: p.level,
            mode: p.mode,
            dtype: p.dtype,
            normalize: p.normalize,
            engine: p.engine,
            template: p.template.clone(),
            template_text: p.template_text.clone(),
            ..a.clone()
        }
    }

    pub fn label(&self) -> String {
        format!(
            "{} level {} {}",
            self.pinned.wavelet, self.pinned.level, self.pinned.mode
        )
    }
}

pub struct Workbench {
    pub settings: Settings,
    worker: Worker,
    /// Generation of the newest inspection request; older replies are dropped.
    gen: u64,
    /// Generation of the newest load; a load in flight holds back inspections.
    load_gen: u64,
    loading: bool,
    table: Option<Arc<Table>>,
    result: Option<Box<Inspection>>,
    status: String,
    /// The missing-value policy the table was loaded with.
    loaded_missing: crate::data::Missing,
    /// The settings the current (or pending) result was asked for.
    asked: Option<Settings>,
    busy: bool,
    config_view: views::config::ConfigView,
    timing_view: views::timing::TimingView,
    pub sweep_view: views::sweep::SweepView,
    /// A second configuration shown beside the main one.
    compare: Option<Compare>,
    /// The data-set-wide job running, if any.
    job: Option<Job>,
}

impl Workbench {
    pub fn new(file: Option<PathBuf>, settings: Settings, ctx: &egui::Context) -> Self {
        let ctx = ctx.clone();
        let mut app = Workbench {
            settings,
            worker: Worker::spawn(move || ctx.request_repaint()),
            gen: 0,
            load_gen: 0,
            loading: false,
            table: None,
            result: None,
            status: "Open a data file: File > Open, or drop one on the window.".into(),
            asked: None,
            loaded_missing: crate::data::Missing::Error,
            busy: false,
            config_view: Default::default(),
            timing_view: Default::default(),
            sweep_view: Default::default(),
            compare: None,
            job: None,
        };
        if let Some(f) = file {
            app.open(f);
        }
        app
    }

    pub fn open(&mut self, path: PathBuf) {
        self.load_gen += 1;
        self.loading = true;
        self.busy = true;
        self.status = format!("loading {} ...", path.display());
        self.loaded_missing = self.settings.missing;
        self.worker.send(Request::Load {
            gen: self.load_gen,
            path,
            missing: self.settings.missing,
        });
    }

    /// Whether a request is still being worked on.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Start a data-set-wide job (one at a time).
    fn start(&mut self, what: &str, kind: impl FnOnce(Arc<Table>, Box<Settings>) -> JobKind) {
        let Some(table) = self.table.clone() else {
            return;
        };
        if self.job.is_some() {
            return;
        }
        self.status = format!("{what} ...");
        self.job = Some(
            self.worker
                .start(what, kind(table, Box::new(self.settings.clone()))),
        );
    }

    /// Sweep every wavelet × level over the data set in the background.
    pub fn start_sweep(&mut self) {
        self.start("sweep", |table, settings| JobKind::Sweep {
            table,
            settings,
        });
    }

    /// Export every window's prompt (JSONL) in the background.
    pub fn export_prompts(&mut self, path: PathBuf) {
        self.start("prompt export", |table, settings| JobKind::ExportPrompts {
            table,
            settings,
            path,
        });
    }

    /// Export every window's features (Parquet, CSV or JSONL by extension) in the background.
    pub fn export_features(&mut self, path: PathBuf) {
        self.start("feature export", |table, settings| {
            JobKind::ExportFeatures {
                table,
                settings,
                path,
            }
        });
    }

    pub fn cancel_job(&mut self) {
        if let Some(j) = &self.job {
            j.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn job_running(&self) -> bool {
        self.job.is_some()
    }

    /// Write the current window's timing report; the format follows the extension
    /// (`.json`, `.csv`, `.md`).
    pub fn export_timing(&mut self, path: &std::path::Path) {
        let Some(r) = &self.result else { return };
        let report = crate::timing::RunReport::from_runs(
            &r.engine,
            &r.device,
            1,
            r.x.len(),
            std::slice::from_ref(&r.timer),
        );
        let gpu = (r.engine == "torch-cuda").then(|| r.device.clone());
        let doc = crate::timing::Report {
            config: self.settings.config(),
            machine: crate::timing::Machine::describe(gpu),
            runs: vec![report],
        };
        let format = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("json")
            .to_ascii_lowercase();
        self.status = doc
            .render(&format)
            .and_then(|text| crate::export::write_atomic(path, |w| w.write_all(text.as_bytes())))
            .map_or_else(|e| e, |_| format!("timing written to {}", path.display()));
    }

    /// Save the window as PNG (asynchronously, when the next frame is drawn).
    fn export_png(&mut self, ctx: &egui::Context, path: PathBuf) {
        let shown = path.display().to_string();
        ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(
            egui::ScreenshotCallback::new(move |img| {
                let bytes: Vec<u8> = img
                    .pixels
                    .iter()
                    .flat_map(|c| c.to_srgba_unmultiplied())
                    .collect();
                if let Some(buf) =
                    image::RgbaImage::from_raw(img.size[0] as u32, img.size[1] as u32, bytes)
                {
                    if let Err(e) = buf.save(&path) {
                        eprintln!("wavebench: {}: cannot write PNG: {e}", path.display());
                    }
                }
            }),
        ));
        self.status = format!("plots will be written to {shown}");
    }

    /// Loaded, and the shown result answers the current settings.
    pub fn is_idle(&self) -> bool {
        !self.busy
            && self.table.is_some()
            && self.result.is_some()
            && self.asked.as_ref() == Some(&self.settings)
    }

    pub fn result(&self) -> Option<&Inspection> {
        self.result.as_deref()
    }

    pub fn table(&self) -> Option<&Table> {
        self.table.as_deref()
    }

    pub fn status(&self) -> &str {
        &self.status
    }

    fn poll(&mut self) {
        while let Some(reply) = self.worker.try_recv() {
            match reply {
                Reply::Loaded { gen, path, table } if gen == self.load_gen => {
                    self.loading = false;
                    self.status = format!(
                        "{}: {} rows × {} channels",
                        path.display(),
                        table.rows(),
                        table.channels.len()
                    );
                    self.settings.file = Some(path);
                    self.settings.channel = self.settings.channel.min(table.channels.len() - 1);
                    self.table = Some(table);
                    self.asked = None;
                    if let Some(c) = self.compare.as_mut() {
                        c.asked = None;
                    }
                    self.busy = false;
                }
                Reply::Inspected {
                    gen,
                    slot: 1,
                    result,
                    ..
                } => {
                    if let Some(c) = self.compare.as_mut().filter(|c| c.gen == gen) {
                        c.result = result.ok();
                    }
                }
                Reply::Inspected {
                    gen,
                    slot: 0,
                    result,
                    notice,
                } if gen == self.gen => {
                    self.busy = false;
                    match result {
                        Ok(r) => {
                            self.timing_view.record(&r);
                            self.result = Some(r);
                            if let Some(n) = notice {
                                self.status = n;
                            }
                        }
                        Err(e) => self.status = e,
                    }
                }
                Reply::JobDone { what, result } => {
                    self.job = None;
                    self.status = match result {
                        Ok(JobOutput::Sweep(rows)) => {
                            let n = rows.len();
                            self.sweep_view.rows = rows;
                            format!("sweep done: {n} configurations")
                        }
                        Ok(JobOutput::Exported { path, units }) => {
                            format!("{what}: {units} rows written to {}", path.display())
                        }
                        Err(e) => e,
                    };
                }
                Reply::Failed { gen, message } if gen == self.load_gen => {
                    self.loading = false;
                    self.busy = false;
                    self.status = message;
                }
                _ => {} // an answer to a request that a newer one replaced
            }
        }
    }

    /// Ask for the current window again when any knob moved since the last request.
    fn request_if_changed(&mut self) {
        let Some(table) = &self.table else { return };
        if self.loading {
            return; // the table is about to be replaced
        }
        if self.asked.as_ref() == Some(&self.settings) {
            return;
        }
        self.gen += 1;
        self.busy = true;
        self.asked = Some(self.settings.clone());
        self.worker.send(Request::Inspect {
            gen: self.gen,
            slot: 0,
            settings: Box::new(self.settings.clone()),
            table: table.clone(),
        });
    }

    /// The same for the compared configuration, which follows the main window and channel.
    fn request_compare_if_changed(&mut self) {
        let (Some(table), Some(c)) = (&self.table, self.compare.as_mut()) else {
            return;
        };
        let wanted = c.settings_for(&self.settings);
        if c.asked.as_ref() == Some(&wanted) {
            return;
        }
        c.gen += 1;
        c.asked = Some(wanted.clone());
        self.worker.send(Request::Inspect {
            gen: c.gen,
            slot: 1,
            settings: Box::new(wanted),
            table: table.clone(),
        });
    }

    /// Pin the current configuration as B, to compare with whatever A becomes.
    pub fn pin_for_compare(&mut self) {
        self.compare = Some(Compare {
            pinned: self.settings.clone(),
            result: None,
            asked: None,
            gen: 0,
        });
    }

    pub fn compare(&self) -> Option<&Compare> {
        self.compare.as_ref()
    }

    /// Draw the whole window (also what the kittest tests drive).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.poll();
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
                ui.menu_button("File", |ui| {
                    if ui.button("Open...").clicked() {
                        if let Some(p) = rfd::FileDialog::new().pick_file() {
                            self.open(p);
                        }
                    }
                    let have_data = self.table.is_some() && self.job.is_none();
                    if ui
                        .add_enabled(have_data, egui::Button::new("Export prompts (JSONL)..."))
                        .clicked()
                    {
                        if let Some(p) = rfd::FileDialog::new()
                            .set_file_name("prompts.jsonl")
                            .save_file()
                        {
                            self.export_prompts(p);
                        }
                    }
                    if ui
                        .add_enabled(
                            have_data,
                            egui::Button::new("Export features (Parquet/CSV)..."),
                        )
                        .clicked()
                    {
                        if let Some(p) = rfd::FileDialog::new()
                            .set_file_name("features.parquet")
                            .save_file()
                        {
                            self.export_features(p);
                        }
                    }
                    if ui.button("Export timing (JSON/CSV/Markdown)...").clicked() {
                        if let Some(p) = rfd::FileDialog::new()
                            .set_file_name("timing.json")
                            .save_file()
                        {
                            self.export_timing(&p);
                        }
                    }
                    if ui.button("Export plots (PNG)...").clicked() {
                        if let Some(p) = rfd::FileDialog::new()
                            .set_file_name("wavebench.png")
                            .save_file()
                        {
                            self.export_png(ui.ctx(), p);
                        }
                    }
                    if ui.button("Export configuration (TOML)...").clicked() {
                        if let Some(p) = rfd::FileDialog::new()
                            .set_file_name("wavebench.toml")
                            .save_file()
                        {
                            let toml = self.settings.config().to_toml();
                            self.status =
                                crate::export::write_atomic(&p, |w| w.write_all(toml.as_bytes()))
                                    .map_or_else(
                                        |e| e,
                                        |_| format!("configuration written to {}", p.display()),
                                    );
                        }
                    }
                });
                ui.checkbox(&mut self.settings.raw_coefficients, "raw coefficients");
                if self.compare.is_none() {
                    if ui
                        .button("Pin for compare")
                        .on_hover_text(
                            "Keep this configuration as B and compare it with the knobs' A",
                        )
                        .clicked()
                    {
                        self.pin_for_compare();
                    }
                } else if ui.button("Stop comparing").clicked() {
                    self.compare = None;
                }
                if self.busy {
                    ui.spinner();
                }
                ui.label(&self.status);
            });
        });
        if let Some(job) = self.job.clone() {
            egui::Panel::bottom("job").show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.add(
                        egui::ProgressBar::new(job.fraction())
                            .text(format!("{} {:.0} %", job.what, job.fraction() * 100.0))
                            .desired_width(400.0),
                    );
                    if ui.button("Cancel").clicked() {
                        self.cancel_job();
                    }
                });
            });
        }
        egui::Panel::left("config")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    if let Some(table) = &self.table {
                        ui.heading("Data");
                        views::data::controls(ui, table, &mut self.settings);
                        views::data::policy_and_export_shape(ui, table, &mut self.settings);
                        ui.separator();
                    }
                    let device = self
                        .result
                        .as_ref()
                        .map_or(String::new(), |r| format!("{}: {}", r.engine, r.device));
                    self.config_view.ui(ui, &mut self.settings, &device);
                });
            });
        egui::CentralPanel::default().show(ui, |ui| {
            let Some(table) = self.table.clone() else {
                ui.centered_and_justified(|ui| ui.label("No data loaded."));
                return;
            };
            let link = egui::Id::unique("time axis");
            egui::ScrollArea::vertical().show(ui, |ui| {
                views::data::series_plot(ui, &table, &self.settings, link);
                let Some(r) = &self.result else { return };
                egui::CollapsingHeader::new("Prompt")
                    .default_open(true)
                    .show(ui, |ui| {
                        views::prompt::ui(ui, Some(&r.prompt), &mut self.settings)
                    });
                egui::CollapsingHeader::new("Bands")
                    .default_open(true)
                    .show(ui, |ui| {
                        views::bands::ui(ui, r, self.settings.raw_coefficients, link)
                    });
                egui::CollapsingHeader::new("Energy, trends and stds")
                    .default_open(true)
                    .show(ui, |ui| views::energy::ui(ui, &r.features));
                egui::CollapsingHeader::new("Features")
                    .default_open(true)
                    .show(ui, |ui| views::features::ui(ui, &r.features));
                egui::CollapsingHeader::new("Timing")
                    .default_open(true)
                    .show(ui, |ui| self.timing_view.ui(ui, r));
                if let Some(c) = &self.compare {
                    if let Some(b) = &c.result {
                        let a_label = format!(
                            "{} level {} {}",
                            self.settings.wavelet, self.settings.level, self.settings.mode
                        );
                        egui::CollapsingHeader::new("Compare")
                            .default_open(true)
                            .show(ui, |ui| {
                                views::compare::ui(ui, (&a_label, r), (&c.label(), b))
                            });
                    }
                }
                let running = self.job.is_some();
                let start = egui::CollapsingHeader::new("Sweep")
                    .default_open(true)
                    .show(ui, |ui| self.sweep_view.ui(ui, &mut self.settings, running))
                    .body_returned;
                if start == Some(true) {
                    self.start_sweep();
                }
            });
        });
        // A new missing-value policy means a new table: reload in the background.
        if self.table.is_some() && self.settings.missing != self.loaded_missing {
            if let Some(f) = self.settings.file.clone() {
                self.open(f);
            }
        }
        self.request_if_changed();
        self.request_compare_if_changed();
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
    }
}
