//! The real binary: `features`, `prompts`, `bench` and `--config` on sample data (docs/cli.md),
//! and their bad input (docs/cli.md#exit-codes-and-errors): exit 2, one line, nothing left behind.

mod common;

use common::{assert_input_error, assert_input_error_after_warnings, wavebench};
use std::path::Path;
use std::process::Output;

const SAMPLE: &str = "sample_data/synthetic.csv";

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// JSON lines output, one value a line.
fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `wavebench prompts` over ETTh1 with `args` (then `-q -o DIR/name`): its JSON lines.
fn etth1_prompts(dir: &Path, name: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let data = common::etth1();
    let out = dir.join(name);
    let mut all = vec!["prompts", data.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-q", "-o", out.to_str().unwrap()]);
    ok(&wavebench(&all));
    json_lines(&std::fs::read_to_string(&out).unwrap())
}

/// A list of lags in a record, as numbers.
fn lag_list(v: &serde_json::Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap())
        .collect()
}

fn no_leftovers(dir: &Path) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
}

const WINDOWED: [&str; 6] = ["--rows", "0..600", "--seq-len", "128", "--stride", "64"];

#[test]
fn features_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = ok(&wavebench(
        &[&["features", SAMPLE, "-o", "-", "--quiet"][..], &WINDOWED].concat(),
    ));
    let rows: Vec<serde_json::Value> = json_lines(&jsonl);
    // 8 windows x 4 channels, one row per series.
    assert_eq!(rows.len(), 32);
    assert_eq!(rows[1]["column"], "noisy_seasonal");
    assert_eq!(rows[4]["window"], 1);
    assert_eq!(rows[4]["start"], 64);
    assert_eq!(rows[0]["energy_ratio"].as_array().unwrap().len(), 4);
    let sum: f64 = rows[0]["energy_ratio"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-9);
    // The clean seasonal channel is cleaner than the noisy one (known structure).
    assert!(rows[0]["snr_db"].as_f64().unwrap() > rows[1]["snr_db"].as_f64().unwrap());

    let csv = dir.path().join("f.csv");
    ok(&wavebench(
        &[
            &[
                "features",
                SAMPLE,
                "-o",
                csv.to_str().unwrap(),
                "--aggregate",
                "sample",
            ][..],
            &WINDOWED,
        ]
        .concat(),
    ));
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[..6],
        [
            "window",
            "start",
            "start_time",
            "column",
            "degenerate",
            "energy_ratio_0"
        ]
    );
    assert!(header.contains(&"lags_4") && header.contains(&"trends_sign_3"));
    assert_eq!(
        text.lines().count(),
        1 + 8,
        "one row per window for sample aggregation"
    );

    let pq = dir.path().join("f.parquet");
    ok(&wavebench(
        &[
            &[
                "features",
                SAMPLE,
                "-o",
                pq.to_str().unwrap(),
                "--aggregate",
                "batch",
                "--batch-size",
                "3",
            ][..],
            &WINDOWED,
        ]
        .concat(),
    ));
    use polars::prelude::SerReader;
    let df = polars::prelude::ParquetReader::new(std::fs::File::open(&pq).unwrap())
        .finish()
        .unwrap();
    assert_eq!(df.height(), 3, "8 windows in batches of 3");
    assert!(matches!(
        df.column("energy_ratio").unwrap().dtype(),
        polars::prelude::DataType::List(_)
    ));
    no_leftovers(dir.path());
}

#[test]
fn prompts_are_the_rendered_features() {
    let out = ok(&wavebench(
        &[
            &[
                "prompts",
                SAMPLE,
                "-o",
                "-",
                "--template",
                "dwt-detailed",
                "--description",
                "Known test data",
                "--pred-len",
                "24",
                "--quiet",
            ][..],
            &WINDOWED,
        ]
        .concat(),
    ));
    let lines: Vec<serde_json::Value> = json_lines(&out);
    assert_eq!(lines.len(), 32);
    let first = &lines[0];
    let prompt = first["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("<|start_prompt|>Dataset description: Known test data\nTask description: forecast the next 24 steps given the previous 128 steps information; \n"));
    assert!(prompt.ends_with("<|<end_prompt>|>"));
    // The prompt states the features next to it.
    let f: wavebench_core::features::Features =
        serde_json::from_value(first["features"].clone()).unwrap();
    let p = wavebench_core::prompt::Prompter::new(
        wavebench_core::prompt::builtin("dwt-detailed").unwrap(),
    )
    .unwrap();
    let again = p
        .render(&wavebench_core::prompt::PromptVars {
            features: &f,
            description: "Known test data",
            seq_len: 128,
            pred_len: 24,
        })
        .unwrap();
    assert_eq!(prompt, again);
}

#[test]
fn config_file_sets_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("run.toml");
    std::fs::write(&cfg, "wavelet = \"sym4\"\nlevel = 2\nmode = \"periodization\"\nseq_len = 64\nstride = 64\nrows = \"0..256\"\ncolumns = [\"regime\"]\ntemplate = \"dwt-minimal\"\ndescription = \"from toml\"\npred_len = 7\n").unwrap();
    let out = ok(&wavebench(&[
        "prompts",
        SAMPLE,
        "--config",
        cfg.to_str().unwrap(),
        "-o",
        "-",
        "--quiet",
    ]));
    let lines: Vec<serde_json::Value> = json_lines(&out);
    assert_eq!(lines.len(), 4);
    assert!(lines[0]["prompt"]
        .as_str()
        .unwrap()
        .starts_with("<|start_prompt|>from toml\nForecast 7 from 64: "));
    assert_eq!(
        lines[0]["features"]["energy_ratio"]
            .as_array()
            .unwrap()
            .len(),
        3,
        "level 2 from the file"
    );
    // Command-line options override the file.
    let out = ok(&wavebench(&[
        "prompts",
        SAMPLE,
        "--config",
        cfg.to_str().unwrap(),
        "--level",
        "1",
        "-o",
        "-",
        "--quiet",
    ]));
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["features"]["energy_ratio"].as_array().unwrap().len(),
        2
    );
    std::fs::write(&cfg, "wavelet = \"sym4\"\nlevle = 2\n").unwrap();
    assert_input_error(
        &wavebench(&[
            "features",
            SAMPLE,
            "--config",
            cfg.to_str().unwrap(),
            "-o",
            "-",
        ]),
        &["run.toml", "levle"],
    );
}

