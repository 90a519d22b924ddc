//! The sweep from Python: `sweep_part(path, shard, **options)` computes one shard's part as
//! `wavebench sweep --shard I/N -o PART.json` writes it, and `sweep_merge(parts)` makes the
//! report `wavebench sweep merge` makes, byte for byte. Keyword arguments are the sweep's
//! flags in snake_case, turned into those flags and parsed by the sweep crate's own
//! options ([`SweepArgs`]), so the CLI and the wheel build the same request. Files are read
//! by the plain CSV reader (the wheel carries no polars); a sweep's parts carry the data's
//! fingerprint, so parts of tables read differently never merge.

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use std::ffi::CString;
use std::path::PathBuf;
use wavebench_core::data::Table;
use wavebench_core::names::ReportFormat;
use wavebench_core::run_spec::Shard;
use wavebench_files::PLAIN_FILES;
use wavebench_sweep::error::Error;
use wavebench_sweep::options::{Plan, SweepArgs};
use wavebench_sweep::partial::{self, Partial};
use wavebench_sweep::rank::{RankBy, Standings};

/// A sweep error as the Python exception it is, its options named as keyword arguments:
/// the user's input a ValueError (a file that cannot be read an OSError), ours a
/// RuntimeError.
fn sweep_error(e: Error) -> PyErr {
    let text = keyword_words(&e.worded(|o| o.name().to_string()));
    match e {
        Error::Io { .. } => PyOSError::new_err(text),
        e if e.exit_code() == 2 => PyValueError::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}

/// A message's flags (`--seq-len`) as the keyword arguments that give them (`seq_len`).
fn keyword_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        let flag = &after[..len];
        if is_flag(flag) {
            out.push_str(&flag.replace('-', "_"));
        } else {
            out.push_str(&rest[at..at + 2 + len]);
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// Whether `long` is one of the sweep's flags (without its `--`).
fn is_flag(long: &str) -> bool {
    use clap::CommandFactory;
    SweepArgs::command()
        .get_arguments()
        .any(|a| a.get_long() == Some(long))
}

/// The keyword arguments as the sweep's flags: `seq_len=336` is `--seq-len 336`, `True`
/// a flag alone (`False` and `None` leave it out), a list the values of a flag that takes
/// many (`claim=[...]` repeats it) or one comma-separated value (`levels=[1, 2]`).
fn flags(options: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    use clap::CommandFactory;
    let command = SweepArgs::command();
    let mut args = Vec::new();
    let Some(options) = options else {
        return Ok(args);
    };
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        let long = key.replace('_', "-");
        let Some(arg) = command
            .get_arguments()
            .find(|a| a.get_long() == Some(&long))
        else {
            let names: Vec<String> = command
                .get_arguments()
                .filter_map(|a| a.get_long())
                .filter(|l| *l != "shard")
                .map(|l| l.replace('-', "_"))
                .collect();
            let near =
                wavebench_core::suggest::did_you_mean(&key, names.iter().map(String::as_str));
            return Err(PyTypeError::new_err(format!(
                "sweep_part: no keyword argument '{key}'{near} (the sweep's flags in snake_case: {})",
                names.join(", ")
            )));
        };
        if key == "shard" {
            return Err(PyTypeError::new_err(
                "sweep_part: give the shard as its second argument, shard=(i, n)",
            ));
        }
        let flag = format!("--{long}");
        if value.is_none() {
            continue;
        }
        if let Ok(on) = value.cast::<pyo3::types::PyBool>() {
            if on.is_true() {
                args.push(flag);
            }
            continue;
        }
        let many =
            value.is_instance_of::<PyList>() || value.is_instance_of::<pyo3::types::PyTuple>();
        if many {
            let items: Vec<String> = value
                .try_iter()?
                .map(|v| v.and_then(|v| text(&v)))
                .collect::<PyResult<_>>()?;
            if matches!(arg.get_action(), clap::ArgAction::Append)
                && arg.get_value_delimiter().is_none()
            {
                for item in items {
                    args.push(flag.clone());
                    args.push(item);
                }
            } else {
                args.push(flag);
                args.push(items.join(","));
            }
            continue;
        }
        args.push(flag);
        args.push(text(&value)?);
    }
    Ok(args)
}

/// A keyword's value as a flag's text: a string or path as it is, a number as Python
/// prints it.
fn text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>();
    }
    if let Ok(p) = value.extract::<PathBuf>() {
        return Ok(p.display().to_string());
    }
    Ok(value.str()?.to_string())
}

