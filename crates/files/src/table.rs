//! A file's columns, as any reader holds them, into the core's [`Table`]: which column is
//! the time axis, which are channels, which are skipped and why. The rules are here once;
//! a reader ([`crate::plain_csv`], the application's polars loader) says only what its
//! columns hold ([`SourceColumn`]).

use crate::cells::row_place;
use crate::format::Format;
use std::path::Path;
use wavebench_core::data::time::{TimeAxis, TimeColumn};
use wavebench_core::data::{err, refuse, Channel, DataError, Opt, Table, OPTION};
use wavebench_core::numeric::{DType, Values};
use wavebench_core::run_spec::LoadOptions;

/// One column of a file as a reader holds it.
pub trait SourceColumn {
    fn name(&self) -> &str;
    /// Whether it can be the time axis: Some(true) for dates, Some(false) for an index.
    fn looks_like_time_axis(&self) -> Option<bool>;
    /// The time axis from its cells, beside a warning when a cell is not a date read (the
    /// axis then shows the cells as written); an error naming what cannot be read.
    fn time_axis(&self) -> Result<(TimeAxis, Option<String>), String>;
    /// Its values in the run's precision, None when it is skipped (said in `warnings`).
    fn values(
        self,
        read: &ColumnRead,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Values>, DataError>;
}

/// What a column is read for: the file (as messages name it), its format and the options.
pub struct ColumnRead<'a> {
    pub file: &'a str,
    pub format: Format,
    pub options: &'a LoadOptions,
}

/// The checks before any reader opens `path`: a file that exists and is not empty. The
/// path as messages name it.
pub fn check_file(path: &Path) -> Result<String, DataError> {
    let p = path.display().to_string();
    if path.is_dir() {
        return err(format!(
            "{p}: is a folder (give it as a data set: every file in it is read)"
        ));
    }
    if !path.exists() {
        return err(format!("{p}: no such file"));
    }
    if std::fs::metadata(path)
        .map(|m| m.len() == 0)
        .unwrap_or(false)
    {
        return err(format!("{p}: the file is empty"));
    }
    Ok(p)
}

/// A file's columns (in the file's order, `rows` data rows each) as a [`Table`]; `warnings`
/// are the reader's own (a header read as Windows-1252). Each column is dropped once
/// copied, so the peak holds the file's numbers about twice, not three times.
pub fn assemble<C: SourceColumn>(
    path: &Path,
    format: Format,
    columns: Vec<C>,
    rows: usize,
    opts: &LoadOptions,
    warnings: Vec<String>,
) -> Result<Table, DataError> {
    let p = path.display().to_string();
    if columns.is_empty() {
        return err(format!("{p}: no columns"));
    }
    if rows == 0 {
        return err(format!("{p}: has a header but no data rows"));
    }
    let names: Vec<String> = columns.iter().map(|c| c.name().to_string()).collect();
    check_names(&p, &names, opts)?;
    let mut table = Table {
        path: path.to_path_buf(),
        warnings,
        ..Default::default()
    };
    let axis = AxisChoice::of(&columns, &opts.time_column);
    let read = ColumnRead {
        file: &p,
        format,
        options: opts,
    };
    for (i, col) in columns.into_iter().enumerate() {
        let name = col.name().to_string();
        if Some(i) == axis.at {
            let (time, warning) = col
                .time_axis()
                .map_err(|e| DataError::new(format!("{p}: column '{name}': {e}")))?;
            if let Some(w) = warning {
                table.warnings.push(format!("{p}: column '{name}': {w}"));
            }
            table.time = Some(time);
            continue;
        }
        let asked = opts.columns.as_ref().is_some_and(|w| w.contains(&name));
        if !asked && axis.candidates.iter().any(|c| c.0 == i) {
            if opts.columns.is_none() {
                let at = axis.at.map_or("none", |a| names[a].as_str());
                table.warnings.push(format!(
                    "{p}: column '{name}' looks like a second time axis (the time axis is '{at}'); not used as a channel (name it among the columns to use it)"
                ));
                table.skipped.push(name);
            }
            continue;
        }
        if opts.columns.is_some() && !asked {
            continue; // the user chose other channels
        }
        match channel(col, &read, &mut table.warnings)? {
            Some(c) => table.channels.push(c),
            None => table.skipped.push(name),
        }
    }
    if let Some(wanted) = &opts.columns {
        table.channels = in_asked_order(&p, &table, wanted)?;
    }
    if table.channels.is_empty() {
        return err(format!(
            "{p}: no numeric columns (found: {})",
            names.join(", ")
        ));
    }
    Ok(table)
}

