//! The Data set pane: the current configuration over every window. A timeline of a chosen
//! feature or claim (min/max per pixel column; a click moves the window there), each
//! claim's category shares, the prompts' diversity, and a claims × outcomes heat map of
//! the bits each claim carries about the horizon above its null, or beyond a forecaster
//! that reads only the series, with p-values (docs/score.md).

use super::data::decimate;
use super::evaluation::{heat_map, shares};
use super::time_axis::TimeFormat;
use crate::app::state::Settings;
use crate::sweep::survey::Survey;
use crate::sweep::Metric;
use egui_plot::{Line, Plot, PlotPoints, VLine};
use wavebench_core::data::Table;
use wavebench_core::score::Claim;
use wavebench_core::score::{Evaluation, Part};

/// What the timeline plots over every window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timeline {
    Feature(Metric),
    Claim(Claim),
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::Feature(Metric::SnrDb)
    }
}

impl Timeline {
    pub fn all() -> impl Iterator<Item = Timeline> {
        Metric::ALL
            .into_iter()
            .map(Timeline::Feature)
            .chain(Claim::ALL.into_iter().map(Timeline::Claim))
    }

    pub fn name(self) -> &'static str {
        match self {
            Timeline::Feature(m) => m.name(),
            Timeline::Claim(c) => c.name(),
        }
    }
}

pub struct DataSetView {
    /// The newest survey, or why it failed.
    pub survey: Option<Result<Survey, String>>,
    /// A survey of newer settings is being computed.
    pub computing: bool,
    /// How far its score's units have got.
    pub progress: crate::sweep::Progress,
    /// The stride a big file's survey was thinned to (every Nth window), if it was.
    pub thinned: Option<usize>,
    pub timeline: Timeline,
    /// The part the shares and the heat map read.
    pub part: Part,
    /// The heat map shows the bits beyond the series-only forecaster, `I(C; O | B̂)`.
    pub complementary: bool,
}

impl Default for DataSetView {
    fn default() -> Self {
        DataSetView {
            survey: None,
            computing: false,
            progress: Default::default(),
            thinned: None,
            timeline: Timeline::default(),
            part: Part::Val,
            complementary: false,
        }
    }
}

