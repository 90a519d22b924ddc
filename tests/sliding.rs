//! The sliding path gives the per-window path's prompts, byte for byte: every built-in
//! template, series and batch aggregation, float32 and float64, several modes, on the
//! sample data sets and ETTh1 (`engine::sliding`, `features::margin`).

use wavebench_core::config::Config;
use wavebench_core::data::Missing;
use wavebench_core::engine::DType;
use wavebench_core::features::Aggregate;
use wavebench_core::prompt::{Prompter, BUILTINS};
use wavebench_core::run_spec::{Purpose, RunSpec};
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
