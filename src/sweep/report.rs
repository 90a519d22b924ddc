//! A sweep as JSON, CSV or Markdown (docs/cli.md#sweep): the split, its units, and every
//! configuration ranked, best first.

use super::{ranked, Metric, RankBy, Sweep, SweepRow};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use wavebench_core::score::{Claim, Part, Target};

/// The rows in report order: ranked ones first (rank 1, 2, …), then the degenerate ones
/// (no rank) unless they were kept in the ranking.
fn ordered(s: &Sweep, by: RankBy, keep_degenerate: bool) -> Vec<(Option<usize>, &SweepRow)> {
    let best = ranked(&s.rows, by, keep_degenerate);
    let mut out: Vec<(Option<usize>, &SweepRow)> = best
        .iter()
        .enumerate()
        .map(|(i, r)| (Some(i + 1), *r))
        .collect();
    out.extend(
        s.rows
            .iter()
            .filter(|r| !keep_degenerate && r.degenerate())
            .map(|r| (None, r)),
    );
    out
}

fn range(r: &std::ops::Range<usize>) -> Value {
    json!([r.start, r.end])
}

/// docs/cli.md#sweep.
pub fn json(s: &Sweep, by: RankBy, keep_degenerate: bool) -> Value {
    let parts = |b: &wavebench_core::score::Borders| {
        let mut m = Map::new();
        for p in Part::ALL {
            m.insert(p.name().into(), range(b.part(p)));
        }
        m
    };
    let mut split = Map::new();
    split.insert("rule".into(), json!(s.split.to_string()));
    match s.files.as_slice() {
        [(_, b)] => split.extend(parts(b)),
        files => {
            let v: Vec<Value> = files
                .iter()
                .map(|(name, b)| {
                    let mut m = parts(b);
                    m.insert("file".into(), json!(name));
                    Value::Object(m)
                })
                .collect();
            split.insert("files".into(), Value::Array(v));
        }
    }
    let configs: Vec<Value> = ordered(s, by, keep_degenerate)
        .into_iter()
        .map(|(rank, r)| {
            let means: Map<String, Value> = Metric::ALL
                .iter()
                .map(|m| (m.name().to_string(), json!(r.mean(*m))))
                .collect();
            json!({
                "rank": rank,
                "wavelet": r.wavelet,
                "aliases": r.aliases,
                "level": r.level,
                "mode": r.mode.name(),
                "template": r.template,
                "approx_len": r.approx_len,
                "degenerate": r.degenerate(),
                "val": r.val,
                "test": r.test,
                "means": means,
            })
        })
        .collect();
    json!({
        "split": split,
        "units": {
            "train": s.units[0],
            "val": s.units[1],
            "test": s.units[2],
            "left_out": s.left_out,
        },
        "terciles": {
            "naive_mase": [s.naive_mase.q1, s.naive_mase.q2],
            "vol_ratio": [s.vol_ratio.q1, s.vol_ratio.q2],
        },
        "ranked_by": by.name(),
        "configs": configs,
    })
}

/// The designated pairs (those the score sums), in docs order.
fn scored_pairs() -> impl Iterator<Item = (Claim, Target)> {
    Claim::ALL
        .into_iter()
        .filter_map(|c| c.scored_against().map(|t| (c, t)))
}

