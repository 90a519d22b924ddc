//! What every configuration of a sweep over one data set shares, computed once into a
//! folder (`sweep prepare DATA -o DIR`) and read by each shard (`sweep --prepared DIR`)
//! instead of computed again: the split, the scored units and their outcomes, the
//! series-only forecasters and their predictions, the null's shifts and the bootstrap's
//! blocks (a [`Scorer`]).
//!
//! The folder holds `prepared.json`, what it is in plain fields (format, version, the
//! data's fingerprint, every setting the shared work depends on, the units file's size
//! and hash), and `units.msgpack`, the scorer. A sweep refuses a folder made by another
//! version, from other data or under other settings, naming the first that differs.

use super::{partial, Request};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use wavebench_core::data::Table;
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::score::Scorer;

/// What the manifest's first field says the folder is.
const FORMAT: &str = "wavebench prepared sweep";
/// The manifest's and the scorer's file names in the folder.
const MANIFEST: &str = "prepared.json";
const UNITS: &str = "units.msgpack";
/// Every file a prepared folder holds, in the order they are written.
pub const FILES: [&str; 2] = [UNITS, MANIFEST];

/// The folder's plain description.
#[derive(Serialize, Deserialize)]
struct Manifest {
    format: String,
    version: String,
    /// The data as `sweep prepare` was given it.
    input: String,
    /// [`partial::data_fingerprint`] of the data.
    data: String,
    settings: Vec<Setting>,
    /// `units.msgpack`'s size and XXH3-128 (hex): a file cut short or changed after it
    /// was written is refused, not read as other units.
    units_bytes: u64,
    units_xxh3: String,
}

/// One setting the shared work depends on: its option (as the configuration file names
/// it) and its value.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
struct Setting {
    option: String,
    value: String,
}

/// Every setting the shared work of `req` depends on, in the order a refusal checks them.
fn settings(req: &Request) -> Result<Vec<Setting>> {
    let spec = RunSpec::new(
        req.data_config(),
        Purpose::Features,
        &wavebench_core::run_spec::NATIVE_ONLY,
    )?;
    let cfg = &spec.cfg;
    let protocol = &req.protocol;
    let pairs: [(Opt, String); 12] = [
        (Opt::Columns, text(&cfg.columns)),
        (Opt::Rows, text(&cfg.rows)),
        (Opt::SeqLen, text(&cfg.seq_len)),
        (Opt::PredLen, text(&req.base.pred_len)),
        (Opt::Stride, text(&cfg.stride)),
        (Opt::Split, req.split.to_string()),
        (Opt::Normalize, spec.normalize().name().to_string()),
        (Opt::Missing, text(&cfg.missing)),
        (Opt::TimeColumn, text(&cfg.time_column)),
        (Opt::NullDraws, text(&protocol.null_draws)),
        (Opt::Bootstrap, text(&protocol.bootstrap)),
        (Opt::FitSubsetAbove, text(&protocol.fit_subset_above)),
    ];
    Ok(pairs
        .into_iter()
        .map(|(option, value)| Setting {
            option: option.name().to_string(),
            value,
        })
        .collect())
}

/// The value of a setting not given.
const DEFAULT: &str = "default";

/// A setting's value as a line of text: strings bare, lists comma-separated, "default"
/// for one not given.
fn text<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Null) => DEFAULT.to_string(),
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(","),
        Ok(v) => v.to_string(),
        Err(e) => format!("unwritable ({e})"),
    }
}

/// The folder's files for `scorer`, made by [`super::scorer`] for `tables` under `req`:
/// each name and its bytes, the units first (written in this order, a manifest never
/// describes a units file not yet written). `input` is the data as given.
pub fn files(
    tables: &[(&str, &Table)],
    req: &Request,
    scorer: &Scorer,
    input: &str,
) -> Result<[(&'static str, Vec<u8>); 2]> {
    let units = rmp_serde::to_vec(scorer)
        .map_err(|e| Error::internal(format!("sweep prepare: the units: {e}")))?;
    let manifest = Manifest {
        format: FORMAT.to_string(),
        version: partial::version(),
        input: input.to_string(),
        data: partial::data_fingerprint(tables),
        settings: settings(req)?,
        units_bytes: units.len() as u64,
        units_xxh3: hash(&units),
    };
    let mut text = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| Error::internal(format!("sweep prepare: {e}")))?;
    text.push(b'\n');
    Ok([(UNITS, units), (MANIFEST, text)])
}

