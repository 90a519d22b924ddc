//! The run configuration as a TOML file: what `--config FILE.toml` reads and the app's
//! "export configuration" writes. The configuration itself (fields, defaults) is the
//! core's `wavebench_core::config::Config`.

use crate::error::{Error, Result};
use std::path::Path;
use wavebench_core::config::Config;

/// Read a TOML file; unknown keys are errors naming the file and the nearest known key.
pub fn read(path: &Path) -> Result<Config> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, "read", e))?;
    toml::from_str(&text).map_err(|e| {
        let message = e.message();
        Error::input(format!(
            "{}: {message}{}",
            path.display(),
            near_key(message)
        ))
    })
}

/// " (did you mean `level`?)" for serde's "unknown field `levle`" (the transform's keys
/// are flattened into the configuration, so serde cannot list the keys itself).
fn near_key(message: &str) -> String {
    let Some(key) = message
        .strip_prefix("unknown field `")
        .and_then(|m| m.split('`').next())
    else {
        return String::new();
    };
    let keys = known_keys();
    let near = wavebench_core::suggest::nearest(key, keys.iter().map(String::as_str), 3);
    if near.is_empty() {
        return String::new();
    }
    format!(" (did you mean {}?)", near.join(", "))
}

/// Every key a configuration file may hold, in the order `to_toml` writes them.
fn known_keys() -> Vec<String> {
    let mut cfg = Config::default();
    // Keys written only when set.
    let _ = cfg.claims.add(wavebench_core::score::ClaimSpec {
        name: "x".into(),
        outcome: None,
        template: "x".into(),
    });
    cfg.columns = Some(Vec::new());
    cfg.rows = Some(wavebench_core::data::RowRange {
        start: 0,
        end: None,
    });
    cfg.seq_len = Some(1);
    cfg.normalize = Some(Default::default());
    match toml::Table::try_from(&cfg) {
        Ok(t) => t.keys().cloned().collect(),
        Err(_) => Vec::new(),
    }
}

/// The configuration as the TOML file `read` takes back.
pub fn to_toml(cfg: &Config) -> String {
    toml::to_string_pretty(cfg).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::transform::Transform;
    use wavebench_core::wavelet::Mode;

    fn written(text: &str) -> std::result::Result<Config, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = dir.path().join("run.toml");
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        read(&path).map_err(|e| e.to_string().replace(&path.display().to_string(), "FILE"))
    }

    #[test]
    fn the_transform_keeps_its_three_keys() {
        let cfg = Config {
            transform: Transform::new("sym5", 2, Mode::Periodization).unwrap(),
            stride: 4,
            ..Config::default()
        };
        let text = to_toml(&cfg);
        for line in [
            "wavelet = \"sym5\"",
            "level = 2",
            "mode = \"periodization\"",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
        }
        assert_eq!(written(&text), Ok(cfg));
        // Keys left out take the defaults.
        let only = written("level = 5\n").unwrap();
        let level_5 = Transform {
            level: 5,
            ..Transform::default()
        };
        assert_eq!(only.transform, level_5);
    }

    #[test]
    fn bad_keys_and_names_say_what_is_near() {
        assert_eq!(
            written("levle = 5\n").unwrap_err(),
            "FILE: unknown field `levle` (did you mean level?)"
        );
        let e = written("wavelet = \"db44\"\n").unwrap_err();
        assert!(
            e.starts_with("FILE: unknown wavelet 'db44' (did you mean db4"),
            "{e}"
        );
    }

    /// The rows are read once, as a range, where the file is read: a range that cannot be
    /// one is refused there, naming the file (it was once kept as text and refused only
    /// when a run began).
    #[test]
    fn rows_are_a_range_written_and_read_as_text() {
        let cfg = written("rows = \"100..3000\"\n").unwrap();
        let range = wavebench_core::data::RowRange {
            start: 100,
            end: Some(3000),
        };
        assert_eq!(cfg.rows, Some(range));
        assert!(to_toml(&cfg).lines().any(|l| l == "rows = \"100..3000\""));
        assert_eq!(
            written("rows = \"5..2\"\n").unwrap_err(),
            "FILE: invalid row range '5..2' (expected END greater than START)"
        );
    }
}
