//! Merging a sharded sweep: every part of one sweep (`sweep --shard I/N`), checked to be
//! that sweep's every shard, each once, combined into the sweep one process would have
//! made, byte for byte.

use crate::error::{Error, Result};
use crate::partial::Partial;
use crate::{Sweep, SweepRow};
use std::path::{Path, PathBuf};
use wavebench_core::score::{Evaluation, PerPart};

/// The parts are every shard of one sweep, each once: the same data, settings and grid;
/// shards 1..=N each given once.
fn check_parts(parts: &[(PathBuf, Partial)]) -> Result<()> {
    let Some((first_path, first)) = parts.first() else {
        return Err(Error::input("sweep merge: no part given"));
    };
    let count = first.shard.count;
    let mut by_shard: Vec<Option<&Path>> = vec![None; count];
    for (path, p) in parts {
        let differs = |what: &str, a: &str, b: &str| {
            Error::input(format!(
                "{}: {what} differ from {}'s ({a} against {b}): merge parts of one sweep",
                path.display(),
                first_path.display()
            ))
        };
        if p.shard.count != count {
            return Err(differs(
                "shard counts",
                &p.shard.count.to_string(),
                &count.to_string(),
            ));
        }
        // The data by its content, not by how its path was typed (`x.csv`, `./x.csv`).
        if p.data != first.data {
            return Err(differs(
                "its data",
                &format!("{}, content {}", p.input, short(&p.data)),
                &format!("{}, content {}", first.input, short(&first.data)),
            ));
        }
        if p.settings != first.settings {
            let (a, b) = first_difference(&p.settings, &first.settings);
            return Err(differs("its settings", &a, &b));
        }
        if p.configurations != first.configurations {
            return Err(differs(
                "grid sizes",
                &p.configurations.to_string(),
                &first.configurations.to_string(),
            ));
        }
        if let Some(twice) = by_shard[p.shard.index - 1].replace(path) {
            return Err(Error::input(format!(
                "{} and {} are both shard {}/{count}: give each part once",
                twice.display(),
                path.display(),
                p.shard.index
            )));
        }
    }
    let missing: Vec<String> = by_shard
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_none())
        .map(|(i, _)| format!("{}/{count}", i + 1))
        .collect();
    if !missing.is_empty() {
        return Err(Error::input(format!(
            "sweep merge: shard{} {} missing (given {} of {count} parts)",
            if missing.len() == 1 { "" } else { "s" },
            crate::words::first_few(&missing, 8, ""),
            parts.len()
        )));
    }
    Ok(())
}

/// The sweep of every part together, as one process would have made it: the same data,
/// settings and version; shards 1..=N each once. Returns the sweep and the data's input
/// as the parts name it.
pub fn parts(parts: Vec<(PathBuf, Partial)>) -> Result<(Sweep, String)> {
    check_parts(&parts)?;
    let input = parts
        .first()
        .map(|(_, p)| p.input.clone())
        .ok_or_else(|| Error::input("sweep merge: no part given"))?;
    let mut rows: Vec<(usize, SweepRow)> = Vec::new();
    let mut shared = None;
    // The Time-LLM baseline's forecast gain, from a part that measured it (one without
    // rows has none).
    let mut baseline_gains = None;
    for (path, p) in parts {
        let Partial { at, sweep, .. } = p;
        let mut sweep = sweep;
        rows.extend(at.into_iter().zip(std::mem::take(&mut sweep.rows)));
        let gains = std::mem::take(&mut sweep.baseline).map(|b| b.forecast);
        if baseline_gains.is_none() && gains.iter().all(Option::is_some) {
            baseline_gains = Some(gains);
        }
        // Every part scored the same units: anything else is not one sweep (compared as
        // bytes, so that a NaN equals itself).
        let bytes = rmp_serde::to_vec(&sweep).map_err(|e| Error::internal(e.to_string()))?;
        match &shared {
            None => shared = Some((sweep, bytes)),
            Some((_, b)) if *b != bytes => {
                return Err(Error::input(format!(
                    "{}: its units or split differ from the other parts' although its settings agree: merge parts of one sweep",
                    path.display()
                )))
            }
            Some(_) => {}
        }
    }
    let (mut sweep, _) = shared.ok_or_else(|| Error::internal("sweep merge: no part"))?;
    // Grid order; a configuration's rows keep their template order.
    rows.sort_by_key(|(at, _)| *at);
    sweep.rows = rows.into_iter().map(|(_, r)| r).collect();
    sweep.baseline = sweep.rows.first().map_or_else(Default::default, |r| {
        PerPart {
            val: r.val.clone(),
            test: r.test.clone(),
        }
        .map(Evaluation::baseline)
    });
    if let Some(gains) = baseline_gains {
        for (b, g) in sweep.baseline.iter_mut().zip(gains.into_array()) {
            b.forecast = g;
        }
    }
    Ok((sweep, input))
}

/// A content hash's first 8 digits, as messages show it.
fn short(hash: &str) -> &str {
    &hash[..8.min(hash.len())]
}

/// The first line where `a` and `b` differ.
fn first_difference(a: &str, b: &str) -> (String, String) {
    let mut la = a.lines();
    let mut lb = b.lines();
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => {
                return (
                    x.unwrap_or("(nothing)").to_string(),
                    y.unwrap_or("(nothing)").to_string(),
                )
            }
        }
    }
}