/// The scorer kept in folder `dir`, when it was prepared by this version from `tables`
/// under `req`'s settings; else an error naming the first thing that differs.
pub fn read(dir: &Path, tables: &[(&str, &Table)], req: &Request) -> Result<Scorer> {
    let shown = dir.display();
    let manifest_path = dir.join(MANIFEST);
    let bytes = std::fs::read(&manifest_path).map_err(|e| {
        Error::about(
            &[Opt::Prepared],
            format!(
                "{OPTION} {shown}: no prepared sweep there ({e}); `wavebench sweep prepare DATA -o {shown}` makes one"
            ),
        )
    })?;
    let refuse = |why: String| Error::about(&[Opt::Prepared], format!("{OPTION} {shown}: {why}"));
    let m: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| refuse(format!("{MANIFEST} is not a prepared sweep's ({e})")))?;
    if m.format != FORMAT {
        return Err(refuse(format!(
            "{MANIFEST} says it is '{}', not '{FORMAT}'",
            m.format
        )));
    }
    let version = partial::version();
    if m.version != version {
        return Err(refuse(format!(
            "prepared by wavebench {}, this is {version}: prepare it again with this version",
            m.version
        )));
    }
    // The settings first: a different --columns names the option, not "other data".
    let ours = settings(req)?;
    if let Some(d) = first_difference(&m.settings, &ours) {
        return Err(d.refusal(&shown.to_string()));
    }
    if m.data != partial::data_fingerprint(tables) {
        return Err(refuse(format!(
            "prepared from other data ({}: other files, channels or values): prepare it again from this data",
            m.input
        )));
    }
    let units_path: PathBuf = dir.join(UNITS);
    let units = std::fs::read(&units_path).map_err(|e| Error::io(&units_path, "read", e))?;
    if units.len() as u64 != m.units_bytes || hash(&units) != m.units_xxh3 {
        return Err(refuse(format!(
            "{UNITS} is not the file {MANIFEST} describes (changed or cut short after it was written): prepare it again"
        )));
    }
    rmp_serde::from_slice(&units)
        .map_err(|e| refuse(format!("{UNITS} cannot be read ({e}): prepare it again")))
}

/// A setting whose value in the folder is not the sweep's.
struct Difference {
    option: Option<Opt>,
    name: String,
    prepared: Option<String>,
    asked: Option<String>,
}

impl Difference {
    fn refusal(&self, dir: &str) -> Error {
        let Some(o) = self.option else {
            let value = |v: &Option<String>| v.clone().unwrap_or_else(|| "nothing".to_string());
            return Error::about(
                &[Opt::Prepared],
                format!(
                    "{OPTION} {dir}: prepared with {} {}, and this sweep has {}: prepare it again with this sweep's options",
                    self.name,
                    value(&self.prepared),
                    value(&self.asked)
                ),
            );
        };
        // "with --seq-len 512" / "without --columns" (a setting left at its default).
        let given = |v: &Option<String>| match v.as_deref() {
            None | Some(DEFAULT) => format!("no {OPTION}"),
            Some(v) => format!("{OPTION} {v}"),
        };
        Error::about(
            &[Opt::Prepared, o, o],
            format!(
                "{OPTION} {dir}: prepared with {}, and this sweep has {}: prepare it again with this sweep's options, or give the same",
                given(&self.prepared),
                given(&self.asked)
            ),
        )
    }
}

/// The first setting (in `asked`'s order) whose value differs, or that one side lacks.
fn first_difference(prepared: &[Setting], asked: &[Setting]) -> Option<Difference> {
    let value_in = |list: &[Setting], name: &str| {
        list.iter()
            .find(|s| s.option == name)
            .map(|s| s.value.clone())
    };
    let names = asked
        .iter()
        .map(|s| &s.option)
        .chain(prepared.iter().map(|s| &s.option));
    for name in names {
        let (p, a) = (value_in(prepared, name), value_in(asked, name));
        if p != a {
            return Some(Difference {
                option: name.parse::<Opt>().ok(),
                name: name.clone(),
                prepared: p,
                asked: a,
            });
        }
    }
    None
}

/// XXH3-128 in hex.
fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the command line names an option.
    fn flag(o: Opt) -> String {
        format!("--{}", o.name().replace('_', "-"))
    }

    fn setting(option: &str, value: &str) -> Setting {
        Setting {
            option: option.to_string(),
            value: value.to_string(),
        }
    }

    #[test]
    fn the_first_differing_setting_is_named_with_both_values() {
        let prepared = [setting("seq_len", "336"), setting("pred_len", "96")];
        let asked = [setting("seq_len", "512"), setting("pred_len", "24")];
        let d = first_difference(&prepared, &asked).expect("they differ");
        assert_eq!(d.option, Some(Opt::SeqLen));
        let said = d.refusal("prep").worded(flag);
        assert_eq!(
            said,
            "--prepared prep: prepared with --seq-len 336, and this sweep has --seq-len 512: prepare it again with this sweep's options, or give the same"
        );
        assert!(first_difference(&prepared, &prepared).is_none());
        // A setting one side lacks differs too.
        let default = [setting("columns", "default")];
        let said = first_difference(&default, &[setting("columns", "OT")])
            .expect("columns differ")
            .refusal("prep")
            .worded(flag);
        assert_eq!(
            said,
            "--prepared prep: prepared with no --columns, and this sweep has --columns OT: prepare it again with this sweep's options, or give the same"
        );
        let fewer = [setting("seq_len", "336")];
        let d = first_difference(&fewer, &prepared).expect("pred_len is missing");
        assert_eq!((d.prepared, d.asked), (None, Some("96".to_string())));
    }

    #[test]
    fn values_read_as_their_flags_take_them() {
        assert_eq!(text(&Some(vec!["HUFL", "OT"])), "HUFL,OT");
        assert_eq!(text(&None::<usize>), "default");
        assert_eq!(text(&512usize), "512");
        assert_eq!(text(&"x"), "x");
    }
}
