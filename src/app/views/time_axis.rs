//! Plot x positions are table rows; this turns them into the data's own time on every
//! axis and readout, formatted for the data's step (years, days, hours, …).

use egui_plot::{GridMark, HoverPosition};
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
                let keep = if self.step >= 365.0 * DAY {
                    4
                } else if self.step >= 28.0 * DAY {
                    7
                } else if self.step >= DAY {
                    10
                } else if self.step >= 60_000.0 {
                    16
                } else {
                    19
                };
                full[..keep.min(full.len())].replace('T', " ")
            }
            _ => format!("{}", v.round() as i64),
        }
    }

    /// An axis formatter for egui_plot: the time of each grid mark.
    pub fn axis<'a>(
        self,
        table: &'a Table,
    ) -> impl Fn(GridMark, &RangeInclusive<f64>) -> String + 'a {
        move |mark, _| {
            if mark.value < -0.5 || mark.value > table.rows() as f64 + 0.5 {
                String::new()
            } else {
                self.at(table, mark.value)
            }
        }
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
