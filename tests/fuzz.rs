//! Readers of files a user hands over, fed damaged and made-up bytes (proptest): the
//! `.npy`/`.npz` readers, `waverec`'s coefficient files and the NDJSON loader answer with
//! a value or an error, never a panic, and an undamaged file reads back as written.

use proptest::prelude::*;
use std::io::Cursor;
use wavebench::npy::{self, Data, Owned};

/// A damage done to a valid file's bytes.
#[derive(Debug, Clone)]
enum Damage {
    /// Cut the file at this fraction of its length.
    Truncate(f64),
    /// Overwrite bytes at these fractions of its length with these values.
    Flip(Vec<(f64, u8)>),
    /// Insert bytes at a fraction of its length.
    Insert(f64, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (0.0..1.0f64).prop_map(Damage::Truncate),
        prop::collection::vec((0.0..1.0f64, any::<u8>()), 1..8).prop_map(Damage::Flip),
        (0.0..1.0f64, prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, b)| Damage::Insert(at, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len.saturating_sub(1));
    match d {
        Damage::Truncate(f) => bytes.truncate((f * bytes.len() as f64) as usize),
        Damage::Flip(flips) => {
            for &(f, v) in flips {
                if !bytes.is_empty() {
                    let i = at(f, bytes.len());
                    bytes[i] = v;
                }
            }
        }
        Damage::Insert(f, b) => {
            let i = at(*f, bytes.len());
            bytes.splice(i..i, b.iter().copied());
        }
    }
}

/// Any shape of 1 to 3 dimensions holding up to 64 values.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..5, 1..4)
}

fn npy_bytes(shape: &[usize], values: &[f64], f32s: bool) -> Vec<u8> {
    let n: usize = shape.iter().product();
    let v = &values[..n];
    let narrow: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    let data = if f32s {
        Data::F32(&narrow)
    } else {
        Data::F64(v)
    };
    let mut out = Vec::new();
    npy::write(&mut out, shape, &data).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn npy_reads_what_it_wrote_and_survives_damage(
        shape in shape(),
        values in prop::collection::vec(-1e6..1e6f64, 64),
        f32s in any::<bool>(),
        d in damage(),
    ) {
        let bytes = npy_bytes(&shape, &values, f32s);
        let n: usize = shape.iter().product();
        let back = npy::read(&mut Cursor::new(&bytes), bytes.len() as u64).unwrap();
        prop_assert_eq!(&back.shape, &shape);
        match &back.data {
            Owned::F64(v) => prop_assert_eq!(&v[..], &values[..n]),
            Owned::F32(v) => prop_assert!(v.iter().zip(&values).all(|(a, b)| *a == *b as f32)),
            other => prop_assert!(false, "read back as {:?}", other),
        }
        let mut bad = bytes.clone();
        apply(&mut bad, &d);
        // A value or an error; if a value, its shape holds its data.
        if let Ok(a) = npy::read(&mut Cursor::new(&bad), bad.len() as u64) {
            let len = match &a.data {
                Owned::F32(v) => v.len(),
                Owned::F64(v) => v.len(),
                Owned::I64(v) => v.len(),
                Owned::Text(v) => v.len(),
            };
            prop_assert_eq!(len, a.shape.iter().product::<usize>());
        }
    }

    #[test]
    fn arbitrary_bytes_are_never_an_array_by_accident(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        prop_assert!(npy::read(&mut Cursor::new(&bytes), bytes.len() as u64).is_err());
    }

    #[test]
    fn npz_and_coefficient_files_survive_damage(
        shape in shape(),
        values in prop::collection::vec(-1e3..1e3f64, 64),
        d in damage(),
        as_json in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let n: usize = shape.iter().product();
        let path;
        let mut bytes;
        if as_json {
            // A coefficient file as `decompose` writes it, then damaged.
            path = dir.path().join("c.json");
            bytes = format!(
                "{{\"wavelet\":\"haar\",\"mode\":\"symmetric\",\"level\":1,\"dtype\":\"f64\",\"series\":[{{\"column\":\"x\",\"bands\":{{\"cA1\":{:?},\"cD1\":{:?}}}}}]}}",
                &values[..n],
                &values[..n]
            )
            .into_bytes();
        } else {
            path = dir.path().join("c.npz");
            let v = &values[..n];
            let mut out = Vec::new();
            npy::write_npz(
                &mut out,
                &[("arr_0", shape.clone(), Data::F64(v)), ("arr_1", shape.clone(), Data::F64(v))],
            )
            .unwrap();
            bytes = out;
            // The undamaged archive reads back.
            std::fs::write(&path, &bytes).unwrap();
            let arrays = npy::read_npz(std::fs::File::open(&path).unwrap()).unwrap();
            prop_assert_eq!(arrays.len(), 2);
            prop_assert_eq!(&arrays[0].0, "arr_0");
        }
        apply(&mut bytes, &d);
        std::fs::write(&path, &bytes).unwrap();
        if !as_json {
            let _ = npy::read_npz(std::fs::File::open(&path).unwrap());
        }
        // `waverec` reads either through the same entry: a value or an error.
        let _ = wavebench::band_table::read_coeffs(&path);
    }

    #[test]
    fn ndjson_lines_of_any_shape_load_or_say_why(
        lines in prop::collection::vec(
            prop_oneof![
                (-1e9..1e9f64, any::<i32>()).prop_map(|(a, b)| format!("{{\"a\": {a}, \"b\": {b}}}")),
                (-1e3..1e3f64).prop_map(|a| format!("{{\"a\": {a}, \"b\": null}}")),
                Just("{\"a\": \"text\", \"b\": 1}".to_string()),
                Just("{\"a\": [1, 2], \"b\": {\"c\": 3}}".to_string()),
                Just("{\"a\": 1".to_string()),
                Just("[1, 2, 3]".to_string()),
                Just(String::new()),
                Just("{\"c\": 7}".to_string()),
                "[ -~]{0,20}",
            ],
            1..40,
        ),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.ndjson");
        std::fs::write(&path, lines.join("\n")).unwrap();
        for missing in [wavebench_core::data::Missing::Error, wavebench_core::data::Missing::Zero] {
            let opts = wavebench_core::run_spec::LoadOptions {
                missing,
                ..Default::default()
            };
            if let Ok(t) = wavebench::data::load(&path, &opts) {
                // What loaded is a table whose channels all have its rows.
                let rows = t.rows();
                prop_assert!(t.channels.iter().all(|c| c.values.len() == rows));
            }
        }
    }
}

/// The NDJSON property above is not vacuous: well-formed lines load, columns and rows.
#[test]
fn well_formed_ndjson_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ok.ndjson");
    let lines: Vec<String> = (0..30)
        .map(|i| format!("{{\"a\": {}, \"b\": {i}}}", i as f64 * 0.5))
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let t = wavebench::data::load(&path, &Default::default()).unwrap();
    assert_eq!((t.channels.len(), t.rows()), (2, 30));
}
