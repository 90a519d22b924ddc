//! Option values by name. Every option enum (mode, engine, aggregation, …) spells its
//! values one way, lists them in `ALL`, prints them with `Display` and reads them with
//! `FromStr` (trimmed, any case), all from one declaration: [`named!`].

/// A name that is none of an option's values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{given}' (expected {})", listed(names))]
pub struct UnknownName {
    /// What the option is ("mode", "engine", …).
    pub what: &'static str,
    /// The name given, trimmed and in lower case.
    pub given: String,
    /// The names the option takes.
    pub names: &'static [&'static str],
}

/// A value an option cannot take: what the option is, what was given, and the form it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} '{given}' (expected {expected})")]
pub struct BadValue {
    pub what: &'static str,
    pub given: String,
    pub expected: &'static str,
}

/// "a, b or c".
fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `named! { Type, "what": Variant = "name" [| "alias"…], … }` gives `Type::ALL` (in the
/// order listed), `Type::NAMES`, `Type::name()`, `Display` and `FromStr` (which also takes
/// the aliases, and fails with an [`UnknownName`]).
macro_rules! named {
    ($ty:ident, $what:literal: $($variant:ident = $name:literal $(| $alias:literal)*),+ $(,)?) => {
        impl $ty {
            /// Every value, in the order the docs list them.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];
            /// Every value's name, in `ALL`'s order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The value's name, as options, files and the docs spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let given = s.trim().to_ascii_lowercase();
                match given.as_str() {
                    $($name $(| $alias)* => Ok($ty::$variant),)+
                    _ => Err($crate::names::UnknownName {
                        what: $what,
                        given,
                        names: Self::NAMES,
                    }),
                }
            }
        }
    };
}

pub(crate) use named;

/// How a report (a sweep's, a timing report) is written: named by the output's
/// extension (`-o SWEEP.md`), or by the wheel's `format=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReportFormat {
    Json,
    Csv,
    Markdown,
}

named! {
    ReportFormat, "report format":
    Json = "json",
    Csv = "csv",
    Markdown = "md" | "markdown",
}

/// The options a message can name, by their configuration keys (the TOML file's, `Config`'s
/// fields, the sweep's settings): a [`Phrase`] names them, and each front end words them
/// (the command line as flags, `--seq-len`; the app as its controls, "window length").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opt {
    Wavelet,
    Level,
    Mode,
    Rows,
    SeqLen,
    Stride,
    BatchSize,
    Missing,
    Dtype,
    Columns,
    TimeColumn,
    Shard,
    Template,
    PredLen,
    Split,
    Wavelets,
    Levels,
    Modes,
    NullDraws,
    Bootstrap,
    Claim,
    Output,
    Normalize,
    FitSubsetAbove,
    Prepared,
}

named! {
    Opt, "option":
    Wavelet = "wavelet",
    Level = "level",
    Mode = "mode",
    Rows = "rows",
    SeqLen = "seq_len",
    Stride = "stride",
    BatchSize = "batch_size",
    Missing = "missing",
    Dtype = "dtype",
    Columns = "columns",
    TimeColumn = "time_column",
    Shard = "shard",
    Template = "template",
    PredLen = "pred_len",
    Split = "split",
    Wavelets = "wavelets",
    Levels = "levels",
    Modes = "modes",
    NullDraws = "null_draws",
    Bootstrap = "bootstrap",
    Claim = "claim",
    Output = "output",
    Normalize = "normalize",
    FitSubsetAbove = "fit_subset_above",
    Prepared = "prepared",
}

/// Where a [`Phrase`]'s text names an option (a private-use character: no data or message
/// has it).
pub const OPTION: char = '\u{E000}';

/// A message that may name options, worded by whoever shows it ([`Phrase::worded`]);
/// `Display` uses the options' configuration keys (`seq_len`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phrase {
    /// The message, each [`OPTION`] standing for the next of `options`.
    text: String,
    options: Vec<Opt>,
}

impl Phrase {
    /// A message that names no option (an [`OPTION`] in it, from data, is replaced).
    pub fn new(message: impl Into<String>) -> Self {
        Phrase {
            text: message.into().replace(OPTION, "\u{FFFD}"),
            options: Vec::new(),
        }
    }

    /// A message naming `options`, one per [`OPTION`] in `text`, in order.
    pub fn about(options: &[Opt], text: impl Into<String>) -> Self {
        let text = text.into();
        debug_assert_eq!(text.matches(OPTION).count(), options.len());
        Phrase {
            text,
            options: options.to_vec(),
        }
    }

    /// The same message, said of `place` (a file): `place: message`; an empty place
    /// leaves it as it is.
    pub fn within(self, place: &str) -> Self {
        if place.is_empty() {
            return self;
        }
        Phrase {
            text: format!("{}: {}", place.replace(OPTION, "\u{FFFD}"), self.text),
            options: self.options,
        }
    }

    /// The options the message names.
    pub fn options(&self) -> &[Opt] {
        &self.options
    }

    /// The message with each option in `word`'s words.
    pub fn worded(&self, word: impl Fn(Opt) -> String) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut options = self.options.iter();
        for (k, part) in self.text.split(OPTION).enumerate() {
            if k > 0 {
                if let Some(&o) = options.next() {
                    out += &word(o);
                }
            }
            out += part;
        }
        out
    }
}

impl std::fmt::Display for Phrase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.worded(|o| o.name().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{DType, EngineKind};
    use crate::wavelet::Mode;

    #[test]
    fn names_read_back_and_unknown_ones_say_what_is_expected() {
        for m in Mode::ALL {
            assert_eq!(m.to_string().parse::<Mode>(), Ok(m));
            assert_eq!(
                format!(" {} ", m.name().to_uppercase()).parse::<Mode>(),
                Ok(m)
            );
        }
        assert_eq!(Mode::NAMES.len(), Mode::ALL.len());
        assert_eq!("double".parse::<DType>(), Ok(DType::F64));
        let e = "cuda".parse::<EngineKind>().unwrap_err();
        assert_eq!(e.what, "engine");
        assert_eq!(
            e.to_string(),
            "unknown engine 'cuda' (expected auto, native, torch-cpu or torch-cuda)"
        );
    }

    #[test]
    fn a_data_error_names_its_options_in_each_front_ends_words() {
        use crate::data::DataError;
        use crate::names::{Opt, OPTION};
        let flag = |o: Opt| format!("--{}", o.name().replace('_', "-"));
        let e = DataError::about(
            &[Opt::SeqLen, Opt::Stride],
            format!("{OPTION} 600 is too long; a larger {OPTION} helps"),
        )
        .within("a.csv");
        assert_eq!(e.options(), [Opt::SeqLen, Opt::Stride]);
        assert_eq!(
            e.to_string(),
            "a.csv: seq_len 600 is too long; a larger stride helps"
        );
        assert_eq!(
            e.worded(flag),
            "a.csv: --seq-len 600 is too long; a larger --stride helps"
        );
        // A marker in the data itself is not taken for an option.
        let plain = DataError::new(format!("column '{OPTION}x'"));
        assert_eq!(plain.worded(flag), "column '\u{FFFD}x'");
    }
}
