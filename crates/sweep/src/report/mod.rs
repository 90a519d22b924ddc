//! A sweep as JSON, CSV or Markdown (docs/cli.md#sweep): the split, its units, and every
//! configuration ranked, best first.

mod evaluation;
mod markdown;

pub use evaluation::EvaluationJson;
pub use markdown::markdown;

use super::rank::{Standing, Standings};
use super::{Metric, RankBy, Sweep};
use crate::error::{Error, Result};
use serde_json::{json, Map, Value};
use wavebench_core::names::ReportFormat;
use wavebench_core::score::{AnyClaim, Claim, ClaimInfo, Evaluation, Part, Target};

/// The most characters of a claim's category a report or the app shows: a defined claim
/// may render whole paragraphs (or megabytes); the JSON keeps each category whole.
pub const CATEGORY_SHOWN: usize = 200;

/// A category as reports and the app show it: whole up to [`CATEGORY_SHOWN`]
/// characters, else cut there with its length said.
pub fn category_shown(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(CATEGORY_SHOWN) {
        None => text.into(),
        Some((cut, _)) => format!("{}… ({} characters)", &text[..cut], text.chars().count()).into(),
    }
}

fn range(r: &std::ops::Range<usize>) -> Value {
    json!([r.start, r.end])
}

/// Sweep `s` (of the data `input` names) as a report in `format`, ranked by `by`: the
/// bytes the command line writes (`sweep -o`, `sweep merge -o`) and the wheel returns. A
/// JSON report keeps the sweep packed for `sweep pick`.
pub fn render(
    s: &Sweep,
    format: ReportFormat,
    by: RankBy,
    keep_degenerate: bool,
    input: &str,
) -> Result<Vec<u8>> {
    Ok(match format {
        ReportFormat::Json => {
            let mut doc = json(s, by, keep_degenerate);
            crate::partial::keep_in_report(&mut doc, s, input)?;
            let mut v =
                serde_json::to_vec_pretty(&doc).map_err(|e| Error::internal(e.to_string()))?;
            v.push(b'\n');
            v
        }
        ReportFormat::Csv => csv(s, by, keep_degenerate)?,
        ReportFormat::Markdown => markdown(s, by, keep_degenerate, input).into_bytes(),
    })
}

/// docs/cli.md#sweep.
pub fn json(s: &Sweep, by: RankBy, keep_degenerate: bool) -> Value {
    let standings = Standings::of(s, by, keep_degenerate);
    let configs: Vec<Value> = standings.rows.iter().map(|st| config_json(s, st)).collect();
    json!({
        "split": split_json(s),
        "units": {
            "train": s.units.train,
            "val": s.units.val,
            "test": s.units.test,
            "left_out": s.left_out,
            "left_out_by_channel": s
                .left_out_channels
                .iter()
                .map(|(c, n)| (c.clone(), serde_json::json!(n)))
                .collect::<serde_json::Map<_, _>>(),
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
            "span_units": s.parts.val.span,
            "fit_subset_above": s.protocol.fit_subset_above,
        },
        "forecaster_fit": {"units": s.fit.units, "every": s.fit.every},
        "parts": {"val": part_json(&s.parts.val), "test": part_json(&s.parts.test)},
        "baseline": {
            "template": "timellm",
            "scored": Claim::BASELINE.map(|c| c.name()),
            "val": baseline(&s.baseline.val, s.withholds(Part::Val)),
            "test": baseline(&s.baseline.test, s.withholds(Part::Test)),
        },
        "defined_claims": s.base.claims.iter().map(|c| {
            json!({"name": c.name, "outcome": c.outcome.map(|t| t.name()), "template": c.template})
        }).collect::<Vec<Value>>(),
        "forecast_gain": {
            "fit_units": s.gain.fit_units,
            "fit_stride": s.gain.fit_stride,
            "withheld": s.gain.withheld,
            "spearman_complementary_forecast": standings.agreement,
        },
        "ranked_by": by.name(),
        "spearman_val_test": standings.spearman,
        "warnings": standings.warnings(s),
        "configs": configs,
    })
}

