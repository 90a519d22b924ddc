//! Prompts (docs/prompts.md): minijinja templates over the features, with Python's number
//! formatting as filters (`pyrepr`, `f(".2f")`, `pylist`), the four built-ins of
//! `assets/templates/`, and user template files. Errors carry line and column.

mod direct;
pub mod pyfmt;
mod source;

pub use direct::{Direct, Piece};
pub use source::{TemplateSource, EDITOR};

use crate::features::Features;
use minijinja::value::Value;
use minijinja::{Environment, ErrorKind, UndefinedBehavior};
use serde::Serialize;

/// The built-in templates, by name.
pub const BUILTINS: [(&str, &str); 4] = [
    (
        "timellm",
        include_str!("../../../../assets/templates/timellm.jinja"),
    ),
    (
        "dwt-minimal",
        include_str!("../../../../assets/templates/dwt-minimal.jinja"),
    ),
    (
        "dwt-balanced",
        include_str!("../../../../assets/templates/dwt-balanced.jinja"),
    ),
    (
        "dwt-detailed",
        include_str!("../../../../assets/templates/dwt-detailed.jinja"),
    ),
];

pub const DEFAULT_TEMPLATE: &str = "dwt-balanced";

pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// A built-in, compiled once per process: callers that render on every training step (the
/// Python wheel) need not build an environment per call.
pub fn builtin_prompter(name: &str) -> Option<&'static Prompter> {
    static COMPILED: std::sync::OnceLock<Vec<(&'static str, Prompter)>> =
        std::sync::OnceLock::new();
    COMPILED
        .get_or_init(|| {
            BUILTINS
                .iter()
                .filter_map(|(n, src)| Prompter::new(src).ok().map(|p| (*n, p)))
                .collect()
        })
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| p)
}

/// A template problem, located in the template's source (1-based line and column).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{message}", location(.line, .column))]
pub struct TemplateError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

fn location(line: &Option<usize>, column: &Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("line {l}, column {c}: "),
        (Some(l), None) => format!("line {l}: "),
        _ => String::new(),
    }
}

/// What a template sees: every feature, plus the run's description and lengths.
#[derive(Debug, Clone, Serialize)]
pub struct PromptVars<'a> {
    #[serde(flatten)]
    pub features: &'a Features,
    pub description: &'a str,
    pub seq_len: usize,
    pub pred_len: usize,
}

/// A compiled template, ready to render many prompts.
pub struct Prompter {
    env: Environment<'static>,
    source: String,
    /// A built-in's source renders through its direct writer: the same bytes, without
    /// the template engine.
    direct: Option<Direct>,
}

const NAME: &str = "prompt";

/// The variables whose values no wavelet, level or mode changes: the window's statistics
/// and lags and the run's words and lengths.
pub const TRANSFORM_FREE: [&str; 9] = [
    "min",
    "max",
    "median",
    "trend",
    "lags",
    "lags_clean",
    "description",
    "seq_len",
    "pred_len",
];

/// Template steps one prompt may take (minijinja's fuel): a prompt takes hundreds, this
/// allows templates far richer than the built-ins and stops a runaway loop in about a
/// second.
pub const FUEL: u64 = 5_000_000;

