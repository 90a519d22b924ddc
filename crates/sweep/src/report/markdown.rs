//! A sweep as Markdown: the answer as a researcher reads it, with its warnings, the
//! baseline, the ranking with intervals and ties, and the claims a researcher defined.

use super::super::rank::{Standing, Standings};
use super::super::{Metric, RankBy, Sweep, SweepRow};
use super::defined;
use std::fmt::Write;
use wavebench_core::score::{AnyClaim, ClaimInfo, ForecastGain, Part, Target};

/// `0.1234 [0.1000, 0.1500]`, or `0.1234 [—]` where the interval is withheld.
fn ci_of(v: f64, i: [f64; 2]) -> String {
    if i.iter().all(|x| x.is_finite()) {
        format!("{v:.4} [{:.4}, {:.4}]", i[0], i[1])
    } else {
        format!("{v:.4} [—]")
    }
}

/// A page a researcher reads: what was scored and how, what to be wary of, the ranking
/// (val beside test, intervals and ties), and what the best configuration's claims tell
/// about each outcome against their null.
pub fn markdown(s: &Sweep, by: RankBy, keep_degenerate: bool, data: &str) -> String {
    let mut o = String::new();
    let standings = Standings::of(s, by, keep_degenerate);
    let _ = writeln!(o, "# Sweep: {data}\n");
    how_scored(&mut o, s);
    val_against_test(&mut o, standings.spearman);
    for w in standings.warnings(s) {
        let _ = writeln!(o, "> **Warning:** {w}\n");
    }
    let tied: Vec<String> = standings.tied().map(|t| t.label_full()).collect();
    ranked_by(&mut o, s, &standings, by, keep_degenerate, &tied);
    baseline(&mut o, s);
    forecast_section(&mut o, s, &standings);
    ranking(&mut o, s, &standings);
    // How to act on a row: its configuration as a file the other commands read.
    let _ = writeln!(
        o,
        "\nTo use a row: `wavebench sweep pick SWEEP.json --pick N --write-config row.toml` writes row N's configuration from this sweep's JSON report (`-o SWEEP.json`) or its parts without computing anything (or run the sweep with `--write-config row.toml --pick N`), then `wavebench prompts {data} --config row.toml -o prompts.jsonl` writes its prompts (docs/cli.md)."
    );
    if let Some(first) = standings.rows.first() {
        first_row_claims(&mut o, s, first, tied.len());
    }
    o
}

/// The split and its units, the terciles, and what the score and its intervals are.
fn how_scored(o: &mut String, s: &Sweep) {
    let _ = writeln!(
        o,
        "Split {} (chronological); units (window × channel) whose horizon lies wholly in a part: train {}, val {}, test {}; {}. Effective units (the direction outcome's autocorrelation): val {:.0}, test {:.0}.",
        s.split, s.units.train, s.units.val, s.units.test, s.left_out_text(), s.parts.val.n_eff, s.parts.test.n_eff
    );
    let _ = writeln!(
        o,
        "Terciles cut on train: naive_mase {:.4} / {:.4}, vol_ratio {:.4} / {:.4}.\n",
        s.naive_mase.q1, s.naive_mase.q2, s.vol_ratio.q1, s.vol_ratio.q2
    );
    let _ = writeln!(
        o,
        "Score = bits of mutual information the prompt's claims carry about the horizon **above what a claim that knows nothing scores** (the median of {} circular shifts of each channel's outcomes against its claims, at least T + P = {} units apart), summed over the designated pairs (docs/score.md): a proxy for what a forecaster could read from the prompt, not a forecast. Intervals: 95%, circular block bootstrap of {} replicates (blocks of {} units). **Tied** = the interval of (best val score − its val score) contains 0.\n",
        s.protocol.null_draws, s.parts.val.span, s.protocol.bootstrap, s.parts.val.span
    );
}

