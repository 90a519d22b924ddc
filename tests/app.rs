//! The real app, driven headless with egui_kittest: open a sample file, check that the
//! prompt shown is the one the pipeline produces for that configuration, turn knobs, break
//! the template.

mod common;

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use std::path::PathBuf;
use wavebench::app::state::Settings;
use wavebench::app::Workbench;
use wavebench_core::config::Config;
use wavebench_core::engine::{EngineKind, Selected};
use wavebench_core::features::Aggregate;
use wavebench_core::prompt::{PromptVars, Prompter};
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::timing::Timer;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic.csv")
}

fn harness(settings: Settings) -> Harness<'static, Workbench> {
    harness_sized(settings, 1000.0)
}

/// A window `height` tall (tall enough to show views far down the scroll area).
fn harness_sized(settings: Settings, height: f32) -> Harness<'static, Workbench> {
    harness_at(sample(), settings, height)
}

fn harness_at(file: PathBuf, settings: Settings, height: f32) -> Harness<'static, Workbench> {
    let app = Workbench::new(Some(file), settings, &egui::Context::default());
    Harness::builder()
        .with_size([1400.0, height])
        .build_ui_state(|ui, app: &mut Workbench| app.show(ui), app)
}

/// Step frames until `done` holds (bounded), then one more to draw the outcome.
fn step_until(h: &mut Harness<'_, Workbench>, done: impl Fn(&Workbench) -> bool) {
    for _ in 0..1000 {
        h.step();
        if done(h.state()) {
            h.step();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the app did not get there: {}", h.state().status());
}

/// Step frames until the worker has answered the current settings.
/// A filter bank of the catalogue by name.
fn bank(name: &str) -> &'static wavebench_core::wavelet::Wavelet {
    wavebench_core::wavelet::lookup(name).expect("a catalogue name")
}

fn settle(h: &mut Harness<'_, Workbench>) {
    step_until(h, Workbench::is_idle);
}

/// The prompt on screen (it must have rendered).
fn shown_prompt<'a>(h: &'a Harness<'_, Workbench>) -> &'a String {
    h.state().result().unwrap().prompt.as_ref().unwrap()
}

/// The prompt `wavebench prompts` produces for this window and channel.
fn pipeline_prompt(s: &Settings) -> String {
    let cfg = Config {
        stride: 1,
        aggregate: Aggregate::Series,
        rows: None,
        ..s.run.clone()
    };
    let spec = RunSpec::new(cfg, Purpose::Features, &wavebench::backend::LOCAL).unwrap();
    let table = spec.load(&sample()).unwrap();
    let prepared = spec.prepare(&table).unwrap();
    let units = prepared
        .features(
            &table,
            &mut Selected::native(),
            &mut Timer::default(),
            |_| true,
        )
        .unwrap();
    let unit = units
        .iter()
        .find(|u| {
            u.window == s.window
                && u.column.as_deref() == Some(table.channels[s.channel].name.as_str())
        })
        .unwrap();
    let p = Prompter::new(&s.template_text).unwrap();
    p.render(&PromptVars {
        features: &unit.features,
        description: &s.run.description,
        seq_len: s.seq_len(),
        pred_len: s.run.pred_len,
    })
    .unwrap()
}

/// The app's settings with this run configuration changed.
fn with(f: impl FnOnce(&mut Config), base: Settings) -> Settings {
    let mut s = base;
    f(&mut s.run);
    s
}

fn settings() -> Settings {
    with(
        |c| {
            c.seq_len = Some(256);
            c.description = "Synthetic".into();
            c.pred_len = 24;
            c.engine = EngineKind::Native;
        },
        Settings {
            window: 100,
            channel: 1,
            ..Default::default()
        },
    )
}

#[test]
fn shows_the_pipeline_prompt_and_follows_the_knobs() {
    let mut h = harness(settings());
    settle(&mut h);
    assert!(
        h.state().status().contains("4000 rows × 4 channels"),
        "{}",
        h.state().status()
    );
    let want = pipeline_prompt(&h.state().settings);
    assert_eq!(shown_prompt(&h), &want);
    // The prompt is on screen, as one selectable label.
    h.get_by_label(&want);
    h.get_by_label_contains("frequency pattern");
    // The copy button is the shortcut's command: it copies and says so.
    h.get_by_label("Copy prompt").click();
    h.run_steps(2);
    let copied = format!("prompt copied ({} characters)", want.chars().count());
    assert_eq!(h.state().status(), copied);

    // Another wavelet and level: recomputed, and still the pipeline's prompt.
    h.state_mut().settings.run.transform.wavelet = bank("sym6");
    h.state_mut().settings.run.transform.level = 2;
    h.state_mut().settings.window = 1500;
    settle(&mut h);
    let r = h.state().result().unwrap();
    assert_eq!(r.coeffs.len(), 3, "level 2: three bands");
    assert_eq!(r.mra[0].len(), 256);
    let want2 = pipeline_prompt(&h.state().settings);
    assert_ne!(want, want2);
    assert_eq!(r.prompt.as_ref().unwrap(), &want2);
    h.get_by_label(&want2);
}

#[test]
fn a_broken_template_shows_its_error_where_it_was_typed() {
    let mut h = harness(settings());
    settle(&mut h);
    h.state_mut().settings.run.template = "custom".into();
    h.state_mut().settings.template_text =
        "Range {{ min | f(\".2f\") }}\nBroken {{ max | f(\".2f\") \n".into();
    settle(&mut h);
    let err = h
        .state()
        .result()
        .unwrap()
        .prompt
        .as_ref()
        .unwrap_err()
        .clone();
    assert_eq!(err.line, Some(2), "{err}");
    h.get_by_label_contains("template error: line 2");
    // Features are still computed and shown.
    h.get_by_label_contains("frequency pattern");
    // Fixing it brings the prompt back.
    h.state_mut().settings.template_text = "Range {{ min | f(\".2f\") }}".into();
    settle(&mut h);
    assert!(shown_prompt(&h).starts_with("Range "));
}

#[test]
fn a_bad_file_is_reported_in_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("text.csv");
    std::fs::write(&bad, "name,city\nx,y\n").unwrap();
    let mut h = harness_at(bad, Settings::default(), 700.0);
    step_until(&mut h, |app| !app.is_busy());
    assert!(
        h.state().status().contains("has no numbers"),
        "{}",
        h.state().status()
    );
    h.get_by_label_contains("'name' has no numbers");
}

/// Step until the running job has finished.
fn finish_job(h: &mut Harness<'_, Workbench>) {
    step_until(h, |app| !app.job_running());
}

/// Click `label`, which starts a background job, and step until the job has finished.
/// Returns whether the job was seen running: the click lands within a few frames.
fn run_job_from(h: &mut Harness<'_, Workbench>, label: &str) -> bool {
    h.get_by_label(label).click();
    let mut started = false;
    for _ in 0..10 {
        h.step();
        if h.state().job_running() {
            started = true;
            break;
        }
    }
    finish_job(h);
    started
}