impl Prompter {
    /// Compile template source text (a built-in's or a user's).
    pub fn new(source: &str) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // A prompt takes a few hundred steps; nested loops over large ranges would run
        // for hours. Past the budget the render stops with an error that says so.
        env.set_fuel(Some(FUEL));
        env.add_filter("pyrepr", |x: f64| pyfmt::repr(x));
        env.add_filter(
            "f",
            |x: f64, spec: &str| -> Result<String, minijinja::Error> {
                let precision = spec
                    .strip_prefix('.')
                    .and_then(|s| s.strip_suffix('f'))
                    .and_then(|p| p.parse::<usize>().ok())
                    .ok_or_else(|| {
                        minijinja::Error::new(
                            ErrorKind::InvalidOperation,
                            format!("unsupported format '{spec}' (use \".Nf\")"),
                        )
                    })?;
                if precision > pyfmt::MAX_PRECISION {
                    return Err(minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        format!(
                            "precision {precision} in '{spec}' is too large (at most {})",
                            pyfmt::MAX_PRECISION
                        ),
                    ));
                }
                Ok(pyfmt::Fixed(x, precision).to_string())
            },
        );
        env.add_filter("pylist", |v: Value| -> Result<String, minijinja::Error> {
            let items: Result<Vec<String>, _> = v
                .try_iter()?
                .map(|item| match i64::try_from(item.clone()) {
                    Ok(i) => Ok(i.to_string()),
                    Err(_) => f64::try_from(item).map(pyfmt::repr),
                })
                .collect();
            Ok(format!("[{}]", items?.join(", ")))
        });
        let mut me = Prompter {
            env,
            source: source.to_string(),
            direct: Direct::for_source(source),
        };
        me.env
            .add_template_owned(NAME, source.to_string())
            .map_err(|e| me.locate(&e))?;
        Ok(me)
    }

    /// Render one prompt per unit, in parallel when there are many (the environment is
    /// shared read-only).
    pub fn render_all(
        &self,
        units: &[crate::features::Unit],
        description: &str,
        seq_len: usize,
        pred_len: usize,
    ) -> Result<Vec<String>, TemplateError> {
        use rayon::prelude::*;
        let one = |u: &crate::features::Unit| {
            self.render(&PromptVars {
                features: &u.features,
                description,
                seq_len,
                pred_len,
            })
        };
        // A window's few prompts are not worth handing to other threads.
        if units.len() < 64 {
            units.iter().map(one).collect()
        } else {
            units.par_iter().map(one).collect()
        }
    }

    /// The same template, always rendered by minijinja (what the direct writers are
    /// checked against).
    pub fn interpreted(source: &str) -> Result<Self, TemplateError> {
        let mut p = Prompter::new(source)?;
        p.direct = None;
        Ok(p)
    }

    /// The built-in this template's text is, if it is one (whether or not it is rendered
    /// by its direct writer).
    /// The template's text.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn builtin_name(&self) -> Option<&'static str> {
        BUILTINS
            .iter()
            .find(|(_, src)| *src == self.source)
            .map(|(n, _)| *n)
    }

    /// The variables the template reads of its context: minijinja's undeclared variables
    /// less the environment's own functions (`range`, `dict`, `namespace`, …), which every
    /// template may call.
    pub fn variables(&self) -> Vec<String> {
        let globals: Vec<&str> = self.env.globals().map(|(name, _)| name).collect();
        self.env
            .get_template(NAME)
            .map(|t| {
                t.undeclared_variables(false)
                    .into_iter()
                    .filter(|v| !globals.contains(&v.as_str()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether this template's prompts are the same at every wavelet, level and mode, so
    /// the transform need not fit the window: every variable it reads is among
    /// [`TRANSFORM_FREE`], or it is Time-LLM's own (which reads `degenerate` only to say
    /// the input is constant, a fact of the data).
    pub fn transform_free(&self) -> bool {
        self.direct == Some(Direct::TimeLlm)
            || self
                .variables()
                .iter()
                .all(|v| TRANSFORM_FREE.contains(&v.as_str()))
    }

    /// The direct writer a built-in renders through (None: minijinja renders it).
    pub fn direct(&self) -> Option<Direct> {
        self.direct
    }

    /// Whether this template's prompts are the same under every wavelet, level and mode:
    /// Time-LLM's reads only the statistics and whether the input is constant (the data's,
    /// not the transform's). A template of the researcher's may read `degenerate`, which a
    /// level too deep sets.
    pub fn same_for_every_transform(&self) -> bool {
        self.direct == Some(Direct::TimeLlm)
    }

    /// What this template's text reads of the wavelet features.
    pub fn reads(&self) -> crate::features::Reads {
        use crate::features::Reads;
        match self.direct {
            Some(Direct::TimeLlm) => Reads::NOTHING,
            Some(Direct::Minimal | Direct::Balanced) => Reads::DESCRIPTIONS,
            Some(Direct::Detailed) => Reads {
                snr_1dp: true,
                entropy_2dp: true,
                ..Reads::DESCRIPTIONS
            },
            None => match self.env.get_template(NAME) {
                Ok(t) => {
                    Reads::of_variables(t.undeclared_variables(false).iter().map(|s| s.as_str()))
                }
                Err(_) => Reads {
                    numbers: true,
                    ..Reads::NOTHING
                },
            },
        }
    }

    pub fn render(&self, vars: &PromptVars<'_>) -> Result<String, TemplateError> {
        if let Some(d) = self.direct {
            return Ok(d.render(vars));
        }
        let tmpl = self.env.get_template(NAME).map_err(|e| self.locate(&e))?;
        tmpl.render(vars).map_err(|e| self.locate(&e))
    }

    /// The template rendered by minijinja over any context (a defined claim's variables).
    pub fn render_value<S: Serialize>(&self, ctx: &S) -> Result<String, TemplateError> {
        let tmpl = self.env.get_template(NAME).map_err(|e| self.locate(&e))?;
        tmpl.render(ctx).map_err(|e| self.locate(&e))
    }

    /// [`Prompter::render`] appended to `out`, for many prompts in one string.
    pub fn render_into(
        &self,
        vars: &PromptVars<'_>,
        out: &mut String,
    ) -> Result<(), TemplateError> {
        match self.direct {
            Some(d) => d.write(vars, out),
            None => out.push_str(&self.render(vars)?),
        }
        Ok(())
    }

    /// Room for one prompt, as far as it is known before rendering.
    pub fn room(&self, vars: &PromptVars<'_>) -> usize {
        self.direct.map_or(0, |d| d.room(vars))
    }

    fn locate(&self, e: &minijinja::Error) -> TemplateError {
        let column = e.range().map(|r| {
            let before = &self.source[..r.start.min(self.source.len())];
            before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1
        });
        let message = match (e.kind(), e.detail()) {
            (ErrorKind::OutOfFuel, _) => format!(
                "the template ran past its budget of {FUEL} steps for one prompt (a loop over a large range?)"
            ),
            (kind, Some(d)) => format!("{kind}: {d}"),
            (kind, None) => kind.to_string(),
        };
        TemplateError {
            message,
            line: e.line(),
            column,
        }
    }
}
