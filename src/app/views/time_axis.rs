//! Plot x positions are table rows; this turns them into the data's own time on every
//! axis and readout, formatted for the data's step (years, days, hours, …).

use egui_plot::{GridInput, GridMark, HoverPosition};
use std::ops::RangeInclusive;
use wavebench_core::data::{time, Table, TimeKind};

/// How a time should read, given the spacing of its rows.
#[derive(Debug, Clone, Copy)]
pub struct TimeFormat {
    kind: Option<TimeKind>,
    /// Milliseconds between rows (dates), or index units.
    step: f64,
}

const DAY: f64 = 86_400_000.0;

impl TimeFormat {
    pub fn of(table: &Table) -> Self {
        let kind = table.time.as_ref().map(|t| t.kind);
        let step = table
            .time
            .as_ref()
            .and_then(|t| match (t.step(), t.value(0), t.value(1)) {
                (Some(s), _, _) => Some(s as f64),
                (None, Some(a), Some(b)) => Some(b - a),
                _ => None,
            })
            .unwrap_or(1.0);
        TimeFormat { kind, step }
    }

    /// The time at (fractional) row `x`, as short as the data's step allows.
    pub fn at(&self, table: &Table, x: f64) -> String {
        self.at_resolution(table, x, self.step)
    }

    /// The time at row `x` to `resolution` ms (years, months, days, minutes, seconds).
    fn at_resolution(&self, table: &Table, x: f64, resolution: f64) -> String {
        let row = x.round().max(0.0) as usize;
        let Some(axis) = &table.time else {
            return format!("{}", x.round() as i64);
        };
        let Some(v) = axis
            .value(row.min(axis.len().saturating_sub(1)))
            .map(|v0| v0 + (x - row as f64) * self.step)
        else {
            return axis.label(row).unwrap_or_else(|| row.to_string());
        };
        match self.kind {
            Some(TimeKind::Date | TimeKind::DateTime) => {
                let full = time::iso(v as i64, true);
                // Cut the ISO text to what the step resolves: years, days, minutes, seconds.
                let keep = if resolution >= 365.0 * DAY {
                    4
                } else if resolution >= 28.0 * DAY {
                    7
                } else if resolution >= DAY {
                    10
                } else if resolution >= 60_000.0 {
                    16
                } else {
                    19
                };
                full[..keep.min(full.len())].replace('T', " ")
            }
            _ => format!("{}", v.round() as i64),
        }
    }

    /// An axis formatter for egui_plot: the time of each grid mark. Dates drop the year
    /// when the visible range lies within one (`02-11 16:00`): shorter labels, so more
    /// of them fit. A mark whose label would reach past the plot's edge (egui_plot centres
    /// it on the mark and cuts what lies outside: "01-0") gets none.
    pub fn axis<'a>(
        self,
        table: &'a Table,
        room: AxisRoom,
    ) -> impl Fn(GridMark, &RangeInclusive<f64>) -> String + 'a {
        move |mark, range| {
            let text = self.mark_text(table, mark, range);
            let points_per_row =
                f64::from(room.width) / (range.end() - range.start()).max(f64::MIN_POSITIVE);
            let half = 0.5 * f64::from(room.char_width) * text.chars().count() as f64;
            let inside = (mark.value - range.start()) * points_per_row >= half
                && (range.end() - mark.value) * points_per_row >= half;
            if inside {
                text
            } else {
                String::new()
            }
        }
    }

    /// The time of a grid mark, as the axis writes it.
    fn mark_text(self, table: &Table, mark: GridMark, range: &RangeInclusive<f64>) -> String {
        if mark.value < -0.5 || mark.value > table.rows() as f64 + 0.5 {
            return String::new();
        }
        // Marks a day or more apart need no time of day (all marks read as dates then,
        // never as months: 30-day steps do not fall on months).
        let resolution = (mark.step_size * self.step).min(DAY).max(self.step);
        let text = self.at_resolution(table, mark.value, resolution);
        let dated = matches!(self.kind, Some(TimeKind::Date | TimeKind::DateTime));
        let year = |x: f64| {
            self.at(table, x.clamp(0.0, table.rows() as f64))
                .get(..4)
                .map(str::to_owned)
        };
        let one_year = year(*range.start()) == year(*range.end());
        match text.get(5..) {
            Some(rest) if dated && one_year && resolution < 28.0 * DAY && !rest.is_empty() => {
                rest.to_string()
            }
            _ => text,
        }
    }

    /// Grid marks for the time axis: a labelled mark at least every ~90 points (so at
    /// least three labels fit a 300-point plot), at round times for regular dates (every
    /// 6 hours, a day, a week, … in rows of the data's step), else at 1, 2, 5 × 10^k rows;
    /// finer marks between them draw grid lines only.
    pub fn spacer(self) -> impl Fn(GridInput) -> Vec<GridMark> {
        let dated = matches!(self.kind, Some(TimeKind::Date | TimeKind::DateTime));
        let step = self.step;
        egui_plot::uniform_grid_spacer(move |input: GridInput| {
            // `base_step_size` is the rows of 8 points (egui_plot's smallest grid spacing).
            let want = input.base_step_size * 11.0;
            let label = if dated && step > 0.0 {
                round_time(want * step) / step
            } else {
                nice(want)
            };
            [label / 10.0, label / 2.0, label]
        })
    }
}