#[test]
fn a_sweep_runs_to_completion_and_loads_a_configuration() {
    let mut h = harness_sized(with(|c| c.seq_len = Some(64), settings()), 2600.0);
    settle(&mut h);
    h.get_by_label("Sweep").click(); // its tab, behind the bands
    h.run();
    assert!(
        run_job_from(&mut h, "Run sweep"),
        "the button started no sweep: {}",
        h.state().status()
    );
    let sweep = h
        .state()
        .views
        .sweep
        .sweep
        .as_ref()
        .expect("the sweep's result is shown");
    let rows = &sweep.rows;
    let (points, _) = wavebench::sweep::Grid::default().points(64).unwrap();
    assert_eq!(rows.len(), points.len());
    assert!(rows
        .iter()
        .zip(&points)
        .all(|(r, p)| r.transform == p.transform));
    // haar = db1 = bior1.1 = rbio1.1: one row.
    assert_eq!(
        rows.iter().filter(|r| r.transform.name() == "db1").count(),
        0
    );
    assert!(rows.iter().all(|r| r.val.score_bits.is_finite()
        && r.test.score_bits.is_finite()
        && r.val.units > 0
        && r.means.iter().all(|v| v.is_finite())));
    assert!(h
        .state()
        .status()
        .contains(&format!("sweep done: {} configurations", points.len())));
    // Ranked by the val score, best first, degenerate configurations hidden.
    let ranked = wavebench::sweep::ranked(rows, wavebench::sweep::RankBy::Score, false);
    assert!(ranked.iter().all(|r| r.approx_len >= 2));
    assert!(ranked
        .windows(2)
        .all(|w| w[0].val.score_bits >= w[1].val.score_bits));
    assert!(
        ranked.len() < rows.len(),
        "level 5 of 64 samples leaves 1 coefficient"
    );
    // The colour scale's upper end (the best val score) is drawn inside the Sweep pane.
    let best = h
        .get_by_label(&format!("{:.2}", ranked[0].val.score_bits))
        .rect();
    let beside = h.get_by_label("Energy, trends, stds").rect().left();
    assert!(
        best.right() <= beside,
        "the colour scale ends at x = {}, past the Sweep pane (the next starts at {beside})",
        best.right()
    );
    let lowest = ranked[0].clone();
    // As the table names it (the heat map's L for level).
    let label = format!("{} L{}", lowest.transform.name(), lowest.transform.level);
    h.get_by_label(&label).click();
    settle(&mut h);
    assert_eq!(
        (
            h.state().settings.run.transform.name(),
            h.state().settings.run.transform.level
        ),
        (lowest.transform.name(), lowest.transform.level)
    );
    // A row's context menu writes its configuration (the TOML `--config` reads).
    h.get_by_label(&label).click_secondary();
    settle(&mut h);
    h.get_by_label("Export configuration ...");
    h.key_press(egui::Key::Escape);
    settle(&mut h);
    // The ties are marked: one "=" per row tied with the best, beside the column's own.
    let sweep = h.state().views.sweep.sweep.clone().unwrap();
    let standings =
        wavebench::sweep::rank::Standings::of(&sweep, wavebench::sweep::RankBy::Score, false);
    let tied = standings.tied().count();
    assert!(tied >= 1, "the best is tied with itself");
    assert_eq!(h.get_all_by_label("=").count(), tied + 1);
    assert!(h.query_by_label_contains("computed for").is_none());
    // The Time-LLM baseline's row, with its val score and interval at one precision, or
    // "—" where val cannot give one.
    h.get_by_label("Time-LLM");
    let base = &sweep.baseline.val;
    let shown = sweep.shown(wavebench_core::score::Part::Val, base.interval);
    h.get_by_label(&if shown[0].is_finite() {
        format!("{:.3} [{:.3}, {:.3}]", base.score_bits, shown[0], shown[1])
    } else {
        format!("{:.3} [—]", base.score_bits)
    });
    // A knob the sweep depends on changes: the table says so and waits to be run again.
    let pred_len = h.state().settings.run.pred_len;
    h.state_mut().settings.run.pred_len = pred_len / 2;
    settle(&mut h);
    h.get_by_label(&format!(
        "Warning: computed for prediction length {pred_len}: run again"
    ));
    h.state_mut().settings.run.pred_len = pred_len;
    settle(&mut h);
    assert!(h.query_by_label_contains("computed for").is_none());
}

/// At 1400×900 with the default layout, the Sweep pane shows at least 10 ranked rows
/// under a header that stays, with every column that carries the answer inside the pane
/// (no sideways scrolling), and a click on a row further down loads its configuration.
#[test]
fn the_sweep_table_shows_ten_rows_and_the_answer_at_1400_by_900() {
    let mut h = harness_sized(with(|c| c.seq_len = Some(64), settings()), 900.0);
    settle(&mut h);
    h.get_by_label("Sweep").click();
    h.run();
    assert!(run_job_from(&mut h, "Run sweep"));
    for _ in 0..4 {
        h.step();
    }
    let pane_left = h.get_by_label("Run sweep").rect().left();
    let pane_right = h.get_by_label("Energy, trends, stds").rect().left();
    let columns = [
        "#",
        "wavelet\nlevel",
        "val bits\n[95% CI]",
        "=",
        "gain\nvs TL",
        "beyond\nseries",
        "MSE\ncut %",
        "test\n#",
    ];
    let mut header_bottom = 0.0f32;
    for c in columns {
        // The header's is the topmost ("=" marks ties below it too).
        let r = h
            .get_all_by_label(c)
            .map(|n| n.rect())
            .min_by(|a, b| a.top().total_cmp(&b.top()))
            .unwrap();
        assert!(
            r.left() >= pane_left && r.right() <= pane_right,
            "column {c:?} spans x {}..{}, outside the Sweep pane's {pane_left}..{pane_right}",
            r.left(),
            r.right()
        );
        header_bottom = header_bottom.max(r.bottom());
    }
    let sweep = h.state().views.sweep.sweep.clone().unwrap();
    let standings =
        wavebench::sweep::rank::Standings::of(&sweep, wavebench::sweep::RankBy::Score, false);
    let labels: Vec<String> = standings
        .rows
        .iter()
        .filter(|st| st.rank.is_some())
        .map(|st| st.short_label())
        .collect();
    assert!(labels.len() > 20, "{} ranked rows", labels.len());
    let visible = |h: &Harness<'_, Workbench>| {
        labels
            .iter()
            .filter(|l| {
                h.query_by_label(l).is_some_and(|n| {
                    let r = n.rect();
                    r.top() >= header_bottom && r.bottom() <= 900.0 && r.right() <= pane_right
                })
            })
            .count()
    };
    let shown = visible(&h);
    assert!(shown >= 10, "{shown} ranked rows visible");
    // The rows scroll under the header: the header stays where it was.
    let header = h.get_by_label("val bits\n[95% CI]").rect();
    h.get_by_label(&labels[0]).hover();
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -200.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    for _ in 0..30 {
        h.step();
    }
    assert_eq!(h.get_by_label("val bits\n[95% CI]").rect(), header);
    assert!(
        h.query_by_label(&labels[0])
            .is_none_or(|n| n.rect().top() < header.bottom()),
        "the first row did not scroll"
    );
    let further: Vec<&String> = labels[shown..]
        .iter()
        .filter(|l| {
            h.query_by_label(l)
                .is_some_and(|n| n.rect().top() >= header.bottom())
        })
        .collect();
    let pick = further.first().expect("rows further down came into view");
    h.get_by_label(pick).click();
    h.step();
    let picked = standings
        .rows
        .iter()
        .find(|st| &st.short_label() == *pick)
        .unwrap();
    assert!(h.state().settings.run.transform == picked.row.transform);
}

