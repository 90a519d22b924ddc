//! Claims a researcher defines (docs/score.md#claims-you-define): a template over a unit's
//! variables (every feature, the run's lengths, and the window's `last` value and `mean`)
//! whose rendered text is the claim's category, scored like the built-in claims against
//! every outcome, with its null and the bits it adds beyond the series. So a sentence can
//! be tested before it goes into a prompt.

use super::{ClaimSpec, ClaimSpecs, Target};
use crate::data::Normalize;
use crate::features::{Features, Reads};
use crate::prompt::{Prompter, TemplateError};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// A claim a researcher defined ([`ClaimSpec`]), its template compiled.
pub struct DefinedClaim {
    pub spec: ClaimSpec,
    prompter: Prompter,
    variables: Vec<String>,
}

impl std::fmt::Debug for DefinedClaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.spec)
    }
}

impl PartialEq for DefinedClaim {
    fn eq(&self, o: &Self) -> bool {
        self.spec == o.spec
    }
}

/// Why a claim cannot be defined or rendered; the front ends say where it came from.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DefinedError {
    #[error("claim '{0}': write NAME=TEMPLATE or NAME:OUTCOME=TEMPLATE (e.g. level={{{{ \"above\" if last > mean else \"below\" }}}})")]
    Form(String),
    #[error("claim name '{0}': use letters, digits and _, starting with a letter")]
    Name(String),
    #[error("claim name '{0}' is a built-in claim's: choose another")]
    Builtin(String),
    #[error("claim '{name}': {error}")]
    Outcome {
        name: String,
        error: crate::names::UnknownName,
    },
    #[error("claim '{name}': {error}")]
    Template { name: String, error: TemplateError },
    #[error("claim '{name}': unknown variable '{variable}'{hint}")]
    Variable {
        name: String,
        variable: String,
        hint: String,
    },
    #[error("claim '{0}': its template is empty")]
    Empty(String),
    #[error("claim '{0}' renders empty: every unit needs a category (give each branch some text)")]
    RendersEmpty(String),
    #[error("claim '{0}' is defined twice")]
    Twice(String),
}

/// What a defined claim's template sees of one unit: every feature (docs/features.md), the
/// window's last value and mean (on the values the features see: normalised, so `mean` is
/// 0 under revin and zscore), and the run's description and lengths.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimVars<'a> {
    #[serde(flatten)]
    pub features: &'a Features,
    /// `x[T-1]`.
    pub last: f64,
    /// The window's mean.
    pub mean: f64,
    pub description: &'a str,
    pub seq_len: usize,
    pub pred_len: usize,
}

impl ClaimVars<'_> {
    /// Every variable a defined claim may read, in the order the features serialise.
    pub fn names() -> &'static [String] {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        NAMES.get_or_init(|| {
            let f = Features::of_statistics(Default::default());
            let vars = ClaimVars {
                features: &f,
                last: 0.0,
                mean: 0.0,
                description: "",
                seq_len: 0,
                pred_len: 0,
            };
            match serde_json::to_value(vars) {
                Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
                _ => Vec::new(),
            }
        })
    }

    /// One variable's value, or None for a name it does not have. A claim's context holds
    /// only the variables its template reads, never every feature of every unit
    /// (BENCHMARKS.md, "a claim you define": five times the cost per unit).
    /// `every_variable_has_its_serialised_value` checks this against `names()`.
    pub fn value(&self, name: &str) -> Option<minijinja::Value> {
        use minijinja::Value;
        let f = self.features;
        Some(match name {
            "last" => Value::from(self.last),
            "mean" => Value::from(self.mean),
            "description" => Value::from(self.description),
            "seq_len" => Value::from(self.seq_len),
            "pred_len" => Value::from(self.pred_len),
            "degenerate" => Value::from_serialize(f.degenerate),
            "energy_ratio" => Value::from_serialize(&f.energy_ratio),
            "energy_entropy" => Value::from(f.energy_entropy),
            "dominant_band" => Value::from(f.dominant_band),
            "dominant_energy" => Value::from(f.dominant_energy),
            "freq_pattern" => Value::from(&*f.freq_pattern),
            "trends" => Value::from_serialize(&f.trends),
            "trends_sign" => Value::from_serialize(&f.trends_sign),
            "trend_consistency" => Value::from(f.trend_consistency),
            "trend_desc" => Value::from(&*f.trend_desc),
            "band_stds" => Value::from_serialize(&f.band_stds),
            "snr_db" => Value::from(f.snr_db),
            "volatility_ratio" => Value::from(f.volatility_ratio),
            "stability_desc" => Value::from(&*f.stability_desc),
            "signal_quality" => Value::from(&*f.signal_quality),
            "difficulty_score" => Value::from(f.difficulty_score),
            "difficulty" => Value::from(&*f.difficulty),
            "min" => Value::from(f.min),
            "max" => Value::from(f.max),
            "median" => Value::from(f.median),
            "trend" => Value::from(f.trend),
            "lags" => Value::from_serialize(&f.lags),
            "lags_clean" => Value::from_serialize(&f.lags_clean),
            _ => return None,
        })
    }

    /// The last value and the mean of window `x` as the features see it under
    /// `normalize`.
    pub fn facts(x: &[f64], normalize: Normalize) -> WindowFacts {
        let Some(&last) = x.last() else {
            return WindowFacts::MISSING;
        };
        let mean = crate::numeric::sums::sum_by(x, |v| v) / x.len() as f64;
        let map = normalize.affine(x);
        WindowFacts {
            last: map.map(last),
            mean: map.map(mean),
        }
    }
}

