//! The command line (docs/cli.md): clap definitions → Config → the library.

mod bench;
mod bench_decompose;
mod completions;
mod decompose;
mod features;
mod options;
pub use options::{flag, message, Common, DataOpts, Engines};
mod prompts;
mod run;
pub use run::template;
mod sweep;
mod sweep_report;
mod wavelets;
mod waverec;

use crate::error::{Error, Result};
use crate::export::Destination;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use wavebench_core::config::Config;
use wavebench_core::prompt::TemplateSource;

#[derive(Parser, Debug)]
#[command(
    name = "wavebench",
    version = wavebench_sweep::VERSION,
    about = "Wavelet features and LLM prompts from time series, on the GPU or CPU"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

// Parsed once per process: the variants' sizes cost nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the workbench app, optionally on a data file.
    #[command(visible_alias = "app")]
    Gui {
        file: Option<PathBuf>,
        /// Take the screenshot tour (the dashboard, Data set, Sweep and Compare brought to
        /// the front by their titles, each saved as DIR/NAME.png once computed), then close:
        /// what scripts/screenshot.sh runs under Xvfb.
        #[arg(long, value_name = "DIR")]
        screenshots: Option<PathBuf>,
        /// Start on a run configuration's knobs (what "Export configuration" and
        /// `sweep --write-config` write) instead of the last session's
        #[arg(long, value_name = "FILE.toml")]
        config: Option<PathBuf>,
    },
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
        engines: Engines,
        /// Timed runs per engine, after one warm-up
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        repeat: u32,
        #[command(flatten)]
        common: Common,
    },
    /// Features of every prompt unit, as Parquet, CSV or JSON lines.
    Features {
        /// A data file, a folder of them, or a glob such as 'data/*.parquet'
        input: PathBuf,
        /// OUT.parquet, OUT.csv, OUT.jsonl, or - for JSON lines on stdout.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        prompt: run::PromptOpts,
    },
    /// Prompts as JSON lines: {"window","start","start_time","column","prompt","features"}.
    Prompts {
        /// A data file, a folder of them, or a glob such as 'data/*.parquet'
        input: PathBuf,
        /// OUT.jsonl, or - for stdout.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        prompt: run::PromptOpts,
        /// Also write the description where Time-LLM reads it: DIR/ETT.txt for an ETT
        /// file, else DIR/<file stem>.txt (Time-LLM's dataset/prompt_bank)
        #[arg(long, value_name = "DIR")]
        timellm_bank: Option<PathBuf>,
        /// Replace a bank file that holds another description (without it, that is refused)
        #[arg(long, requires = "timellm_bank")]
        overwrite_bank: bool,
    },
    /// Time the whole pipeline per engine and write the timing report (docs/timing.md).
    Bench {
        input: PathBuf,
        #[arg(long, default_value = "native,torch-cpu")]
        engines: Engines,
        /// Workloads to time per engine: the seed's proposed optimisations beside the baseline (each reports the prompts it changes)
        #[arg(long, value_enum, value_delimiter = ',', default_value = "baseline")]
        variants: Vec<crate::variants::Variant>,
        /// Timed runs per engine, after one warm-up
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        repeat: u32,
        /// REPORT.json, REPORT.csv or REPORT.md (Markdown on stdout when absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        prompt: run::PromptOpts,
    },
    /// Which wavelet, level and template make informative prompts: every configuration scored by the information its prompts' claims carry about the horizon (docs/score.md), ranked by the val score.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Sweep {
        #[command(subcommand)]
        then: Option<sweep::SweepCommand>,
        /// A data file, a folder of them, or a glob such as 'data/*.parquet'
        #[arg(required = true)]
        input: Option<PathBuf>,
        /// SWEEP.json, SWEEP.csv or SWEEP.md (Markdown on stdout when absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        data: DataOpts,
        #[command(flatten)]
        sweep: sweep::SweepOpts,
        #[command(flatten)]
        report: sweep_report::ReportOpts,
    },
    /// Wavelet coefficients [cA_n, cD_n, ..., cD_1] of every series.
    Decompose {
        input: PathBuf,
        /// OUT.json, OUT.parquet, OUT.npz (an array per band), OUT.npy (bands side by side), or - for JSON on stdout
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Per-band reconstructions (multiresolution analysis): n+1 components per series that sum to it.
    Mra {
        input: PathBuf,
        /// OUT.json, OUT.parquet, OUT.npz (an array per band), OUT.npy, or - for JSON on stdout
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Print a shell completion script: wavebench completions bash > /etc/bash_completion.d/wavebench
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (wavebench.1 and one per subcommand) into a folder.
    Man {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Signals back from coefficients, as pywt.waverec does (the inverse of decompose).
    Waverec {
        /// Coefficients as decompose writes them (.json, .npz, .parquet), or an .npz of arr_0, arr_1, ... from np.savez(f, *pywt.wavedec(x, ...))
        input: PathBuf,
        /// OUT.json, OUT.parquet, OUT.npz, OUT.npy, or - for JSON on stdout
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        #[command(flatten)]
        common: Common,
    },
}

/// The options whose defaults are `Config::default()`'s: their help says the default
/// read from there, so it cannot drift from what a run uses.
const DEFAULTED: [&str; 13] = [
    "wavelet",
    "level",
    "mode",
    "engine",
    "dtype",
    "stride",
    "missing",
    "template",
    "pred_len",
    "aggregate",
    "batch_size",
    "path",
    "lags",
];

/// The command line: clap's definitions, each defaulted option's help ending with its
/// default from `Config::default()`. main, the completions and the man pages use it.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let defaults = serde_json::to_value(Config::default()).unwrap_or_default();
    let shown = |id: &str| match &defaults[id] {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    };
    let mut cmd = Cli::command();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    // A sweep scores windows of a given length: it has no whole-series default.
    cmd = cmd.mut_subcommand("sweep", |sub| {
        sub.mut_arg("seq_len", |a| {
            a.help("Window length in rows (required: a sweep scores windows of one length; Time-LLM uses 512)")
        })
    });
    for name in names {
        cmd = cmd.mut_subcommand(name, |mut sub| {
            for id in DEFAULTED {
                let (Some(value), true) =
                    (shown(id), sub.get_arguments().any(|a| a.get_id() == id))
                else {
                    continue;
                };
                sub = sub.mut_arg(id, |a| {
                    let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                    a.help(format!("{help} [default: {value}]"))
                });
            }
            sub
        });
    }
    cmd
}

impl Command {
    /// The files the command writes and every file it reads (data, `--config`, template
    /// files, `--description @FILE`, merge parts), for the check that no output overwrites
    /// an input or another output, made before any work.
    fn outputs_and_inputs(&self) -> Result<(Vec<Destination>, Vec<&Path>)> {
        let o = |path: &Path| Destination::file("-o", path);
        let (input, outputs, common, prompt) = match self {
            Command::Features {
                input,
                output,
                common,
                prompt,
            } => (input, vec![o(output)], common, Some(prompt)),
            Command::Prompts {
                input,
                output,
                common,
                prompt,
                timellm_bank,
                ..
            } => {
                let mut outputs = vec![o(output)];
                if let Some(bank) = timellm_bank {
                    outputs.push(Destination {
                        option: "--timellm-bank",
                        path: prompts::bank_file(bank, input)?,
                        makes_folder: true,
                    });
                }
                (input, outputs, common, Some(prompt))
            }
            Command::Bench {
                input,
                output: Some(output),
                common,
                prompt,
                ..
            } => (input, vec![o(output)], common, Some(prompt)),
            Command::Sweep {
                then,
                input,
                output,
                data,
                sweep,
                report,
            } => {
                return Ok(sweep_files(
                    then.as_ref(),
                    input.as_deref(),
                    output.as_deref(),
                    data,
                    sweep,
                    report,
                ))
            }
            Command::Decompose {
                input,
                output,
                common,
            }
            | Command::Mra {
                input,
                output,
                common,
            }
            | Command::Waverec {
                input,
                output,
                common,
            } => (input, vec![o(output)], common, None),
            _ => return Ok((Vec::new(), Vec::new())),
        };
        let mut inputs = vec![input.as_path()];
        inputs.extend(common.data.config.as_deref());
        if let Some(p) = prompt {
            inputs.extend(p.template.as_deref().map(Path::new));
            inputs.extend(description_file(p.description.as_deref()));
        }
        Ok((outputs, inputs))
    }

    /// The template file the `--config` file names where no `--template` replaces it: the
    /// run reads it, so no output may overwrite it.
    fn config_template(&self) -> Result<Option<PathBuf>> {
        let (config, replaced) = match self {
            Command::Features { common, prompt, .. }
            | Command::Prompts { common, prompt, .. }
            | Command::Bench { common, prompt, .. } => {
                (common.data.config.as_deref(), prompt.template.is_some())
            }
            Command::Sweep {
                then: None,
                data,
                sweep,
                ..
            } => (data.config.as_deref(), !sweep.template.is_empty()),
            _ => return Ok(None),
        };
        let Some(config) = config.filter(|_| !replaced) else {
            return Ok(None);
        };
        Ok(match crate::config::read(config)?.template {
            TemplateSource::File(path) => Some(path),
            _ => None,
        })
    }
}

/// What `sweep` and its subcommands write, and every file they read.
fn sweep_files<'a>(
    then: Option<&'a sweep::SweepCommand>,
    input: Option<&'a Path>,
    output: Option<&'a Path>,
    data: &'a DataOpts,
    opts: &'a sweep::SweepOpts,
    report: &'a sweep_report::ReportOpts,
) -> (Vec<Destination>, Vec<&'a Path>) {
    let o = |path: &Path| Destination::file("-o", path);
    match then {
        Some(sweep::SweepCommand::Merge {
            parts,
            output,
            report,
        }) => {
            let outputs = output.as_deref().map(o).into_iter();
            let outputs = outputs.chain(report.write_config.as_deref().map(write_config));
            (
                outputs.collect(),
                parts.iter().map(PathBuf::as_path).collect(),
            )
        }
        Some(sweep::SweepCommand::Prepare {
            input,
            output,
            data,
            ..
        }) => {
            // The folder is made where missing.
            let outputs = crate::sweep::prepared::FILES.map(|f| Destination {
                option: "-o",
                path: output.join(f),
                makes_folder: true,
            });
            let mut inputs = vec![input.as_path()];
            inputs.extend(data.config.as_deref());
            (outputs.into(), inputs)
        }
        Some(sweep::SweepCommand::Pick { reports, report }) => {
            let outputs = report.write_config.as_deref().map(write_config);
            (
                outputs.into_iter().collect(),
                reports.iter().map(PathBuf::as_path).collect(),
            )
        }
        None => {
            let Some(input) = input else {
                return (Vec::new(), Vec::new());
            };
            let mut inputs = vec![input];
            inputs.extend(data.config.as_deref());
            inputs.extend(opts.template.iter().map(Path::new));
            inputs.extend(description_file(opts.description.as_deref()));
            inputs.extend(opts.prepared.as_deref());
            let outputs = output.map(o).into_iter();
            let outputs = outputs.chain(report.write_config.as_deref().map(write_config));
            (outputs.collect(), inputs)
        }
    }
}

