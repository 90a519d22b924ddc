//! What one multilevel decomposition is: a filter bank, how many levels, and how the
//! edges extend. One type from the configuration to the labels: a run, a sweep's grid
//! point and the app's pinned configurations all carry a [`Transform`], and "db4 level 3
//! reflect" is its `Display`. In TOML it is three keys, `wavelet` (a pywt name), `level`
//! and `mode`, flattened into the configuration.

use crate::wavelet::{self, Mode, UnknownWavelet, Wavelet};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::hash::{Hash, Hasher};

/// A filter bank from the catalogue, a level and a signal-extension mode. The level is
/// checked against a window's length where the windows are known
/// ([`crate::engine::plan::check_level`], through `Plan::check_level`).
#[derive(Debug, Clone, Copy)]
pub struct Transform {
    pub wavelet: &'static Wavelet,
    pub level: usize,
    pub mode: Mode,
}

impl Transform {
    /// The catalogue's wavelet `name` (pywt's, any case) at `level`, extended by `mode`.
    pub fn new(name: &str, level: usize, mode: Mode) -> Result<Self, UnknownWavelet> {
        Ok(Transform {
            wavelet: wavelet::lookup(name)?,
            level,
            mode,
        })
    }

    /// The wavelet's pywt name.
    pub fn name(&self) -> &'static str {
        &self.wavelet.name
    }

    /// The deepest level windows of `len` samples allow features at (0: none).
    pub fn max_level(&self, len: usize) -> usize {
        self.wavelet.max_level(len)
    }
}

impl Default for Transform {
    /// The seed's: db4, level 3, reflect.
    fn default() -> Self {
        Transform {
            wavelet: wavelet::lookup("db4").expect("db4 is in the catalogue"),
            level: 3,
            mode: Mode::Reflect,
        }
    }
}

/// Filter banks are compared by name: each name is one entry of the catalogue.
impl PartialEq for Transform {
    fn eq(&self, other: &Self) -> bool {
        self.wavelet.name == other.wavelet.name
            && self.level == other.level
            && self.mode == other.mode
    }
}

impl Eq for Transform {}

impl Hash for Transform {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.wavelet.name.hash(h);
        self.level.hash(h);
        self.mode.hash(h);
    }
}

/// "db4 level 3 reflect": the one label of a transform.
/// Its label, "db4 level 3 reflect": the wavelet and level ([`Transform::wavelet_level`])
/// and the mode. Every label of a configuration starts from these words (a sweep row's
/// from [`Transform::label_unless_reflect`]).
impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.wavelet_level(), self.mode.name())
    }
}

impl Transform {
    /// "db4 level 3".
    pub fn wavelet_level(&self) -> String {
        format!("{} level {}", self.wavelet.name, self.level)
    }

    /// "db4 level 3", and the mode where it is not reflect (the default): a sweep row's
    /// label before its template.
    pub fn label_unless_reflect(&self) -> String {
        match self.mode {
            Mode::Reflect => self.wavelet_level(),
            _ => self.to_string(),
        }
    }
}

/// The transform as its file spells it: names, each key optional.
#[derive(Serialize, Deserialize)]
#[serde(default)]
struct Named {
    wavelet: String,
    level: usize,
    mode: Mode,
}

impl Default for Named {
    fn default() -> Self {
        Named::from(Transform::default())
    }
}

impl From<Transform> for Named {
    fn from(t: Transform) -> Self {
        Named {
            wavelet: t.wavelet.name.clone(),
            level: t.level,
            mode: t.mode,
        }
    }
}

impl Serialize for Transform {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Named::from(*self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Transform {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = Named::deserialize(d)?;
        Transform::new(&n.wavelet, n.level, n.mode).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::{self, PlanError};

    #[test]
    fn the_label_and_the_names_round_trip() {
        let t = Transform::new("DB4", 2, Mode::Periodization).unwrap();
        assert_eq!(t.to_string(), "db4 level 2 periodization");
        assert_eq!(t.name(), "db4");
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"{"wavelet":"db4","level":2,"mode":"periodization"}"#
        );
        assert_eq!(serde_json::from_str::<Transform>(&json).unwrap(), t);
        // Missing keys take the seed's defaults; an unknown name says what is near.
        let d: Transform = serde_json::from_str(r#"{"level":5}"#).unwrap();
        assert_eq!(
            d,
            Transform {
                level: 5,
                ..Transform::default()
            }
        );
        let e = serde_json::from_str::<Transform>(r#"{"wavelet":"db44"}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown wavelet 'db44' (did you mean"),
            "{e}"
        );
    }

    #[test]
    fn the_level_rule_reads_the_window() {
        let t = Transform::default();
        assert_eq!(t.max_level(512), 6);
        assert!(plan::check_level(t.wavelet, 6, 512).is_ok());
        let e = plan::check_level(t.wavelet, 7, 512).unwrap_err();
        assert!(matches!(e, PlanError::AboveMaxLevel { max: 6, .. }), "{e}");
        let e = plan::check_level(t.wavelet, 3, 10).unwrap_err();
        assert!(matches!(e, PlanError::NoLevelFits { need: 14, .. }), "{e}");
    }
}
