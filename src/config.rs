//! The run configuration as a TOML file: what `--config FILE.toml` reads and the app's
//! "export configuration" writes. The configuration itself (fields, defaults) is the
//! core's `wavebench_core::config::Config`.

use std::path::Path;
use wavebench_core::config::Config;

/// Read a TOML file; unknown keys are errors naming the file.
pub fn read(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))
}

/// The configuration as the TOML file `read` takes back.
pub fn to_toml(cfg: &Config) -> String {
    toml::to_string_pretty(cfg).unwrap_or_default()
}