/// One row per configuration: its place, both scores, each scored pair's bits, the
/// prompts' diversity and the feature means.
pub fn csv(s: &Sweep, by: RankBy, keep_degenerate: bool) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "rank",
        "wavelet",
        "aliases",
        "level",
        "mode",
        "template",
        "approx_len",
        "degenerate",
        "val_units",
        "val_score_bits",
        "test_units",
        "test_score_bits",
    ]
    .map(String::from)
    .to_vec();
    for part in ["val", "test"] {
        for (c, t) in scored_pairs() {
            header.push(format!("{part}_{}_{}_bits", c.name(), t.name()));
        }
        header.push(format!("{part}_lags_direction_bits"));
        for d in [
            "distinct",
            "entropy_bits",
            "distinct_masked",
            "entropy_masked_bits",
        ] {
            header.push(format!("{part}_{d}"));
        }
    }
    header.extend(Metric::ALL.iter().map(|m| format!("mean_{}", m.name())));
    w.write_record(&header).map_err(|e| e.to_string())?;
    for (rank, r) in ordered(s, by, keep_degenerate) {
        let mut rec: Vec<String> = vec![
            rank.map_or(String::new(), |k| k.to_string()),
            r.wavelet.clone(),
            r.aliases.join(" "),
            r.level.to_string(),
            r.mode.name().into(),
            r.template.clone(),
            r.approx_len.to_string(),
            r.degenerate().to_string(),
            r.val.units.to_string(),
            r.val.score_bits.to_string(),
            r.test.units.to_string(),
            r.test.score_bits.to_string(),
        ];
        for e in [&r.val, &r.test] {
            for (c, t) in scored_pairs() {
                rec.push(
                    e.info(c, t)
                        .map_or(String::new(), |i| i.mi_bits.to_string()),
                );
            }
            rec.push(
                e.info(Claim::Lags, Target::Direction)
                    .map_or(String::new(), |i| i.mi_bits.to_string()),
            );
            let d = &e.diversity;
            rec.push(d.distinct.to_string());
            rec.push(d.entropy_bits.to_string());
            rec.push(d.distinct_masked.to_string());
            rec.push(d.entropy_masked_bits.to_string());
        }
        rec.extend(Metric::ALL.iter().map(|m| r.mean(*m).to_string()));
        w.write_record(&rec).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// A page a researcher reads: what was scored, the ranking (val beside test), and what the
/// best configuration's claims tell about each outcome.
pub fn markdown(s: &Sweep, by: RankBy, keep_degenerate: bool, data: &str) -> String {
    let mut o = String::new();
    let rows = ordered(s, by, keep_degenerate);
    let _ = writeln!(o, "# Sweep: {data}\n");
    let _ = writeln!(
        o,
        "Split {} (chronological); units (window × channel) whose horizon lies wholly in a part: train {}, val {}, test {}; {} left out (constant or perfectly linear input).",
        s.split, s.units[0], s.units[1], s.units[2], s.left_out
    );
    let _ = writeln!(
        o,
        "Terciles cut on train: naive_mase {:.4} / {:.4}, vol_ratio {:.4} / {:.4}.\n",
        s.naive_mase.q1, s.naive_mase.q2, s.vol_ratio.q1, s.vol_ratio.q2
    );
    let _ = writeln!(
        o,
        "Ranked by {}{}. Score = bits of mutual information the prompt's claims carry about the horizon (docs/score.md): a proxy for what a forecaster could read from the prompt, not a forecast.\n",
        match by {
            RankBy::Score => "the val score".to_string(),
            RankBy::Mean(m) => format!("the mean {} (a description: higher is not better)", m.name()),
            RankBy::Pair(c, t) => format!("the val bits {} tells about {}", c.name(), t.name()),
        },
        if keep_degenerate { "" } else { ", degenerate levels (approximation band < 2 coefficients) listed last without a rank" }
    );
    let _ = writeln!(
        o,
        "| # | configuration | template | val score (bits) | test score (bits) | val noise (bits) | val prompts distinct (words only) | mean SNR (dB) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|");
    for (rank, r) in &rows {
        let noise: f64 = scored_pairs()
            .filter_map(|(c, t)| r.val.info(c, t))
            .map(|i| i.noise_bits)
            .sum();
        let mut name = r.label();
        if r.mode != wavebench_core::wavelet::Mode::Reflect {
            let _ = write!(name, " {}", r.mode.name());
        }
        if !r.aliases.is_empty() {
            let _ = write!(name, " (= {})", r.aliases.join(", "));
        }
        if r.degenerate() {
            name.push_str(" (degenerate)");
        }
        let _ = writeln!(
            o,
            "| {} | {name} | {} | {:.4} | {:.4} | {:.4} | {} ({}) | {:.2} |",
            rank.map_or("–".to_string(), |k| k.to_string()),
            r.template,
            r.val.score_bits,
            r.test.score_bits,
            noise,
            r.val.diversity.distinct,
            r.val.diversity.distinct_masked,
            r.mean(Metric::SnrDb),
        );
    }
    if let Some((_, best)) = rows.first() {
        let _ = writeln!(
            o,
            "\n## What each claim of {} tells (val, bits; noise floor in brackets)\n",
            best.label()
        );
        let _ = writeln!(
            o,
            "| claim | categories | direction | naive_mase | vol_ratio |"
        );
        let _ = writeln!(o, "|---|---|---|---|---|");
        for c in &best.val.claims {
            let cells: Vec<String> = c
                .info
                .iter()
                .map(|i| format!("{:.4} ({:.4})", i.mi_bits, i.noise_bits))
                .collect();
            let _ = writeln!(
                o,
                "| {}{} | {} | {} |",
                c.claim.name(),
                if c.claim.scored_against().is_some() {
                    ""
                } else {
                    " (not scored)"
                },
                c.categories.len(),
                cells.join(" | ")
            );
        }
    }
    o
}
