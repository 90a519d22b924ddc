//! A claim a researcher defines, as written (docs/score.md#claims-you-define): its name,
//! the outcome it is designated for and its template's text, read once from `--claim`,
//! a configuration's `[claims]` or the app's editor. [`super::DefinedClaim`] compiles one.

use super::{Claim, DefinedError, Target};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// `NAME[:OUTCOME]=TEMPLATE`, its name and outcome checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimSpec {
    pub name: String,
    /// The outcome its excess bits join every template's score for, if any.
    pub outcome: Option<Target>,
    /// The template's text: its rendering is the claim's category.
    pub template: String,
}

impl ClaimSpec {
    /// A claim keyed `NAME` or `NAME:OUTCOME` (each trimmed), its template `template`.
    pub fn new(key: &str, template: &str) -> Result<ClaimSpec, DefinedError> {
        let (name, outcome) = match key.split_once(':') {
            Some((n, o)) => (n.trim(), Some(o.trim())),
            None => (key.trim(), None),
        };
        let mut chars = name.chars();
        let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !well_formed {
            return Err(DefinedError::Name(name.to_string()));
        }
        if Claim::NAMES.contains(&name) {
            return Err(DefinedError::Builtin(name.to_string()));
        }
        let outcome = outcome
            .map(|o| {
                o.parse::<Target>().map_err(|error| DefinedError::Outcome {
                    name: name.to_string(),
                    error,
                })
            })
            .transpose()?;
        if template.trim().is_empty() {
            return Err(DefinedError::Empty(name.to_string()));
        }
        Ok(ClaimSpec {
            name: name.to_string(),
            outcome,
            template: template.to_string(),
        })
    }

    /// `NAME[:OUTCOME]`, as a configuration's `[claims]` keys it.
    pub fn key(&self) -> String {
        match self.outcome {
            Some(t) => format!("{}:{}", self.name, t.name()),
            None => self.name.clone(),
        }
    }
}

/// `NAME=TEMPLATE` or `NAME:OUTCOME=TEMPLATE`, as `--claim` takes it.
impl std::str::FromStr for ClaimSpec {
    type Err = DefinedError;
    fn from_str(spec: &str) -> Result<ClaimSpec, DefinedError> {
        let Some((key, template)) = spec.split_once('=') else {
            return Err(DefinedError::Form(spec.to_string()));
        };
        ClaimSpec::new(key, template)
    }
}

/// `NAME[:OUTCOME]=TEMPLATE`, as `--claim` takes it.
impl fmt::Display for ClaimSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key(), self.template)
    }
}

/// The claims of a run, each name once (under any outcome), in the order of their keys:
/// a configuration's `[claims]` table, written and read as that table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClaimSpecs(Vec<ClaimSpec>);

impl ClaimSpecs {
    /// Add `spec`: the one place a name defined twice is refused (`--claim` beside a
    /// configuration's `[claims]`, the app's editor line by line, the table itself).
    pub fn add(&mut self, spec: ClaimSpec) -> Result<(), DefinedError> {
        if self.0.iter().any(|c| c.name == spec.name) {
            return Err(DefinedError::Twice(spec.name));
        }
        let key = spec.key();
        let at = self.0.partition_point(|c| c.key() < key);
        self.0.insert(at, spec);
        Ok(())
    }

    /// Add the claim `text` (`NAME[:OUTCOME]=TEMPLATE`) defines once its template
    /// compiles: what `--claim` and the app's editor take.
    pub fn define(&mut self, text: &str) -> Result<(), DefinedError> {
        let spec: ClaimSpec = text.parse()?;
        super::DefinedClaim::new(spec.clone())?;
        self.add(spec)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, ClaimSpec> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> IntoIterator for &'a ClaimSpecs {
    type Item = &'a ClaimSpec;
    type IntoIter = std::slice::Iter<'a, ClaimSpec>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for ClaimSpecs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|c| (c.key(), &c.template)))
    }
}

impl<'de> Deserialize<'de> for ClaimSpecs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ClaimSpecs, D::Error> {
        let table = BTreeMap::<String, String>::deserialize(d)?;
        let mut specs = ClaimSpecs::default();
        for (key, template) in &table {
            ClaimSpec::new(key, template)
                .and_then(|c| specs.add(c))
                .map_err(serde::de::Error::custom)?;
        }
        Ok(specs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A claim is read once: its key trimmed and its outcome's alias written by name, so
    /// two spellings of one claim are one (the `[claims]` key was kept as written, and a
    /// report printed "level " as a name).
    #[test]
    fn a_key_is_read_once_and_written_canonically() {
        let c: ClaimSpec = " level : direction ={{ 1 }}".parse().unwrap();
        assert_eq!(c.name, "level");
        assert_eq!(c.outcome, Some(Target::Direction));
        assert_eq!(c.template, "{{ 1 }}");
        assert_eq!(c.to_string(), "level:direction={{ 1 }}");
        assert_eq!(
            "level".parse::<ClaimSpec>(),
            Err(DefinedError::Form("level".into()))
        );
        assert_eq!(
            ClaimSpec::new("trend", "x"),
            Err(DefinedError::Builtin("trend".into()))
        );
    }

    /// Each name once under any outcome, in key order, whichever order they were added.
    #[test]
    fn specs_hold_each_name_once_in_key_order() {
        let mut specs = ClaimSpecs::default();
        for spec in ["up:direction=a", "b_2=b", "a=c"] {
            specs.add(spec.parse().unwrap()).unwrap();
        }
        let keys: Vec<String> = specs.iter().map(ClaimSpec::key).collect();
        assert_eq!(keys, ["a", "b_2", "up:direction"]);
        assert_eq!(
            specs.add("up=d".parse().unwrap()),
            Err(DefinedError::Twice("up".into()))
        );
        assert_eq!(specs.len(), 3);
    }
}
