//! The workbench window (docs/app.md): this file is the shell — the state, the frame, the
//! menu bar. The UI thread only draws: a worker thread owns the data and the engines
//! (`worker.rs`) and answers requests tagged with a generation number (`replies.rs`); what
//! the user asks for is a `UiCommand` carried out in one place (`commands.rs`); jobs,
//! exports, compare and the panes have their rooms; each view lives in `views/`; what is
//! remembered between sessions is `state::Settings`.

pub mod commands;
pub mod compare;
pub mod diff;
mod error;
pub mod exports;
mod file;
pub mod jobs;
mod latest;
pub mod layout;
mod messages;
mod panes;
mod replies;
pub mod state;
mod status;
mod survey;
mod tour;
pub mod views;
mod window;
pub mod worker;

/// Where the pane arrangement is saved (beside the settings).
const LAYOUT_KEY: &str = "wavebench-layout";

use commands::UiCommand;
use compare::Compare;
pub use error::AppError;
use messages::RunningJob;
use state::Settings;
use status::Status;
use std::path::PathBuf;
use wavebench_core::data::Table;
use wavebench_core::pipeline::Inspection;
use worker::Worker;

/// How the window is opened (`wavebench gui`).
#[derive(Debug, Default)]
pub struct Launch {
    /// The data file (else the last session's).
    pub file: Option<PathBuf>,
    /// Knobs from a run configuration (`--config`), instead of the last session's.
    pub settings: Option<Settings>,
    /// Take the screenshot tour into this folder, then close ([`tour`]).
    pub screenshots: Option<PathBuf>,
}

impl Launch {
    /// From the command line: `config` read into the knobs (its template's text too), and
    /// the tour's pictures checked before the window opens against what the app reads
    /// (the data file, the configuration, its template file) and against each other.
    pub fn of(
        file: Option<PathBuf>,
        config: Option<PathBuf>,
        screenshots: Option<PathBuf>,
    ) -> crate::error::Result<Launch> {
        let settings = config
            .as_deref()
            .map(|p| Settings::of_run(crate::config::read(p)?, file.clone()))
            .transpose()?;
        if let Some(dir) = &screenshots {
            let template = settings
                .as_ref()
                .map(|s| PathBuf::from(s.run.template.to_string()));
            let inputs: Vec<&std::path::Path> = [file.as_deref(), config.as_deref()]
                .into_iter()
                .flatten()
                .chain(template.as_deref().filter(|t| t.is_file()))
                .collect();
            let outputs: Vec<crate::export::Destination> = tour::pictures(dir)
                .into_iter()
                .map(|path| crate::export::Destination {
                    option: "--screenshots",
                    path,
                    makes_folder: true,
                })
                .collect();
            crate::export::check_outputs(&outputs, &inputs)?;
        }
        Ok(Launch {
            file,
            settings,
            screenshots,
        })
    }
}

/// Open the workbench window.
pub fn run(launch: Launch) -> Result<(), AppError> {
    let Launch {
        file,
        settings,
        screenshots,
    } = launch;
    let tour = match screenshots {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| AppError::Tour(format!("{}: {e}", dir.display())))?;
            Some(tour::Tour::new(dir))
        }
        None => None,
    };
    let failure = tour.as_ref().map(|t| t.failure.clone());
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
            let saved: Option<Settings> = settings.or_else(|| {
                cc.storage
                    .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            });
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
            app.tour = tour;
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| AppError::Window(e.to_string()))?;
    let failed = failure.and_then(|f| f.lock().ok().and_then(|mut f| f.take()));
    match failed {
        Some(why) => Err(AppError::Tour(why)),
        None => Ok(()),
    }
}

