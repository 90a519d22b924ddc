//! A sweep as JSON, CSV or Markdown (docs/cli.md#sweep): the split, its units, and every
//! configuration ranked, best first.

use super::rank::Standings;
use super::{Metric, RankBy, Sweep, SweepRow};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use wavebench_core::score::{AnyClaim, Claim, ClaimInfo, Evaluation, Part, Target};

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
    let standings = Standings::of(s, by, keep_degenerate);
    let configs: Vec<Value> = standings
        .rows
        .iter()
        .map(|st| {
            let r = st.row;
            let means: Map<String, Value> = Metric::ALL
                .iter()
                .map(|m| (m.name().to_string(), json!(r.mean(*m))))
                .collect();
            json!({
                "rank": st.rank,
                "test_rank": st.test_rank,
                "tied": st.tied,
                "behind_best": finite(st.behind),
                "gain": st.gain,
                "gain_interval": finite(st.gain_interval),
                "wavelet": r.transform.name(),
                "aliases": r.aliases,
                "level": r.transform.level,
                "mode": r.transform.mode.name(),
                "template": r.template,
                "approx_len": r.approx_len,
                "degenerate": r.degenerate(),
                "val": r.val,
                "test": r.test,
                "means": means,
            })
        })
        .collect();
    let part = |p: &super::PartUnits| {
        json!({
            "sequences": p.sequences,
            "shortest": p.shortest,
            "n_eff": p.n_eff,
            "conservative": p.conservative,
            "forecaster": {
                "direction": p.forecaster[0],
                "naive_mase": p.forecaster[1],
                "vol_ratio": p.forecaster[2],
            },
        })
    };
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
        "forecast_terciles": {
            "naive_mase": [s.forecast_classes.naive_mase.q1, s.forecast_classes.naive_mase.q2],
            "vol_ratio": [s.forecast_classes.vol_ratio.q1, s.forecast_classes.vol_ratio.q2],
        },
        "protocol": {
            "null_draws": s.protocol.null_draws,
            "bootstrap": s.protocol.bootstrap,
            "span_units": s.parts[0].span,
        },
        "parts": {"val": part(&s.parts[0]), "test": part(&s.parts[1])},
        "baseline": {
            "template": "timellm",
            "scored": Claim::BASELINE.map(|c| c.name()),
            "val": baseline(&s.baseline[0]),
            "test": baseline(&s.baseline[1]),
        },
        "defined_claims": s.base.claims.iter().map(|(key, template)| {
            let (name, outcome) = key.split_once(':').map_or((key.as_str(), None), |(n, o)| (n, Some(o)));
            json!({"name": name, "outcome": outcome, "template": template})
        }).collect::<Vec<Value>>(),
        "ranked_by": by.name(),
        "spearman_val_test": standings.spearman,
        "warnings": standings.warnings(s),
        "configs": configs,
    })
}

/// The Time-LLM baseline's scores over one part.
fn baseline(e: &wavebench_core::score::Evaluation) -> Value {
    json!({
        "score_bits": e.score_bits,
        "interval": finite(e.interval),
        "complementary_bits": e.complementary_bits,
        "complementary_interval": finite(e.complementary_interval),
    })
}

