//! Snapshots of the main views, rendered with wgpu (Mesa's lavapipe on a machine without a
//! GPU). Baselines live in tests/snapshots/; `UPDATE_SNAPSHOTS=1 cargo test --test snapshots`
//! regenerates them. Each view is drawn from a fixed inspection so the pictures are stable
//! (the timing view gets fixed stage times instead of measured ones).

use egui_kittest::Harness;
use std::path::PathBuf;
use std::time::Duration;
use wavebench::app::state::Settings;
use wavebench::app::views;
use wavebench_core::config::Config;
use wavebench_core::engine::{DType, EngineKind};
use wavebench_core::pipeline::Inspection;
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::{Inspect, Purpose, RunSpec};
use wavebench_core::timing::{Stage, Timer};

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic.csv")
}

fn table() -> wavebench_core::data::Table {
    RunSpec::new(
        Config::default(),
        Purpose::Features,
        &wavebench::backend::LOCAL,
    )
    .unwrap()
    .load(&sample())
    .unwrap()
}

fn inspection() -> Inspection {
    inspection_of("db4", 3)
}

/// One window through the pipeline, with fixed stage times (real ones vary by run).
fn inspection_of(wavelet: &str, level: usize) -> Inspection {
    let path = sample();
    let table = RunSpec::new(
        Config::default(),
        Purpose::Features,
        &wavebench::backend::LOCAL,
    )
    .unwrap()
    .load(&path)
    .unwrap();
    // The table as the default run loads it (f32), computed in f64 over windows of 256.
    let spec = RunSpec::new(
        Config {
            transform: wavebench_core::transform::Transform::new(
                wavelet,
                level,
                Default::default(),
            )
            .unwrap(),
            seq_len: Some(256),
            dtype: DType::F64,
            engine: EngineKind::Native,
            ..Config::default()
        },
        Purpose::Features,
        &wavebench::backend::LOCAL,
    )
    .unwrap();
    let prompter = Prompter::new(wavebench_core::prompt::builtin("dwt-balanced").unwrap()).unwrap();
    let unit = Inspect {
        channel: 0,
        window: 300,
        prompter: &prompter,
        description: "Synthetic test data",
        pred_len: 24,
    };
    let mut r = spec
        .prepare(&table)
        .unwrap()
        .inspect(&table, &mut spec.engine(), unit)
        .unwrap();
    let mut t = Timer::new(false);
    for (i, s) in Stage::ALL.iter().enumerate() {
        t.add(*s, Duration::from_micros(100 * (i as u64 % 4 + 1)));
    }
    r.timer = t;
    r.device = "CPU (native avx512, 2 threads)".into();
    r
}

fn snapshot(name: &str, size: [f32; 2], mut draw: impl FnMut(&mut egui::Ui)) {
    let mut h = Harness::builder()
        .with_size(size)
        .wgpu()
        .build_ui(move |ui| {
            egui::CentralPanel::default().show(ui, |ui| draw(ui));
        });
    h.run();
    h.snapshot(name);
}

#[test]
fn bands() {
    let r = inspection();
    let t = table();
    let link = egui::Id::unique("snapshot axis");
    snapshot("bands", [900.0, 560.0], |ui| {
        views::bands::ui(ui, &r, &t, false, views::bands::Stack::alone(link))
    });
}

#[test]
fn energy_and_features() {
    let r = inspection();
    snapshot("energy_features", [900.0, 520.0], |ui| {
        ui.allocate_ui(egui::vec2(880.0, 220.0), |ui| {
            views::energy::ui(ui, &r.features, None)
        });
        views::features::ui(ui, &r.features);
    });
}

#[test]
fn prompt() {
    let r = inspection();
    let mut s = Settings::default();
    let mut commands = wavebench::app::commands::Commands::default();
    snapshot("prompt", [900.0, 220.0], |ui| {
        views::prompt::ui(ui, Some(&r.prompt), &mut s, &mut commands)
    });
}

#[test]
fn timing() {
    let r = inspection();
    let mut timing = views::timing::TimingView::default();
    for _ in 0..5 {
        timing.record(&r);
    }
    // The seed's proposals as measured (fixed stage times, as above): one that cannot run
    // on this workload shows why.
    use wavebench::variants::{Measured, Variant};
    let timed = |ms: [u64; 3]| {
        let mut t = Timer::default();
        for (stage, ms) in [Stage::Prepare, Stage::Decompose, Stage::Render]
            .into_iter()
            .zip(ms)
        {
            t.add(stage, Duration::from_millis(ms));
        }
        Ok(vec![t])
    };
    let row = |variant, result, changed, hits| Measured {
        variant,
        result,
        prompts_changed: changed,
        prompts: 15_876,
        cache_hit_rate: hits,
    };
    timing.measured = Some((
        "db4 level 3 reflect, windows of 256 samples".into(),
        vec![
            row(Variant::Baseline, timed([20, 60, 20]), 0, None),
            row(Variant::Cache, timed([90, 700, 210]), 0, Some(0.5)),
            row(Variant::AdaptiveLevel, timed([20, 50, 20]), 2_210, None),
            row(
                Variant::Bf16,
                Err("the engine has no bfloat16 path".into()),
                0,
                None,
            ),
        ],
    ));
    timing.open_variants = Some(true);
    snapshot("timing", [640.0, 560.0], |ui| {
        timing.ui(
            ui,
            &r,
            "db4 level 3 reflect, windows of 256 samples",
            false,
            &mut Default::default(),
        );
    });
}