#[test]
fn bench_writes_the_spec_report() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    ok(&wavebench(
        &[
            &[
                "bench",
                SAMPLE,
                "--engines",
                "native,torch-cpu",
                "--repeat",
                "2",
                "-o",
                report.to_str().unwrap(),
                "--quiet",
            ][..],
            &WINDOWED,
        ]
        .concat(),
    ));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(v["config"]["wavelet"], "db4");
    assert!(v["machine"]["cores"].as_u64().unwrap() >= 1);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["engine"], "torch-cpu");
    assert_eq!(
        runs[1]["host_syncs"].as_u64(),
        Some(1),
        "torch downloads once per run"
    );
    assert_eq!(runs[0]["series"], 32);
    assert_eq!(runs[0]["length"], 128);
    let stages = runs[0]["stages"].as_object().unwrap();
    for s in [
        "load",
        "prepare",
        "upload",
        "decompose",
        "frequency",
        "trend",
        "quality",
        "statistics",
        "difficulty",
        "download",
        "render",
    ] {
        let st = &stages[s];
        assert!(
            st["min_ms"].as_f64().unwrap() <= st["median_ms"].as_f64().unwrap()
                && st["median_ms"].as_f64().unwrap() <= st["max_ms"].as_f64().unwrap(),
            "{s}"
        );
    }
    let share: f64 = stages.values().map(|s| s["share"].as_f64().unwrap()).sum();
    assert!((share - 1.0).abs() < 1e-6);
    assert!(runs[0]["series_per_s"].as_f64().unwrap() > 0.0);
    let md = ok(&wavebench(
        &[
            &[
                "bench",
                SAMPLE,
                "--engines",
                "native",
                "--repeat",
                "1",
                "--quiet",
            ][..],
            &WINDOWED,
        ]
        .concat(),
    ));
    assert!(md.contains("| decompose |"), "{md}");
}

