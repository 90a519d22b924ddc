//! Where a template comes from. "Template" is the text the prompts are rendered from; a
//! configuration's `template` key names its source: a built-in by name, a template file,
//! or (in the app) the template editor, written "custom". The key is the text it was
//! typed as, so files and saved settings read and write as before.

use serde::{Deserialize, Deserializer, Serialize};
use std::path::PathBuf;

/// The name the app's settings give the template editor's text.
pub const EDITOR: &str = "custom";

/// A template's source, as a configuration's `template` names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "String")]
pub enum TemplateSource {
    /// One of [`super::BUILTINS`], by name.
    Builtin(&'static str),
    /// The app's template editor ([`EDITOR`]).
    Editor,
    /// A template file.
    File(PathBuf),
}

impl TemplateSource {
    /// The built-in's text; None for a file's or the editor's.
    pub fn builtin_text(&self) -> Option<&'static str> {
        match self {
            TemplateSource::Builtin(name) => super::builtin(name),
            _ => None,
        }
    }
}

impl From<&str> for TemplateSource {
    /// A built-in's name, the editor's, else a file's path.
    fn from(spec: &str) -> Self {
        match super::BUILTINS.iter().find(|(name, _)| *name == spec) {
            Some((name, _)) => TemplateSource::Builtin(name),
            None if spec == EDITOR => TemplateSource::Editor,
            None => TemplateSource::File(PathBuf::from(spec)),
        }
    }
}

impl From<String> for TemplateSource {
    fn from(spec: String) -> Self {
        TemplateSource::from(spec.as_str())
    }
}

impl From<TemplateSource> for String {
    fn from(source: TemplateSource) -> Self {
        source.to_string()
    }
}

impl<'de> Deserialize<'de> for TemplateSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(TemplateSource::from)
    }
}

impl std::fmt::Display for TemplateSource {
    /// As the configuration writes it: the name, "custom" or the path.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateSource::Builtin(name) => f.write_str(name),
            TemplateSource::Editor => f.write_str(EDITOR),
            TemplateSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

impl Default for TemplateSource {
    fn default() -> Self {
        TemplateSource::from(super::DEFAULT_TEMPLATE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind reads back from the text it writes, so a configuration file and the app's
    /// saved settings are unchanged.
    #[test]
    fn a_source_is_the_text_it_was_typed_as() {
        for spec in ["timellm", "dwt-detailed", "custom", "my/t.jinja", "Custom"] {
            let source = TemplateSource::from(spec);
            assert_eq!(source.to_string(), spec);
            let json = serde_json::to_string(&source).unwrap();
            assert_eq!(json, format!("{spec:?}"));
            assert_eq!(
                serde_json::from_str::<TemplateSource>(&json).unwrap(),
                source
            );
        }
        assert_eq!(
            TemplateSource::from("timellm"),
            TemplateSource::Builtin("timellm")
        );
        assert_eq!(TemplateSource::from("custom"), TemplateSource::Editor);
        assert_eq!(
            TemplateSource::from("Custom"),
            TemplateSource::File("Custom".into())
        );
        assert!(TemplateSource::from("dwt-minimal").builtin_text().is_some());
        assert!(TemplateSource::Editor.builtin_text().is_none());
        assert_eq!(TemplateSource::default().to_string(), "dwt-balanced");
    }
}
