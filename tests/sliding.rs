//! The sliding path gives the per-window path's prompts, byte for byte: every built-in
//! template, series and batch aggregation, float32 and float64, several modes, on the
//! sample data sets and ETTh1 (`engine::sliding`, `features::margin`).

use wavebench_core::config::Config;
use wavebench_core::data::Missing;
use wavebench_core::engine::DType;
use wavebench_core::features::Aggregate;
use wavebench_core::features::Unit;
use wavebench_core::pipeline::PathChoice;
use wavebench_core::prompt::{Prompter, BUILTINS};
use wavebench_core::run_spec::{Prepared, Purpose, RunSpec};
use wavebench_core::timing::Timer;
use wavebench_core::transform::Transform;
use wavebench_core::wavelet::Mode;

/// Prompts of every built-in over the run `cfg` describes, on both paths; returns how many
/// windows the sliding path recomputed, and how many it covered.
fn compare(file: &std::path::Path, cfg: Config) -> (usize, usize) {
    // The sliding path is the native engine's.
    let cfg = Config {
        engine: wavebench_core::engine::EngineKind::Native,
        ..cfg
    };
    let spec = RunSpec::new(cfg.clone(), Purpose::Features, &wavebench::backend::LOCAL).unwrap();
    let table = spec.load(file).unwrap();
    let prepared = spec.prepare(&table).unwrap();
    let (mut recomputed, mut windows) = (0, 0);
    for (name, source) in BUILTINS {
        let prompter = Prompter::new(source).unwrap();
        let run = |slide| {
            let mut timer = Timer::default();
            let units = prepared
                .clone()
                .sliding(slide)
                .features(&table, &mut spec.engine(), &mut timer, |_| true)
                .unwrap();
            let prompts = prompter
                .render_all(&units, "a data set", prepared.windows.seq_len, 24)
                .unwrap();
            (prompts, timer.path.unwrap())
        };
        let (exact, _) = run(Err(wavebench_core::pipeline::NoSlide::WindowPath));
        let (slid, path) = run(Ok(prompter.reads()));
        let at = format!(
            "{} {name} {:?} {} {:?}",
            file.display(),
            cfg.aggregate,
            cfg.transform.mode,
            cfg.dtype
        );
        assert!(path.sliding, "{at}: {path}");
        assert_eq!(exact.len(), slid.len(), "{at}");
        assert!(!exact.is_empty(), "{at}");
        for (k, (a, b)) in exact.iter().zip(&slid).enumerate() {
            assert_eq!(a, b, "{at}: prompt {k}");
        }
        recomputed += path.recomputed;
        windows += path.windows;
    }
    (recomputed, windows)
}

#[test]
fn sliding_prompts_equal_the_per_window_prompts_on_the_sample_data() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data");
    for (file, seq) in [
        ("synthetic_gaps.csv", 256),
        ("co2.csv", 128),
        ("sunspots.csv", 96),
        ("elnino.csv", 64),
        ("nile.csv", 32),
    ] {
        for mode in [
            Mode::Reflect,
            Mode::Periodization,
            Mode::Zero,
            Mode::Symmetric,
        ] {
            for dtype in [DType::F32, DType::F64] {
                for aggregate in [Aggregate::Series, Aggregate::Batch] {
                    let cfg = Config {
                        seq_len: Some(seq),
                        transform: Transform {
                            mode,
                            level: 2,
                            ..Transform::default()
                        },
                        dtype,
                        aggregate,
                        batch_size: 8,
                        missing: Missing::Interpolate,
                        ..Config::default()
                    };
                    compare(&dir.join(file), cfg);
                }
            }
        }
    }
}

#[test]
fn sliding_prompts_equal_the_per_window_prompts_on_etth1() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/ETTh1.csv");
    // Time-LLM's setting: every window of 512, db4 level 3 reflect, float32.
    for aggregate in [Aggregate::Batch, Aggregate::Series] {
        let cfg = Config {
            seq_len: Some(512),
            aggregate,
            ..Config::default()
        };
        let (recomputed, windows) = compare(&file, cfg);
        // The bound is not so loose that everything goes back to the per-window path.
        assert!(
            recomputed * 2 < windows,
            "{aggregate:?}: {recomputed} of {windows} windows recomputed"
        );
    }
}