#[test]
fn bench_variants_measure_the_seeds_proposals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Every channel alternates 1, 2, 1, 2, ...: window 0 and window 2 are the same bytes
    // (an exact cache hit even in the first epoch), window 1 is their mirror image with the
    // same mean, std, min and max (where the seed's statistics key confuses them).
    let rows: String = (0..40)
        .map(|i| {
            let v = if i % 2 == 0 { 1.0 } else { 2.0 };
            format!("{i},{v},{}\n", 3.0 * v)
        })
        .collect();
    let csv = file(d, "alt.csv", &format!("t,a,b\n{rows}"));
    let report = d.join("v.json");
    // 16-sample windows of haar at level 1: the seed's rule picks level 2.
    let run = |more: &[&str]| {
        let base = [
            "bench",
            &csv,
            "--engines",
            "native",
            "--seq-len",
            "16",
            "--level",
            "1",
            "--wavelet",
            "haar",
            "--quiet",
        ];
        wavebench(&[&base[..], more].concat())
    };
    ok(&run(&[
        "--variants",
        "baseline,cache,adaptive-level,bf16,batching",
        "--repeat",
        "1",
        "-o",
        report.to_str().unwrap(),
    ]));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["baseline", "cache", "adaptive-level", "bf16", "batching"]
    );
    let by = |n: &str| runs.iter().find(|r| r["variant"] == n).unwrap();
    // 25 windows x 2 channels, series aggregation.
    assert_eq!(by("baseline")["prompts"], 50);
    assert_eq!(by("baseline")["prompts_changed"], 0);
    // Caching and per-sample calls compute the same prompts.
    assert_eq!(by("cache")["prompts_changed"], 0);
    assert_eq!(by("batching")["prompts_changed"], 0);
    // Two epochs of 25 visits over 2 distinct windows: only 2 misses.
    let hit = by("cache")["cache_hit_rate"].as_f64().unwrap();
    assert!((hit - 48.0 / 50.0).abs() < 1e-12, "{hit}");
    assert!(by("cache")["seed_key_collisions"].as_u64().unwrap() >= 1);
    // Like with like: the cache's two epochs count every series twice.
    assert_eq!(by("baseline")["series"], 50);
    assert_eq!(by("cache")["series"], 100);
    // One call per window: the path said is that of all of them, not of the last call.
    for n in ["cache", "batching"] {
        assert_eq!(
            by(n)["path"],
            "per window (one window: nothing to slide over)",
            "{n}"
        );
    }
    // Level 2 (the seed's rule for 16 samples) describes these windows otherwise.
    assert!(by("adaptive-level")["prompts_changed"].as_u64().unwrap() > 0);
    for r in runs {
        assert!(r["total_ms"].as_f64().unwrap() > 0.0, "{r}");
    }
    // Batch aggregation has no per-sample meaning for these two.
    let o = run(&["--aggregate", "batch", "--variants", "cache"]);
    assert_input_error(&o, &["--variants cache", "aggregate series or sample"]);
    let o = wavebench(&["bench", &csv, "--variants", "lru", "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("adaptive-level"));
}

#[test]
fn pipeline_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("p.jsonl");
    let o = out.to_str().unwrap();
    // Level above the maximum for the window: named, with the maximum.
    assert_input_error(
        &wavebench(&[
            "features",
            SAMPLE,
            "--seq-len",
            "20",
            "--level",
            "3",
            "-o",
            o,
        ]),
        &["level 3", "maximum level 1", "db4"],
    );
    let bad = d.join("bad.jinja");
    std::fs::write(&bad, "ok {{ min }}\nbroken {{ max | f(\".2f\") \n").unwrap();
    assert_input_error(
        &wavebench(
            &[
                &[
                    "prompts",
                    SAMPLE,
                    "--template",
                    bad.to_str().unwrap(),
                    "-o",
                    o,
                ][..],
                &WINDOWED,
            ]
            .concat(),
        ),
        &["bad.jinja", "line 2"],
    );
    let unknown = d.join("unknown.jinja");
    std::fs::write(&unknown, "{{ no_such_feature }}").unwrap();
    assert_input_error(
        &wavebench(
            &[
                &[
                    "prompts",
                    SAMPLE,
                    "--template",
                    unknown.to_str().unwrap(),
                    "-o",
                    o,
                ][..],
                &WINDOWED,
            ]
            .concat(),
        ),
        &["undefined", "line 1"],
    );
    assert_input_error(
        &wavebench(&["prompts", SAMPLE, "--template", "dwt-fancy", "-o", o]),
        &["dwt-fancy", "dwt-balanced"],
    );
    assert_input_error(
        &wavebench(&["prompts", SAMPLE, "--aggregate", "window", "-o", o]),
        &["--aggregate", "window"],
    );
    assert_input_error(
        &wavebench(&["features", SAMPLE, "-o", d.join("f.xlsx").to_str().unwrap()]),
        &["f.xlsx", ".parquet"],
    );
    assert_input_error(
        &wavebench(&["features", "sample_data/synthetic_gaps.csv", "-o", o]),
        &["synthetic_gaps.csv", "row", "missing"],
    );
    assert!(!out.exists(), "a failed run leaves no output");
    no_leftovers(d);
    // Odd but valid input is computed: a constant series, a single window, a single column.
    let constant = d.join("constant.csv");
    std::fs::write(&constant, format!("x\n{}", "5\n".repeat(64))).unwrap();
    let rows = ok(&wavebench(&[
        "features",
        constant.to_str().unwrap(),
        "-o",
        "-",
        "--quiet",
    ]));
    let v: serde_json::Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(
        v["energy_ratio"],
        serde_json::json!([0.25, 0.25, 0.25, 0.25])
    );
    assert_eq!(rows.lines().count(), 1);
}

/// Write `name` in `dir` and return its path as text.
fn file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// `n` hourly rows of two smooth channels.
fn series_csv(n: usize, first_date_hour: usize) -> String {
    let mut s = String::from("date,volts,amps\n");
    for i in 0..n {
        let h = first_date_hour + i;
        s += &format!(
            "2021-01-{:02} {:02}:00:00,{:.4},{:.4}\n",
            1 + h / 24,
            h % 24,
            (i as f64 * 0.3).sin() + 0.01 * i as f64,
            (i as f64 * 0.11).cos()
        );
    }
    s
}

