//! Every input format through polars gives the same table (SPEC §4): CSV, TSV with a
//! UTF-8 BOM and `;` CSV (delimiters sniffed), Parquet, Arrow IPC and NDJSON, with the date
//! column detected as the x axis.

use polars::prelude::*;
use wavebench::data::{load, LoadOptions, Missing};

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
    assert!(refused.0.contains("'site'"), "{refused}");
    let opts = LoadOptions {
        missing: Missing::Interpolate,
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
    assert_eq!(
        t.channels[0].values,
        [1.5, 2.25, -3.0, 4.125],
        "{}",
        path.display()
    );
    assert_eq!(t.channels[1].values, [10.0, 11.0, 12.0, 13.0]);
    assert_eq!(t.skipped, ["site"]);
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
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
