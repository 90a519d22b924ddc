//! The sweep's options as the command line spells them, and the one place they become a
//! [`Request`]. The CLI parses them from its arguments; the Python wheel turns its keyword
//! arguments into the same flags ([`SweepArgs`]), so both build the same request and
//! refuse the same values in the same words.

use crate::error::{Error, Result};
use crate::{Grid, Levels, Request};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::{Missing, Normalize, RowRange};
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::prompt::{self, Prompter, TemplateSource};
use wavebench_core::run_spec::Shard;
use wavebench_core::score::{DefinedError, Protocol, Split};
use wavebench_core::wavelet::Mode;

/// What data a run reads and how it cuts it into windows.
#[derive(Args, Debug, Default, Clone)]
pub struct DataOpts {
    /// Comma-separated channel names [default: every numeric column]
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// START..END data rows (0-based, header excluded, END exclusive) [default: all]
    #[arg(long)]
    pub rows: Option<RowRange>,
    /// Window length in rows [default: the whole series]
    #[arg(long)]
    pub seq_len: Option<usize>,
    /// Rows between the starts of consecutive windows
    #[arg(long)]
    pub stride: Option<usize>,
    /// Per-window normalisation [default: none for decompose, revin otherwise]
    #[arg(long, value_enum)]
    pub normalize: Option<Normalize>,
    /// What to do with empty, NaN or text cells
    #[arg(long, value_enum)]
    pub missing: Option<Missing>,
    /// The time-axis column: a name, or none [default: detected (dates, or an index such as t)]
    #[arg(long, value_name = "NAME|none")]
    pub time_column: Option<String>,
    /// In a data set (folder or glob), skip a file that cannot be used, with a warning
    #[arg(long)]
    pub skip_bad_files: bool,
    /// A TOML file with any of these options (snake_case keys)
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
}

impl DataOpts {
    /// Defaults ← `--config` file ← the data options given.
    pub fn config(&self) -> Result<Config> {
        let mut c = match &self.config {
            Some(p) => crate::config::read(p)?,
            None => Config::default(),
        };
        if self.columns.is_some() {
            c.columns = self.columns.clone();
        }
        if self.rows.is_some() {
            c.rows = self.rows;
        }
        if self.seq_len.is_some() {
            c.seq_len = self.seq_len;
        }
        if let Some(s) = self.stride {
            c.stride = s;
        }
        if let Some(n) = self.normalize {
            c.normalize = Some(n);
        }
        if let Some(m) = self.missing {
            c.missing = m;
        }
        if let Some(t) = &self.time_column {
            c.time_column = t.parse().map_err(|e: wavebench_core::names::BadValue| {
                Error::about(&[Opt::TimeColumn], format!("{OPTION}: {e}"))
            })?;
        }
        c.skip_bad_files |= self.skip_bad_files;
        Ok(c)
    }
}

/// The options the units every configuration is scored on depend on, beside the data
/// options: what `sweep prepare` computes once for many sweeps.
#[derive(Args, Debug, Clone)]
pub struct UnitOpts {
    /// Forecast horizon: the rows after each window whose outcome is scored
    #[arg(long)]
    pub pred_len: Option<usize>,
    /// Chronological split: TRAIN,VAL,TEST shares, ett-hour (8640/2880/2880 rows) or ett-minute
    #[arg(long, default_value = "0.7,0.1,0.2")]
    pub split: Split,
    /// Circular shifts of each channel's outcomes against its claims: the null every
    /// figure is read against (docs/score.md#the-null)
    #[arg(long, default_value_t = Protocol::default().null_draws)]
    pub null_draws: usize,
    /// Circular block-bootstrap replicates for the scores' 95% intervals and the ties
    /// (docs/score.md#uncertainty-and-ties)
    #[arg(long, default_value_t = Protocol::default().bootstrap)]
    pub bootstrap: usize,
    /// Fit the series-only forecasters on the units of one train window in ceil(T/32)
    /// where the data set has more than UNITS train units: faster, not the same classes
    /// (docs/score.md#what-the-prompt-adds-beyond-the-series) [default: every train unit]
    #[arg(long, value_name = "UNITS")]
    pub fit_subset_above: Option<usize>,
}

impl UnitOpts {
    /// The null's draws, the bootstrap's replicates and the forecasters' fit.
    pub fn protocol(&self) -> Protocol {
        Protocol {
            null_draws: self.null_draws,
            bootstrap: self.bootstrap,
            fit_subset_above: self.fit_subset_above,
        }
    }
}