/// A file every 10 minutes at the deepest level a 512-row window allows (haar, level 9):
/// each band's name and periods sit beside its plot in one unit, and no two labels of the
/// Bands pane or of Compare's two stacks overlap; Compare's plots start at one x.
#[test]
fn band_labels_never_overlap_at_the_deepest_level_of_a_ten_minute_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ten_minutes.csv");
    let mut csv = String::from("date,x\n");
    let start = 1_577_836_800_000i64;
    for i in 0..3000i64 {
        let t = start + i * 600_000;
        let v = (i as f64 * 0.07).sin() + 0.3 * (i as f64 * 0.9).cos();
        csv.push_str(&format!(
            "{},{v}\n",
            wavebench_core::data::time::iso(t, true)
        ));
    }
    std::fs::write(&file, csv).unwrap();
    let mut h = harness_at(
        file,
        with(
            |c| {
                c.seq_len = Some(512);
                c.transform.wavelet = bank("haar");
                c.transform.level = 9;
                c.pred_len = 24;
                c.engine = EngineKind::Native;
            },
            Settings::default(),
        ),
        900.0,
    );
    settle(&mut h);
    for _ in 0..4 {
        h.step();
    }
    let periods = wavebench_core::engine::plan::band_periods(9, Some(600_000.0));
    assert_eq!(periods.len(), 10);
    let names = wavebench_core::engine::plan::band_names(9);
    let label_rects = |h: &Harness<'_, Workbench>| -> Vec<(String, egui::Rect)> {
        names
            .iter()
            .chain(&periods)
            .flat_map(|t| {
                h.query_all_by_label(t)
                    .map(|n| (t.clone(), n.rect()))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let overlapping = |rects: &[(String, egui::Rect)]| -> Vec<String> {
        let mut found = Vec::new();
        for (i, (a, ra)) in rects.iter().enumerate() {
            for (b, rb) in &rects[i + 1..] {
                if ra.intersect(*rb).is_positive() {
                    found.push(format!("{a:?} {ra:?} / {b:?} {rb:?}"));
                }
            }
        }
        found
    };
    let bands = label_rects(&h);
    // Every band's name and its periods, once each (cD5 holds 320–640 min).
    assert_eq!(bands.len(), 20, "{bands:?}");
    assert!(periods.contains(&"320–640 min".to_string()), "{periods:?}");
    let found = overlapping(&bands);
    assert!(found.is_empty(), "{}", found.join("\n"));
    // Compare: level 9 beside level 2, both stacks' labels apart, plots at one x.
    h.state_mut().pin_for_compare();
    h.state_mut().settings.run.transform.level = 2;
    settle(&mut h);
    h.get_by_label("Compare").click();
    for _ in 0..6 {
        h.step();
    }
    // B's ten bands, and A's cD2 and cD1 (the names and periods the two levels share).
    let compare = label_rects(&h);
    assert_eq!(compare.len(), 20 + 4, "{compare:?}");
    let found = overlapping(&compare);
    assert!(found.is_empty(), "{}", found.join("\n"));
    let name_right = |n: &str| {
        h.query_all_by_label(n)
            .map(|n| n.rect().left())
            .collect::<Vec<f32>>()
    };
    // The label column starts each stack: A's cD1 and B's cD1 labels at their stacks'
    // left edges, every band of a stack at the same x.
    let a_b = name_right("cD1");
    assert_eq!(a_b.len(), 2, "{a_b:?}");
    let column = |x: f32| -> Vec<f32> {
        names
            .iter()
            .flat_map(|n| name_right(n))
            .filter(|l| (l - x).abs() < 100.0)
            .collect()
    };
    for x in a_b {
        assert!(
            column(x).iter().all(|l| (l - x).abs() < 0.5),
            "{:?}",
            column(x)
        );
    }
}

/// The screenshot tour (`gui --screenshots`, what scripts/screenshot.sh runs) brings the
/// Data set, Sweep and Compare panes to the front by their titles, waits for what each
/// computes, and writes four whole-window pictures, each of another view.
#[test]
fn the_screenshot_tour_shows_every_pane_and_writes_its_pictures() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness_sized(settings(), 900.0);
    h.state_mut().take_tour(dir.path().to_path_buf());
    for _ in 0..20_000 {
        h.step();
        if h.state().tour_done() == Some(true) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert_eq!(h.state().tour_failure(), None);
    assert_eq!(h.state().tour_done(), Some(true), "{}", h.state().status());
    // What the tour waited for: the survey, the sweep, and B pinned beside the deepest A.
    assert!(h.state().views.dataset.survey.is_some());
    assert!(h.state().views.sweep.sweep.is_some());
    assert!(h.state().compare().is_some());
    // pywt's dwt_max_level(256, 8) = floor(log2(256 / 7)).
    assert_eq!(
        h.state().settings.run.transform.level,
        5,
        "db4's deepest for 256 rows"
    );
    let mut pictures = Vec::new();
    for name in ["dashboard", "dataset", "sweep", "compare"] {
        let path = dir.path().join(format!("{name}.png"));
        let img = image::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .to_rgba8();
        assert_eq!(img.dimensions(), (1400, 900), "{name}");
        pictures.push(img.into_raw());
    }
    for (i, a) in pictures.iter().enumerate() {
        for b in &pictures[i + 1..] {
            assert_ne!(a, b, "two pictures of the tour are the same");
        }
    }
}

#[test]
fn exports_write_what_the_pipeline_computes_and_cancel_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(with(
        |c| {
            c.seq_len = Some(128);
            c.stride = 64;
        },
        settings(),
    ));
    settle(&mut h);
    let prompts = dir.path().join("p.jsonl");
    h.state_mut().export_prompts(prompts.clone());
    finish_job(&mut h);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&prompts)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // (4000 - 128) / 64 + 1 = 61 windows x 4 channels.
    assert_eq!(lines.len(), 61 * 4, "{}", h.state().status());
    // A described data set: no warning about the description.
    assert!(
        !h.state().status().contains("warning"),
        "{}",
        h.state().status()
    );
    let mut s = h.state().settings.clone();
    s.window = lines[5]["window"].as_u64().unwrap() as usize;
    s.channel = 1;
    assert_eq!(lines[5]["column"], "noisy_seasonal");
    assert_eq!(lines[5]["start"].as_u64().unwrap() as usize, s.window * 64);
    // Windows here are stride 64; the pipeline_prompt helper steps by 1, so compare by start row.
    s.window *= 64;
    assert_eq!(lines[5]["prompt"].as_str().unwrap(), pipeline_prompt(&s));

    let features = dir.path().join("f.csv");
    h.state_mut().export_features(features.clone());
    finish_job(&mut h);
    assert_eq!(
        std::fs::read_to_string(&features).unwrap().lines().count(),
        1 + 61 * 4
    );

    // Cancelled straight away: no file, and the window says so.
    let cancelled = dir.path().join("never.jsonl");
    h.state_mut().settings.run.stride = 1;
    h.state_mut().export_prompts(cancelled.clone());
    h.state_mut().cancel_job();
    finish_job(&mut h);
    assert!(!cancelled.exists());
    assert!(
        h.state().status().contains("cancelled"),
        "{}",
        h.state().status()
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn compare_shows_both_configurations_on_the_same_window() {
    let mut h = harness_sized(settings(), 2600.0);
    settle(&mut h);
    h.get_by_label("Pin for compare").click();
    h.run_steps(3);
    assert!(h.state().compare().is_some());
    // A deep level: six energy ratios make the longest row of the table.
    h.state_mut().settings.run.transform.wavelet = bank("sym4");
    h.state_mut().settings.run.transform.level = 5;
    let wait_b = |h: &mut Harness<'_, Workbench>| {
        for _ in 0..1000 {
            h.step();
            let c = h.state().compare().unwrap();
            if h.state().is_idle()
                && c.result
                    .as_ref()
                    .is_some_and(|r| r.window == h.state().settings.window)
            {
                h.step();
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("compare did not settle");
    };
    wait_b(&mut h);
    let b = h.state().compare().unwrap();
    let b_settings = b.settings_for(&h.state().settings);
    assert_eq!(
        (
            b_settings.run.transform.name(),
            b_settings.run.transform.level
        ),
        ("db4", 3)
    );
    assert_eq!(
        b.result.as_ref().unwrap().prompt.as_ref().unwrap(),
        &pipeline_prompt(&b_settings)
    );
    assert_eq!(shown_prompt(&h), &pipeline_prompt(&h.state().settings));
    h.get_by_label("A: sym4 level 5 reflect");
    // B's column stays inside the Compare pane, left of the pane beside it (its values
    // wrap instead), as does the prompt diff under the table.
    let beside = h.get_by_label("Energy, trends, stds").rect().left();
    let b_column = h.get_by_label("B: db4 level 3 reflect").rect();
    assert!(
        b_column.right() <= beside,
        "B's column ends at x = {}, past the Compare pane (the next pane starts at {beside})",
        b_column.right()
    );
    let diff = h.get_by_label_contains("Prompt diff").rect();
    assert!(
        diff.right() <= beside,
        "the prompt diff ends at x = {}",
        diff.right()
    );
    // A's six energy ratios wrap inside the Features pane too (it lies under the
    // "Energy, trends, stds" pane, left of the Prompt pane).
    let features = &h.state().result().unwrap().features;
    assert_eq!(features.energy_ratio.len(), 6);
    let ratios = features
        .energy_ratio
        .iter()
        .map(|x| format!("{x:.3}"))
        .collect::<Vec<_>>()
        .join(", ");
    let prompt_pane = h.get_by_label("Copy prompt").rect().left();
    let in_features: Vec<_> = h
        .get_all_by_label(&ratios)
        .map(|n| n.rect())
        .filter(|r| r.left() >= beside)
        .collect();
    assert_eq!(in_features.len(), 1, "the Features pane's energy ratios");
    assert!(
        in_features[0].right() <= prompt_pane,
        "the Features pane's energy ratios end at x = {}, past the pane (the Prompt pane starts at {prompt_pane})",
        in_features[0].right()
    );
    // B follows A's window.
    h.state_mut().settings.window = 2222;
    wait_b(&mut h);
    assert_eq!(
        h.state().compare().unwrap().result.as_ref().unwrap().start,
        2222
    );
}

#[test]
fn the_missing_value_policy_reloads_the_file() {
    let gaps = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic_gaps.csv");
    let mut h = harness_at(
        gaps,
        with(
            |c| c.missing = wavebench_core::data::Missing::Error,
            settings(),
        ),
        1000.0,
    );
    step_until(&mut h, |app| !app.is_busy());
    assert!(
        h.state().status().contains("missing value"),
        "{}",
        h.state().status()
    );
    assert!(h.state().table().is_none());
    // The error names the row; the file stays chosen, so another policy can load it.
    h.state_mut().settings.run.missing = wavebench_core::data::Missing::Interpolate;
    h.state_mut()
        .open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_data/synthetic_gaps.csv"));
    settle(&mut h);
    let table = h.state().table().unwrap();
    assert!(table
        .channels
        .iter()
        .all(|c| c.values.iter_f64().all(|v| v.is_finite())));
    // Switching the policy on a loaded file reloads it.
    h.state_mut().settings.run.missing = wavebench_core::data::Missing::Drop;
    settle(&mut h);
    assert!(
        h.state().table().unwrap().rows() < 4000,
        "rows with a gap dropped"
    );
}

#[test]
fn the_row_range_selects_what_is_inspected_and_exported() {
    let mut h = harness(with(
        |c| c.rows = Some("1000..2000".parse().unwrap()),
        Settings {
            window: 10,
            ..settings()
        },
    ));
    settle(&mut h);
    let r = h.state().result().unwrap();
    assert_eq!(r.start, 1010);
    // The same window of the whole file, as the pipeline sees it.
    let whole = with(
        |c| c.rows = None,
        Settings {
            window: 1010,
            ..h.state().settings.clone()
        },
    );
    assert_eq!(r.prompt.as_ref().unwrap(), &pipeline_prompt(&whole));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.jsonl");
    h.state_mut().settings.run.stride = 100;
    h.state_mut().export_features(out.clone());
    finish_job(&mut h);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // (1000 - 256) / 100 + 1 = 8 windows x 4 channels, all inside the range.
    assert_eq!(rows.len(), 8 * 4);
    assert!(rows
        .iter()
        .all(|r| (1000..2000 - 256 + 1).contains(&r["start"].as_u64().unwrap())));
}

#[test]
fn timing_and_column_exports() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(with(
        |c| {
            c.seq_len = Some(128);
            c.stride = 128;
        },
        settings(),
    ));
    settle(&mut h);
    for ext in ["json", "csv", "md"] {
        let p = dir.path().join(format!("timing.{ext}"));
        h.state_mut().export_timing(&p);
        finish_job(&mut h);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("decompose"), "{ext}: {text}");
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("timing.json")).unwrap())
            .unwrap();
    assert_eq!(v["runs"][0]["engine"], "native");
    assert_eq!(v["config"]["wavelet"], "db4");
    // The data-set measurement, not one window: every window × channel, the baseline
    // beside the proposals switched on (the cache's two epochs counted as such).
    let runs = v["runs"].as_array().unwrap();
    let chosen = h.state().views.timing.chosen();
    assert_eq!(runs.len(), 1 + chosen.len());
    assert_eq!(runs[0]["variant"], "baseline");
    // A report is a measurement: the median of five timed runs of each.
    assert!(runs.iter().all(|r| r["repeats"] == 5), "{runs:?}");
    let base = &runs[0]["stages"]["decompose"];
    let ms = |k: &str| base[k].as_f64().unwrap_or_else(|| panic!("{k} in {base}"));
    assert!(ms("min_ms") <= ms("max_ms"), "{base}");
    let series = ((4000 - 128) / 128 + 1) * 4;
    assert_eq!(runs[0]["series"], series);
    assert_eq!(runs[0]["prompts"], series);
    // The cache is among the proposals measured by default; its two epochs count twice.
    assert!(chosen.iter().any(|v| v.name() == "cache"), "{chosen:?}");
    let cache = runs
        .iter()
        .find(|r| r["variant"] == "cache")
        .expect("the cache's run");
    assert_eq!(cache["series"], 2 * series);
    assert!(h.state().views.timing.measured.is_some());
    assert!(h.state().status().contains("timing export: written to"));
    // Only the chosen column is exported.
    h.state_mut().settings.run.columns = Some(vec!["regime".into()]);
    let out = dir.path().join("regime.jsonl");
    h.state_mut().export_features(out.clone());
    finish_job(&mut h);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), (4000 - 128) / 128 + 1);
    assert!(rows.iter().all(|r| r["column"] == "regime"));
}

