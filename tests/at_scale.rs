//! The sweep at scale (docs/cli.md#sharded-sweeps): shards merged equal one process's
//! sweep byte for byte, merging refuses parts of other sweeps and missing or repeated
//! parts, the local stand-in for a cluster (`xargs -P` over shards, then `sweep merge`)
//! works as documented, a prepared folder's sweeps equal the unprepared sweep and a
//! folder from other data or options is refused, and a sweep's memory grows by bytes per unit, not kilobytes;
//! `prompts` and `features` stream their records a chunk at a time, to the same bytes.

mod common;

use common::{assert_input_error, wavebench};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The heap in use and its peak, for the memory test (the other tests of this file spawn
/// the binary, so they allocate little in this process).
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        IN_USE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = IN_USE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Held by every test that computes or reads large files in this process, so that a
/// measured heap is one test's alone (the test threads share the allocator).
static IN_THIS_PROCESS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    IN_THIS_PROCESS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `channels` series of `rows` hours (an index column): random walks with a daily cycle.
fn made_file(dir: &Path, rows: usize, channels: usize) -> PathBuf {
    let noise = common::lcg_series(11, rows * channels);
    let mut csv = String::from("hour");
    for c in 0..channels {
        csv.push_str(&format!(",c{c}"));
    }
    csv.push('\n');
    let mut level = vec![0.0; channels];
    for r in 0..rows {
        csv.push_str(&r.to_string());
        for (c, l) in level.iter_mut().enumerate() {
            *l += noise[r * channels + c];
            let daily = (2.0 * std::f64::consts::PI * r as f64 / 24.0 + c as f64).sin();
            csv.push_str(&format!(",{:.6}", *l + 3.0 * daily));
        }
        csv.push('\n');
    }
    let p = dir.join("made.csv");
    std::fs::write(&p, csv).unwrap();
    p
}

/// Every sweep's options: two templates, so that a configuration has several rows.
const GRID: &[&str] = &[
    "--seq-len",
    "96",
    "--pred-len",
    "24",
    "--template",
    "dwt-balanced,timellm",
    "--null-draws",
    "19",
    "--bootstrap",
    "19",
];

fn run_ok(args: &[&str]) {
    let o = wavebench(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The sweep's arguments: `data`, written to `out`, the grid, then `extra`.
fn sweep_args<'a>(data: &'a Path, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(GRID);
    args.extend_from_slice(extra);
    args
}

fn sweep_to(data: &Path, out: &Path, extra: &[&str]) {
    run_ok(&sweep_args(data, out, extra));
}

/// Every shard of `n` of a sweep with `extra`, as `dir/{name}-{i}.json`.
fn shards(data: &Path, dir: &Path, name: &str, n: usize, extra: &[&str]) -> Vec<PathBuf> {
    (1..=n)
        .map(|i| {
            let p = dir.join(format!("{name}-{i}.json"));
            let shard = format!("{i}/{n}");
            sweep_to(data, &p, &[extra, &["--shard", &shard]].concat());
            p
        })
        .collect()
}

fn merge_to(parts: &[PathBuf], out: &Path) -> std::process::Output {
    let mut args = vec!["sweep", "merge", "-o", out.to_str().unwrap()];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    wavebench(&args)
}

#[test]
fn merged_shards_equal_one_sweep_byte_for_byte() {
    // Its reports (megabytes each, read and parsed here) would count in another test's
    // measured heap.
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path(), 900, 3);
    let wide = ["--wavelets", "haar,db2,sym3,coif1", "--levels", "1,2"];
    let whole: Vec<(String, Vec<u8>)> = ["json", "md", "csv"]
        .iter()
        .map(|ext| {
            let out = dir.path().join(format!("whole.{ext}"));
            sweep_to(&data, &out, &wide);
            (ext.to_string(), std::fs::read(&out).unwrap())
        })
        .collect();
    // 8 configurations: 7 shards leave some with one and none empty, so a grid of 2 in
    // 5 shards follows; 1 shard is the whole grid in one part.
    for n in [1usize, 3, 7] {
        let parts = shards(&data, dir.path(), &format!("part-{n}"), n, &wide);
        // Given in reverse: the order of the parts does not matter.
        let reversed: Vec<PathBuf> = parts.iter().rev().cloned().collect();
        for (ext, bytes) in &whole {
            let out = dir.path().join(format!("merged-{n}.{ext}"));
            let o = merge_to(&reversed, &out);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let merged = std::fs::read(&out).unwrap();
            assert_eq!(merged.len(), bytes.len(), "{n} shards, .{ext}: lengths");
            assert!(
                merged == *bytes,
                "{n} shards, .{ext}: the merged report differs"
            );
        }
    }
    // More shards than configurations: the empty parts merge too.
    let small = ["--wavelets", "haar", "--levels", "1,2"];
    let out = dir.path().join("small.md");
    sweep_to(&data, &out, &small);
    let parts = shards(&data, dir.path(), "small", 5, &small);
    let part: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&parts[4]).unwrap()).unwrap();
    assert_eq!(
        part["rows"].as_array().map(Vec::len),
        Some(0),
        "shard 5 of 5 has no configuration"
    );
    let merged = dir.path().join("small-merged.md");
    let o = merge_to(&parts, &merged);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&out).unwrap());
}