/// A data set shaped like weather (21 channels, 2,998 rows every 10 minutes; pressure-like
/// channels at 1000 with tiny swings, rain-like ones mostly 0) in float32 recomputes most
/// of its windows when sliding: `path = auto` tries the first eighth and goes window by
/// window for the rest, though the whole run fits in one chunk, and its prompts are the
/// per-window path's.
#[test]
fn auto_goes_window_by_window_where_sliding_recomputes_most() {
    let dir = tempfile::tempdir().unwrap();
    let file = weather_like(dir.path());
    let cfg = Config {
        seq_len: Some(512),
        engine: wavebench_core::engine::EngineKind::Native,
        path: wavebench_core::pipeline::PathChoice::Auto,
        ..Config::default()
    };
    let spec = RunSpec::new(cfg, Purpose::Features, &wavebench::backend::LOCAL).unwrap();
    let table = spec.load(&file).unwrap();
    let prepared = spec.prepare(&table).unwrap();
    let prompter = Prompter::new(BUILTINS[2].1).unwrap();
    let run = |prepared: wavebench_core::run_spec::Prepared| {
        let mut timer = Timer::default();
        let units = prepared
            .features(&table, &mut spec.engine(), &mut timer, |_| true)
            .unwrap();
        let prompts = prompter.render_all(&units, "d", 512, 96).unwrap();
        (prompts, timer.path.unwrap())
    };
    let (auto, path) = run(prepared.clone().sliding(spec.slide(&prompter, false)));
    assert!(!path.sliding, "{path}");
    let why = path.why_not.clone().unwrap_or_default();
    assert!(why.starts_with("auto: sliding recomputed"), "{why}");
    assert!(
        path.windows > 2000 && path.recomputed < path.windows / 4,
        "{path:?}"
    );
    let (window, _) = run(prepared.sliding(Err(wavebench_core::pipeline::NoSlide::WindowPath)));
    assert_eq!(auto.len(), window.len());
    assert!(auto == window);
}

/// The weather-shaped file of `auto_goes_window_by_window_where_sliding_recomputes_most`,
/// written into `dir`.
fn weather_like(dir: &std::path::Path) -> std::path::PathBuf {
    let noise = common_noise(2998 * 21);
    let mut csv = String::from("date");
    for k in 0..21 {
        csv.push_str(&format!(",c{k}"));
    }
    csv.push('\n');
    for i in 0..2998usize {
        let m = i * 10;
        csv.push_str(&format!(
            "2020-01-{:02} {:02}:{:02}:00",
            1 + m / 1440,
            (m % 1440) / 60,
            m % 60
        ));
        for k in 0..21usize {
            let e = noise[i * 21 + k];
            let v = match k {
                0..7 => 1000.0 + k as f64 + 0.05 * (i as f64 / (20 + k) as f64).sin() + 0.01 * e,
                7..14 => (e > 1.2) as u8 as f64 * e,
                _ => 10.0 * (i as f64 / 144.0 * std::f64::consts::TAU + k as f64).sin() + e,
            };
            csv.push_str(&format!(",{v:.4}"));
        }
        csv.push('\n');
    }
    let file = dir.join("weather_like.csv");
    std::fs::write(&file, csv).unwrap();
    file
}

/// Levels computed together (`Prepared::features_together`, as the sweep computes a
/// wavelet's levels) give each level the units it gets alone, to the bit: where they
/// slide, where the trial sends them window by window, in both precisions and
/// aggregations, and window by window as asked. Runs that differ in more than their level
/// are refused.
#[test]
fn levels_together_give_each_level_its_own_units() {
    let dir = tempfile::tempdir().unwrap();
    let sample = |f: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample_data")
            .join(f)
    };
    let prompter = Prompter::new(BUILTINS[2].1).unwrap();
    let cases = [
        (
            sample("co2.csv"),
            128,
            "db4",
            DType::F64,
            Aggregate::Series,
            PathChoice::Auto,
        ),
        (
            sample("sunspots.csv"),
            96,
            "sym5",
            DType::F32,
            Aggregate::Batch,
            PathChoice::Auto,
        ),
        (
            sample("nile.csv"),
            32,
            "haar",
            DType::F64,
            Aggregate::Series,
            PathChoice::Window,
        ),
        (
            weather_like(dir.path()),
            512,
            "db4",
            DType::F32,
            Aggregate::Series,
            PathChoice::Auto,
        ),
    ];
    let mut failed_trials = 0;
    for (file, seq, wavelet, dtype, aggregate, path) in cases {
        let wavelet = wavebench_core::wavelet::lookup(wavelet).unwrap();
        let specs: Vec<RunSpec> = (1..=wavelet.max_level(seq))
            .map(|level| {
                let cfg = Config {
                    transform: Transform {
                        wavelet,
                        level,
                        mode: Mode::Reflect,
                    },
                    seq_len: Some(seq),
                    dtype,
                    aggregate,
                    path,
                    batch_size: 8,
                    missing: Missing::Interpolate,
                    engine: wavebench_core::engine::EngineKind::Native,
                    ..Config::default()
                };
                RunSpec::new(cfg, Purpose::Features, &wavebench::backend::LOCAL).unwrap()
            })
            .collect();
        assert!(specs.len() >= 3, "{}", file.display());
        let table = specs[0].load(&file).unwrap();
        let runs: Vec<Prepared> = specs
            .iter()
            .map(|s| {
                s.prepare(&table)
                    .unwrap()
                    .sliding(s.slide(&prompter, false))
            })
            .collect();
        let alone: Vec<Vec<Unit>> = runs
            .iter()
            .map(|r| {
                r.features(
                    &table,
                    &mut specs[0].engine(),
                    &mut Timer::default(),
                    |_| true,
                )
                .unwrap()
            })
            .collect();
        let mut timer = Timer::default();
        let refs: Vec<&Prepared> = runs.iter().collect();
        let together =
            Prepared::features_together(&refs, &table, &mut specs[0].engine(), &mut timer).unwrap();
        let used = timer.path.take().unwrap();
        let at = format!("{} {dtype:?} {aggregate:?} {path:?}", file.display());
        assert_eq!(
            used.sliding,
            path == PathChoice::Auto && used.why_not.is_none(),
            "{at}: {used}"
        );
        failed_trials += usize::from(
            used.why_not
                .as_deref()
                .is_some_and(|w| w.starts_with("auto:")),
        );
        assert_eq!(together.len(), alone.len(), "{at}");
        for (level, (t, a)) in together.iter().zip(&alone).enumerate() {
            assert_eq!(t.len(), a.len(), "{at} level {}", level + 1);
            assert!(!t.is_empty(), "{at} level {}", level + 1);
            // Debug prints each f64 in its shortest round-trip form: equal text, equal bits.
            for (k, (u, v)) in t.iter().zip(a).enumerate() {
                assert_eq!(
                    format!("{u:?}"),
                    format!("{v:?}"),
                    "{at} level {}, unit {k}",
                    level + 1
                );
            }
        }
        // Levels out of order, or another wavelet, are not one run at different levels.
        let backwards: Vec<&Prepared> = runs.iter().rev().collect();
        let err =
            Prepared::features_together(&backwards, &table, &mut specs[0].engine(), &mut timer)
                .unwrap_err();
        assert!(err.to_string().contains("levels not increasing"), "{err}");
    }
    assert!(failed_trials > 0, "no level left the sliding path on trial");
}

