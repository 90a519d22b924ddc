//! The bands: per-band reconstruction stacked (or raw coefficients), each plot labelled with
//! its band and the periods it holds in a column of its own (horizontal text, inside its
//! plot's height, so labels never run into each other at any level), on the data's time
//! axis, zoom and hover cursor linked across plots; the samples the signal extension
//! reaches are shaded (said once above the stack).

use super::time_axis::{self, TimeFormat};
use egui_plot::{Line, Plot, PlotPoints, Polygon};
use wavebench_core::data::Table;
use wavebench_core::engine::plan::{band_names, band_periods};
use wavebench_core::pipeline::Inspection;

/// A band's label: its name and the periods it holds.
pub struct BandLabel {
    pub name: String,
    pub periods: String,
}

/// Each band's label, cA first: its periods in the data's time units where it has a
/// regular date step, in one unit a band (the text `decompose` and `mra` write).
pub fn labels(r: &Inspection, table: &Table) -> Vec<BandLabel> {
    let names = band_names(r.coeffs.len() - 1);
    let periods = band_periods(
        names.len() - 1,
        table.time.as_ref().and_then(|t| t.step_ms()),
    );
    names
        .into_iter()
        .zip(periods)
        .map(|(name, periods)| BandLabel { name, periods })
        .collect()
}

/// The label column's width for these labels: Compare gives both stacks the widest of
/// the two, so their plots start at the same x.
pub fn label_width(ui: &egui::Ui, labels: &[BandLabel]) -> f32 {
    let body = egui::TextStyle::Body.resolve(ui.style());
    let small = egui::TextStyle::Small.resolve(ui.style());
    labels
        .iter()
        .map(|l| {
            super::text_width(ui, &l.name, &body).max(super::text_width(ui, &l.periods, &small))
        })
        .fold(0.0, f32::max)
        + 4.0
}

/// Where a stack of bands draws: its plots' id, the x-axis group its plots share (Compare's
/// two stacks share one), and its label column's width (None: its own labels').
#[derive(Debug, Clone, Copy)]
pub struct Stack {
    pub id: egui::Id,
    pub axis: egui::Id,
    pub label_width: Option<f32>,
}

impl Stack {
    /// One stack on its own: its plots' axes linked among themselves.
    pub fn alone(id: egui::Id) -> Self {
        Stack {
            id,
            axis: id,
            label_width: None,
        }
    }
}

/// The value axis's width, the same for every plot: their frames line up down a stack.
const VALUE_AXIS_WIDTH: f32 = 50.0;

pub fn ui(ui: &mut egui::Ui, r: &Inspection, table: &Table, raw: bool, stack: Stack) {
    let labels = labels(r, table);
    let names: Vec<&str> = labels.iter().map(|l| l.name.as_str()).collect();
    let label_w = stack
        .label_width
        .unwrap_or_else(|| label_width(ui, &labels));
    let link = stack.id;
    let n = names.len() as f32;
    let shade = ui.visuals().weak_text_color().gamma_multiply(0.25);
    shade_legend(ui, shade);
    let h = ((ui.available_height() - 4.0 * n) / n).max(40.0);
    let fmt = TimeFormat::of(table);
    let cursor = cursor_of(raw);
    let changed = shows_new_data(ui, link, r, raw);
    for (k, &name) in names.iter().enumerate() {
        let last = k + 1 == names.len();
        let mut plot = Plot::new((link, "band", k))
            .height(h)
            .y_axis_min_width(VALUE_AXIS_WIDTH)
            .show_x(true)
            // The wheel scrolls the pane (a stack of bands is taller than a screen in
            // Compare); Ctrl+wheel and drag still zoom and pan.
            .allow_scroll(false)
            .y_grid_spacer(time_axis::value_spacer())
            .y_axis_formatter(time_axis::value_label)
            .link_cursor(cursor, [true, false]);
        if changed {
            plot = plot.reset();
        }
        let shade_span = |p: &mut egui_plot::PlotUi, a: f64, b: f64, lo: f64, hi: f64| {
            shade_span(p, shade, [a, b], [lo, hi])
        };
        ui.horizontal(|ui| {
            band_label(ui, &labels[k], egui::vec2(label_w, h));
            let room = time_axis::AxisRoom::of(ui, VALUE_AXIS_WIDTH);
            if raw {
                let b = r.boundary[k] as f64;
                raw_band(ui, plot, (name, &r.coeffs[k]), b, last, shade);
            } else {
                let c = &r.mra[k];
                let start = r.start as f64;
                // In the time domain a band's edge effect reaches about 2^level samples per
                // affected coefficient.
                let level = if k == 0 {
                    names.len() - 1
                } else {
                    names.len() - k
                };
                let reach = ((r.boundary[k] << level) as f64).min(c.len() as f64 / 2.0);
                let (lo, hi) = range(c);
                let [y0, y1] = time_axis::around(min_max(c).0, min_max(c).1);
                plot.link_axis(stack.axis, [true, false])
                    .include_y(y0)
                    .include_y(y1)
                    .x_axis_formatter(fmt.axis(table, room))
                    .x_grid_spacer(fmt.spacer())
                    .show_axes([last, true])
                    .label_formatter(move |pos| time_axis::readout(fmt, table, pos))
                    .show(ui, |p| {
                        p.line(Line::new(
                            name,
                            PlotPoints::from_iter(
                                c.iter().enumerate().map(|(i, &v)| [start + i as f64, v]),
                            ),
                        ));
                        let end = start + c.len() as f64;
                        if reach > 0.0 {
                            shade_span(p, start, start + reach, lo, hi);
                            shade_span(p, end - reach, end, lo, hi);
                        }
                    });
            }
        });
    }
}

