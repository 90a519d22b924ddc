//! The workbench window (docs/app.md). The UI thread only draws: a worker thread owns the data
//! and the engines (`worker.rs`), answers requests tagged with a generation number, and the
//! UI keeps only the newest answer. Each view lives in `views/`; what is remembered between
//! sessions is `state::Settings`.

pub mod diff;
pub mod layout;
pub mod state;
pub mod views;
pub mod worker;

use layout::Pane;

/// Where the pane arrangement is saved (beside the settings).
const LAYOUT_KEY: &str = "wavebench-layout";

use state::Settings;
use std::path::PathBuf;
use std::sync::Arc;
use wavebench_core::data::Table;
use wavebench_core::pipeline::Inspection;
use worker::{Job, JobKind, JobOutput, Reply, Request, Worker};

/// Why the app could not run.
#[derive(Debug)]
pub enum AppError {
    /// No window could be opened (no display, no GPU or software renderer).
    Window(String),
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Window(e) => write!(f, "cannot open the window: {e}"),
        }
    }
}

/// Open the workbench window, on `file` or the last session's.
pub fn run(file: Option<PathBuf>) -> Result<(), AppError> {
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
            let layout: Option<layout::Layout> =
                cc.storage.and_then(|s| eframe::get_value(s, LAYOUT_KEY));
            let mut app = Workbench::new(
                file.or(saved.as_ref().and_then(|s| s.file.clone())),
                saved.unwrap_or_default(),
                &cc.egui_ctx,
            );
            if let Some(l) = layout {
                app.set_layout(l);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| AppError::Window(e.to_string()))
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
        let p = &self.pinned.run;
        Settings {
            run: wavebench_core::config::Config {
                wavelet: p.wavelet.clone(),
                level: p.level,
                mode: p.mode,
                dtype: p.dtype,
                normalize: p.normalize,
                engine: p.engine,
                template: p.template.clone(),
                ..a.run.clone()
            },
            template_text: self.pinned.template_text.clone(),
            ..a.clone()
        }
    }

    pub fn label(&self) -> String {
        let p = &self.pinned.run;
        format!("{} level {} {}", p.wavelet, p.level, p.mode)
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
    /// How the table was loaded (missing values, time axis): a change reloads it.
    loaded_with: wavebench_core::run_spec::LoadOptions,
    /// The settings the current (or pending) result was asked for.
    asked: Option<Settings>,
    busy: bool,
    config_view: views::config::ConfigView,
    pub timing_view: views::timing::TimingView,
    overview: views::data::Overview,
    pub sweep_view: views::sweep::SweepView,
    /// A second configuration shown beside the main one.
    compare: Option<Compare>,
    /// The data-set-wide job running, if any.
    job: Option<Job>,
    /// The panes' arrangement (None until first drawn: the default).
    layout: Option<layout::Layout>,
    show_help: bool,
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
            loaded_with: Default::default(),
            busy: false,
            config_view: Default::default(),
            timing_view: Default::default(),
            overview: Default::default(),
            sweep_view: Default::default(),
            compare: None,
            job: None,
            layout: None,
            show_help: false,
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
        self.loaded_with = self.load_options();
        // Remembered even if the load fails: changing the load choices then retries it.
        self.settings.file = Some(path.clone());
        self.worker.send(Request::Load {
            gen: self.load_gen,
            path,
            options: self.loaded_with.clone(),
        });
    }

    /// The app loads every column (the channel picker shows them all; exports select).
    fn load_options(&self) -> wavebench_core::run_spec::LoadOptions {
        wavebench_core::run_spec::LoadOptions {
            columns: None,
            missing: self.settings.run.missing,
            time_column: self.settings.run.time_column.clone(),
            // f64 whatever the run's dtype: the dtype is a live knob here, and an f64 run
            // must not see samples rounded to f32.
            dtype: wavebench_core::engine::DType::F64,
        }
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

    /// Measure the switched-on proposals beside the baseline in the background.
    pub fn start_proposals(&mut self) {
        if self.job.is_some() {
            return;
        }
        let chosen = self.timing_view.chosen();
        self.start("proposal timing", |table, settings| JobKind::Variants {
            table,
            settings,
            chosen,
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
        let report = wavebench_core::timing::RunReport::from_runs(
            &r.engine,
            &r.device,
            1,
            r.x.len(),
            std::slice::from_ref(&r.timer),
        );
        let gpu = (r.engine == "torch-cuda").then(|| r.device.clone());
        let doc = wavebench_core::timing::Report {
            config: &self.settings.run,
            machine: wavebench_core::timing::Machine::describe(gpu),
            runs: vec![report],
        };
        let format = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("json")
            .to_ascii_lowercase();
        match doc.render(&format) {
            Ok(text) => self.write_file("timing export", path.to_path_buf(), text.into_bytes()),
            Err(e) => self.status = e,
        }
    }

    /// Write the configuration as the TOML the CLI reads (`--config`).
    pub fn export_configuration(&mut self, path: PathBuf) {
        let toml = crate::config::to_toml(&self.settings.config());
        self.write_file("configuration export", path, toml.into_bytes());
    }

    /// Write a small file off the UI thread (atomically), reporting like any job.
    fn write_file(&mut self, what: &str, path: PathBuf, bytes: Vec<u8>) {
        if self.job.is_some() {
            self.status = format!("{what}: wait for the running job to finish");
            return;
        }
        self.status = format!("{what} ...");
        self.job = Some(self.worker.start(what, JobKind::Write { path, bytes }));
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
                let Some(buf) =
                    image::RgbaImage::from_raw(img.size[0] as u32, img.size[1] as u32, bytes)
                else {
                    return;
                };
                // Atomic like every other output: a failed write leaves no half PNG.
                let written = crate::export::write_atomic(&path, |w| {
                    let mut png = std::io::Cursor::new(Vec::new());
                    buf.write_to(&mut png, image::ImageFormat::Png)
                        .map_err(std::io::Error::other)?;
                    w.write_all(png.get_ref())
                });
                if let Err(e) = written {
                    eprintln!("wavebench: cannot write PNG: {e}");
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
                    if let Some(w) = table.warnings.first() {
                        self.status = format!(
                            "{} ({} warning{}: {w})",
                            self.status,
                            table.warnings.len(),
                            if table.warnings.len() == 1 { "" } else { "s" }
                        );
                    }
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
                        Ok(JobOutput::Variants { label, rows }) => {
                            self.timing_view.measured = Some((label, rows));
                            format!("{what}: done")
                        }
                        Ok(JobOutput::Exported { path, units }) => {
                            format!("{what}: {units} rows written to {}", path.display())
                        }
                        Ok(JobOutput::Written { path }) => {
                            format!("{what}: written to {}", path.display())
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
        self.shortcuts(ui.ctx());
        let theme = if self.settings.dark_theme {
            egui::Theme::Dark
        } else {
            egui::Theme::Light
        };
        if ui.ctx().theme() != theme {
            ui.ctx().set_theme(theme);
        }
        egui::Panel::top("menu").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                self.file_menu(ui);
                self.view_menu(ui);
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
                        layout::focus(self.layout_mut(), Pane::Compare);
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
            .default_size(290.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    ui.heading("Data");
                    if let Some(table) = &self.table {
                        views::data::controls(ui, table, &mut self.settings);
                    }
                    let columns: Vec<String> = self.table.as_ref().map_or(Vec::new(), |t| {
                        t.time
                            .iter()
                            .map(|a| a.name.clone())
                            .chain(t.channels.iter().map(|c| c.name.clone()))
                            .collect()
                    });
                    views::data::load_choices(ui, &mut self.settings, &columns);
                    if let Some(table) = &self.table {
                        views::data::export_shape(ui, table, &mut self.settings);
                    }
                    ui.separator();
                    let device = self
                        .result
                        .as_ref()
                        .map_or(String::new(), |r| format!("{}: {}", r.engine, r.device));
                    self.config_view.ui(ui, &mut self.settings, &device);
                });
            });
        egui::CentralPanel::default().show(ui, |ui| {
            let mut tree = self.layout.take().unwrap_or_else(layout::default_layout);
            let mut panes = PaneUi {
                app: self,
                start_sweep: false,
                start_proposals: false,
            };
            tree.ui(&mut panes, ui);
            let (start_sweep, start_proposals) = (panes.start_sweep, panes.start_proposals);
            self.layout = Some(tree);
            if start_sweep {
                self.start_sweep();
            }
            if start_proposals {
                self.start_proposals();
            }
        });
        if self.show_help {
            help_overlay(ui.ctx(), &mut self.show_help);
        }
        // New load choices (missing values, time column) mean a new table: reload.
        if !self.loading && self.load_options() != self.loaded_with {
            if let Some(f) = self.settings.file.clone() {
                self.open(f);
            }
        }
        self.request_if_changed();
        self.request_compare_if_changed();
    }

    /// The arrangement, to rearrange (what the View menu and tab drags do).
    pub fn layout_mut(&mut self) -> &mut layout::Layout {
        self.layout.get_or_insert_with(layout::default_layout)
    }

    /// The arrangement of the panes (saved with the session).
    pub fn layout(&self) -> Option<&layout::Layout> {
        self.layout.as_ref()
    }

    pub fn set_layout(&mut self, l: layout::Layout) {
        self.layout = Some(l);
    }

    /// ←/→ step the window (in the data view), Ctrl+O open, Ctrl+E export prompts,
    /// Ctrl+Shift+C copy the prompt, F1 or ? help.
    fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let open = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
        let export = KeyboardShortcut::new(Modifiers::COMMAND, Key::E);
        let copy = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::C);
        if ctx.input_mut(|i| i.consume_shortcut(&open)) {
            self.pick_and_open();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&export)) {
            self.pick_and_export_prompts();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&copy)) {
            if let Some(Ok(p)) = self.result.as_ref().map(|r| &r.prompt) {
                ctx.copy_text(p.clone());
                self.status = format!("prompt copied ({} characters)", p.chars().count());
            }
        }
        let typing = ctx.egui_wants_keyboard_input();
        let help = ctx.input(|i| {
            i.key_pressed(Key::F1)
                || (!typing
                    && i.events
                        .iter()
                        .any(|e| matches!(e, egui::Event::Text(t) if t == "?")))
        });
        if help {
            self.show_help = !self.show_help;
        }
    }

    fn pick_and_open(&mut self) {
        match rfd::FileDialog::new().pick_file() {
            Some(p) => self.open(p),
            None => self.status = DIALOG_HINT.into(),
        }
    }

    fn pick_and_export_prompts(&mut self) {
        if self.table.is_none() || self.job.is_some() {
            return;
        }
        if let Some(p) = save_as("prompts.jsonl") {
            self.export_prompts(p);
        }
    }

    fn file_menu(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("File", |ui| {
            if ui
                .add(egui::Button::new("Open...").shortcut_text("Ctrl+O"))
                .clicked()
            {
                self.pick_and_open();
            }
            let have_data = self.table.is_some() && self.job.is_none();
            if ui
                .add_enabled(
                    have_data,
                    egui::Button::new("Export prompts (JSONL)...").shortcut_text("Ctrl+E"),
                )
                .clicked()
            {
                self.pick_and_export_prompts();
            }
            if ui
                .add_enabled(
                    have_data,
                    egui::Button::new("Export features (Parquet/CSV)..."),
                )
                .clicked()
            {
                if let Some(p) = save_as("features.parquet") {
                    self.export_features(p);
                }
            }
            if ui.button("Export timing (JSON/CSV/Markdown)...").clicked() {
                if let Some(p) = save_as("timing.json") {
                    self.export_timing(&p);
                }
            }
            if ui.button("Export plots (PNG)...").clicked() {
                if let Some(p) = save_as("wavebench.png") {
                    self.export_png(ui.ctx(), p);
                }
            }
            if ui.button("Export configuration (TOML)...").clicked() {
                if let Some(p) = save_as("wavebench.toml") {
                    self.export_configuration(p);
                }
            }
        });
    }

    fn view_menu(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("View", |ui| {
            for pane in Pane::ALL {
                let mut open = layout::is_open(self.layout_mut(), pane);
                if ui.checkbox(&mut open, pane.title()).changed() {
                    layout::toggle(self.layout_mut(), pane);
                }
            }
            ui.separator();
            if ui.button("Reset layout").clicked() {
                self.layout = Some(layout::default_layout());
            }
            let dark = ui.visuals().dark_mode;
            if ui
                .button(if dark { "Light theme" } else { "Dark theme" })
                .clicked()
            {
                self.set_theme(!dark);
            }
            if ui
                .add(egui::Button::new("Keyboard shortcuts").shortcut_text("F1"))
                .clicked()
            {
                self.show_help = true;
            }
        });
    }

    /// Switch between the light and dark theme (remembered with the session).
    pub fn set_theme(&mut self, dark: bool) {
        self.settings.dark_theme = dark; // applied at the next frame
    }
}