/// Which column is the time axis: the named one, else the first date/time column, else
/// the first index-like integer column. The other candidates (column, dates?) are not
/// channels either (said in a warning), unless asked for with --columns.
struct AxisChoice {
    candidates: Vec<(usize, bool)>,
    at: Option<usize>,
}

impl AxisChoice {
    fn of<C: SourceColumn>(columns: &[C], time_column: &TimeColumn) -> AxisChoice {
        let candidates: Vec<(usize, bool)> = match time_column {
            TimeColumn::None => Vec::new(),
            _ => columns
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.looks_like_time_axis().map(|dates| (i, dates)))
                .collect(),
        };
        let at = match time_column {
            TimeColumn::Named(t) => columns.iter().position(|c| c.name() == t),
            TimeColumn::None => None,
            TimeColumn::Auto => candidates
                .iter()
                .find(|c| c.1)
                .or(candidates.first())
                .map(|c| c.0),
        };
        AxisChoice { candidates, at }
    }
}

/// A column as a channel: its values, refused where one is infinite; None when it is
/// skipped (said in `warnings`).
fn channel<C: SourceColumn>(
    col: C,
    read: &ColumnRead,
    warnings: &mut Vec<String>,
) -> Result<Option<Channel>, DataError> {
    let name = col.name().to_string();
    let Some(values) = col.values(read, warnings)? else {
        return Ok(None);
    };
    if let Some(row) = values.iter_f64().position(|v| v.is_infinite()) {
        let place = format!(
            "{}: column '{name}', {}",
            read.file,
            row_place(read.format, row)
        );
        return match read.options.dtype {
            // Parsed straight to f32: a finite number past f32's range is inf too.
            DType::F32 => refuse(
                &[Opt::Dtype],
                format!(
                    "{place}: infinite, or beyond the f32 range (|x| > 3.4e38; use {OPTION} f64)"
                ),
            ),
            DType::F64 => err(format!("{place}: infinite value")),
        };
    }
    Ok(Some(Channel { name, values }))
}

/// The channels `--columns` asked for, in the order asked; the time axis or a column that
/// is not numeric refused by name.
fn in_asked_order(p: &str, table: &Table, wanted: &[String]) -> Result<Vec<Channel>, DataError> {
    let mut picked = Vec::with_capacity(wanted.len());
    for w in wanted {
        match table.channels.iter().position(|c| &c.name == w) {
            Some(i) => picked.push(table.channels[i].clone()),
            None if table.time.as_ref().is_some_and(|t| &t.name == w) => {
                return refuse(
                    &[Opt::TimeColumn],
                    format!("{p}: column '{w}' is the time axis, not a channel ({OPTION} none makes it one)"),
                )
            }
            None => return err(format!("{p}: column '{w}' is not numeric")),
        }
    }
    Ok(picked)
}

/// The columns the options name (the time axis, the channels) are in the file.
fn check_names(p: &str, names: &[String], opts: &LoadOptions) -> Result<(), DataError> {
    if let TimeColumn::Named(t) = &opts.time_column {
        if !names.contains(t) {
            return refuse(
                &[Opt::TimeColumn],
                format!(
                    "{p}: {OPTION}: no column '{t}' (columns: {})",
                    names.join(", ")
                ),
            );
        }
    }
    if let Some(wanted) = &opts.columns {
        if let Some(w) = wanted.iter().find(|w| !names.contains(w)) {
            let near = wavebench_core::suggest::did_you_mean(w, names.iter().map(String::as_str));
            return err(format!(
                "{p}: no column '{w}'{near} (columns: {})",
                names.join(", ")
            ));
        }
    }
    Ok(())
}
