//! Features and prompts against an independent reference (scripts/ref_features.py: pywt +
//! numpy, prompts by Python f-strings): every aggregation, every built-in template, on the
//! native and torch-cpu engines. f64 numbers within 1e-9, descriptions and prompts exact.

use serde_json::Value;
use wavebench::engine;
use wavebench_core::config::Config;
use wavebench_core::data::Normalize;
use wavebench_core::engine::{DType, EngineKind, Plan};
use wavebench_core::features::{Aggregate, Features};
use wavebench_core::prompt::{PromptVars, Prompter, BUILTINS};
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::timing::Timer;
use wavebench_core::wavelet;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn check(case: &str, kind: EngineKind) {
    let path = format!(
        "{}/tests/fixtures/features/{case}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cfg = Config {
        columns: Some(
            doc["columns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect(),
        ),
        rows: Some(
            format!("{}..{}", doc["rows"][0], doc["rows"][1])
                .parse()
                .unwrap(),
        ),
        seq_len: Some(doc["seq_len"].as_u64().unwrap() as usize),
        stride: doc["stride"].as_u64().unwrap() as usize,
        dtype: DType::F64,
        ..Config::default()
    };
    let csv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic.csv");
    let table = RunSpec::new(cfg.clone(), Purpose::Features, &wavebench::backend::LOCAL)
        .unwrap()
        .load(&csv)
        .unwrap();
    let cfg = Config {
        transform: wavebench_core::transform::Transform::new(
            doc["wavelet"].as_str().unwrap(),
            doc["level"].as_u64().unwrap() as usize,
            doc["mode"].as_str().unwrap().parse().unwrap(),
        )
        .unwrap(),
        batch_size: doc["batch_size"].as_u64().unwrap() as usize,
        normalize: Some(Normalize::Revin),
        engine: kind,
        ..cfg
    };
    let prompters: Vec<(&str, Prompter)> = BUILTINS
        .iter()
        .map(|(n, s)| (*n, Prompter::new(s).unwrap()))
        .collect();
    let mut engine = None;
    for agg in Aggregate::ALL {
        let spec = RunSpec::new(
            Config {
                aggregate: agg,
                ..cfg.clone()
            },
            Purpose::Features,
            &wavebench::backend::LOCAL,
        )
        .unwrap();
        let sel = engine.get_or_insert_with(|| spec.engine());
        assert_eq!(sel.engine.kind(), kind);
        let prepared = spec.prepare(&table).unwrap();
        let windows = prepared.windows;
        let units = prepared
            .features(&table, sel, &mut Timer::default(), |_| true)
            .unwrap();
        let want = doc["units"][agg.name()].as_array().unwrap();
        assert_eq!(units.len(), want.len(), "{case} {agg}: unit count");
        for (u, e) in units.iter().zip(want) {
            let at = format!("{case} {kind} {agg} window {}", u.window);
            assert_eq!(u.window as u64, e["window"].as_u64().unwrap(), "{at}");
            assert_eq!(u.start as u64, e["start"].as_u64().unwrap(), "{at}");
            assert_eq!(u.column.as_deref(), e["column"].as_str(), "{at}");
            let got = serde_json::to_value(&u.features).unwrap();
            for (key, ev) in e["features"].as_object().unwrap() {
                let gv = &got[key];
                match ev {
                    Value::Number(n) if n.is_f64() => assert!(
                        close(gv.as_f64().unwrap(), n.as_f64().unwrap()),
                        "{at} {key}: {gv} vs {ev}"
                    ),
                    Value::Array(items) if items.iter().any(|v| v.is_f64()) => {
                        let g = gv.as_array().unwrap();
                        assert_eq!(g.len(), items.len(), "{at} {key}");
                        for (a, b) in g.iter().zip(items) {
                            assert!(
                                close(a.as_f64().unwrap(), b.as_f64().unwrap()),
                                "{at} {key}: {gv} vs {ev}"
                            );
                        }
                    }
                    _ => assert_eq!(gv, ev, "{at} {key}"),
                }
            }
            let description = doc["description"].as_str().unwrap();
            let pred_len = doc["pred_len"].as_u64().unwrap() as usize;
            let mut reference = e["features"].clone();
            for (k, v) in e["exact"].as_object().unwrap() {
                // Exact floats from their repr: JSON number parsing may be off by an ulp.
                reference[k] = serde_json::json!(v.as_str().unwrap().parse::<f64>().unwrap());
            }
            let reference: Features = serde_json::from_value(reference).unwrap();
            for (name, p) in &prompters {
                // Formatting, byte for byte: the reference's own numbers through our template.
                let vars = PromptVars {
                    features: &reference,
                    description,
                    seq_len: windows.seq_len,
                    pred_len,
                };
                assert_eq!(
                    p.render(&vars).unwrap(),
                    e["prompts"][*name].as_str().unwrap(),
                    "{at} template {name} (reference features)"
                );
                // Our numbers too, where the template rounds them (timellm prints every bit
                // of repr, where numpy's pairwise sums and ours differ in the last ulp).
                if *name != "timellm" {
                    let vars = PromptVars {
                        features: &u.features,
                        description,
                        seq_len: windows.seq_len,
                        pred_len,
                    };
                    assert_eq!(
                        p.render(&vars).unwrap(),
                        e["prompts"][*name].as_str().unwrap(),
                        "{at} template {name}"
                    );
                }
            }
        }
    }
}

/// The fixtures scripts/ref_features.py writes.
const CASES: [&str; 3] = [
    "db4-l3-reflect",
    "sym5-l2-periodization",
    "haar-l4-symmetric-odd",
];

#[test]
fn native_matches_the_reference() {
    for case in CASES {
        check(case, EngineKind::Native);
    }
}

#[test]
fn torch_cpu_matches_the_reference() {
    for case in CASES {
        check(case, EngineKind::TorchCpu);
    }
}

#[test]
fn template_errors_name_line_and_column() {
    let e = Prompter::new("line one\nvalue {{ min | f(\".2f\") }\n")
        .err()
        .expect("syntax error");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.column.is_some(), "{e}");
    let p = Prompter::new("{{ nonsense }}").unwrap();
    let f = wavebench_core::features::compute(&[]);
    let err = p
        .render(&PromptVars {
            features: &f,
            description: "",
            seq_len: 1,
            pred_len: 1,
        })
        .unwrap_err();
    assert!(err.to_string().contains("undefined"), "{err}");
}

