use super::*;
use crate::data::{Channel, Table};
use crate::engine::{Selected, Values};
use crate::prompt::builtin_prompter;
use crate::run_spec::{Purpose, RunSpec, NATIVE_ONLY};
use crate::timing::Timer;
use crate::wavelet::{self, Mode};

/// B samples of N channels, T long: a smooth signal with noise and an offset per channel.
fn batch(b: usize, n: usize, t: usize) -> Vec<f64> {
    let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
    (0..b * n * t)
        .map(|i| {
            let (c, s) = ((i / t) % n, i % t);
            (s as f64 * 0.07 * (c + 1) as f64).sin() * 3.0
                + c as f64
                + (next() % 1000) as f64 / 500.0
        })
        .collect()
}

/// The same batch through the CLI's pipeline: channel c holds the B samples' rows end to
/// end, windows of T with stride T (what the wheel did before it read rows in place).
fn by_pipeline(
    x: &[f64],
    (b, n, t): (usize, usize, usize),
    plan: &Plan,
    dtype: DType,
    aggregate: Aggregate,
    normalize: Normalize,
) -> Vec<Features> {
    let channels = (0..n)
        .map(|c| {
            let v: Vec<f64> = (0..b)
                .flat_map(|s| x[(s * n + c) * t..][..t].iter().copied())
                .collect();
            Channel {
                name: c.to_string(),
                values: match dtype {
                    DType::F32 => Values::F32(v.iter().map(|&v| v as f32).collect()),
                    DType::F64 => Values::F64(v),
                },
            }
        })
        .collect();
    let table = Table {
        channels,
        ..Table::default()
    };
    let cfg = crate::config::Config {
        transform: plan.transform(),
        dtype,
        seq_len: Some(t),
        stride: t,
        normalize: Some(normalize),
        aggregate,
        batch_size: b,
        ..Default::default()
    };
    let spec = RunSpec::new(cfg, Purpose::Features, &NATIVE_ONLY).unwrap();
    let units = spec
        .prepare(&table)
        .unwrap()
        .features(
            &table,
            &mut Selected::native(),
            &mut Timer::new(false),
            |_| true,
        )
        .unwrap();
    units.into_iter().map(|u| u.features).collect()
}

fn rows_of<T>(x: &[T], t: usize) -> Vec<&[T]> {
    x.chunks_exact(t).collect()
}

fn by_rows<T: Real>(
    x: &[T],
    channels: usize,
    plan: &Plan,
    aggregate: Aggregate,
    normalize: Normalize,
) -> Vec<Features> {
    let rows = rows_of(x, plan.len);
    Rows {
        rows: &rows,
        channels,
    }
    .features(plan, aggregate, normalize, true, Describe::new(plan, false))
    .unwrap()
}

#[test]
fn features_equal_the_pipelines_to_the_bit() {
    let dims @ (b, n, t) = (5, 3, 100);
    let x = batch(b, n, t);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    // reflect runs in the input's precision; smooth extrapolates, so f32 input runs in
    // f64. Levels 1 to 3 and three modes: the rows path gathers rows in place into the
    // lane kernel, the pipeline copies windows out of a table first.
    for (wavelet, mode, level) in [
        ("db4", "reflect", 1),
        ("db4", "reflect", 3),
        ("sym3", "smooth", 2),
        ("coif1", "periodization", 3),
    ] {
        let mode: Mode = mode.parse().unwrap();
        let plan = Plan::new(wavelet::lookup(wavelet).unwrap(), mode, level, t).unwrap();
        for aggregate in Aggregate::ALL {
            for normalize in [Normalize::None, Normalize::Zscore] {
                let what = format!("{wavelet} {mode} level {level} {aggregate:?} {normalize:?}");
                for (got, dtype) in [
                    (by_rows(&x32, n, &plan, aggregate, normalize), DType::F32),
                    (by_rows(&x, n, &plan, aggregate, normalize), DType::F64),
                ] {
                    let want = by_pipeline(&x, dims, &plan, dtype, aggregate, normalize);
                    assert_eq!(got.len(), want.len(), "{dtype:?} {what}");
                    assert!(got == want, "{dtype:?} {what}");
                }
            }
        }
    }
}