fn write_config(path: &Path) -> Destination {
    Destination::file("--write-config", path)
}

/// The file a `--description @FILE` reads.
fn description_file(description: Option<&str>) -> Option<&Path> {
    description.and_then(|d| d.strip_prefix('@')).map(Path::new)
}

/// Run a subcommand (the app is opened by main).
pub fn run(command: Command) -> Result<()> {
    let (outputs, mut inputs) = command.outputs_and_inputs()?;
    let template = command.config_template()?;
    inputs.extend(template.as_deref());
    crate::export::check_outputs(&outputs, &inputs)?;
    match command {
        Command::Wavelets { json } => wavelets::run(json),
        Command::Completions { shell } => completions::completions(shell),
        Command::Man { dir } => completions::man_pages(&dir),
        Command::Decompose {
            input: path,
            output,
            common,
        } => decompose::run(&path, &output, &common, decompose::Output::Coeffs),
        Command::Mra {
            input: path,
            output,
            common,
        } => decompose::run(&path, &output, &common, decompose::Output::Components),
        Command::Waverec {
            input: path,
            output,
            common,
        } => waverec::run(&path, &output, &common),
        Command::BenchDecompose {
            input: path,
            engines,
            repeat,
            common,
        } => bench_decompose::run(&path, &engines, repeat as usize, &common),
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
            timellm_bank,
            overwrite_bank,
        } => {
            let bank = timellm_bank.map(|dir| prompts::Bank {
                dir,
                overwrite: overwrite_bank,
            });
            prompts::run(&path, &output, &common, &prompt, bank.as_ref())
        }
        Command::Bench {
            input: path,
            engines,
            variants,
            repeat,
            output,
            common,
            prompt,
        } => bench::run(
            &path,
            &engines,
            &variants,
            repeat as usize,
            output.as_deref(),
            &common,
            &prompt,
        ),
        Command::Sweep {
            then,
            input,
            output,
            data,
            sweep: opts,
            report,
        } => sweep::command(then, input, output, &data, &opts, &report),
        Command::Gui { .. } => Err(Error::internal("the app is opened by the binary's main")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::names::Opt;

    /// Every option a message can name is a flag some subcommand takes: the words the
    /// command line prints are ones it accepts.
    #[test]
    fn every_option_is_a_flag_of_some_subcommand() {
        let cmd = command();
        let taken: Vec<String> = cmd
            .get_subcommands()
            .flat_map(|s| s.get_arguments())
            .flat_map(|a| {
                let long = a.get_long().map(|l| format!("--{l}"));
                let short = a.get_short().map(|c| format!("-{c}"));
                long.into_iter().chain(short)
            })
            .collect();
        for o in Opt::ALL {
            assert!(
                taken.contains(&flag(o)),
                "{o}: no subcommand takes {}",
                flag(o)
            );
        }
    }
}
