//! `wavebench bench-decompose` (hidden; `make bench` drives it): the decomposition alone,
//! every window of every channel as one batch, median wall time per engine.

use super::Common;
use crate::engine;
use crate::error::Result;
use std::path::Path;
use std::time::Instant;
use wavebench_core::engine::{DType, Engine, EngineKind, Plan, Real, SeriesRef, Values};
use wavebench_core::run_spec::{Purpose, RunSpec};

pub fn run(path: &Path, engines: &super::Engines, repeat: usize, common: &Common) -> Result<()> {
    let mut cfg = common.config()?;
    cfg.seq_len = cfg.seq_len.or(Some(512));
    let spec = RunSpec::new(cfg, Purpose::Decompose, &crate::backend::LOCAL)?;
    let cfg = &spec.cfg;
    let t = Instant::now();
    let table = spec.load(path)?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let prepared = spec.prepare(&table)?;
    let (win, plan) = (prepared.windows, &prepared.plan);
    let seq = win.seq_len;
    let t = Instant::now();
    // Channel-major like numpy's sliding_window_view(data.T, seq, axis=1).reshape(-1, seq).
    let mut batch = Vec::with_capacity(table.channels.len() * win.count * seq);
    for c in &table.channels {
        for i in 0..win.count {
            batch.extend(c.values.rows(win.start(i)..win.start(i) + seq).iter_f64());
        }
    }
    let values = Values::from_f64(&batch, cfg.dtype);
    let prep_ms = t.elapsed().as_secs_f64() * 1e3;
    let series = batch.len() / seq;
    println!("{{\"what\":\"setup\",\"series\":{series},\"length\":{seq},\"load_ms\":{load_ms:.3},\"prepare_ms\":{prep_ms:.3}}}");
    // Steady state of a caller that keeps its output buffer (no allocation, no page faults).
    if engines.0.contains(&EngineKind::Native) && plan.work_dtype(cfg.dtype) == cfg.dtype {
        let times = match values.as_ref() {
            SeriesRef::F32(v) => time_into(v, plan, repeat),
            SeriesRef::F64(v) => time_into(v, plan, repeat),
        };
        print_times(
            "native-reused-buffer",
            &wavebench_core::engine::Native.device_name(),
            cfg.dtype,
            times,
        );
    }
    for &kind in &engines.0 {
        let sel = engine::select(kind);
        let mut eng = sel.engine;
        if let Some(n) = sel.notice {
            eprintln!("wavebench: {n}");
        }
        let mut times = Vec::with_capacity(repeat);
        for r in 0..=repeat {
            let t = Instant::now();
            let out = eng.decompose(values.as_ref(), plan)?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            std::hint::black_box(&out);
            if r > 0 {
                times.push(ms); // the first run is a warm-up (plans, thread pools)
            }
        }
        print_times(eng.kind().name(), &eng.device_name(), cfg.dtype, times);
    }
    Ok(())
}

/// Median, min and max of `times` as one JSON line.
fn print_times(engine: &str, device: &str, dtype: DType, mut times: Vec<f64>) {
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "{{\"what\":\"decompose\",\"engine\":\"{engine}\",\"device\":\"{device}\",\"dtype\":\"{dtype}\",\"median_ms\":{median:.3},\"min_ms\":{:.3},\"max_ms\":{:.3}}}",
        times[0],
        times[times.len() - 1]
    );
}

/// `native::decompose_into` one buffer, `repeat` times after a warm-up.
fn time_into<T: Real>(x: &[T], plan: &Plan, repeat: usize) -> Vec<f64> {
    let mut out =
        wavebench_core::engine::memory::zeroed::<T>(x.len() / plan.len * plan.coeffs_per_series());
    (0..=repeat)
        .map(|_| {
            let t = Instant::now();
            wavebench_core::engine::native::decompose_into(x, plan, &mut out);
            std::hint::black_box(&out);
            t.elapsed().as_secs_f64() * 1e3
        })
        .skip(1)
        .collect()
}
