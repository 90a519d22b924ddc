//! The dashboard's panes (egui_tiles): each drawn by its view from the app's state; an
//! action a pane offers is queued as a [`UiCommand`].

use super::layout::Pane;
use super::views;
use super::Workbench;
use wavebench_core::data::Table;
use wavebench_core::pipeline::Inspection;

/// Draws each pane of the dashboard from the app's state.
pub(super) struct PaneUi<'a> {
    pub app: &'a mut Workbench,
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
        let Some(table) = app.file.table.clone() else {
            ui.centered_and_justified(|ui| {
                ui.label("No data loaded: File > Open (Ctrl+O), or drop a file on the window.")
            });
            return egui_tiles::UiResponse::None;
        };
        let r = app.window.result.as_deref();
        match (*pane, r) {
            (Pane::Series, _) => app.views.overview.ui(ui, &table, &mut app.settings, link),
            (Pane::DataSet, _) => {
                app.survey.shown = true;
                app.views.dataset.ui(ui, &table, &mut app.settings)
            }
            (Pane::Sweep, _) => {
                let running = app.job.is_some();
                let step_ms = table.time.as_ref().and_then(|t| t.step_ms());
                app.views
                    .sweep
                    .ui(ui, &mut app.settings, running, &mut app.commands, step_ms);
            }
            (_, None) => match app.status.why_failed() {
                Some(why) => {
                    ui.centered_and_justified(|ui| {
                        ui.colored_label(ui.visuals().warn_fg_color, why)
                    });
                }
                None => {
                    ui.centered_and_justified(|ui| ui.spinner());
                }
            },
            (Pane::Bands, Some(r)) => views::bands::ui(
                ui,
                r,
                &table,
                app.settings.raw_coefficients,
                views::bands::Stack::alone(link),
            ),
            (Pane::Energy, Some(r)) => views::energy::ui(
                ui,
                &r.features,
                table.time.as_ref().and_then(|t| t.step_ms()),
            ),
            (Pane::Features, Some(r)) => views::features::ui(ui, &r.features),
            (Pane::Prompt, Some(r)) => {
                views::prompt::ui(ui, Some(&r.prompt), &mut app.settings, &mut app.commands)
            }
            (Pane::Timing, Some(r)) => {
                let (current, running) = (app.settings.whole_run_label(), app.job.is_some());
                app.views
                    .timing
                    .ui(ui, r, &current, running, &mut app.commands);
            }
            (Pane::Compare, Some(r)) => compare_pane(ui, app, &table, r),
        }
        egui_tiles::UiResponse::None
    }
}

/// The Compare pane: A (the knobs, inspected as `r`) beside the pinned B, with their
/// scores from the last sweep while it answers for these knobs.
fn compare_pane(ui: &mut egui::Ui, app: &Workbench, table: &Table, r: &Inspection) {
    match &app.compare {
        Some(c) => match &c.result {
            Some(b) => {
                let a = &app.settings.run;
                let a_label = a.transform.to_string();
                let template = app.settings.template_label();
                let pinned_settings = c.settings_for(&app.settings);
                let pinned = &pinned_settings.run;
                // Scores from the last sweep, while it answers for these knobs.
                let scores = app
                    .views
                    .sweep
                    .sweep
                    .as_ref()
                    .filter(|sw| views::sweep::stale(sw, &app.settings).is_none())
                    .and_then(|sw| {
                        let ra = sw.row(a.transform, &template)?;
                        let rb = sw.row(pinned.transform, &pinned_settings.template_label())?;
                        Some(crate::sweep::Difference::of(ra, rb))
                    });
                egui::ScrollArea::vertical().show(ui, |ui| {
                    views::compare::ui(ui, table, (&a_label, r), (&c.label(), b), scores)
                });
            }
            None => {
                ui.spinner();
            }
        },
        None => {
            ui.label("Pin the current configuration (\"Pin for compare\" in the menu bar), then change the knobs: A and B are shown side by side here.");
        }
    }
}

/// The knobs on the left: data, wavelet, engine, prompt.
pub(super) fn side_panel(app: &mut Workbench, ui: &mut egui::Ui) {
    egui::Panel::left("config")
        .resizable(true)
        .default_size(290.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading("Data");
                if let Some(table) = &app.file.table {
                    views::data::controls(ui, table, &mut app.settings);
                }
                let columns: Vec<String> = app.file.table.as_ref().map_or(Vec::new(), |t| {
                    t.time
                        .iter()
                        .map(|a| a.name.clone())
                        .chain(t.channels.iter().map(|c| c.name.clone()))
                        .collect()
                });
                views::data::load_choices(ui, &mut app.settings, &columns);
                if let Some(table) = &app.file.table {
                    views::data::export_shape(ui, table, &mut app.settings);
                }
                ui.separator();
                let device = app
                    .window
                    .result
                    .as_ref()
                    .map_or(String::new(), |r| format!("{}: {}", r.engine, r.device));
                let rows = app.file.table.as_ref().map(|t| t.rows());
                app.views.config.ui(ui, &mut app.settings, rows, &device);
            });
        });
}