#[test]
fn text_cells_and_empty_columns_are_never_dropped_in_silence() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rows: Vec<String> = (0..80)
        .map(|i| format!("{i},{}.5,{}", i % 7, i % 5))
        .collect();
    rows[3] = "3,n/a?,1".into();
    let text = file(
        d,
        "volts.csv",
        &format!("t,volts,amps\n{}\n", rows.join("\n")),
    );
    // Refused by default: file, column, both row numberings and the cell.
    assert_input_error(
        &wavebench(&["features", &text, "-o", "-"]),
        &[
            "volts.csv",
            "'volts'",
            "data row 3",
            "line 5",
            "'n/a?'",
            "--missing",
        ],
    );
    // Read as missing under another policy, with one warning giving the count.
    let o = wavebench(&[
        "features",
        &text,
        "--missing",
        "interpolate",
        "-o",
        "-",
        "--quiet",
    ]);
    let out = ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'volts'") && err.contains("1 non-numeric cell"),
        "{err}"
    );
    let columns: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["column"].to_string())
        .collect();
    assert_eq!(
        columns,
        ["\"volts\"", "\"amps\""],
        "volts kept, t is the time axis"
    );

    // A column without any number: refused under error, skipped with a warning otherwise.
    let empty = file(
        d,
        "empty.csv",
        &format!(
            "x,note\n{}",
            (0..80).map(|i| format!("{i}.5,\n")).collect::<String>()
        ),
    );
    assert_input_error(
        &wavebench(&["features", &empty, "-o", "-"]),
        &["empty.csv", "'note'", "no numbers"],
    );
    let o = wavebench(&[
        "features",
        &empty,
        "--missing",
        "zero",
        "-o",
        "-",
        "--quiet",
    ]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("'note'") && err.contains("skipped"), "{err}");
}

#[test]
fn the_index_column_is_the_time_axis_and_records_carry_start_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let idx = file(
        d,
        "idx.csv",
        &format!(
            "t,x\n{}",
            (0..100)
                .map(|i| format!("{},{:.3}\n", 1000 + 2 * i, (i as f64 * 0.2).sin()))
                .collect::<String>()
        ),
    );
    let out = ok(&wavebench(&[
        "features",
        &idx,
        "--seq-len",
        "64",
        "--stride",
        "30",
        "-o",
        "-",
        "--quiet",
    ]));
    let rows: Vec<serde_json::Value> = json_lines(&out);
    assert_eq!(rows.len(), 2, "t is not a channel: 2 windows × 1 channel");
    assert!(rows.iter().all(|r| r["column"] == "x"));
    assert_eq!(rows[1]["start"], 30);
    assert_eq!(rows[1]["start_time"], "1060");
    // --time-column none: the counter is a channel again, start_time the row number.
    let out = ok(&wavebench(&[
        "features",
        &idx,
        "--seq-len",
        "64",
        "--stride",
        "30",
        "--time-column",
        "none",
        "-o",
        "-",
        "--quiet",
    ]));
    let rows: Vec<serde_json::Value> = json_lines(&out);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["column"], "t");
    assert_eq!(rows[2]["start_time"], "30");
    assert_input_error(
        &wavebench(&["features", &idx, "--time-column", "tt", "-o", "-"]),
        &["--time-column", "'tt'", "t, x"],
    );

    // Dates: ISO 8601 in JSONL, CSV and Parquet alike.
    let dated = file(d, "dated.csv", &series_csv(100, 5));
    let csv_out = d.join("f.csv");
    ok(&wavebench(&[
        "features",
        &dated,
        "--seq-len",
        "64",
        "--stride",
        "30",
        "--columns",
        "amps",
        "-o",
        csv_out.to_str().unwrap(),
        "--quiet",
    ]));
    let mut reader = csv::Reader::from_path(&csv_out).unwrap();
    let header = reader.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 2);
    assert_eq!(header.len(), records[1].len());
    let at = header.iter().position(|h| h == "start_time").unwrap();
    assert_eq!(
        &records[1][at], "2021-01-02T11:00:00",
        "row 30 is 5 + 30 hours in"
    );
    // An index column beside the dates: the dates are the time axis, the index is said
    // to be skipped.
    let both = file(
        d,
        "both.csv",
        &series_csv(100, 0)
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    format!("t,{l}\n")
                } else {
                    format!("{},{l}\n", i - 1)
                }
            })
            .collect::<String>(),
    );
    let o = wavebench(&[
        "features",
        &both,
        "--seq-len",
        "64",
        "--stride",
        "64",
        "-o",
        "-",
        "--quiet",
    ]);
    let rows: Vec<serde_json::Value> = json_lines(&ok(&o));
    assert_eq!(rows.len(), 2, "volts and amps, not t");
    assert_eq!(rows[0]["start_time"], "2021-01-01T00:00:00");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("'t'") && err.contains("not used as a channel"),
        "{err}"
    );
    let pq = d.join("f.parquet");
    ok(&wavebench(&[
        "features",
        &dated,
        "--seq-len",
        "64",
        "--stride",
        "30",
        "-o",
        pq.to_str().unwrap(),
        "--quiet",
    ]));
    use polars::prelude::SerReader;
    let df = polars::prelude::ParquetReader::new(std::fs::File::open(&pq).unwrap())
        .finish()
        .unwrap();
    let st = df
        .column("start_time")
        .unwrap()
        .str()
        .unwrap()
        .get(0)
        .unwrap()
        .to_string();
    assert_eq!(st, "2021-01-01T05:00:00");
}