/// A clap refusal in the keyword arguments' words, on one line (its tip beside it).
fn parse_error(e: clap::Error) -> PyErr {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ");
    let tip = lines.find(|l| l.starts_with("tip:"));
    let text = match tip {
        Some(t) => format!("{first} ({t})"),
        None => first.to_string(),
    };
    // `'--seq-len <SEQ_LEN>'` names the keyword.
    let text = text
        .split('\'')
        .enumerate()
        .map(|(i, part)| match (i % 2, part.strip_prefix("--")) {
            (1, Some(flag)) => flag.split(' ').next().unwrap_or(flag).replace('-', "_"),
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join("'");
    PyValueError::new_err(format!("sweep_part: {text}"))
}

/// Each warning as a Python `UserWarning`.
fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    for w in warnings {
        let message = CString::new(w.replace('\0', " "))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        PyErr::warn(py, category.as_any(), &message, 1)?;
    }
    Ok(())
}

/// One shard's part of the sweep over `path` (a CSV or TSV file, a folder or a glob of
/// them): the bytes `wavebench sweep PATH --shard I/N -o PART.json` writes, for
/// `sweep_merge` or `wavebench sweep merge`. `shard=(i, n)` is 1-based like `--shard`;
/// the keyword arguments are the sweep's flags in snake_case (`seq_len=336`,
/// `wavelets="db1,db2"`, `levels="1,2"`, `null_draws=99`, `prepared="DIR"`). The work
/// runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (path, shard, **options))]
pub fn sweep_part(
    py: Python<'_>,
    path: PathBuf,
    shard: (usize, usize),
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyBytes>> {
    let mut args = flags(options)?;
    args.push("--shard".to_string());
    args.push(format!("{}/{}", shard.0, shard.1));
    let parsed = <SweepArgs as clap::Parser>::try_parse_from(&args).map_err(parse_error)?;
    let shard: Shard = parsed
        .sweep
        .shard
        .ok_or_else(|| PyRuntimeError::new_err("sweep_part: the shard was not parsed"))?;
    partial::check_shard(shard).map_err(sweep_error)?;
    let Plan { request, note } = parsed.sweep.plan(&parsed.data).map_err(sweep_error)?;
    warn_all(py, &note.into_iter().collect::<Vec<_>>())?;
    let loaded = py
        .detach(|| wavebench_sweep::input::load(&path, &request.base, &PLAIN_FILES))
        .map_err(sweep_error)?;
    let skipped: Vec<String> = loaded
        .skipped
        .iter()
        .map(|e| {
            let text = keyword_words(&e.worded(|o| o.name().to_string()));
            format!("skipping a bad file: {text}")
        })
        .collect();
    warn_all(py, &skipped)?;
    let tables = loaded.usable(&path).map_err(sweep_error)?;
    let warnings: Vec<String> = tables
        .iter()
        .flat_map(|(_, t)| t.warnings.clone())
        .collect();
    warn_all(py, &warnings)?;
    let prepared = parsed.sweep.prepared.clone();
    let bytes = py
        .detach(|| {
            let named: Vec<(&str, &Table)> = tables.iter().map(|(n, t)| (n.as_str(), t)).collect();
            let prepared = match &prepared {
                Some(dir) => Some(wavebench_sweep::prepared::read(dir, &named, &request)?),
                None => None,
            };
            let share =
                wavebench_sweep::run_share(&named, &request, Some(shard), prepared, |_, _| true)?;
            let input = path.display().to_string();
            Partial::of(share, shard, input, &named, &request).to_bytes()
        })
        .map_err(sweep_error)?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// The report of every part of one sweep together, as `wavebench sweep merge` writes it:
/// `parts` are what `sweep_part` returned (bytes) or part files (paths), in any order;
/// `format` is "json", "md" or "csv"; `by` ranks as `--by` does. The sweep's warnings
/// come as `UserWarning`s.
#[pyfunction]
#[pyo3(signature = (parts, format = "json", by = None, keep_degenerate = false))]
pub fn sweep_merge(
    py: Python<'_>,
    parts: &Bound<'_, PyAny>,
    format: &str,
    by: Option<&str>,
    keep_degenerate: bool,
) -> PyResult<String> {
    let format: ReportFormat =
        format
            .parse()
            .map_err(|e: wavebench_core::names::UnknownName| {
                PyValueError::new_err(format!("format: {e}"))
            })?;
    let by: RankBy = match by {
        Some(b) => b.parse().map_err(|e: Error| {
            PyValueError::new_err(format!("by: {}", keyword_words(&e.to_string())))
        })?,
        None => RankBy::default(),
    };
    let mut read = Vec::new();
    for (i, part) in parts.try_iter()?.enumerate() {
        let part = part?;
        let (name, partial) = if let Ok(b) = part.cast::<PyBytes>() {
            let name = format!("part {}", i + 1);
            let p = Partial::from_bytes(b.as_bytes(), &name).map_err(sweep_error)?;
            (PathBuf::from(name), p)
        } else {
            let path: PathBuf = part.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "sweep_merge: part {} is {}, not the bytes sweep_part returns or a part file's path",
                    i + 1,
                    part.get_type().name().map_or("?".to_string(), |n| n.to_string())
                ))
            })?;
            let p = Partial::read(&path).map_err(sweep_error)?;
            (path, p)
        };
        read.push((name, partial));
    }
    let (sweep, input) = wavebench_sweep::merge::parts(read).map_err(sweep_error)?;
    warn_all(
        py,
        &Standings::of(&sweep, by, keep_degenerate).warnings(&sweep),
    )?;
    let bytes = wavebench_sweep::report::render(&sweep, format, by, keep_degenerate, &input)
        .map_err(sweep_error)?;
    String::from_utf8(bytes).map_err(|e| PyRuntimeError::new_err(format!("sweep_merge: {e}")))
}