/// The sweep's own options (the data options are [`DataOpts`]).
#[derive(Args, Debug, Clone)]
pub struct SweepOpts {
    /// Wavelets: names or patterns such as db1,db4,sym* (identical filter banks run once)
    #[arg(long, value_delimiter = ',', default_value = "*")]
    pub wavelets: Vec<String>,
    /// Levels: 1..6, a list such as 2,3, or valid (1 to each wavelet's maximum)
    #[arg(long, default_value = "valid")]
    pub levels: Levels,
    /// Extension modes, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "reflect")]
    pub modes: Vec<Mode>,
    /// Templates, comma-separated: built-in names (timellm, dwt-minimal, dwt-balanced, dwt-detailed) or files
    #[arg(long, value_delimiter = ',')]
    pub template: Vec<String>,
    /// Dataset description in the prompts, or @FILE
    #[arg(long)]
    pub description: Option<String>,
    /// Which top lags the prompts print, and so what the `lags` claim is: timellm (lag 0
    /// and the mirror lags included), clean (lags 1..=T/2) or peaks (the autocorrelation's
    /// local maxima, the periods the window repeats at)
    #[arg(long, value_enum)]
    pub lags: Option<wavebench_core::stats::LagRule>,
    #[command(flatten)]
    pub units: UnitOpts,
    /// A claim you define, scored beside the built-in ones against every outcome with its
    /// null and the bits beyond the series: NAME=TEMPLATE, or NAME:OUTCOME=TEMPLATE to add
    /// it to every row's score (repeatable; docs/score.md#claims-you-define), e.g.
    /// level={{ "above" if last > mean else "below" }} its window mean
    #[arg(long = "claim", value_name = "NAME[:OUTCOME]=TEMPLATE")]
    pub claims: Vec<String>,
    /// Compute only part I of N of the grid's configurations (1-based, balanced by their
    /// cost; N at most 100000) and write them to -o FILE.json as a part that `sweep merge`
    /// combines with the others into the whole sweep
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Read what every configuration shares (the scored units, their outcomes, the
    /// forecasters and their predictions, the null's and bootstrap's draws) from a folder
    /// that `sweep prepare` wrote for the same data and options, instead of computing it
    #[arg(long, value_name = "DIR")]
    pub prepared: Option<PathBuf>,
    /// Run even where the up-front estimate says the sweep needs more memory than the
    /// machine has available
    #[arg(long)]
    pub force: bool,
}

/// A sweep's options on their own, as the Python wheel parses the flags its keyword
/// arguments become.
#[derive(clap::Parser, Debug, Clone)]
#[command(name = "sweep", no_binary_name = true)]
pub struct SweepArgs {
    #[command(flatten)]
    pub data: DataOpts,
    #[command(flatten)]
    pub sweep: SweepOpts,
}

/// The request the options make, and a note about the grid to show before it runs.
pub struct Plan {
    pub request: Request,
    /// Configurations the grid names twice (said, not refused).
    pub note: Option<String>,
}

impl SweepOpts {
    /// The request these options and `data` make: the run configuration, the claims you
    /// define, the templates (each once, in the order given) and the grid.
    pub fn plan(&self, data: &DataOpts) -> Result<Plan> {
        let mut base = base_config(data, &self.units, self.description.as_deref(), self.lags)?;
        for spec in &self.claims {
            base.claims.define(spec).map_err(|e| {
                let also = match e {
                    DefinedError::Twice(_) => {
                        " (on the command line or in the configuration's [claims])"
                    }
                    _ => "",
                };
                Error::about(&[Opt::Claim], format!("{OPTION}: {e}{also}"))
            })?;
        }
        crate::defined_claims(&base).map_err(|e| e.within("[claims]"))?;
        let given = if self.template.is_empty() {
            vec![base.template.to_string()]
        } else {
            self.template.clone()
        };
        // Each template once, in the order first given.
        let names: Vec<String> = given
            .iter()
            .enumerate()
            .filter(|(i, n)| !given[..*i].contains(n))
            .map(|(_, n)| n.clone())
            .collect();
        let mut templates = Vec::with_capacity(names.len());
        for n in names {
            let p = template(&TemplateSource::from(n.as_str()))?;
            templates.push((n, Arc::new(p)));
        }
        let grid = Grid {
            wavelets: self.wavelets.clone(),
            levels: self.levels.clone(),
            modes: self.modes.clone(),
        };
        let note = grid.repeats(&[("--template", &given)]);
        Ok(Plan {
            request: Request {
                base,
                grid,
                templates,
                split: self.units.split,
                protocol: self.units.protocol(),
            },
            note,
        })
    }
}

/// The data options and the units' options as a run configuration, with what the prompts
/// say (`description`, `lags`) and the window length a sweep needs.
pub fn base_config(
    data: &DataOpts,
    units: &UnitOpts,
    description: Option<&str>,
    lags: Option<wavebench_core::stats::LagRule>,
) -> Result<Config> {
    units.protocol().check()?;
    let mut base = data.config()?;
    if let Some(d) = description {
        base.description = read_description(d)?;
    }
    if let Some(p) = units.pred_len {
        base.pred_len = p;
    }
    if let Some(l) = lags {
        base.lags = l;
    }
    if base.seq_len.is_none() {
        return Err(Error::about(
            &[Opt::SeqLen],
            format!("{OPTION}: a sweep scores windows of a given length (Time-LLM uses 512)"),
        ));
    }
    Ok(base)
}

/// `--description`: the text itself, or `@FILE` for a file's text (its trailing blank
/// lines dropped).
pub fn read_description(given: &str) -> Result<String> {
    Ok(match given.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file)
            .map_err(|e| Error::input(format!("--description @{file}: cannot read: {e}")))?
            .trim_end()
            .to_string(),
        None => given.to_string(),
    })
}

/// `--template`: a built-in by name, or a template file ("custom", the app's editor, is
/// a file's name on the command line).
pub fn template(source: &TemplateSource) -> Result<Prompter> {
    let failed = |place: String| move |source| Error::Template { place, source };
    if let Some(src) = source.builtin_text() {
        return Prompter::new(src).map_err(failed(format!("built-in template '{source}'")));
    }
    let spec = source.to_string();
    let path = Path::new(&spec);
    if !path.exists() {
        let names: Vec<&str> = prompt::BUILTINS.iter().map(|(n, _)| *n).collect();
        return Err(Error::about(
            &[Opt::Template],
            format!(
                "{OPTION}: '{spec}' is neither a built-in ({}) nor a file",
                names.join(", ")
            ),
        ));
    }
    let src = std::fs::read_to_string(path).map_err(|e| Error::io(path, "read", e))?;
    Prompter::new(&src).map_err(failed(spec.clone()))
}