/// The native engine summarises windows straight from the table (lane groups, blocks,
/// sliding medians); the gathered-batch path summarises the same series one by one. Over
/// thousands of overlapping windows (several tasks, partial blocks and lane groups, both
/// strides that slide and that restart) they must agree: statistics exactly (sliding order
/// statistics are exact), band moments to summation order.
#[test]
fn window_path_equals_the_gathered_batch() {
    use wavebench_core::engine::{native, Engine, Isa, Native, StatsRequest, Values};
    let table = RunSpec::new(
        Config::default(),
        Purpose::Features,
        &wavebench::backend::LOCAL,
    )
    .unwrap()
    .load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic.csv"))
    .unwrap();
    let cases = [
        ("db4", "reflect", 3, 96, 1, DType::F32, Normalize::Revin),
        ("sym5", "smooth", 2, 64, 3, DType::F32, Normalize::Zscore),
        (
            "haar",
            "periodization",
            4,
            33,
            1,
            DType::F64,
            Normalize::None,
        ),
        (
            "coif2",
            "symmetric",
            2,
            50,
            11,
            DType::F64,
            Normalize::Revin,
        ),
    ];
    for (w, mode, level, seq, stride, dtype, normalize) in cases {
        let windows =
            wavebench_core::data::Windows::new(table.rows(), None, Some(seq), stride).unwrap();
        let plan = Plan::new(
            wavelet::lookup(w).unwrap(),
            mode.parse().unwrap(),
            level,
            seq,
        )
        .unwrap();
        // The engine's own input: every window of every channel, read from the table.
        let rows: Vec<std::borrow::Cow<[f64]>> = table
            .channels
            .iter()
            .map(|c| c.values.rows_f64(0..table.rows()))
            .collect();
        let batch = wavebench_core::engine::WindowBatch {
            channels: rows.iter().map(|c| &**c).collect(),
            windows,
            range: 0..windows.count,
            normalize,
            dtype,
        };
        let lags = Some(StatsRequest {
            lags_every: 5,
            ..StatsRequest::ALL
        });
        let fused = Native
            .summarize_windows(&batch, &plan, lags, &mut Timer::default())
            .unwrap();
        // The plain-Rust build of the same pass (what CPUs without AVX2 run) agrees to the bit.
        let clock = wavebench_core::timing::StageClock::default();
        let portable = match plan.work_dtype(dtype) {
            DType::F32 => {
                native::summarize_windows_on::<f32>(Isa::Portable, &batch, &plan, lags, &clock)
            }
            DType::F64 => {
                native::summarize_windows_on::<f64>(Isa::Portable, &batch, &plan, lags, &clock)
            }
        };
        assert!(
            portable == fused,
            "{w} {mode}: the portable window pass differs"
        );
        let gathered: Values = batch.gather();
        let direct = Native
            .summarize(gathered.as_ref(), &plan, lags, &mut Timer::default())
            .unwrap();
        assert_eq!(fused.len(), direct.len());
        assert!(windows.count > 300, "{w}: too few windows to cross tasks");
        for (k, (a, b)) in fused.iter().zip(&direct).enumerate() {
            let at = format!("{w} {mode} seq {seq} stride {stride} {dtype} series {k}");
            assert_eq!(a.stats, b.stats, "{at}");
            assert_eq!(a.bands.len(), b.bands.len(), "{at}");
            for (x, y) in a.bands.iter().zip(&b.bands) {
                assert_eq!((x.first, x.last, x.len), (y.first, y.last, y.len), "{at}");
                let near = |p: f64, q: f64, scale: f64| (p - q).abs() <= 1e-12 * scale.max(1e-300);
                assert!(
                    near(x.energy, y.energy, y.energy),
                    "{at}: energy {x:?} {y:?}"
                );
                assert!(
                    near(x.mean, y.mean, (y.energy / y.len as f64).sqrt()),
                    "{at}: mean {x:?} {y:?}"
                );
                assert!(near(x.m2, y.m2, y.energy), "{at}: m2 {x:?} {y:?}");
            }
        }
    }
}

