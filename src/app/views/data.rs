//! The data panel: channel, window length and position, and the series with the current
//! window highlighted.

use super::time_axis::{self, TimeFormat};
use crate::app::state::Settings;
use egui_plot::{Legend, Line, Plot, PlotPoint, PlotPoints, Span, Text};
use wavebench_core::data::{Missing, Table, TimeColumn, TimeKind};
use wavebench_core::features::Aggregate;

pub fn controls(ui: &mut egui::Ui, table: &Table, s: &mut Settings) {
    facts(ui, table);
    let name = table
        .channels
        .get(s.channel)
        .map_or("", |c| c.name.as_str());
    egui::ComboBox::from_label("channel")
        .selected_text(name)
        .show_ui(ui, |ui| {
            for (i, c) in table.channels.iter().enumerate() {
                ui.selectable_value(&mut s.channel, i, &c.name);
            }
        });
    let rows = table.rows().max(2);
    let (mut row_start, mut row_end) = s.row_bounds();
    ui.horizontal(|ui| {
        let from = ui.label("rows");
        ui.add(egui::DragValue::new(&mut row_start).range(0..=rows - 2))
            .labelled_by(from.id);
        let to = ui.label("to");
        ui.add(
            egui::DragValue::new(&mut row_end)
                .range(0..=rows)
                .custom_formatter(|v, _| {
                    if v == 0.0 {
                        "end".into()
                    } else {
                        format!("{v}")
                    }
                }),
        )
        .labelled_by(to.id)
        .on_hover_text("End row (exclusive); 'end' = to the end of the file");
        if row_start == 0 && row_end == 0 {
            ui.weak("(all rows)");
        }
    });
    if (row_start, row_end) != s.row_bounds() {
        s.set_row_bounds(row_start, row_end);
    }
    let end = if row_end > row_start {
        row_end.min(rows)
    } else {
        rows
    };
    let avail = end.saturating_sub(row_start).max(2);
    let mut seq_len = s.seq_len().clamp(2, avail);
    ui.add(egui::Slider::new(&mut seq_len, 2..=avail.min(4096)).text("window length"));
    if Some(seq_len) != s.run.seq_len {
        s.run.seq_len = Some(seq_len);
    }
    let last = avail - seq_len;
    s.window = s.window.min(last);
    ui.add(egui::Slider::new(&mut s.window, 0..=last).text("window (Left/Right keys)"));
    let first_row = row_start + s.window;
    ui.label(format!(
        "window: {} to {}",
        table.time_label(first_row),
        table.time_label(first_row + seq_len - 1)
    ));
    step_with_arrows(ui, s, last);
}

/// The table's size, time axis, skipped columns and load warnings.
fn facts(ui: &mut egui::Ui, table: &Table) {
    ui.label(format!(
        "{} rows × {} channels",
        table.rows(),
        table.channels.len()
    ));
    match &table.time {
        Some(t) => ui.label(format!("time axis: '{}' ({})", t.name, kind_name(t.kind))),
        None => ui.label("time axis: none (row numbers)"),
    };
    if !table.skipped.is_empty() {
        ui.label(format!(
            "skipped (not numeric): {}",
            table.skipped.join(", ")
        ));
    }
    for w in &table.warnings {
        ui.colored_label(ui.visuals().warn_fg_color, w);
    }
}

/// Step the window with the arrow keys (up to window `last`) when no text field has
/// focus.
fn step_with_arrows(ui: &egui::Ui, s: &mut Settings, last: usize) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    let (left, right) = ui.input(|i| {
        (
            i.key_pressed(egui::Key::ArrowLeft),
            i.key_pressed(egui::Key::ArrowRight),
        )
    });
    if left {
        s.window = s.window.saturating_sub(1);
    }
    if right {
        s.window = (s.window + 1).min(last);
    }
}

fn kind_name(k: TimeKind) -> &'static str {
    match k {
        TimeKind::Index => "index",
        TimeKind::Date => "dates",
        TimeKind::DateTime => "date and time",
        TimeKind::Text => "labels",
    }
}

/// The loading choices (missing values, time column; a change reloads the file); shown
/// also when a load failed, so the user can fix what made it fail.
pub fn load_choices(ui: &mut egui::Ui, s: &mut Settings, columns: &[String]) {
    egui::ComboBox::from_label("missing values")
        .selected_text(s.run.missing.name())
        .show_ui(ui, |ui| {
            for m in Missing::ALL {
                ui.selectable_value(&mut s.run.missing, m, m.name());
            }
        })
        .response
        .on_hover_text(
            "Empty, NaN or text cells: refuse (error), interpolate, drop the row, or zero",
        );
    egui::ComboBox::from_label("time column")
        .selected_text(s.run.time_column.to_string())
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut s.run.time_column, TimeColumn::Auto, "auto");
            ui.selectable_value(&mut s.run.time_column, TimeColumn::None, "none");
            for c in columns {
                ui.selectable_value(&mut s.run.time_column, TimeColumn::Named(c.clone()), c);
            }
        });
}