#[test]
fn a_folder_or_glob_is_a_data_set_and_shards_concatenate_to_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    file(&set, "a.csv", &series_csv(150, 0));
    // Other columns in the second file: each file its own channels.
    file(
        &set,
        "b.csv",
        &series_csv(90, 0).replace("volts,amps", "volts,watts"),
    );
    file(&set, "c.csv", &series_csv(200, 0));
    file(&set, ".hidden.csv", "not,data\n");
    file(&set, "notes.md", "# not data");
    let s = set.to_str().unwrap();
    let shape = ["--seq-len", "64", "--stride", "8", "--quiet"];
    let whole = ok(&wavebench(
        &[&["prompts", s, "-o", "-"][..], &shape].concat(),
    ));
    let rows: Vec<serde_json::Value> = json_lines(&whole);
    // Windows never cross a file: (150-64)/8+1 = 11, (90-64)/8+1 = 4, (200-64)/8+1 = 18.
    assert_eq!(rows.len(), (11 + 4 + 18) * 2);
    let files: Vec<&str> = rows.iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(files.iter().filter(|f| **f == "a.csv").count(), 22);
    assert_eq!(files.iter().filter(|f| **f == "b.csv").count(), 8);
    assert!(rows.iter().any(|r| r["column"] == "watts"));
    // A glob names the same set.
    let glob = format!("{s}/*.csv");
    assert_eq!(
        ok(&wavebench(
            &[&["prompts", &glob, "-o", "-"][..], &shape].concat()
        )),
        whole
    );
    // Shards, concatenated in order, are the whole run, byte for byte; also on batches.
    for extra in [&[][..], &["--aggregate", "batch", "--batch-size", "5"][..]] {
        let whole = ok(&wavebench(
            &[&["prompts", s, "-o", "-"][..], &shape, extra].concat(),
        ));
        for n in [1, 3, 7] {
            let joined: String = (1..=n)
                .map(|i| {
                    let shard = format!("{i}/{n}");
                    ok(&wavebench(
                        &[
                            &["prompts", s, "-o", "-", "--shard", &shard][..],
                            &shape,
                            extra,
                        ]
                        .concat(),
                    ))
                })
                .collect();
            assert_eq!(joined, whole, "{n} shards {extra:?}");
        }
    }
    assert_input_error(
        &wavebench(&["prompts", s, "--shard", "4/3", "-o", "-"]),
        &["--shard", "4/3"],
    );
    // A bad file stops the run with its name, or is skipped with a warning.
    file(&set, "d.csv", "volts\n1\n2\n");
    assert_input_error(
        &wavebench(&[&["prompts", s, "-o", "-"][..], &shape].concat()),
        &["d.csv", "--seq-len 64"],
    );
    let o = wavebench(&[&["prompts", s, "-o", "-", "--skip-bad-files"][..], &shape].concat());
    assert_eq!(ok(&o), whole);
    assert!(String::from_utf8_lossy(&o.stderr).contains("d.csv"));
    // Every file bad (windows longer than any): each skip names its file, though the
    // error names only an option, and the run fails instead of writing nothing (it
    // exited 0 with an empty output, and the skips named no file).
    let out = dir.path().join("none.jsonl");
    let o = wavebench(&[
        "prompts",
        s,
        "--seq-len",
        "5000",
        "--skip-bad-files",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_input_error_after_warnings(&o, &["every file was skipped", "--skip-bad-files"]);
    let err = String::from_utf8_lossy(&o.stderr);
    for name in ["a.csv", "b.csv", "c.csv", "d.csv"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("wavebench: skipping a bad file: ") && l.contains(name)),
            "{name} not named: {err}"
        );
    }
    assert!(!out.exists(), "nothing is written");
}

