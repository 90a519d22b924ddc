//! Energy ratios per band as bars; band trends and standard deviations beside them, each
//! bar labelled with its band (cA_n … cD_1), negative values drawn below the axis.

use egui_plot::{Bar, BarChart, Plot, PlotPoint, Text};
use wavebench_core::engine::plan::{band_names, band_periods};
use wavebench_core::features::{Degenerate, Features};

/// `step_ms`: the data's time step, to name each band's periods in its units.
pub fn ui(ui: &mut egui::Ui, f: &Features, step_ms: Option<f64>) {
    let labels = band_names(f.energy_ratio.len() - 1);
    let periods = band_periods(f.energy_ratio.len() - 1, step_ms);
    let height = ui.available_height() - 22.0;
    // The narrowest bar spacing of the three charts (last frame's): all three name their
    // bands alike, shortened when any is too narrow for "cD3".
    let spacing_id = ui.make_persistent_id("narrowest bar");
    let narrowest: f64 = ui.data(|d| d.get_temp(spacing_id)).unwrap_or(f64::INFINITY);
    let mut measured = f64::INFINITY;
    ui.columns(3, |cols| {
        for (col, (title, values, colour)) in cols.iter_mut().zip([
            (
                "energy ratio",
                &f.energy_ratio,
                egui::Color32::from_rgb(70, 130, 220),
            ),
            (
                "band trend",
                &f.trends,
                egui::Color32::from_rgb(230, 140, 50),
            ),
            (
                "band std",
                &f.band_stds,
                egui::Color32::from_rgb(90, 170, 90),
            ),
        ]) {
            col.vertical_centered(|ui| ui.strong(title));
            if title == "energy ratio" && f.degenerate == Some(Degenerate::Constant) {
                // 0/0: no band has energy, so no band has a share of it.
                undefined_ratio(col, height);
                continue;
            }
            let bars = bars_of(values, &labels, &periods, colour);
            let (lo, hi) = values
                .iter()
                .fold((0.0f64, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
            // All bars at zero (a constant window's trends and stds): the axis keeps a
            // unit scale rather than collapsing to nothing, and the chart says why.
            let all_zero = hi == lo;
            let span = if all_zero { 1.0 } else { hi - lo };
            Plot::new(title)
                .height(height.max(60.0))
                .allow_drag(false)
                .allow_zoom(false)
                .allow_scroll(false)
                .show_grid([false, true])
                .include_y(lo * 1.1 - 0.12 * span)
                .include_y(if all_zero { span } else { hi * 1.1 })
                .include_y(0.0)
                .show_axes([false, true])
                .show(col, |p| {
                    p.bar_chart(
                        BarChart::new(title, bars)
                            .element_formatter(Box::new(|b, _| b.name.clone())),
                    );
                    // Where the band names go, under the bars.
                    let below = lo.min(0.0) - 0.02 * span;
                    if all_zero {
                        p.text(Text::new(
                            "all zero",
                            PlotPoint::new((values.len() as f64 - 1.0) / 2.0, 0.5 * span),
                            "0 in every band",
                        ));
                    }
                    measured = measured.min(p.transform().dpos_dvalue_x().abs());
                    let per_bar = narrowest.min(p.transform().dpos_dvalue_x().abs());
                    name_bands(p, &labels, per_bar, below);
                });
        }
    });
    // Remembered for the next frame (once settled, no further repaint).
    let settled = narrowest.is_finite() && (measured - narrowest).abs() <= 0.5;
    if measured.is_finite() && !settled {
        ui.data_mut(|d| d.insert_temp(spacing_id, measured));
        ui.ctx().request_repaint();
    }
}

/// A bar per band, named with its band, period and value on hover.
fn bars_of(
    values: &[f64],
    labels: &[String],
    periods: &[String],
    colour: egui::Color32,
) -> Vec<Bar> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            Bar::new(i as f64, v)
                .name(format!("{} ({}): {v:.4}", labels[i], periods[i]))
                .width(0.7)
                .fill(colour)
        })
        .collect()
}

/// In place of a constant window's energy ratios: why there are none.
fn undefined_ratio(ui: &mut egui::Ui, height: f32) {
    ui.vertical_centered(|ui| {
        ui.add_space(height / 3.0);
        ui.label("—");
        ui.weak("undefined: the window is constant, no band has energy");
    });
}

/// The band names under the bars, at `below` (axis labels are dropped when dense): with
/// `per_bar` points a bar, "cD3" shortens to "D3" (smaller), and in a very narrow chart
/// only every other bar is named (hovering a bar names it), so neighbours never run into
/// each other.
fn name_bands(p: &mut egui_plot::PlotUi<'_>, labels: &[String], per_bar: f64, below: f64) {
    let (size, every) = match per_bar {
        w if w >= 16.0 => (10.0, 1),
        w if w >= 13.0 => (8.0, 1),
        _ => (8.0, 2),
    };
    for (i, name) in labels.iter().enumerate().step_by(every) {
        let short = if per_bar < 21.0 {
            name.trim_start_matches('c')
        } else {
            name.as_str()
        };
        p.text(
            Text::new(
                name.as_str(),
                PlotPoint::new(i as f64, below),
                egui::RichText::new(short).size(size),
            )
            .anchor(egui::Align2::CENTER_TOP),
        );
    }
}
