//! The app's actions as commands, as Rerun's viewer routes its `UICommand`s: menus,
//! shortcuts, panes and dropped files push a [`UiCommand`] during the frame, and the shell
//! carries them out in one place ([`Workbench::execute`]) after drawing, so no view holds
//! a reference to the app or signals through flags.

use super::exports::{save_as, DIALOG_HINT};
use super::layout::{self, Pane};
use super::Workbench;
use std::path::PathBuf;

/// Something the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum UiCommand {
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
    MeasureVariants,
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

impl UiCommand {
    /// What menus and the help overlay call it.
    pub fn label(&self) -> String {
        match self {
            UiCommand::Open(p) => format!("Open {}", p.display()),
            UiCommand::PickAndOpen => "Open...".into(),
            UiCommand::ExportPrompts => "Export prompts (JSONL)...".into(),
            UiCommand::ExportFeatures => "Export features (Parquet/CSV)...".into(),
            UiCommand::ExportTiming => "Export timing (JSON/CSV/Markdown)...".into(),
            UiCommand::ExportPlots => "Export plots (PNG)...".into(),
            UiCommand::ExportConfiguration => "Export configuration (TOML)...".into(),
            UiCommand::ExportSweepRow(_) => "Export configuration ...".into(),
            UiCommand::CopyPrompt => "Copy prompt".into(),
            UiCommand::StartSweep => "Run sweep".into(),
            UiCommand::MeasureVariants => "Measure".into(),
            UiCommand::CancelJob => "Cancel".into(),
            UiCommand::PinForCompare => "Pin for compare".into(),
            UiCommand::StopComparing => "Stop comparing".into(),
            UiCommand::TogglePane(p) => p.title().into(),
            UiCommand::ResetLayout => "Reset layout".into(),
            UiCommand::SetTheme { dark: true } => "Dark theme".into(),
            UiCommand::SetTheme { dark: false } => "Light theme".into(),
            UiCommand::ToggleHelp => "Keyboard shortcuts".into(),
        }
    }

    /// Its keyboard shortcut, where it has one: the one place each is spelled (the key
    /// bindings, the menus and the help overlay read it here).
    pub fn shortcut(&self) -> Option<egui::KeyboardShortcut> {
        use egui::{Key, KeyboardShortcut, Modifiers};
        match self {
            UiCommand::PickAndOpen => Some(KeyboardShortcut::new(Modifiers::COMMAND, Key::O)),
            UiCommand::ExportPrompts => Some(KeyboardShortcut::new(Modifiers::COMMAND, Key::E)),
            UiCommand::CopyPrompt => Some(KeyboardShortcut::new(
                Modifiers::COMMAND | Modifiers::SHIFT,
                Key::C,
            )),
            UiCommand::ToggleHelp => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F1)),
            _ => None,
        }
    }

    /// Every command that takes nothing, one per variant without a payload, in the help
    /// overlay's order; [`UiCommand::variant`] checks that none is left out.
    pub fn plain() -> [UiCommand; 16] {
        [
            UiCommand::PickAndOpen,
            UiCommand::ExportPrompts,
            UiCommand::CopyPrompt,
            UiCommand::ToggleHelp,
            UiCommand::ExportFeatures,
            UiCommand::ExportTiming,
            UiCommand::ExportPlots,
            UiCommand::ExportConfiguration,
            UiCommand::StartSweep,
            UiCommand::MeasureVariants,
            UiCommand::CancelJob,
            UiCommand::PinForCompare,
            UiCommand::StopComparing,
            UiCommand::ResetLayout,
            UiCommand::SetTheme { dark: true },
            UiCommand::SetTheme { dark: false },
        ]
    }

    /// Every command with a shortcut, in the help overlay's order: derived from
    /// [`UiCommand::plain`] (a command with a payload has no shortcut), each once.
    pub fn with_shortcuts() -> Vec<UiCommand> {
        let mut listed: Vec<UiCommand> = Vec::new();
        for c in Self::plain() {
            if c.shortcut().is_some() && !listed.contains(&c) {
                listed.push(c);
            }
        }
        listed
    }

    /// The variant's number: a match the compiler keeps complete, so that a new variant
    /// must be numbered here (and then listed in [`UiCommand::plain`], or the test
    /// `every_plain_variant_is_listed` fails). Compiled with the tests, which `make test`
    /// builds.
    #[cfg(test)]
    fn variant(&self) -> usize {
        match self {
            UiCommand::Open(_) => 0,
            UiCommand::PickAndOpen => 1,
            UiCommand::ExportPrompts => 2,
            UiCommand::ExportFeatures => 3,
            UiCommand::ExportTiming => 4,
            UiCommand::ExportPlots => 5,
            UiCommand::ExportConfiguration => 6,
            UiCommand::ExportSweepRow(_) => 7,
            UiCommand::CopyPrompt => 8,
            UiCommand::StartSweep => 9,
            UiCommand::MeasureVariants => 10,
            UiCommand::CancelJob => 11,
            UiCommand::PinForCompare => 12,
            UiCommand::StopComparing => 13,
            UiCommand::TogglePane(_) => 14,
            UiCommand::ResetLayout => 15,
            UiCommand::SetTheme { .. } => 16,
            UiCommand::ToggleHelp => 17,
        }
    }

    /// The variants with a payload (a path, a configuration, a pane): no shortcut.
    #[cfg(test)]
    const WITH_PAYLOAD: [usize; 3] = [0, 7, 14];
    #[cfg(test)]
    const VARIANTS: usize = 18;

    /// Its shortcut as this platform writes it ("Ctrl+O"), or nothing.
    pub fn keys(&self, ctx: &egui::Context) -> String {
        self.shortcut()
            .map(|k| ctx.format_shortcut(&k))
            .unwrap_or_default()
    }

    /// Its button in a pane or bar: its label, enabled or not; the caller adds its own
    /// hover text.
    pub fn button(&self, ui: &mut egui::Ui, enabled: bool) -> egui::Response {
        ui.add_enabled(enabled, egui::Button::new(self.label()))
    }

    /// Its entry in a menu: its label with its shortcut beside it. Whether it was chosen.
    pub fn menu_entry(&self, ui: &mut egui::Ui, enabled: bool) -> bool {
        let keys = self.keys(ui.ctx());
        let button = egui::Button::new(self.label()).shortcut_text(keys);
        ui.add_enabled(enabled, button).clicked()
    }
}

