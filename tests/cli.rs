//! The real binary: `wavelets` and `decompose` per docs/cli.md, exit codes and one-line errors
//! per §10, and no file left behind by a failed run.

mod common;

use common::{assert_input_error, wavebench};

use std::path::Path;
use std::process::Output;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// A failure: exit 2, exactly one line on stderr, containing every `needle`.

#[test]
fn wavelets_lists_all_106_as_table_and_json() {
    let o = wavebench(&["wavelets"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 107, "header + 106");
    assert!(text
        .lines()
        .any(|l| l.starts_with("db4 ") && l.contains(" 8 ")));
    let o = wavebench(&["wavelets", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let list = v["wavelets"].as_array().unwrap();
    assert_eq!(list.len(), 106);
    let bior = list.iter().find(|w| w["name"] == "bior2.2").unwrap();
    assert_eq!(bior["orthogonal"], false);
    assert_eq!(bior["family"], "bior");
}

#[test]
fn decompose_writes_the_spec_json_matching_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let x: Vec<f64> = common::lcg_series(42, 100);
    let csv = std::iter::once("a,b".to_string())
        .chain(x.iter().map(|v| format!("{v},{}", -v)))
        .collect::<Vec<_>>()
        .join("\n");
    let input = write(dir.path(), "in.csv", &csv);
    let out = dir.path().join("out.json");
    let o = wavebench(&[
        "decompose",
        &input,
        "--dtype",
        "f64",
        "--engine",
        "native",
        "--wavelet",
        "sym5",
        "--level",
        "2",
        "--mode",
        "periodization",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let keys: Vec<usize> = [
        "\"wavelet\"",
        "\"mode\"",
        "\"level\"",
        "\"dtype\"",
        "\"engine\"",
        "\"series\"",
    ]
    .iter()
    .map(|k| text.find(k).unwrap())
    .collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "keys in the spec's order"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["wavelet"], "sym5");
    assert_eq!(v["mode"], "periodization");
    assert_eq!(v["dtype"], "f64");
    assert_eq!(v["engine"], "native");
    let series = v["series"].as_array().unwrap();
    assert_eq!(series.len(), 2);
    assert_eq!(series[1]["column"], "b");
    let coeffs = series[0]["coeffs"].as_array().unwrap();
    // periodization: 100 -> 50 -> 25
    let lens: Vec<usize> = coeffs.iter().map(|c| c.as_array().unwrap().len()).collect();
    assert_eq!(lens, [25, 25, 50]);
    // Same numbers as the library computes, and column b is the negation of a.
    let plan = wavebench_core::engine::Plan::new(
        wavebench_core::wavelet::lookup("sym5").unwrap(),
        "periodization".parse().unwrap(),
        2,
        100,
    )
    .unwrap();
    let want = wavebench_core::engine::native::decompose(&x, &plan);
    let got: Vec<f64> = coeffs
        .iter()
        .flat_map(|c| c.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
        .collect();
    assert_eq!(got.len(), want.len());
    // Equal up to the last ulp (the CSV round trip goes through polars' float parser).
    assert!(got
        .iter()
        .zip(&want)
        .all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs().max(1.0)));
    let neg: Vec<f64> = series[1]["coeffs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
        .collect();
    assert!(got.iter().zip(&neg).all(|(a, b)| (a + b).abs() < 1e-12));
}

#[test]
fn decompose_to_stdout_with_windows() {
    let o = wavebench(&[
        "decompose",
        "sample_data/synthetic.csv",
        "--columns",
        "regime",
        "--rows",
        "0..64",
        "--seq-len",
        "32",
        "--stride",
        "16",
        "--level",
        "1",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let series = v["series"].as_array().unwrap();
    assert_eq!(series.len(), 3, "windows at 0, 16, 32");
    assert_eq!(series[2]["start"], 32);
    assert_eq!(v["dtype"], "f32");
}

#[test]
fn level_above_max_is_computed_with_a_warning() {
    let o = wavebench(&[
        "decompose",
        "sample_data/synthetic.csv",
        "--columns",
        "regime",
        "--rows",
        "0..20",
        "--level",
        "3",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("above the maximum 1"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["series"][0]["coeffs"].as_array().unwrap().len(), 4);
}

#[test]
fn bad_input_is_exit_2_with_one_line_naming_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = wavebench(&[
        "decompose",
        "sample_data/synthetic.csv",
        "--wavelet",
        "db44",
    ]);
    assert_input_error(&o, &["db44", "db4"]);
    let o = wavebench(&["decompose", "sample_data/synthetic.csv", "--mode", "mirror"]);
    assert_input_error(&o, &["--mode", "mirror"]);
    let nan = write(d, "nan.csv", "t,x,y\n0,1,2\n1,2,\n2,3,4\n");
    let o = wavebench(&["decompose", &nan]);
    assert_input_error(&o, &["nan.csv", "'y'", "row 1"]);
    let o = wavebench(&["decompose", &write(d, "inf.csv", "x\n1\ninf\n")]);
    assert_input_error(&o, &["inf.csv", "'x'", "row 1", "infinite"]);
    let o = wavebench(&["decompose", &write(d, "empty.csv", "")]);
    assert_input_error(&o, &["empty.csv", "empty"]);
    let o = wavebench(&["decompose", &write(d, "header.csv", "a,b\n")]);
    assert_input_error(&o, &["header.csv", "no data rows"]);
    let o = wavebench(&["decompose", &write(d, "text.csv", "name,city\nx,y\n")]);
    assert_input_error(&o, &["text.csv", "'name'", "no numbers"]);
    let o = wavebench(&[
        "decompose",
        &write(d, "text2.csv", "name,city\nx,y\n"),
        "--missing",
        "zero",
    ]);
    assert_input_error(&o, &["text2.csv", "no numeric columns"]);
    let o = wavebench(&[
        "decompose",
        "sample_data/synthetic.csv",
        "--columns",
        "nope",
    ]);
    assert_input_error(&o, &["synthetic.csv", "'nope'"]);
    let o = wavebench(&["decompose", "sample_data/synthetic.csv", "--rows", "10..5"]);
    assert_input_error(&o, &["--rows"]);
    let o = wavebench(&[
        "decompose",
        "sample_data/synthetic.csv",
        "--seq-len",
        "99999",
    ]);
    assert_input_error(&o, &["--seq-len"]);
    let o = wavebench(&[
        "decompose",
        &write(d, "one.csv", "x\n5\n"),
        "--mode",
        "reflect",
    ]);
    assert_input_error(&o, &["too short", "reflect"]);
    let o = wavebench(&["decompose", "no/such/file.csv"]);
    assert_input_error(&o, &["no/such/file.csv"]);
    // Unwritable output: exit 2, and nothing left in the folder.
    let ro = d.join("missing-dir").join("out.json");
    let o = wavebench(&[
        "decompose",
        "sample_data/synthetic.csv",
        "--rows",
        "0..64",
        "-o",
        ro.to_str().unwrap(),
    ]);
    assert_input_error(&o, &["out.json"]);
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn missing_value_policies() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "gaps.csv", "x\n1\n\n3\n4\n");
    let o = wavebench(&[
        "decompose",
        &p,
        "--wavelet",
        "haar",
        "--level",
        "1",
        "--missing",
        "interpolate",
        "--dtype",
        "f64",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ca = v["series"][0]["coeffs"][0].as_array().unwrap();
    // haar on [1, 2, 3, 4]: cA = [3, 7] / sqrt 2
    assert!((ca[0].as_f64().unwrap() - 3.0 / 2f64.sqrt()).abs() < 1e-12);
    let o = wavebench(&[
        "decompose",
        &p,
        "--wavelet",
        "haar",
        "--level",
        "1",
        "--missing",
        "drop",
        "--dtype",
        "f64",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["series"][0]["coeffs"][0].as_array().unwrap().len(),
        2,
        "3 rows left, reflect: (3+1)/2"
    );
}

/// `s.csv` in `dir`: one column `x` of `rows` samples of a sine.
fn sine_csv(dir: &Path, rows: usize) -> String {
    let values: String = (0..rows)
        .map(|i| format!("{}\n", (i as f64 * 0.3).sin()))
        .collect();
    write(dir, "s.csv", &format!("x\n{values}"))
}

/// Issue 13's corpus: inputs that once panicked, aborted, replaced a special file or
/// answered wrongly with exit 0.
#[test]
fn no_input_panics_or_destroys_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = sine_csv(d, 200);
    // A window shorter than the filter above the maximum level: computed, as pywt does
    // (pywt.wavedec(x[:4], 'db4', mode='reflect', level=2) has bands of 6, 6 and 5).
    let o = wavebench(&[
        "decompose",
        &csv,
        "--rows",
        "0..4",
        "--level",
        "2",
        "--dtype",
        "f64",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let lens: Vec<usize> = v["series"][0]["coeffs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_array().unwrap().len())
        .collect();
    assert_eq!(lens, [6, 6, 5]);
    assert!(stderr(&o).contains("above the maximum"));
    // Absurd levels and repeats are refused before anything is allocated, in one line.
    for level in ["4294967296", "18446744073709551615", "100000000"] {
        assert_input_error(
            &wavebench(&["decompose", &csv, "--level", level]),
            &["--level"],
        );
    }
    for repeat in ["0", "18446744073709551615"] {
        assert_input_error(
            &wavebench(&["bench", &csv, "--repeat", repeat, "--seq-len", "64"]),
            &["--repeat"],
        );
    }
    assert_input_error(
        &wavebench(&["decompose", &csv, "--mode", "reflekt"]),
        &["reflect"],
    );
    // A template's precision: Python's digits up to a bound, then a located error.
    let t = write(d, "p.jinja", "{{ snr_db | f(\".65536f\") }}");
    let o = wavebench(&[
        "prompts",
        &csv,
        "--seq-len",
        "64",
        "--stride",
        "500",
        "--template",
        &t,
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let digits = line["prompt"]
        .as_str()
        .unwrap()
        .split('.')
        .nth(1)
        .unwrap()
        .len();
    assert_eq!(digits, 65536);
    let t = write(d, "q.jinja", "{{ snr_db | f(\".9999999999f\") }}");
    assert_input_error(
        &wavebench(&[
            "prompts",
            &csv,
            "--seq-len",
            "64",
            "--template",
            &t,
            "-o",
            "-",
        ]),
        &["q.jinja", "too large"],
    );

    // Outputs: a symlink's target is replaced and the link stays a link; a FIFO is
    // written to, not replaced.
    let target = d.join("real.json");
    std::fs::write(&target, "old").unwrap();
    let link = d.join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = wavebench(&["decompose", &csv, "-o", link.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .starts_with("{\"wavelet\""));
    let fifo = d.join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = wavebench(&["decompose", &csv, "-o", fifo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(reader.join().unwrap().starts_with("{\"wavelet\""));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let o = wavebench(&["decompose", &csv, "-o", "/dev/null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A stream takes the format standard output gets: JSON lines, a Markdown report.
    let o = wavebench(&[
        "features",
        &csv,
        "--seq-len",
        "64",
        "--stride",
        "100",
        "-o",
        "/dev/stdout",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = String::from_utf8_lossy(&o.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(
        serde_json::from_str::<serde_json::Value>(&first).is_ok(),
        "{first}"
    );
    let o = wavebench(&[
        "bench",
        &csv,
        "--seq-len",
        "64",
        "--stride",
        "100",
        "--repeat",
        "1",
        "--engines",
        "native",
        "-o",
        "/dev/null",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Values near the float limits: a clear error naming file, column and row, never NaN,
/// null or zeros with exit 0.
#[test]
fn values_too_large_for_the_sums_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (value, dtype) in [("1e200", "f64"), ("1e38", "f32"), ("1e308", "f64")] {
        let csv = write(
            d,
            "big.csv",
            &format!(
                "x\n{}",
                (0..64)
                    .map(|i| format!("{}{value}\n", if i % 2 == 0 { "" } else { "-" }))
                    .collect::<String>()
            ),
        );
        let o = wavebench(&["features", &csv, "--dtype", dtype, "-o", "-"]);
        assert_input_error(&o, &["big.csv", "'x'", "data row 0", "too large"]);
        // The transform itself needs no squares: computed, and finite.
        let o = wavebench(&["decompose", &csv, "--dtype", dtype, "-o", "-"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(!text.contains("null") && !text.contains("inf"), "{text}");
        if value == "1e308" {
            // Beyond f32 altogether: f32 runs parse to f32, so the load names the cell.
            let o = wavebench(&["decompose", &csv, "--dtype", "f32", "-o", "-"]);
            assert_input_error(
                &o,
                &["big.csv", "'x'", "data row 0", "f32 range", "--dtype f64"],
            );
        }
    }
    // Within f32, but the transform's gain takes it past: an error naming the series, not inf.
    let near_max = (0..64)
        .map(|i| format!("{}3e38\n", if i % 2 == 0 { "" } else { "-" }))
        .collect::<String>();
    let csv = write(d, "big.csv", &format!("x\n{near_max}"));
    let o = wavebench(&["decompose", &csv, "--dtype", "f32", "-o", "-"]);
    assert_input_error(&o, &["big.csv", "column 'x':", "overflow f32"]);
    // In windows, the message names the window and its first row.
    let o = wavebench(&[
        "decompose",
        &csv,
        "--dtype",
        "f32",
        "--seq-len",
        "32",
        "--stride",
        "8",
        "--level",
        "2",
        "-o",
        "-",
    ]);
    assert_input_error(&o, &["big.csv", "'x'", "window 0 (row 0)", "overflow f32"]);
    // Large but safe values are computed: the features do not depend on the scale.
    let csv = write(
        d,
        "ok.csv",
        &format!(
            "x\n{}",
            (0..64)
                .map(|i| format!("{}e100\n", (i as f64 * 0.4).sin()))
                .collect::<String>()
        ),
    );
    let o = wavebench(&["features", &csv, "--dtype", "f64", "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ratios: f64 = v["energy_ratio"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_f64().unwrap())
        .sum();
    assert!((ratios - 1.0).abs() < 1e-9, "{v}");
}

/// A run that would not fit in memory is refused before it allocates, saying how big.
#[test]
fn a_run_beyond_the_memory_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "long.csv",
        &format!(
            "x\n{}",
            (0..200_000)
                .map(|i| format!("{}\n", i % 97))
                .collect::<String>()
        ),
    );
    // 100,001 windows of 100,000 samples in f64: about 160 GB of batch and coefficients.
    let t = std::time::Instant::now();
    let o = wavebench(&[
        "decompose",
        &csv,
        "--seq-len",
        "100000",
        "--dtype",
        "f64",
        "-o",
        "-",
    ]);
    assert_input_error(&o, &["long.csv", "needs about", "GB", "--rows"]);
    assert!(t.elapsed().as_secs() < 60, "refused before computing");
}

/// `--version` names the version and, in a git checkout, the commit it was built from.
#[test]
fn version_names_the_commit() {
    let o = wavebench(&["--version"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let want = format!("wavebench {}", env!("CARGO_PKG_VERSION"));
    assert!(text.starts_with(&want), "{text}");
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success());
    match head {
        Some(head) => {
            let commit = String::from_utf8(head.stdout).unwrap();
            assert_eq!(text.trim(), format!("{want} (commit {})", commit.trim()));
        }
        // Only a source tree without git (a tarball) goes unstamped, and says so here.
        None => {
            let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".git");
            assert!(
                !checkout.exists(),
                "a git checkout whose HEAD git cannot read"
            );
            eprintln!("not a git checkout: the version's commit is not checked");
        }
    }
}

/// Completions and man pages come from the clap definitions: every subcommand and option
/// is in them.
#[test]
fn completions_and_man_pages_cover_every_command() {
    let o = wavebench(&["completions", "bash"]);
    assert!(o.status.success());
    let bash = String::from_utf8(o.stdout).unwrap();
    for word in [
        "prompts",
        "features",
        "decompose",
        "waverec",
        "--seq-len",
        "--template",
    ] {
        assert!(
            bash.contains(word),
            "{word} missing from the bash completions"
        );
    }
    let o = wavebench(&["completions", "fish"]);
    assert!(o.status.success());
    assert!(String::from_utf8(o.stdout).unwrap().contains("-l seq-len"));

    let dir = tempfile::tempdir().unwrap();
    let o = wavebench(&["man", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let top = std::fs::read_to_string(dir.path().join("wavebench.1")).unwrap();
    assert!(top.contains(".TH wavebench 1"));
    let prompts = std::fs::read_to_string(dir.path().join("wavebench-prompts.1")).unwrap();
    assert!(prompts.contains("seq\\-len"), "{prompts}");
}

/// Each defaulted option's help shows the default a run uses (`Config::default()`), for
/// every subcommand that has it.
#[test]
fn help_shows_the_defaults_a_run_uses() {
    let d = wavebench_core::config::Config::default();
    let o = wavebench(&["prompts", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8(o.stdout).unwrap();
    for want in [
        format!("[default: {}]", d.transform.name()),
        format!("[default: {}]", d.transform.level),
        format!("[default: {}]", d.transform.mode),
        format!("[default: {}]", d.dtype),
        format!("[default: {}]", d.template),
        format!("[default: {}]", d.pred_len),
        format!("[default: {}]", d.batch_size),
    ] {
        assert!(
            help.contains(&want),
            "{want} missing from prompts --help:\n{help}"
        );
    }
    let o = wavebench(&["decompose", "--help"]);
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(
        help.contains(&format!("[default: {}]", d.transform.name())),
        "{help}"
    );
    assert!(
        !help.contains("--template"),
        "decompose has no template option"
    );
}

/// A level that leaves one coefficient in the approximation band is computed (it is within
/// pywt's maximum) but said once on stderr, naming the level, the wavelet and the window;
/// one level lower is quiet.
#[test]
fn a_degenerate_level_is_said_once() {
    let data = common::etth1();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.jsonl");
    let run = |level: &str| {
        wavebench(&[
            "prompts",
            data.to_str().unwrap(),
            "--rows",
            "0..600",
            "--seq-len",
            "512",
            "--wavelet",
            "haar",
            "--level",
            level,
            "--description",
            "ETTh1",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let o = run("9");
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(
        err.matches("leaves 1 coefficient in cA9 of a 512-row window")
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("'haar'") && err.contains("level 8 or lower"),
        "{err}"
    );
    // 89 windows × 7 channels, written all the same.
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        89 * 7
    );
    let o = run("8");
    assert!(
        o.status.success() && stderr(&o).is_empty(),
        "{}",
        stderr(&o)
    );
}

/// `prompts --timellm-bank DIR` writes the description where Time-LLM's `load_content`
/// reads it (one `ETT.txt` for every ETT file; no newline added, as Time-LLM puts the
/// text into its prompt as it is); an empty description is warned about once.
#[test]
fn the_description_goes_where_time_llm_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("t,a,b\n");
    for i in 0..128 {
        csv.push_str(&format!("{i},{},{}\n", (i as f64 / 5.0).sin(), i % 7));
    }
    let data = write(dir.path(), "ETTh9.csv", &csv);
    let bank = dir.path().join("prompt_bank");
    let out = dir.path().join("p.jsonl");
    let text = "Hourly transformer data.\nTwo channels.";
    let o = wavebench(&[
        "prompts",
        &data,
        "--seq-len",
        "64",
        "--stride",
        "32",
        "--template",
        "timellm",
        "--description",
        text,
        "--timellm-bank",
        bank.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(bank.join("ETT.txt")).unwrap(), text);
    let first = std::fs::read_to_string(&out).unwrap();
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert!(first["prompt"]
        .as_str()
        .unwrap()
        .contains(&format!("Dataset description: {text}")));
    assert!(!stderr(&o).contains("description is empty"));
    // Another data set's description is named after its file.
    let other = write(dir.path(), "weather.csv", &csv);
    let bank_run = |data: &str, extra: &[&str]| {
        let mut args = vec![
            "prompts",
            data,
            "--seq-len",
            "64",
            "--stride",
            "32",
            "--timellm-bank",
            bank.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        wavebench(&args)
    };
    let o = bank_run(&other, &["-q", "--description", "Weather."]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(bank.join("weather.txt")).unwrap(),
        "Weather."
    );
    // An empty description is refused before any prompt: it is all the bank file holds.
    std::fs::remove_file(&out).unwrap();
    assert_input_error(
        &bank_run(&other, &["-q"]),
        &["--timellm-bank", "description is empty", "weather.txt"],
    );
    assert!(!out.exists(), "no prompts written before the refusal");
    // A bank file holding the researcher's own description is kept byte for byte (with
    // --quiet too), unless --overwrite-bank.
    let kept = "My own words, carefully chosen.\n";
    std::fs::write(bank.join("ETT.txt"), kept).unwrap();
    assert_input_error(
        &bank_run(&data, &["-q", "--description", "Another text"]),
        &["ETT.txt", "holds another description", "--overwrite-bank"],
    );
    assert_eq!(std::fs::read_to_string(bank.join("ETT.txt")).unwrap(), kept);
    assert!(!out.exists(), "refused before any prompt was written");
    // The same description again is no change, so it is not refused.
    let o = bank_run(&data, &["-q", "--description", kept]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bank_run(
        &data,
        &["-q", "--description", "Another text", "--overwrite-bank"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(bank.join("ETT.txt")).unwrap(),
        "Another text"
    );
    // The bank onto a file, or under a missing parent: refused before any prompt.
    std::fs::remove_file(&out).unwrap();
    let bank_at = |dir: &str| {
        wavebench(&[
            "prompts",
            &data,
            "--seq-len",
            "64",
            "--description",
            "d",
            "--timellm-bank",
            dir,
            "-q",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let a_file = write(dir.path(), "not_a_folder", "x");
    assert_input_error(&bank_at(&a_file), &["--timellm-bank", "not a folder"]);
    let missing = dir.path().join("no/such/bank");
    assert_input_error(
        &bank_at(missing.to_str().unwrap()),
        &["--timellm-bank", "does not exist"],
    );
    assert!(!out.exists());
    // The bank file may not be the description file the run reads.
    std::fs::write(bank.join("ETT.txt"), "Read from a file.").unwrap();
    let o = wavebench(&[
        "prompts",
        &data,
        "--seq-len",
        "64",
        "--description",
        &format!("@{}", bank.join("ETT.txt").display()),
        "--timellm-bank",
        bank.to_str().unwrap(),
        "--overwrite-bank",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_input_error(&o, &["ETT.txt", "would destroy the input"]);
    assert_eq!(
        std::fs::read_to_string(bank.join("ETT.txt")).unwrap(),
        "Read from a file."
    );
}

/// decompose's metadata says each band's frequency range and its periods in the data's
/// own time units (ETTh1 is hourly: cD3 holds periods of 8 to 16 hours).
#[test]
fn decompose_names_each_bands_periods_in_time_units() {
    let data = common::etth1();
    let o = wavebench(&[
        "decompose",
        data.to_str().unwrap(),
        "--rows",
        "0..128",
        "--columns",
        "OT",
        "--level",
        "3",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let bands = doc["bands"].as_array().unwrap();
    let got: Vec<(&str, &str)> = bands
        .iter()
        .map(|b| (b["name"].as_str().unwrap(), b["periods"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("cA3", "> 16 h"),
            ("cD3", "8–16 h"),
            ("cD2", "4–8 h"),
            ("cD1", "2–4 h")
        ]
    );
    assert_eq!(
        bands[1]["cycles_per_sample"],
        serde_json::json!([0.0625, 0.125])
    );
}

/// Time-LLM's own ILI set-up (36-row windows, a 24-row horizon) under the default db4
/// level 3, which such windows cannot hold: the `timellm` template prints no wavelet
/// word, so its prompts are made, with one warning; a template that prints the bands'
/// words is still refused over the level.
#[test]
fn a_template_without_wavelet_words_is_not_refused_over_the_level() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("date,ILITOTAL,OT\n");
    for i in 0..120 {
        csv.push_str(&format!(
            "2002-{:02}-{:02},{},{}\n",
            1 + (i / 28) % 12,
            1 + i % 28,
            1000.0 + 300.0 * (i as f64 / 8.0).sin(),
            1.5 + (i % 13) as f64 / 10.0
        ));
    }
    let data = write(dir.path(), "national_illness.csv", &csv);
    let out = dir.path().join("p.jsonl");
    let run = |template: &str| {
        wavebench(&[
            "prompts",
            &data,
            "--seq-len",
            "36",
            "--pred-len",
            "24",
            "--stride",
            "12",
            "--template",
            template,
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let o = run("timellm");
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("above the maximum 2").count(), 1, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // (120 - 36) / 12 + 1 windows, two channels.
    assert_eq!(lines.len(), 8 * 2);
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert!(first["prompt"]
        .as_str()
        .unwrap()
        .contains("forecast the next 24 steps given the previous 36 steps"));
    // A template of one's own reading only the statistics is as free of the transform.
    let own = write(
        dir.path(),
        "own.jinja",
        "{{ min }} {{ max }} {{ trend }} {{ lags | pylist }}",
    );
    let o = run(&own);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_file(&out).unwrap();
    assert_input_error(
        &run("dwt-balanced"),
        &["--level", "above the maximum level 2"],
    );
    assert!(!out.exists());
}

/// `wavebench app`, the word a new user tries, opens the app as `gui` does.
#[test]
fn app_is_another_name_for_gui() {
    let o = wavebench(&["app", "--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("Open the workbench app"), "{help}");
    let top = String::from_utf8_lossy(&wavebench(&["--help"]).stdout).into_owned();
    assert!(top.contains("[alias: app]"), "{top}");
}

/// The screenshot tour's pictures are checked before the window opens: one that would
/// overwrite the data file or the configuration it reads is refused in one line (exit 2),
/// and both files are left as they were.
#[test]
fn the_screenshot_tour_never_overwrites_what_the_app_reads() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("dashboard.png");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic.csv"),
        &data,
    )
    .unwrap();
    let before = std::fs::read(&data).unwrap();
    let shots = dir.path().to_str().unwrap();
    let o = wavebench(&["gui", data.to_str().unwrap(), "--screenshots", shots]);
    assert_input_error(&o, &["dashboard.png", "destroy the input", "--screenshots"]);
    assert_eq!(std::fs::read(&data).unwrap(), before);
    // A configuration named as a picture: refused too.
    let config = write(dir.path(), "sweep.png", "seq_len = 64\n");
    let csv = dir.path().join("d.csv");
    std::fs::write(&csv, &before).unwrap();
    let o = wavebench(&[
        "gui",
        csv.to_str().unwrap(),
        "--config",
        &config,
        "--screenshots",
        shots,
    ]);
    assert_input_error(&o, &["sweep.png", "destroy the input"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "seq_len = 64\n");
}

/// A template file named by `--config` (not by `--template`) is read by the run, so `-o`
/// onto it is refused before any work: `prompts` once wrote its JSON lines over it.
#[test]
fn an_output_onto_the_configurations_template_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = sine_csv(d, 400);
    let template = write(d, "t.jinja", "{{ min }}");
    let config = write(
        d,
        "c.toml",
        &format!("template = {template:?}\nseq_len = 96\n"),
    );
    let (csv, config, t) = (csv.as_str(), config.as_str(), template.as_str());
    for command in ["prompts", "features"] {
        let o = wavebench(&[command, csv, "--config", config, "-q", "-o", t]);
        assert_input_error(&o, &["t.jinja", "would destroy the input"]);
        assert_eq!(std::fs::read_to_string(&template).unwrap(), "{{ min }}");
    }
    let o = wavebench(&[
        "sweep",
        csv,
        "--config",
        config,
        "--wavelets",
        "db2",
        "--levels",
        "1",
        "-q",
        "--write-config",
        t,
    ]);
    assert_input_error(&o, &["t.jinja", "would destroy the input"]);
    assert_eq!(std::fs::read_to_string(&template).unwrap(), "{{ min }}");
    // A --template given instead: the configuration's is not read, nor guarded.
    let other = write(d, "u.jinja", "{{ max }}");
    let out = d.join("t2.jsonl");
    let o = wavebench(&[
        "prompts",
        csv,
        "--config",
        config,
        "--template",
        &other,
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