#[test]
fn statistics_prompts_equal_the_pipelines() {
    let dims @ (b, n, t) = (4, 7, 96);
    let x = batch(b, n, t);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let rows = rows_of(&x32, t);
    let p = builtin_prompter("timellm").unwrap();
    let plan = Plan::new(wavelet::lookup("haar").unwrap(), Mode::Reflect, 1, t).unwrap();
    for normalize in [Normalize::None, Normalize::Revin] {
        let got = Rows {
            rows: &rows,
            channels: n,
        }
        .statistics_prompts(p, normalize, "d", 24, Describe::default())
        .unwrap();
        assert_eq!(got.len(), b * n);
        let got: Vec<String> = got.iter().map(str::to_owned).collect();
        let want: Vec<String> =
            by_pipeline(&x, dims, &plan, DType::F32, Aggregate::Series, normalize)
                .iter()
                .map(|f| {
                    p.render(&PromptVars {
                        features: f,
                        description: "d",
                        seq_len: t,
                        pred_len: 24,
                    })
                    .unwrap()
                })
                .collect();
        assert_eq!(got, want, "{normalize:?}");
    }
}

/// The lane kernel finds a sample that is not finite through the band sums it makes
/// (no check per sample): at every position, in every mode, for filters with a
/// zero tap too (bior2.2), in both precisions; and the level that spans the most.
#[test]
fn a_sample_that_is_not_finite_is_found_at_every_position_in_every_mode() {
    fn check<T: Real>(bad: T, to: impl Fn(f64) -> T) {
        let (b, n) = (2, 5);
        for name in ["haar", "db2", "bior2.2"] {
            let w = wavelet::lookup(name).unwrap();
            for (t, mode) in [16, 17].into_iter().flat_map(|t| Mode::ALL.map(|m| (t, m))) {
                let level = w.max_level(t).max(1);
                let plan = Plan::new(w, mode, level, t).unwrap();
                for at in 0..t {
                    let row = 6; // the lane group of rows 0-7 is full
                    let mut x: Vec<T> = (0..b * n * t).map(|i| to((i % 7) as f64 - 3.0)).collect();
                    x[row * t + at] = bad;
                    let rows = rows_of(&x, t);
                    let r = Rows {
                        rows: &rows,
                        channels: n,
                    };
                    match r.features(
                        &plan,
                        Aggregate::Series,
                        Normalize::None,
                        false,
                        Describe::default(),
                    ) {
                        Err(RowsError::NotFinite { row: r, sample, .. }) => {
                            assert_eq!((r, sample), (row, at), "{name} {mode} t={t}")
                        }
                        other => panic!("{name} {mode} t={t} at {at}: {:?}", other.map(|_| ())),
                    }
                }
            }
        }
    }
    check(f32::NAN, |v| v as f32);
    check(f32::NEG_INFINITY, |v| v as f32);
    check(f64::INFINITY, |v| v);
}

/// Finite samples whose coefficients overflow f32 are computed on (their band sums are
/// not finite), not taken for samples that are not finite.
#[test]
fn finite_samples_whose_coefficients_overflow_are_computed() {
    let t = 64;
    let plan = Plan::new(wavelet::lookup("db2").unwrap(), Mode::Reflect, 2, t).unwrap();
    let x = vec![3.0e38f32; 8 * t];
    let rows = rows_of(&x, t);
    let r = Rows {
        rows: &rows,
        channels: 1,
    };
    let f = r
        .features(
            &plan,
            Aggregate::Series,
            Normalize::None,
            false,
            Describe::default(),
        )
        .unwrap();
    assert_eq!(f.len(), 8);
    assert!(f
        .iter()
        .all(|f| f.energy_ratio.iter().any(|v| !v.is_finite())));
}