/// Spearman's ρ of the val and test scores, and what it says about the val ranking.
fn val_against_test(o: &mut String, spearman: Option<f64>) {
    match spearman {
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
}

/// What the rows are ranked by, where degenerate levels go, and which rows tie the best.
fn ranked_by(
    o: &mut String,
    s: &Sweep,
    standings: &Standings,
    by: RankBy,
    keep_degenerate: bool,
    tied: &[String],
) {
    let _ = writeln!(
        o,
        "Ranked by {}{}. {}\n",
        match by {
            RankBy::Score => "the val score".to_string(),
            RankBy::Complementary =>
                "the val complementary score (bits beyond the series-only forecaster); ties, test ranks and ρ are of the complementary scores".to_string(),
            RankBy::Forecast =>
                "the val forecast gain (how much the claims lower the series-only forecaster's MSE); ties, test ranks and ρ are of the forecast gains".to_string(),
            RankBy::Mean(m) => format!(
                "the mean {} (a description: higher is not better; a mean has no interval, so no ties or verdicts are drawn from it)",
                m.name()
            ),
            RankBy::Pair(c, t) => format!(
                "the val bits {} tells about {} above their null; ties, test ranks and ρ are of those bits",
                c.name(),
                t.name()
            ),
        },
        if keep_degenerate {
            ""
        } else {
            ", degenerate levels (approximation band < 2 coefficients) listed last without a rank"
        },
        if standings.has_intervals() {
            format!(
                "{} configuration{} tied with the best{}.",
                tied.len(),
                if tied.len() == 1 { " is" } else { "s are" },
                if tied.len() <= 8 && !tied.is_empty() {
                    format!(": {}", tied.join("; "))
                } else {
                    String::new()
                },
            )
        } else if s.withholds(Part::Val) {
            "No ties are drawn: val's intervals are withheld (the warning above says why).".to_string()
        } else {
            "No ties are drawn: what is ranked has no interval.".to_string()
        },
    );
}

/// The Time-LLM baseline's scores, which every row's gain is measured against.
fn baseline(o: &mut String, s: &Sweep) {
    let base = &s.baseline;
    let _ = writeln!(
        o,
        "**Time-LLM baseline** (`timellm`: its trend word alone): val {}, test {}; beyond the series-only forecaster: val {}. Every row's gain is its val score minus this, with the interval of the paired difference, and likewise beyond the series.\n",
        ci_of(base.val.score_bits, s.shown(Part::Val, base.val.interval)),
        ci_of(base.test.score_bits, s.shown(Part::Test, base.test.interval)),
        ci_of(
            base.val.complementary_bits,
            s.shown(Part::Val, base.val.complementary_interval)
        ),
    );
}

/// The ranking table: a row per configuration, in the standings' order.
fn ranking(o: &mut String, s: &Sweep, standings: &Standings) {
    let _ = writeln!(
        o,
        "| # | configuration | template | val score (bits) [95% CI] | tied | gain over Time-LLM [95% CI] | val beyond the series [95% CI] | gain beyond the series [95% CI] | val forecast gain (%) [95% CI] | forecast gain over Time-LLM (points) [95% CI] | test forecast gain (%) [95% CI] | test score (bits) [95% CI] | test rank | val bits before the null | val prompts distinct (words only) | mean SNR (dB) |"
    );
    let _ = writeln!(
        o,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for st in &standings.rows {
        ranking_row(o, s, st);
    }
}

/// One configuration's line of the ranking table.
fn ranking_row(o: &mut String, s: &Sweep, st: &Standing) {
    let ci = |e: &wavebench_core::score::Evaluation, part: Part| {
        ci_of(e.score_bits, s.shown(part, e.interval))
    };
    let r = st.row;
    let mut name = r.label();
    if r.transform.mode != wavebench_core::wavelet::Mode::Reflect {
        let _ = write!(name, " {}", r.transform.mode.name());
    }
    if !r.aliases.is_empty() {
        let _ = write!(name, " (= {})", r.aliases.join(", "));
    }
    if !st.covers.is_empty() {
        // Its prompts are the same under every transform: one row stands for them.
        name = format!(
            "any of {} transforms (no wavelet word)",
            st.covers.len() + 1
        );
    } else if r.degenerate() {
        name.push_str(" (degenerate)");
    }
    let _ = writeln!(
        o,
        "| {} | {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.4} | {} ({}) | {:.2} |",
        st.rank.map_or("–".to_string(), |k| k.to_string()),
        r.template,
        ci(&r.val, Part::Val),
        if st.tied { "=" } else { "" },
        ci_of(st.gain, st.gain_interval),
        ci_of(
            r.val.complementary_bits,
            s.shown(Part::Val, r.val.complementary_interval)
        ),
        ci_of(st.complementary_gain, st.complementary_gain_interval),
        percent_of(s, Part::Val, r.val.forecast.as_ref()),
        points_of(st.forecast_gain, st.forecast_gain_interval),
        percent_of(s, Part::Test, r.test.forecast.as_ref()),
        ci(&r.test, Part::Test),
        st.test_rank.map_or("–".to_string(), |k| k.to_string()),
        r.val.mi_bits_sum,
        r.val.diversity.distinct,
        r.val.diversity.distinct_masked,
        r.mean(Metric::SnrDb),
    );
}

/// What each claim of the first row tells about each outcome (val, against its null), and
/// the claims you defined; `tied` rows share its place.
fn first_row_claims(o: &mut String, s: &Sweep, first: &Standing, tied: usize) {
    let best = first.row;
    let _ = writeln!(
        o,
        "\n## What each claim of the first row, {}, tells (val, bits: observed − null median = excess; p)\n",
        first.label()
    );
    if tied > 1 {
        let _ = writeln!(
            o,
            "It is one of {tied} configurations the data cannot tell apart; this is what its claims carry, not a reason to prefer it.\n",
        );
    }
    let _ = writeln!(
        o,
        "| claim | categories | direction | naive_mase | vol_ratio |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|");
    for c in &best.val.claims {
        claim_line(o, best, c);
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
    defined_section(o, s, best, &first.label());
}

/// One claim's line: its bits about each outcome against the null, ◆ on the pair scored.
fn claim_line(o: &mut String, best: &SweepRow, c: &ClaimInfo) {
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

/// A forecast gain in percent with its interval as the report shows it (`—` where the
/// sweep has none).
fn percent_of(s: &Sweep, part: Part, g: Option<&ForecastGain>) -> String {
    match g {
        Some(g) => points_of(g.gain, s.shown(part, g.interval)),
        None => "—".to_string(),
    }
}

/// A fraction in percentage points: `1.234 [0.500, 2.000]`, `[—]` where the interval is
/// withheld, `—` where there is no figure.
fn points_of(v: f64, i: [f64; 2]) -> String {
    if !v.is_finite() {
        return "—".to_string();
    }
    if i.iter().all(|x| x.is_finite()) {
        format!(
            "{:.3} [{:.3}, {:.3}]",
            100.0 * v,
            100.0 * i[0],
            100.0 * i[1]
        )
    } else {
        format!("{:.3} [—]", 100.0 * v)
    }
}

/// The answer in the forecaster's units: what the Time-LLM baseline's claim and the best
/// row's lower the series-only forecaster's MSE by, and whether the bits agree.
fn forecast_section(o: &mut String, s: &Sweep, standings: &Standings<'_>) {
    if s.fit.every > 1 {
        let _ = writeln!(
            o,
            "**The series-only forecasters** were fit on the units of one train window in {} ({} of {} train units): the data set has more than {} (`--fit-subset-above`; their naive_mase and vol_ratio classes need not be the exact fit's, docs/score.md#what-the-prompt-adds-beyond-the-series).\n",
            s.fit.every,
            s.fit.units,
            s.units.train,
            s.protocol.fit_subset_above.unwrap_or(0)
        );
    }
    if let Some(why) = &s.gain.withheld {
        let _ = writeln!(o, "**Forecast gain**: not measured: {why}.\n");
        return;
    }
    let (Some(bv), Some(bt)) = (&s.baseline.val.forecast, &s.baseline.test.forecast) else {
        return;
    };
    let _ = writeln!(
        o,
        "**Forecast gain beyond the series** (docs/score.md#forecast-gain-beyond-the-series): a ridge forecaster of the whole horizon that reads only the window has val MSE {:.4} (MAE {:.4}) and test MSE {:.4} (MAE {:.4}), standardised per channel as Time-LLM's tables; a row's claims, as categories fit to its residuals on the units of one train window in {} ({} units), lower that MSE by its forecast gain (%). Time-LLM's trend word alone: val {} %, test {} %.{}\n",
        bv.mse_series,
        bv.mae_series,
        bt.mse_series,
        bt.mae_series,
        s.gain.fit_stride,
        s.gain.fit_units,
        points_of(bv.gain, s.shown(Part::Val, bv.interval)),
        points_of(bt.gain, s.shown(Part::Test, bt.interval)),
        match standings.agreement {
            Some(rho) => format!(
                " Spearman's ρ of the val complementary scores and the val forecast gains over the ranked configurations: {rho:.2}{}.",
                if rho < 0.5 { " (the bits and the forecaster disagree: trust the forecast gain)" } else { "" }
            ),
            None => String::new(),
        }
    );
}

/// What each defined claim tells on val and test, before and beyond the series, and its
/// categories: the answer to "should my prompt say this?".
fn defined_section(o: &mut String, s: &Sweep, best: &SweepRow, label: &str) {
    let claims: Vec<(&ClaimInfo, Option<&ClaimInfo>)> = defined(&best.val)
        .map(|c| (c, best.test.claim(c.claim.name())))
        .collect();
    if claims.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\n## Claims you defined ({label}; bits: observed − null median = excess [95% bootstrap interval, designated outcome ◆ only], p; beyond the series: the excess of I(claim; outcome | forecaster's class))\n"
    );
    let _ = writeln!(o, "| claim | part | outcome | bits | beyond the series |");
    let _ = writeln!(o, "|---|---|---|---|---|");
    for (val, test) in &claims {
        let AnyClaim::Defined(d) = &val.claim else {
            continue;
        };
        for (part, c) in [(Part::Val, Some(*val)), (Part::Test, *test)] {
            let Some(c) = c else { continue };
            for t in Target::ALL {
                let i = c.info(t);
                let b = c.complementary(t);
                // The designated outcome has replicates: its intervals, where the part
                // can give them.
                let [ci, cb] = c.intervals(t).map(|i| s.shown(part, i)).map(|[lo, hi]| {
                    if d.target() == Some(t) && lo.is_finite() {
                        format!(" [{lo:+.4}, {hi:+.4}]")
                    } else {
                        String::new()
                    }
                });
                let _ = writeln!(
                    o,
                    "| {}{} | {} | {} | {:.4} − {:.4} = {:+.4}{ci} (p {:.2}) | {:+.4}{cb} (p {:.2}) |",
                    d.name(),
                    if d.target() == Some(t) { " ◆" } else { "" },
                    part.name(),
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
            .map(|(k, n)| format!("\"{}\" {n}", super::category_shown(k)))
            .collect();
        let _ = writeln!(
            o,
            "\n`{}` = `{}`: {} categories on val: {}",
            d.spec.key(),
            d.spec.template,
            val.categories.len(),
            cats.join(", ")
        );
    }
}
