//! The command line (SPEC §8): clap definitions → Config → the library.

mod bench;
mod bench_decompose;
mod decompose;
mod features;
mod prompts;
mod run;
mod wavelets;

use crate::config::Config;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "wavebench",
    version,
    about = "Wavelet features and LLM prompts from time series, on the GPU or CPU"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the workbench app, optionally on a data file.
    Gui { file: Option<PathBuf> },
    /// List the wavelets: names, families, filter lengths, orthogonality.
    Wavelets {
        /// Output as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Time the decomposition alone over every window (what `make bench` runs).
    #[command(hide = true)]
    BenchDecompose {
        input: PathBuf,
        #[arg(long, default_value = "native,torch-cpu")]
        engines: String,
        #[arg(long, default_value_t = 5)]
        repeat: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Features of every prompt unit, as Parquet, CSV or JSON lines.
    Features {
        input: PathBuf,
        /// OUT.parquet, OUT.csv, OUT.jsonl, or - for JSON lines on stdout.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        prompt: run::PromptOpts,
    },
    /// Prompts as JSON lines: {"window","start","column","prompt","features"}.
    Prompts {
        input: PathBuf,
        /// OUT.jsonl, or - for stdout.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        prompt: run::PromptOpts,
    },
    /// Time the whole pipeline per engine and write the timing report (SPEC §7).
    Bench {
        input: PathBuf,
        #[arg(long, default_value = "native,torch-cpu")]
        engines: String,
        #[arg(long, default_value_t = 5)]
        repeat: usize,
        /// REPORT.json, REPORT.csv or REPORT.md (Markdown on stdout when absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        prompt: run::PromptOpts,
    },
    /// Wavelet coefficients of every series as JSON.
    Decompose {
        input: PathBuf,
        /// Output file, or - for standard output (the default).
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
    },
}

/// Options every data subcommand shares; each overrides `--config`.
#[derive(Args, Debug, Default, Clone)]
pub struct Common {
    #[arg(long)]
    pub wavelet: Option<String>,
    #[arg(long)]
    pub level: Option<usize>,
    #[arg(long)]
    pub mode: Option<String>,
    #[arg(long)]
    pub engine: Option<String>,
    #[arg(long)]
    pub dtype: Option<String>,
    /// Comma-separated channel names.
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// START..END data rows (0-based, header excluded, END exclusive).
    #[arg(long)]
    pub rows: Option<String>,
    #[arg(long)]
    pub seq_len: Option<usize>,
    #[arg(long)]
    pub stride: Option<usize>,
    /// none | zscore | revin
    #[arg(long)]
    pub normalize: Option<String>,
    /// error | interpolate | drop | zero
    #[arg(long)]
    pub missing: Option<String>,
    /// A TOML file with any of these options.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What went wrong, and so the exit code: 2 for the user's input, 1 for ours.
#[derive(Debug)]
pub enum Failure {
    Input(String),
    Internal(String),
}

impl Failure {
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Input(_) => 2,
            Failure::Internal(_) => 1,
        }
    }
    pub fn message(&self) -> &str {
        match self {
            Failure::Input(m) | Failure::Internal(m) => m,
        }
    }
}

impl From<crate::data::DataError> for Failure {
    fn from(e: crate::data::DataError) -> Self {
        Failure::Input(e.0)
    }
}

impl From<crate::engine::EngineError> for Failure {
    fn from(e: crate::engine::EngineError) -> Self {
        match e {
            crate::engine::EngineError::Plan(p) => Failure::Input(p.to_string()),
            other => Failure::Internal(other.to_string()),
        }
    }
}

fn input<T: std::fmt::Display>(e: T) -> Failure {
    Failure::Input(e.to_string())
}

impl Common {
    /// Defaults ← `--config` file ← command-line options.
    pub fn config(&self) -> Result<Config, Failure> {
        let mut c = match &self.config {
            Some(p) => Config::from_file(p).map_err(Failure::Input)?,
            None => Config::default(),
        };
        if let Some(w) = &self.wavelet {
            c.wavelet = w.clone();
        }
        if let Some(l) = self.level {
            c.level = l;
        }
        if let Some(m) = &self.mode {
            c.mode = m
                .parse()
                .map_err(|e: String| Failure::Input(format!("--mode: {e}")))?;
        }
        if let Some(e) = &self.engine {
            c.engine = e
                .parse()
                .map_err(|e: String| Failure::Input(format!("--engine: {e}")))?;
        }
        if let Some(d) = &self.dtype {
            c.dtype = d
                .parse()
                .map_err(|e: String| Failure::Input(format!("--dtype: {e}")))?;
        }
        if self.columns.is_some() {
            c.columns = self.columns.clone();
        }
        if self.rows.is_some() {
            c.rows = self.rows.clone();
        }
        if self.seq_len.is_some() {
            c.seq_len = self.seq_len;
        }
        if let Some(s) = self.stride {
            c.stride = s;
        }
        if let Some(n) = &self.normalize {
            c.normalize = Some(
                n.parse()
                    .map_err(|e: String| Failure::Input(format!("--normalize: {e}")))?,
            );
        }
        if let Some(m) = &self.missing {
            c.missing = m
                .parse()
                .map_err(|e: String| Failure::Input(format!("--missing: {e}")))?;
        }
        crate::wavelet::lookup(&c.wavelet)
            .map_err(|e| Failure::Input(format!("--wavelet: {e}")))?;
        if c.level == 0 {
            return Err(Failure::Input("--level must be at least 1".into()));
        }
        c.row_range()
            .map_err(|e| Failure::Input(format!("--rows: {e}")))?;
        Ok(c)
    }
}

/// Run a subcommand (the app is opened by main).
pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Wavelets { json } => wavelets::run(json),
        Command::Decompose {
            input: path,
            output,
            common,
        } => decompose::run(&path, &output, &common),
        Command::BenchDecompose {
            input: path,
            engines,
            repeat,
            common,
        } => bench_decompose::run(&path, &engines, repeat.max(1), &common),
        Command::Features {
            input: path,
            output,
            common,
            prompt,
        } => features::run(&path, &output, &common, &prompt),
        Command::Prompts {
            input: path,
            output,
            common,
            prompt,
        } => prompts::run(&path, &output, &common, &prompt),
        Command::Bench {
            input: path,
            engines,
            repeat,
            output,
            common,
            prompt,
        } => bench::run(
            &path,
            &engines,
            repeat.max(1),
            output.as_deref(),
            &common,
            &prompt,
        ),
        Command::Gui { .. } => Err(input("the app is opened by the binary's main")),
    }
}
