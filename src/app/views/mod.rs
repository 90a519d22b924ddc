//! One file per view; each draws what it is given and changes only `Settings`.

pub mod bands;
pub mod claims;
pub mod compare;
pub mod config;
pub mod data;
pub mod dataset;
pub mod energy;
mod evaluation;
pub mod features;
mod heat_grid;
mod heat_map;
pub mod prompt;
pub mod sweep;
mod sweep_table;
pub mod time_axis;
pub mod timing;

/// Each view's own state, as the panes draw it, and whether the help shows.
#[derive(Default)]
pub struct Views {
    pub config: config::ConfigView,
    pub timing: timing::TimingView,
    pub overview: data::Overview,
    pub sweep: sweep::SweepView,
    pub dataset: dataset::DataSetView,
    /// The shortcuts' help over the window.
    pub help: bool,
}

impl Views {
    /// A data-set-wide job's answer put where it shows (the sweep, the measured
    /// variants), and the status line that says how it went.
    pub fn job_done(
        &mut self,
        what: &str,
        result: crate::error::Result<crate::app::messages::JobOutput>,
    ) -> String {
        use crate::app::messages::JobOutput;
        match result {
            Ok(JobOutput::Sweep(sweep)) => {
                let n = sweep.rows.len();
                self.sweep.sweep = Some(*sweep);
                format!("sweep done: {n} configurations")
            }
            Ok(JobOutput::Variants {
                label,
                rows,
                report,
            }) => {
                self.timing.measured = Some((label, rows));
                match report {
                    Some(p) => format!("{what}: written to {}", p.display()),
                    None => format!("{what}: done"),
                }
            }
            Ok(JobOutput::Exported {
                path,
                units,
                warning,
            }) => {
                let done = format!("{what}: {units} rows written to {}", path.display());
                match warning {
                    Some(w) => format!("{done}; warning: {w}"),
                    None => done,
                }
            }
            Ok(JobOutput::Written { path }) => format!("{what}: written to {}", path.display()),
            Err(e) if e.is_cancelled() => format!("{what} cancelled"),
            Err(e) => crate::app::error::said(&e),
        }
    }
}

/// The width `text` takes in `font`, unwrapped: to size a column or a bar to what it holds.
pub fn text_width(ui: &egui::Ui, text: &str, font: &egui::FontId) -> f32 {
    ui.fonts_mut(|f| {
        f.layout_no_wrap(text.to_owned(), font.clone(), egui::Color32::WHITE)
            .size()
            .x
    })
}

/// The widest a column of a name–values grid may be: the names keep their width and
/// `columns` value columns share the rest, so long values wrap inside the pane instead of
/// running off it.
pub fn grid_column_width<'a>(
    ui: &egui::Ui,
    names: impl IntoIterator<Item = &'a str>,
    columns: usize,
) -> f32 {
    let body = egui::TextStyle::Body.resolve(ui.style());
    let name_width = names
        .into_iter()
        .map(|k| text_width(ui, k, &body))
        .fold(0.0, f32::max);
    let spacing = ui.spacing().item_spacing.x;
    let value_width =
        ((ui.available_width() - name_width - columns as f32 * spacing) / columns as f32).max(60.0);
    value_width.max(name_width)
}

/// Per-band values as the tables print them: `0.722, 0.032, 0.152`.
pub fn value_list(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A figure and its 95% interval at one precision, `0.123 [0.100, 0.150]` (three decimals:
/// the table's answer columns fit a laptop's pane), or `0.123 [—]` where the interval is
/// withheld (the data cannot give it).
pub(crate) fn interval_text(value: f64, interval: [f64; 2]) -> String {
    if interval.iter().all(|v| v.is_finite()) {
        format!("{value:.3} [{:.3}, {:.3}]", interval[0], interval[1])
    } else {
        format!("{value:.3} [—]")
    }
}