/// The lane kernel's band moments: a flat row has bands of exactly no spread (stds 0,
/// so SNR 0: "both are 0"), in f32 and f64; and an offset of 1e6 moves no band's std
/// beyond the transform's rounding of the offset, ~1e-9 per coefficient (the moments
/// are summed about each band's first coefficient, not about zero: about zero, the
/// approximation band's Σc² ≈ 1.5e14 alone rounds by more than its whole m2).
#[test]
fn flat_rows_have_no_spread_and_offsets_leave_the_stds() {
    let t = 96;
    let plan = Plan::new(wavelet::lookup("db4").unwrap(), Mode::Reflect, 3, t).unwrap();
    let series = |rows: Vec<Vec<f64>>| {
        let x: Vec<f64> = rows.concat();
        let r = rows_of(&x, t);
        let rows = Rows {
            rows: &r,
            channels: 1,
        };
        rows.features(
            &plan,
            Aggregate::Series,
            Normalize::None,
            false,
            Describe::default(),
        )
        .unwrap()
    };
    for level in [0.0, 1.0, -2.5e4] {
        let flat64 = series(vec![vec![level; t]; 9]);
        let x32 = vec![level as f32; 9 * t];
        let r32 = rows_of(&x32, t);
        let flat32 = Rows {
            rows: &r32,
            channels: 1,
        }
        .features(
            &plan,
            Aggregate::Series,
            Normalize::None,
            false,
            Describe::default(),
        )
        .unwrap();
        assert_eq!((flat64.len(), flat32.len()), (9, 9));
        for f in flat64.iter().chain(&flat32) {
            assert!(f.band_stds.iter().all(|&s| s == 0.0), "{level}: {f:?}");
            assert_eq!(f.snr_db, 0.0, "{level}");
        }
    }
    let wave: Vec<Vec<f64>> = (0..9)
        .map(|r| {
            (0..t)
                .map(|i| ((i * (r + 1)) as f64 * 0.37).sin())
                .collect()
        })
        .collect();
    let offset: Vec<Vec<f64>> = wave
        .iter()
        .map(|w| w.iter().map(|v| v + 1.0e6).collect())
        .collect();
    let (a, b) = (series(wave), series(offset));
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(a.band_stds.len(), b.band_stds.len());
        for (x, y) in a.band_stds.iter().zip(&b.band_stds) {
            assert!(
                (x - y).abs() <= 1e-7,
                "stds {:?} {:?}",
                a.band_stds,
                b.band_stds
            );
        }
    }
}

#[test]
fn a_value_that_is_not_finite_names_its_row() {
    let (b, n, t) = (3, 7, 64);
    let plan = Plan::new(wavelet::lookup("db2").unwrap(), Mode::Reflect, 2, t).unwrap();
    let p = builtin_prompter("timellm").unwrap();
    // Rows in a full lane group, in the last partial one, early and late in a row.
    for (row, at, v) in [
        (2, 5, f32::NAN),
        (20, 63, f32::INFINITY),
        (17, 0, f32::NEG_INFINITY),
        (9, 30, -f32::NAN),
    ] {
        let mut x = vec![0.5f32; b * n * t];
        x[row * t + at] = v;
        let rows = rows_of(&x, t);
        let r = Rows {
            rows: &rows,
            channels: n,
        };
        // The value compared by its bits: NaN equals nothing, itself included.
        let named = |e: Result<(), RowsError>| match e {
            Err(RowsError::NotFinite {
                row: r,
                sample,
                value,
            }) => (r, sample, value.to_bits()),
            other => panic!("{other:?}"),
        };
        let want = (row, at, (v as f64).to_bits());
        assert_eq!(
            named(
                r.features(
                    &plan,
                    Aggregate::Batch,
                    Normalize::None,
                    false,
                    Describe::default()
                )
                .map(|_| ())
            ),
            want
        );
        assert_eq!(
            named(
                r.features(
                    &plan,
                    Aggregate::Series,
                    Normalize::Zscore,
                    true,
                    Describe::default()
                )
                .map(|_| ())
            ),
            want
        );
        assert_eq!(
            named(
                r.statistics_prompts(p, Normalize::None, "d", 8, Describe::default())
                    .map(|_| ())
            ),
            want
        );
    }
}