/// What `sweep prepare` is given of [`GRID`]'s options (it takes no template), each a
/// flag and its value; `changed` replaces or adds some.
fn prepare_args<'a>(data: &'a Path, dir: &'a Path, changed: &[(&'a str, &'a str)]) -> Vec<&'a str> {
    let mut pairs: Vec<(&str, &str)> = vec![
        ("--seq-len", "96"),
        ("--pred-len", "24"),
        ("--null-draws", "19"),
        ("--bootstrap", "19"),
    ];
    for (flag, value) in changed {
        match pairs.iter_mut().find(|(f, _)| f == flag) {
            Some(p) => p.1 = value,
            None => pairs.push((flag, value)),
        }
    }
    let mut args = vec![
        "sweep",
        "prepare",
        data.to_str().unwrap(),
        "-q",
        "-o",
        dir.to_str().unwrap(),
    ];
    for (flag, value) in pairs {
        args.extend([flag, value]);
    }
    args
}

#[test]
fn prepared_sweeps_and_their_shards_equal_the_unprepared_sweep_byte_for_byte() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path(), 900, 3);
    let prepared = dir.path().join("prepared");
    run_ok(&prepare_args(&data, &prepared, &[]));
    let with = ["--prepared", prepared.to_str().unwrap()];
    let wide = ["--wavelets", "haar,db2,sym3", "--levels", "1,2"];
    for ext in ["json", "md"] {
        let whole = dir.path().join(format!("whole.{ext}"));
        sweep_to(&data, &whole, &wide);
        let read = dir.path().join(format!("read.{ext}"));
        sweep_to(&data, &read, &[&wide[..], &with].concat());
        let (a, b) = (
            std::fs::read(&whole).unwrap(),
            std::fs::read(&read).unwrap(),
        );
        assert_eq!(a.len(), b.len(), ".{ext}: lengths");
        assert!(a == b, ".{ext}: the prepared sweep's report differs");
    }
    // Shards that read the folder merge to the unprepared sweep's report.
    let parts = shards(
        &data,
        dir.path(),
        "prepared-part",
        3,
        &[&wide[..], &with].concat(),
    );
    let merged = dir.path().join("merged.md");
    let o = merge_to(&parts, &merged);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (
        std::fs::read(&merged).unwrap(),
        std::fs::read(dir.path().join("whole.md")).unwrap(),
    );
    assert_eq!(a.len(), b.len(), "merged: lengths");
    assert!(
        a == b,
        "the prepared shards' merge differs from the whole sweep"
    );
}

