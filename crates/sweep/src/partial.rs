//! A shard's share of a sweep (`sweep --shard I/N`) as a file, and the merge of every
//! shard's file into the sweep one process would have made (`sweep merge`).
//!
//! A part file is JSON: what it is (format, version, shard, input, the data's and the
//! settings' fingerprints, its configurations) in plain fields, and the sweep itself as
//! MessagePack in base64, so that every figure (NaN included) comes back bit for bit and
//! the merged report is byte-identical to a one-process sweep's.

use super::{Request, Sweep};
use crate::error::{Error, Result};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::path::Path;
use wavebench_core::data::Table;
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::run_spec::Shard;

/// The most shards a sweep may be cut into: the merge keeps a slot per shard, and a grid
/// of more configurations than this is not a sweep anyone runs.
pub const MAX_SHARDS: usize = 100_000;

/// What a part file's first field says it is.
const FORMAT: &str = "wavebench sweep part";

/// One shard's share of a sweep.
#[derive(Debug, Clone)]
pub struct Partial {
    /// Which shard, of how many.
    pub shard: Shard,
    /// The wavebench that wrote it (parts of other versions are not merged).
    pub version: String,
    /// The data as the sweep was given it (the Markdown report's header names it).
    pub input: String,
    /// A hash of every file's name, channels and values.
    pub data: String,
    /// Every setting the rows depend on, one per line.
    pub settings: String,
    /// Configurations in the whole grid.
    pub configurations: usize,
    /// Each row's configuration (its place in the grid), in the order of `sweep.rows`.
    pub at: Vec<usize>,
    pub sweep: Sweep,
}

/// The file's form: plain fields a reader (or `jq`) can see, the sweep packed.
#[derive(Serialize, Deserialize, Clone)]
struct Envelope {
    format: String,
    version: String,
    /// "I/N".
    shard: String,
    input: String,
    data: String,
    /// One setting a line.
    settings: Vec<String>,
    configurations: usize,
    /// The configurations of this part, as "db4 level 3".
    rows: Vec<String>,
    /// MessagePack of [`Packed`], in base64.
    sweep: String,
    /// SHA-256 of every field above as written ([`Envelope::digest_of`]): a part edited
    /// after it was written is refused by the merge.
    #[serde(default)]
    digest: String,
}

impl Envelope {
    /// The SHA-256 (hex) of the envelope's JSON with an empty digest.
    fn digest_of(&self) -> Result<String> {
        let unsigned = Envelope {
            digest: String::new(),
            ..self.clone()
        };
        let bytes = serde_json::to_vec(&unsigned)
            .map_err(|e| Error::internal(format!("sweep part: {e}")))?;
        Ok(sha256(&bytes))
    }
}

#[derive(Serialize, Deserialize)]
struct Packed {
    at: Vec<usize>,
    sweep: Sweep,
}

/// The key under which a JSON report keeps its sweep packed ([`keep_in_report`]).
const REPORT_SWEEP: &str = "sweep_packed";

/// A JSON report keeps what `sweep pick` needs to rank and write any row again without
/// computing anything: the data as given, this build's version, and the sweep itself
/// packed as a part packs it (val's replicates of every quantity `--by` can name; test's
/// values without their replicates), with its SHA-256.
pub fn keep_in_report(doc: &mut serde_json::Value, s: &Sweep, input: &str) -> Result<()> {
    // Only val's replicates rank: test's values stay, its replicates go (half the size).
    let mut kept = s.clone();
    for e in kept
        .rows
        .iter_mut()
        .map(|r| &mut r.test)
        .chain(std::iter::once(&mut kept.baseline.test))
    {
        e.boot = Vec::new();
        e.boot_complementary = Vec::new();
        if let Some(g) = &mut e.forecast {
            g.boot = Vec::new();
        }
        for c in &mut e.claims {
            let stats = std::sync::Arc::make_mut(&mut c.stats);
            stats.boot = Default::default();
            stats.boot_complementary = Default::default();
        }
    }
    let packed = pack(&Packed {
        at: Vec::new(),
        sweep: kept,
    })?;
    let digest = sha256(packed.as_bytes());
    if let Some(m) = doc.as_object_mut() {
        m.insert("input".into(), input.into());
        m.insert("version".into(), version().into());
        m.insert(REPORT_SWEEP.into(), packed.into());
        m.insert("sweep_digest".into(), digest.into());
    }
    Ok(())
}

