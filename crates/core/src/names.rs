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

/// The run's options, by their configuration keys (the TOML file's, `Config`'s fields):
/// what a [`crate::data::DataError`] names, each front end in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opt {
    Wavelet,
    Level,
    Rows,
    SeqLen,
    Stride,
    BatchSize,
    Missing,
    Dtype,
    Columns,
    Shard,
}

named! {
    Opt, "option":
    Wavelet = "wavelet",
    Level = "level",
    Rows = "rows",
    SeqLen = "seq_len",
    Stride = "stride",
    BatchSize = "batch_size",
    Missing = "missing",
    Dtype = "dtype",
    Columns = "columns",
    Shard = "shard",
}

impl Opt {
    /// The command line's flag: `--seq-len`.
    pub fn flag(self) -> String {
        format!("--{}", self.name().replace('_', "-"))
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
        use crate::data::{DataError, Opt, OPTION};
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
            e.worded(Opt::flag),
            "a.csv: --seq-len 600 is too long; a larger --stride helps"
        );
        // A marker in the data itself is not taken for an option.
        let plain = DataError::new(format!("column '{OPTION}x'"));
        assert_eq!(plain.worded(Opt::flag), "column '\u{FFFD}x'");
    }
}