#[test]
fn layout_theme_and_diff() {
    use wavebench::app::layout::{self, Pane};
    let mut h = harness(settings());
    settle(&mut h);
    // Every pane is on the first screen, titled.
    for title in [
        "Series",
        "Bands",
        "Energy, trends, stds",
        "Prompt",
        "Features",
        "Timing",
    ] {
        assert!(h.query_all_by_label(title).next().is_some(), "{title}");
    }
    // The arrangement survives a save and a restart.
    layout::toggle(h.state_mut().layout_mut(), Pane::Timing);
    h.run();
    let saved = serde_json::to_string(h.state().layout().unwrap()).unwrap();
    let mut h2 = harness(settings());
    h2.state_mut()
        .set_layout(serde_json::from_str(&saved).unwrap());
    settle(&mut h2);
    let l = h2.state().layout().unwrap();
    assert!(!layout::is_open(l, Pane::Timing) && layout::is_open(l, Pane::Prompt));
    assert!(
        h2.query_all_by_label("Timing").next().is_none(),
        "a closed pane stays closed"
    );
    // Theme switch: remembered in the settings.
    h2.state_mut().set_theme(false);
    h2.run();
    assert!(!h2.state().settings.dark_theme);
    assert_eq!(h2.ctx.theme(), egui::Theme::Light);
    // Compare shows a real diff: B differs from A only in the changed lines.
    h2.state_mut().pin_for_compare();
    h2.state_mut().settings.run.transform.level = 2;
    settle(&mut h2);
    step_until(&mut h2, |app| {
        app.compare().is_some_and(|c| c.result.is_some())
    });
    let c = h2.state().compare().unwrap().result.as_ref().unwrap();
    let a = h2.state().result().unwrap();
    let d =
        wavebench::app::diff::diff_lines(a.prompt.as_ref().unwrap(), c.prompt.as_ref().unwrap());
    let same = d
        .iter()
        .filter(|l| l.side == wavebench::app::diff::Side::Same)
        .count();
    assert!(same >= 3, "header lines are shared: {d:?}");
}