impl DataSetView {
    /// A survey under way: how far its units have got once they are counted (the scored
    /// units are found first), a spinner until then.
    fn busy(&self, ui: &mut egui::Ui) {
        match self.progress.fraction() {
            Some(f) => {
                ui.add(
                    egui::ProgressBar::new(f)
                        .desired_width(90.0)
                        .show_percentage()
                        .animate(true),
                )
                .on_hover_text("the survey's scored units computed so far");
            }
            None => {
                ui.spinner().on_hover_text(
                    "finding the scored units and fitting the series-only forecaster",
                );
            }
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, table: &Table, s: &mut Settings) {
        let taken = self.survey.take();
        self.draw(ui, table, s, taken.as_ref());
        self.survey = taken;
    }

    fn draw(
        &mut self,
        ui: &mut egui::Ui,
        table: &Table,
        s: &mut Settings,
        survey: Option<&Result<Survey, String>>,
    ) {
        let survey = match survey {
            None => {
                ui.horizontal(|ui| {
                    self.busy(ui);
                    ui.label("Computing every window of the data set ...");
                });
                return;
            }
            Some(Err(e)) => {
                // Wrapped inside the pane: a long message on one line ran past its edge.
                ui.horizontal_wrapped(|ui| {
                    if self.computing {
                        self.busy(ui);
                    }
                    ui.add(
                        egui::Label::new(egui::RichText::new(e).color(ui.visuals().error_fg_color))
                            .wrap(),
                    );
                });
                return;
            }
            Some(Ok(survey)) => survey,
        };
        self.heading_ui(ui, survey);
        let height = ui.available_height();
        egui::ScrollArea::vertical().show(ui, |ui| {
            self.timeline_ui(ui, table, survey, s, (height * 0.4).clamp(120.0, 320.0));
            let Some(row) = survey.sweep.rows.first() else {
                return;
            };
            let e = if self.part == Part::Val {
                &row.val
            } else {
                &row.test
            };
            self.figures_ui(ui, survey, e);
            // Side by side where the pane is wide enough for both, else one under the other.
            if ui.available_width() >= 640.0 {
                ui.columns(2, |cols| {
                    shares(&mut cols[0], e);
                    heat_map(&mut cols[1], e, self.complementary);
                });
            } else {
                shares(ui, e);
                ui.add_space(6.0);
                heat_map(ui, e, self.complementary);
            }
        });
    }

    /// What the survey is (its label, the timeline's channel and windows, thinned or
    /// not), and the choice of part and of what is scored.
    fn heading_ui(&mut self, ui: &mut egui::Ui, survey: &Survey) {
        ui.horizontal_wrapped(|ui| {
        if self.computing {
            self.busy(ui);
        }
        ui.strong(&survey.label);
        let thinned = match self.thinned {
            Some(n) if self.computing => format!(" (one window in {n}; a finer survey is coming)"),
            Some(n) => format!(" (one window in {n}: a big file)"),
            None => String::new(),
        };
        ui.label(format!(
            "· timeline: channel {}, {} windows{thinned} · scores: all channels",
            survey.channel,
            survey.starts.len()
        ))
        .on_hover_text("The timeline follows the channel chosen under Data; the score, the category shares and the heat map count the units of every channel");
    });
        // Its own row: beside a label that wraps, the buttons sat inside the label's box.
        ui.horizontal(|ui| {
        ui.label("scored on");
        ui.selectable_value(&mut self.part, Part::Val, "val");
        ui.selectable_value(&mut self.part, Part::Test, "test");
        ui.separator();
        ui.selectable_value(&mut self.complementary, false, "bits above the null");
        ui.selectable_value(&mut self.complementary, true, "beyond the series")
            .on_hover_text("What each claim tells beyond a linear forecaster that reads only the series: I(C; O | the forecast), against its null (docs/score.md)");
    });
    }

    /// The part's units, score, bits beyond the series, forecast gain and prompts'
    /// diversity, intervals withheld where the part cannot give them.
    fn figures_ui(&self, ui: &mut egui::Ui, survey: &Survey, e: &Evaluation) {
        // Short lines: the pane is narrow in the default layout, and a wrapped line
        // ran under the neighbouring pane's edge.
        // Intervals as the reports show them: withheld where the part cannot give
        // them (docs/score.md#intervals-withheld).
        let shown = |i| survey.sweep.shown(self.part, i);
        let forecast = match &e.forecast {
            Some(g) => format!(
                "forecast MSE {:.4} to {:.4}: gain {} %",
                g.mse_series,
                g.mse_with_claims,
                super::interval_text(100.0 * g.gain, shown(g.interval).map(|v| 100.0 * v)),
            ),
            None => "forecast gain not measured".to_string(),
        };
        ui.label(format!(
            "{} {} units of all channels, {}\nscore {} bits above the null\nbeyond the series {}\n{forecast}\nprompts: {} distinct, {} with digits masked ({:.2} bits)",
            e.units,
            self.part.name(),
            survey.sweep.left_out_text(),
            super::interval_text(e.score_bits, shown(e.interval)),
            super::interval_text(e.complementary_bits, shown(e.complementary_interval)),
            e.diversity.distinct,
            e.diversity.distinct_masked,
            e.diversity.entropy_masked_bits,
        ))
        .on_hover_text("Left out: units whose input is constant or a straight line (no outcome). Scores: bits above the null of circular shifts, [95% bootstrap interval] (docs/score.md). Forecast: the MSE of a linear forecaster that reads only the series (standardised as Time-LLM's tables), then with the claims' correction; the gain is the share of its MSE they remove (docs/score.md#forecast-gain-beyond-the-series)");
    }

    /// The timeline's value per window: a feature's, or a claim's category (its number,
    /// with the categories' names).
    fn timeline_values<'s>(&self, survey: &'s Survey) -> (Vec<f64>, Option<&'s [String]>) {
        match self.timeline {
            Timeline::Feature(m) => (survey.features[m as usize].clone(), None),
            Timeline::Claim(c) => {
                let cats = &survey.claims[c as usize];
                (
                    cats.ids.iter().map(|&i| f64::from(i)).collect(),
                    Some(cats.names.as_slice()),
                )
            }
        }
    }

