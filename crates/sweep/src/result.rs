//! What a sweep reports: a row per configuration and template, the whole sweep with its
//! split, parts and baseline, and what a reader must know before trusting it (its
//! warnings, the units left out, the configuration that makes a row's prompts).

use crate::rank::Metric;
use serde::{Deserialize, Serialize};
use wavebench_core::config::Config;
use wavebench_core::engine::DType;
use wavebench_core::features::Aggregate;
use wavebench_core::score::{Borders, Evaluation, Protocol, Split};
use wavebench_core::transform::Transform;

/// One configuration and template over the data set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub transform: Transform,
    /// Other chosen wavelets with the same filter bank (same features, same row).
    pub aliases: Vec<String>,
    pub template: String,
    /// Coefficients in the approximation band: below 2 its std, and so the SNR, is degenerate.
    pub approx_len: usize,
    pub val: Evaluation,
    pub test: Evaluation,
    /// Each [`Metric`]'s mean over the val and test units.
    pub means: [f64; 6],
    /// Its prompts, and the claims every row's score adds, are the same under every
    /// transform ([`wavebench_core::prompt::Prompter::transform_free`]): the ranking
    /// takes its rows as one.
    #[serde(default)]
    pub transform_free: bool,
}

impl SweepRow {
    pub fn mean(&self, m: Metric) -> f64 {
        self.means[m as usize]
    }

    /// An approximation band of fewer than 2 coefficients has no spread: its std, SNR and
    /// volatility are artefacts of the level, not of the data.
    pub fn degenerate(&self) -> bool {
        self.approx_len < 2
    }

    /// "db4 level 3", with the mode and template where the sweep varies them.
    pub fn label(&self) -> String {
        self.transform.wavelet_level()
    }

    /// The label with the mode where it is not reflect, and the template.
    pub fn label_full(&self) -> String {
        format!(
            "{}, {}",
            self.transform.label_unless_reflect(),
            self.template
        )
    }
}

/// A whole sweep: the split, its units and every configuration's row, in grid order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// The data options it ran with (columns, rows, window, stride, horizon, lags,
    /// template, description): what a view compares with its knobs to tell a stale sweep.
    pub base: Config,
    pub split: Split,
    /// Each file's name and parts.
    pub files: Vec<(String, Borders)>,
    /// Scored units per part (train: those the terciles were cut from).
    pub units: wavebench_core::score::PartCounts,
    /// Units of the three parts left out (a constant or perfectly linear input).
    pub left_out: usize,
    /// The channels they belong to, with how many each, the most first.
    pub left_out_channels: Vec<(String, usize)>,
    pub naive_mase: wavebench_core::score::Terciles,
    pub vol_ratio: wavebench_core::score::Terciles,
    /// The null's draws and the bootstrap's replicates.
    pub protocol: Protocol,
    /// Val's and test's units as sequences.
    pub parts: wavebench_core::score::PerPart<PartUnits>,
    /// What the grid left out for the window length (levels above a wavelet's maximum,
    /// wavelets with no valid level), one line per kind.
    pub skipped: Vec<String>,
    /// How the series-only forecaster's predictions become classes.
    pub forecast_classes: wavebench_core::score::ForecastClasses,
    /// Time-LLM's own prompt (its trend word; the same for every wavelet) scored on val
    /// and test: the baseline every row's gain is measured from.
    pub baseline: wavebench_core::score::PerPart<Evaluation>,
    /// How the rows' forecast gain was fit, or why it was not measured.
    #[serde(default)]
    pub gain: GainSetting,
    /// The train units the series-only forecasters were fit on.
    #[serde(default)]
    pub fit: ForecasterFit,
    pub rows: Vec<SweepRow>,
}

/// The train units the series-only forecasters were fit on
/// (docs/score.md#what-the-prompt-adds-beyond-the-series).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ForecasterFit {
    pub units: usize,
    /// One train window in how many (1: every train unit).
    pub every: usize,
}

/// How a sweep's forecast gain is fit (docs/score.md#forecast-gain-beyond-the-series).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GainSetting {
    /// The fit units: the units of every `fit_stride`-th train window.
    pub fit_units: usize,
    pub fit_stride: usize,
    /// Why no row has a forecast gain, if none has.
    pub withheld: Option<String>,
}

impl Sweep {
    /// The run configuration that makes `row`'s prompts: the sweep's data options, the
    /// row's transform and template, in f64 (the sweep's precision), one prompt per series.
    /// Written as TOML (`--write-config`), `prompts --config` gives the row's prompts.
    pub fn config_of(&self, row: &SweepRow) -> Config {
        Config {
            transform: row.transform,
            template: row.template.as_str().into(),
            dtype: DType::F64,
            aggregate: Aggregate::Series,
            ..self.base.clone()
        }
    }

    /// The row of transform `t` (its wavelet or one of the row's aliases) with `template`.
    pub fn row(&self, t: Transform, template: &str) -> Option<&SweepRow> {
        self.rows.iter().find(|r| {
            let same_bank =
                r.transform.wavelet.name == t.wavelet.name || r.aliases.contains(&t.wavelet.name);
            same_bank
                && r.transform.level == t.level
                && r.transform.mode == t.mode
                && r.template == template
        })
    }
}