/// Whether `path` is a sweep's JSON report (not a part).
pub fn is_report(path: &Path) -> Result<bool> {
    let head = read_json(path)?;
    Ok(head.get(REPORT_SWEEP).is_some())
}

/// The sweep a JSON report keeps, and its input; errors name the file.
pub fn read_report(path: &Path) -> Result<(Sweep, String)> {
    let p = path.display();
    let doc = read_json(path)?;
    let field = |k: &str| {
        doc.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    if field("version") != version() {
        return Err(Error::input(format!(
            "{p}: written by wavebench {}, this is {}: pick from a report this wavebench wrote",
            field("version"),
            version()
        )));
    }
    let packed = field(REPORT_SWEEP);
    if sha256(packed.as_bytes()) != field("sweep_digest") {
        return Err(Error::input(format!(
            "{p}: the report was changed after it was written (its digest does not match its sweep)"
        )));
    }
    let Packed { sweep, .. } =
        unpack(&packed).map_err(|e| Error::input(format!("{p}: not a sweep report ({e})")))?;
    Ok((sweep, field("input")))
}

/// A JSON file, or a one-line refusal naming it.
fn read_json(path: &Path) -> Result<serde_json::Value> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "read", e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::input(format!(
            "{}: not a sweep's JSON report or part ({e}); `sweep ... -o SWEEP.json` writes one",
            path.display()
        ))
    })
}

/// MessagePack of `p`, in base64.
fn pack(p: &Packed) -> Result<String> {
    let bytes = rmp_serde::to_vec_named(p).map_err(|e| Error::internal(format!("sweep: {e}")))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// [`pack`]'s inverse.
fn unpack(text: &str) -> std::result::Result<Packed, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.as_bytes())
        .map_err(|e| e.to_string())?;
    rmp_serde::from_slice(&bytes).map_err(|e| e.to_string())
}

/// SHA-256 in hex.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A shard a sweep can be cut into: at most [`MAX_SHARDS`].
pub fn check_shard(shard: Shard) -> Result<()> {
    if shard.count > MAX_SHARDS {
        return Err(Error::about(
            &[Opt::Shard],
            format!(
                "{OPTION} {}/{}: a sweep has at most {MAX_SHARDS} shards",
                shard.index, shard.count
            ),
        ));
    }
    Ok(())
}

impl Partial {
    /// Shard `shard`'s part of the sweep of `req` over `tables`, as computed (`share`), for
    /// the input as the sweep was given it.
    pub fn of(
        share: crate::Share,
        shard: Shard,
        input: String,
        tables: &[(&str, &Table)],
        req: &Request,
    ) -> Partial {
        Partial {
            shard,
            version: version(),
            input,
            data: data_fingerprint(tables),
            settings: settings(req),
            configurations: share.configurations,
            at: share.at,
            sweep: share.sweep,
        }
    }
}

/// This build's version, as `--version` prints it.
pub fn version() -> String {
    super::VERSION.to_string()
}

/// A fingerprint of the data: every file's name, channel names and values (their bits).
pub fn data_fingerprint(tables: &[(&str, &Table)]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (name, table) in tables {
        h.update(name.as_bytes());
        h.update(&[0]);
        h.update(&(table.rows() as u64).to_le_bytes());
        for c in &table.channels {
            h.update(c.name.as_bytes());
            h.update(&[0]);
            for v in c.values.to_f64() {
                h.update(&v.to_bits().to_le_bytes());
            }
        }
    }
    format!("{:032x}", h.digest128())
}