/// A sweep over a data set takes `--skip-bad-files` as the other commands do: each bad
/// file (unreadable, or too short for a window) is skipped and named, the others are
/// swept, and a set whose every file is bad is refused after its skips are said (the
/// sweep took the option and ignored it: the first bad file stopped it).
#[test]
fn a_sweep_skips_bad_files_and_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let sweep = |seq_len: &str| {
        wavebench(&[
            "sweep",
            "sample_data/*.csv",
            "--seq-len",
            seq_len,
            "--wavelets",
            "db2",
            "--levels",
            "1",
            "--skip-bad-files",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let o = sweep("512");
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{err}");
    let skipped: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("wavebench: skipping a bad file: sample_data/"))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(
        skipped,
        ["co2.csv", "nile.csv", "sunspots.csv", "synthetic_gaps.csv"],
        "{err}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let files: Vec<&str> = report["split"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["ETTh1.csv", "elnino.csv", "synthetic.csv"]);
    std::fs::remove_file(&out).unwrap();
    let o = sweep("50000");
    assert_input_error_after_warnings(&o, &["every file was skipped", "--skip-bad-files"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("skipping a bad file"))
            .count(),
        7
    );
    assert!(!out.exists(), "nothing is written");
}

/// The Markdown report says what each variant runs (batching is one call per sample) and
/// why `trend` and `quality` read 0 ms on the native engine.
/// On the sliding path the feature values beside the prompts differ from the per-window
/// path's in their last digits; they are still the same bits in every split of the run:
/// shards (starting anywhere, not on a task boundary), concatenated, are the whole run.
#[test]
fn sliding_shards_concatenate_to_the_whole_run_feature_values_too() {
    let shape = [
        "prompts",
        "sample_data/ETTh1.csv",
        "--rows",
        "0..2000",
        "--seq-len",
        "96",
        "--columns",
        "HUFL,OT",
        "--quiet",
        "-o",
        "-",
    ];
    let run = |extra: &[&str]| ok(&wavebench(&[&shape[..], extra].concat()));
    let whole = run(&["--path", "sliding"]);
    assert_eq!(whole.lines().count(), 1905 * 2);
    // The run did slide: its feature values are not the per-window path's.
    let per_window = run(&["--path", "window"]);
    assert_eq!(per_window.lines().count(), whole.lines().count());
    assert_ne!(per_window, whole);
    for n in [3, 7] {
        let joined: String = (1..=n)
            .map(|i| run(&["--path", "sliding", "--shard", &format!("{i}/{n}")]))
            .collect();
        assert_eq!(joined.lines().count(), whole.lines().count(), "{n} shards");
        assert!(joined == whole, "{n} shards differ from the whole run");
    }
}

/// `--path auto` tries the sliding path on the first chunk and keeps it only where it
/// settles most prompts: a channel that is mostly zero (every constant window is computed
/// again) goes window by window after the sample, and the report says why; a smooth
/// channel slides. `--path sliding` slides regardless.
#[test]
fn auto_path_slides_only_where_the_sample_says_it_pays() {
    let dir = tempfile::tempdir().unwrap();
    let csv: String = std::iter::once("t,rain,temp\n".to_string())
        .chain((0..9000).map(|i| {
            let rain = if i % 1000 < 900 {
                0.0
            } else {
                0.1 * ((i * 7) % 3) as f64
            };
            format!("{i},{rain},{}\n", 10.0 + (i as f64 / 20.0).sin())
        }))
        .collect();
    let data = file(dir.path(), "weather.csv", &csv);
    let report = |column: &str, path: &str| {
        ok(&wavebench(&[
            "bench",
            &data,
            "--columns",
            column,
            "--seq-len",
            "96",
            "--engines",
            "native",
            "--repeat",
            "1",
            "--path",
            path,
        ]))
    };
    let rain = report("rain", "auto");
    assert!(
        rain.contains("per window (auto: sliding recomputed")
            && rain.contains("of the first 139 windows, so the rest went window by window"),
        "{rain}"
    );
    assert!(report("rain", "sliding").contains("Band summaries: sliding ("));
    let temp = report("temp", "auto");
    assert!(temp.contains("Band summaries: sliding ("), "{temp}");
}

/// Dates written year last are read when the column's values tell day from month
/// (`31.1.2020`, `1/31/2020 0:00`), refused naming the column when none does, and a time
/// column that holds something else keeps its cells as labels with a warning naming the
/// first one, never in silence.
#[test]
fn year_last_dates_are_told_apart_by_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str, date: &dyn Fn(usize, usize) -> String| {
        let rows: String = (0..200)
            .map(|i| {
                format!(
                    "{},{}\n",
                    date(1 + i % 28, 1 + (i / 28) % 12),
                    (i as f64 / 5.0).sin()
                )
            })
            .collect();
        file(dir.path(), name, &format!("date,a\n{rows}"))
    };
    let starts = |path: &str| -> (Vec<String>, String) {
        let o = wavebench(&[
            "prompts",
            path,
            "--seq-len",
            "96",
            "--stride",
            "50",
            "-o",
            "-",
        ]);
        let text = ok(&o);
        let times = json_lines(&text)
            .iter()
            .map(|r| r["start_time"].as_str().unwrap().to_string())
            .collect();
        (times, String::from_utf8_lossy(&o.stderr).to_string())
    };
    // Row 50 is day 23 of month 2.
    let (dmy, quiet) = starts(&make("dmy.csv", &|d, m| format!("{d}.{m}.2020")));
    assert_eq!(dmy[..2], ["2020-01-01", "2020-02-23"]);
    assert!(!quiet.contains("date"), "{quiet}");
    let (mdy, _) = starts(&make("mdy.csv", &|d, m| format!("{m}/{d}/2020 0:00")));
    assert_eq!(mdy[..2], ["2020-01-01T00:00:00", "2020-02-23T00:00:00"]);
    let amb = make("amb.csv", &|d, m| format!("{}/{m}/2020", 1 + d % 12));
    assert_input_error(
        &wavebench(&["prompts", &amb, "--seq-len", "96", "-o", "-"]),
        &["amb.csv", "column 'date'", "'2/1/2020'", "year first"],
    );
    let (labels, warned) = starts(&make("weeks.csv", &|d, m| format!("week {m}-{d}")));
    assert_eq!(labels[0], "week 1-1");
    assert!(
        warned.contains("column 'date'") && warned.contains("'week 1-1' is not a date"),
        "{warned}"
    );
}

#[test]
fn the_report_says_what_its_numbers_mean() {
    let etth1 = common::etth1();
    let o = common::wavebench(&[
        "bench",
        etth1.to_str().unwrap(),
        "--columns",
        "OT",
        "--rows",
        "0..700",
        "--seq-len",
        "512",
        "--engines",
        "native",
        "--repeat",
        "1",
        "--variants",
        "baseline,batching",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(
        md.contains("Variant **batching**: One engine call per sample instead of one per batch"),
        "{md}"
    );
    assert_eq!(
        md.matches("`trend` and `quality` read 0 ms because their sums are taken inside")
            .count(),
        2,
        "{md}"
    );
}

/// A stretch of zeros (a dry spell in a rain column) makes constant windows: their prompts
/// say "constant input" instead of band claims and lags, their records are flagged, the
/// run says how many in one line; `--seed-compatible` gives the seed's wording back and
/// changes nothing else.
#[test]
fn constant_windows_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, seq) = (200usize, 32usize);
    let rain: Vec<f64> = (0..rows)
        .map(|i| {
            if i < 100 {
                0.0
            } else {
                ((i * 37) % 11) as f64 * 0.1
            }
        })
        .collect();
    let mut text = String::from("t,rain,temp\n");
    for (i, r) in rain.iter().enumerate() {
        text += &format!("{i},{r},{:.4}\n", (i as f64 * 0.2).sin() + 0.003 * i as f64);
    }
    let input = file(dir.path(), "weather.csv", &text);
    // The windows whose rain values are all equal, counted here from the values.
    let windows = rows - seq + 1;
    let constant: Vec<usize> = (0..windows)
        .filter(|&w| rain[w..w + seq].iter().all(|&v| v == rain[w]))
        .collect();
    assert_eq!(constant.len(), 100 - seq + 1, "the reference count");

    let run = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let mut args = vec!["prompts", &input, "--seq-len", "32", "--level", "2", "-q"];
        args.extend_from_slice(extra);
        let o_str = out.to_str().unwrap().to_string();
        args.extend_from_slice(&["-o", &o_str]);
        let o = wavebench(&args);
        ok(&o);
        let lines = json_lines(&std::fs::read_to_string(&out).unwrap());
        (lines, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (lines, err) = run("new.jsonl", &[]);
    assert_eq!(lines.len(), 2 * windows, "two channels per window");
    let flagged: Vec<usize> = lines
        .iter()
        .filter(|l| l["features"]["degenerate"] == "constant")
        .map(|l| {
            assert_eq!(l["column"], "rain", "{l}");
            l["window"].as_u64().unwrap() as usize
        })
        .collect();
    assert_eq!(flagged, constant);
    let n = constant.len();
    assert_eq!(
        err.matches(&format!(
            "{n} of {} prompts describe a constant window ('rain' {n})",
            2 * windows
        ))
        .count(),
        1,
        "{err}"
    );
    let first = lines
        .iter()
        .find(|l| l["features"]["degenerate"] == "constant")
        .unwrap();
    let prompt = first["prompt"].as_str().unwrap();
    assert!(
        prompt.ends_with("Input statistics: range [0.00, 0.00], median 0.00\nPattern analysis: constant input\nDominant periodicities: none<|<end_prompt>|>"),
        "{prompt}"
    );
    assert_eq!(first["features"]["signal_quality"], "constant input");
    assert_eq!(first["features"]["lags"], serde_json::json!([]));
    // Every other record has the flag as null.
    assert!(lines
        .iter()
        .filter(|l| l["features"]["degenerate"] != "constant")
        .all(|l| l["features"]["degenerate"].is_null()));

    // The seed's wording: band claims for the same windows, nothing flagged or said, and
    // every other prompt byte for byte the same.
    let (seed, err) = run("seed.jsonl", &["--seed-compatible"]);
    assert!(!err.contains("constant"), "{err}");
    assert_eq!(seed.len(), lines.len());
    for (a, b) in lines.iter().zip(&seed) {
        assert!(b["features"]["degenerate"].is_null(), "{b}");
        if a["features"]["degenerate"].is_null() {
            assert_eq!(a, b);
        } else {
            let p = b["prompt"].as_str().unwrap();
            assert!(p.contains("Pattern analysis: multi-scale complex"), "{p}");
            assert!(p.contains("Dominant periodicities: [0, 1, 2]"), "{p}");
        }
    }

    // Time-LLM's template drops its trend and lag claims for them.
    let (tl, _) = run("timellm.jsonl", &["--template", "timellm"]);
    let p = tl[2 * constant[0]]["prompt"].as_str().unwrap();
    assert_eq!(tl[2 * constant[0]]["column"], "rain");
    assert!(
        p.ends_with(
            "min value 0.0, max value 0.0, median value 0.0, the input is constant<|<end_prompt>|>"
        ),
        "{p}"
    );

    // A window is one unit with --aggregate sample: constant only if every channel is.
    let (sample, err) = run("sample.jsonl", &["--aggregate", "sample"]);
    assert_eq!(sample.len(), windows);
    assert!(sample.iter().all(|l| l["features"]["degenerate"].is_null()));
    assert!(!err.contains("constant"), "{err}");

    // The feature table has the flag as a column.
    let csv_out = dir.path().join("f.csv");
    ok(&wavebench(&[
        "features",
        &input,
        "--seq-len",
        "32",
        "--level",
        "2",
        "-q",
        "-o",
        csv_out.to_str().unwrap(),
    ]));
    let mut reader = csv::Reader::from_path(&csv_out).unwrap();
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "degenerate").unwrap();
    let col = header.iter().position(|h| h == "column").unwrap();
    let cells: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[col].to_string(), r[at].to_string())
        })
        .collect();
    assert_eq!(cells.len(), 2 * windows);
    assert_eq!(cells.iter().filter(|(_, d)| d == "constant").count(), n);
    assert!(cells
        .iter()
        .all(|(c, d)| d.is_empty() || (d == "constant" && c == "rain")));
}