/// The whole dashboard as a researcher first sees it, on the sample data, in a
/// 1400×900 window. Stage times differ from run to run (their numbers and the history's
/// scale: up to ~1% of the pixels); layout, labels and plots may not.
fn dashboard(name: &str, dark: bool) {
    use wavebench::app::Workbench;
    let mut settings = Settings {
        window: 1000,
        channel: 1,
        dark_theme: dark,
        ..Settings::default()
    };
    settings.run.engine = EngineKind::Native;
    settings.run.description = "Synthetic hourly data".into();
    // Relative (tests run in the package root): the status line shows the path, and a
    // clone elsewhere must draw the same picture.
    let app = Workbench::new(
        Some(PathBuf::from("sample_data/synthetic.csv")),
        settings,
        &egui::Context::default(),
    );
    let mut h = Harness::builder()
        .with_size([1400.0, 900.0])
        .wgpu()
        .build_ui_state(|ui, app: &mut Workbench| app.show(ui), app);
    for _ in 0..2000 {
        h.step();
        if h.state().is_idle() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(h.state().is_idle(), "{}", h.state().status());
    h.run();
    h.snapshot_options(
        name,
        &egui_kittest::SnapshotOptions::new().max_failed_pixels(15_000),
    );
}

#[test]
fn dashboard_dark() {
    dashboard("dashboard_dark", true);
}

#[test]
fn dashboard_light() {
    dashboard("dashboard_light", false);
}

#[test]
fn compare() {
    let (a, b) = (inspection_of("db4", 3), inspection_of("sym5", 2));
    let t = table();
    snapshot("compare", [700.0, 1080.0], |ui| {
        views::compare::ui(
            ui,
            &t,
            ("db4 level 3 reflect", &a),
            ("sym5 level 2 reflect", &b),
            None,
        )
    });
}

/// A request at windows of 256 with the dwt-balanced template, over `grid`.
fn balanced_request(grid: wavebench::sweep::Grid) -> wavebench::sweep::Request {
    let prompter = Prompter::new(wavebench_core::prompt::builtin("dwt-balanced").unwrap()).unwrap();
    wavebench::sweep::Request {
        base: Config {
            seq_len: Some(256),
            ..Config::default()
        },
        grid,
        templates: vec![("dwt-balanced".into(), std::sync::Arc::new(prompter))],
        split: Default::default(),
        protocol: Default::default(),
    }
}

#[test]
fn sweep() {
    let t = table();
    let req = balanced_request(wavebench::sweep::Grid {
        wavelets: vec!["db*".into(), "sym*".into(), "haar".into()],
        ..Default::default()
    });
    let sweep = wavebench::sweep::run(&[("synthetic.csv", &t)], &req, |_, _| true).unwrap();
    let mut view = views::sweep::SweepView {
        sweep: Some(sweep),
        ..Default::default()
    };
    // The knobs the sweep ran with: not stale.
    let mut s = Settings::default();
    s.run.seq_len = Some(256);
    snapshot("sweep", [900.0, 520.0], |ui| {
        view.ui(ui, &mut s, false, &mut Default::default(), None);
    });
}

/// The pointer over the first band: every band plot shows the cursor at the same time.
#[test]
fn bands_linked_cursor() {
    let r = inspection();
    let t = table();
    let link = egui::Id::unique("snapshot axis");
    let mut h = Harness::builder()
        .with_size([900.0, 560.0])
        .wgpu()
        .build_ui(move |ui| {
            egui::CentralPanel::default().show(ui, |ui| {
                views::bands::ui(ui, &r, &t, false, views::bands::Stack::alone(link))
            });
        });
    h.run();
    h.hover_at(egui::pos2(450.0, 80.0));
    h.run();
    h.snapshot("bands_linked_cursor");
}

/// The Data set pane on the sample file, surveyed as the app surveys it: the timeline, the
/// figures, the category shares and the claims × outcomes heat map (the scored pairs
/// framed, each cell's bits written in it).
#[test]
fn dataset() {
    let t = table();
    let req = balanced_request(Default::default());
    let tables = [("synthetic.csv", &t)];
    let mut scored =
        wavebench::sweep::ScoredUnits::new(wavebench::sweep::scorer(&tables, &req).unwrap());
    let survey =
        wavebench::sweep::survey::Survey::of("synthetic.csv", &t, &req, &mut scored, 0, None)
            .unwrap();
    let mut view = views::dataset::DataSetView {
        survey: Some(Ok(survey)),
        ..Default::default()
    };
    let mut s = Settings::default();
    s.run.seq_len = Some(256);
    snapshot("dataset", [900.0, 980.0], |ui| view.ui(ui, &t, &mut s));
}