/// Every setting a sweep's rows depend on, one `key = value` per line: the run
/// configuration (as `--config` TOML), the grid, the templates (their text), the split
/// and the protocol.
pub fn settings(req: &Request) -> String {
    let mut s = crate::config::to_toml(&req.base);
    s.push_str(&format!("sweep.wavelets = {:?}\n", req.grid.wavelets));
    s.push_str(&format!("sweep.levels = {:?}\n", req.grid.levels));
    s.push_str(&format!(
        "sweep.modes = {:?}\n",
        req.grid.modes.iter().map(|m| m.name()).collect::<Vec<_>>()
    ));
    for (name, p) in &req.templates {
        s.push_str(&format!("sweep.template.{name} = {:?}\n", p.source()));
    }
    s.push_str(&format!("sweep.split = {}\n", req.split));
    s.push_str(&format!(
        "sweep.null_draws = {}\nsweep.bootstrap = {}\n",
        req.protocol.null_draws, req.protocol.bootstrap
    ));
    // Parts whose forecasters were fit on other units do not merge.
    if let Some(n) = req.protocol.fit_subset_above {
        s.push_str(&format!("sweep.fit_subset_above = {n}\n"));
    }
    s
}

impl Partial {
    /// The part file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let packed = pack(&Packed {
            at: self.at.clone(),
            sweep: self.sweep.clone(),
        })?;
        let mut envelope = Envelope {
            format: FORMAT.to_string(),
            version: self.version.clone(),
            shard: format!("{}/{}", self.shard.index, self.shard.count),
            input: self.input.clone(),
            data: self.data.clone(),
            settings: self.settings.lines().map(str::to_string).collect(),
            configurations: self.configurations,
            rows: self.sweep.rows.iter().map(|r| r.label_full()).collect(),
            sweep: packed,
            digest: String::new(),
        };
        envelope.digest = envelope.digest_of()?;
        let mut v = serde_json::to_vec_pretty(&envelope)
            .map_err(|e| Error::internal(format!("sweep part: {e}")))?;
        v.push(b'\n');
        Ok(v)
    }

    /// Read a part file; errors name it.
    pub fn read(path: &Path) -> Result<Partial> {
        let bytes = std::fs::read(path).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            doing: "reading a sweep part",
            source: e,
        })?;
        Partial::from_bytes(&bytes, &path.display().to_string())
    }

    /// A part from its file's bytes; errors name it as `p`.
    pub fn from_bytes(bytes: &[u8], p: &str) -> Result<Partial> {
        let not_a_part = |why: String| {
            Error::input(format!(
                "{p}: not a sweep part ({why}); parts are written by `wavebench sweep ... --shard I/N -o FILE`"
            ))
        };
        let e: Envelope = serde_json::from_slice(bytes).map_err(|e| not_a_part(e.to_string()))?;
        if e.format != FORMAT {
            return Err(not_a_part(format!("its format is '{}'", e.format)));
        }
        let shard: Shard = e
            .shard
            .parse()
            .map_err(|err: wavebench_core::names::BadValue| not_a_part(err.to_string()))?;
        if shard.count > MAX_SHARDS {
            return Err(not_a_part(format!(
                "shard '{}': a sweep has at most {MAX_SHARDS} shards",
                e.shard
            )));
        }
        let packed = base64::engine::general_purpose::STANDARD
            .decode(e.sweep.as_bytes())
            .map_err(|e| not_a_part(format!("its sweep: {e}")))?;
        // A part of another version may not read: say the version first.
        if e.version != version() {
            return Err(Error::input(format!(
                "{p}: written by wavebench {}, this is {}: merge parts with the wavebench that wrote them",
                e.version,
                version()
            )));
        }
        if e.digest != e.digest_of()? {
            return Err(Error::input(format!(
                "{p}: the part was changed after it was written (its digest does not match its contents): write it again with `sweep --shard {}`",
                e.shard
            )));
        }
        let Packed { at, sweep } =
            rmp_serde::from_slice(&packed).map_err(|e| not_a_part(format!("its sweep: {e}")))?;
        if let Some(beyond) = at.iter().find(|&&a| a >= e.configurations) {
            return Err(not_a_part(format!(
                "configuration {beyond} of a grid of {}",
                e.configurations
            )));
        }
        if at.len() != sweep.rows.len() {
            return Err(not_a_part(format!(
                "{} rows but {} places",
                sweep.rows.len(),
                at.len()
            )));
        }
        Ok(Partial {
            shard,
            version: e.version,
            input: e.input,
            data: e.data,
            settings: e.settings.iter().map(|l| format!("{l}\n")).collect(),
            configurations: e.configurations,
            at,
            sweep,
        })
    }
}