/// A level too deep for the window flags every record "level".
#[test]
fn a_degenerate_level_flags_every_record() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.jsonl");
    let o = wavebench(&[
        "features",
        SAMPLE,
        "--rows",
        "0..300",
        "--seq-len",
        "256",
        "--wavelet",
        "haar",
        "--level",
        "8",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    ok(&o);
    let lines = json_lines(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(lines.len(), 45 * 4);
    assert!(
        lines.iter().all(|l| l["degenerate"] == "level"),
        "{}",
        lines[0]
    );
}

/// `--lags clean`: the prompts' periodicities are lags 1..=T/2 (no lag 0, no mirror lag
/// T-k), the same on both CPU engines; records carry both lists whatever the choice.
#[test]
fn clean_lags_leave_out_lag_zero_and_the_mirrors() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "--rows",
            "0..1200",
            "--seq-len",
            "96",
            "--stride",
            "24",
            "--level",
            "2",
            "--template",
            "dwt-detailed",
        ];
        args.extend_from_slice(extra);
        etth1_prompts(dir.path(), name, &args)
    };
    let timellm = run("timellm.jsonl", &[]);
    let clean = run("clean.jsonl", &["--lags", "clean"]);
    let torch = run("torch.jsonl", &["--lags", "clean", "--engine", "torch-cpu"]);
    assert_eq!(timellm.len(), ((1200 - 96) / 24 + 1) * 7);
    assert_eq!(timellm.len(), clean.len());
    assert_eq!(clean.len(), torch.len());
    let mut with_zero = 0;
    for ((t, c), g) in timellm.iter().zip(&clean).zip(&torch) {
        let (tf, cf) = (&t["features"], &c["features"]);
        // Both lists in every record; the choice decides which one `lags` is.
        assert_eq!(tf["lags_clean"], cf["lags_clean"]);
        assert_eq!(cf["lags"], cf["lags_clean"]);
        let kept = lag_list(&cf["lags"]);
        assert_eq!(kept.len(), 5, "{c}");
        assert!(kept.iter().all(|&k| (1..=48).contains(&k)), "{kept:?}");
        with_zero += usize::from(lag_list(&tf["lags"]).contains(&0));
        let printed = format!(
            "top periodicities are [{}]",
            kept.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(c["prompt"].as_str().unwrap().contains(&printed), "{c}");
        assert_eq!(
            c["prompt"], g["prompt"],
            "torch-cpu ranks the same clean lags"
        );
    }
    // Time-LLM's own lists start at lag 0 in (nearly) every window.
    assert!(with_zero * 10 >= timellm.len() * 9, "{with_zero}");
}

