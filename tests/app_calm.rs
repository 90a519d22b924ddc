//! Big files stay calm (issue 44): the real app on a 10,000,000-row file, driven headless
//! with egui_kittest, uses no CPU once the file is loaded (no survey for a hidden pane),
//! and none once the Data set pane's survey, thinned then refined, is done. Its own test
//! binary, so that the process's CPU time is this app's alone.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use std::time::Duration;
use wavebench::app::state::Settings;
use wavebench::app::Workbench;
use wavebench_core::engine::EngineKind;

/// This process's CPU time (user + system), in clock ticks.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The fields after the command's closing parenthesis; utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

/// The share of a core this process used over `secs` seconds of doing nothing itself.
fn idle_share(secs: u64) -> f64 {
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let before = cpu_ticks();
    std::thread::sleep(Duration::from_secs(secs));
    (cpu_ticks() - before) as f64 / hz / secs as f64
}

fn step_until(h: &mut Harness<'_, Workbench>, what: &str, done: impl Fn(&Workbench) -> bool) {
    for _ in 0..30_000 {
        h.step();
        if done(h.state()) {
            h.step();
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the app did not get to {what}: {}", h.state().status());
}

#[test]
fn a_ten_million_row_file_leaves_the_cpu_idle_after_each_job() {
    let dir = tempfile::tempdir().unwrap();
    let rows = 10_000_000;
    let mut csv = String::with_capacity(rows * 16);
    csv.push_str("t,x\n");
    let mut level = 0.0f64;
    let mut state = 7u64;
    for r in 0..rows {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        level += ((state >> 11) as f64 / (1u64 << 53) as f64) - 0.5;
        csv.push_str(&format!("{r},{:.3}\n", level + (r as f64 / 24.0).sin()));
    }
    let file = dir.path().join("big.csv");
    std::fs::write(&file, csv).unwrap();

    let mut settings = Settings::default();
    settings.run.seq_len = Some(512);
    settings.run.engine = EngineKind::Native;
    let app = Workbench::new(Some(file), settings, &egui::Context::default());
    let mut h = Harness::builder()
        .with_size([1400.0, 900.0])
        .build_ui_state(|ui, app: &mut Workbench| app.show(ui), app);
    step_until(&mut h, "the loaded file", Workbench::is_idle);
    for _ in 0..5 {
        h.step();
    }
    assert!(
        h.state().views.dataset.survey.is_none(),
        "no survey for a hidden pane"
    );
    let loaded = idle_share(2);
    assert!(
        loaded < 0.05,
        "after loading, the app used {:.0} % of a core for nothing",
        loaded * 100.0
    );

    // The Data set pane: its survey, thinned, then refined while it is shown.
    h.get_by_label("Data set").click();
    step_until(&mut h, "the survey's start", |app| {
        app.views.dataset.computing
    });
    assert!(
        h.state().views.dataset.thinned.is_some(),
        "a big file is surveyed thinned: {} rows, {}",
        h.state().table().map_or(0, |t| t.rows()),
        h.state().status()
    );
    step_until(&mut h, "the refined survey", |app| {
        !app.views.dataset.computing
            && matches!(app.views.dataset.survey, Some(Ok(_)))
            && app.views.dataset.progress.fraction() == Some(1.0)
    });
    // Refinements follow one another while the pane stays shown; wait for the last.
    let mut quiet = 0;
    while quiet < 20 {
        h.step();
        quiet = if h.state().views.dataset.computing {
            0
        } else {
            quiet + 1
        };
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        matches!(h.state().views.dataset.survey, Some(Ok(_))),
        "the survey failed"
    );
    assert!(
        !h.ctx.has_requested_repaint(),
        "the app keeps repainting after its survey"
    );
    let surveyed = idle_share(2);
    assert!(
        surveyed < 0.05,
        "after its survey, the app used {:.0} % of a core for nothing",
        surveyed * 100.0
    );
}
