//! The sweep at scale (docs/cli.md#sharded-sweeps): shards merged equal one process's
//! sweep byte for byte, merging refuses parts of other sweeps and missing or repeated
//! parts, the local stand-in for a cluster (`xargs -P` over shards, then `sweep merge`)
//! works as documented, and a sweep's memory grows by bytes per unit, not kilobytes.

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

fn sweep_to(data: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(GRID);
    args.extend_from_slice(extra);
    run_ok(&args);
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

#[test]
fn merging_refuses_parts_of_other_sweeps_and_missing_or_repeated_ones() {
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
    let o = wavebench(
        &[
            &[
                "sweep",
                data.to_str().unwrap(),
                "-q",
                "-o",
                p1.to_str().unwrap(),
            ][..],
            GRID,
            &["--shard", "1/2", "--write-config", "c.toml"],
        ]
        .concat(),
    );
    assert_input_error(&o, &["--write-config", "sweep merge"]);
    let o = wavebench(
        &[
            &[
                "sweep",
                data.to_str().unwrap(),
                "-q",
                "-o",
                p1.to_str().unwrap(),
            ][..],
            GRID,
            &["--shard", "4/3"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(2));
}

/// docs/cli.md's local stand-in for a cluster, as written there.
#[test]
fn the_documented_local_stand_in_merges_to_the_whole_sweep() {
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
/// classes, prompt hashes), never whole features or prompt texts: its peak heap grows by
/// bytes per unit. Before, every scored unit's features (~500 B) and prompt (~600 B) were
/// held at once, over 1 kB per scored unit.
#[test]
fn a_sweeps_memory_grows_by_bytes_per_unit() {
    use std::sync::Arc;
    use wavebench::sweep::Request;
    use wavebench_core::config::Config;
    use wavebench_core::prompt::Prompter;
    use wavebench_core::run_spec::{Purpose, RunSpec};
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
    let scored = s.units[1] + s.units[2];
    assert!(scored > 100_000, "{scored} scored units: too few to tell");
    // A chunk of features in flight (~32k units of ~1 kB), then bytes per unit.
    let bound = 48_000_000 + 160 * units;
    assert!(
        grown < bound,
        "the sweep's heap grew {grown} bytes for {units} units ({scored} scored): bound {bound}"
    );
    assert_eq!(s.rows.len(), 1);
}