pub struct Workbench {
    pub settings: Settings,
    worker: Worker,
    /// The current window's inspection, the result shown, and whether one is awaited.
    window: window::Window,
    /// The data file: its load and where it stands, its table, the choices it was read
    /// with.
    file: file::OpenFile,
    /// The status line, and why the view's settings give no result while they give none.
    status: Status,
    /// Each view's own state, and whether the help shows.
    pub views: views::Views,
    /// The Data set pane's survey: the newest request, how far it refines, whether the
    /// pane is shown.
    survey: survey::Surveying,
    /// A second configuration shown beside the main one.
    compare: Option<Compare>,
    /// The data-set-wide job running, if any.
    job: Option<RunningJob>,
    /// The panes' arrangement (None until first drawn: the default).
    layout: Option<layout::Layout>,
    /// What the user asked for this frame, carried out after drawing.
    commands: commands::Commands,
    /// The screenshot tour, when the window was opened for one.
    tour: Option<tour::Tour>,
}

impl Workbench {
    pub fn new(file: Option<PathBuf>, settings: Settings, ctx: &egui::Context) -> Self {
        let ctx = ctx.clone();
        let mut app = Workbench {
            settings,
            worker: Worker::spawn(move || ctx.request_repaint()),
            window: window::Window::default(),
            file: file::OpenFile::default(),
            status: Status::new("Open a data file: File > Open, or drop one on the window."),
            views: views::Views::default(),
            survey: survey::Surveying::default(),
            compare: None,
            job: None,
            layout: None,
            commands: Default::default(),
            tour: None,
        };

        if let Some(f) = file {
            app.open(f);
        }
        app
    }

    /// Whether a request is still being worked on.
    pub fn is_busy(&self) -> bool {
        self.window.busy
    }

    /// Loaded, and the shown result answers the current settings.
    pub fn is_idle(&self) -> bool {
        !self.window.busy
            && self.file.table.is_some()
            && self.window.result.is_some()
            && self.window.latest.asked_for(&self.settings)
    }

    pub fn result(&self) -> Option<&Inspection> {
        self.window.result.as_deref()
    }

    pub fn table(&self) -> Option<&Table> {
        self.file.table.as_deref()
    }

    pub fn status(&self) -> &str {
        self.status.line()
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
            self.queue(UiCommand::Open(p));
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
            egui::MenuBar::new().ui(ui, |ui| self.menu_bar(ui));
        });
        if let Some(job) = self.job.clone() {
            egui::Panel::bottom("job").show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.add(
                        egui::ProgressBar::new(job.fraction())
                            .text(format!("{} {:.0} %", job.what, job.fraction() * 100.0))
                            .desired_width(400.0),
                    );
                    if UiCommand::CancelJob.button(ui, true).clicked() {
                        self.queue(UiCommand::CancelJob);
                    }
                });
            });
        }
        panes::side_panel(self, ui);
        egui::CentralPanel::default().show(ui, |ui| {
            let mut tree = self.layout.take().unwrap_or_else(layout::default_layout);
            self.survey.shown = false;
            tree.ui(&mut panes::PaneUi { app: self }, ui);
            self.layout = Some(tree);
        });
        if self.views.help {
            commands::help_overlay(ui.ctx(), &mut self.views.help);
        }
        self.run_commands(ui.ctx());
        self.tour_step(ui.ctx());
        // New load choices (missing values, time column) mean a new table: reload.
        if !self.file.loading() && self.load_options() != self.file.options {
            if let Some(f) = self.settings.file.clone() {
                self.open(f);
            }
        }
        self.request_if_changed();
        self.request_compare_if_changed();
        self.request_survey_if_changed();
    }

    /// The menus, the compare pin, and the status line.
    fn menu_bar(&mut self, ui: &mut egui::Ui) {
        self.file_menu(ui);
        self.view_menu(ui);
        ui.checkbox(&mut self.settings.raw_coefficients, "raw coefficients");
        if self.compare.is_none() {
            if UiCommand::PinForCompare
                .button(ui, true)
                .on_hover_text("Keep this configuration as B and compare it with the knobs' A")
                .clicked()
            {
                self.queue(UiCommand::PinForCompare);
            }
        } else if UiCommand::StopComparing.button(ui, true).clicked() {
            self.queue(UiCommand::StopComparing);
        }
        if self.window.busy {
            ui.spinner();
        }
        ui.label(self.status.line());
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

    /// Switch between the light and dark theme (remembered with the session).
    pub fn set_theme(&mut self, dark: bool) {
        self.settings.dark_theme = dark; // applied at the next frame
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
