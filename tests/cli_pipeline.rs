//! The real binary: `features`, `prompts`, `bench` and `--config` on sample data (SPEC §8),
//! and their bad input (SPEC §10): exit 2, one line, nothing left behind.

mod common;

use common::{assert_input_error, wavebench};
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
    let rows: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
        &header[..5],
        [
            "window",
            "start",
            "column",
            "energy_ratio_0",
            "energy_ratio_1"
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
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 32);
    let first = &lines[0];
    let prompt = first["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("<|start_prompt|>Dataset description: Known test data\nTask description: forecast the next 24 steps given the previous 128 steps information; \n"));
    assert!(prompt.ends_with("<|<end_prompt>|>"));
    // The prompt states the features next to it.
    let f: wavebench::features::Features =
        serde_json::from_value(first["features"].clone()).unwrap();
    let p = wavebench::prompt::Prompter::new(wavebench::prompt::builtin("dwt-detailed").unwrap())
        .unwrap();
    let again = p
        .render(&wavebench::prompt::PromptVars {
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
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
    assert!(
        runs[1]["host_syncs"].as_u64().unwrap() >= 1,
        "torch downloads once per chunk"
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