/// A run asked for no time labels (a sweep's, the app's survey) gives the same units with
/// an empty `start_time`, alone and levels together; the labelled run's are the dates.
#[test]
fn units_without_time_labels_differ_only_in_their_time_text() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/co2.csv");
    let prompter = Prompter::new(BUILTINS[2].1).unwrap();
    let spec = |level| {
        let cfg = Config {
            transform: Transform {
                wavelet: wavebench_core::wavelet::lookup("db2").unwrap(),
                level,
                mode: Mode::Reflect,
            },
            seq_len: Some(64),
            missing: Missing::Interpolate,
            ..Config::default()
        };
        RunSpec::new(cfg, Purpose::Features, &wavebench::backend::LOCAL).unwrap()
    };
    let specs = [spec(1), spec(2)];
    let table = specs[0].load(&file).unwrap();
    let run = |s: &RunSpec, labels: bool| {
        let p = s
            .prepare(&table)
            .unwrap()
            .sliding(s.slide(&prompter, false));
        if labels {
            p
        } else {
            p.without_time_labels()
        }
    };
    let features = |p: &Prepared| {
        p.features(
            &table,
            &mut specs[0].engine(),
            &mut Timer::default(),
            |_| true,
        )
        .unwrap()
    };
    let labelled = features(&run(&specs[0], true));
    let bare = features(&run(&specs[0], false));
    // Levels 1 and 2 computed together, each labelled or not.
    let together_of = |labels: [bool; 2]| {
        let runs = [run(&specs[0], labels[0]), run(&specs[1], labels[1])];
        Prepared::features_together(
            &runs.iter().collect::<Vec<_>>(),
            &table,
            &mut specs[0].engine(),
            &mut Timer::default(),
        )
    };
    let together = together_of([false, false]).unwrap();
    assert_eq!(labelled.len(), bare.len());
    assert_eq!(together[0].len(), bare.len());
    assert!(!bare.is_empty());
    for ((l, b), t) in labelled.iter().zip(&bare).zip(&together[0]) {
        assert_eq!(l.start_time.len(), "1958-03-29".len(), "{}", l.start_time);
        assert_eq!(&*l.start_time, table.time_label(l.start));
        assert_eq!(&*b.start_time, "");
        let unlabelled = Unit {
            start_time: b.start_time.clone(),
            ..l.clone()
        };
        assert_eq!(format!("{unlabelled:?}"), format!("{b:?}"));
        assert_eq!(format!("{t:?}"), format!("{b:?}"));
    }
    // A labelled run and an unlabelled one are not one run at two levels.
    let err = together_of([true, false]).unwrap_err();
    assert!(err.to_string().contains("method"), "{err}");
}

/// Standard normal-ish noise from a fixed linear congruential generator.
fn common_noise(n: usize) -> Vec<f64> {
    let mut s: u64 = 0x2545F4914F6CDD1D;
    (0..n)
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..4 {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                sum += (s >> 11) as f64 / (1u64 << 53) as f64;
            }
            (sum - 2.0) * 1.7
        })
        .collect()
}