/// Frame times of the real app, headless (not a pass/fail test: `make bench-app` runs it
/// and BENCHMARKS.md records the numbers). First frame with everything on screen; a knob
/// change to new bands, features and prompt on screen at windows of 512 and 4096; a frame
/// of a 10-million-row overview.
#[test]
#[ignore]
fn bench_frame_times() {
    use std::time::Instant;
    let data = common::etth1();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let t = Instant::now();
    let mut h = harness_at(data.clone(), settings(), 900.0);
    settle(&mut h);
    println!(
        "first full dashboard ({}): {:.0} ms",
        data.display(),
        ms(t.elapsed())
    );
    for seq in [512, 4096] {
        h.state_mut().settings.run.seq_len = Some(seq);
        settle(&mut h);
        let mut changes = Vec::new();
        let mut frames = Vec::new();
        for level in [2, 3, 4, 3, 2, 3, 4, 3] {
            let t = Instant::now();
            h.state_mut().settings.run.transform.level = level;
            settle(&mut h); // computed off the UI thread, then drawn
            changes.push(ms(t.elapsed()));
            let t = Instant::now();
            h.step();
            frames.push(ms(t.elapsed()));
        }
        changes.sort_by(f64::total_cmp);
        frames.sort_by(f64::total_cmp);
        println!(
            "window {seq}: knob change to new plots on screen, median {:.1} ms (max {:.1}); one frame median {:.1} ms (max {:.1})",
            changes[changes.len() / 2],
            changes[changes.len() - 1],
            frames[frames.len() / 2],
            frames[frames.len() - 1]
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("10m.csv");
    let text: String = (0..10_000_000u64)
        .map(|i| format!("{}\n", (i as f64 * 0.001).sin()))
        .collect();
    std::fs::write(&big, format!("x\n{text}")).unwrap();
    let t = Instant::now();
    let mut h = harness_at(big, settings(), 900.0);
    h.state_mut().settings.channel = 0;
    while !h.state().is_idle() && t.elapsed().as_secs() < 120 {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(h.state().is_idle(), "{}", h.state().status());
    println!("10M rows: loaded and drawn in {:.0} ms", ms(t.elapsed()));
    let mut frames = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        h.step();
        frames.push(ms(t.elapsed()));
    }
    frames.sort_by(f64::total_cmp);
    println!(
        "10M rows: one frame median {:.1} ms (max {:.1})",
        frames[5], frames[9]
    );
}

/// The timing view's switches measure the seed's proposals over the whole data set in the
/// background: flipping one starts a run, and each row says what its variant did.
#[test]
fn the_seeds_proposals_are_measured_from_the_timing_view() {
    use wavebench::variants::Variant;
    let mut h = harness_sized(
        with(
            |c| {
                c.seq_len = Some(128);
                c.stride = 8;
            },
            settings(),
        ),
        1400.0,
    );
    settle(&mut h);
    assert!(h.state().views.timing.measured.is_none());
    // The section opens from its header; batching on (off by default): the switch alone
    // starts the measurement.
    h.get_by_label("The seed's proposals, over the whole data set")
        .click();
    h.run();
    assert!(
        run_job_from(&mut h, "batching"),
        "the switch started no measurement: {}",
        h.state().status()
    );
    let (label, rows) = h.state().views.timing.measured.as_ref().expect("measured");
    assert!(
        label.contains("db4 level 3") && label.contains("128 samples"),
        "{label}"
    );
    let variants: Vec<Variant> = rows.iter().map(|m| m.variant).collect();
    assert_eq!(
        variants,
        [
            Variant::Baseline,
            Variant::Cache,
            Variant::AdaptiveLevel,
            Variant::Bf16,
            Variant::Batching
        ]
    );
    let windows = (4000 - 128) / 8 + 1;
    for m in rows {
        let at = m.variant.name();
        let runs = m.result.as_ref().unwrap_or_else(|e| panic!("{at}: {e}"));
        // The pane's live comparison times each variant once.
        assert_eq!(runs.len(), 1, "{at}");
        assert!(runs[0].total().as_secs_f64() > 0.0, "{at}");
        assert_eq!(m.prompts, windows * 4, "{at}: one prompt per series");
    }
    // Caching and per-window calls compute the same prompts; the cache hits every window
    // once in two epochs; bfloat16 inputs change some descriptions.
    let by = |v: Variant| rows.iter().find(|m| m.variant == v).unwrap();
    assert_eq!(by(Variant::Cache).prompts_changed, 0);
    assert_eq!(by(Variant::Batching).prompts_changed, 0);
    assert_eq!(by(Variant::Cache).cache_hit_rate, Some(0.5));
    assert!(by(Variant::Bf16).prompts_changed > 0);
    // Batch aggregation: the per-window proposals say why they cannot run.
    h.state_mut().settings.run.aggregate = Aggregate::Batch;
    settle(&mut h);
    run_job_from(&mut h, "Measure");
    let (label, rows) = h.state().views.timing.measured.as_ref().expect("measured");
    assert!(label.contains("batch aggregation"), "{label}");
    let cache = rows.iter().find(|m| m.variant == Variant::Cache).unwrap();
    let why = cache
        .result
        .as_ref()
        .expect_err("the cache cannot run on batches");
    assert!(why.contains("aggregate series or sample"), "{why}");
    assert!(rows[0].result.is_ok(), "the baseline runs on batches");
}

/// Big files stay calm: the Data set pane's survey of every window runs only while the
/// pane is shown (a hidden tab's kept a core busy for minutes on a 10M-row file), and once
/// a job is done the app asks for no more frames.
#[test]
fn the_app_works_only_for_what_is_shown_and_then_rests() {
    let mut h = harness_sized(with(|c| c.seq_len = Some(64), settings()), 2600.0);
    settle(&mut h);
    for _ in 0..10 {
        h.step();
    }
    // Data set is a tab behind Bands: nothing surveyed, nothing computing.
    assert!(h.state().views.dataset.survey.is_none());
    assert!(!h.state().views.dataset.computing);
    h.get_by_label("Sweep").click(); // its tab, behind the bands
    h.run();
    assert!(run_job_from(&mut h, "Run sweep"));
    for _ in 0..10 {
        h.step();
    }
    assert!(
        !h.ctx.has_requested_repaint(),
        "the app keeps repainting after its job"
    );
    // Shown, the pane surveys, its progress counted to the end.
    h.get_by_label("Data set").click();
    h.step();
    step_until(&mut h, |app| {
        !app.views.dataset.computing && matches!(app.views.dataset.survey, Some(Ok(_)))
    });
    assert_eq!(h.state().views.dataset.progress.fraction(), Some(1.0));
}

/// A big file's survey starts thinned (every 2nd window: the file's ~300,000 units are more
/// than a first survey's 250,000), is refined to every window while the pane stays shown,
/// counts its progress to the end, and then the app rests: no more frames asked for.
#[test]
fn a_big_files_survey_is_thinned_refined_and_then_rests() {
    let dir = tempfile::tempdir().unwrap();
    let noise = common::lcg_series(5, 40_000 * 7);
    let mut csv = String::from("t,a,b,c,d,e,f,g\n");
    for r in 0..40_000 {
        csv.push_str(&r.to_string());
        for c in 0..7 {
            let v = (r as f64 / (10.0 + c as f64)).sin() + noise[r * 7 + c];
            csv.push_str(&format!(",{v:.4}"));
        }
        csv.push('\n');
    }
    let file = dir.path().join("big.csv");
    std::fs::write(&file, csv).unwrap();
    let mut h = harness_at(file, with(|c| c.seq_len = Some(64), settings()), 1400.0);
    settle(&mut h);
    h.get_by_label("Data set").click();
    step_until(&mut h, |app| app.views.dataset.computing);
    assert_eq!(
        h.state().views.dataset.thinned,
        Some(2),
        "the first survey, thinned"
    );
    step_until(&mut h, |app| {
        !app.views.dataset.computing
            && app.views.dataset.thinned.is_none()
            && matches!(app.views.dataset.survey, Some(Ok(_)))
    });
    let windows = match &h.state().views.dataset.survey {
        Some(Ok(s)) => s.starts.len(),
        _ => 0,
    };
    assert_eq!(windows, 40_000 - 64 + 1, "refined to every window");
    assert_eq!(h.state().views.dataset.progress.fraction(), Some(1.0));
    for _ in 0..10 {
        h.step();
    }
    assert!(
        !h.ctx.has_requested_repaint(),
        "the app keeps repainting after its survey"
    );
}

/// The Data set pane surveys the current configuration over every window: its timeline
/// has a point per window, its score is the sweep's of that configuration, and a knob
/// change recomputes it in the background.
#[test]
fn the_data_set_pane_surveys_every_window_and_follows_the_knobs() {
    let mut h = harness_sized(with(|c| c.seq_len = Some(64), settings()), 1400.0);
    settle(&mut h);
    h.get_by_label("Data set").click();
    h.step();
    let surveyed = |app: &Workbench| {
        !app.views.dataset.computing && matches!(app.views.dataset.survey, Some(Ok(_)))
    };
    step_until(&mut h, surveyed);
    let s = h.state().settings.clone();
    let survey = match &h.state().views.dataset.survey {
        Some(Ok(v)) => v.clone(),
        other => panic!("no survey: {:?}", other.as_ref().map(|r| r.as_ref().err())),
    };
    // 4000 rows, windows of 64 at stride 1.
    assert_eq!(survey.starts.len(), 4000 - 64 + 1);
    assert!(survey
        .features
        .iter()
        .all(|f| f.len() == survey.starts.len()));
    assert!(survey
        .claims
        .iter()
        .all(|c| c.ids.len() == survey.starts.len()));
    // The same configuration through the sweep: the same score. The table as the app
    // holds it, in f64 (the forecast gain reads the values themselves).
    let f64_run = wavebench_core::config::Config {
        dtype: wavebench_core::engine::DType::F64,
        ..s.run.clone()
    };
    let table = RunSpec::new(f64_run, Purpose::Features, &wavebench::backend::LOCAL)
        .unwrap()
        .load(&sample())
        .unwrap();
    let app_table = h.state().table().unwrap();
    assert_eq!(app_table.channels.len(), table.channels.len());
    for (a, b) in app_table.channels.iter().zip(&table.channels) {
        assert_eq!(
            a.values.to_f64(),
            b.values.to_f64(),
            "{}: the same values",
            a.name
        );
    }
    let req = wavebench::sweep::Request {
        base: s.run.clone(),
        grid: wavebench::sweep::Grid {
            wavelets: vec![s.run.transform.name().to_string()],
            levels: wavebench::sweep::Levels::Listed(vec![s.run.transform.level]),
            modes: vec![s.run.transform.mode],
        },
        templates: vec![(
            s.template_label(),
            std::sync::Arc::new(Prompter::new(&s.template_text).unwrap()),
        )],
        split: Default::default(),
        protocol: Default::default(),
    };
    let swept = wavebench::sweep::run(&[("synthetic.csv", &table)], &req, |_, _| true).unwrap();
    assert_eq!(swept.rows.len(), 1);
    assert_eq!(survey.sweep.rows[0].val, swept.rows[0].val);
    assert_eq!(survey.sweep.rows[0].test, swept.rows[0].test);
    // The heat map and the shares are drawn.
    h.get_by_label(&format!(
        "trend × direction: {:+.3} bits above the null",
        survey.sweep.rows[0].val.claims[0]
            .info(wavebench_core::score::Target::Direction)
            .excess_bits
    ));
    h.get_by_label("Category shares");
    // A knob change: the survey follows.
    h.state_mut().settings.run.transform.level = 2;
    step_until(&mut h, |app| {
        surveyed(app)
            && matches!(&app.views.dataset.survey, Some(Ok(v)) if v.label.contains("level 2"))
    });
    // A claim typed into the Sweep pane's editor is scored in the Data set pane.
    h.get_by_label("Sweep").click();
    h.run();
    h.get_by_label("Claims you define (0)").click();
    settle(&mut h);
    let claim = r#"level:direction={{ "above" if last > mean else "below" }} its window mean"#;
    let editor = h.get_by_role(egui::accesskit::Role::MultilineTextInput);
    editor.focus();
    editor.type_text(claim);
    settle(&mut h);
    let claims: Vec<String> = h
        .state()
        .settings
        .run
        .claims
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(claims, [claim]);
    h.get_by_label("Claims you define (1)");
    h.get_by_label("Data set").click();
    step_until(&mut h, |app| {
        surveyed(app)
            && matches!(&app.views.dataset.survey, Some(Ok(v))
                if v.sweep.rows[0].val.claim("level").is_some())
    });
    let level = match &h.state().views.dataset.survey {
        Some(Ok(v)) => v.sweep.rows[0].val.claim("level").unwrap().clone(),
        _ => unreachable!(),
    };
    assert_eq!(level.categories.len(), 2, "{:?}", level.categories);
    h.get_by_label(&format!(
        "level × direction: {:+.3} bits above the null",
        level
            .info(wavebench_core::score::Target::Direction)
            .excess_bits
    ));
    // A line that does not parse says why, and leaves the claims as they were.
    h.get_by_label("Sweep").click();
    h.run();
    let editor = h.get_by_role(egui::accesskit::Role::MultilineTextInput);
    editor.focus();
    editor.type_text("\nbroken");
    settle(&mut h);
    h.get_by_label_contains("line 2: claim 'broken': write NAME=TEMPLATE");
    assert_eq!(h.state().settings.run.claims.len(), 1);
}

/// A constant window (a dry spell in a rain column) is marked in the features pane, and its
/// prompt says "constant input"; the seed's wording is one checkbox away.
#[test]
fn a_constant_window_is_marked_and_its_prompt_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rain.csv");
    let mut text = String::from("t,rain,temp\n");
    for i in 0..400 {
        let rain = if i < 200 {
            0.0
        } else {
            ((i * 37) % 11) as f64 * 0.1
        };
        text += &format!("{i},{rain},{:.4}\n", (i as f64 * 0.2).sin());
    }
    std::fs::write(&file, text).unwrap();
    let s = with(
        |c| {
            c.seq_len = Some(64);
            c.engine = EngineKind::Native;
        },
        Settings {
            window: 10,
            channel: 0,
            ..Default::default()
        },
    );
    let mut h = harness_at(file, s, 1000.0);
    settle(&mut h);
    let r = h.state().result().unwrap();
    assert_eq!(
        r.features.degenerate,
        Some(wavebench_core::features::Degenerate::Constant)
    );
    let prompt = r.prompt.as_ref().unwrap().clone();
    assert!(
        prompt.contains("Pattern analysis: constant input\nDominant periodicities: none"),
        "{prompt}"
    );
    h.get_by_label_contains("Constant window: every value is the same");
    // The other channel of the same window is not constant: no mark.
    h.state_mut().settings.channel = 1;
    settle(&mut h);
    assert_eq!(h.state().result().unwrap().features.degenerate, None);
    assert!(h
        .query_by_label_contains("Constant window: every value is the same")
        .is_none());
    // The seed's wording: band claims again, and no mark.
    h.state_mut().settings.channel = 0;
    h.state_mut().settings.run.seed_compatible = true;
    settle(&mut h);
    let r = h.state().result().unwrap();
    assert_eq!(r.features.degenerate, None);
    assert!(
        r.prompt
            .as_ref()
            .unwrap()
            .contains("Pattern analysis: multi-scale complex"),
        "{:?}",
        r.prompt
    );
}

/// The app's exports are the CLI's bytes for the configuration the app exports, in f32
/// too: a value whose decimal text rounds to f32 differently straight and through f64
/// (1 + 2^-24 and a little: f32 1.0000001 directly, 1.0 through f64) must not change the
/// app's numbers.
#[test]
fn app_exports_are_the_clis_bytes_for_the_exported_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tie.csv");
    let mut text = String::from("t,a,b\n");
    for i in 0..300 {
        let a = if i == 150 {
            "1.00000005960464477550".to_string()
        } else {
            format!("{:.6}", (i as f64 * 0.1).sin() * 0.9)
        };
        text += &format!("{i},{a},{:.5}\n", (i as f64 * 0.07).cos());
    }
    std::fs::write(&file, text).unwrap();
    let straight: f32 = "1.00000005960464477550".parse().unwrap();
    let via_f64 = "1.00000005960464477550".parse::<f64>().unwrap() as f32;
    assert_ne!(straight, via_f64, "the value is a double-rounding case");

    let s = with(
        |c| {
            c.seq_len = Some(64);
            c.stride = 8;
            c.engine = EngineKind::Native;
            c.description = "tie".into();
        },
        Settings::default(),
    );
    let mut h = harness_at(file.clone(), s, 1000.0);
    settle(&mut h);
    let (prompts, features, toml) = (
        dir.path().join("app.jsonl"),
        dir.path().join("app.csv"),
        dir.path().join("run.toml"),
    );
    h.state_mut().export_configuration(toml.clone());
    finish_job(&mut h);
    h.state_mut().export_prompts(prompts.clone());
    finish_job(&mut h);
    h.state_mut().export_features(features.clone());
    finish_job(&mut h);

    let cli = |command: &str, out: &std::path::Path| {
        let o = common::wavebench(&[
            command,
            file.to_str().unwrap(),
            "--config",
            toml.to_str().unwrap(),
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(out).unwrap()
    };
    let app = std::fs::read(&prompts).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&app).lines().count(),
        ((300 - 64) / 8 + 1) * 2
    );
    assert!(
        app == cli("prompts", &dir.path().join("cli.jsonl")),
        "prompt exports differ"
    );
    assert!(
        std::fs::read(&features).unwrap() == cli("features", &dir.path().join("cli.csv")),
        "feature exports differ"
    );
}

