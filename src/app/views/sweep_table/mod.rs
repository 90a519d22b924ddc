//! The sweep's ranking as a table that fits its pane: the header stays while the rows
//! scroll, and every column that carries the answer (rank, configuration, val score, tie,
//! gain over the Time-LLM baseline, bits beyond the series, forecast gain, test rank) sits
//! within the pane's width. The figure ranked by prints its interval; the others print
//! their estimate with the interval on hover, and the gain is coloured by where its
//! interval lies. The cells are built first ([`Model`]), then drawn; each column is as wide
//! as what it holds.

mod model;

use crate::app::commands::{Commands, UiCommand};
use crate::app::state::Settings;
use crate::sweep::rank::Standings;
use crate::sweep::Sweep;
use model::{Cell, Column, Model, Subject};

/// The narrowest the configuration column may get before the table scrolls sideways.
const MIN_CONFIGURATION: f32 = 64.0;

/// Draw the ranking within `height`; a click on a row loads its configuration, a
/// right-click offers to export it.
pub(super) fn sweep_table(
    ui: &mut egui::Ui,
    sweep: &Sweep,
    standings: &Standings<'_>,
    height: f32,
    s: &mut Settings,
    commands: &mut Commands,
) {
    let mut model = Model::new(sweep, standings);
    let mut cells: Vec<Vec<Cell>> = model
        .rows
        .iter()
        .map(|subject| {
            model
                .columns
                .iter()
                .map(|&c| model.cell(c, subject))
                .collect()
        })
        .collect();
    ui.spacing_mut().item_spacing.x = 4.0;
    let widths = fit_columns(ui, &mut model, &mut cells);
    let row_height = ui.spacing().interact_size.y;
    let ui_text_height = ui.text_style_height(&egui::TextStyle::Body);
    // Sideways only when the pane is narrower than the answer's columns at their least.
    egui::ScrollArea::horizontal()
        .id_salt("sweep table sideways")
        .show(ui, |ui| {
            let mut table = egui_extras::TableBuilder::new(ui)
                .id_salt("sweep table")
                .striped(true)
                .sense(egui::Sense::click())
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
                .max_scroll_height(height - row_height)
                .auto_shrink([false, true])
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible);
            for (&c, &w) in model.columns.iter().zip(&widths) {
                table =
                    table.column(egui_extras::Column::exact(w).clip(c == Column::Configuration));
            }
            table
                .header(2.0 * ui_text_height + 4.0, |mut header| {
                    for &c in &model.columns {
                        header.col(|ui| {
                            // Both lines: a clipped column truncates to one by default.
                            ui.add(
                                egui::Label::new(egui::RichText::new(model.title(c)).strong())
                                    .wrap_mode(egui::TextWrapMode::Wrap),
                            )
                            .on_hover_text(model.title_hover(c));
                        });
                    }
                })
                .body(|body| {
                    body.rows(row_height, model.rows.len(), |row| {
                        let i = row.index();
                        table_row(row, &model, &cells[i], sweep, s, commands);
                    });
                });
        });
}

/// One row of the table: its cells (the configuration a selectable label whose menu
/// exports it), selected where it is the knobs' transform; a click sets the knobs to it.
fn table_row(
    mut row: egui_extras::TableRow<'_, '_>,
    model: &Model<'_, '_>,
    cells: &[Cell],
    sweep: &Sweep,
    s: &mut Settings,
    commands: &mut Commands,
) {
    let i = row.index();
    let subject = &model.rows[i];
    let transform = match subject {
        Subject::Row(st) => Some(st.row),
        Subject::Baseline => None,
    };
    let current = transform.is_some_and(|r| r.transform == s.run.transform);
    row.set_selected(current);
    let export = |r: &egui::Response, commands: &mut Commands| {
        let Some(row) = transform else { return };
        r.context_menu(|ui| {
            let export = UiCommand::ExportSweepRow(Box::new(sweep.config_of(row)));
            if export.button(ui, true).clicked() {
                commands.send(export);
                ui.close();
            }
        });
    };
    let mut clicked = false;
    for (&c, cell) in model.columns.iter().zip(cells) {
        row.col(|ui| {
            let r = if c == Column::Configuration && transform.is_some() {
                let r = ui.selectable_label(current, cell.text.as_str());
                export(&r, commands);
                r
            } else {
                let mut text = egui::RichText::new(cell.text.as_str());
                if let Some(colour) = cell.tone.and_then(|t| t.colour(ui)) {
                    text = text.color(colour);
                }
                ui.label(text)
            };
            clicked |= r.clicked();
            if let Some(h) = &cell.hover {
                r.on_hover_text(h.as_str());
            }
        });
    }
    let response = row.response();
    if let Some(r) = transform {
        if clicked || response.clicked() {
            s.run.transform = r.transform;
        }
    }
    export(&response, commands);
}

/// Each column's width, its widest cell's or title's, fitted to what the pane leaves (less
/// the vertical scroll bar): the test figure goes first (its rank stays), then the
/// configuration narrows, to no less than [`MIN_CONFIGURATION`].
fn fit_columns(ui: &egui::Ui, model: &mut Model<'_, '_>, cells: &mut [Vec<Cell>]) -> Vec<f32> {
    let spacing = ui.spacing().item_spacing.x;
    let body = egui::TextStyle::Body.resolve(ui.style());
    let mut widths: Vec<f32> = model
        .columns
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            cells
                .iter()
                .map(|row| super::text_width(ui, &row[i].text, &body))
                .fold(super::text_width(ui, &model.title(c), &body), f32::max)
                + 2.0
                // The configuration is a selectable label: its frame's padding too.
                + if c == Column::Configuration {
                    2.0 * ui.spacing().button_padding.x
                } else {
                    0.0
                }
        })
        .collect();
    let room = ui.available_width() - ui.spacing().scroll.allocated_width() - spacing;
    let total = |w: &[f32]| w.iter().sum::<f32>() + spacing * (w.len() as f32 - 1.0);
    if total(&widths) > room {
        if let Some(i) = model.columns.iter().position(|&c| c == Column::Test) {
            model.columns.remove(i);
            widths.remove(i);
            for row in cells.iter_mut() {
                row.remove(i);
            }
        }
    }
    let conf = model
        .columns
        .iter()
        .position(|&c| c == Column::Configuration)
        .unwrap_or(1);
    let over = total(&widths) - room;
    if over > 0.0 {
        widths[conf] = (widths[conf] - over).max(MIN_CONFIGURATION);
    }
    widths
}