/// The split: its rule and each part's rows, per file where the data set has many.
fn split_json(s: &Sweep) -> Map<String, Value> {
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
    split
}

/// One ranked configuration: its place, gains, transform, template, evaluations and means.
fn config_json(s: &Sweep, st: &Standing) -> Value {
    let r = st.row;
    let means: Map<String, Value> = Metric::ALL
        .iter()
        .map(|m| (m.name().to_string(), json!(r.mean(*m))))
        .collect();
    json!({
        "rank": st.rank,
        "test_rank": st.test_rank,
        "tied": tie(st),
        "behind_best": finite(st.behind),
        "gain": st.gain,
        "gain_interval": finite(st.gain_interval),
        "complementary_gain": st.complementary_gain,
        "complementary_gain_interval": finite(st.complementary_gain_interval),
        "forecast_gain_over_baseline": finite_value(st.forecast_gain),
        "forecast_gain_over_baseline_interval": finite(st.forecast_gain_interval),
        "wavelet": r.transform.name(),
        "aliases": r.aliases,
        "covers": st.covers.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "level": r.transform.level,
        "mode": r.transform.mode.name(),
        "template": r.template,
        "approx_len": r.approx_len,
        "degenerate": r.degenerate(),
        "val": EvaluationJson { evaluation: &r.val, withheld: s.withholds(Part::Val) },
        "test": EvaluationJson { evaluation: &r.test, withheld: s.withholds(Part::Test) },
        "means": means,
    })
}

/// A part's units: sequences, the effective count, whether intervals are withheld, and
/// the series-only forecasters' bits.
fn part_json(p: &super::PartUnits) -> Value {
    json!({
        "sequences": p.sequences,
        "shortest": p.shortest,
        "longest": p.longest,
        "intervals_withheld": p.withheld(),
        "n_eff": p.n_eff,
        "conservative": p.conservative,
        "forecaster": {
            "direction": p.forecaster[0],
            "naive_mase": p.forecaster[1],
            "vol_ratio": p.forecaster[2],
        },
    })
}

/// Whether a row is tied with the best: null where what is ranked has no interval (a
/// feature's mean), so that no tie is read from it.
fn tie(st: &super::rank::Standing<'_>) -> Value {
    if st.behind.iter().all(|v| v.is_finite()) {
        json!(st.tied)
    } else {
        Value::Null
    }
}

/// The Time-LLM baseline's scores over one part.
fn baseline(e: &wavebench_core::score::Evaluation, withheld: bool) -> Value {
    let shown = |i| finite(super::withheld::shown(i, withheld));
    json!({
        "score_bits": e.score_bits,
        "interval": shown(e.interval),
        "complementary_bits": e.complementary_bits,
        "complementary_interval": shown(e.complementary_interval),
        "forecast": e.forecast.as_ref().map(|g| evaluation::ForecastJson {
            gain: g,
            interval: {
                let i = super::withheld::shown(g.interval, withheld);
                i[0].is_finite().then_some(i)
            },
        }),
    })
}