/// A torch engine leaves each chunk's summaries on the device and downloads the whole run
/// at once: one host synchronisation over several chunks, and the same features as the
/// native engine's, unit for unit.
#[test]
fn torch_cpu_downloads_a_run_of_several_chunks_once() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("long.csv");
    let mut text = String::from("t,a,b\n");
    for i in 0..9000 {
        let t = i as f64;
        let a = (t / 24.0).sin() + 0.01 * t + 0.3 * ((t * 7.3).sin() * 43758.5453).fract();
        let b = (t / 168.0).cos() * 2.0 + 0.1 * ((t * 3.1).cos() * 12345.678).fract();
        text.push_str(&format!("{i},{a},{b}\n"));
    }
    std::fs::write(&csv, text).unwrap();
    let cfg = Config {
        seq_len: Some(64),
        dtype: DType::F64,
        ..Config::default()
    };
    let spec = RunSpec::new(cfg, Purpose::Features, &wavebench::backend::LOCAL).unwrap();
    let table = spec.load(&csv).unwrap();
    let prepared = spec.prepare(&table).unwrap();
    assert!(
        prepared.windows.count > 2 * 4096,
        "the run must span several chunks: {} windows",
        prepared.windows.count
    );
    let run = |kind| {
        let mut sel = engine::select(kind);
        assert_eq!(sel.engine.kind(), kind);
        let mut timer = Timer::default();
        let units = prepared
            .features(&table, &mut sel, &mut timer, |_| true)
            .unwrap();
        (units, timer.host_syncs)
    };
    let (native, _) = run(EngineKind::Native);
    let (torch, syncs) = run(EngineKind::TorchCpu);
    assert_eq!(syncs, 1, "one download for the whole run");
    // A run cancelled after its first chunk leaves that chunk queued on the engine; the
    // engine's next run must return its own summaries only.
    let mut sel = engine::select(EngineKind::TorchCpu);
    let cancelled = prepared.features(&table, &mut sel, &mut Timer::default(), |_| false);
    assert!(matches!(
        cancelled,
        Err(wavebench_core::engine::EngineError::Cancelled)
    ));
    let mut timer = Timer::default();
    let again = prepared
        .features(&table, &mut sel, &mut timer, |_| true)
        .expect("a run after a cancelled one");
    assert_eq!(again.len(), native.len());
    assert_eq!(timer.host_syncs, 1);
    assert_eq!(native.len(), torch.len());
    assert_eq!(native.len(), prepared.windows.count * 2);
    for (a, b) in native.iter().zip(&torch) {
        let at = format!("window {} {:?}", a.window, a.column);
        assert_eq!((a.window, &a.column), (b.window, &b.column), "{at}");
        let (fa, fb) = (&a.features, &b.features);
        assert_eq!(fa.energy_ratio.len(), fb.energy_ratio.len(), "{at}");
        for (x, y) in fa.energy_ratio.iter().zip(&fb.energy_ratio) {
            assert!(close(*x, *y), "{at}: energy ratio {x} vs {y}");
        }
        for (x, y) in [
            (fa.energy_entropy, fb.energy_entropy),
            (fa.snr_db, fb.snr_db),
            (fa.difficulty_score, fb.difficulty_score),
            (fa.min, fb.min),
            (fa.max, fb.max),
            (fa.median, fb.median),
            (fa.trend, fb.trend),
        ] {
            assert!(close(x, y), "{at}: {x} vs {y}");
        }
        assert_eq!(fa.lags, fb.lags, "{at}");
    }
}