    /// The timeline on the data's own time axis (x = each window's first row, as the
    /// other plots' x is the table row).
    fn timeline_ui(
        &mut self,
        ui: &mut egui::Ui,
        table: &Table,
        survey: &Survey,
        s: &mut Settings,
        height: f32,
    ) {
        egui::ComboBox::from_label("over every window")
            .selected_text(self.timeline.name())
            .show_ui(ui, |ui| {
                for t in Timeline::all() {
                    ui.selectable_value(&mut self.timeline, t, t.name());
                }
            });
        let (values, names) = self.timeline_values(survey);
        let columns = (ui.available_width().max(100.0) as usize).max(1);
        let starts = survey.starts.clone();
        let points: Vec<[f64; 2]> = decimate(&values, columns)
            .into_iter()
            .map(|[i, v]| [starts.get(i as usize).map_or(i, |&r| r as f64), v])
            .collect();
        let (row_start, _) = s.row_bounds();
        let current = (row_start + s.window) as f64;
        let fmt = TimeFormat::of(table);
        let owned: Option<Vec<String>> = names.map(<[String]>::to_vec);
        let mut plot = Plot::new("data set timeline")
            .link_cursor(super::time_axis::time_cursor(), [true, false])
            .height(height)
            .allow_drag([false, false])
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .x_axis_formatter(fmt.axis(table, super::time_axis::AxisRoom::of(ui, 40.0)))
            .x_grid_spacer(fmt.spacer())
            .y_grid_spacer(super::time_axis::value_spacer())
            .y_axis_formatter(super::time_axis::value_label)
            .x_axis_label("window start");
        if let Some(n) = owned.clone() {
            plot = plot.y_axis_formatter(move |mark, _| category_mark(&n, mark.value));
        }
        let label_names = owned;
        let hover_starts = starts.clone();
        plot = plot.label_formatter(move |pos| {
            let p = match pos {
                egui_plot::HoverPosition::NearDataPoint { position, .. } => *position,
                egui_plot::HoverPosition::Elsewhere { position } => *position,
            };
            let k = nearest_window(&hover_starts, p.x);
            let row = hover_starts.get(k).map_or(String::new(), |&r| {
                format!(" ({})", fmt.at(table, r as f64))
            });
            Some(match &label_names {
                Some(n) => format!(
                    "window {k}{row}: {}",
                    n.get(p.y.round().max(0.0) as usize)
                        .cloned()
                        .unwrap_or_default()
                ),
                None => format!("window {k}{row}: {:.4}", p.y),
            })
        });
        let response = plot.show(ui, |p| {
            p.line(Line::new(self.timeline.name(), PlotPoints::from(points)));
            p.vline(VLine::new("current window", current));
            let clicked = p.response().clicked();
            clicked.then(|| p.pointer_coordinate()).flatten()
        });
        if let Some(at) = response.inner {
            let k = nearest_window(&starts, at.x);
            if let Some(&row) = starts.get(k) {
                s.window = row.saturating_sub(row_start);
            }
        }
    }
}

/// The window whose first row (of `starts`, in order) is nearest plot x.
fn nearest_window(starts: &[usize], x: f64) -> usize {
    let k = starts.partition_point(|&r| (r as f64) < x);
    match (k.checked_sub(1), starts.get(k)) {
        (Some(a), Some(&b)) if x - starts[a] as f64 <= b as f64 - x => a,
        (_, Some(_)) => k,
        (Some(a), None) => a,
        (None, None) => 0,
    }
}

/// A category's name at its axis mark `value` (none between categories), long wordings
/// cut short: the axis must leave the plot room.
fn category_mark(names: &[String], value: f64) -> String {
    let i = value.round();
    if (value - i).abs() < 1e-6 && i >= 0.0 {
        let name = names.get(i as usize).cloned().unwrap_or_default();
        match name.char_indices().nth(18) {
            Some((cut, _)) => format!("{}…", &name[..cut]),
            None => name,
        }
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{category_mark, nearest_window};

    /// A click on the timeline goes to the window whose start is nearest, the earlier on a
    /// tie, and stays inside the windows at either end.
    #[test]
    fn a_click_finds_the_nearest_window() {
        let starts = [0, 10, 20];
        let at = |x: f64| nearest_window(&starts, x);
        assert_eq!(
            [at(-5.0), at(4.0), at(5.0), at(6.0), at(25.0)],
            [0, 0, 0, 1, 2]
        );
        assert_eq!(nearest_window(&[], 3.0), 0);
    }

    /// Marks name their category only on whole numbers, long wordings cut at 18 characters.
    #[test]
    fn marks_name_categories_cut_short() {
        let names = ["up".to_string(), "a wording of some length".to_string()];
        assert_eq!(category_mark(&names, 0.0), "up");
        assert_eq!(category_mark(&names, 0.5), "");
        assert_eq!(category_mark(&names, 1.0), "a wording of some …");
        assert_eq!(category_mark(&names, 2.0), "");
    }
}
