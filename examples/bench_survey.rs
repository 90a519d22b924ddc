//! How long the Data set pane waits after a knob change: the survey of one configuration
//! over every window of a file (what the app's survey thread computes), best and median
//! of N runs after a warm-up. BENCHMARKS.md records it.
//!
//!     cargo run --release --example bench_survey -- sample_data/ETTh1.csv [runs]

use std::sync::Arc;
use std::time::Instant;
use wavebench::error::Error;
use wavebench::sweep::{survey::Survey, Request};
use wavebench_core::config::Config;
use wavebench_core::run_spec::{Purpose, RunSpec};

fn main() -> wavebench::error::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "sample_data/ETTh1.csv".into());
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let cfg = Config {
        seq_len: Some(512),
        ..Config::default()
    };
    let table = RunSpec::new(cfg.clone(), Purpose::Features, &wavebench::backend::LOCAL)?
        .load(path.as_ref())?;
    let prompter = wavebench::cli::template(&cfg.template)?;
    let req = Request {
        base: cfg.clone(),
        grid: Default::default(),
        templates: vec![(cfg.template.to_string(), Arc::new(prompter))],
        split: Default::default(),
        protocol: Default::default(),
    };
    // The app keeps the scored units between knob changes (they depend on the data, the
    // horizon and the split only): made once, timed apart.
    let t = Instant::now();
    let scorer = wavebench::sweep::scorer(&[(path.as_str(), &table)], &req)?;
    println!(
        "scored units: {:.1} ms (once per data set, horizon and split)",
        t.elapsed().as_secs_f64() * 1e3
    );
    // The first survey computes the units' statistics too; the app keeps them (and the
    // scored units) while only the wavelet, level, mode or template change. A knob change
    // is timed as one: the wavelet alternates between db4 and sym4.
    let mut kept = wavebench::sweep::ScoredUnits::new(scorer);
    let with_wavelet = |w: &str| -> wavebench::error::Result<Request> {
        let mut base = req.base.clone();
        base.transform.wavelet =
            wavebench_core::wavelet::lookup(w).map_err(|e| Error::input(e.to_string()))?;
        Ok(Request {
            base,
            ..req.clone()
        })
    };
    let mut times = Vec::with_capacity(runs);
    for run in 0..=runs {
        let r = with_wavelet(if run % 2 == 0 { "db4" } else { "sym4" })?;
        let t = Instant::now();
        let s = Survey::of(&path, &table, &r, &mut kept, 0, None)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if run == 0 {
            println!(
                "{}: {} windows, val score {:.4} bits (the first survey, statistics included: {ms:.1} ms)",
                s.label,
                s.starts.len(),
                s.sweep.rows[0].val.score_bits
            );
        } else {
            times.push(ms);
        }
    }
    // Its two parts: the score of the configuration (a sweep of one over the scored units
    // of every channel), and the rest (the timeline's channel over every window).
    let mut one = Vec::with_capacity(runs);
    for run in 0..runs {
        let r = with_wavelet(if run % 2 == 0 { "db4" } else { "sym4" })?;
        let t = Instant::now();
        wavebench::sweep::one(&[(path.as_str(), &table)], &r, &mut kept, None)?;
        one.push(t.elapsed().as_secs_f64() * 1e3);
    }
    one.sort_by(f64::total_cmp);
    println!(
        "of which the score (a sweep of one): median {:.1} ms",
        one[one.len() / 2]
    );
    times.sort_by(f64::total_cmp);
    println!(
        "survey after a wavelet change (db4 and sym4 in turn): best {:.1} ms, median {:.1} ms over {runs} runs",
        times[0],
        times[times.len() / 2]
    );
    // A wavelet the session has not surveyed yet: none of its claim columns is in the
    // scorer's memo (alternating two wavelets, every column is after the first two runs).
    let fresh = [
        "db5", "sym5", "db6", "sym6", "coif2", "bior2.4", "bior3.3", "rbio2.4", "rbio3.3",
        "bior4.4", "rbio4.4", "db7", "sym7", "coif1", "bior2.6", "rbio2.6", "db8", "sym8",
        "bior3.5", "rbio3.5", "db3",
    ];
    let mut new = Vec::with_capacity(fresh.len());
    let cpu0 = cpu_ms();
    for w in fresh.iter().take(runs.max(1)) {
        let r = with_wavelet(w)?;
        let t = Instant::now();
        Survey::of(&path, &table, &r, &mut kept, 0, None)?;
        new.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let each: Vec<String> = fresh
        .iter()
        .zip(&new)
        .map(|(w, ms)| format!("{w} {ms:.0}"))
        .collect();
    println!("each new wavelet, ms: {}", each.join(", "));
    new.sort_by(f64::total_cmp);
    println!(
        "survey after a change to a wavelet not surveyed before: best {:.1} ms, median {:.1} ms over {} runs",
        new[0],
        new[new.len() / 2],
        new.len()
    );
    // The machine's other load moves the wall time; the work itself is the CPU time.
    if let (Some(a), Some(b)) = (cpu0, cpu_ms()) {
        let wall: f64 = new.iter().sum();
        println!(
            "  CPU time per new-wavelet survey: {:.1} ms ({:.0} % of the cores' time)",
            (b - a) / new.len() as f64,
            100.0 * (b - a) / (wall * rayon::current_num_threads() as f64)
        );
    }
    Ok(())
}

/// The process's CPU time so far (user and system, every thread), from /proc/self/stat;
/// None where there is none (not Linux).
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), from the third on.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    // Linux reports them in USER_HZ, 100 on every platform Rust targets.
    Some(ticks * 10.0)
}