/// Where a view sends what the user asked for: the shell carries each out after the
/// frame's drawing, in the order sent ([`Workbench::execute`]).
#[derive(Debug, Default)]
pub struct Commands(Vec<UiCommand>);

impl Commands {
    /// Ask for `command` to be carried out after this frame's drawing.
    pub fn send(&mut self, command: UiCommand) {
        self.0.push(command);
    }

    /// Every command sent since the last take, in order.
    fn take(&mut self) -> Vec<UiCommand> {
        std::mem::take(&mut self.0)
    }
}

impl Workbench {
    /// Ask for `command` to be carried out after this frame's drawing.
    pub fn queue(&mut self, command: UiCommand) {
        self.commands.send(command);
    }

    /// Carry out every command queued this frame, in order.
    pub(super) fn run_commands(&mut self, ctx: &egui::Context) {
        for command in self.commands.take() {
            self.execute(ctx, command);
        }
    }

    /// Carry out one command: the one place the app's actions are decided.
    pub fn execute(&mut self, ctx: &egui::Context, command: UiCommand) {
        let have_data = self.file.table.is_some() && self.job.is_none();
        match command {
            UiCommand::Open(path) => self.open(path),
            UiCommand::PickAndOpen => match rfd::FileDialog::new().pick_file() {
                Some(p) => self.open(p),
                None => self.status.say(DIALOG_HINT),
            },
            UiCommand::ExportPrompts if have_data => {
                if let Some(p) = save_as("prompts.jsonl") {
                    self.export_prompts(p);
                }
            }
            UiCommand::ExportFeatures if have_data => {
                if let Some(p) = save_as("features.parquet") {
                    self.export_features(p);
                }
            }
            UiCommand::ExportPrompts | UiCommand::ExportFeatures => {}
            UiCommand::ExportTiming => {
                if let Some(p) = save_as("timing.json") {
                    self.export_timing(&p);
                }
            }
            UiCommand::ExportPlots => {
                if let Some(p) = save_as("wavebench.png") {
                    self.export_png(ctx, p);
                }
            }
            UiCommand::ExportConfiguration => {
                if let Some(p) = save_as("wavebench.toml") {
                    self.export_configuration(p);
                }
            }
            UiCommand::ExportSweepRow(cfg) => {
                let name = format!(
                    "{}-level{}.toml",
                    cfg.transform.wavelet.name, cfg.transform.level
                );
                if let Some(p) = save_as(&name) {
                    let toml = crate::config::to_toml(&cfg);
                    self.write_file("configuration export", p, toml.into_bytes());
                }
            }
            UiCommand::CopyPrompt => {
                if let Some(Ok(p)) = self.window.result.as_ref().map(|r| &r.prompt) {
                    ctx.copy_text(p.clone());
                    self.status
                        .say(format!("prompt copied ({} characters)", p.chars().count()));
                }
            }
            UiCommand::StartSweep => self.start_sweep(),
            UiCommand::MeasureVariants => self.measure_variants(),
            UiCommand::CancelJob => self.cancel_job(),
            UiCommand::PinForCompare => {
                self.pin_for_compare();
                layout::focus(self.layout_mut(), Pane::Compare);
            }
            UiCommand::StopComparing => self.compare = None,
            UiCommand::TogglePane(pane) => layout::toggle(self.layout_mut(), pane),
            UiCommand::ResetLayout => self.layout = Some(layout::default_layout()),
            UiCommand::SetTheme { dark } => self.set_theme(dark),
            UiCommand::ToggleHelp => self.views.help = !self.views.help,
        }
    }

