//! Inputs that must never be destroyed, and outputs that must keep what they were: every
//! command refuses an `-o` that is, or lies inside, one of its inputs (named directly,
//! through `..`, through a link, or as a file of an input folder or glob), in one line,
//! leaving the input's bytes as they were; a replaced output keeps its permissions; a loop
//! of links is refused rather than broken.

mod common;

use common::{assert_input_error, wavebench};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const DATA: &str = "date,a,b\n\
2020-01-01 00:00:00,1.0,4.0\n2020-01-01 01:00:00,2.5,3.0\n2020-01-01 02:00:00,2.0,5.5\n\
2020-01-01 03:00:00,3.5,4.0\n2020-01-01 04:00:00,3.0,6.5\n2020-01-01 05:00:00,4.5,5.0\n\
2020-01-01 06:00:00,4.0,7.5\n2020-01-01 07:00:00,5.5,6.0\n2020-01-01 08:00:00,5.0,8.5\n\
2020-01-01 09:00:00,6.5,7.0\n2020-01-01 10:00:00,6.0,9.5\n2020-01-01 11:00:00,7.5,8.0\n\
2020-01-01 12:00:00,7.0,10.5\n2020-01-01 13:00:00,8.5,9.0\n2020-01-01 14:00:00,8.0,11.5\n\
2020-01-01 15:00:00,9.5,10.0\n2020-01-01 16:00:00,9.0,12.5\n2020-01-01 17:00:00,10.5,11.0\n";

/// A temporary folder holding `data.csv` (DATA), and that file's path.
fn data_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.csv");
    std::fs::write(&data, DATA).unwrap();
    (dir, data)
}

