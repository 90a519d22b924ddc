//! Every input format through polars gives the same table (docs/data.md): CSV, TSV with a
//! UTF-8 BOM and `;` CSV (delimiters sniffed), Parquet, Arrow IPC and NDJSON, with the date
//! column detected as the x axis.

use polars::prelude::*;
use wavebench::data::load;
use wavebench_core::data::Missing;
use wavebench_core::engine::DType;
use wavebench_core::run_spec::LoadOptions;

fn frame() -> DataFrame {
    df!(
        "date" => ["2021-01-01 00:00:00", "2021-01-01 01:00:00", "2021-01-01 02:00:00", "2021-01-01 03:00:00"],
        "load" => [1.5f64, 2.25, -3.0, 4.125],
        "temp" => [10i64, 11, 12, 13],
        "site" => ["a", "b", "c", "d"],
    )
    .unwrap()
}

fn check(path: &std::path::Path) {
    // `site` is text: refused under the default policy, skipped with a warning otherwise.
    let refused = load(path, &LoadOptions::default()).unwrap_err();
    assert!(refused.to_string().contains("'site'"), "{refused}");
    // f32 runs read the numbers as f32 (these values are exact in both).
    for dtype in [DType::F64, DType::F32] {
        let opts = LoadOptions {
            missing: Missing::Interpolate,
            dtype,
            ..Default::default()
        };
        let t = load(path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            t.time.as_ref().map(|t| t.name.as_str()),
            Some("date"),
            "{}",
            path.display()
        );
        let time = t.time.as_ref().unwrap();
        assert_eq!(time.len(), 4);
        assert_eq!(time.label(1).as_deref(), Some("2021-01-01T01:00:00"));
        assert_eq!(
            time.step(),
            Some(3_600_000),
            "an hourly grid is start + step"
        );
        let names: Vec<&str> = t.channels.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["load", "temp"], "{}", path.display());
        for c in &t.channels {
            assert_eq!(c.values.dtype(), dtype, "{} {}", path.display(), c.name);
        }
        assert_eq!(
            t.channels[0].values.to_f64(),
            [1.5, 2.25, -3.0, 4.125],
            "{}",
            path.display()
        );
        assert_eq!(t.channels[1].values.to_f64(), [10.0, 11.0, 12.0, 13.0]);
        assert_eq!(t.skipped, ["site"]);
        assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    }
}

#[test]
fn every_format_loads_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = "date,load,temp,site\n2021-01-01 00:00:00,1.5,10,a\n2021-01-01 01:00:00,2.25,11,b\n2021-01-01 02:00:00,-3.0,12,c\n2021-01-01 03:00:00,4.125,13,d\n";
    std::fs::write(d.join("plain.csv"), csv).unwrap();
    std::fs::write(
        d.join("bom.tsv"),
        format!("\u{feff}{}", csv.replace(',', "\t")),
    )
    .unwrap();
    std::fs::write(d.join("semicolon.txt"), csv.replace(',', ";")).unwrap();
    let mut df = frame();
    ParquetWriter::new(std::fs::File::create(d.join("t.parquet")).unwrap())
        .finish(&mut df)
        .unwrap();
    IpcWriter::new(std::fs::File::create(d.join("t.arrow")).unwrap())
        .finish(&mut df)
        .unwrap();
    let ndjson: String = (0..4)
        .map(|i| {
            let row = df.get_row(i).unwrap().0;
            format!(
                "{{\"date\":\"{}\",\"load\":{},\"temp\":{},\"site\":\"{}\"}}\n",
                row[0].get_str().unwrap(),
                row[1],
                row[2],
                row[3].get_str().unwrap()
            )
        })
        .collect();
    std::fs::write(d.join("t.ndjson"), ndjson).unwrap();
    for f in [
        "plain.csv",
        "bom.tsv",
        "semicolon.txt",
        "t.parquet",
        "t.arrow",
        "t.ndjson",
    ] {
        check(&d.join(f));
    }
}

/// f32 runs parse each decimal straight to f32: rounded once, as numpy's
/// `float32("…")` does, not through f64 (which would round this one down to 1.0).
#[test]
fn f32_runs_parse_numbers_straight_to_f32() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.csv");
    // 1 + 2^-24 + 2^-60: halfway between two f32 plus a hair, which f64 cannot hold.
    std::fs::write(&p, "x,y\n1.000000059604644776,1\n0.1,oops\n2.5,3\n").unwrap();
    for (dtype, x0, x1) in [
        (DType::F32, 1.0000001192092896, 0.1f32 as f64),
        (DType::F64, 1.0000000596046448, 0.1),
    ] {
        let opts = LoadOptions {
            missing: Missing::Zero,
            dtype,
            ..Default::default()
        };
        let t = load(&p, &opts).unwrap();
        assert_eq!(t.channels[0].values.dtype(), dtype);
        assert_eq!(t.channels[0].values.to_f64(), [x0, x1, 2.5], "{dtype:?}");
        // The text cell is parsed by hand in the same precision.
        assert_eq!(t.channels[1].values.dtype(), dtype);
        assert!(t.channels[1].values.get(1).is_nan());
    }
}

/// A text cell past the rows polars infers column types from (10,000) is found like any
/// other: named under `--missing error`, a missing value under the other policies.
#[test]
fn a_late_text_cell_is_named_or_made_missing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("late.csv");
    let mut text = String::from("volts,amps\n");
    for i in 0..12_050 {
        if i == 12_000 {
            text += "n/a?,1\n";
        } else {
            text += &format!("{}.25,{}\n", i % 13, i % 7);
        }
    }
    std::fs::write(&p, text).unwrap();
    for dtype in [DType::F32, DType::F64] {
        let refused = load(
            &p,
            &LoadOptions {
                dtype,
                ..Default::default()
            },
        )
        .unwrap_err();
        for part in [
            "late.csv",
            "'volts'",
            "data row 12000",
            "line 12002",
            "'n/a?'",
        ] {
            assert!(refused.to_string().contains(part), "{part}: {refused}");
        }
        let opts = LoadOptions {
            missing: Missing::Interpolate,
            dtype,
            ..Default::default()
        };
        let mut t = load(&p, &opts).unwrap();
        assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
        assert!(
            t.warnings[0].contains("1 non-numeric cell"),
            "{:?}",
            t.warnings
        );
        opts.missing.apply(&mut t).unwrap();
        let names: Vec<&str> = t.channels.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["volts", "amps"]);
        assert_eq!(t.channels[0].values.dtype(), dtype);
        // Interpolated between its neighbours (11999 % 13 = 0, 12001 % 13 = 2).
        assert_eq!(t.channels[0].values.get(12_000), 1.25);
    }
}

/// Dates whose fields are not zero-padded (`1990/1/1 0:00`, as exchange_rate.csv writes
/// them) are the time axis, read as dates, not labels.
#[test]
fn unpadded_dates_are_dates() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rates.csv");
    let mut text = String::from("date,a\n");
    for d in 1..=20 {
        text.push_str(&format!("1990/1/{d} 0:00,{}\n", (d as f64 * 0.7).sin()));
    }
    std::fs::write(&csv, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_wavebench"))
        .args([
            "features",
            csv.to_str().unwrap(),
            "--seq-len",
            "8",
            "--stride",
            "12",
        ])
        .args(["--wavelet", "haar", "--level", "1", "--quiet", "-o", "-"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let starts: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["start_time"].to_string())
        .collect();
    assert_eq!(
        starts,
        ["\"1990-01-01T00:00:00\"", "\"1990-01-13T00:00:00\""]
    );
}