/// What a time axis has to write its labels in: the plot's width in points (less its
/// value axis) and a character's width in the axis font.
#[derive(Debug, Clone, Copy)]
pub struct AxisRoom {
    pub width: f32,
    pub char_width: f32,
}

impl AxisRoom {
    /// The room of a plot that takes what is left of `ui`'s width, `value_axis` of it for
    /// its value axis.
    pub fn of(ui: &egui::Ui, value_axis: f32) -> Self {
        let body = egui::TextStyle::Body.resolve(ui.style());
        AxisRoom {
            width: (ui.available_width() - value_axis).max(1.0),
            // Digits and dashes: what dates and times are written in.
            char_width: super::text_width(ui, "2020-01-01 00:00", &body) / 16.0,
        }
    }
}

/// Grid marks for a value axis at 1, 2, 5 × 10^k, a labelled one at least ~32 points
/// apart: egui_plot's default steps by powers of ten, which left a band plot 150 points
/// tall over ±0.8 with "0" as its only label.
pub fn value_spacer() -> impl Fn(GridInput) -> Vec<GridMark> {
    egui_plot::uniform_grid_spacer(|input: GridInput| {
        let label = nice(input.base_step_size * 4.0);
        [label / 10.0, label / 2.0, label]
    })
}

/// The one time cursor: every plot on the data's rows (the Series overview, the Bands in
/// the time domain, the Data set timeline) links its hover cursor to this group, so
/// hovering any of them shows the same moment in all.
pub fn time_cursor() -> egui::Id {
    egui::Id::unique("wavebench time cursor")
}

/// A value axis's tick: as many decimals as its step needs (0.5 steps read 0.5, 1, 1.5;
/// 0.05 steps 0.05, 0.10), and never "-0". egui_plot's default rounds the decimals of
/// log10(step), so half steps printed "2, 1, 0, 0, -0, -1, -2" on a ±2 band.
pub fn value_label(mark: GridMark, _range: &RangeInclusive<f64>) -> String {
    format_tick(mark.value, mark.step_size)
}

/// `value` with the decimals `step` needs (the fewest that write it exactly, up to 12).
pub fn format_tick(value: f64, step: f64) -> String {
    let step = step.abs();
    let decimals = if step.is_finite() && step > 0.0 {
        (0..=12)
            .find(|&d| {
                let scaled = step * 10f64.powi(d);
                (scaled - scaled.round()).abs() <= 1e-6 * scaled.max(1.0)
            })
            .unwrap_or(12) as usize
    } else {
        0
    };
    let text = format!("{value:.decimals$}");
    // A value that rounds to zero is written without its sign.
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

/// The value range a plot shows for data spanning `lo..=hi`: the data's own, or for flat
/// data (a constant window) a range around its value, so the line sits at its value on
/// a readable axis instead of egui_plot's ±1000 around nothing.
pub fn around(lo: f64, hi: f64) -> [f64; 2] {
    if !(lo.is_finite() && hi.is_finite()) {
        return [-1.0, 1.0];
    }
    let scale = lo.abs().max(hi.abs());
    if hi - lo > 1e-9 * scale.max(f64::MIN_POSITIVE) {
        return [lo, hi];
    }
    let pad = if scale > 0.0 { 0.1 * scale } else { 1.0 };
    [lo - pad, hi + pad]
}

/// The smallest of 1, 2, 5 × 10^k that is at least `x`.
fn nice(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&v| v >= x)
        .unwrap_or(10.0 * p)
}

/// The smallest round duration (ms) at least `ms` long: seconds, minutes, hours, days,
/// weeks, months, years.
fn round_time(ms: f64) -> f64 {
    const S: f64 = 1000.0;
    const M: f64 = 60.0 * S;
    const H: f64 = 60.0 * M;
    const ROUND: [f64; 22] = [
        S,
        2.0 * S,
        5.0 * S,
        10.0 * S,
        30.0 * S,
        M,
        2.0 * M,
        5.0 * M,
        10.0 * M,
        15.0 * M,
        30.0 * M,
        H,
        2.0 * H,
        3.0 * H,
        6.0 * H,
        12.0 * H,
        DAY,
        2.0 * DAY,
        7.0 * DAY,
        14.0 * DAY,
        30.0 * DAY,
        91.0 * DAY,
    ];
    match ROUND.into_iter().find(|&d| d >= ms) {
        Some(d) => d,
        None => 365.0 * DAY * nice(ms / (365.0 * DAY)),
    }
}

