//! `decompose`, `mra` and `waverec` in every output format, judged by NumPy, pandas and
//! PyWavelets (tests/helpers/check_coefficients.py, run by the project venv's python): the
//! files must load there, carry the series labels and settings, and hold pywt's numbers.

mod common;

use common::{assert_input_error, wavebench};
use std::path::{Path, PathBuf};

const CSV: &str = "sample_data/synthetic.csv";
const WINDOW: [&str; 8] = [
    "--rows",
    "0..300",
    "--seq-len",
    "64",
    "--stride",
    "50",
    "--dtype",
    "f64",
];

/// The venv's python (`make test` puts it first on PATH); `WAVEBENCH_PYTHON` overrides.
fn python() -> String {
    std::env::var("WAVEBENCH_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Run the checker over `files`; its JSON verdict per file.
fn check(
    kind: &str,
    wavelet: &str,
    level: usize,
    mode: &str,
    files: &[PathBuf],
) -> serde_json::Value {
    let o = std::process::Command::new(python())
        .arg("tests/helpers/check_coefficients.py")
        .args([CSV, "64", wavelet, &level.to_string(), mode, kind])
        .args(files)
        .output()
        .expect("python3 with numpy, pandas, pyarrow and pywt (the project venv) on PATH");
    assert!(
        o.status.success(),
        "checker failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("checker prints JSON")
}

fn run_ok(args: &[&str]) -> String {
    let o = wavebench(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?}: {err}");
    err
}

fn outputs(dir: &Path, stem: &str, exts: &[&str]) -> Vec<PathBuf> {
    exts.iter()
        .map(|e| dir.join(format!("{stem}.{e}")))
        .collect()
}

/// The windows of `WINDOW` over the synthetic data's 4 channels: starts 0, 50, …, 200.
fn expected_labels(v: &serde_json::Value) {
    let starts: Vec<u64> = (0..5).flat_map(|w| [w * 50; 4]).collect();
    assert_eq!(v["series"], 20, "{v}");
    let got: Vec<u64> = v["starts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert_eq!(got, starts);
    let columns = v["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 20);
    assert_eq!(columns[0], "trend_seasonal");
    assert_eq!(columns[3], "random_walk");
    // The file has dates, so each window's start time is written too, in every format but
    // the .npy (a bare array: no labels, no settings).
    match v["start_times"].as_array() {
        Some(times) => {
            assert_eq!(times.len(), 20);
            assert_eq!(times[4], "2020-01-03T02:00:00", "row 50 is 50 hours in");
        }
        None => assert!(v["meta"].is_null(), "only the .npy has no start times: {v}"),
    }
}

#[test]
fn decompose_writes_pywts_coefficients_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let files = outputs(dir.path(), "c", &["json", "npz", "parquet", "npy"]);
    for f in &files {
        let mut args = vec![
            "decompose",
            CSV,
            "--wavelet",
            "sym5",
            "--level",
            "2",
            "--mode",
            "symmetric",
        ];
        args.extend(WINDOW);
        args.extend(["-o", f.to_str().unwrap()]);
        let err = run_ok(&args);
        if f.extension().unwrap() == "npy" {
            // The .npy loses the band boundaries: they are said, not dropped in silence.
            assert!(err.contains("cA2 [:, 0:"), "{err}");
        }
    }
    let v = check("coeffs", "sym5", 2, "symmetric", &files);
    for f in &files {
        let r = &v[f.to_str().unwrap()];
        assert!(r["max_rel_err"].as_f64().unwrap() < 1e-12, "{f:?}: {r}");
        expected_labels(r);
        if !r["meta"].is_null() {
            assert_eq!(r["meta"]["wavelet"], "sym5", "{f:?}");
            assert_eq!(r["meta"]["mode"], "symmetric", "{f:?}");
            assert_eq!(r["meta"]["level"], 2, "{f:?}");
            assert_eq!(r["meta"]["dtype"], "f64", "{f:?}");
        }
    }
}

#[test]
fn mra_components_are_pywts_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let files = outputs(dir.path(), "m", &["json", "npz", "parquet"]);
    for f in &files {
        let mut args = vec!["mra", CSV, "--wavelet", "db4", "--level", "2"];
        args.extend(WINDOW);
        args.extend(["-o", f.to_str().unwrap()]);
        run_ok(&args);
    }
    let v = check("components", "db4", 2, "reflect", &files);
    for f in &files {
        let r = &v[f.to_str().unwrap()];
        assert!(r["max_rel_err"].as_f64().unwrap() < 1e-12, "{f:?}: {r}");
        expected_labels(r);
    }
}

#[test]
fn waverec_inverts_decompose_from_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut signals = Vec::new();
    for ext in ["json", "npz", "parquet"] {
        let c = d.join(format!("c.{ext}"));
        let mut args = vec![
            "decompose",
            CSV,
            "--wavelet",
            "coif2",
            "--level",
            "3",
            "--mode",
            "antireflect",
        ];
        args.extend(WINDOW);
        args.extend(["-o", c.to_str().unwrap()]);
        run_ok(&args);
        // Each coefficient format to a different signal format.
        let out = d.join(format!(
            "s_{ext}.{}",
            match ext {
                "json" => "npz",
                "npz" => "parquet",
                _ => "json",
            }
        ));
        let err = run_ok(&["waverec", c.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(
            err.is_empty(),
            "the file's own settings need no notice: {err}"
        );
        signals.push(out);
    }
    let v = check("signal", "coif2", 3, "antireflect", &signals);
    for f in &signals {
        let r = &v[f.to_str().unwrap()];
        assert!(r["max_rel_err"].as_f64().unwrap() < 1e-10, "{f:?}: {r}");
        expected_labels(r);
    }

    // Options that contradict the file's settings are refused, not obeyed in silence.
    let c = d.join("c.npz");
    let c = c.to_str().unwrap();
    let o = wavebench(&["waverec", c, "--wavelet", "db4", "-o", "-"]);
    assert_input_error(&o, &["c.npz", "--wavelet coif2", "--wavelet db4"]);
    let o = wavebench(&["waverec", c, "--level", "2", "-o", "-"]);
    assert_input_error(&o, &["level-3", "--level 2"]);
    let o = wavebench(&["waverec", c, "-o", &d.join("s.txt").to_string_lossy()]);
    assert_input_error(&o, &["s.txt", ".npz"]);
}

#[test]
fn waverec_reads_pywts_own_coefficients_saved_with_numpy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let saved = d.join("pywt.npz");
    // What a pywt user has: np.savez(f, *pywt.wavedec(...)) of 3 series, compressed.
    let script = format!(
        "import numpy as np, pandas as pd, pywt\n\
         x = pd.read_csv('{CSV}').iloc[:101, 1:4].to_numpy().T.copy()\n\
         np.savez_compressed(r'{}', *pywt.wavedec(x, 'sym4', level=2, mode='periodization'))\n",
        saved.display()
    );
    let o = std::process::Command::new(python())
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = saved.to_str().unwrap();

    // Without the settings the file cannot say, the default wavelet is used, and said.
    let out = d.join("r.npz");
    let o = wavebench(&["waverec", s, "-o", out.to_str().unwrap()]);
    // db4/reflect cannot chain these band lengths: refused with a hint.
    assert_input_error(&o, &["pywt.npz", "another --wavelet or --mode"]);

    let err = run_ok(&[
        "waverec",
        s,
        "--wavelet",
        "sym4",
        "--mode",
        "periodization",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(err.is_empty(), "{err}");
    let script = format!(
        "import numpy as np, pandas as pd\n\
         x = pd.read_csv('{CSV}').iloc[:101, 1:4].to_numpy().T\n\
         r = np.load(r'{}')['signal']\n\
         assert r.shape == (3, 102), r.shape\n\
         print(float(np.abs(r[:, :101] - x).max()))\n",
        out.display()
    );
    let o = std::process::Command::new(python())
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err: f64 = String::from_utf8_lossy(&o.stdout).trim().parse().unwrap();
    assert!(err < 1e-10, "round trip error {err}");
}

/// An archive of many members (pywt's bands beside 20,000 others) reads back whole and
/// right: each member is looked up by name, not found by a scan of all of them (100,000
/// members took 81 s that way; BENCHMARKS.md has the figure now).
#[test]
fn waverec_reads_an_archive_of_many_members() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("many.npz");
    let script = format!(
        "import numpy as np, pywt\n\
         x = np.sin(np.arange(64) / 5.0)\n\
         extra = {{f'extra_{{k}}': np.zeros(1) for k in range(20000)}}\n\
         np.savez(r'{}', *pywt.wavedec(x, 'haar', level=3, mode='periodization'), **extra)\n",
        saved.display()
    );
    let o = std::process::Command::new(python())
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.path().join("r.json");
    let s = saved.to_str().unwrap();
    run_ok(&[
        "waverec",
        s,
        "--wavelet",
        "haar",
        "--mode",
        "periodization",
        "-o",
        out.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let text = v.to_string();
    let numbers: Vec<f64> = find_signal(&v).expect(&text);
    assert_eq!(numbers.len(), 64, "{text}");
    for (i, r) in numbers.iter().enumerate() {
        assert!(
            (r - (i as f64 / 5.0).sin()).abs() < 1e-12,
            "sample {i}: {r}"
        );
    }
}

/// The first array of 64 numbers in a JSON document (the reconstructed signal).
fn find_signal(v: &serde_json::Value) -> Option<Vec<f64>> {
    match v {
        serde_json::Value::Array(a) if a.len() == 64 && a.iter().all(|x| x.is_f64()) => {
            Some(a.iter().filter_map(|x| x.as_f64()).collect())
        }
        serde_json::Value::Array(a) => a.iter().find_map(find_signal),
        serde_json::Value::Object(m) => m.values().find_map(find_signal),
        _ => None,
    }
}