/// `--lags peaks`: the prompts' periodicities are the autocorrelation's local maxima, the
/// same on both CPU engines (torch ranks them on the device), each checked against the
/// record's own clean lags, and on ETTh1's hourly loads they find the day.
#[test]
fn peaks_are_local_maxima_and_find_the_daily_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "--rows",
            "0..2400",
            "--seq-len",
            "336",
            "--stride",
            "48",
            "--template",
            "dwt-detailed",
            "--lags",
            "peaks",
        ];
        args.extend_from_slice(extra);
        etth1_prompts(dir.path(), name, &args)
    };
    let native = run("native.jsonl", &[]);
    let torch = run("torch.jsonl", &["--engine", "torch-cpu"]);
    assert_eq!(native.len(), ((2400 - 336) / 48 + 1) * 7);
    assert_eq!(native.len(), torch.len());
    let mut daily = 0;
    for (n, t) in native.iter().zip(&torch) {
        assert_eq!(n["prompt"], t["prompt"], "torch-cpu ranks the same peaks");
        let f = &n["features"];
        let peaks = lag_list(&f["lags"]);
        assert!(peaks.len() <= 5, "{peaks:?}");
        // Local maxima strictly inside 1..T/2, so never lag 0, a mirror or T/2.
        assert!(peaks.iter().all(|&k| (1..168).contains(&k)), "{peaks:?}");
        // A day or a whole number of days, give or take an hour (a trend shifts a peak).
        daily += usize::from(
            peaks
                .first()
                .is_some_and(|&k| [23, 0, 1].contains(&(k % 24))),
        );
        let printed = format!(
            "top periodicities are [{}]",
            peaks
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        if f["degenerate"].is_null() {
            assert!(n["prompt"].as_str().unwrap().contains(&printed), "{n}");
        }
    }
    // ETTh1 is hourly with a daily load cycle: in most windows the first peak is a day or
    // a few (261 of 308 when this was written; the clean lists read [1, 2, 3, 4, 5]).
    assert!(daily * 4 > native.len() * 3, "{daily} of {}", native.len());
}