/// The hover readout of a plot on the time axis: series name, time, value.
pub fn readout(fmt: TimeFormat, table: &Table, pos: &HoverPosition<'_>) -> Option<String> {
    let (name, p) = match pos {
        HoverPosition::NearDataPoint {
            plot_name,
            position,
            ..
        } => (*plot_name, *position),
        HoverPosition::Elsewhere { position } => ("", *position),
    };
    let head = if name.is_empty() {
        String::new()
    } else {
        format!("{name}\n")
    };
    // Readouts name a row's time (the axis may fall between rows).
    Some(format!("{head}{}\n{:.4}", fmt.at(table, p.x.round()), p.y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::data::TimeAxis;

    /// The labels egui_plot draws for `width` points over `rows` rows starting at `first`:
    /// each mark whose spacing fits its text (its rule: more than 60 points apart, and
    /// wider than the label, ~7 points a character here).
    fn drawn(table: &Table, first: f64, rows: f64, width: f64) -> Vec<String> {
        let fmt = TimeFormat::of(table);
        let marks = fmt.spacer()(GridInput {
            bounds: (first, first + rows),
            base_step_size: rows / width * 8.0,
        });
        let format = fmt.axis(
            table,
            AxisRoom {
                width: width as f32,
                char_width: 7.0,
            },
        );
        let range = first..=first + rows;
        marks
            .into_iter()
            .filter_map(|m| {
                let text = format(m, &range);
                let spacing = m.step_size * width / rows;
                (!text.is_empty() && spacing > 60.0 && spacing >= 7.0 * text.len() as f64)
                    .then_some(text)
            })
            .collect()
    }

    fn hourly(rows: usize) -> Table {
        let start = 1_577_836_800_000i64; // 2020-01-01T00:00
        let cells: Vec<String> = (0..rows as i64)
            .map(|h| time::iso(start + h * 3_600_000, true))
            .collect();
        Table {
            time: Some(TimeAxis::from_text("date".into(), || {
                cells.iter().map(|c| Some(c.as_str()))
            })),
            ..rows_only(rows)
        }
    }

    fn rows_only(rows: usize) -> Table {
        Table {
            channels: vec![wavebench_core::data::Channel {
                name: "x".into(),
                values: wavebench_core::engine::Values::F64(vec![0.0; rows]),
            }],
            ..Table::default()
        }
    }

    #[test]
    fn at_least_three_date_labels_on_a_narrow_plot() {
        let t = hourly(20_000);
        // A 512-row window in the Bands pane (~340 points at 1400x900) and a whole
        // 20,000-row series in the Series pane (~1000 points).
        // Weekly marks over 21 days leave three, one of which may fall within half a
        // label of an edge: it is left out rather than cut ("02-1").
        for (first, rows, width, least) in [
            (1000.0, 512.0, 340.0, 2),
            (0.0, 20_000.0, 1000.0, 3),
            (5.0, 96.0, 300.0, 3),
        ] {
            let labels = drawn(&t, first, rows, width);
            assert!(
                labels.len() >= least,
                "{rows} rows over {width} points: {labels:?}"
            );
        }
        // Marks fall on round times (weeks for a 512-hour window in 340 points, days for
        // 96 hours in 300), read as days without the year within one year.
        for (first, rows, width) in [(1000.0, 512.0, 340.0), (5.0, 96.0, 300.0)] {
            let labels = drawn(&t, first, rows, width);
            assert!(
                labels
                    .iter()
                    .all(|l| l.len() == 5 && l.as_bytes()[2] == b'-'),
                "{labels:?}"
            );
        }
        // Six-hourly marks when there is room: a time of day, without the year.
        let labels = drawn(&t, 5.0, 96.0, 1000.0);
        assert!(
            labels.iter().all(|l| l.len() == 11 && l.ends_with(":00")) && labels.len() >= 8,
            "{labels:?}"
        );
        // Marks a quarter apart over two years read as dates, with the year.
        let labels = drawn(&t, 0.0, 20_000.0, 1000.0);
        assert!(
            labels.iter().all(|l| l.len() == 10 && l.starts_with("202")),
            "{labels:?}"
        );
    }

    /// No label reaches past the plot's edge: each mark's label lies wholly inside.
    #[test]
    fn no_label_is_cut_at_a_plot_edge() {
        let t = hourly(20_000);
        for (first, rows, width) in [
            (1000.0, 512.0, 340.0),
            (0.0, 20_000.0, 1000.0),
            (5.0, 96.0, 300.0),
            (7.0, 96.0, 1000.0),
        ] {
            let fmt = TimeFormat::of(&t);
            let marks = fmt.spacer()(GridInput {
                bounds: (first, first + rows),
                base_step_size: rows / width * 8.0,
            });
            let room = AxisRoom {
                width: width as f32,
                char_width: 7.0,
            };
            let format = fmt.axis(&t, room);
            let range = first..=first + rows;
            for m in marks {
                let text = format(m, &range);
                let x = (m.value - first) * width / rows;
                let half = 3.5 * text.len() as f64;
                assert!(
                    text.is_empty() || (x >= half && width - x >= half),
                    "{text:?} at x {x} of {width}"
                );
            }
            // Without the rule the edge mark would be written.
            let written = marks_near_an_edge(&fmt, &t, first, rows, width);
            assert!(
                written || rows != 512.0,
                "the 512-row case has a mark at an edge"
            );
        }
    }

    /// Whether a mark with text lies within half a label of an edge (as the axis would
    /// write it without room).
    fn marks_near_an_edge(fmt: &TimeFormat, t: &Table, first: f64, rows: f64, width: f64) -> bool {
        let marks = fmt.spacer()(GridInput {
            bounds: (first, first + rows),
            base_step_size: rows / width * 8.0,
        });
        let range = first..=first + rows;
        marks.into_iter().any(|m| {
            let text = fmt.mark_text(t, m, &range);
            let x = (m.value - first) * width / rows;
            let spacing = m.step_size * width / rows;
            let half = 3.5 * text.len() as f64;
            !text.is_empty() && spacing > 60.0 && (x < half || width - x < half)
        })
    }

    #[test]
    fn an_index_axis_gets_round_numbers() {
        let t = rows_only(1000);
        let labels = drawn(&t, 0.0, 1000.0, 340.0);
        assert!(labels.len() >= 3, "{labels:?}");
        assert!(
            labels
                .iter()
                .all(|l| l.parse::<i64>().is_ok_and(|v| v % 50 == 0)),
            "{labels:?}"
        );
    }
}

#[cfg(test)]
mod value_tests {
    use super::*;

    /// The cases a new user met: half steps, a tick at 0.06, a timeline at 2.5 steps.
    #[test]
    fn ticks_carry_the_decimals_their_step_needs() {
        let ticks = |values: &[f64], step: f64| -> Vec<String> {
            values.iter().map(|&v| format_tick(v, step)).collect()
        };
        assert_eq!(
            ticks(&[2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0], 0.5),
            ["2.0", "1.5", "1.0", "0.5", "0.0", "-0.5", "-1.0"]
        );
        assert_eq!(ticks(&[0.06, 0.08], 0.02), ["0.06", "0.08"]);
        assert_eq!(
            ticks(&[50.0, 47.5, 45.0, 42.5], 2.5),
            ["50.0", "47.5", "45.0", "42.5"]
        );
        assert_eq!(ticks(&[1000.0, -2000.0], 1000.0), ["1000", "-2000"]);
        // A value a rounding error below zero is zero, without a sign.
        assert_eq!(ticks(&[-1e-17, -0.0], 0.1), ["0.0", "0.0"]);
        assert_eq!(ticks(&[-0.0], 1.0), ["0"]);
        assert_eq!(ticks(&[0.3], 0.1), ["0.3"]);
    }

    #[test]
    fn a_flat_line_is_shown_around_its_value() {
        assert_eq!(around(5.0, 5.0), [4.5, 5.5]);
        assert_eq!(around(0.0, 0.0), [-1.0, 1.0]);
        assert_eq!(around(-2.0, 3.0), [-2.0, 3.0]);
        assert_eq!(around(f64::NAN, 1.0), [-1.0, 1.0]);
    }

    /// A band plot 150 points tall over ±0.8 gets labels at 0.2 or 0.5 steps, not just 0
    /// (egui_plot labels a mark at least 20 points from the next).
    #[test]
    fn a_short_band_plot_gets_several_value_labels() {
        let (lo, hi, height) = (-0.8, 0.8, 150.0);
        let marks = value_spacer()(GridInput {
            bounds: (lo, hi),
            base_step_size: (hi - lo) / height * 8.0,
        });
        let labelled = marks
            .iter()
            .filter(|m| m.step_size * height / (hi - lo) >= 20.0)
            .count();
        assert!(labelled >= 3, "{marks:?}");
    }
}
