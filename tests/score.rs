//! The sweep's score against an independent implementation (scripts/ref_score.py: numpy,
//! pywt and scripts/ref_features.py's claims and prompts): outcomes, terciles, mutual
//! information, the null of circular shifts (median, 95th percentile, p), the bootstrap's
//! intervals and ties, the effective sample size, categories and prompt diversity, on a
//! file the test makes and on ETTh1; test ranks and Spearman's ρ; and the sweep's
//! refusals, each one clear line.

mod common;

use common::{assert_input_error, etth1, wavebench};
use serde_json::Value;
use std::path::Path;
use wavebench_core::transform::Transform;

fn python() -> String {
    std::env::var("WAVEBENCH_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The reference's JSON for one configuration.
fn reference(data: &Path, args: &[&str]) -> Value {
    let o = std::process::Command::new(python())
        .arg("scripts/ref_score.py")
        .arg(data)
        .args(args)
        .output()
        .expect("python3 with numpy and pywt (the project venv) on PATH");
    assert!(
        o.status.success(),
        "ref_score.py failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn sweep(data: &Path, out: &Path, args: &[&str]) -> Value {
    let mut all = vec![
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let o = wavebench(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

fn close(a: &Value, b: &Value, what: &str) {
    let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
    assert!((x - y).abs() <= 1e-9, "{what}: sweep {x}, reference {y}");
}

/// One part's evaluation, field by field.
fn same_part(ours: &Value, theirs: &Value, what: &str) {
    assert_eq!(ours["units"], theirs["units"], "{what}: units");
    for f in ["score_bits", "mi_bits_sum", "complementary_bits"] {
        close(&ours[f], &theirs[f], &format!("{what} {f}"));
    }
    let withheld = theirs["intervals_withheld"].as_bool().unwrap();
    for f in ["interval", "complementary_interval"] {
        let (lo, hi) = (
            theirs[f][0].as_f64().unwrap(),
            theirs[f][1].as_f64().unwrap(),
        );
        if withheld || hi - lo < 1e-12 {
            assert!(ours[f].is_null(), "{what} {f}: withheld, {}", ours[f]);
        } else {
            for k in 0..2 {
                close(&ours[f][k], &theirs[f][k], &format!("{what} {f} {k}"));
            }
        }
    }
    let claims = ours["claims"].as_object().unwrap();
    assert_eq!(
        claims.len(),
        theirs["claims"].as_object().unwrap().len(),
        "{what}: every claim"
    );
    assert!(claims.len() >= 9, "{what}: every built-in claim");
    for (claim, outcomes) in claims {
        let outcomes = outcomes.as_object().unwrap();
        assert_eq!(outcomes.len(), 3, "{what} {claim}: every outcome");
        for (o, v) in outcomes {
            let r = &theirs["claims"][claim][o];
            let c = &ours["complementary"][claim][o];
            let rc = &theirs["complementary"][claim][o];
            for f in ["mi_bits", "null_median", "null_p95", "p", "excess_bits"] {
                close(&v[f], &r[f], &format!("{what} {claim}×{o} {f}"));
                close(
                    &c[f],
                    &rc[f],
                    &format!("{what} {claim}×{o} complementary {f}"),
                );
            }
        }
        assert_eq!(
            ours["categories"][claim], theirs["categories"][claim],
            "{what} {claim}: categories"
        );
    }
    let (d, r) = (&ours["diversity"], &theirs["diversity"]);
    assert_eq!(d["distinct"], r["distinct"], "{what}: distinct prompts");
    assert_eq!(
        d["distinct_masked"], r["distinct_masked"],
        "{what}: distinct masked"
    );
    close(
        &d["entropy_bits"],
        &r["entropy_bits"],
        &format!("{what} entropy"),
    );
    close(
        &d["entropy_masked_bits"],
        &r["entropy_masked_bits"],
        &format!("{what} masked entropy"),
    );
}

/// A reported interval against the reference's replicates: null where the part
/// withholds its intervals or the percentiles collapse (docs/score.md#intervals-withheld).
fn same_interval(ours: &Value, replicates: &[f64], withheld: bool, what: &str) {
    let (lo, hi) = (quantile(replicates, 0.025), quantile(replicates, 0.975));
    if withheld || hi - lo < 1e-12 {
        assert!(ours.is_null(), "{what}: withheld, {ours}");
    } else {
        close(&ours[0], &serde_json::json!(lo), &format!("{what} lo"));
        close(&ours[1], &serde_json::json!(hi), &format!("{what} hi"));
    }
}

/// Spearman's ρ from its definition: Pearson's correlation of the average ranks.
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let m = (ra.len() as f64 + 1.0) / 2.0;
    let num: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - m) * (y - m)).sum();
    let den = (ra.iter().map(|x| (x - m).powi(2)).sum::<f64>()
        * rb.iter().map(|y| (y - m).powi(2)).sum::<f64>())
    .sqrt();
    num / den
}

/// numpy's default (linear) quantile, from its definition.
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let x = q * (v.len() - 1) as f64;
    let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
}

/// Ranks 1..n of `v`, average ranks for ties.
fn ranks(v: &[f64]) -> Vec<f64> {
    v.iter()
        .map(|x| {
            let below = v.iter().filter(|y| *y < x).count() as f64;
            let equal = v.iter().filter(|y| *y == x).count() as f64;
            below + (equal + 1.0) / 2.0
        })
        .collect()
}

/// Every configuration of `swept` against the reference: each part's numbers, then the
/// ties from the reference's replicate scores, the test ranks and Spearman's ρ.
fn check_against_reference(data: &Path, swept: &Value, common: &[&str]) {
    check_against_reference_with(data, swept, common, &[])
}

/// [`check_against_reference`], the reference given `extra` too (its `--level-claim`).
fn check_against_reference_with(data: &Path, swept: &Value, common: &[&str], extra: &[&str]) {
    let configs = swept["configs"].as_array().unwrap();
    assert!(!configs.is_empty());
    let mut boots: Vec<Vec<f64>> = Vec::new();
    // Each row's lower bound of its gain beyond the series, from the reference.
    let mut complementary_lo: Vec<f64> = Vec::new();
    for c in configs {
        let level = c["level"].to_string();
        let mut args = common.to_vec();
        args.extend([
            "--wavelet",
            c["wavelet"].as_str().unwrap(),
            "--level",
            &level,
            "--mode",
            c["mode"].as_str().unwrap(),
            "--template",
            c["template"].as_str().unwrap(),
        ]);
        args.extend_from_slice(extra);
        let r = reference(data, &args);
        let what = format!("{} level {level} {}", c["wavelet"], c["template"]);
        for part in ["train", "val", "test", "left_out"] {
            assert_eq!(
                swept["units"][part], r["units"][part],
                "{what}: {part} units"
            );
        }
        for t in ["naive_mase", "vol_ratio"] {
            for k in 0..2 {
                close(
                    &swept["terciles"][t][k],
                    &r["terciles"][t][k],
                    &format!("{t} cut {k}"),
                );
            }
        }
        same_part(&c["val"], &r["val"], &format!("{what} val"));
        same_part(&c["test"], &r["test"], &format!("{what} test"));
        for part in ["val", "test"] {
            close(
                &swept["parts"][part]["n_eff"],
                &r[part]["n_eff"],
                &format!("{what} {part} n_eff"),
            );
            for o in ["direction", "naive_mase", "vol_ratio"] {
                for f in ["mi_bits", "null_median", "p"] {
                    close(
                        &swept["parts"][part]["forecaster"][o][f],
                        &r[part]["forecaster"][o][f],
                        &format!("{what} {part} forecaster {o} {f}"),
                    );
                }
            }
        }
        let cuts = &swept["forecast_terciles"];
        for (k, v) in [
            &cuts["naive_mase"][0],
            &cuts["naive_mase"][1],
            &cuts["vol_ratio"][0],
            &cuts["vol_ratio"][1],
        ]
        .into_iter()
        .enumerate()
        {
            let theirs = r["val"]["forecast_classes"][k].as_f64().unwrap();
            let ours = v.as_f64().unwrap();
            assert!(
                (ours - theirs).abs() <= 1e-9 * theirs.abs().max(1.0),
                "{what} forecast tercile {k}: {ours} {theirs}"
            );
        }
        // The Time-LLM baseline and this row's gain over it, interval from the paired
        // replicates.
        close(
            &swept["baseline"]["val"]["score_bits"],
            &r["val"]["baseline"]["score_bits"],
            &format!("{what} baseline"),
        );
        let base: Vec<f64> = r["val"]["baseline"]["boot"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let mine: Vec<f64> = r["val"]["boot"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let gain: Vec<f64> = mine.iter().zip(&base).map(|(a, b)| a - b).collect();
        let withheld = r["val"]["intervals_withheld"].as_bool().unwrap();
        same_interval(
            &c["gain_interval"],
            &gain,
            withheld,
            &format!("{what} gain"),
        );
        // Likewise beyond the series-only forecaster.
        close(
            &swept["baseline"]["val"]["complementary_bits"],
            &r["val"]["baseline"]["complementary_bits"],
            &format!("{what} baseline beyond the series"),
        );
        let base_c = numbers(&r["val"]["baseline"]["boot_complementary"]);
        let mine_c = numbers(&r["val"]["boot_complementary"]);
        assert_eq!(
            base_c.len(),
            mine_c.len(),
            "{what}: replicates beyond the series"
        );
        let gain_c: Vec<f64> = mine_c.iter().zip(&base_c).map(|(a, b)| a - b).collect();
        close(
            &c["complementary_gain"],
            &serde_json::json!(
                r["val"]["complementary_bits"].as_f64().unwrap()
                    - r["val"]["baseline"]["complementary_bits"].as_f64().unwrap()
            ),
            &format!("{what} gain beyond the series"),
        );
        same_interval(
            &c["complementary_gain_interval"],
            &gain_c,
            withheld,
            &format!("{what} gain beyond the series"),
        );
        same_forecast(c, &swept["baseline"], &r, withheld, &what);
        complementary_lo.push(if withheld {
            f64::NAN
        } else {
            quantile(&gain_c, 0.025)
        });
        boots.push(
            r["val"]["boot"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect(),
        );
    }
    // Ranked by the val score: the first row is the best, and each row's distance from it
    // is the interval of the replicates' differences.
    let ranked: Vec<usize> = (0..configs.len())
        .filter(|&i| configs[i]["rank"].is_u64())
        .collect();
    let best = &boots[ranked[0]];
    let withheld = swept["parts"]["val"]["intervals_withheld"].is_string();
    for &i in ranked.iter().skip(1) {
        let d: Vec<f64> = best.iter().zip(&boots[i]).map(|(a, b)| a - b).collect();
        let behind = &configs[i]["behind_best"];
        same_interval(behind, &d, withheld, "behind_best");
        let (lo, hi) = (quantile(&d, 0.025), quantile(&d, 0.975));
        let tied = if behind.is_null() {
            Value::Null
        } else {
            (lo <= 0.0 && 0.0 <= hi).into()
        };
        assert_eq!(configs[i]["tied"], tied, "row {i} tied");
    }
    // The best is behind itself by nothing: tied with itself, unless val withholds.
    let (top_tied, top_behind) = if withheld {
        (Value::Null, Value::Null)
    } else {
        (true.into(), serde_json::json!([0.0, 0.0]))
    };
    assert_eq!(configs[ranked[0]]["tied"], top_tied, "the best and itself");
    assert_eq!(configs[ranked[0]]["behind_best"], top_behind);
    // A warning exactly when no ranked row with wavelet words beats the baseline, among
    // rows whose gain has an interval.
    let judged: Vec<f64> = ranked
        .iter()
        .filter_map(|&i| configs[i]["gain_interval"][0].as_f64())
        .collect();
    let beaten = judged.iter().any(|&lo| lo > 0.0);
    let worded = !judged.is_empty()
        && ranked
            .iter()
            .any(|&i| configs[i]["covers"].as_array().unwrap().is_empty());
    let warned = swept["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .unwrap()
            .contains("gain over the Time-LLM baseline")
    });
    assert_eq!(warned, worded && !beaten, "the baseline warning");
    // Where none beats it, the warning counts the rows that do beyond the series.
    if warned && beaten_beyond_count(&ranked, &complementary_lo) > 0 {
        let n = beaten_beyond_count(&ranked, &complementary_lo);
        assert!(
            swept["warnings"].as_array().unwrap().iter().any(|w| {
                w.as_str()
                    .unwrap()
                    .contains(&format!("beyond the series-only forecaster {n} row"))
            }),
            "the baseline warning counts the {n} rows that gain beyond the series"
        );
    }
    // And one when rows beat it, but none beyond the series.
    let beaten_beyond = ranked.iter().any(|&i| complementary_lo[i] > 0.0);
    let warned_beyond = swept["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("the series already says"));
    assert_eq!(
        warned_beyond,
        beaten && !beaten_beyond,
        "the warning beyond the series"
    );
    // Test ranks: the ranked rows by test score, and Spearman's ρ of the two scores.
    let score = |i: usize, part: &str| configs[i][part]["score_bits"].as_f64().unwrap();
    for &i in &ranked {
        let above = ranked
            .iter()
            .filter(|&&j| score(j, "test") > score(i, "test"))
            .count();
        let k = configs[i]["test_rank"].as_u64().unwrap() as usize;
        assert!(k > above, "row {i}: test rank {k}, {above} above it");
    }
    let val: Vec<f64> = ranked.iter().map(|&i| score(i, "val")).collect();
    let test: Vec<f64> = ranked.iter().map(|&i| score(i, "test")).collect();
    if ranked.len() >= 3 {
        close(
            &swept["spearman_val_test"],
            &serde_json::json!(spearman(&val, &test)),
            "Spearman's ρ",
        );
        // Whether the bits' proxy agrees with the forecaster: ρ of the val complementary
        // scores and the val forecast gains.
        let bits: Vec<f64> = ranked
            .iter()
            .map(|&i| configs[i]["val"]["complementary_bits"].as_f64().unwrap())
            .collect();
        let gains: Vec<f64> = ranked
            .iter()
            .map(|&i| configs[i]["val"]["forecast"]["gain"].as_f64().unwrap())
            .collect();
        close(
            &swept["forecast_gain"]["spearman_complementary_forecast"],
            &serde_json::json!(spearman(&bits, &gains)),
            "Spearman's ρ of the bits and the forecast gains",
        );
    }
}

/// A report's warnings.
fn warnings_of(report: &Value) -> Vec<&str> {
    report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect()
}

/// A JSON array of numbers.
fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// Within 1e-9 of the reference, relative to its size where it is over 1.
fn close_relative(ours: &Value, theirs: &Value, what: &str) {
    let (x, y) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
    assert!(
        (x - y).abs() <= 1e-9 * y.abs().max(1.0),
        "{what}: sweep {x}, reference {y}"
    );
}

/// A row's forecast gain on val and test, the baseline's, and the row's gain over it,
/// against the reference's (docs/score.md#forecast-gain-beyond-the-series).
fn same_forecast(row: &Value, baseline: &Value, r: &Value, withheld: bool, what: &str) {
    for part in ["val", "test"] {
        let part_withheld = r[part]["intervals_withheld"].as_bool().unwrap();
        for (ours, theirs, who) in [
            (&row[part]["forecast"], &r[part]["forecast"], "row"),
            (
                &baseline[part]["forecast"],
                &r[part]["baseline_forecast"],
                "baseline",
            ),
        ] {
            let what = format!("{what} {part} {who} forecast");
            assert!(ours.is_object(), "{what}: measured, {ours}");
            for f in [
                "mse_series",
                "mse_with_claims",
                "mae_series",
                "mae_with_claims",
                "gain",
            ] {
                close_relative(&ours[f], &theirs[f], &format!("{what} {f}"));
            }
            assert_eq!(ours["columns"], theirs["columns"], "{what}: columns");
            same_interval(
                &ours["interval"],
                &numbers(&theirs["boot"]),
                part_withheld,
                &format!("{what} interval"),
            );
        }
    }
    // The gain over Time-LLM's word: the paired difference of their replicates.
    let (mine, base) = (
        numbers(&r["val"]["forecast"]["boot"]),
        numbers(&r["val"]["baseline_forecast"]["boot"]),
    );
    assert_eq!(mine.len(), base.len(), "{what}: paired replicates");
    let d: Vec<f64> = mine.iter().zip(&base).map(|(a, b)| a - b).collect();
    close_relative(
        &row["forecast_gain_over_baseline"],
        &serde_json::json!(
            r["val"]["forecast"]["gain"].as_f64().unwrap()
                - r["val"]["baseline_forecast"]["gain"].as_f64().unwrap()
        ),
        &format!("{what} forecast gain over the baseline"),
    );
    same_interval(
        &row["forecast_gain_over_baseline_interval"],
        &d,
        withheld,
        &format!("{what} forecast gain over the baseline"),
    );
}

/// 900 rows: a trend with a season, a noisy random walk, a regime switch, and a channel
/// that is constant for a stretch and then rises in a straight line (its units there are
/// left out: a zero step size or a zero spread of steps).
fn made_file(dir: &Path) -> std::path::PathBuf {
    let walk = common::lcg_series(7, 900);
    let mut csv = String::from("date,season,walk,regime,flat\n");
    let mut w = 0.0;
    for i in 0..900 {
        let t = i as f64;
        w += walk[i] * 0.1;
        let regime = if (i / 150) % 2 == 0 { 1.0 } else { -1.0 } + 0.05 * walk[(i * 7) % 900];
        let flat = if i < 300 {
            2.0
        } else if i < 500 {
            2.0 + 0.5 * (t - 300.0)
        } else {
            (t / 9.0).sin() + 0.01 * walk[i]
        };
        csv.push_str(&format!(
            "2024-01-{:02} {:02}:00:00,{},{},{},{}\n",
            1 + i / 24,
            i % 24,
            0.01 * t + (t / 12.0).sin(),
            w,
            regime,
            flat
        ));
    }
    let p = dir.join("made.csv");
    std::fs::write(&p, csv).unwrap();
    p
}

#[test]
fn sweep_equals_the_reference_on_a_made_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let out = dir.path().join("sweep.json");
    let swept = sweep(
        &data,
        &out,
        &[
            "--seq-len",
            "64",
            "--stride",
            "3",
            "--pred-len",
            "16",
            "--wavelets",
            "haar,db1,db2,sym3",
            "--levels",
            "1..2",
            "--template",
            "dwt-balanced,timellm",
            "--split",
            "0.5,0.3,0.2",
        ],
    );
    // haar = db1: one row each, under haar, with db1 named as its alias; timellm's
    // prompts print no wavelet word, so its rows are one, covering the other 5.
    let configs = swept["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 3 * 2 + 1);
    let timellm: Vec<&Value> = configs
        .iter()
        .filter(|c| c["template"] == "timellm")
        .collect();
    assert_eq!(timellm.len(), 1);
    assert_eq!(timellm[0]["covers"].as_array().unwrap().len(), 5);
    let haar: Vec<&Value> = configs.iter().filter(|c| c["wavelet"] == "haar").collect();
    assert!(haar
        .iter()
        .all(|c| c["aliases"] == serde_json::json!(["db1"])));
    assert!(
        swept["units"]["left_out"].as_u64().unwrap() > 0,
        "the flat stretch is left out"
    );
    // Ranked best first by the val score.
    let scores: Vec<f64> = configs
        .iter()
        .map(|c| c["val"]["score_bits"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert_eq!(swept["split"]["val"], serde_json::json!([450, 720]));
    assert!(swept["parts"]["val"]["intervals_withheld"].is_null());
    check_against_reference(
        &data,
        &swept,
        &[
            "--seq-len",
            "64",
            "--stride",
            "3",
            "--pred-len",
            "16",
            "--split",
            "0.5,0.3,0.2",
        ],
    );
}

/// Asked for (`--fit-subset-above`), the forecasters are fit on the units of one train
/// window in ceil(T/32) where the data set has more train units than given: every figure
/// as the reference computes it under the same rule (its classes exactly: the forecaster's
/// bits, its terciles and the complementary bits agree to 1e-9), and the report says so.
#[test]
fn a_subset_fit_equals_the_reference_under_the_same_rule() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let out = dir.path().join("sweep.json");
    let common = [
        "--seq-len",
        "64",
        "--pred-len",
        "16",
        "--fit-subset-above",
        "100",
    ];
    let mut args = common.to_vec();
    args.extend(["--wavelets", "sym3", "--levels", "2"]);
    let swept = sweep(&data, &out, &args);
    // 900 rows, T + P = 80: 551 train windows × 4 channels, the subset every 2nd window.
    assert_eq!(swept["forecaster_fit"]["every"], 2);
    let fitted = swept["forecaster_fit"]["units"].as_u64().unwrap();
    let train = swept["units"]["train"].as_u64().unwrap();
    assert!(
        fitted * 2 >= train - 4 && fitted * 2 <= train + 4,
        "{fitted} of {train}"
    );
    assert_eq!(swept["protocol"]["fit_subset_above"], 100);
    let md = dir.path().join("sweep.md");
    sweep_raw(&data, &md, &args);
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains(&format!(
            "were fit on the units of one train window in 2 ({fitted} of {train} train units)"
        )),
        "{text}"
    );
    check_against_reference_with(&data, &swept, &common[..4], &common[4..]);
    // Without the option every train unit is fit, and the classes differ.
    let exact = sweep(
        &data,
        &out,
        &args[..4]
            .iter()
            .chain(&args[6..])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert_eq!(exact["forecaster_fit"]["every"], 1);
    assert_eq!(exact["forecaster_fit"]["units"], exact["units"]["train"]);
    assert_ne!(exact["forecast_terciles"], swept["forecast_terciles"]);
}

/// A claim a researcher defines (`--claim level:direction=…`, reading the new `last` and
/// `mean`) against the reference's own computation of it: its bits, null, complementary
/// bits and categories, and every row's score with it designated (the baseline without).
#[test]
fn a_defined_claim_equals_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let out = dir.path().join("sweep.json");
    let common = ["--seq-len", "64", "--stride", "3", "--pred-len", "16"];
    let mut args = common.to_vec();
    args.extend([
        "--wavelets",
        "haar,sym3",
        "--levels",
        "2",
        "--template",
        "dwt-balanced,timellm",
        "--claim",
        r#"level:direction={{ "above" if last > mean else "below" }} its window mean"#,
    ]);
    let swept = sweep(&data, &out, &args);
    assert_eq!(
        swept["defined_claims"],
        serde_json::json!([{"name": "level", "outcome": "direction",
            "template": r#"{{ "above" if last > mean else "below" }} its window mean"#}])
    );
    for c in swept["configs"].as_array().unwrap() {
        let cats = c["val"]["categories"]["level"].as_object().unwrap();
        assert_eq!(cats.len(), 2, "{cats:?}");
        assert!(c["val"]["scored"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("level")));
    }
    check_against_reference_with(&data, &swept, &common, &["--level-claim"]);
}

/// A defined claim that says what Time-LLM's trend word says carries exactly its bits, and
/// designating it adds exactly its excess to every row's score; CSV and Markdown show it.
#[test]
fn a_defined_claim_that_repeats_the_trend_word_scores_as_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let common = [
        "--seq-len",
        "64",
        "--stride",
        "3",
        "--pred-len",
        "16",
        "--wavelets",
        "haar,db2",
        "--levels",
        "1..2",
    ];
    let plain = sweep(&data, &dir.path().join("plain.json"), &common);
    // Once from a configuration file's [claims], once from --claim.
    let config = dir.path().join("claims.toml");
    std::fs::write(
        &config,
        "[claims]\n\"mytrend:direction\" = '{{ \"upward\" if trend > 0 else \"downward\" }}'\n",
    )
    .unwrap();
    let mut from_file = common.to_vec();
    from_file.extend(["--config", config.to_str().unwrap()]);
    let with = sweep(&data, &dir.path().join("with.json"), &from_file);
    let mut args = common.to_vec();
    let claim = r#"mytrend:direction={{ "upward" if trend > 0 else "downward" }}"#;
    args.extend(["--claim", claim]);
    let mut both = from_file.clone();
    both.extend(["--claim", claim]);
    assert_input_error(
        &wavebench(&[&["sweep", data.to_str().unwrap(), "-q"][..], &both[..]].concat()),
        &["--claim", "'mytrend' is defined twice"],
    );
    let (a, b) = (
        plain["configs"].as_array().unwrap(),
        with["configs"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    assert_eq!(
        plain["baseline"], with["baseline"],
        "the baseline is Time-LLM's own"
    );
    for c in b {
        let p = a
            .iter()
            .find(|p| p["wavelet"] == c["wavelet"] && p["level"] == c["level"])
            .unwrap();
        for part in ["val", "test"] {
            let e = &c[part];
            assert_eq!(e["claims"]["mytrend"], e["claims"]["trend"], "{part}");
            assert_eq!(e["complementary"]["mytrend"], e["complementary"]["trend"]);
            assert_eq!(e["categories"]["mytrend"], e["categories"]["trend"]);
            let added = e["claims"]["trend"]["direction"]["excess_bits"]
                .as_f64()
                .unwrap();
            let before = p[part]["score_bits"].as_f64().unwrap();
            let after = e["score_bits"].as_f64().unwrap();
            assert!(
                (after - before - added).abs() < 1e-12,
                "{part}: {before} + {added} != {after}"
            );
        }
    }
    let csv_out = dir.path().join("with.csv");
    sweep_raw(&data, &csv_out, &args);
    let text = std::fs::read_to_string(&csv_out).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "val_mytrend_direction_excess_bits")
        .expect("a column per defined claim and outcome");
    let first = b[0]["val"]["claims"]["mytrend"]["direction"]["excess_bits"]
        .as_f64()
        .unwrap();
    let cell: f64 = text
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth(col)
        .unwrap()
        .parse()
        .unwrap();
    assert!((cell - first).abs() < 1e-12, "{cell} {first}");
    let md_out = dir.path().join("with.md");
    sweep_raw(&data, &md_out, &args);
    let md = std::fs::read_to_string(&md_out).unwrap();
    let section = md
        .split("## Claims you defined")
        .nth(1)
        .expect("a section on the claims you defined");
    let excess = format!("{first:+.4}");
    assert!(
        section.contains("| mytrend ◆ | val | direction |") && section.contains(&excess),
        "{section}"
    );
}

#[test]
fn sweep_equals_the_reference_on_etth1_with_ett_months() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let args = ["--seq-len", "512", "--stride", "24", "--split", "ett-hour"];
    let mut all = args.to_vec();
    all.extend(["--wavelets", "db4,coif1", "--levels", "2,3"]);
    let swept = sweep(&etth1(), &out, &all);
    assert_eq!(swept["split"]["test"], serde_json::json!([11520, 14400]));
    assert_eq!(swept["configs"].as_array().unwrap().len(), 4);
    check_against_reference(&etth1(), &swept, &args);
}

#[test]
fn csv_and_markdown_carry_the_same_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    // A val part of two bootstrap blocks and more, so that it has intervals and ties.
    let args = [
        "--seq-len",
        "64",
        "--stride",
        "5",
        "--pred-len",
        "16",
        "--wavelets",
        "db2,sym3",
        "--levels",
        "1..2",
        "--split",
        "0.5,0.3,0.2",
    ];
    let json = sweep(&data, &dir.path().join("s.json"), &args);
    assert!(json["parts"]["val"]["intervals_withheld"].is_null());
    let csv_path = dir.path().join("s.csv");
    sweep_raw(&data, &csv_path, &args);
    let mut r = csv::Reader::from_path(&csv_path).unwrap();
    let header = r.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let configs = json["configs"].as_array().unwrap();
    assert_eq!(rows.len(), configs.len());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (row, c) in rows.iter().zip(configs) {
        assert_eq!(row[col("wavelet")], *c["wavelet"].as_str().unwrap());
        assert_eq!(row[col("level")], c["level"].to_string());
        let score: f64 = row[col("val_score_bits")].parse().unwrap();
        assert_eq!(score, c["val"]["score_bits"].as_f64().unwrap());
        assert_eq!(row[col("test_rank")], c["test_rank"].to_string());
        assert_eq!(row[col("tied")], c["tied"].to_string());
        let lo: f64 = row[col("val_score_lo")].parse().unwrap();
        assert_eq!(lo, c["val"]["interval"][0].as_f64().unwrap());
    }
    let md_path = dir.path().join("s.md");
    sweep_raw(&data, &md_path, &args);
    let md = std::fs::read_to_string(&md_path).unwrap();
    // It says how to act on a row: the file that makes its prompts.
    assert!(
        md.contains("wavebench sweep pick SWEEP.json --pick N --write-config row.toml")
            && md.contains("--config row.toml -o prompts.jsonl"),
        "{md}"
    );
    let first = configs[0].clone();
    let f = |part: &str, k: &str| first[part][k].as_f64().unwrap();
    let ci = |part: &str| {
        format!(
            "{:.4} [{:.4}, {:.4}]",
            f(part, "score_bits"),
            first[part]["interval"][0].as_f64().unwrap(),
            first[part]["interval"][1].as_f64().unwrap()
        )
    };
    let line = format!(
        "| 1 | {} level {} | dwt-balanced | {} | = | ",
        first["wavelet"].as_str().unwrap(),
        first["level"],
        ci("val"),
    );
    let row = md
        .lines()
        .find(|l| l.starts_with(&line))
        .unwrap_or_else(|| panic!("{line} not in:\n{md}"));
    let gain = format!(
        "{:.4} [{:.4}, {:.4}]",
        first["gain"].as_f64().unwrap(),
        first["gain_interval"][0].as_f64().unwrap(),
        first["gain_interval"][1].as_f64().unwrap()
    );
    assert!(
        row.contains(&format!("| {gain} |"))
            && row.contains(&format!("| {} | {} |", ci("test"), first["test_rank"])),
        "{row}"
    );
}

fn sweep_raw(data: &Path, out: &Path, args: &[&str]) {
    let mut all = vec![
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let o = wavebench(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn ranking_by_one_claim_and_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let swept = sweep(
        &data,
        &dir.path().join("s.json"),
        &[
            "--seq-len",
            "64",
            "--stride",
            "5",
            "--pred-len",
            "16",
            "--wavelets",
            "db2,sym3,coif1",
            "--levels",
            "1..2",
            "--by",
            "freq_pattern:vol_ratio",
        ],
    );
    assert_eq!(swept["ranked_by"], "freq_pattern:vol_ratio");
    let bits: Vec<f64> = swept["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c["val"]["claims"]["freq_pattern"]["vol_ratio"]["excess_bits"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(bits.len(), 6);
    assert!(bits.windows(2).all(|w| w[0] >= w[1]), "{bits:?}");
}

#[test]
fn bad_requests_get_one_clear_line() {
    let e = etth1();
    let data = e.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["sweep", data, "-q"];
        all.extend_from_slice(args);
        wavebench(&all)
    };
    assert_input_error(
        &run(&["--seq-len", "512", "--split", "0.7,0.2,0.2"]),
        &["--split", "sum to 1.1"],
    );
    // The val part (1,742 rows) cannot hold a horizon of 2,000 rows.
    assert_input_error(
        &run(&["--seq-len", "512", "--pred-len", "2000"]),
        &[
            "ETTh1.csv: --pred-len 2000: the val part holds 1742 rows",
            // The longest horizon that leaves val three units to shift.
            "give --pred-len 1740 or less",
        ],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--pred-len", "1"]),
        &["--pred-len 1", "at least 2"],
    );
    assert_input_error(&run(&[]), &["--seq-len", "512"]);
    assert_input_error(
        &run(&["--seq-len", "512", "--wavelet", "db4"]),
        &["--wavelets"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--wavelets", "db44"]),
        &["did you mean"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--by", "snr"]),
        &["--by", "snr_db"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--levels", "0..3"]),
        &["'0' is not a level"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--split", "ett-minute"]),
        &["needs 57600 rows"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--null-draws", "0"]),
        &["--null-draws 0", "at least 1 draw"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--bootstrap", "0"]),
        &["--bootstrap 0", "at least 1 replicate"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--claim", "level"]),
        &["--claim", "write NAME=TEMPLATE"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--claim", "x={{ last >"]),
        &["--claim", "claim 'x'", "line 1"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--claim", "x:up={{ last }}"]),
        &["--claim", "claim 'x'", "direction"],
    );
    assert_input_error(
        &run(&["--seq-len", "512", "--claim", "x={{ lastt }}"]),
        &["unknown variable 'lastt'", "did you mean"],
    );
    // Renders empty where the last value is not above the mean: named with its place.
    assert_input_error(
        &run(&[
            "--seq-len",
            "512",
            "--wavelets",
            "db4",
            "--levels",
            "3",
            "--claim",
            "x={% if last > mean %}above{% endif %}",
        ]),
        &["ETTh1.csv, channel", "claim 'x' renders empty", "window"],
    );
    // At stride 1000 the val part (1,742 rows) holds at most 2 windows a channel: no
    // circular shift can move a claim away from its own outcome.
    assert_input_error(
        &run(&["--seq-len", "512", "--stride", "1000", "--wavelets", "db4"]),
        &["val part's longest channel sequence holds", "at least 3"],
    );
}

/// The Data set pane keeps the scored units and their statistics between knob changes:
/// a survey that borrows them equals one computed from nothing, for another wavelet,
/// another level and another timeline channel.
#[test]
fn a_survey_with_kept_statistics_equals_a_fresh_one() {
    use std::sync::Arc;
    use wavebench::sweep::{survey::Survey, Request, ScoredUnits};
    use wavebench_core::config::Config;
    use wavebench_core::prompt::Prompter;
    use wavebench_core::run_spec::{Purpose, RunSpec};
    let data = common::etth1();
    let base = Config {
        seq_len: Some(96),
        rows: Some("0..3000".parse().unwrap()),
        stride: 2,
        ..Config::default()
    };
    let table = RunSpec::new(base.clone(), Purpose::Features, &wavebench::backend::LOCAL)
        .unwrap()
        .load(&data)
        .unwrap();
    let with_template = |wavelet: &str, level: usize, template: &str| Request {
        base: Config {
            transform: Transform::new(wavelet, level, base.transform.mode).unwrap(),
            ..base.clone()
        },
        grid: Default::default(),
        templates: vec![(
            template.into(),
            Arc::new(Prompter::new(wavebench_core::prompt::builtin(template).unwrap()).unwrap()),
        )],
        split: Default::default(),
        protocol: Default::default(),
    };
    let request = |wavelet: &str, level: usize| with_template(wavelet, level, "dwt-balanced");
    let name = "ETTh1";
    let tables = [(name, &table)];
    let scorer = || wavebench::sweep::scorer(&tables, &request("db4", 3)).unwrap();
    let mut kept = ScoredUnits::new(scorer());
    // The progress the Data set pane draws: nothing counted before, every scored unit
    // (val and test, all channels) after.
    let progress = wavebench::sweep::Progress::default();
    assert_eq!(progress.fraction(), None);
    let first = Survey::of(
        name,
        &table,
        &request("db4", 3),
        &mut kept,
        0,
        Some(&progress),
    );
    let scored = first.unwrap().sweep.units;
    assert!(scored.val + scored.test > 0);
    assert_eq!(progress.fraction(), Some(1.0));
    // What the first survey lent (statistics, the prompts' pieces, the statistics'
    // claims) gives what a survey computes afresh, under another template too.
    for (wavelet, level, channel, template) in [
        ("sym4", 3, 0, "dwt-balanced"),
        ("haar", 2, 0, "dwt-balanced"),
        ("db4", 3, 6, "dwt-minimal"),
        ("coif1", 2, 6, "timellm"),
    ] {
        let r = with_template(wavelet, level, template);
        let borrowed = Survey::of(name, &table, &r, &mut kept, channel, None).unwrap();
        let fresh = Survey::of(
            name,
            &table,
            &r,
            &mut ScoredUnits::new(scorer()),
            channel,
            None,
        )
        .unwrap();
        assert_eq!(
            borrowed, fresh,
            "{wavelet} level {level}, channel {channel}, {template}"
        );
    }
}

/// Time-LLM's ILI set-up (36-row windows, a 24-row horizon): the grid keeps the levels
/// each wavelet allows and says what it left out, instead of refusing the defaults it
/// does not run (db4 level 3 needs 42 rows).
#[test]
fn short_windows_sweep_what_they_allow() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let out = dir.path().join("ili.json");
    let s = sweep(
        &data,
        &out,
        &[
            "--seq-len",
            "36",
            "--pred-len",
            "24",
            "--stride",
            "6",
            "--wavelets",
            "haar,db4,db10",
            "--levels",
            "1,2",
        ],
    );
    let configs = s["configs"].as_array().unwrap();
    let got: Vec<(String, u64)> = configs
        .iter()
        .map(|c| {
            (
                c["wavelet"].as_str().unwrap().to_string(),
                c["level"].as_u64().unwrap(),
            )
        })
        .collect();
    // haar allows levels 1 and 2 in 36 rows, db4 (8 taps) level 2 (36/7 = 5.1), db10 (20
    // taps) none (36/19 < 2).
    for want in [("haar", 1), ("haar", 2), ("db4", 1), ("db4", 2)] {
        assert!(
            got.contains(&(want.0.to_string(), want.1)),
            "{want:?} not in {got:?}"
        );
    }
    assert_eq!(got.len(), 4, "{got:?}");
    let warnings = warnings_of(&s);
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("db10 left out: windows of 36 rows allow it no level")),
        "{warnings:?}"
    );
    // A horizon longer than the val part names the part's rows and what fits.
    let o = wavebench(&[
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "--seq-len",
        "36",
        "--pred-len",
        "120",
        "--wavelets",
        "haar",
    ]);
    common::assert_input_error_after_warnings(
        &o,
        &[
            "made.csv: --pred-len 120: the val part holds 90 rows",
            "give --pred-len 88 or less",
        ],
    );
    // The sweep's help lists only what it takes.
    let help = String::from_utf8(wavebench(&["sweep", "--help"]).stdout).unwrap();
    for refused in ["--wavelet ", "--level ", "--mode ", "--engine", "--dtype"] {
        assert!(!help.contains(refused), "{refused} in sweep --help");
    }
    assert!(help.contains("--wavelets") && help.contains("--seq-len"));
    // Its window length has no whole-series default: the help says it is required.
    assert!(
        help.contains("required: a sweep scores windows of one length")
            && !help.contains("the whole series"),
        "{help}"
    );
}

/// `--write-config` writes the picked row's run: `prompts --config` with it gives the
/// prompts of that wavelet, level and template in the sweep's precision, and as many
/// distinct val prompts as the sweep counted for the row.
#[test]
fn a_written_configuration_makes_the_rows_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let out = dir.path().join("s.json");
    let best = dir.path().join("best.toml");
    let s = sweep(
        &data,
        &out,
        &[
            "--seq-len",
            "48",
            "--stride",
            "4",
            "--pred-len",
            "12",
            "--wavelets",
            "db2,sym3",
            "--levels",
            "1,2",
            "--template",
            "dwt-balanced,dwt-minimal",
            "--write-config",
            best.to_str().unwrap(),
            "--pick",
            "2",
        ],
    );
    let row = s["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["rank"] == 2)
        .unwrap();
    let text = std::fs::read_to_string(&best).unwrap();
    for line in [
        format!("wavelet = \"{}\"", row["wavelet"].as_str().unwrap()),
        format!("level = {}", row["level"]),
        format!("template = \"{}\"", row["template"].as_str().unwrap()),
        "dtype = \"f64\"".to_string(),
        "seq_len = 48".into(),
        "stride = 4".into(),
        "pred_len = 12".into(),
    ] {
        assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
    }
    let prompts = |args: &[&str], name: &str| {
        let p = dir.path().join(name);
        let mut all = vec![
            "prompts",
            data.to_str().unwrap(),
            "-q",
            "-o",
            p.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let o = wavebench(&all);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(p).unwrap()
    };
    let from_file = prompts(&["--config", best.to_str().unwrap()], "a.jsonl");
    let level = row["level"].to_string();
    let by_hand = prompts(
        &[
            "--wavelet",
            row["wavelet"].as_str().unwrap(),
            "--level",
            &level,
            "--template",
            row["template"].as_str().unwrap(),
            "--dtype",
            "f64",
            "--seq-len",
            "48",
            "--stride",
            "4",
            "--pred-len",
            "12",
        ],
        "b.jsonl",
    );
    assert!(!from_file.is_empty());
    assert_eq!(from_file, by_hand);
    // The val units' distinct prompts, as the sweep counted them.
    let val = &s["split"]["val"];
    let (a, b) = (val[0].as_u64().unwrap(), val[1].as_u64().unwrap());
    let mut distinct = std::collections::HashSet::new();
    for line in from_file.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let start = v["start"].as_u64().unwrap();
        if start + 48 >= a && start + 48 + 12 <= b {
            distinct.insert(v["prompt"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(
        distinct.len() as u64,
        row["val"]["diversity"]["distinct"].as_u64().unwrap(),
        "{}",
        row["val"]
    );
    // A rank the grid cannot have is refused before the sweep, naming how many rows it
    // has.
    let mut args = vec!["sweep", data.to_str().unwrap(), "-q"];
    args.extend_from_slice(&ONE_CONFIGURATION);
    args.extend_from_slice(&[
        "-o",
        out.to_str().unwrap(),
        "--write-config",
        best.to_str().unwrap(),
        "--pick",
        "9",
    ]);
    let o = wavebench(&args);
    common::assert_input_error_after_warnings(&o, &["--pick 9", "the grid has 1 row to rank"]);
}

/// One configuration of the made file: windows of 48 rows every 4, a horizon of 12, db2
/// level 1.
const ONE_CONFIGURATION: [&str; 10] = [
    "--seq-len",
    "48",
    "--stride",
    "4",
    "--pred-len",
    "12",
    "--wavelets",
    "db2",
    "--levels",
    "1",
];

/// How many ranked rows gain over the baseline beyond the series (lower bound above 0).
fn beaten_beyond_count(ranked: &[usize], complementary_lo: &[f64]) -> usize {
    ranked
        .iter()
        .filter(|&&i| complementary_lo[i] > 0.0)
        .count()
}

/// Nothing lost at the sweep's edges: every output is checked against every input and
/// against the others before any work, huge values are refused in one line (not a panic
/// or an allocation abort), settings a shard cannot use are refused rather than dropped,
/// and a typo in an output's folder costs nothing.
#[test]
fn a_sweeps_outputs_and_bounds_are_checked_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let data = data.to_str().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let template = at("t.jinja");
    std::fs::write(&template, "{{ trend_desc }}, {{ signal_quality }}").unwrap();
    let description = at("desc.txt");
    std::fs::write(&description, "My data.").unwrap();
    let report = at("out.md");
    std::fs::write(&report, "an earlier report").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["sweep", data, "-q", "--seq-len", "48", "--pred-len", "12"];
        args.extend_from_slice(extra);
        wavebench(&args)
    };
    // --write-config onto what the run reads, or onto its own report.
    assert_input_error(
        &run(&["--template", &template, "--write-config", &template]),
        &["t.jinja", "would destroy the input", "--write-config"],
    );
    assert_input_error(
        &run(&[
            "--description",
            &format!("@{description}"),
            "--write-config",
            &description,
        ]),
        &["desc.txt", "would destroy the input"],
    );
    assert_input_error(
        &run(&["-o", &report, "--write-config", &report]),
        &["-o and --write-config name the same file"],
    );
    // A hard link is the same file by another name.
    let linked = at("linked.jinja");
    std::fs::hard_link(&template, &linked).unwrap();
    assert_input_error(
        &run(&["--template", &template, "-o", &linked]),
        &["linked.jinja", "is the input", "t.jinja"],
    );
    assert_eq!(
        std::fs::read_to_string(&template).unwrap(),
        "{{ trend_desc }}, {{ signal_quality }}"
    );
    assert_eq!(std::fs::read_to_string(&description).unwrap(), "My data.");
    assert_eq!(
        std::fs::read_to_string(&report).unwrap(),
        "an earlier report"
    );
    // Outputs whose folder is missing, or that name a folder, before any configuration.
    assert_input_error(
        &run(&["-o", &at("nodir/out.json")]),
        &["nodir", "does not exist", "-o"],
    );
    assert_input_error(
        &run(&["--write-config", &at("nodir/best.toml")]),
        &["nodir", "does not exist", "--write-config"],
    );
    assert_input_error(
        &run(&["--write-config", dir.path().to_str().unwrap()]),
        &["--write-config names a folder"],
    );
    // --pick: a rank the grid can have.
    let pick = |n: &str| {
        run(&[
            "--wavelets",
            "db2",
            "--levels",
            "1,2",
            "--write-config",
            &at("best.toml"),
            "--pick",
            n,
        ])
    };
    assert_eq!(pick("0").status.code(), Some(2));
    assert_input_error(&pick("3"), &["--pick 3", "2 rows"]);
    // Huge values: one line each, never a panic or an abort.
    for (args, needles) in [
        (
            vec!["--pred-len", "18446744073709551615"],
            vec!["--pred-len 18446744073709551615", "rows"],
        ),
        (
            vec!["--null-draws", "1000000000"],
            vec!["--null-draws", "9999"],
        ),
        (
            vec!["--bootstrap", "1000000000"],
            vec!["--bootstrap", "9999"],
        ),
        (
            vec!["--levels", "1..1000000000000"],
            vec!["--levels", "above 64"],
        ),
        (vec!["--levels", "65"], vec!["--levels", "above 64"]),
        (
            vec!["--shard", "1/1000000000000", "-o", "p.json"],
            vec!["--shard", "100000"],
        ),
    ] {
        let mut all = vec!["sweep", data, "-q", "--seq-len", "48", "--wavelets", "db2"];
        all.extend(args.iter().copied());
        // The made file's dates run past January: a warning may come first.
        common::assert_input_error_after_warnings(&wavebench(&all), &needles);
    }
    // A shard ranks nothing: the merge's settings are refused, not dropped; its part is
    // JSON whatever it is called, so another name is refused.
    let part = at("part.json");
    for (extra, needle) in [
        (vec!["--by", "snr_db"], "--by"),
        (vec!["--keep-degenerate"], "--keep-degenerate"),
        (vec!["--write-config", "x.toml"], "--write-config"),
    ] {
        let mut all = vec!["--shard", "1/2", "-o", &part];
        all.extend(extra.iter().copied());
        assert_input_error(&run(&all), &[needle, "give it to `sweep merge`"]);
    }
    assert_input_error(
        &run(&["--shard", "1/2", "-o", &at("part.md")]),
        &["part.md", "FILE.json"],
    );
    assert!(!Path::new(&part).exists());
}

/// Claims take what templates take (`range`, filters), and a category too long to read
/// is shown cut with its length in the Markdown report, whole in the JSON.
#[test]
fn claims_take_the_templates_functions_and_long_categories_are_cut_in_reports() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let claim = "long={% for i in range(150) %}ab{% endfor %}{{ 'up' if last > mean else 'down' }}";
    let args = [&ONE_CONFIGURATION[..], &["--claim", claim]].concat();
    let json = sweep(&data, &dir.path().join("s.json"), &args);
    let cats = &json["configs"][0]["val"]["categories"]["long"];
    let whole = format!("{}up", "ab".repeat(150));
    assert!(
        cats.get(&whole).is_some(),
        "the JSON keeps it whole: {cats}"
    );
    let md = dir.path().join("s.md");
    let mut all = vec![
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "-o",
        md.to_str().unwrap(),
    ];
    all.extend_from_slice(&args);
    let o = wavebench(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(&md).unwrap();
    let shown = format!("\"{}… (302 characters)\"", &whole[..200]);
    assert!(md.contains(&shown), "cut with its length: {md}");
    assert!(!md.contains(&whole), "never whole in the Markdown");
}

/// A sweep whose estimate, the bootstrap's replicates included (every configuration keeps
/// its claims' replicates), is more than the machine's memory is refused before any work,
/// with the way around it named.
#[test]
fn a_sweep_beyond_the_memory_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("long.csv");
    let rows: String = (0..150_000)
        .map(|i| format!("{}\n", (i % 97) as f64 / 7.0))
        .collect();
    std::fs::write(&csv, format!("x\n{rows}")).unwrap();
    // Every filter bank at every level a window of 100,000 rows allows, in all nine modes:
    // about ten thousand configurations of 9,999 replicates each.
    let o = wavebench(&[
        "sweep",
        csv.to_str().unwrap(),
        "--seq-len",
        "100000",
        "--modes",
        "zero,constant,symmetric,periodic,smooth,periodization,reflect,antisymmetric,antireflect",
        "--bootstrap",
        "9999",
        "-q",
    ]);
    assert_input_error(&o, &["may need about", "GB", "--bootstrap", "--force"]);
}

/// A val part none of whose sequences holds two bootstrap blocks gives no interval, no
/// tie and no gain verdict, and its warning names a split that gives it two blocks: that
/// split runs, and then its intervals are there.
#[test]
fn a_part_shorter_than_two_blocks_reports_no_interval_and_names_a_fix_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    // Val (90 rows) holds 25 units a channel; two blocks of T + P are 54.
    let args = [
        "--seq-len",
        "64",
        "--stride",
        "3",
        "--pred-len",
        "16",
        "--wavelets",
        "db2,sym3",
        "--levels",
        "1..2",
    ];
    let s = sweep(&data, &dir.path().join("short.json"), &args);
    let why = s["parts"]["val"]["intervals_withheld"].as_str().unwrap();
    assert!(why.contains("2 bootstrap blocks"), "{why}");
    for c in s["configs"].as_array().unwrap() {
        for f in [
            "tied",
            "behind_best",
            "gain_interval",
            "complementary_gain_interval",
            "forecast_gain_over_baseline_interval",
        ] {
            assert!(c[f].is_null(), "{f}: {}", c[f]);
        }
        assert!(c["val"]["interval"].is_null());
        assert!(c["val"]["complementary_interval"].is_null());
        // The forecast gain is measured; its interval is withheld like the others.
        assert!(c["val"]["forecast"]["gain"].is_f64());
        assert!(c["val"]["forecast"]["interval"].is_null());
    }
    assert!(s["baseline"]["val"]["interval"].is_null());
    assert!(s["baseline"]["val"]["forecast"]["interval"].is_null());
    let warnings = warnings_of(&s);
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("has an interval above 0")),
        "no verdict from withheld intervals: {warnings:?}"
    );
    let warning = warnings
        .iter()
        .find(|w| w.starts_with("val: no channel sequence holds 2 bootstrap blocks"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    let split = warning
        .split("give --split ")
        .nth(1)
        .unwrap_or_else(|| panic!("a split to give: {warning}"));
    let fixed = [&args[..], &["--split", split]].concat();
    let s = sweep(&data, &dir.path().join("fixed.json"), &fixed);
    assert!(
        s["parts"]["val"]["intervals_withheld"].is_null(),
        "--split {split}: {}",
        s["parts"]["val"]
    );
    let first = &s["configs"][0];
    assert_eq!(first["tied"], true);
    assert!(first["val"]["interval"].is_array());
}

/// Ranked by the complementary score, every figure follows it: the gap to the best and
/// the ties come from the complementary replicates (the reference's), the test ranks
/// and Spearman's ρ from the complementary test scores, and `--pick` writes its rows.
#[test]
fn ranked_by_the_complementary_score_everything_follows_it() {
    ranking_follows(
        "complementary",
        |part| part["complementary_bits"].as_f64().unwrap(),
        |r| r["val"]["boot_complementary"].clone(),
    );
}

/// Ranked by the forecast gain (`--by forecast`): the order, ties, gaps, test ranks, ρ and
/// the written configuration follow the forecast gains and their replicates.
#[test]
fn ranked_by_the_forecast_gain_everything_follows_it() {
    ranking_follows(
        "forecast",
        |part| part["forecast"]["gain"].as_f64().unwrap(),
        |r| r["val"]["forecast"]["boot"].clone(),
    );
}

/// Ranked `by`, whose value in a row's part `value` reads and whose val replicates in a
/// reference's output `boot` reads: every figure follows that quantity.
fn ranking_follows(by: &str, value_of: fn(&Value) -> f64, boot: fn(&Value) -> Value) {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let common = [
        "--seq-len",
        "64",
        "--stride",
        "3",
        "--pred-len",
        "16",
        "--split",
        "0.5,0.3,0.2",
    ];
    let best_toml = dir.path().join("best.toml");
    let mut args = common.to_vec();
    args.extend([
        "--wavelets",
        "haar,db2,sym3",
        "--levels",
        "1..2",
        "--by",
        by,
        "--write-config",
        best_toml.to_str().unwrap(),
    ]);
    let s = sweep(&data, &dir.path().join("c.json"), &args);
    assert_eq!(s["ranked_by"], by);
    let configs = s["configs"].as_array().unwrap();
    let value = |i: usize, part: &str| value_of(&configs[i][part]);
    let ranked: Vec<usize> = (0..configs.len())
        .filter(|&i| configs[i]["rank"].is_u64())
        .collect();
    assert!(ranked.len() >= 4);
    assert!(ranked
        .windows(2)
        .all(|w| value(w[0], "val") >= value(w[1], "val")));
    // The reference's replicates, row by row.
    let boots: Vec<Vec<f64>> = ranked
        .iter()
        .map(|&i| {
            let c = &configs[i];
            let level = c["level"].to_string();
            let mut a = common.to_vec();
            a.extend([
                "--wavelet",
                c["wavelet"].as_str().unwrap(),
                "--level",
                &level,
                "--template",
                c["template"].as_str().unwrap(),
            ]);
            let r = reference(&data, &a);
            close(
                &value_of(&c["val"]).into(),
                &value_of(&r["val"]).into(),
                "val",
            );
            boot(&r)
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        })
        .collect();
    for (k, &i) in ranked.iter().enumerate().skip(1) {
        let d: Vec<f64> = boots[0].iter().zip(&boots[k]).map(|(a, b)| a - b).collect();
        same_interval(&configs[i]["behind_best"], &d, false, "behind the best");
        let (lo, hi) = (quantile(&d, 0.025), quantile(&d, 0.975));
        if !configs[i]["tied"].is_null() {
            assert_eq!(configs[i]["tied"], lo <= 0.0 && 0.0 <= hi, "row {i} tied");
        }
    }
    assert_eq!(configs[ranked[0]]["tied"], true);
    // Test ranks of the test values (competition: equal values share).
    for &i in &ranked {
        let above = ranked
            .iter()
            .filter(|&&j| value(j, "test") > value(i, "test") + 1e-12)
            .count();
        assert_eq!(
            configs[i]["test_rank"].as_u64().unwrap() as usize,
            above + 1
        );
    }
    let val: Vec<f64> = ranked.iter().map(|&i| value(i, "val")).collect();
    let test: Vec<f64> = ranked.iter().map(|&i| value(i, "test")).collect();
    close(
        &s["spearman_val_test"],
        &serde_json::json!(spearman(&val, &test)),
        "ρ",
    );
    // --write-config writes the best by what is ranked.
    let toml = std::fs::read_to_string(&best_toml).unwrap();
    let top = &configs[ranked[0]];
    let wavelet = format!("wavelet = \"{}\"", top["wavelet"].as_str().unwrap());
    assert!(toml.lines().any(|l| l == wavelet), "{toml}");
    assert!(toml.starts_with("# wavebench sweep") && toml.contains(&format!("by {by}")));
}

/// A value given twice runs once, and one note says so.
#[test]
fn repeated_values_run_once_with_one_note() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let out = dir.path().join("r.json");
    let o = wavebench(&[
        "sweep",
        data.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
        "--seq-len",
        "48",
        "--stride",
        "4",
        "--pred-len",
        "12",
        "--wavelets",
        "db2,DB2",
        "--levels",
        "1,1",
        "--modes",
        "reflect,reflect",
        "--template",
        "dwt-balanced,dwt-balanced",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    for said in [
        "db2 given 2 times in --wavelets",
        "1 given 2 times in --levels",
        "reflect given 2 times in --modes",
        "dwt-balanced given 2 times in --template",
    ] {
        assert!(notes[0].contains(said), "{said}: {}", notes[0]);
    }
    let s: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(s["configs"].as_array().unwrap().len(), 1);
}

/// Every refusal that suggests a value (`--pred-len`, `--seq-len`, `--stride`) found it
/// with the same count that refused: the run with the suggestion starts and finishes.
#[test]
fn every_suggested_value_runs() {
    let dir = tempfile::tempdir().unwrap();
    // Time-LLM's ILI shape: 966 weekly rows.
    let mut csv = String::from("date,ILITOTAL,OT\n");
    let walk = common::lcg_series(3, 966);
    for (i, w) in walk.iter().enumerate() {
        let t = i as f64;
        csv.push_str(&format!(
            "{},{},{}\n",
            i,
            1000.0 + 300.0 * (t / 8.0).sin() + 20.0 * w,
            1.5 + (t / 13.0).cos() + 0.1 * w
        ));
    }
    let data = dir.path().join("national_illness.csv");
    std::fs::write(&data, csv).unwrap();
    let data = data.to_str().unwrap();
    let out = dir.path().join("s.json");
    let run = |args: &[&str]| {
        let mut all = vec![
            "sweep",
            data,
            "-q",
            "-o",
            out.to_str().unwrap(),
            "--wavelets",
            "haar",
            "--levels",
            "1",
        ];
        all.extend_from_slice(args);
        wavebench(&all)
    };
    for (given, option, expected) in [
        // Val holds 97 rows: a 97-row horizon fits once, and a shift needs 3 units.
        (
            vec!["--seq-len", "36", "--pred-len", "200"],
            "--pred-len",
            "95",
        ),
        (
            vec!["--seq-len", "36", "--pred-len", "97"],
            "--pred-len",
            "95",
        ),
        // Train holds 676 rows: no window of 700 fits in it with a horizon after it.
        (
            vec!["--seq-len", "700", "--pred-len", "24"],
            "--seq-len",
            "652",
        ),
        // At a stride of 60, val's 97 rows hold one unit a channel.
        (
            vec!["--seq-len", "36", "--pred-len", "24", "--stride", "60"],
            "--stride",
            "32",
        ),
    ] {
        let o = run(&given);
        assert_eq!(o.status.code(), Some(2), "{given:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        let advice = format!("give {option} {expected} or less");
        assert!(err.contains(&advice), "{given:?}: '{advice}' not in {err}");
        let mut fixed = given.clone();
        let at = fixed.iter().position(|a| *a == option).unwrap();
        fixed[at + 1] = expected;
        let o = run(&fixed);
        assert!(
            o.status.success(),
            "{fixed:?} (the suggestion) fails: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `sweep pick` writes a row's configuration from a saved JSON report (or a sweep's parts)
/// byte for byte as the sweep's own `--write-config --pick N` does, under any `--by`,
/// without computing anything; bad input gets one clear line.
#[test]
fn a_saved_report_picks_the_rows_configuration_without_a_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let at = |name: &str| dir.path().join(name);
    let grid = [
        "--seq-len",
        "48",
        "--stride",
        "4",
        "--pred-len",
        "12",
        "--wavelets",
        "db2,sym3",
        "--levels",
        "1,2",
        "--template",
        "dwt-balanced,timellm",
    ];
    let report = at("s.json");
    for (by, n) in [("score", "2"), ("complementary", "3"), ("snr_db", "1")] {
        let direct = at(&format!("direct-{by}.toml"));
        let mut args = grid.to_vec();
        args.extend([
            "--by",
            by,
            "--pick",
            n,
            "--write-config",
            direct.to_str().unwrap(),
        ]);
        sweep(&data, &report, &args);
        let picked = at(&format!("picked-{by}.toml"));
        let o = wavebench(&[
            "sweep",
            "pick",
            report.to_str().unwrap(),
            "--by",
            by,
            "--pick",
            n,
            "--write-config",
            picked.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (a, b) = (
            std::fs::read(&direct).unwrap(),
            std::fs::read(&picked).unwrap(),
        );
        assert_eq!(a.len(), b.len(), "--by {by}: lengths");
        assert!(
            a == b,
            "--by {by} --pick {n}: sweep pick differs from --write-config"
        );
    }
    // From a sharded sweep's parts too.
    let parts: Vec<String> = (1..=2)
        .map(|i| {
            let p = at(&format!("part{i}.json"));
            let shard = format!("{i}/2");
            let mut args = grid.to_vec();
            args.extend(["--shard", &shard]);
            let mut all = vec![
                "sweep",
                data.to_str().unwrap(),
                "-q",
                "-o",
                p.to_str().unwrap(),
            ];
            all.extend_from_slice(&args);
            let o = wavebench(&all);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            p.to_str().unwrap().to_string()
        })
        .collect();
    let from_parts = at("from-parts.toml");
    let mut args = vec!["sweep", "pick"];
    args.extend(parts.iter().map(String::as_str));
    args.extend([
        "--by",
        "snr_db",
        "--write-config",
        from_parts.to_str().unwrap(),
    ]);
    let o = wavebench(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read(&from_parts).unwrap() == std::fs::read(at("direct-snr_db.toml")).unwrap()
    );
    // Bad input: a rank it does not have, a file that is not a sweep's, no output.
    let pick = |args: &[&str]| {
        let mut all = vec!["sweep", "pick"];
        all.extend_from_slice(args);
        wavebench(&all)
    };
    let out = at("x.toml");
    let out = out.to_str().unwrap();
    assert_input_error(
        &pick(&[
            report.to_str().unwrap(),
            "--pick",
            "99",
            "--write-config",
            out,
        ]),
        &["--pick 99", "ranked"],
    );
    assert_input_error(
        &pick(&[data.to_str().unwrap(), "--write-config", out]),
        &["made.csv", "not a sweep's JSON report"],
    );
    let md = at("s.md");
    std::fs::write(&md, "# Sweep").unwrap();
    assert_input_error(
        &pick(&[md.to_str().unwrap(), "--write-config", out]),
        &["s.md", "not a sweep's JSON report"],
    );
    assert_input_error(&pick(&[report.to_str().unwrap()]), &["--write-config"]);
    assert!(!Path::new(out).exists());
}

/// A claim with as many categories as half its val units (its window's last value, say)
/// is said to carry nothing, whatever its bits.
#[test]
fn a_claim_as_varied_as_its_units_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let data = made_file(dir.path());
    let mut args = ONE_CONFIGURATION.to_vec();
    args.extend([
        "--claim",
        "last={{ last }}",
        "--claim",
        "side={{ 'up' if last > mean else 'down' }}",
    ]);
    let s = sweep(&data, &dir.path().join("v.json"), &args);
    let warnings = warnings_of(&s);
    let said: Vec<&&str> = warnings
        .iter()
        .filter(|w| w.contains("cannot carry information"))
        .collect();
    assert_eq!(said.len(), 1, "{warnings:?}");
    assert!(said[0].starts_with("claim 'last' has"), "{}", said[0]);
}

/// Segments of a window of 64 rows and a horizon of 16, one unit each (stride 80): the
/// window a slow wave of random phase under noise of one of two levels, the horizon its
/// last value moved by ±3 of the window's mean steps, and a little noise. `informed`: the
/// move's sign is the window's noise level's (noisy up, quiet down), which its SNR reads
/// and no linear reader of the window can; else a coin independent of it (the placebo).
fn noise_level_file(dir: &Path, informed: bool) -> std::path::PathBuf {
    let (t, p, segments) = (64, 16, 1000);
    let noise = common::lcg_series(11, segments * (t + p));
    let coins = common::lcg_series(23, 3 * segments);
    let mut csv = String::from("x\n");
    for k in 0..segments {
        let noisy = coins[3 * k] > 0.0;
        let up = if informed {
            noisy
        } else {
            coins[3 * k + 1] > 0.0
        };
        let (sd, phase) = (if noisy { 0.8 } else { 0.02 }, coins[3 * k + 2]);
        let e = &noise[k * (t + p)..(k + 1) * (t + p)];
        let x: Vec<f64> = (0..t)
            .map(|i| (i as f64 / 10.0 + phase).sin() + sd * e[i] / 4.0)
            .collect();
        let step = x.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / (t - 1) as f64;
        let jump = if up { 3.0 } else { -3.0 } * step;
        let h = (0..p).map(|i| x[t - 1] + jump + 0.1 * step * e[t + i] / 4.0);
        for v in x.iter().copied().chain(h) {
            csv.push_str(&format!("{v}\n"));
        }
    }
    let path = dir.join(if informed {
        "informed.csv"
    } else {
        "placebo.csv"
    });
    std::fs::write(&path, csv).unwrap();
    path
}

/// The forecast gain measures what a claim adds to a forecaster that reads the series:
/// where the horizon's level follows the window's noise level, the SNR's word lowers the
/// series-only forecaster's MSE (interval above 0, on val and test); where it follows a
/// coin, it does not (the interval holds 0).
#[test]
fn a_claim_that_reads_what_the_series_cannot_lowers_the_forecasters_error() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--seq-len",
        "64",
        "--pred-len",
        "16",
        "--stride",
        "80",
        "--split",
        "0.6,0.2,0.2",
        "--wavelets",
        "db2",
        "--levels",
        "2",
        "--template",
        "dwt-balanced",
    ];
    let gain = |s: &Value, part: &str| -> (f64, [f64; 2]) {
        let f = &s["configs"][0][part]["forecast"];
        let i = &f["interval"];
        (
            f["gain"].as_f64().unwrap(),
            [i[0].as_f64().unwrap(), i[1].as_f64().unwrap()],
        )
    };
    let informed = noise_level_file(dir.path(), true);
    let s = sweep(&informed, &dir.path().join("informed.json"), &args);
    let cats = s["configs"][0]["val"]["categories"]["signal_quality"]
        .as_object()
        .unwrap();
    assert!(
        cats.len() >= 2,
        "the SNR's word tells the noise apart: {cats:?}"
    );
    for part in ["val", "test"] {
        let (g, i) = gain(&s, part);
        // The SNR's word tells the move's sign: most of the error goes.
        assert!(i[0] > 0.5, "{part}: the claims lower the MSE, {g} {i:?}");
    }
    // Against the same data, the row beats Time-LLM's trend word, which cannot read it.
    let over = &s["configs"][0]["forecast_gain_over_baseline_interval"];
    assert!(over[0].as_f64().unwrap() > 0.0, "over the baseline: {over}");
    let placebo = noise_level_file(dir.path(), false);
    let s = sweep(&placebo, &dir.path().join("placebo.json"), &args);
    for part in ["val", "test"] {
        let (g, i) = gain(&s, part);
        assert!(
            i[0] <= 0.0 && 0.0 <= i[1],
            "{part}: a coin is not read, {g} {i:?}"
        );
    }
}