/// The cursor the bands share: on the time axis the app's time cursor; raw coefficients
/// (indexed by coefficient, not row) share one among themselves.
fn cursor_of(raw: bool) -> egui::Id {
    if raw {
        egui::Id::unique("raw band cursor")
    } else {
        time_axis::time_cursor()
    }
}

/// Whether the stack `link` shows other data than last frame (another window, channel,
/// wavelet or level): then every plot fits it again, whatever it was zoomed to, so no
/// band keeps the last one's scale.
fn shows_new_data(ui: &mut egui::Ui, link: egui::Id, r: &Inspection, raw: bool) -> bool {
    let key = ui.make_persistent_id(("bands shown", link));
    let shown = data_key(r, raw);
    let changed = ui.data(|d| d.get_temp::<u64>(key)) != Some(shown);
    ui.data_mut(|d| d.insert_temp(key, shown));
    changed
}

/// What the shading means, once above the stack (a legend inside a plot covered cA's
/// curve).
fn shade_legend(ui: &mut egui::Ui, shade: egui::Color32) {
    ui.horizontal(|ui| {
        let (swatch, _) = ui.allocate_exact_size(egui::vec2(14.0, 10.0), egui::Sense::hover());
        ui.painter()
            .rect_filled(swatch, 0.0, shade.gamma_multiply(2.0));
        // Cut short in a narrow column (Compare), whole on hover.
        ui.add(
            egui::Label::new(
                egui::RichText::new(
                    "boundary-affected samples (the signal extension reaches them)",
                )
                .small(),
            )
            .truncate(),
        );
    });
}

/// Shade `[a, b]` over the band's value range `[lo, hi]`.
fn shade_span(
    p: &mut egui_plot::PlotUi,
    shade: egui::Color32,
    [a, b]: [f64; 2],
    [lo, hi]: [f64; 2],
) {
    p.polygon(
        Polygon::new(
            "boundary-affected",
            PlotPoints::from(vec![[a, lo], [b, lo], [b, hi], [a, hi]]),
        )
        .fill_color(shade)
        .stroke(egui::Stroke::NONE),
    );
}

/// A band's raw coefficients `c` (named `name`) by index, its `b` boundary-affected
/// coefficients at each end shaded; the axis named under the `last` band.
fn raw_band(
    ui: &mut egui::Ui,
    plot: Plot<'_>,
    (name, c): (&str, &[f64]),
    b: f64,
    last: bool,
    shade: egui::Color32,
) {
    let (lo, hi) = range(c);
    let [y0, y1] = time_axis::around(min_max(c).0, min_max(c).1);
    plot.x_axis_label(if last { "coefficient index" } else { "" })
        .include_y(y0)
        .include_y(y1)
        .show(ui, |p| {
            p.line(Line::new(
                name,
                PlotPoints::from_iter(c.iter().enumerate().map(|(i, &v)| [i as f64, v])),
            ));
            if b > 0.0 {
                shade_span(p, shade, [-0.5, b - 0.5], [lo, hi]);
                let end = c.len() as f64;
                shade_span(p, shade, [end - b - 0.5, end - 0.5], [lo, hi]);
            }
        });
}

/// A band's name over its periods, left-aligned and centred in its plot's height.
fn band_label(ui: &mut egui::Ui, label: &BandLabel, size: egui::Vec2) {
    ui.allocate_ui_with_layout(size, egui::Layout::top_down(egui::Align::Min), |ui| {
        ui.set_min_size(size);
        ui.spacing_mut().item_spacing.y = 0.0;
        let text = ui.text_style_height(&egui::TextStyle::Body)
            + ui.text_style_height(&egui::TextStyle::Small);
        ui.add_space(((size.y - text) / 2.0).max(0.0));
        let hover = format!("{}: periods of {}", label.name, label.periods);
        ui.label(egui::RichText::new(&label.name).strong())
            .on_hover_text(&hover);
        ui.label(egui::RichText::new(&label.periods).small())
            .on_hover_text(&hover);
    });
}

/// What the plots show, as a number that changes with it.
fn data_key(r: &Inspection, raw: bool) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (r.window, r.start, raw, r.coeffs.len()).hash(&mut h);
    for band in r.mra.iter().chain(&r.coeffs) {
        band.len().hash(&mut h);
        for v in [band.first(), band.last(), band.get(band.len() / 2)] {
            v.map(|v| v.to_bits()).hash(&mut h);
        }
    }
    h.finish()
}

/// The smallest and largest value (infinities for none).
fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        })
}

fn range(v: &[f64]) -> (f64, f64) {
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (lo.min(0.0) - 1.0, hi.max(0.0) + 1.0)
    }
}