/// Settings belong to a data file: opening another file never carries the description,
/// channel, window or knobs over; coming back restores them (the channel by name); a
/// file whose header has changed is another data set and opens on the defaults.
#[test]
fn settings_are_remembered_per_data_file() {
    let dir = tempfile::tempdir().unwrap();
    let csv = |name: &str, columns: &[&str]| {
        let mut text = format!("t,{}\n", columns.join(","));
        for i in 0..600 {
            let cells: Vec<String> = (0..columns.len())
                .map(|c| format!("{:.4}", (i as f64 * 0.05 * (c + 1) as f64).sin()))
                .collect();
            text += &format!("{i},{}\n", cells.join(","));
        }
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let (a, b) = (csv("a.csv", &["x", "y"]), csv("b.csv", &["p", "q", "r"]));
    let mut h = harness_at(a.clone(), Settings::default(), 1000.0);
    settle(&mut h);
    {
        let s = &mut h.state_mut().settings;
        s.run.description = "A data".into();
        s.run.transform.wavelet = bank("sym4");
        s.run.engine = EngineKind::Native;
        s.channel = 1;
        s.window = 20;
    }
    settle(&mut h);
    assert!(shown_prompt(&h).contains("A data"));

    // What the knobs show of the file's settings.
    let shown = |s: &Settings| {
        (
            s.run.description.clone(),
            s.run.transform.name().to_string(),
            s.channel,
            s.window,
        )
    };
    h.state_mut().open(b.clone());
    settle(&mut h);
    assert_eq!(
        shown(&h.state().settings),
        ("".into(), "db4".into(), 0, 0),
        "a new file opens on its own defaults"
    );
    let prompt = shown_prompt(&h).clone();
    assert!(!prompt.contains("A data"), "{prompt}");
    h.state_mut().settings.run.description = "B data".into();
    h.state_mut().settings.channel = 2;
    settle(&mut h);

    h.state_mut().open(a.clone());
    settle(&mut h);
    assert_eq!(
        shown(&h.state().settings),
        ("A data".into(), "sym4".into(), 1, 20),
        "a file comes back as it was left"
    );
    assert_eq!(h.state().table().unwrap().channels[1].name, "y");

    // b.csv now holds other columns: another data set, on the defaults.
    csv("b.csv", &["u", "v"]);
    h.state_mut().open(b.clone());
    settle(&mut h);
    let s = &h.state().settings;
    assert_eq!((s.run.description.as_str(), s.channel), ("", 0));

    // What is remembered survives the session (serde, as eframe stores it).
    let saved: Settings =
        serde_json::from_str(&serde_json::to_string(&h.state().settings).unwrap()).unwrap();
    let kept = &saved.remembered.iter().find(|(p, _)| *p == a).unwrap().1;
    assert_eq!(kept.run.description, "A data");
    assert_eq!(kept.channel.as_deref(), Some("y"));
    assert_eq!(kept.header, ["x", "y"]);
}

/// A 20-row file with a wavelet too long for it: the level control says why instead of
/// offering a level the engine refuses, the panes show the reason instead of spinning,
/// the app speaks of its controls, not of flags; a valid change clears the error.
#[test]
fn a_setting_the_data_cannot_hold_is_explained_and_cleared_when_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("short.csv");
    let mut text = String::from("t,x\n");
    for i in 0..20 {
        text += &format!("{i},{:.3}\n", (i as f64 * 0.7).sin());
    }
    std::fs::write(&file, text).unwrap();
    let s = with(
        |c| {
            c.transform.wavelet = bank("sym8");
            c.transform.level = 1;
            c.engine = EngineKind::Native;
        },
        Settings::default(),
    );
    let mut h = harness_at(file, s, 1000.0);
    step_until(&mut h, |a| a.table().is_some() && !a.is_busy());
    for _ in 0..5 {
        h.step();
    }
    assert!(h.state().result().is_none());
    let status = h.state().status().to_string();
    assert!(
        status.contains(
            "'sym8' (16 taps) needs windows of at least 30 samples for level 1; these have 20"
        ),
        "{status}"
    );
    assert!(!status.contains("--"), "no flag names in the app: {status}");
    // The level control agrees with the engine, and the panes say why.
    h.get_by_label_contains("needs windows of at least 30 rows for level 1; this window has 20");
    assert!(
        h.query_all_by_label_contains("needs windows of at least 30 samples")
            .count()
            >= 2,
        "the status line and the panes"
    );

    h.state_mut().settings.run.transform.wavelet = bank("db2");
    settle(&mut h);
    assert!(h.state().result().is_some());
    let status = h.state().status().to_string();
    assert!(
        !status.contains("needs windows"),
        "the error is cleared: {status}"
    );
    assert!(status.contains("20 rows × 1 channels"), "{status}");
    assert!(h
        .query_all_by_label_contains("needs windows of at least")
        .next()
        .is_none());
}

