//! Time the polars loader and the wheel's plain CSV reader on one file, and check that
//! their tables are the same (names, every value's bits, rows): `cargo run --example
//! load_compare -- FILE.csv`.

use std::time::Instant;
use wavebench_core::run_spec::LoadOptions;

fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("FILE.csv"));
    let opts = LoadOptions::default();
    for round in 1..=3 {
        let t = Instant::now();
        let polars = wavebench::data::load(&path, &opts).expect("polars loads it");
        let polars_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let plain = wavebench_files::plain_csv::load(&path, &opts).expect("plain loads it");
        let plain_s = t.elapsed().as_secs_f64();
        let same = polars.channels.len() == plain.channels.len()
            && polars.rows() == plain.rows()
            && polars.channels.iter().zip(&plain.channels).all(|(a, b)| {
                a.name == b.name
                    && a.values
                        .iter_f64()
                        .map(f64::to_bits)
                        .eq(b.values.iter_f64().map(f64::to_bits))
            })
            && format!("{:?}", polars.time) == format!("{:?}", plain.time)
            && polars.warnings == plain.warnings;
        println!(
            "round {round}: {} rows x {} channels; polars {polars_s:.2} s, plain {plain_s:.2} s; same table: {same}",
            plain.rows(),
            plain.channels.len()
        );
    }
}
