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

impl Command {
    /// What menus and the help overlay call it.
    pub fn label(&self) -> String {
        match self {
            Command::Open(p) => format!("Open {}", p.display()),
            Command::PickAndOpen => "Open...".into(),
            Command::ExportPrompts => "Export prompts (JSONL)...".into(),
            Command::ExportFeatures => "Export features (Parquet/CSV)...".into(),
            Command::ExportTiming => "Export timing (JSON/CSV/Markdown)...".into(),
            Command::ExportPlots => "Export plots (PNG)...".into(),
            Command::ExportConfiguration => "Export configuration (TOML)...".into(),
            Command::ExportSweepRow(_) => "Export configuration ...".into(),
            Command::CopyPrompt => "Copy the prompt".into(),
            Command::StartSweep => "Run sweep".into(),
            Command::StartProposals => "Measure".into(),
            Command::CancelJob => "Cancel".into(),
            Command::PinForCompare => "Pin for compare".into(),
            Command::StopComparing => "Stop comparing".into(),
            Command::TogglePane(p) => p.title().into(),
            Command::ResetLayout => "Reset layout".into(),
            Command::SetTheme { dark: true } => "Dark theme".into(),
            Command::SetTheme { dark: false } => "Light theme".into(),
            Command::ToggleHelp => "Keyboard shortcuts".into(),
        }
    }

    /// Its keyboard shortcut, where it has one: the one place each is spelled (the key
    /// bindings, the menus and the help overlay read it here).
    pub fn shortcut(&self) -> Option<egui::KeyboardShortcut> {
        use egui::{Key, KeyboardShortcut, Modifiers};
        match self {
            Command::PickAndOpen => Some(KeyboardShortcut::new(Modifiers::COMMAND, Key::O)),
            Command::ExportPrompts => Some(KeyboardShortcut::new(Modifiers::COMMAND, Key::E)),
            Command::CopyPrompt => Some(KeyboardShortcut::new(
                Modifiers::COMMAND | Modifiers::SHIFT,
                Key::C,
            )),
            Command::ToggleHelp => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F1)),
            _ => None,
        }
    }

    /// Every command with a shortcut, in the help overlay's order.
    pub fn with_shortcuts() -> [Command; 4] {
        [
            Command::PickAndOpen,
            Command::ExportPrompts,
            Command::CopyPrompt,
            Command::ToggleHelp,
        ]
    }
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

    /// Each command's shortcut (`Command::shortcut`), and `?` for the help where no text
    /// field has the keyboard (←/→ step the window, in the data view).
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        for command in Command::with_shortcuts() {
            let Some(shortcut) = command.shortcut() else {
                continue;
            };
            if ctx.input_mut(|i| i.consume_shortcut(&shortcut)) {
                self.queue(command);
            }
        }
        let typing = ctx.egui_wants_keyboard_input();
        let question = ctx.input(|i| {
            !typing
                && i.events
                    .iter()
                    .any(|e| matches!(e, egui::Event::Text(t) if t == "?"))
        });
        if question {
            self.queue(Command::ToggleHelp);
        }
    }

    pub(super) fn file_menu(&mut self, ui: &mut egui::Ui) {
        let have_data = self.table.is_some() && self.job.is_none();
        ui.menu_button("File", |ui| {
            let items = [
                (Command::PickAndOpen, true),
                (Command::ExportPrompts, have_data),
                (Command::ExportFeatures, have_data),
                (Command::ExportTiming, true),
                (Command::ExportPlots, true),
                (Command::ExportConfiguration, true),
            ];
            for (command, enabled) in items {
                let keys = command
                    .shortcut()
                    .map(|k| ui.ctx().format_shortcut(&k))
                    .unwrap_or_default();
                let button = egui::Button::new(command.label()).shortcut_text(keys);
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
            let dark = ui.visuals().dark_mode;
            for command in [
                Command::ResetLayout,
                Command::SetTheme { dark: !dark },
                Command::ToggleHelp,
            ] {
                let keys = command
                    .shortcut()
                    .map(|k| ui.ctx().format_shortcut(&k))
                    .unwrap_or_default();
                if ui
                    .add(egui::Button::new(command.label()).shortcut_text(keys))
                    .clicked()
                {
                    self.queue(command);
                }
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
                for command in Command::with_shortcuts() {
                    let Some(k) = command.shortcut() else {
                        continue;
                    };
                    let mut keys = ctx.format_shortcut(&k);
                    if command == Command::ToggleHelp {
                        keys += " or ?";
                    }
                    ui.strong(keys);
                    ui.label(command.label().trim_end_matches("..."));
                    ui.end_row();
                }
                for (k, what) in [
                    ("Left / Right", "previous / next window"),
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

#[cfg(test)]
mod tests {
    use super::Command;

    #[test]
    fn each_shortcut_belongs_to_one_command() {
        let all = Command::with_shortcuts();
        let keys: Vec<egui::KeyboardShortcut> = all
            .iter()
            .map(|c| c.shortcut().expect("listed with a shortcut"))
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert!(
                !keys[..i].contains(k),
                "{} shares its shortcut",
                all[i].label()
            );
        }
        // The rest have none, so the list is the whole of them.
        assert!(Command::ExportFeatures.shortcut().is_none());
        assert!(all.iter().all(|c| !c.label().is_empty()));
    }
}
