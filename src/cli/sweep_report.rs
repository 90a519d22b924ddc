//! What a sweep writes once it is computed, and the subcommands that compute nothing:
//! the report in its format with the ranking's warnings, a ranked row's run configuration
//! (`--write-config`), `sweep merge` (the parts' report) and `sweep pick` (a row from a
//! saved report or parts).

use crate::error::{Error, Result};
use crate::export;
use crate::sweep::partial::{self, Partial};
use crate::sweep::{self, report, RankBy};
use std::path::{Path, PathBuf};
use wavebench_core::names::ReportFormat;

/// How a sweep is ranked and what is written besides the report: the sweep's options and
/// `sweep merge`'s.
#[derive(clap::Args, Debug, Clone)]
pub struct ReportOpts {
    /// Rank by: score (the val score), complementary (its bits beyond the series-only forecaster), forecast (the val forecast gain: the share of the series-only forecaster's MSE the claims remove), a feature's mean (snr_db, energy_entropy, difficulty_score, dominant_energy, trend_consistency, volatility_ratio: no ties or verdicts), or one claim's bits about one outcome (CLAIM:OUTCOME, e.g. trend_desc:direction); ties, test ranks and ρ follow it [default: score]
    #[arg(long)]
    pub by: Option<RankBy>,
    /// Rank levels whose approximation band has fewer than 2 coefficients too
    #[arg(long)]
    pub keep_degenerate: bool,
    /// Write the chosen row's run configuration as a TOML file that --config reads
    /// (`prompts --config FILE` makes its prompts): the val #1, or the row of --pick
    #[arg(long, value_name = "FILE.toml")]
    pub write_config: Option<PathBuf>,
    /// Which ranked row --write-config writes (1 = the best by --by)
    #[arg(long, value_name = "N", default_value_t = 1, requires = "write_config",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub pick: usize,
}

impl ReportOpts {
    /// What the rows are ranked by.
    pub fn by(&self) -> RankBy {
        self.by.unwrap_or_default()
    }
}

/// `sweep merge`: the parts' sweep, reported as one process's sweep would be.
pub fn merge(parts: &[PathBuf], output: Option<&Path>, report: &ReportOpts) -> Result<()> {
    let format = super::run::report_format(output, "file")?;
    let mut read = Vec::with_capacity(parts.len());
    for p in parts {
        read.push((p.clone(), Partial::read(p)?));
    }
    let (s, input) = crate::sweep::merge::parts(read)?;
    write_report(&s, &input, output, format, report, false)
}

/// `sweep pick`: the row of `--pick` by `--by` from a saved JSON report or a sweep's parts,
/// written as `--write-config` would have written it.
pub fn pick(reports: &[PathBuf], opts: &ReportOpts) -> Result<()> {
    let file = opts.write_config.as_deref().ok_or_else(|| {
        Error::input("sweep pick: give the configuration's file with --write-config FILE.toml")
    })?;
    let (s, input) = match reports {
        [one] if partial::is_report(one)? => partial::read_report(one)?,
        parts => {
            let mut read = Vec::with_capacity(parts.len());
            for p in parts {
                read.push((p.clone(), Partial::read(p)?));
            }
            crate::sweep::merge::parts(read)?
        }
    };
    write_config(&s, &input, file, opts, false, "")
}

/// Write sweep `s` (of the data `input` names) as `format` to `output`, its warnings to
/// stderr, and the chosen row's configuration where asked.
pub(super) fn write_report(
    s: &sweep::Sweep,
    input: &str,
    output: Option<&Path>,
    format: ReportFormat,
    opts: &ReportOpts,
    quiet: bool,
) -> Result<()> {
    let by = opts.by();
    for w in sweep::rank::Standings::of(s, by, opts.keep_degenerate).warnings(s) {
        eprintln!("wavebench: warning: {w}");
    }
    let bytes = report::render(s, format, by, opts.keep_degenerate, input)?;
    let out: PathBuf = output.map_or_else(|| PathBuf::from("-"), Path::to_path_buf);
    export::write_atomic(&out, |w| w.write_all(&bytes))?;
    match &opts.write_config {
        Some(file) => write_config(s, input, file, opts, quiet, " (the report is written)"),
        None => Ok(()),
    }
}

/// Write the configuration of the row ranked `opts.pick` by `opts.by` to `file`, as
/// `--config` reads it (`sweep --write-config` and `sweep pick` alike); `after` ends the
/// refusal of a rank the sweep does not have.
fn write_config(
    s: &sweep::Sweep,
    input: &str,
    file: &Path,
    opts: &ReportOpts,
    quiet: bool,
    after: &str,
) -> Result<()> {
    let by = opts.by();
    let standings = sweep::rank::Standings::of(s, by, opts.keep_degenerate);
    let ranked = standings.rows.iter().filter(|st| st.rank.is_some()).count();
    let st = standings
        .rows
        .iter()
        .find(|st| st.rank == Some(opts.pick))
        .ok_or_else(|| {
            Error::input(format!(
                "--pick {}: the sweep ranked {ranked} configuration{}{after}",
                opts.pick,
                if ranked == 1 { "" } else { "s" }
            ))
        })?;
    let toml = format!(
        "# wavebench sweep {}: #{} by {}, {} {}\n{}",
        input,
        opts.pick,
        by.name(),
        st.row.transform,
        st.row.template,
        crate::config::to_toml(&s.config_of(st.row))
    );
    export::write_atomic(file, |w| w.write_all(toml.as_bytes()))?;
    if !quiet {
        eprintln!(
            "wavebench: {}: {}, {} (#{} by {})",
            file.display(),
            st.row.transform,
            st.row.template,
            opts.pick,
            by.name()
        );
    }
    Ok(())
}
