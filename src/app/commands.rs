//! The app's actions as commands, as Rerun's viewer routes its `UICommand`s: menus,
//! shortcuts, panes and dropped files push a [`Command`] during the frame, and the shell
//! carries them out in one place ([`Workbench::execute`]) after drawing, so no view holds
//! a reference to the app or signals through flags.

use super::exports::{save_as, DIALOG_HINT};
use super::layout::{self, Pane};
use super::Workbench;
use std::path::PathBuf;

/// Something the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Open a data file.
    Open(PathBuf),
    /// Ask for a data file, then open it.
    PickAndOpen,
    /// Ask where, then export every prompt / every unit's features of the data set.
    ExportPrompts,
    ExportFeatures,
    /// Ask where, then write the timing report, the plots, the configuration.
    ExportTiming,
    ExportPlots,
    ExportConfiguration,
    /// Ask where, then write a sweep row's run configuration (`--config` TOML).
    ExportSweepRow(Box<wavebench_core::config::Config>),
    CopyPrompt,
    StartSweep,
    StartProposals,
    CancelJob,
    PinForCompare,
    StopComparing,
    TogglePane(Pane),
    ResetLayout,
    SetTheme {
        dark: bool,
    },
    ToggleHelp,
}

impl Workbench {
    /// Ask for `command` to be carried out after this frame's drawing.
    pub fn queue(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// Carry out every command queued this frame, in order.
    pub(super) fn run_commands(&mut self, ctx: &egui::Context) {
        for command in std::mem::take(&mut self.commands) {
            self.execute(ctx, command);
        }
    }

    /// Carry out one command: the one place the app's actions are decided.
    pub fn execute(&mut self, ctx: &egui::Context, command: Command) {
        let have_data = self.table.is_some() && self.job.is_none();
        match command {
            Command::Open(path) => self.open(path),
            Command::PickAndOpen => match rfd::FileDialog::new().pick_file() {
                Some(p) => self.open(p),
                None => self.status = DIALOG_HINT.into(),
            },
            Command::ExportPrompts if have_data => {
                if let Some(p) = save_as("prompts.jsonl") {
                    self.export_prompts(p);
                }
            }
            Command::ExportFeatures if have_data => {
                if let Some(p) = save_as("features.parquet") {
                    self.export_features(p);
                }
            }
            Command::ExportPrompts | Command::ExportFeatures => {}
            Command::ExportTiming => {
                if let Some(p) = save_as("timing.json") {
                    self.export_timing(&p);
                }
            }
            Command::ExportPlots => {
                if let Some(p) = save_as("wavebench.png") {
                    self.export_png(ctx, p);
                }
            }
            Command::ExportConfiguration => {
                if let Some(p) = save_as("wavebench.toml") {
                    self.export_configuration(p);
                }
            }
            Command::ExportSweepRow(cfg) => {
                let name = format!(
                    "{}-level{}.toml",
                    cfg.transform.wavelet.name, cfg.transform.level
                );
                if let Some(p) = save_as(&name) {
                    let toml = crate::config::to_toml(&cfg);
                    self.write_file("configuration export", p, toml.into_bytes());
                }
            }
            Command::CopyPrompt => {
                if let Some(Ok(p)) = self.result.as_ref().map(|r| &r.prompt) {
                    ctx.copy_text(p.clone());
                    self.status = format!("prompt copied ({} characters)", p.chars().count());
                }
            }
            Command::StartSweep => self.start_sweep(),
            Command::StartProposals => self.start_proposals(),
            Command::CancelJob => self.cancel_job(),
            Command::PinForCompare => {
                self.pin_for_compare();
                layout::focus(self.layout_mut(), Pane::Compare);
            }
            Command::StopComparing => self.compare = None,
            Command::TogglePane(pane) => layout::toggle(self.layout_mut(), pane),
            Command::ResetLayout => self.layout = Some(layout::default_layout()),
            Command::SetTheme { dark } => self.set_theme(dark),
            Command::ToggleHelp => self.show_help = !self.show_help,
        }
    }

    /// Ctrl+O open, Ctrl+E export prompts, Ctrl+Shift+C copy the prompt, F1 or ? help
    /// (←/→ step the window, in the data view).
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let open = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
        let export = KeyboardShortcut::new(Modifiers::COMMAND, Key::E);
        let copy = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::C);
        for (shortcut, command) in [
            (open, Command::PickAndOpen),
            (export, Command::ExportPrompts),
            (copy, Command::CopyPrompt),
        ] {
            if ctx.input_mut(|i| i.consume_shortcut(&shortcut)) {
                self.queue(command);
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
            self.queue(Command::ToggleHelp);
        }
    }

    pub(super) fn file_menu(&mut self, ui: &mut egui::Ui) {
        let have_data = self.table.is_some() && self.job.is_none();
        ui.menu_button("File", |ui| {
            let items = [
                ("Open...", Some("Ctrl+O"), true, Command::PickAndOpen),
                (
                    "Export prompts (JSONL)...",
                    Some("Ctrl+E"),
                    have_data,
                    Command::ExportPrompts,
                ),
                (
                    "Export features (Parquet/CSV)...",
                    None,
                    have_data,
                    Command::ExportFeatures,
                ),
                (
                    "Export timing (JSON/CSV/Markdown)...",
                    None,
                    true,
                    Command::ExportTiming,
                ),
                ("Export plots (PNG)...", None, true, Command::ExportPlots),
                (
                    "Export configuration (TOML)...",
                    None,
                    true,
                    Command::ExportConfiguration,
                ),
            ];
            for (label, shortcut, enabled, command) in items {
                let button = egui::Button::new(label).shortcut_text(shortcut.unwrap_or(""));
                if ui.add_enabled(enabled, button).clicked() {
                    self.queue(command);
                }
            }
        });
    }

    pub(super) fn view_menu(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("View", |ui| {
            for pane in Pane::ALL {
                let mut open = layout::is_open(self.layout_mut(), pane);
                if ui.checkbox(&mut open, pane.title()).changed() {
                    self.queue(Command::TogglePane(pane));
                }
            }
            ui.separator();
            if ui.button("Reset layout").clicked() {
                self.queue(Command::ResetLayout);
            }
            let dark = ui.visuals().dark_mode;
            if ui
                .button(if dark { "Light theme" } else { "Dark theme" })
                .clicked()
            {
                self.queue(Command::SetTheme { dark: !dark });
            }
            if ui
                .add(egui::Button::new("Keyboard shortcuts").shortcut_text("F1"))
                .clicked()
            {
                self.show_help = true;
            }
        });
    }
}

pub(super) fn help_overlay(ctx: &egui::Context, open: &mut bool) {
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
