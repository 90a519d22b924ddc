//! Properties of the transform that hold for any input (proptest): perfect reconstruction,
//! MRA components summing to the signal, Parseval for orthogonal wavelets under
//! periodization, the engines agreeing on random batches, and the native kernels giving
//! the same bits on every instruction set this CPU has.

use proptest::prelude::*;
use wavebench::engine::select;
use wavebench_core::engine::{
    inverse, native, Engine, EngineKind, Isa, Native, Plan, SeriesRef, StatsRequest, Values,
};
use wavebench_core::timing::Timer;
use wavebench_core::wavelet::{self, Mode};

/// Every wavelet with perfect reconstruction: all but `dmey`, which pywt builds as an FIR
/// approximation of the Meyer wavelet (pywt's own waverec(wavedec(x)) is off by ~3e-3 of
/// max|x| for it; its parity with pywt is checked by the fixtures instead).
fn wavelet_names() -> Vec<String> {
    wavelet::all()
        .iter()
        .filter(|w| w.name != "dmey")
        .map(|w| w.name.clone())
        .collect()
}

fn setup() -> impl Strategy<Value = (String, Mode, usize, Vec<f64>)> {
    (
        prop::sample::select(wavelet_names()),
        prop::sample::select(Mode::ALL.to_vec()),
        2usize..300,
    )
        .prop_flat_map(|(w, m, n)| {
            let f = wavelet::lookup(&w).unwrap().filter_length;
            let max = wavelet::max_level(n, f).max(1);
            (
                Just(w),
                Just(m),
                1..=max,
                prop::collection::vec(-100.0f64..100.0, n),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn waverec_inverts_wavedec((w, mode, level, x) in setup()) {
        let plan = Plan::new(wavelet::lookup(&w).unwrap(), mode, level, x.len()).unwrap();
        let c = native::decompose(&x, &plan);
        let offs = &plan.offsets;
        let bands: Vec<&[f64]> = offs.iter().zip(&plan.band_lens).map(|(&o, &l)| &c[o..o + l]).collect();
        prop_assert_eq!(inverse::check_band_lens(&plan.band_lens, plan.wavelet, mode), Ok(()));
        let rec = inverse::waverec(&bands, plan.wavelet, plan.mode);
        // pywt's waverec may return one extra sample for odd lengths.
        prop_assert!(rec.len() == x.len() || rec.len() == x.len() + 1, "len {} vs {}", rec.len(), x.len());
        let scale = x.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (a, b) in rec.iter().zip(&x) {
            prop_assert!((a - b).abs() <= 1e-9 * scale, "{w} {mode} level {level}: {a} vs {b}");
        }
    }

    #[test]
    fn mra_components_sum_to_the_signal((w, mode, level, x) in setup()) {
        let plan = Plan::new(wavelet::lookup(&w).unwrap(), mode, level, x.len()).unwrap();
        let comps = inverse::mra(&native::decompose(&x, &plan), &plan);
        prop_assert_eq!(comps.len(), level + 1);
        let scale = x.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (i, xi) in x.iter().enumerate() {
            let sum: f64 = comps.iter().map(|c| c[i]).sum();
            prop_assert!((sum - xi).abs() <= 1e-9 * scale, "{w} {mode} level {level} at {i}: {sum} vs {xi}");
        }
    }

    #[test]
    fn parseval_for_orthogonal_wavelets_in_periodization(
        w in prop::sample::select(wavelet::all().iter().filter(|w| w.orthogonal && w.name != "dmey").map(|w| w.name.clone()).collect::<Vec<_>>()),
        k in 3usize..9,
        seed in any::<u64>(),
    ) {
        // Energy is preserved exactly when every level sees an even length: n = 2^k.
        let n = 1usize << k;
        let mut s = seed;
        let x: Vec<f64> = (0..n).map(|_| { s = s.wrapping_mul(6364136223846793005).wrapping_add(1); (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5 }).collect();
        let plan = Plan::new(wavelet::lookup(&w).unwrap(), Mode::Periodization, 2.min(k), n).unwrap();
        let c = native::decompose(&x, &plan);
        let ex: f64 = x.iter().map(|v| v * v).sum();
        let ec: f64 = c.iter().map(|v| v * v).sum();
        prop_assert!((ex - ec).abs() <= 1e-9 * ex.max(1.0), "{w}: {ex} vs {ec}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn engines_agree_on_random_batches((w, mode, level, x) in setup(), rows in 1usize..6) {
        let n = x.len();
        let batch: Vec<f64> = (0..rows).flat_map(|r| x.iter().map(move |v| v * (r as f64 + 1.0) - r as f64)).collect();
        let plan = Plan::new(wavelet::lookup(&w).unwrap(), mode, level, n).unwrap();
        let mut torch = select(EngineKind::TorchCpu).engine;
        let a = Native.decompose(SeriesRef::F64(&batch), &plan).unwrap();
        let b = torch.decompose(SeriesRef::F64(&batch), &plan).unwrap();
        let (Values::F64(a), Values::F64(b)) = (a, b) else { unreachable!() };
        let scale = a.iter().chain(&batch).fold(1.0f64, |m, v| m.max(v.abs()));
        for (p, q) in a.iter().zip(&b) {
            prop_assert!((p - q).abs() <= 1e-10 * scale, "{w} {mode}: {p} vs {q}");
        }
        // Summaries too (the reductions run on the device for torch).
        let sa = Native.summarize(SeriesRef::F64(&batch), &plan, Some(StatsRequest::ALL), &mut Timer::default()).unwrap();
        let sb = torch.summarize(SeriesRef::F64(&batch), &plan, Some(StatsRequest::ALL), &mut Timer::default()).unwrap();
        for (p, q) in sa.iter().zip(&sb) {
            for (bp, bq) in p.bands.iter().zip(&q.bands) {
                prop_assert!((bp.energy - bq.energy).abs() <= 1e-9 * bp.energy.max(1.0));
                prop_assert!((bp.m2 - bq.m2).abs() <= 1e-9 * bp.energy.max(1.0));
                prop_assert_eq!(bp.len, bq.len);
            }
            let (ps, qs) = (p.stats.as_ref().unwrap(), q.stats.as_ref().unwrap());
            prop_assert_eq!(ps.median, qs.median);
            prop_assert_eq!(&ps.lags, &qs.lags);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// AVX-512, AVX2+FMA and plain Rust sum every tap in the same order with fused
    /// multiply-adds, so their coefficients and summaries must agree to the bit (the pywt
    /// fixtures check whichever one this CPU runs by default).
    #[test]
    fn instruction_sets_give_the_same_bits((w, mode, level, x) in setup(), rows in 1usize..40) {
        let n = x.len();
        let wide: Vec<f64> = (0..rows).flat_map(|r| x.iter().map(move |v| v * (r as f64 + 1.0) - r as f64)).collect();
        let narrow: Vec<f32> = wide.iter().map(|&v| v as f32).collect();
        let plan = Plan::new(wavelet::lookup(&w).unwrap(), mode, level, n).unwrap();
        let base64 = native::decompose_on(Isa::Portable, &wide, &plan);
        let base32 = native::decompose_on(Isa::Portable, &narrow, &plan);
        let sums = native::summarize_on(Isa::Portable, &narrow, &plan, None);
        for isa in Isa::ALL.into_iter().filter(|i| i.supported()) {
            let c64 = native::decompose_on(isa, &wide, &plan);
            let c32 = native::decompose_on(isa, &narrow, &plan);
            prop_assert!(c64.iter().zip(&base64).all(|(a, b)| a.to_bits() == b.to_bits()), "{} f64 {w} {mode}", isa.name());
            prop_assert!(c32.iter().zip(&base32).all(|(a, b)| a.to_bits() == b.to_bits()), "{} f32 {w} {mode}", isa.name());
            prop_assert_eq!((c64.len(), c32.len()), (base64.len(), base32.len()));
            let s = native::summarize_on(isa, &narrow, &plan, None);
            for (p, q) in s.iter().zip(&sums) {
                prop_assert_eq!(&p.bands, &q.bands, "{} summaries {} {}", isa.name(), w, mode);
            }
        }
    }
}

// ---- Fuzzing the entry points a user reaches (issue 13): no panic, no abort, and every
// refusal one line. Bounded: a fixed number of cases per target, so `make test` stays
// quick; PROPTEST_CASES raises it for a longer hunt.

mod fuzz {
    use proptest::prelude::*;
    use wavebench_core::config::Config;
    use wavebench_core::data::{Channel, Missing, Table};
    use wavebench_core::engine::{self, Engine};
    use wavebench_core::features::Features;
    use wavebench_core::prompt::{PromptVars, Prompter};
    use wavebench_core::run_spec::LoadOptions;
    use wavebench_core::run_spec::{Purpose, RunSpec};
    use wavebench_core::timing::Timer;

    fn config() -> ProptestConfig {
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(160);
        ProptestConfig {
            cases,
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    }

    /// Cells a CSV may hold: numbers (huge, tiny, negative), text, empties, dates, quotes.
    fn cell() -> impl Strategy<Value = String> {
        prop_oneof![
            (-1e6f64..1e6).prop_map(|v| format!("{v}")),
            Just(String::new()),
            Just("nan".into()),
            Just("inf".into()),
            Just("1e308".into()),
            Just("-1e-320".into()),
            Just("n/a?".into()),
            Just("\"a,b\"".into()),
            Just("2021-01-01 00:00:00".into()),
            (0i64..1000).prop_map(|v| v.to_string()),
            "[a-z;|\t ]{0,4}",
        ]
    }

    fn csv() -> impl Strategy<Value = String> {
        (1usize..5, 0usize..40).prop_flat_map(|(cols, rows)| {
            let header = prop::collection::vec("[a-z]{0,3}", cols);
            let body = prop::collection::vec(prop::collection::vec(cell(), cols), rows);
            (header, body).prop_map(|(h, b)| {
                let mut s = h.join(",");
                for r in b {
                    s.push('\n');
                    s.push_str(&r.join(","));
                }
                s
            })
        })
    }

    fn one_line(e: &str) -> bool {
        !e.trim_end().contains('\n')
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn the_loader_never_panics(
            text in prop_oneof![csv(), ".{0,200}"],
            bytes in prop::collection::vec(any::<u8>(), 0..64),
            policy in 0usize..4,
            time in prop_oneof![Just("auto"), Just("none"), Just("a"), Just("zz")],
            f32 in any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let opts = LoadOptions {
                columns: None,
                missing: Missing::ALL[policy],
                time_column: time.parse().unwrap(),
                dtype: if f32 { engine::DType::F32 } else { engine::DType::F64 },
            };
            for (name, content) in [("t.csv", text.as_bytes()), ("b.parquet", &bytes[..]), ("c.jsonl", text.as_bytes())] {
                let p = dir.path().join(name);
                std::fs::write(&p, content).unwrap();
                match wavebench_core::run_spec::load(&wavebench::backend::LOCAL, &p, &opts) {
                    Ok(t) => prop_assert!(!t.channels.is_empty()),
                    Err(e) => prop_assert!(one_line(&e.to_string()) && e.to_string().contains(name), "{}", e),
                }
            }
        }

        #[test]
        fn the_options_never_panic(
            args in prop::collection::vec(prop_oneof![
                Just("--level".to_string()), Just("--seq-len".into()), Just("--stride".into()),
                Just("--rows".into()), Just("--wavelet".into()), Just("--mode".into()),
                Just("--batch-size".into()), Just("--aggregate".into()), Just("--shard".into()),
                Just("--time-column".into()), Just("--dtype".into()), Just("--repeat".into()),
                Just("18446744073709551615".into()), Just("4294967296".into()), Just("0".into()),
                Just("3".into()), Just("-1".into()), Just("1e7".into()), Just("5..2".into()),
                Just("0..".into()), Just("2/3".into()), Just("db4".into()), Just("batch".into()),
                "[a-z0-9./-]{0,6}",
            ], 0..8),
            command in prop_oneof![Just("features"), Just("prompts"), Just("bench"), Just("decompose")],
        ) {
            use clap::Parser;
            let mut argv = vec!["wavebench".to_string(), command.to_string(), "x.csv".into()];
            argv.extend(args);
            if command != "bench" {
                argv.extend(["-o".to_string(), "-".into()]);
            }
            let Ok(cli) = wavebench::cli::Cli::try_parse_from(&argv) else { return Ok(()) };
            use wavebench::cli::Command;
            let (common, prompt) = match cli.command {
                Some(Command::Features { common, prompt, .. })
                | Some(Command::Prompts { common, prompt, .. })
                | Some(Command::Bench { common, prompt, .. }) => (common, Some(prompt)),
                Some(Command::Decompose { common, .. }) => (common, None),
                _ => return Ok(()),
            };
            let cfg = common.config().and_then(|mut c| {
                if let Some(p) = &prompt { p.apply(&mut c)?; }
                Ok(c)
            });
            let purpose = if prompt.is_some() { Purpose::Features } else { Purpose::Decompose };
            match cfg.map(|c| RunSpec::new(c, purpose, &wavebench::backend::LOCAL)) {
                Ok(Ok(spec)) => {
                    // Through to a plan on a small table: refusals are one line.
                    let table = Table {
                        channels: vec![Channel { name: "x".into(), values: (0..300).map(|i| (i as f64).sin()).collect::<Vec<f64>>().into() }],
                        ..Default::default()
                    };
                    if let Err(e) = spec.prepare(&table) { prop_assert!(one_line(&e.to_string()), "{}", e) }
                }
                Ok(Err(e)) => prop_assert!(one_line(&e.to_string()), "{}", e),
                Err(f) => prop_assert!(one_line(&wavebench::cli::message(&f)), "{}", f),
            }
        }

        #[test]
        fn templates_never_panic(src in "[{}%a-z_|().\" 0-9f,:#+-]{0,48}") {
            let f = features();
            match Prompter::new(&src) {
                Ok(p) => {
                    let _ = p.render(&PromptVars { features: &f, description: "d", seq_len: 64, pred_len: 8 });
                }
                Err(e) => prop_assert!(one_line(&e.to_string()), "{e}"),
            }
        }

        #[test]
        fn engine_entry_points_never_panic(
            len in 1usize..200,
            level in 1usize..12,
            wavelet in prop::sample::select(wavebench_core::wavelet::all().iter().map(|w| w.name.clone()).collect::<Vec<_>>()),
            mode in prop::sample::select(wavebench_core::wavelet::Mode::ALL.to_vec()),
            scale in prop_oneof![Just(1.0f64), Just(1e-300), Just(1e14), Just(1e149)],
            features_purpose in any::<bool>(),
            dtype in prop_oneof![Just(engine::DType::F32), Just(engine::DType::F64)],
        ) {
            let table = Table {
                channels: vec![Channel { name: "x".into(), values: (0..len).map(|i| scale * ((i * 7 % 13) as f64 - 6.0)).collect::<Vec<f64>>().into() }],
                ..Default::default()
            };
            let transform = wavebench_core::transform::Transform::new(&wavelet, level, mode).unwrap();
            let cfg = Config { transform, dtype, seq_len: Some(len.min(64)), stride: 7, engine: engine::EngineKind::Native, ..Config::default() };
            let purpose = if features_purpose { Purpose::Features } else { Purpose::Decompose };
            let spec = RunSpec::new(cfg, purpose, &wavebench::backend::LOCAL).unwrap();
            let prepared = match spec.prepare(&table) {
                Ok(p) => p,
                Err(e) => { prop_assert!(one_line(&e.to_string()), "{}", e); return Ok(()); }
            };
            let mut sel = spec.engine();
            if features_purpose {
                let units = prepared.features(&table, &mut sel, &mut Timer::default(), |_| true).unwrap();
                for u in &units {
                    prop_assert!(u.features.energy_ratio.iter().all(|r| r.is_finite()), "{:?}", u.features);
                    prop_assert!(u.features.snr_db.is_finite() && u.features.min.is_finite());
                }
            } else {
                let x: Vec<f64> = table.channels[0].values.rows_f64(0..prepared.windows.seq_len).into_owned();
                let out = sel.engine.decompose(engine::Values::from_f64(&x, dtype).as_ref(), &prepared.plan).unwrap();
                prop_assert_eq!(out.len(), prepared.plan.coeffs_per_series());
            }
        }
    }

    /// Real features of one window, for rendering fuzzed templates.
    fn features() -> Features {
        let table = Table {
            channels: vec![Channel {
                name: "x".into(),
                values: (0..64)
                    .map(|i| (i as f64 * 0.3).sin())
                    .collect::<Vec<f64>>()
                    .into(),
            }],
            ..Default::default()
        };
        let spec = RunSpec::new(
            Config {
                seq_len: Some(64),
                engine: engine::EngineKind::Native,
                ..Config::default()
            },
            Purpose::Features,
            &wavebench::backend::LOCAL,
        )
        .unwrap();
        let prepared = spec.prepare(&table).unwrap();
        let mut sel = spec.engine();
        let mut units = prepared
            .features(&table, &mut sel, &mut Timer::default(), |_| true)
            .unwrap();
        let _: &dyn Engine = sel.engine.as_ref();
        units.remove(0).features
    }
}
