//! `wavebench completions SHELL` and `wavebench man DIR`: generated from the clap
//! definitions, so they always match the options (`make completions` runs both).

use crate::error::{Error, Result};
use std::path::Path;

/// The completion script for `shell`, on standard output.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut cmd = super::command();
    clap_complete::generate(shell, &mut cmd, "wavebench", &mut std::io::stdout().lock());
    Ok(())
}

/// `wavebench.1` and one page per subcommand (`wavebench-prompts.1`, …) into `dir`.
pub fn man_pages(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::input(format!("cannot create the folder {}: {e}", dir.display())))?;
    clap_mangen::generate_to(super::command(), dir).map_err(|e| {
        Error::input(format!(
            "cannot write the man pages into {}: {e}",
            dir.display()
        ))
    })
}
