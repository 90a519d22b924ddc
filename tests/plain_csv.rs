//! The wheel's polars-free CSV reader (`wavebench_files::plain_csv`) against the
//! application's polars loader: over the sample data and a corpus of the CSVs users write
//! (dates, indexes, booleans, text cells, ragged rows, encodings, separators), under each
//! loading option, the same table (names, every value's bits, time axis, skipped columns,
//! warnings) or the same refusal.

use std::path::Path;
use wavebench_core::data::{Missing, Table, TimeColumn};
use wavebench_core::numeric::DType;
use wavebench_core::run_spec::LoadOptions;

/// A table as text that differs wherever two tables differ.
fn describe(t: &Table) -> String {
    let mut s = format!("time: {:?}\nskipped: {:?}\n", t.time, t.skipped);
    for w in &t.warnings {
        s += &format!("warning: {w}\n");
    }
    for c in &t.channels {
        let bits: Vec<u64> = c.values.iter_f64().map(f64::to_bits).collect();
        s += &format!("{} ({} values): {bits:?}\n", c.name, bits.len());
    }
    s
}

/// The loading options each file is read under.
fn option_sets(first_column: &str) -> Vec<(String, LoadOptions)> {
    let base = LoadOptions::default();
    let mut sets = vec![("default".to_string(), base.clone())];
    for missing in [Missing::Interpolate, Missing::Zero] {
        sets.push((
            format!("--missing {missing:?}"),
            LoadOptions {
                missing,
                ..base.clone()
            },
        ));
    }
    sets.push((
        "--dtype f32 --missing interpolate".into(),
        LoadOptions {
            dtype: DType::F32,
            missing: Missing::Interpolate,
            ..base.clone()
        },
    ));
    sets.push((
        "--time-column none --missing interpolate".into(),
        LoadOptions {
            time_column: TimeColumn::None,
            missing: Missing::Interpolate,
            ..base.clone()
        },
    ));
    sets.push((
        format!("--time-column {first_column}"),
        LoadOptions {
            time_column: TimeColumn::Named(first_column.to_string()),
            missing: Missing::Interpolate,
            ..base.clone()
        },
    ));
    sets.push((
        format!("--columns {first_column}"),
        LoadOptions {
            columns: Some(vec![first_column.to_string()]),
            missing: Missing::Interpolate,
            ..base
        },
    ));
    sets
}

/// Where the two readers differ on `path`, one line each.
fn differences(path: &Path) -> Vec<String> {
    let text = std::fs::read(path).unwrap();
    let first_column = String::from_utf8_lossy(&text)
        .trim_start_matches('\u{feff}')
        .split([',', '\t', ';', '\n'])
        .next()
        .unwrap_or_default()
        .trim_matches('"')
        .to_string();
    let mut found = Vec::new();
    for (name, opts) in option_sets(&first_column) {
        let polars = wavebench::data::load(path, &opts);
        let plain = wavebench_files::plain_csv::load(path, &opts);
        let at = format!("{} [{name}]", path.display());
        match (polars, plain) {
            (Ok(a), Ok(b)) if describe(&a) != describe(&b) => found.push(format!(
                "{at}: tables differ\n--- polars\n{}--- plain\n{}",
                describe(&a),
                describe(&b)
            )),
            (Ok(_), Ok(_)) => {}
            // polars' own parse errors have polars' words; ours must match word for word.
            (Err(a), Err(b))
                if a.to_string() != b.to_string() && !a.to_string().contains("cannot parse as") =>
            {
                found.push(format!(
                    "{at}: refusals differ\n  polars: {a}\n  plain:  {b}"
                ))
            }
            (Err(_), Err(_)) => {}
            (Ok(a), Err(b)) => found.push(format!(
                "{at}: only the plain reader refuses: {b}\n{}",
                describe(&a)
            )),
            (Err(a), Ok(b)) => {
                found.push(format!("{at}: only polars refuses: {a}\n{}", describe(&b)))
            }
        }
    }
    found
}