/// A figure as JSON, null where there is none (NaN).
fn finite_value(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
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
pub fn csv(s: &Sweep, by: RankBy, keep_degenerate: bool) -> Result<Vec<u8>> {
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
    w.write_record(csv_header(&yours))
        .map_err(|e| Error::internal(e.to_string()))?;
    for st in Standings::of(s, by, keep_degenerate).rows {
        w.write_record(csv_record(s, &st, &yours))
            .map_err(|e| Error::internal(e.to_string()))?;
    }
    w.into_inner().map_err(|e| Error::internal(e.to_string()))
}

/// The CSV's column names, `yours` the claims the researcher defined.
fn csv_header(yours: &[String]) -> Vec<String> {
    let mut header: Vec<String> = [
        "rank",
        "test_rank",
        "tied",
        "behind_best_lo",
        "behind_best_hi",
        "gain_bits",
        "gain_lo",
        "gain_hi",
        "complementary_gain_bits",
        "complementary_gain_lo",
        "complementary_gain_hi",
        "forecast_gain_over_baseline",
        "forecast_gain_over_baseline_lo",
        "forecast_gain_over_baseline_hi",
        "wavelet",
        "aliases",
        "covers",
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
            "mse_series",
            "mse_with_claims",
            "mae_series",
            "mae_with_claims",
            "forecast_gain",
            "forecast_gain_lo",
            "forecast_gain_hi",
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
        for name in yours {
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
    header
}

/// One configuration's CSV cells, in [`csv_header`]'s order.
fn csv_record(s: &Sweep, st: &Standing, yours: &[String]) -> Vec<String> {
    let opt = |v: Option<usize>| v.map_or(String::new(), |k| k.to_string());
    let r = st.row;
    let mut rec: Vec<String> = vec![
        opt(st.rank),
        opt(st.test_rank),
        // Empty where what is ranked has no interval (no tie is drawn).
        match tie(st) {
            Value::Bool(b) => b.to_string(),
            _ => String::new(),
        },
        st.behind[0].to_string(),
        st.behind[1].to_string(),
        st.gain.to_string(),
        st.gain_interval[0].to_string(),
        st.gain_interval[1].to_string(),
        st.complementary_gain.to_string(),
        st.complementary_gain_interval[0].to_string(),
        st.complementary_gain_interval[1].to_string(),
        st.forecast_gain.to_string(),
        st.forecast_gain_interval[0].to_string(),
        st.forecast_gain_interval[1].to_string(),
        r.transform.name().into(),
        r.aliases.join(" "),
        st.covers
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        r.transform.level.to_string(),
        r.transform.mode.name().into(),
        r.template.clone(),
        r.approx_len.to_string(),
        r.degenerate().to_string(),
    ];
    for (e, part) in [(&r.val, Part::Val), (&r.test, Part::Test)] {
        rec.extend(score_cells(s, e, part));
    }
    for e in [&r.val, &r.test] {
        rec.extend(claim_cells(e, yours));
    }
    rec.extend(Metric::ALL.iter().map(|m| r.mean(*m).to_string()));
    rec
}

/// A part's units, scores with their shown intervals, and forecast gain (empty cells
/// where the sweep has none).
fn score_cells(s: &Sweep, e: &Evaluation, part: Part) -> Vec<String> {
    let (score, complementary) = (
        s.shown(part, e.interval),
        s.shown(part, e.complementary_interval),
    );
    let mut rec = vec![
        e.units.to_string(),
        e.score_bits.to_string(),
        score[0].to_string(),
        score[1].to_string(),
        e.mi_bits_sum.to_string(),
        e.complementary_bits.to_string(),
        complementary[0].to_string(),
        complementary[1].to_string(),
    ];
    match &e.forecast {
        Some(g) => {
            let i = s.shown(part, g.interval);
            rec.extend(
                [
                    g.mse_series,
                    g.mse_with_claims,
                    g.mae_series,
                    g.mae_with_claims,
                    g.gain,
                    i[0],
                    i[1],
                ]
                .map(|v| v.to_string()),
            );
        }
        None => rec.extend(std::iter::repeat_n(String::new(), 7)),
    }
    rec
}

/// A part's bits per scored pair (and lags about direction), per claim of `yours` and
/// outcome, and its prompts' diversity.
fn claim_cells(e: &Evaluation, yours: &[String]) -> Vec<String> {
    let mut rec = Vec::new();
    let pairs = scored_pairs().chain([(Claim::Lags, Target::Direction)]);
    for (c, t) in pairs {
        let info = e.info(c, t);
        rec.push(info.map_or(String::new(), |i| i.mi_bits.to_string()));
        rec.push(info.map_or(String::new(), |i| i.excess_bits.to_string()));
        if c != Claim::Lags {
            rec.push(info.map_or(String::new(), |i| i.p.to_string()));
        }
    }
    for name in yours {
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
    rec
}

/// The claims a researcher defined, as the evaluation holds them.
fn defined(e: &Evaluation) -> impl Iterator<Item = &ClaimInfo> {
    e.claims
        .iter()
        .filter(|c| matches!(c.claim, AnyClaim::Defined(_)))
}