#[test]
fn a_prepared_folder_from_other_data_or_options_is_refused_naming_what_differs() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path(), 900, 3);
    let sweep_of = |prepared: &Path| {
        let out = dir.path().join("never.md");
        let mut args = sweep_args(&data, &out, &["--wavelets", "haar", "--levels", "1"]);
        args.extend(["--prepared", prepared.to_str().unwrap()]);
        let o = wavebench(&args);
        assert!(!out.exists(), "a refused sweep wrote its report");
        o
    };
    // Each setting the shared work depends on, prepared otherwise than the sweep asks.
    let changed: &[(&str, &str)] = &[
        ("--seq-len", "64"),
        ("--pred-len", "12"),
        ("--null-draws", "29"),
        ("--bootstrap", "29"),
        ("--split", "0.6,0.2,0.2"),
        ("--stride", "2"),
        ("--columns", "c0,c1"),
        ("--rows", "0..800"),
        ("--normalize", "none"),
        ("--missing", "drop"),
        ("--time-column", "none"),
        ("--fit-subset-above", "1000"),
    ];
    for (i, (flag, value)) in changed.iter().enumerate() {
        let prepared = dir.path().join(format!("other-{i}"));
        run_ok(&prepare_args(&data, &prepared, &[(flag, value)]));
        let o = sweep_of(&prepared);
        assert_input_error(&o, &["--prepared", &format!("{flag} {value}"), flag]);
    }
    // Other data: the same options, one value changed.
    let other_dir = dir.path().join("other-data");
    std::fs::create_dir(&other_dir).unwrap();
    let text = std::fs::read_to_string(&data).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let last = lines[500].rfind(',').unwrap();
    lines[500].truncate(last);
    lines[500].push_str(",1.25");
    std::fs::write(other_dir.join("made.csv"), lines.join("\n") + "\n").unwrap();
    let prepared = dir.path().join("prepared-other");
    run_ok(&prepare_args(&other_dir.join("made.csv"), &prepared, &[]));
    assert_input_error(&sweep_of(&prepared), &["--prepared", "other data"]);
    // A folder with no prepared sweep, and a units file changed after it was written.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_input_error(&sweep_of(&empty), &["--prepared", "sweep prepare"]);
    // A report written into the folder it reads is refused before any work.
    let good = dir.path().join("good");
    run_ok(&prepare_args(&data, &good, &[]));
    let inside = good.join("sweep.md");
    let mut args = sweep_args(&data, &inside, &["--wavelets", "haar", "--levels", "1"]);
    args.extend(["--prepared", good.to_str().unwrap()]);
    assert_input_error(&wavebench(&args), &["-o", "lies inside the input"]);
    let units = good.join("units.msgpack");
    let mut bytes = std::fs::read(&units).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&units, bytes).unwrap();
    assert_input_error(&sweep_of(&good), &["--prepared", "prepare it again"]);
}