/// What a defined claim reads of a window besides its features: its last value and its
/// mean, as the features see them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowFacts {
    pub last: f64,
    pub mean: f64,
}

impl WindowFacts {
    /// A window with no values (or none computed: no defined claim reads them).
    pub const MISSING: WindowFacts = WindowFacts {
        last: f64::NAN,
        mean: f64::NAN,
    };
}

impl DefinedClaim {
    /// `NAME=TEMPLATE` or `NAME:OUTCOME=TEMPLATE`, as `--claim` takes it, compiled.
    pub fn parse(spec: &str) -> Result<DefinedClaim, DefinedError> {
        DefinedClaim::new(spec.parse()?)
    }

    /// `spec` compiled: its template parsed and each variable it reads known.
    pub fn new(spec: ClaimSpec) -> Result<DefinedClaim, DefinedError> {
        let name = &spec.name;
        let prompter = Prompter::new(&spec.template).map_err(|error| DefinedError::Template {
            name: name.clone(),
            error,
        })?;
        let mut variables = prompter.variables();
        variables.sort();
        let known = ClaimVars::names();
        if let Some(v) = variables.iter().find(|v| !known.contains(v)) {
            let near = crate::suggest::nearest(v, known.iter().map(String::as_str), 3);
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", near.join(", "))
            };
            return Err(DefinedError::Variable {
                name: name.clone(),
                variable: v.clone(),
                hint,
            });
        }
        Ok(DefinedClaim {
            spec,
            prompter,
            variables,
        })
    }

    /// A run's claims, compiled, in their order.
    pub fn of_specs(specs: &ClaimSpecs) -> Result<Vec<Arc<DefinedClaim>>, DefinedError> {
        specs
            .iter()
            .map(|c| DefinedClaim::new(c.clone()).map(Arc::new))
            .collect()
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The outcome it is designated for: its excess bits join every template's score
    /// (a sentence the prompts would add), and it gets a bootstrap interval.
    pub fn target(&self) -> Option<Target> {
        self.spec.outcome
    }

    /// The variables the template reads.
    pub fn variables(&self) -> &[String] {
        &self.variables
    }

    /// Whether its category is the same under every wavelet, level and mode: every
    /// variable it reads is the window's own (`last`, `mean`) or among
    /// [`crate::prompt::TRANSFORM_FREE`].
    pub fn transform_free(&self) -> bool {
        self.variables.iter().all(|v| {
            v == "last" || v == "mean" || crate::prompt::TRANSFORM_FREE.contains(&v.as_str())
        })
    }

    /// What the template reads of the wavelet features (a sweep slides only where these
    /// come out as the per-window path's).
    pub fn reads(&self) -> Reads {
        Reads::of_variables(
            self.variables
                .iter()
                .map(String::as_str)
                .filter(|v| *v != "last" && *v != "mean"),
        )
    }

    /// This unit's category, written into `out` (trimmed; never empty).
    pub fn category(&self, vars: &ClaimVars<'_>, out: &mut String) -> Result<(), DefinedError> {
        out.clear();
        let context: minijinja::Value = self
            .variables
            .iter()
            .filter_map(|v| Some((v.as_str(), vars.value(v)?)))
            .collect();
        let text =
            self.prompter
                .render_value(&context)
                .map_err(|error| DefinedError::Template {
                    name: self.spec.name.clone(),
                    error,
                })?;
        let text = text.trim();
        if text.is_empty() {
            return Err(DefinedError::RendersEmpty(self.spec.name.clone()));
        }
        out.push_str(text);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(f: &Features, last: f64, mean: f64) -> ClaimVars<'_> {
        ClaimVars {
            features: f,
            last,
            mean,
            description: "",
            seq_len: 512,
            pred_len: 96,
        }
    }

    #[test]
    fn renders_the_category_of_each_unit() {
        let c = DefinedClaim::parse(
            r#"level:direction={{ "above" if last > mean else "below" }} its window mean"#,
        )
        .unwrap();
        assert_eq!(c.name(), "level");
        assert_eq!(c.target(), Some(Target::Direction));
        assert_eq!(c.variables(), ["last", "mean"]);
        let f = Features::of_statistics(Default::default());
        let mut s = String::new();
        c.category(&vars(&f, 2.0, 1.0), &mut s).unwrap();
        assert_eq!(s, "above its window mean");
        c.category(&vars(&f, 0.5, 1.0), &mut s).unwrap();
        assert_eq!(s, "below its window mean");
        assert_eq!(
            DefinedClaim::parse(&c.spec.to_string()).unwrap(),
            c,
            "spec round-trips"
        );
    }

    #[test]
    fn bad_definitions_say_what_is_wrong() {
        let err = |s: &str| DefinedClaim::parse(s).unwrap_err().to_string();
        assert!(
            err("level").contains("write NAME=TEMPLATE"),
            "{}",
            err("level")
        );
        assert!(err("1x=a").contains("claim name '1x'"));
        assert!(err("trend=a").contains("built-in"));
        assert!(err("x:direct={{ last }}").contains("direct"));
        assert!(
            err("x={{ last >").contains("claim 'x': line 1"),
            "{}",
            err("x={{ last >")
        );
        let unknown = err("x={{ lastt }}");
        assert!(
            unknown.contains("unknown variable 'lastt'") && unknown.contains("last"),
            "{unknown}"
        );
        assert!(err("x=  ").contains("empty"));
        let table: std::collections::BTreeMap<String, String> =
            [("a", "{{ last }}"), ("a:direction", "{{ mean }}")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into();
        let twice = serde_json::from_value::<ClaimSpecs>(serde_json::json!(table)).unwrap_err();
        assert_eq!(
            twice.to_string(),
            DefinedError::Twice("a".into()).to_string()
        );
    }

    #[test]
    fn an_empty_rendering_is_refused() {
        let c = DefinedClaim::parse(r#"x={% if last > 0 %}up{% endif %}"#).unwrap();
        let f = Features::of_statistics(Default::default());
        let mut s = String::new();
        assert!(c.category(&vars(&f, 1.0, 0.0), &mut s).is_ok());
        assert_eq!(
            c.category(&vars(&f, -1.0, 0.0), &mut s),
            Err(DefinedError::RendersEmpty("x".into()))
        );
    }

    #[test]
    fn facts_follow_the_normalisation() {
        let x = [1.0, 2.0, 3.0, 6.0];
        assert_eq!(
            ClaimVars::facts(&x, Normalize::None),
            WindowFacts {
                last: 6.0,
                mean: 3.0
            }
        );
        let WindowFacts { last, mean } = ClaimVars::facts(&x, Normalize::Zscore);
        assert!(mean.abs() < 1e-12);
        let sd = (((1.0f64 - 3.0).powi(2) + 1.0 + 0.0 + 9.0) / 4.0).sqrt();
        assert!((last - 3.0 / sd).abs() < 1e-12);
    }

    #[test]
    fn every_variable_has_its_serialised_value() {
        let mut f = Features::of_statistics(crate::stats::SeriesStats {
            min: -1.5,
            median: 0.25,
            ..Default::default()
        });
        f.energy_ratio.extend([0.5, 0.25, 0.25]);
        f.trend_desc = "mostly upward".into();
        let v = vars(&f, 2.0, 1.0);
        let whole = minijinja::Value::from_serialize(&v);
        for name in ClaimVars::names() {
            let one = v
                .value(name)
                .unwrap_or_else(|| panic!("{name} has no value"));
            assert_eq!(Some(one), whole.get_attr(name).ok(), "{name}");
        }
        assert!(v.value("no_such").is_none());
    }

    #[test]
    fn every_feature_is_a_variable() {
        let names = ClaimVars::names();
        for v in [
            "last",
            "mean",
            "min",
            "median",
            "trend_desc",
            "energy_ratio",
            "lags",
            "seq_len",
        ] {
            assert!(names.iter().any(|n| n == v), "{v} in {names:?}");
        }
    }
}