/// An interval as JSON: `[lo, hi]`, or null where there is none (no replicates).
fn finite(i: [f64; 2]) -> Value {
    if i.iter().all(|v| v.is_finite()) {
        json!(i)
    } else {
        Value::Null
    }
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
    // The claims the researcher defined, by name (every row has them).
    let yours: Vec<String> = s
        .rows
        .first()
        .map(|r| {
            defined(&r.val)
                .map(|c| c.claim.name().to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut header: Vec<String> = [
        "rank",
        "test_rank",
        "tied",
        "behind_best_lo",
        "behind_best_hi",
        "gain_bits",
        "gain_lo",
        "gain_hi",
        "wavelet",
        "aliases",
        "level",
        "mode",
        "template",
        "approx_len",
        "degenerate",
    ]
    .map(String::from)
    .to_vec();
    for part in ["val", "test"] {
        for f in [
            "units",
            "score_bits",
            "score_lo",
            "score_hi",
            "mi_bits_sum",
            "complementary_bits",
            "complementary_lo",
            "complementary_hi",
        ] {
            header.push(format!("{part}_{f}"));
        }
    }
    for part in ["val", "test"] {
        for (c, t) in scored_pairs() {
            header.push(format!("{part}_{}_{}_bits", c.name(), t.name()));
            header.push(format!("{part}_{}_{}_excess_bits", c.name(), t.name()));
            header.push(format!("{part}_{}_{}_p", c.name(), t.name()));
        }
        header.push(format!("{part}_lags_direction_bits"));
        header.push(format!("{part}_lags_direction_excess_bits"));
        for name in &yours {
            for t in Target::ALL {
                for f in ["bits", "excess_bits", "p", "complementary_excess_bits"] {
                    header.push(format!("{part}_{name}_{}_{f}", t.name()));
                }
            }
        }
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
    let opt = |v: Option<usize>| v.map_or(String::new(), |k| k.to_string());
    for st in Standings::of(s, by, keep_degenerate).rows {
        let r = st.row;
        let mut rec: Vec<String> = vec![
            opt(st.rank),
            opt(st.test_rank),
            st.tied.to_string(),
            st.behind[0].to_string(),
            st.behind[1].to_string(),
            st.gain.to_string(),
            st.gain_interval[0].to_string(),
            st.gain_interval[1].to_string(),
            r.transform.name().into(),
            r.aliases.join(" "),
            r.transform.level.to_string(),
            r.transform.mode.name().into(),
            r.template.clone(),
            r.approx_len.to_string(),
            r.degenerate().to_string(),
        ];
        for e in [&r.val, &r.test] {
            rec.push(e.units.to_string());
            rec.push(e.score_bits.to_string());
            rec.push(e.interval[0].to_string());
            rec.push(e.interval[1].to_string());
            rec.push(e.mi_bits_sum.to_string());
            rec.push(e.complementary_bits.to_string());
            rec.push(e.complementary_interval[0].to_string());
            rec.push(e.complementary_interval[1].to_string());
        }
        for e in [&r.val, &r.test] {
            let pairs = scored_pairs().chain([(Claim::Lags, Target::Direction)]);
            for (c, t) in pairs {
                let info = e.info(c, t);
                rec.push(info.map_or(String::new(), |i| i.mi_bits.to_string()));
                rec.push(info.map_or(String::new(), |i| i.excess_bits.to_string()));
                if c != Claim::Lags {
                    rec.push(info.map_or(String::new(), |i| i.p.to_string()));
                }
            }
            for name in &yours {
                let c = e.claim(name);
                for t in Target::ALL {
                    let (i, b) = (c.map(|c| c.info(t)), c.map(|c| c.complementary(t)));
                    rec.push(i.map_or(String::new(), |i| i.mi_bits.to_string()));
                    rec.push(i.map_or(String::new(), |i| i.excess_bits.to_string()));
                    rec.push(i.map_or(String::new(), |i| i.p.to_string()));
                    rec.push(b.map_or(String::new(), |b| b.excess_bits.to_string()));
                }
            }
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

/// `0.1234 [0.1000, 0.1500]`.
fn ci_of(v: f64, i: [f64; 2]) -> String {
    format!("{v:.4} [{:.4}, {:.4}]", i[0], i[1])
}

/// A page a researcher reads: what was scored and how, what to be wary of, the ranking
/// (val beside test, intervals and ties), and what the best configuration's claims tell
/// about each outcome against their null.
pub fn markdown(s: &Sweep, by: RankBy, keep_degenerate: bool, data: &str) -> String {
    let mut o = String::new();
    let standings = Standings::of(s, by, keep_degenerate);
    let _ = writeln!(o, "# Sweep: {data}\n");
    let _ = writeln!(
        o,
        "Split {} (chronological); units (window × channel) whose horizon lies wholly in a part: train {}, val {}, test {}; {} left out (constant or perfectly linear input). Effective units (the direction outcome's autocorrelation): val {:.0}, test {:.0}.",
        s.split, s.units[0], s.units[1], s.units[2], s.left_out, s.parts[0].n_eff, s.parts[1].n_eff
    );
    let _ = writeln!(
        o,
        "Terciles cut on train: naive_mase {:.4} / {:.4}, vol_ratio {:.4} / {:.4}.\n",
        s.naive_mase.q1, s.naive_mase.q2, s.vol_ratio.q1, s.vol_ratio.q2
    );
    let _ = writeln!(
        o,
        "Score = bits of mutual information the prompt's claims carry about the horizon **above what a claim that knows nothing scores** (the median of {} circular shifts of each channel's outcomes against its claims, at least T + P = {} units apart), summed over the designated pairs (docs/score.md): a proxy for what a forecaster could read from the prompt, not a forecast. Intervals: 95%, circular block bootstrap of {} replicates (blocks of {} units). **Tied** = the interval of (best val score − its val score) contains 0.\n",
        s.protocol.null_draws, s.parts[0].span, s.protocol.bootstrap, s.parts[0].span
    );
    match standings.spearman {
        Some(rho) => {
            let _ = writeln!(
                o,
                "**Val against test:** Spearman's ρ of the val and test scores over the ranked configurations = {rho:.2}{}\n",
                if rho < 0.5 {
                    ": the val ranking says little about test; read the ties, not the order"
                } else {
                    ""
                }
            );
        }
        None => {
            let _ = writeln!(
                o,
                "**Val against test:** too few configurations for a rank correlation.\n"
            );
        }
    }
    for w in standings.warnings(s) {
        let _ = writeln!(o, "> **Warning:** {w}\n");
    }
    let tied: Vec<String> = standings.tied().map(|t| t.row.label_full()).collect();
    let _ = writeln!(
        o,
        "Ranked by {}{}. {} configuration{} tied with the best val score{}.\n",
        match by {
            RankBy::Score => "the val score".to_string(),
            RankBy::Complementary =>
                "the val complementary score (bits beyond the series-only forecaster)".to_string(),
            RankBy::Mean(m) => format!(
                "the mean {} (a description: higher is not better)",
                m.name()
            ),
            RankBy::Pair(c, t) => format!(
                "the val bits {} tells about {} above their null",
                c.name(),
                t.name()
            ),
        },
        if keep_degenerate {
            ""
        } else {
            ", degenerate levels (approximation band < 2 coefficients) listed last without a rank"
        },
        tied.len(),
        if tied.len() == 1 { " is" } else { "s are" },
        if tied.len() <= 8 && !tied.is_empty() {
            format!(": {}", tied.join("; "))
        } else {
            String::new()
        },
    );
    let base = &s.baseline;
    let _ = writeln!(
        o,
        "**Time-LLM baseline** (`timellm`: its trend word alone): val {}, test {}; beyond the series-only forecaster: val {:.4} [{:.4}, {:.4}]. Every row's gain is its val score minus this, with the interval of the paired difference.\n",
        ci_of(base[0].score_bits, base[0].interval),
        ci_of(base[1].score_bits, base[1].interval),
        base[0].complementary_bits,
        base[0].complementary_interval[0],
        base[0].complementary_interval[1],
    );
    let _ = writeln!(
        o,
        "| # | configuration | template | val score (bits) [95% CI] | tied | gain over Time-LLM [95% CI] | val beyond the series [95% CI] | test score (bits) [95% CI] | test rank | val bits before the null | val prompts distinct (words only) | mean SNR (dB) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    let ci = |e: &wavebench_core::score::Evaluation| ci_of(e.score_bits, e.interval);
    for st in &standings.rows {
        let r = st.row;
        let mut name = r.label();
        if r.transform.mode != wavebench_core::wavelet::Mode::Reflect {
            let _ = write!(name, " {}", r.transform.mode.name());
        }
        if !r.aliases.is_empty() {
            let _ = write!(name, " (= {})", r.aliases.join(", "));
        }
        if r.degenerate() {
            name.push_str(" (degenerate)");
        }
        let _ = writeln!(
            o,
            "| {} | {name} | {} | {} | {} | {} | {} | {} | {} | {:.4} | {} ({}) | {:.2} |",
            st.rank.map_or("–".to_string(), |k| k.to_string()),
            r.template,
            ci(&r.val),
            if st.tied { "=" } else { "" },
            ci_of(st.gain, st.gain_interval),
            ci_of(r.val.complementary_bits, r.val.complementary_interval),
            ci(&r.test),
            st.test_rank.map_or("–".to_string(), |k| k.to_string()),
            r.val.mi_bits_sum,
            r.val.diversity.distinct,
            r.val.diversity.distinct_masked,
            r.mean(Metric::SnrDb),
        );
    }
    if let Some(best) = standings.rows.first().map(|s| s.row) {
        let _ = writeln!(
            o,
            "\n## What each claim of the first row, {}, tells (val, bits: observed − null median = excess; p)\n",
            best.label()
        );
        if !tied.is_empty() && tied.len() > 1 {
            let _ = writeln!(
                o,
                "It is one of {} configurations the data cannot tell apart; this is what its claims carry, not a reason to prefer it.\n",
                tied.len()
            );
        }
        let _ = writeln!(
            o,
            "| claim | categories | direction | naive_mase | vol_ratio |"
        );
        let _ = writeln!(o, "|---|---|---|---|---|");
        for c in &best.val.claims {
            let scored = best.val.scored.contains(&c.claim);
            let cells: Vec<String> = wavebench_core::score::Target::ALL
                .iter()
                .map(|&t| {
                    let i = c.info(t);
                    format!(
                        "{:.4} − {:.4} = {:+.4} (p {:.2}){}",
                        i.mi_bits,
                        i.null_median,
                        i.excess_bits,
                        i.p,
                        if scored && c.claim.scored_against() == Some(t) {
                            " ◆"
                        } else {
                            ""
                        }
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "| {}{} | {} | {} |",
                c.claim.name(),
                match (scored, &c.claim, c.claim.scored_against()) {
                    (true, _, _) => "",
                    (false, AnyClaim::Defined(_), _) => " (yours, not designated)",
                    (false, _, Some(_)) => " (not printed)",
                    (false, _, None) => " (never scored)",
                },
                c.categories.len(),
                cells.join(" | ")
            );
        }
        let _ = writeln!(
            o,
            "\n◆ the pairs the score sums: each claim {} prints, against its designated outcome{}.",
            best.template,
            if defined(&best.val).next().is_some() {
                ", and each claim you designated"
            } else {
                ""
            }
        );
        defined_section(&mut o, best);
    }
    o
}

/// The claims a researcher defined, as the evaluation holds them.
fn defined(e: &Evaluation) -> impl Iterator<Item = &ClaimInfo> {
    e.claims
        .iter()
        .filter(|c| matches!(c.claim, AnyClaim::Defined(_)))
}

/// What each defined claim tells on val and test, before and beyond the series, and its
/// categories: the answer to "should my prompt say this?".
fn defined_section(o: &mut String, best: &SweepRow) {
    let claims: Vec<(&ClaimInfo, Option<&ClaimInfo>)> = defined(&best.val)
        .map(|c| (c, best.test.claim(c.claim.name())))
        .collect();
    if claims.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\n## Claims you defined ({}; bits: observed − null median = excess [95% bootstrap interval, designated outcome ◆ only], p; beyond the series: the excess of I(claim; outcome | forecaster's class))\n",
        best.label()
    );
    let _ = writeln!(o, "| claim | part | outcome | bits | beyond the series |");
    let _ = writeln!(o, "|---|---|---|---|---|");
    for (val, test) in &claims {
        let AnyClaim::Defined(d) = &val.claim else {
            continue;
        };
        for (part, c) in [("val", Some(*val)), ("test", *test)] {
            let Some(c) = c else { continue };
            for t in Target::ALL {
                let i = c.info(t);
                let b = c.complementary(t);
                // The designated outcome has replicates: its intervals.
                let [ci, cb] = c.intervals(t).map(|[lo, hi]| {
                    if d.target == Some(t) && lo.is_finite() {
                        format!(" [{lo:+.4}, {hi:+.4}]")
                    } else {
                        String::new()
                    }
                });
                let _ = writeln!(
                    o,
                    "| {}{} | {part} | {} | {:.4} − {:.4} = {:+.4}{ci} (p {:.2}) | {:+.4}{cb} (p {:.2}) |",
                    d.name,
                    if d.target == Some(t) { " ◆" } else { "" },
                    t.name(),
                    i.mi_bits,
                    i.null_median,
                    i.excess_bits,
                    i.p,
                    b.excess_bits,
                    b.p
                );
            }
        }
    }
    for (val, _) in &claims {
        let AnyClaim::Defined(d) = &val.claim else {
            continue;
        };
        let cats: Vec<String> = val
            .categories
            .iter()
            .map(|(k, n)| format!("\"{k}\" {n}"))
            .collect();
        let _ = writeln!(
            o,
            "\n`{}` = `{}`: {} categories on val: {}",
            d.key(),
            d.source,
            val.categories.len(),
            cats.join(", ")
        );
    }
}