/// A command's arguments before `-o`, reading `input`.
fn command(name: &str, input: &str) -> Vec<String> {
    let mut args = vec![name.to_string(), input.to_string()];
    let extra: &[&str] = match name {
        "decompose" | "mra" => &["--level", "1", "--quiet"],
        "waverec" => &["--quiet"],
        "bench" => &[
            "--engines",
            "native",
            "--repeat",
            "1",
            "--level",
            "1",
            "--quiet",
        ],
        _ => &["--level", "1", "--quiet"],
    };
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run(args: &[String], output: &Path) -> std::process::Output {
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = output.to_string_lossy().into_owned();
    all.extend(["-o", &out]);
    wavebench(&all)
}

/// For each command and each way of naming its input as the output: refused, one line,
/// the input's bytes unchanged (and no temporary left beside it).
#[test]
fn no_command_writes_over_its_input() {
    let (dir, data) = data_file();
    let d = dir.path();
    // Coefficients for waverec, written by decompose.
    let coeffs = d.join("coeffs.json");
    let o = run(&command("decompose", data.to_str().unwrap()), &coeffs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let set = d.join("set");
    std::fs::create_dir(&set).unwrap();
    std::fs::write(set.join("a.csv"), DATA).unwrap();
    std::os::unix::fs::symlink(&data, d.join("link.csv")).unwrap();
    std::os::unix::fs::symlink(&coeffs, d.join("link.json")).unwrap();

    let commands = [
        "features",
        "prompts",
        "decompose",
        "mra",
        "bench",
        "waverec",
    ];
    let mut cases = 0;
    for name in commands {
        let (input, link) = if name == "waverec" {
            (coeffs.clone(), d.join("link.json"))
        } else {
            (data.clone(), d.join("link.csv"))
        };
        let file_name = input.file_name().unwrap();
        // The input named as itself, through `..`, and through a link to it; a file of an
        // input folder; a file matched by an input glob.
        let mut ways: Vec<(PathBuf, PathBuf)> = vec![
            (input.clone(), input.clone()),
            (input.clone(), set.join("..").join(file_name)),
            (input.clone(), link),
        ];
        if name != "waverec" {
            ways.push((set.clone(), set.join("a.csv")));
            ways.push((set.join("*.csv"), set.join("a.csv")));
            // A new file inside an input folder is refused too: the next run would read it.
            ways.push((set.clone(), set.join("new.csv")));
        }
        for (read, output) in ways {
            let before: Vec<(PathBuf, Vec<u8>)> = [&data, &coeffs, &set.join("a.csv")]
                .iter()
                .map(|p| (p.to_path_buf(), std::fs::read(p).unwrap()))
                .collect();
            let o = run(&command(name, read.to_str().unwrap()), &output);
            assert_input_error(&o, &["would destroy the input", "choose another -o"]);
            for (p, bytes) in before {
                assert_eq!(
                    std::fs::read(&p).unwrap(),
                    bytes,
                    "{name} -o {output:?} changed {p:?}"
                );
            }
            assert!(!set.join("new.csv").exists(), "{name} wrote {output:?}");
            cases += 1;
        }
    }
    assert_eq!(cases, 6 * 5 + 3);
    // Nothing else appeared: no temporaries, no outputs.
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["coeffs.json", "data.csv", "link.csv", "link.json", "set"]
    );
}

/// `--config`, a template file and `--description @FILE` are inputs too.
#[test]
fn the_files_a_run_reads_besides_its_data_are_not_outputs_either() {
    let (dir, data) = data_file();
    let d = dir.path();
    let config = d.join("run.toml");
    std::fs::write(&config, "level = 1\n").unwrap();
    let template = d.join("t.jinja");
    std::fs::write(&template, "{{ min }}").unwrap();
    let desc = d.join("desc.txt");
    std::fs::write(&desc, "my data").unwrap();
    let data = data.to_str().unwrap();
    let described = format!("@{}", desc.display());
    for (extra, victim) in [
        (["--config", config.to_str().unwrap()], &config),
        (["--template", template.to_str().unwrap()], &template),
        (["--description", described.as_str()], &desc),
    ] {
        let before = std::fs::read(victim).unwrap();
        let mut args = vec!["prompts", data, "--level", "1", "--quiet"];
        args.extend(extra);
        args.extend(["-o", victim.to_str().unwrap()]);
        let o = wavebench(&args);
        assert_input_error(&o, &["would destroy the input"]);
        assert_eq!(std::fs::read(victim).unwrap(), before);
    }
}

#[test]
fn a_replaced_output_keeps_its_permissions() {
    let (dir, data) = data_file();
    let out = dir.path().join("features.csv");
    std::fs::write(&out, "old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = wavebench(&[
        "features",
        data.to_str().unwrap(),
        "--level",
        "1",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("window,"), "{written}");
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_loop_of_links_is_refused_and_stays_a_loop() {
    let (dir, data) = data_file();
    let d = dir.path();
    std::os::unix::fs::symlink("b.jsonl", d.join("a.jsonl")).unwrap();
    std::os::unix::fs::symlink("a.jsonl", d.join("b.jsonl")).unwrap();
    let o = wavebench(&[
        "prompts",
        data.to_str().unwrap(),
        "--level",
        "1",
        "--quiet",
        "-o",
        d.join("a.jsonl").to_str().unwrap(),
    ]);
    assert_input_error(&o, &["a.jsonl", "loop of symbolic links"]);
    for name in ["a.jsonl", "b.jsonl"] {
        let m = std::fs::symlink_metadata(d.join(name)).unwrap();
        assert!(m.file_type().is_symlink(), "{name} is no longer a link");
    }
}

/// `wavebench prompts … -o - | head`: the reader leaves early; the run ends quietly with
/// exit 0, as Unix tools do, instead of reporting "Broken pipe" — for every command that
/// writes to standard output (`features` serialises through serde_json, whose error once
/// hid the broken pipe).
#[test]
fn a_reader_that_leaves_early_ends_the_run_quietly() {
    use std::io::Read;
    let etth1 = common::etth1();
    let data = etth1.to_str().unwrap();
    let shape = [
        "--columns",
        "OT",
        "--seq-len",
        "64",
        "--level",
        "1",
        "--quiet",
    ];
    for (command, starts) in [
        ("prompts", &b"{\"window\":0"[..]),
        ("features", &b"{\"window\":0"[..]),
        ("decompose", &b"{\""[..]),
    ] {
        // A described data set: an empty description is warned about.
        let described: &[&str] = if command == "prompts" {
            &["--description", "d"]
        } else {
            &[]
        };
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_wavebench"))
            .args([command, data])
            .args(shape)
            .args(described)
            .args(["-o", "-"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 100];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe's read end is closed here: the rest (MBs) cannot be written.
        let o = child.wait_with_output().unwrap();
        assert!(
            first.starts_with(starts),
            "{command}: {}",
            String::from_utf8_lossy(&first)
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{command}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{command}");
    }
}

/// `-o -` with standard output closed (`>&-`) writes nothing, so it must not end in
/// success.
#[test]
fn a_closed_standard_output_is_an_error() {
    let (_dir, data) = data_file();
    let o = std::process::Command::new("sh")
        .args([
            "-c",
            "exec \"$0\" \"$@\" >&-",
            env!("CARGO_BIN_EXE_wavebench"),
        ])
        .args([
            "prompts",
            data.to_str().unwrap(),
            "--level",
            "1",
            "--quiet",
            "-o",
            "-",
        ])
        .output()
        .unwrap();
    assert_input_error(&o, &["standard output is closed"]);
}

/// `bench` with no engine, or with `--shard`, would write a report that says nothing (or
/// that passes a part for the whole): refused.
#[test]
fn bench_refuses_an_empty_engine_list_and_shards() {
    let (dir, data) = data_file();
    let report = dir.path().join("r.json");
    let base = ["bench", data.to_str().unwrap(), "--level", "1", "--quiet"];
    let mut args = base.to_vec();
    args.extend(["--engines", "", "-o", report.to_str().unwrap()]);
    assert_input_error(&wavebench(&args), &["--engines", "no engine named"]);
    let mut args = base.to_vec();
    args.extend([
        "--engines",
        "native",
        "--shard",
        "1/2",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_input_error(&wavebench(&args), &["--shard 1/2", "whole run"]);
    assert!(!report.exists());
}

/// Shard arithmetic does not overflow: shard i of N holds windows ⌊total·(i−1)/N⌋ up to
/// ⌊total·i/N⌋, so with N = 2^64 − 1 and 3 windows the last shard holds the last window
/// (in 64 bits the product wrapped and every shard came out empty) and the first none.
#[test]
fn a_huge_shard_count_loses_no_window() {
    let (_dir, data) = data_file();
    let n = u64::MAX;
    let count = |shard: String| {
        let o = wavebench(&[
            "features",
            data.to_str().unwrap(),
            "--seq-len",
            "16",
            "--level",
            "1",
            "--shard",
            &shard,
            "--quiet",
            "-o",
            "-",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap().lines().count()
    };
    // 18 rows, windows of 16, stride 1: 3 windows × 2 channels; the last window's two.
    assert_eq!(count(format!("{n}/{n}")), 2);
    assert_eq!(count(format!("1/{n}")), 0);
}

/// The venv's python (`make test` puts it first on PATH); `WAVEBENCH_PYTHON` overrides.
fn python(script: &str, dir: &Path) {
    let py = std::env::var("WAVEBENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let o = std::process::Command::new(py)
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .expect("python3 with numpy and pywt (the project venv) on PATH");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// waverec checks what it inverts: a removed band, a level that disagrees with the bands,
/// a gap in arr_*, mra's components, NaN coefficients — each one line naming what is wrong,
/// never a signal of the wrong length with exit 0.
#[test]
fn waverec_refuses_what_it_cannot_invert_faithfully() {
    let (dir, data) = data_file();
    let d = dir.path();
    let data = data.to_str().unwrap();
    let out = d.join("signal.json");
    let out = out.to_str().unwrap();
    for (file, command) in [
        ("c.json", "decompose"),
        ("c.npz", "decompose"),
        ("c.parquet", "decompose"),
        ("m.json", "mra"),
        ("m.npz", "mra"),
        ("m.parquet", "mra"),
    ] {
        let path = d.join(file);
        let o = wavebench(&[
            command,
            data,
            "--level",
            "2",
            "--wavelet",
            "haar",
            "--quiet",
            "-o",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // The good files invert.
    for good in ["c.json", "c.npz", "c.parquet"] {
        let o = wavebench(&["waverec", d.join(good).to_str().unwrap(), "-o", out]);
        assert!(
            o.status.success(),
            "{good}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // mra's components, in every format.
    for mra in ["m.json", "m.npz", "m.parquet"] {
        let o = wavebench(&["waverec", d.join(mra).to_str().unwrap(), "-o", out]);
        assert_input_error(
            &o,
            &[mra, "components", "wavebench mra", "not coefficients"],
        );
    }
    // JSON: the last band removed; the level changed.
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("c.json")).unwrap()).unwrap();
    let mut cut = doc.clone();
    for s in cut["series"].as_array_mut().unwrap() {
        s["coeffs"].as_array_mut().unwrap().pop();
    }
    std::fs::write(d.join("cut.json"), cut.to_string()).unwrap();
    let o = wavebench(&["waverec", d.join("cut.json").to_str().unwrap(), "-o", out]);
    assert_input_error(&o, &["cut.json", "records level 2", "3 bands", "holds 2"]);
    let mut relevel = doc.clone();
    relevel["level"] = 3.into();
    std::fs::write(d.join("relevel.json"), relevel.to_string()).unwrap();
    let o = wavebench(&[
        "waverec",
        d.join("relevel.json").to_str().unwrap(),
        "-o",
        out,
    ]);
    assert_input_error(&o, &["relevel.json", "records level 3", "holds 3"]);
    // npz: decompose's archive without cD1; np.savez's arrays with a gap.
    python(
        "import numpy as np, pywt\n\
         a = dict(np.load('c.npz')); del a['cD1']; np.savez('cut.npz', **a)\n\
         a = dict(np.load('c.npz')); a['cD2'][0, 1] = np.nan; np.savez('nan.npz', **a)\n\
         c = pywt.wavedec(np.arange(16.0), 'haar', level=2)\n\
         np.savez('gap.npz', arr_0=c[0], arr_1=c[1], arr_3=c[2])\n",
        d,
    );
    let o = wavebench(&["waverec", d.join("cut.npz").to_str().unwrap(), "-o", out]);
    assert_input_error(&o, &["cut.npz", "records level 2", "holds 2"]);
    let o = wavebench(&[
        "waverec",
        d.join("gap.npz").to_str().unwrap(),
        "--wavelet",
        "haar",
        "-o",
        out,
    ]);
    assert_input_error(&o, &["gap.npz", "no arr_2", "a band is missing"]);
    let o = wavebench(&["waverec", d.join("nan.npz").to_str().unwrap(), "-o", out]);
    assert_input_error(
        &o,
        &[
            "nan.npz",
            "series 0 ('a'), band cD2, coefficient 1 is NaN",
            "finite",
        ],
    );
}

/// An `.npz` member whose header claims 2^40 float64 (8 TB) over a few bytes: refused in
/// one line, not an abort on allocation.
#[test]
fn an_npz_header_claiming_terabytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    python(
        "import zipfile\n\
         d = \"{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }\"\n\
         h = d + ' ' * (118 - len(d)) + '\\n'\n\
         npy = b'\\x93NUMPY\\x01\\x00' + len(h).to_bytes(2, 'little') + h.encode() + b'\\0' * 64\n\
         with zipfile.ZipFile('bomb.npz', 'w') as z:\n\
         \x20   z.writestr('arr_0.npy', npy)\n\
         \x20   z.writestr('arr_1.npy', npy)\n",
        dir.path(),
    );
    let o = wavebench(&[
        "waverec",
        dir.path().join("bomb.npz").to_str().unwrap(),
        "--wavelet",
        "haar",
        "-o",
        "-",
    ]);
    assert_input_error(&o, &["bomb.npz", "arr_0", "claims shape (1099511627776,)"]);
}

/// A template with nested loops over large ranges stops with a message that says why,
/// instead of running for hours.
#[test]
fn a_runaway_template_stops_and_says_so() {
    let (dir, data) = data_file();
    let template = dir.path().join("loop.jinja");
    std::fs::write(
        &template,
        "{% for i in range(100000) %}{% for j in range(100000) %}.{% endfor %}{% endfor %}",
    )
    .unwrap();
    let o = wavebench(&[
        "prompts",
        data.to_str().unwrap(),
        "--level",
        "1",
        "--template",
        template.to_str().unwrap(),
        "--quiet",
        "-o",
        "-",
    ]);
    assert_input_error(&o, &["budget of 5000000 steps", "loop"]);
}

/// A file of NUL bytes (or rows followed by NULs) is named as binary at once, not parsed
/// for minutes; a CR-only file is told how to convert; a FIFO is told to be saved first.
#[test]
fn binary_cr_only_and_fifo_inputs_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nul = d.join("nul.csv");
    let mut bytes = DATA.as_bytes().to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 4 << 20));
    std::fs::write(&nul, &bytes).unwrap();
    let o = wavebench(&["features", nul.to_str().unwrap(), "--quiet", "-o", "-"]);
    let at = format!(
        "a NUL byte at byte {} (line {})",
        DATA.len(),
        DATA.lines().count() + 1
    );
    assert_input_error(&o, &["nul.csv", &at, "binary data"]);
    let cr = d.join("cr.csv");
    std::fs::write(&cr, DATA.replace('\n', "\r")).unwrap();
    let o = wavebench(&["features", cr.to_str().unwrap(), "--quiet", "-o", "-"]);
    assert_input_error(&o, &["cr.csv", "carriage return alone", "tr "]);
    let fifo = d.join("fifo.csv");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let o = wavebench(&["features", fifo.to_str().unwrap(), "--quiet", "-o", "-"]);
    assert_input_error(
        &o,
        &["fifo.csv", "pipe or a device", "save the stream to a file"],
    );
}

/// `data/**/*.csv` through a link loop (`data/again -> .`) reads each file once.
#[test]
fn a_glob_through_a_link_loop_reads_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("a.csv"), DATA).unwrap();
    std::os::unix::fs::symlink(".", data.join("again")).unwrap();
    let pattern = format!("{}/**/*.csv", data.display());
    let o = wavebench(&["features", &pattern, "--level", "1", "--quiet", "-o", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = String::from_utf8(o.stdout).unwrap();
    // One window of the whole series × two channels, from one file.
    assert_eq!(lines.lines().count(), 2, "{lines}");
}

/// CSV shards concatenate to the whole run's CSV: only the first has the header.
#[test]
fn csv_shards_concatenate_to_the_whole_file() {
    let (dir, data) = data_file();
    let data = data.to_str().unwrap();
    let features = |shard: Option<&str>, name: &str| {
        let out = dir.path().join(name);
        let mut args = vec![
            "features",
            data,
            "--seq-len",
            "8",
            "--wavelet",
            "haar",
            "--level",
            "1",
            "--quiet",
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        args.extend(["-o", out.to_str().unwrap()]);
        let o = wavebench(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let whole = features(None, "whole.csv");
    let parts: Vec<String> = (1..=3)
        .map(|i| features(Some(&format!("{i}/3")), &format!("part{i}.csv")))
        .collect();
    assert!(parts.iter().all(|p| !p.is_empty()), "{parts:?}");
    assert!(whole.starts_with("window,") && !parts[1].starts_with("window,"));
    assert_eq!(parts.concat(), whole);
}

/// Parquet as pandas and pyarrow write it: a zone-aware time axis keeps its zone
/// (`start_time` carries each window's UTC offset, across a daylight saving change too),
/// decimal columns are read as numbers (with a warning naming a value the run's precision
/// cannot hold), and a decimal column that is not a channel does not stop the run. Each
/// was a panic (exit 101).
#[test]
fn parquet_with_time_zones_and_decimals_loads() {
    let dir = tempfile::tempdir().unwrap();
    python(
        r#"
import decimal, numpy as np, pandas as pd, pyarrow as pa, pyarrow.parquet as pq
n = 200
x = np.sin(np.arange(n) / 5)
pd.DataFrame({"date": pd.date_range("2021-01-01", periods=n, freq="h", tz="UTC"), "a": x}).to_parquet("utc.parquet")
# Berlin's clocks go forward at 2021-03-28 02:00 (+01:00, then +02:00).
pd.DataFrame({"date": pd.date_range("2021-03-27 12:00", periods=n, freq="h", tz="Europe/Berlin"), "a": x}).to_parquet("berlin.parquet")
dec = pa.array([decimal.Decimal(f"{v:.3f}") for v in x], pa.decimal128(10, 3))
long = pa.array([decimal.Decimal("1234567.123456789")] * n, pa.decimal128(20, 9))
pq.write_table(pa.table({"a": x, "d": dec, "long": long}), "dec.parquet")
"#,
        dir.path(),
    );
    let run = |file: &str, extra: &[&str]| {
        let path = dir.path().join(file);
        let args = [
            &[
                "prompts",
                path.to_str().unwrap(),
                "--seq-len",
                "96",
                "--stride",
                "24",
                "-o",
                "-",
            ][..],
            extra,
        ]
        .concat();
        let o = wavebench(&args);
        assert!(
            o.status.success(),
            "{file} {extra:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let records: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (records, String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (utc, _) = run("utc.parquet", &[]);
    assert_eq!(utc.len(), 5);
    assert_eq!(utc[0]["start_time"], "2021-01-01T00:00:00+00:00");
    assert_eq!(utc[1]["start_time"], "2021-01-02T00:00:00+00:00");
    let (berlin, _) = run("berlin.parquet", &[]);
    assert_eq!(berlin[0]["start_time"], "2021-03-27T12:00:00+01:00");
    // 24 hours later the wall clock reads 13:00: summer time began in between.
    assert_eq!(berlin[1]["start_time"], "2021-03-28T13:00:00+02:00");
    // The decimal columns are there but not asked for.
    let (plain, _) = run("dec.parquet", &["--columns", "a"]);
    assert_eq!(plain.len(), 5);
    // As channels: three decimals fit f32 as written; nine past a million do not.
    let (d, warned) = run("dec.parquet", &["--columns", "d,long"]);
    assert_eq!(d.len(), 10);
    assert!(!warned.contains("'d'"), "{warned}");
    assert!(
        warned.contains("'long'") && warned.contains("1234567.123456789 became 1234567.125"),
        "{warned}"
    );
    let (_, warned) = run("dec.parquet", &["--columns", "long", "--dtype", "f64"]);
    assert!(!warned.contains("became"), "f64 holds it: {warned}");
}

/// NDJSON takes its schema from every line: a column of whole numbers that turns decimal
/// after the first hundred lines loads (it was "cannot parse as Int64"), and an integer
/// past 64 bits is a number, refused by range with its column and row.
#[test]
fn ndjson_schema_comes_from_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let lines = |big: bool| -> String {
        (0..300)
            .map(|i| {
                let a = if i < 250 {
                    format!("{i}")
                } else {
                    format!("{i}.5")
                };
                let b = if big && i == 150 {
                    "1180591620717411303424".to_string()
                } else {
                    i.to_string()
                };
                format!("{{\"t\": {i}, \"a\": {a}, \"b\": {b}}}\n")
            })
            .collect()
    };
    let widen = dir.path().join("widen.jsonl");
    std::fs::write(&widen, lines(false)).unwrap();
    let o = wavebench(&[
        "features",
        widen.to_str().unwrap(),
        "--seq-len",
        "96",
        "--stride",
        "100",
        "--columns",
        "a",
        "--normalize",
        "none",
        "-o",
        "-",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    // Window 2 holds rows 200..296: its maximum is row 295's 295.5.
    assert_eq!(text.lines().count(), 3, "{text}");
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["max"], 295.5, "{last}");
    let big = dir.path().join("big.jsonl");
    std::fs::write(&big, lines(true)).unwrap();
    assert_input_error(
        &wavebench(&[
            "prompts",
            big.to_str().unwrap(),
            "--seq-len",
            "96",
            "-o",
            "-",
        ]),
        &["column 'b'", "data row 150", "too large"],
    );
}

/// A header written by a Windows spreadsheet (Windows-1252, not UTF-8) keeps its names:
/// "T (°C)" and "cost (€)", not U+FFFD boxes, and the run says how it read them.
#[test]
fn a_windows_1252_header_keeps_its_names() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("latin.csv");
    // 0xB0 is ° and 0x80 is € in Windows-1252; neither is UTF-8 on its own.
    let mut bytes = b"t;T (\xb0C);\"cost (\x80)\"\n".to_vec();
    for i in 0..40 {
        bytes.extend(format!("{i};{:.3};{}\n", (i as f64 * 0.3).sin(), i % 7).as_bytes());
    }
    std::fs::write(&csv, bytes).unwrap();
    let o = wavebench(&[
        "features",
        csv.to_str().unwrap(),
        "--level",
        "1",
        "--columns",
        "T (°C),cost (€)",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "the header is not UTF-8; its names were read as Windows-1252: t, T (°C), cost (€)"
        ),
        "{err}"
    );
    let out = String::from_utf8(o.stdout).unwrap();
    let columns: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["column"].to_string())
        .collect();
    assert_eq!(columns.len(), 2);
    assert_eq!(columns, ["\"T (°C)\"", "\"cost (€)\""]);
    // A UTF-8 header is taken as it is, without a word.
    let rows: String = (0..40).map(|i| format!("{i},{}\n", i % 5)).collect();
    std::fs::write(&csv, format!("t,T (°C)\n{rows}")).unwrap();
    let o = wavebench(&["features", csv.to_str().unwrap(), "--level", "1", "-o", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("\"column\":\"T (°C)\""));
}