/// Missing values (changing the policy reloads the file) and how data-set-wide work
/// (exports) windows the data.
pub fn export_shape(ui: &mut egui::Ui, table: &Table, settings: &mut Settings) {
    let seq_len = settings.seq_len();
    let s = &mut settings.run;
    ui.add(egui::Slider::new(&mut s.stride, 1..=seq_len.max(1)).text("stride (exports)"));
    egui::CollapsingHeader::new("columns (exports)").show(ui, |ui| {
        for c in &table.channels {
            let chosen = s.columns.get_or_insert_with(Vec::new);
            let mut on = chosen.is_empty() || chosen.contains(&c.name);
            if ui.checkbox(&mut on, &c.name).changed() {
                if chosen.is_empty() {
                    *chosen = table.channels.iter().map(|c| c.name.clone()).collect();
                }
                chosen.retain(|n| n != &c.name);
                if on {
                    chosen.push(c.name.clone());
                }
                // Keep file order; all selected is the same as none chosen.
                chosen.sort_by_key(|n| table.channels.iter().position(|c| &c.name == n));
            }
            if s.columns
                .as_ref()
                .is_some_and(|c| c.is_empty() || c.len() == table.channels.len())
            {
                s.columns = None;
            }
        }
    });
    egui::ComboBox::from_label("aggregate (exports)")
        .selected_text(s.aggregate.name())
        .show_ui(ui, |ui| {
            for a in Aggregate::ALL {
                ui.selectable_value(&mut s.aggregate, a, a.name());
            }
        });
    if s.aggregate == Aggregate::Batch {
        ui.add(egui::Slider::new(&mut s.batch_size, 1..=256).text("batch size"));
    }
}

/// The series overview with the current window: min/max per pixel column, computed once
/// per table, channel and width (a 10M-row file draws as fast as a small one), on the
/// data's time axis. A click or drag moves the window there.
#[derive(Default)]
pub struct Overview {
    /// (table identity, rows, channel, pixel columns) the points were made for.
    key: Option<(usize, usize, usize, usize)>,
    points: Vec<[f64; 2]>,
}

impl Overview {
    pub fn ui(&mut self, ui: &mut egui::Ui, table: &Table, s: &mut Settings, link: egui::Id) {
        let Some(c) = table.channels.get(s.channel) else {
            return;
        };
        let columns = (ui.available_width().max(100.0) as usize).max(1);
        let key = (c.values.as_ref().addr(), c.values.len(), s.channel, columns);
        if self.key != Some(key) {
            self.points = decimate(&c.values.rows_f64(0..c.values.len()), columns);
            self.key = Some(key);
        }
        series_plot(ui, table, s, link, &c.name, &self.points);
    }
}

fn series_plot(
    ui: &mut egui::Ui,
    table: &Table,
    s: &mut Settings,
    link: egui::Id,
    name: &str,
    shape: &[[f64; 2]],
) {
    let fmt = TimeFormat::of(table);
    let seq_len = s.seq_len();
    let (row_start, _) = s.row_bounds();
    let w0 = (row_start + s.window) as f64;
    let (lo, hi) = shape
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), q| {
            (a.min(q[1]), b.max(q[1]))
        });
    let [y0, y1] = time_axis::around(lo, hi);
    let response = Plot::new("series")
        .link_cursor(time_axis::time_cursor(), [true, false])
        .include_y(y0)
        .include_y(y1)
        .legend(Legend::default())
        .x_axis_formatter(fmt.axis(table, time_axis::AxisRoom::of(ui, 40.0)))
        .x_grid_spacer(fmt.spacer())
        .y_grid_spacer(time_axis::value_spacer())
        .y_axis_formatter(time_axis::value_label)
        .label_formatter(move |pos| time_axis::readout(fmt, table, pos))
        .allow_drag([false, false])
        .allow_boxed_zoom(false)
        .link_axis(link, [true, false])
        .show(ui, |p| {
            p.line(Line::new(name, PlotPoints::from(shape.to_vec())));
            let window = w0..=w0 + seq_len as f64;
            // A window narrower than its name (512 rows of a long file) would show "c...":
            // the name goes beside it instead, at the top, on the side with room.
            let px = p.transform().dpos_dvalue_x().abs() * seq_len as f64;
            if px >= 120.0 {
                p.span(Span::new("current window", window));
            } else {
                p.span(Span::new("", window));
                let b = p.plot_bounds();
                let right_room = b.max()[0] - (w0 + seq_len as f64) > b.width() / 8.0;
                // At the data's top, so the label never widens the auto-fitted bounds.
                let top = shape.iter().map(|q| q[1]).fold(f64::NEG_INFINITY, f64::max);
                let (x, anchor) = if right_room {
                    (w0 + seq_len as f64, egui::Align2::LEFT_TOP)
                } else {
                    (w0, egui::Align2::RIGHT_TOP)
                };
                p.text(
                    Text::new("current window", PlotPoint::new(x, top), " current window ")
                        .anchor(anchor),
                );
            }
            let clicked = p.response().clicked() || p.response().dragged();
            clicked.then(|| p.pointer_coordinate()).flatten()
        });
    if let Some(at) = response.inner {
        // Centre the window on the pointer, within the selected rows.
        let row = (at.x - seq_len as f64 / 2.0).round().max(row_start as f64) as usize;
        s.window = row - row_start;
    }
}

/// `values` as a polyline of at most 2 × `columns` points: the min and max of each
/// column's rows (in row order), so spikes survive any zoom-out.
pub fn decimate(values: &[f64], columns: usize) -> Vec<[f64; 2]> {
    let per = values.len().div_ceil(columns.max(1)).max(1);
    if per <= 2 {
        return values
            .iter()
            .enumerate()
            .map(|(i, &v)| [i as f64, v])
            .collect();
    }
    let mut out = Vec::with_capacity(2 * columns);
    for (k, chunk) in values.chunks(per).enumerate() {
        let base = k * per;
        let (mut lo, mut hi) = (0, 0);
        for (i, v) in chunk.iter().enumerate() {
            if *v < chunk[lo] {
                lo = i;
            }
            if *v > chunk[hi] {
                hi = i;
            }
        }
        for i in if lo <= hi { [lo, hi] } else { [hi, lo] } {
            out.push([(base + i) as f64, chunk[i]]);
        }
    }
    out
}
