//! Whether the forecasters' subset fit (docs/score.md#what-the-prompt-adds-beyond-the-series)
//! answers as the exact fit does on a file: the scored units' predicted classes of both
//! fits (the share that agree, per outcome and part) and the horizon forecaster's val and
//! test MSE under each. BENCHMARKS.md records it on the Traffic-shaped file.
//!
//!     cargo run --release --example fit_subset -- FILE [seq_len] [pred_len] [subset_above]

use std::sync::Arc;
use std::time::Instant;
use wavebench::sweep::Request;
use wavebench_core::config::Config;
use wavebench_core::engine::DType;
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::score::{Part, Protocol};

fn main() -> wavebench::error::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "sample_data/ETTh1.csv".into());
    let mut number = |default: usize| args.next().and_then(|a| a.parse().ok()).unwrap_or(default);
    let (seq_len, pred_len) = (number(512), number(96));
    let subset_above = number(1_000_000);
    let cfg = Config {
        seq_len: Some(seq_len),
        pred_len,
        dtype: DType::F64,
        ..Config::default()
    };
    let table = RunSpec::new(cfg.clone(), Purpose::Features, &wavebench::backend::LOCAL)?
        .load(path.as_ref())?;
    let prompter = Arc::new(wavebench::cli::template(&cfg.template)?);
    let request = |fit_subset_above: Option<usize>| Request {
        base: cfg.clone(),
        grid: Default::default(),
        templates: vec![(cfg.template.to_string(), prompter.clone())],
        split: Default::default(),
        protocol: Protocol {
            fit_subset_above,
            ..Protocol::default()
        },
    };
    let tables = [(path.as_str(), &table)];
    let mut fits = Vec::new();
    for (name, up_to) in [("exact", None), ("subset", Some(subset_above))] {
        let t = Instant::now();
        let scorer = wavebench::sweep::scorer(&tables, &request(up_to))?;
        println!(
            "{name}: fit on {} of {} train units (one window in {}), scored units in {:.1} s",
            scorer.fitted_units,
            scorer.units.train,
            scorer.fit_every,
            t.elapsed().as_secs_f64()
        );
        fits.push(scorer);
    }
    let (exact, subset) = (&fits[0], &fits[1]);
    for part in [Part::Val, Part::Test] {
        let (a, b) = (
            exact.predicted_classes(part),
            subset.predicted_classes(part),
        );
        assert_eq!(a.len(), b.len(), "both fits score the same units");
        let agree: Vec<String> = ["direction", "naive_mase", "vol_ratio"]
            .iter()
            .enumerate()
            .map(|(t, name)| {
                let same = a.iter().zip(&b).filter(|(x, y)| x[t] == y[t]).count();
                format!(
                    "{name} {:.3} %",
                    100.0 * same as f64 / a.len().max(1) as f64
                )
            })
            .collect();
        let mse = [exact, subset].map(|s| s.series_mse(&[&table], part));
        println!(
            "{}: {} units; classes agree: {}; horizon MSE exact {:.6}, subset {:.6} ({:+.3} %)",
            part.name(),
            a.len(),
            agree.join(", "),
            mse[0],
            mse[1],
            100.0 * (mse[1] / mse[0] - 1.0)
        );
    }
    Ok(())
}
