//! Shared test helpers: the fixture input generator and fixture loading.
#![allow(dead_code)]

use serde::Deserialize;
use std::path::PathBuf;

/// The LCG of scripts/gen_fixtures.py: multiples of 2^-20 in [-8, 8), exact in f32.
pub fn lcg_series(seed: u64, n: usize) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f64 - (1u64 << 23) as f64) / (1u64 << 20) as f64
        })
        .collect()
}

#[derive(Deserialize)]
pub struct Case {
    pub wavelet: String,
    pub mode: String,
    pub n: usize,
    pub level: usize,
    pub seed: u64,
    pub error: Option<String>,
    pub band_lens: Option<Vec<usize>>,
    pub offset: Option<usize>,
}

#[derive(Deserialize)]
pub struct MraCase {
    pub wavelet: String,
    pub mode: String,
    pub n: usize,
    pub level: usize,
    pub seed: u64,
    pub offset: usize,
    pub components: usize,
}

#[derive(Deserialize)]
pub struct Index {
    pub pywt_version: String,
    pub cases: Vec<Case>,
    pub mra: Vec<MraCase>,
}

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dwt")
}

pub fn load_index() -> Index {
    let text = std::fs::read_to_string(fixture_dir().join("index.json")).expect("fixture index");
    serde_json::from_str(&text).expect("fixture index parses")
}

pub fn load_f64(name: &str) -> Vec<f64> {
    let bytes = std::fs::read(fixture_dir().join(name)).expect("fixture data");
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

pub fn load_f32(name: &str) -> Vec<f32> {
    let bytes = std::fs::read(fixture_dir().join(name)).expect("fixture data");
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// The repository's copy of the benchmark data set (sample_data/README.md).
pub fn etth1() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_data/ETTh1.csv")
}

/// Run the real binary.
pub fn wavebench(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wavebench"))
        .args(args)
        .output()
        .expect("run wavebench")
}

/// A failure on the user's input: exit 2, exactly one line on stderr, containing every needle.
pub fn assert_input_error(o: &std::process::Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "'{n}' missing from: {err}");
    }
}

/// A failure on the user's input after warnings: exit 2, the last line on stderr the
/// error (it begins "wavebench: " and is no warning), containing every needle.
#[allow(dead_code)]
pub fn assert_input_error_after_warnings(o: &std::process::Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("wavebench: ") && !last.starts_with("wavebench: warning:"),
        "{err}"
    );
    for n in needles {
        assert!(last.contains(n), "'{n}' missing from: {last}");
    }
}