    /// Each command's shortcut (`UiCommand::shortcut`), and `?` for the help where no text
    /// field has the keyboard (←/→ step the window, in the data view).
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        for command in UiCommand::with_shortcuts() {
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
            self.queue(UiCommand::ToggleHelp);
        }
    }

    pub(super) fn file_menu(&mut self, ui: &mut egui::Ui) {
        let have_data = self.file.table.is_some() && self.job.is_none();
        ui.menu_button("File", |ui| {
            let items = [
                (UiCommand::PickAndOpen, true),
                (UiCommand::ExportPrompts, have_data),
                (UiCommand::ExportFeatures, have_data),
                (UiCommand::ExportTiming, true),
                (UiCommand::ExportPlots, true),
                (UiCommand::ExportConfiguration, true),
            ];
            for (command, enabled) in items {
                if command.menu_entry(ui, enabled) {
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
                    self.queue(UiCommand::TogglePane(pane));
                }
            }
            ui.separator();
            let dark = ui.visuals().dark_mode;
            for command in [
                UiCommand::ResetLayout,
                UiCommand::SetTheme { dark: !dark },
                UiCommand::ToggleHelp,
            ] {
                if command.menu_entry(ui, true) {
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
                for command in UiCommand::with_shortcuts() {
                    let mut keys = command.keys(ctx);
                    if command == UiCommand::ToggleHelp {
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
    use super::UiCommand;

    #[test]
    fn each_shortcut_belongs_to_one_command() {
        let all = UiCommand::with_shortcuts();
        assert!(!all.is_empty());
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
        assert!(all.iter().all(|c| !c.label().is_empty()));
    }

    /// The list the shortcuts are derived from holds every variant without a payload: a
    /// variant left out of `plain()` (and so its shortcut out of the key bindings and the
    /// help overlay) fails here.
    #[test]
    fn every_plain_variant_is_listed() {
        let listed: Vec<usize> = UiCommand::plain().iter().map(UiCommand::variant).collect();
        for v in 0..UiCommand::VARIANTS {
            let payload = UiCommand::WITH_PAYLOAD.contains(&v);
            assert_eq!(
                listed.contains(&v),
                !payload,
                "variant {v}: listed in plain() {} times, payload: {payload}",
                listed.iter().filter(|&&l| l == v).count()
            );
        }
        // The variants with a payload have no shortcut to miss.
        let with_payload = [
            UiCommand::Open("x.csv".into()),
            UiCommand::ExportSweepRow(Box::default()),
            UiCommand::TogglePane(super::Pane::Series),
        ];
        for c in with_payload {
            assert!(UiCommand::WITH_PAYLOAD.contains(&c.variant()));
            assert!(c.shortcut().is_none(), "{}", c.label());
        }
    }
}