/// The CSVs users write, each a case the two readers must agree on.
fn corpus() -> Vec<(&'static str, Vec<u8>)> {
    let mut long = String::from("t,x,y,when\n");
    for i in 0..10_050 {
        // Past polars' 10,000 inference rows: an integer column turns decimal, a number
        // column meets text.
        let x = if i == 10_020 {
            "2.5".to_string()
        } else {
            i.to_string()
        };
        let y = if i == 10_040 {
            "abc".to_string()
        } else {
            format!("{}.25", i % 7)
        };
        long += &format!("{i},{x},{y},2020-01-01 00:00:{:02}\n", i % 60);
    }
    let cases: Vec<(&str, &str)> = vec![
        (
            "dates.csv",
            "date,a,b\n2020-01-01,1.5,2\n2020-01-02,2.5,3\n2020-01-03,3.5,4\n",
        ),
        ("index.csv", "t,a\n0,1.0\n1,2.0\n2,3.0\n"),
        ("index_unordered.csv", "t,a\n0,1.0\n2,2.0\n1,3.0\n"),
        ("index_gap.csv", "step,a\n0,1.0\n,2.0\n2,3.0\n"),
        (
            "booleans.csv",
            "a,flag\n1.0,True\n2.0,false\n3.0,\n4.0,TRUE\n",
        ),
        ("bool_and_int.csv", "a,flag\n1.0,true\n2.0,1\n3.0,0\n"),
        ("text_cells.csv", "a,b\n1.0,2\n2.0,NA\n3.0,n/a\n4.0,5\n"),
        ("empty_column.csv", "a,b,c\n1.0,,3\n2.0,,4\n"),
        ("labels.csv", "a,label\n1.0,up\n2.0,down\n"),
        (
            "two_axes.csv",
            "date,a,updated\n2020-01-01,1,2020-02-01\n2020-01-02,2,2020-02-02\n",
        ),
        (
            "quoted.csv",
            "\"date\",\"a b\",\"c,d\"\n\"2020-01-01\",\"1.5\",2\n\"2020-01-02\",\"2.5\",3\n",
        ),
        ("bom.csv", "\u{feff}date,a\n2020-01-01,1\n2020-01-02,2\n"),
        ("crlf.csv", "date,a\r\n2020-01-01,1\r\n2020-01-02,2\r\n"),
        (
            "tabs.tsv",
            "date\ta\tb\n2020-01-01\t1\t2\n2020-01-02\t3\t4\n",
        ),
        (
            "semicolons.csv",
            "date;a;b\n2020-01-01;1.5;2\n2020-01-02;3.5;4\n",
        ),
        ("spaces.csv", "a,b\n 1.5,2\n2.5 , 3\n"),
        ("infinite.csv", "a,b\n1.5,inf\n2.5,3\n"),
        ("nans.csv", "a,b,c\n1.5,NaN,nan\n2.5,3,4\n"),
        (
            "big_ints.csv",
            "a,b\n9007199254740993,1\n9223372036854775807,2\n",
        ),
        (
            "float_forms.csv",
            "a,b,c,d,e\n1e5,.5,5.,+1.5,-2E-3\n2e5,.25,6.,+2.5,3\n",
        ),
        ("duplicates.csv", "a,a,b,a\n1,2,3,4\n5,6,7,8\n"),
        ("duplicate_clash.csv", "a,a,a_duplicated_0\n1,2,3\n5,6,7\n"),
        ("trailing_separator.csv", "a,b,\n1,2,\n3,4,\n"),
        ("short_rows.csv", "a,b,c\n1,2,3\n4,5\n6,7,8\n"),
        ("long_rows.csv", "a,b\n1,2\n3,4,5\n"),
        ("blank_lines.csv", "a,b\n1,2\n\n3,4\n\n"),
        ("blank_lines_crlf.csv", "a,b\r\n1,2\r\n\r\n3,4\r\n"),
        ("blank_at_end.csv", "a,b\n1,2\n3,4\n\n\n"),
        ("no_final_newline.csv", "a,b\n1,2\n3,4"),
        ("whitespace_line.csv", "a,b\n1,2\n \n3,4\n"),
        ("quoted_newline.csv", "name,a\n\"two\nlines\",1\n\nx,2\n"),
        ("header_only.csv", "a,b\n"),
        ("day_first.csv", "date,a\n31/01/2020,1\n01/02/2020,2\n"),
        (
            "ambiguous_dates.csv",
            "date,a\n01/02/2020,1\n02/02/2020,2\n",
        ),
        ("unpadded.csv", "date,a\n2016-7-1 0:00,1\n2016-7-1 1:00,2\n"),
        ("times.csv", "clock,a\n12:30,1\n12:45,2\n"),
        ("int_dates.csv", "date,a\n20160701,1\n20160702,2\n"),
        ("not_dates.csv", "ds,a\nfirst,1\nsecond,2\n"),
        ("beyond_f32.csv", "a,b\n1e39,1\n2,3\n"),
        ("text_only.csv", "a,b\nx,y\nz,w\n"),
        ("one_column.csv", "a\n1\n2\n3\n"),
    ];
    let mut files: Vec<(&str, Vec<u8>)> = cases
        .into_iter()
        .map(|(n, t)| (n, t.as_bytes().to_vec()))
        .collect();
    files.push(("long.csv", long.into_bytes()));
    files.push((
        "latin.csv",
        b"date,T (\xb0C),p\n2020-01-01,1,2\n2020-01-02,3,4\n".to_vec(),
    ));
    files
}

#[test]
fn the_plain_reader_reads_every_csv_as_polars_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut found = Vec::new();
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir("sample_data")
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "sample data: {paths:?}");
    for (name, bytes) in corpus() {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        paths.push(path);
    }
    for path in &paths {
        found.extend(differences(path));
    }
    assert!(
        found.is_empty(),
        "{} differences:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn other_formats_are_refused_in_one_line() {
    let parquet = Path::new("sample_data/sunspots.parquet");
    let e = wavebench_files::plain_csv::load(parquet, &LoadOptions::default()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("sample_data/sunspots.parquet: Parquet is read by"),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
}