#[test]
fn merging_refuses_parts_of_other_sweeps_and_missing_or_repeated_ones() {
    // Its reports (megabytes each, read and parsed here) would count in another test's
    // measured heap.
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path(), 900, 2);
    let grid = ["--wavelets", "haar,db2", "--levels", "1"];
    let part = |name: &str, shard: &str, extra: &[&str]| {
        let p = dir.path().join(name);
        sweep_to(&data, &p, &[&grid[..], &["--shard", shard], extra].concat());
        p
    };
    let p1 = part("1.json", "1/3", &[]);
    let p2 = part("2.json", "2/3", &[]);
    let p3 = part("3.json", "3/3", &[]);
    let out = dir.path().join("m.md");
    assert_input_error(
        &merge_to(&[p1.clone(), p3.clone()], &out),
        &["shard 2/3 missing"],
    );
    assert_input_error(
        &merge_to(&[p1.clone(), p2.clone(), p2.clone(), p3.clone()], &out),
        &["2.json", "both shard 2/3"],
    );
    let other = part("other.json", "2/3", &["--description", "another set"]);
    assert_input_error(
        &merge_to(&[p1.clone(), other, p3.clone()], &out),
        &["other.json", "settings", "description = \"another set\""],
    );
    let other_count = part("of2.json", "2/2", &[]);
    assert_input_error(
        &merge_to(&[p1.clone(), other_count], &out),
        &["of2.json", "shard counts"],
    );
    // Other data: one channel's values changed.
    let text = std::fs::read_to_string(&data).unwrap();
    let changed = dir.path().join("changed.csv");
    std::fs::write(&changed, text.replacen(",", ",1", 2)).unwrap();
    let q = dir.path().join("q.json");
    let mut args = vec![
        "sweep",
        changed.to_str().unwrap(),
        "-q",
        "-o",
        q.to_str().unwrap(),
    ];
    args.extend_from_slice(GRID);
    args.extend_from_slice(&grid);
    args.extend_from_slice(&["--shard", "2/3"]);
    run_ok(&args);
    assert_input_error(
        &merge_to(&[p1.clone(), q, p3.clone()], &out),
        &["q.json", "data"],
    );
    // A part edited after it was written: one figure inside the packed sweep, or the
    // shard count in its plain fields.
    let edit = |name: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&p2).unwrap()).unwrap();
        change(&mut v);
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
        p
    };
    let tampered = edit("tampered.json", &|v| {
        use base64::Engine as _;
        let engine = base64::engine::general_purpose::STANDARD;
        let mut packed = engine.decode(v["sweep"].as_str().unwrap()).unwrap();
        // The last byte is a figure's (the packed sweep ends in numbers); flip a bit.
        *packed.last_mut().unwrap() ^= 1;
        v["sweep"] = engine.encode(packed).into();
    });
    assert_input_error(
        &merge_to(&[p1.clone(), tampered, p3.clone()], &out),
        &["tampered.json", "changed after it was written"],
    );
    let huge = edit("huge.json", &|v| v["shard"] = "1/1000000000".into());
    assert_input_error(
        &merge_to(&[huge], &out),
        &["huge.json", "not a sweep part", "100000"],
    );
    // The same data typed as another path (`./x.csv`) is the same data.
    let relative = dir.path().join(".").join(data.file_name().unwrap());
    let dotted = dir.path().join("dotted.json");
    let mut args = vec![
        "sweep",
        relative.to_str().unwrap(),
        "-q",
        "-o",
        dotted.to_str().unwrap(),
    ];
    args.extend_from_slice(GRID);
    args.extend_from_slice(&grid);
    args.extend_from_slice(&["--shard", "2/3"]);
    run_ok(&args);
    let o = merge_to(&[p1.clone(), dotted, p3.clone()], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_file(&out).unwrap();
    // A report is not a part.
    let report = dir.path().join("report.json");
    sweep_to(&data, &report, &grid);
    assert_input_error(
        &merge_to(&[report], &out),
        &["report.json", "not a sweep part"],
    );
    assert!(!out.exists(), "no report is written when merging fails");
    // A shard writes a part only to a file; it ranks nothing, so it writes no configuration.
    let o = wavebench(
        &[
            &["sweep", data.to_str().unwrap(), "--shard", "1/2"][..],
            GRID,
        ]
        .concat(),
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = wavebench(&sweep_args(
        &data,
        &p1,
        &["--shard", "1/2", "--write-config", "c.toml"],
    ));
    assert_input_error(&o, &["--write-config", "sweep merge"]);
    let o = wavebench(&sweep_args(&data, &p1, &["--shard", "4/3"]));
    assert_eq!(o.status.code(), Some(2));
}

/// docs/cli.md's local stand-in for a cluster, as written there.
#[test]
fn the_documented_local_stand_in_merges_to_the_whole_sweep() {
    // Its reports (megabytes each, read and parsed here) would count in another test's
    // measured heap.
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path(), 900, 2);
    let whole = dir.path().join("whole.md");
    let grid = ["--wavelets", "haar,db2,db3", "--levels", "1,2"];
    sweep_to(&data, &whole, &grid);
    let flags = [GRID, &grid[..]].concat().join(" ");
    let script = format!(
        "mkdir -p parts && seq 1 4 | xargs -P 2 -I{{}} \"$WAVEBENCH\" sweep {} {flags} --shard {{}}/4 -o parts/{{}}.json --quiet && \"$WAVEBENCH\" sweep merge parts/*.json -o sweep.md",
        data.display()
    );
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("WAVEBENCH", env!("CARGO_BIN_EXE_wavebench"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read(dir.path().join("sweep.md")).unwrap() == std::fs::read(&whole).unwrap());
}

/// A sweep keeps per unit what the score needs (claim and outcome codes, forecast
/// classes, prompt hashes, the forecast gain's residuals), never whole features or prompt
/// texts: its peak heap grows by bytes per unit. Before, every scored unit's features (~500 B) and prompt (~600 B) were
/// held at once, over 1 kB per scored unit.
#[test]
fn a_sweeps_memory_grows_by_bytes_per_unit() {
    use std::sync::Arc;
    use wavebench::sweep::Request;
    use wavebench_core::config::Config;
    use wavebench_core::prompt::Prompter;
    use wavebench_core::run_spec::{Purpose, RunSpec};
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let (rows, channels) = (12_000, 40);
    let data = made_file(dir.path(), rows, channels);
    let base = Config {
        seq_len: Some(96),
        pred_len: 24,
        ..Config::default()
    };
    let table = RunSpec::new(base.clone(), Purpose::Features, &wavebench::backend::LOCAL)
        .unwrap()
        .load(&data)
        .unwrap();
    let req = Request {
        base,
        grid: wavebench::sweep::Grid {
            wavelets: vec!["db4".into()],
            levels: "3".parse().unwrap(),
            ..Default::default()
        },
        templates: vec![(
            "dwt-balanced".into(),
            Arc::new(
                Prompter::new(wavebench_core::prompt::builtin("dwt-balanced").unwrap()).unwrap(),
            ),
        )],
        split: Default::default(),
        protocol: Default::default(),
    };
    let tables = [("made", &table)];
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let s = wavebench::sweep::run(&tables, &req, |_, _| true).unwrap();
    let grown = PEAK.load(Ordering::Relaxed) - before;
    let units = (rows - 96 - 24 + 1) * channels;
    let scored = s.units.val + s.units.test;
    assert!(scored > 100_000, "{scored} scored units: too few to tell");
    // A chunk of features in flight (~32k units of ~1 kB), then bytes per unit; and the
    // forecast gain's: the fit units' (every 3rd train window's) claims and kept
    // statistics like a scored unit's, and each fit and scored unit's residuals (P + 1
    // values of 8 bytes, docs/score.md#forecast-gain-beyond-the-series).
    let fit = s.gain.fit_units;
    assert!(fit > 50_000, "{fit} fit units");
    let residuals = (fit + scored) * (24 + 1) * 8;
    let bound = 48_000_000 + 160 * (units + fit) + residuals;
    assert!(
        grown < bound,
        "the sweep's heap grew {grown} bytes for {units} units ({scored} scored): bound {bound}"
    );
    assert_eq!(s.rows.len(), 1);
}

/// The command line run in this process (its heap counted), as `wavebench ARGS` runs it.
fn in_process(args: &[&str]) {
    use clap::FromArgMatches;
    let m = wavebench::cli::command()
        .try_get_matches_from(std::iter::once("wavebench").chain(args.iter().copied()))
        .unwrap();
    let cli = wavebench::cli::Cli::from_arg_matches(&m).unwrap();
    wavebench::cli::run(cli.command.unwrap()).unwrap_or_else(|e| panic!("{args:?}: {e}"));
}

/// The records of every unit of `data`, computed at once through the library and written
/// whole: what the streamed commands must equal.
fn written_whole(data: &Path, extra: &[&str], prompts: Option<&Path>, features: Option<&Path>) {
    use wavebench_core::config::Config;
    use wavebench_core::engine::Selected;
    use wavebench_core::run_spec::{Purpose, RunSpec};
    use wavebench_core::timing::Timer;
    let mut cfg = Config {
        seq_len: Some(96),
        pred_len: 24,
        description: "made".into(),
        ..Config::default()
    };
    if let [_, "batch", _, b] = extra {
        cfg.aggregate = wavebench_core::features::Aggregate::Batch;
        cfg.batch_size = b.parse().unwrap();
    }
    let spec = RunSpec::new(cfg.clone(), Purpose::Features, &wavebench::backend::LOCAL).unwrap();
    let table = spec.load(data).unwrap();
    let prepared = spec.prepare(&table).unwrap();
    let units = prepared
        .features(
            &table,
            &mut Selected::native(),
            &mut Timer::default(),
            |_| true,
        )
        .unwrap();
    if let Some(out) = prompts {
        let source = cfg.template.builtin_text().unwrap();
        let prompter = wavebench_core::prompt::Prompter::new(source).unwrap();
        let texts = prompter
            .render_all(&units, &cfg.description, 96, cfg.pred_len)
            .unwrap();
        wavebench::export::write_prompts(out, &units, &texts).unwrap();
    }
    if let Some(out) = features {
        let format = wavebench::export::FeatureFormat::for_path(out).unwrap();
        wavebench::export::write_features(out, format, &units, true).unwrap();
    }
}

/// `prompts` and `features` write a chunk of units at a time: over a file of several
/// chunks (and a batch aggregate whose batches could straddle one), every format's bytes
/// equal those of all units computed and written at once.
#[test]
fn streamed_records_equal_the_whole_runs() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    // 2,905 windows × 41 channels (the hour column is a channel too): 119,105 units, four
    // chunks.
    let data = made_file(dir.path(), 3_000, 40);
    let d = data.to_str().unwrap();
    let at = |name: &str| dir.path().join(name);
    for extra in [&[][..], &["--aggregate", "batch", "--batch-size", "5"][..]] {
        let args = |cmd: &str, out: &Path| {
            let mut a = vec![cmd, d, "--seq-len", "96", "--pred-len", "24", "-q"];
            a.extend_from_slice(extra);
            a.extend(
                ["--description", "made", "-o", out.to_str().unwrap()]
                    .iter()
                    .copied(),
            );
            a.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let run = |a: Vec<String>| in_process(&a.iter().map(String::as_str).collect::<Vec<_>>());
        run(args("prompts", &at("streamed.jsonl")));
        written_whole(&data, extra, Some(&at("whole.jsonl")), None);
        for ext in ["jsonl", "csv", "parquet"] {
            let streamed = at(&format!("streamed-features.{ext}"));
            let whole = at(&format!("whole-features.{ext}"));
            run(args("features", &streamed));
            written_whole(&data, extra, None, Some(&whole));
            let (s, w) = (
                std::fs::read(&streamed).unwrap(),
                std::fs::read(&whole).unwrap(),
            );
            assert!(!w.is_empty());
            assert!(
                s == w,
                "{extra:?} features .{ext}: {} streamed bytes, {} whole",
                s.len(),
                w.len()
            );
        }
        let (s, w) = (
            std::fs::read(at("streamed.jsonl")).unwrap(),
            std::fs::read(at("whole.jsonl")).unwrap(),
        );
        let lines = w.iter().filter(|&&b| b == b'\n').count();
        let want = match extra {
            [] => 2_905 * 41,
            _ => 2_905usize.div_ceil(5),
        };
        assert_eq!(lines, want, "{extra:?}: one prompt per unit");
        assert!(
            s == w,
            "{extra:?} prompts: {} streamed bytes, {} whole",
            s.len(),
            w.len()
        );
    }
}

/// A Parquet feature table of more units than a row group holds is whole when read back:
/// every unit once, in order.
#[test]
fn a_streamed_parquet_table_holds_every_unit_in_order() {
    use polars::prelude::*;
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    // 6,905 windows × 41 channels: 283,105 units, two row groups.
    let data = made_file(dir.path(), 7_000, 40);
    let out = dir.path().join("f.parquet");
    in_process(&[
        "features",
        data.to_str().unwrap(),
        "--seq-len",
        "96",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    let df = ParquetReader::new(std::fs::File::open(&out).unwrap())
        .finish()
        .unwrap();
    assert_eq!(df.height(), 6_905 * 41);
    let window = df.column("window").unwrap().u64().unwrap();
    let column = df.column("column").unwrap().str().unwrap();
    assert_eq!((window.len(), column.len()), (df.height(), df.height()));
    for i in 0..df.height() {
        let name = match i % 41 {
            0 => "hour".to_string(),
            c => format!("c{}", c - 1),
        };
        assert_eq!(window.get(i), Some((i / 41) as u64), "row {i}");
        assert_eq!(column.get(i), Some(name.as_str()), "row {i}");
    }
}

/// The peak heap of `args` run in this process, beyond what was in use before.
fn peak_of(args: &[&str]) -> usize {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    in_process(args);
    PEAK.load(Ordering::Relaxed).saturating_sub(before)
}

/// `prompts` and `features` hold a chunk of units, not the run: three times the units
/// add at most the larger table's bytes, where holding them would add kilobytes per unit.
#[test]
fn streamed_records_hold_a_chunk_not_the_run() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    for sub in ["small", "large"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    let small = made_file(&dir.path().join("small"), 3_000, 40);
    let large = made_file(&dir.path().join("large"), 9_000, 40);
    let units = |rows: usize| (rows - 96 + 1) * 41;
    let added = units(9_000) - units(3_000);
    for (cmd, out) in [("prompts", "/dev/null"), ("features", "f.jsonl")] {
        let out = match out {
            "/dev/null" => out.to_string(),
            name => dir.path().join(name).to_str().unwrap().to_string(),
        };
        let peak = |data: &Path| {
            peak_of(&[
                cmd,
                data.to_str().unwrap(),
                "--seq-len",
                "96",
                "-q",
                "-o",
                &out,
            ])
        };
        // A chunk's peak depends on how its pieces on the threads overlap (either file's
        // varied by 9 to 12 MB between runs of one build): the small file's larger of two
        // runs against the large one's smaller. Holding the run would add kilobytes per
        // unit, 250 MB here, far past the bound either way.
        let p_small = peak(&small).max(peak(&small));
        let p_large = peak(&large).min(peak(&large));
        // The larger table is 6,000 rows × 41 channels of f64 more: 2 MB. A chunk's pieces
        // in flight vary by up to ~11 MB between runs on a loaded 2-core machine (a fresh
        // clone's `make test`), so the bound leaves 16 MB for that: a tenth of what holding
        // the run's records would add.
        let bound = 16_000_000 + 32 * added;
        assert!(
            p_large < p_small + bound,
            "{cmd}: peak heap {p_small} bytes for {} units, {p_large} for {}: grew more than {bound}",
            units(3_000),
            units(9_000)
        );
    }
}