/// The save dialog, proposing `name`.
fn save_as(name: &str) -> Option<PathBuf> {
    rfd::FileDialog::new().set_file_name(name).save_file()
}

/// What File > Open says when no dialog came up.
const DIALOG_HINT: &str = "No file chosen (if no dialog appeared, this desktop has no file-dialog service: drop a file on the window, or start with `wavebench gui FILE`)";

fn help_overlay(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Keyboard shortcuts")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .show(ctx, |ui| {
            egui::Grid::new("shortcuts").num_columns(2).show(ui, |ui| {
                for (k, what) in [
                    ("Left / Right", "previous / next window"),
                    ("Ctrl+O", "open a data file"),
                    ("Ctrl+E", "export every prompt (JSONL)"),
                    ("Ctrl+Shift+C", "copy the prompt"),
                    ("F1 or ?", "this help"),
                    ("drag a tab", "rearrange the panes (View > Reset layout)"),
                    (
                        "drag / scroll on a plot",
                        "pan / zoom (double-click resets)",
                    ),
                    ("click the series", "move the window there"),
                ] {
                    ui.strong(k);
                    ui.label(what);
                    ui.end_row();
                }
            });
        });
}

/// Draws each pane of the dashboard from the app's state.
struct PaneUi<'a> {
    app: &'a mut Workbench,
    start_sweep: bool,
    start_proposals: bool,
}