/// Two rows' val scores and their difference, with the 95% interval of the difference over
/// the paired bootstrap replicates (the same blocks for both).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    pub a: f64,
    pub b: f64,
    pub a_interval: [f64; 2],
    pub b_interval: [f64; 2],
    /// `a - b` and its interval.
    pub diff: f64,
    pub interval: [f64; 2],
}

impl Difference {
    pub fn of(a: &SweepRow, b: &SweepRow) -> Difference {
        Difference {
            a: a.val.score_bits,
            b: b.val.score_bits,
            a_interval: a.val.interval,
            b_interval: b.val.interval,
            diff: a.val.score_bits - b.val.score_bits,
            interval: wavebench_core::score::paired_interval(&a.val.boot, &b.val.boot),
        }
    }

    /// The data cannot tell the two apart: the difference's interval contains 0.
    pub fn tied(&self) -> bool {
        self.interval[0] <= 0.0 && 0.0 <= self.interval[1]
    }
}

/// How a scored part's units hang together: sequences (file × channel), the shortest,
/// T + P in units, and the direction outcome's effective sample size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PartUnits {
    pub sequences: usize,
    pub shortest: usize,
    /// The longest channel sequence's units: under two bootstrap blocks, the part's
    /// intervals are withheld ([`PartUnits::withheld`]).
    #[serde(default)]
    pub longest: usize,
    pub span: usize,
    pub n_eff: f64,
    /// Some sequence is shorter than 2(T + P): shifted pairs share rows.
    pub conservative: bool,
    /// Per outcome, what the series-only forecaster's predicted class tells about it.
    pub forecaster: [wavebench_core::score::Info; 3],
}

/// Fewer effective val units than this and the ranking is said to rest on too few.
pub const FEW_EFFECTIVE: f64 = 30.0;

impl Sweep {
    /// What a reader must know before trusting the ranking's numbers: too few effective
    /// val units, a null that leans towards the observed values.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.skipped.clone();
        let val = &self.parts.val;
        if val.n_eff < FEW_EFFECTIVE {
            w.push(format!(
                "val holds about {:.0} effective units (the direction outcome's autocorrelation over {} units): fewer than {FEW_EFFECTIVE:.0}, too few to tell configurations apart; lengthen the val part or the data",
                val.n_eff, self.units.val
            ));
        }
        w.extend(self.withheld_warnings());
        w.extend(self.too_varied());
        for (p, name) in self.parts.iter().zip(["val", "test"]) {
            if p.shortest <= p.span && p.withheld().is_none() {
                w.push(format!(
                    "{name}: its shortest channel sequence holds {} units, no more than one bootstrap block (T + P = {} units): its replicates barely vary, so its intervals understate the uncertainty",
                    p.shortest, p.span
                ));
            }
            if p.conservative {
                w.push(format!(
                    "{name}: its shortest channel sequence holds {} units, under 2(T + P) = {} units: shifted pairs share rows, so the null is conservative",
                    p.shortest,
                    2 * p.span
                ));
            }
        }
        w
    }
}

impl Sweep {
    /// A claim with as many distinct val categories as half its val units sees each about
    /// once or twice: it cannot carry information, whatever its bits say (the first row's
    /// claims, in grid order).
    fn too_varied(&self) -> Vec<String> {
        let Some(first) = self.rows.first() else {
            return Vec::new();
        };
        let units = first.val.units;
        first
            .val
            .claims
            .iter()
            .filter(|c| units > 0 && 2 * c.categories.len() >= units)
            .map(|c| {
                format!(
                    "claim '{}' has {} distinct categories over {units} val units, at least half: each is seen about once, so it cannot carry information; group its values into a few words",
                    c.claim.name(),
                    c.categories.len()
                )
            })
            .collect()
    }

    /// "left out (…)" and, when any, the channels: "OT 2203, HUFL 4".
    pub fn left_out_text(&self) -> String {
        const SHOWN: usize = 5;
        let mut t = format!(
            "{} left out (constant or perfectly linear input",
            self.left_out
        );
        if !self.left_out_channels.is_empty() {
            let named: Vec<String> = self
                .left_out_channels
                .iter()
                .map(|(c, n)| format!("{} {n}", channel_name(c)))
                .collect();
            t += &format!(": {}", crate::words::first_few(&named, SHOWN, " channels"));
        }
        t.push(')');
        t
    }
}

/// A channel's name where a count follows it: quoted when it reads as a number ("'4' 102",
/// not "4 102"), as it is where it reads as a word.
pub fn channel_name(name: &str) -> String {
    if name.trim().parse::<f64>().is_ok() || name.contains(' ') {
        format!("'{name}'")
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_name_that_reads_as_a_number_is_quoted_before_its_count() {
        assert_eq!(super::channel_name("4"), "'4'");
        assert_eq!(super::channel_name("-1.5e3"), "'-1.5e3'");
        assert_eq!(super::channel_name("OT"), "OT");
        assert_eq!(super::channel_name("oil temp"), "'oil temp'");
    }
}
