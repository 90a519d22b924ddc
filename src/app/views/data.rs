//! The data panel: channel, window length and position, and the series with the current
//! window highlighted.

use crate::app::state::Settings;
use crate::data::{Missing, Table};
use crate::features::Aggregate;
use egui_plot::{Legend, Line, Plot, PlotPoints, Span};

pub fn controls(ui: &mut egui::Ui, table: &Table, s: &mut Settings) {
    ui.label(format!(
        "{} rows × {} channels",
        table.rows(),
        table.channels.len()
    ));
    if !table.skipped.is_empty() {
        ui.label(format!(
            "skipped (not numeric): {}",
            table.skipped.join(", ")
        ));
    }
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
    ui.horizontal(|ui| {
        let from = ui.label("rows");
        ui.add(egui::DragValue::new(&mut s.row_start).range(0..=rows - 2))
            .labelled_by(from.id);
        let to = ui.label("to");
        ui.add(egui::DragValue::new(&mut s.row_end).range(0..=rows))
            .labelled_by(to.id)
            .on_hover_text("0 = to the end");
    });
    let end = if s.row_end > s.row_start {
        s.row_end.min(rows)
    } else {
        rows
    };
    let avail = end.saturating_sub(s.row_start).max(2);
    s.seq_len = s.seq_len.clamp(2, avail);
    ui.add(egui::Slider::new(&mut s.seq_len, 2..=avail.min(4096)).text("window length"));
    let last = avail - s.seq_len;
    s.window = s.window.min(last);
    ui.add(egui::Slider::new(&mut s.window, 0..=last).text("window (arrow keys)"));
    // Step windows with the arrow keys when no text field has focus.
    if !ui.ctx().egui_wants_keyboard_input() {
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
}

/// Missing values (changing the policy reloads the file) and how data-set-wide work
/// (exports) windows the data.
pub fn policy_and_export_shape(ui: &mut egui::Ui, table: &Table, s: &mut Settings) {
    egui::ComboBox::from_label("missing values")
        .selected_text(s.missing.name())
        .show_ui(ui, |ui| {
            for m in Missing::ALL {
                ui.selectable_value(&mut s.missing, m, m.name());
            }
        });
    ui.add(egui::Slider::new(&mut s.stride, 1..=s.seq_len.max(1)).text("stride (exports)"));
    egui::CollapsingHeader::new("columns (exports)").show(ui, |ui| {
        for c in &table.channels {
            let mut on = s.export_columns.is_empty() || s.export_columns.contains(&c.name);
            if ui.checkbox(&mut on, &c.name).changed() {
                if s.export_columns.is_empty() {
                    s.export_columns = table.channels.iter().map(|c| c.name.clone()).collect();
                }
                s.export_columns.retain(|n| n != &c.name);
                if on {
                    s.export_columns.push(c.name.clone());
                }
                // Keep file order; all selected is the same as none chosen.
                s.export_columns
                    .sort_by_key(|n| table.channels.iter().position(|c| &c.name == n));
                if s.export_columns.len() == table.channels.len() {
                    s.export_columns.clear();
                }
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

pub fn series_plot(ui: &mut egui::Ui, table: &Table, s: &Settings, link: egui::Id) {
    let Some(c) = table.channels.get(s.channel) else {
        return;
    };
    Plot::new("series")
        .height(150.0)
        .legend(Legend::default())
        .link_axis(link, [true, false])
        .show(ui, |p| {
            p.line(Line::new(
                c.name.clone(),
                PlotPoints::from_iter(c.values.iter().enumerate().map(|(i, &v)| [i as f64, v])),
            ));
            p.span(Span::new(
                "current window",
                s.window as f64..=(s.window + s.seq_len) as f64,
            ));
        });
}