impl egui_tiles::Behavior<Pane> for PaneUi<'_> {
    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        pane.title().into()
    }

    fn is_tab_closable(&self, _tiles: &egui_tiles::Tiles<Pane>, _id: egui_tiles::TileId) -> bool {
        true
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            all_panes_must_have_tabs: true,
            ..Default::default()
        }
    }

    fn gap_width(&self, _style: &egui::Style) -> f32 {
        4.0
    }

    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        pane: &mut Pane,
    ) -> egui_tiles::UiResponse {
        let app = &mut *self.app;
        let link = egui::Id::unique("time axis");
        let Some(table) = app.table.clone() else {
            ui.centered_and_justified(|ui| {
                ui.label("No data loaded: File > Open (Ctrl+O), or drop a file on the window.")
            });
            return egui_tiles::UiResponse::None;
        };
        let r = app.result.as_deref();
        match (*pane, r) {
            (Pane::Overview, _) => app.overview.ui(ui, &table, &mut app.settings, link),
            (Pane::Sweep, _) => {
                let running = app.job.is_some();
                self.start_sweep |= app.sweep_view.ui(ui, &mut app.settings, running);
            }
            (_, None) => {
                ui.centered_and_justified(|ui| ui.spinner());
            }
            (Pane::Bands, Some(r)) => {
                views::bands::ui(ui, r, &table, app.settings.raw_coefficients, link)
            }
            (Pane::Energy, Some(r)) => views::energy::ui(ui, &r.features),
            (Pane::Features, Some(r)) => views::features::ui(ui, &r.features),
            (Pane::Prompt, Some(r)) => views::prompt::ui(ui, Some(&r.prompt), &mut app.settings),
            (Pane::Timing, Some(r)) => {
                let (current, running) = (app.settings.whole_run_label(), app.job.is_some());
                self.start_proposals |= app.timing_view.ui(ui, r, &current, running);
            }
            (Pane::Compare, Some(r)) => match &app.compare {
                Some(c) => match &c.result {
                    Some(b) => {
                        let a = &app.settings.run;
                        let a_label = format!("{} level {} {}", a.wavelet, a.level, a.mode);
                        egui::ScrollArea::vertical().show(ui, |ui| {
                            views::compare::ui(ui, &table, (&a_label, r), (&c.label(), b))
                        });
                    }
                    None => {
                        ui.spinner();
                    }
                },
                None => {
                    ui.label("Pin the current configuration (\"Pin for compare\" in the menu bar), then change the knobs: A and B are shown side by side here.");
                }
            },
        }
        egui_tiles::UiResponse::None
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
        if let Some(l) = &self.layout {
            eframe::set_value(storage, LAYOUT_KEY, l);
        }
    }
}