/// At 1400×900, opening the template editor shows it inside the Prompt pane, not below
/// the window's edge.
#[test]
fn the_template_editor_opens_in_view() {
    let mut h = harness_sized(settings(), 900.0);
    settle(&mut h);
    h.get_by_label("Template editor").click();
    for _ in 0..4 {
        h.step();
    }
    let editor = h
        .get_by_role(egui::accesskit::Role::MultilineTextInput)
        .rect();
    let pane_top = h.get_by_label("Copy prompt").rect().top();
    // The pane below the Prompt pane in the default layout starts where it ends.
    let pane_bottom = h
        .get_all_by_label("Timing")
        .map(|n| n.rect().top())
        .filter(|&y| y > pane_top)
        .fold(f32::INFINITY, f32::min);
    assert!(
        editor.top() > pane_top && editor.top() + 40.0 < pane_bottom,
        "the editor starts at y {}; the Prompt pane spans {pane_top}..{pane_bottom}",
        editor.top()
    );
}

/// At 1400×900 with the default layout, no two pieces of widget text on screen overlap
/// (labels, buttons, check boxes: their rectangles as the accessibility tree gives them;
/// at 600×400 this finds the crowded tab bars). Text painted inside plots is judged on
/// the screenshots.
#[test]
fn nothing_overlaps_at_1400_by_900() {
    use egui::accesskit::Role;
    use egui_kittest::kittest::NodeT;
    let mut h = harness_sized(settings(), 900.0);
    settle(&mut h);
    for _ in 0..4 {
        h.step();
    }
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 900.0));
    let overlaps = |h: &Harness<'_, Workbench>, what: &str| {
        let texts: Vec<(String, egui::Rect)> = h
            .query_all_by(|n| matches!(n.role(), Role::Label | Role::Button | Role::CheckBox))
            .filter_map(|n| {
                let a = n.accesskit_node();
                let text = a.label().or_else(|| a.value()).unwrap_or_default();
                (!text.trim().is_empty()).then(|| (text, n.rect()))
            })
            .filter(|(_, r)| screen.intersects(*r))
            .collect();
        assert!(texts.len() > 80, "{what}: {} texts", texts.len());
        let mut found = Vec::new();
        for (i, (a, ra)) in texts.iter().enumerate() {
            for (b, rb) in &texts[i + 1..] {
                let shared = ra.intersect(*rb);
                if shared.is_positive()
                    && shared.area() > 4.0
                    && !ra.contains_rect(*rb)
                    && !rb.contains_rect(*ra)
                {
                    found.push(format!("{what}: {a:?} {ra:?} / {b:?} {rb:?}"));
                }
            }
        }
        found
    };
    let mut found = overlaps(&h, "the dashboard");
    // The tabs behind Bands, each brought to the front as a user would.
    h.state_mut().pin_for_compare();
    h.state_mut().settings.run.transform.level = 2;
    settle(&mut h);
    for tab in ["Data set", "Sweep", "Compare"] {
        h.get_by_label(tab).click();
        for _ in 0..6 {
            h.step();
        }
        if tab == "Data set" {
            step_until(&mut h, |a| a.views.dataset.survey.is_some());
        }
        found.extend(overlaps(&h, tab));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Errors in the app's words: a horizon longer than the val part fails the sweep and the
/// Data set pane's survey with the controls' names and the sizes (no command-line flag),
/// and the pane wraps the message inside itself.
#[test]
fn errors_name_the_controls_and_the_sizes() {
    let mut h = harness_sized(
        with(
            |c| {
                c.seq_len = Some(64);
                c.pred_len = 500;
            },
            settings(),
        ),
        2600.0,
    );
    settle(&mut h);
    h.get_by_label("Sweep").click();
    h.run();
    assert!(run_job_from(&mut h, "Run sweep"));
    let status = h.state().status().to_string();
    assert!(
        status.contains("prediction length 500: the val part holds 400 rows")
            && status.contains("give prediction length 398 or less, or change split"),
        "{status}"
    );
    assert!(!status.contains("--"), "{status}");
    h.get_by_label("Data set").click();
    h.step();
    step_until(&mut h, |app| {
        !app.views.dataset.computing && matches!(app.views.dataset.survey, Some(Err(_)))
    });
    // The pane's copy (the status line has the other) ends before the next pane begins.
    // The pane starts where its tab row does (the Bands tab, first).
    let pane_left = h.get_by_label("Bands").rect().left();
    let next_pane = h.get_by_label("Energy, trends, stds").rect().left();
    let in_pane: Vec<egui::Rect> = h
        .get_all_by_label_contains("prediction length 500")
        .map(|n| n.rect())
        .filter(|r| r.left() >= pane_left - 16.0 && r.top() > 100.0)
        .collect();
    assert_eq!(in_pane.len(), 1, "{in_pane:?}");
    assert!(
        in_pane[0].right() <= next_pane,
        "the message runs past its pane: {:?} (the next pane starts at {next_pane})",
        in_pane[0]
    );
}

/// An export whose prompts print an empty description says so once, in the status line.
#[test]
fn an_empty_description_is_warned_about_on_export() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(with(
        |c| {
            c.seq_len = Some(128);
            c.stride = 512;
            c.description = String::new();
        },
        settings(),
    ));
    settle(&mut h);
    let prompts = dir.path().join("p.jsonl");
    h.state_mut().export_prompts(prompts.clone());
    finish_job(&mut h);
    let status = h.state().status().to_string();
    assert!(status.contains("rows written to"), "{status}");
    assert_eq!(
        status.matches("the dataset description is empty").count(),
        1,
        "{status}"
    );
}
