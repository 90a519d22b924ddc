//! Which configurations a sweep runs: wavelets by name or pattern (`db1,db4,sym*`), levels
//! (`1..6`, `2,3`, or every valid one) and extension modes. Wavelets with the
//! same filter bank (haar = db1 = bior1.1 = rbio1.1; db2 = sym2, whose taps differ by
//! 1e-12) run once, under the first name, with the others listed as its aliases.

use crate::error::{Error, Result};
use std::ops::RangeInclusive;
use std::str::FromStr;
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::run_spec::MAX_LEVEL;
use wavebench_core::transform::Transform;
use wavebench_core::wavelet::{self, Mode, Wavelet};

/// The axes of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Names or glob patterns (`*`, `?`, `[…]`), matched against pywt's names.
    pub wavelets: Vec<String>,
    pub levels: Levels,
    pub modes: Vec<Mode>,
}

impl Default for Grid {
    fn default() -> Self {
        Grid {
            wavelets: vec!["*".into()],
            levels: Levels::Valid,
            modes: vec![Mode::Reflect],
        }
    }
}

/// Which levels of each wavelet.
#[derive(Debug, Clone, PartialEq)]
pub enum Levels {
    /// 1 to the wavelet's maximum level for the window length.
    Valid,
    /// These, each where the wavelet allows it.
    Listed(Vec<usize>),
}

impl FromStr for Levels {
    type Err = Error;
    /// `1..6` (inclusive), `2,3`, or `valid`. The error names the part at fault; whoever
    /// reads the text (clap, for `--levels`) names the option.
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim();
        if s == "valid" || s == "all" {
            return Ok(Levels::Valid);
        }
        let level = |t: &str| -> Result<usize> {
            match t.trim().parse::<u128>() {
                Ok(l) if l > MAX_LEVEL as u128 => Err(Error::input(format!(
                    "level {} is above {MAX_LEVEL}, the deepest any run takes",
                    t.trim()
                ))),
                Ok(l) if l >= 1 => Ok(l as usize),
                _ => Err(Error::input(format!("'{t}' is not a level (1 or more)"))),
            }
        };
        if let Some((a, b)) = s.split_once("..") {
            let b = b.strip_prefix('=').unwrap_or(b);
            let r: RangeInclusive<usize> = level(a)?..=level(b)?;
            if r.is_empty() {
                return Err(Error::input(format!("'{s}': the range is empty")));
            }
            return Ok(Levels::Listed(r.collect()));
        }
        // In the order given, repeats kept: the grid runs each once and says so.
        let v: Vec<usize> = s.split(',').map(level).collect::<Result<_, _>>()?;
        Ok(Levels::Listed(v))
    }
}

/// One configuration of the grid.
#[derive(Debug, Clone)]
pub struct Point {
    pub transform: Transform,
    /// Other selected wavelets with the same filter bank.
    pub aliases: Vec<&'static str>,
}

impl Grid {
    /// The selected wavelets in catalogue order, each filter bank once with its aliases.
    pub fn wavelets(&self) -> Result<Vec<(&'static Wavelet, Vec<&'static str>)>> {
        let mut chosen = vec![false; wavelet::all().len()];
        for p in &self.wavelets {
            let p = p.trim().to_ascii_lowercase();
            if p.contains(['*', '?', '[']) {
                let pattern = glob::Pattern::new(&p)
                    .map_err(|e| Error::about(&[Opt::Wavelets], format!("{OPTION} '{p}': {e}")))?;
                let mut any = false;
                for (i, w) in wavelet::all().iter().enumerate() {
                    if pattern.matches(&w.name) {
                        chosen[i] = true;
                        any = true;
                    }
                }
                if !any {
                    return Err(Error::about(
                        &[Opt::Wavelets],
                        format!("{OPTION} '{p}': matches no wavelet"),
                    ));
                }
            } else {
                let w = wavelet::lookup(&p)
                    .map_err(|e| Error::about(&[Opt::Wavelets], format!("{OPTION}: {e}")))?;
                let i = wavelet::all()
                    .iter()
                    .position(|x| x.name == w.name)
                    .unwrap_or(0);
                chosen[i] = true;
            }
        }
        let mut out: Vec<(&'static Wavelet, Vec<&'static str>)> = Vec::new();
        for (w, _) in wavelet::all().iter().zip(&chosen).filter(|(_, c)| **c) {
            match out.iter_mut().find(|(first, _)| same_bank(first, w)) {
                Some((_, aliases)) => aliases.push(&w.name),
                None => out.push((w, Vec::new())),
            }
        }
        Ok(out)
    }

    /// Values given more than once (each runs once), in the grid's options and `others`
    /// (the templates, say), as one line.
    pub fn repeats(&self, others: &[(&str, &[String])]) -> Option<String> {
        let wavelets: Vec<String> = self
            .wavelets
            .iter()
            .map(|w| w.trim().to_ascii_lowercase())
            .collect();
        let levels: Vec<String> = match &self.levels {
            Levels::Valid => Vec::new(),
            Levels::Listed(v) => v.iter().map(usize::to_string).collect(),
        };
        let modes: Vec<String> = self.modes.iter().map(|m| m.name().to_string()).collect();
        let mut options: Vec<(&str, &[String])> = vec![
            ("--wavelets", &wavelets),
            ("--levels", &levels),
            ("--modes", &modes),
        ];
        options.extend_from_slice(others);
        repeated(&options)
    }

    /// Every (wavelet, level, mode) a window of `seq_len` allows, and a line for each kind
    /// of what it left out (levels above a wavelet's maximum, wavelets with no valid
    /// level); an error when nothing is left.
    pub fn points(&self, seq_len: usize) -> Result<(Vec<Point>, Vec<String>)> {
        if self.modes.is_empty() {
            return Err(Error::about(
                &[Opt::Modes],
                format!("{OPTION}: no mode given"),
            ));
        }
        // Each mode once, in the order first given.
        let modes: Vec<Mode> = self
            .modes
            .iter()
            .enumerate()
            .filter(|(i, m)| !self.modes[..*i].contains(m))
            .map(|(_, m)| *m)
            .collect();
        let mut out = Vec::new();
        // Wavelets with no valid level; (wavelet, its maximum, the levels asked above it).
        let mut none: Vec<&str> = Vec::new();
        let mut above: Vec<(&str, usize, Vec<usize>)> = Vec::new();
        for (w, aliases) in self.wavelets()? {
            let max = w.max_level(seq_len);
            let levels: Vec<usize> = match &self.levels {
                Levels::Valid => (1..=max).collect(),
                Levels::Listed(v) => {
                    let mut v: Vec<usize> = v.iter().copied().filter(|&l| l <= max).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                }
            };
            if max == 0 {
                none.push(&w.name);
            } else if let Levels::Listed(v) = &self.levels {
                let mut skipped: Vec<usize> = v.iter().copied().filter(|&l| l > max).collect();
                skipped.sort_unstable();
                skipped.dedup();
                if !skipped.is_empty() {
                    above.push((&w.name, max, skipped));
                }
            }
            for level in levels {
                for &mode in &modes {
                    out.push(Point {
                        transform: Transform {
                            wavelet: w,
                            level,
                            mode,
                        },
                        aliases: aliases.clone(),
                    });
                }
            }
        }
        let skipped = left_out_lines(seq_len, &none, &above);
        if out.is_empty() {
            return Err(Error::about(
                &[Opt::SeqLen, Opt::Wavelets, Opt::Levels],
                format!(
                    "sweep: windows of {seq_len} rows allow none of the chosen wavelets at the chosen levels (each needs (filter length - 1)·2^level ≤ {seq_len}): lengthen {OPTION}, or choose shorter {OPTION} or lower {OPTION}"
                ),
            ));
        }
        Ok((out, skipped))
    }
}

/// A line for each kind of what a grid left out for windows of `seq_len` rows: the
/// wavelets with no valid level (`none`), and each wavelet's levels above its maximum
/// (`above`: the wavelet, its maximum, the levels asked above it).
fn left_out_lines(
    seq_len: usize,
    none: &[&str],
    above: &[(&str, usize, Vec<usize>)],
) -> Vec<String> {
    let mut lines = Vec::new();
    if !none.is_empty() {
        lines.push(format!(
            "{} left out: windows of {seq_len} rows allow {} no level (level 1 needs a window of at least 2·(filter length - 1) rows)",
            listed(none),
            if none.len() == 1 { "it" } else { "them" },
        ));
    }
    if !above.is_empty() {
        let each: Vec<String> = above
            .iter()
            .map(|(w, max, l)| {
                let l: Vec<String> = l.iter().map(usize::to_string).collect();
                format!("{w} {} (up to {max})", l.join(","))
            })
            .collect();
        lines.push(format!(
            "levels above a wavelet's maximum for windows of {seq_len} rows left out: {}",
            listed(&each)
        ));
    }
    lines
}

/// "db4 given 2 times in --wavelets, 3 given 2 times in --levels; each runs once": each
/// option's values given more than once, or None.
fn repeated(options: &[(&str, &[String])]) -> Option<String> {
    let mut said = Vec::new();
    for (option, values) in options {
        for (i, v) in values.iter().enumerate() {
            let times = values.iter().filter(|x| *x == v).count();
            if times > 1 && !values[..i].contains(v) {
                said.push(format!("{v} given {times} times in {option}"));
            }
        }
    }
    (!said.is_empty()).then(|| format!("{}; each runs once", said.join(", ")))
}

/// The first few of `names`, then how many more.
fn listed<S: AsRef<str>>(names: &[S]) -> String {
    crate::words::first_few(names, 8, "")
}

/// Filters closer than this in every tap are one bank: pywt's db2 and sym2 differ by
/// ~1e-12 (rounding in their published digits), far below anything a feature resolves.
const SAME_TAPS: f64 = 1e-9;

/// Two wavelets whose analysis filters agree within [`SAME_TAPS`] give the same features.
fn same_bank(a: &Wavelet, b: &Wavelet) -> bool {
    let close = |x: &[f64], y: &[f64]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= SAME_TAPS)
    };
    close(&a.dec_lo, &b.dec_lo) && close(&a.dec_hi, &b.dec_hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse() {
        assert_eq!(
            "1..3".parse::<Levels>().unwrap(),
            Levels::Listed(vec![1, 2, 3])
        );
        // As given: the grid runs each level once and notes the repeat.
        assert_eq!(
            "3,2,3".parse::<Levels>().unwrap(),
            Levels::Listed(vec![3, 2, 3])
        );
        assert_eq!("valid".parse::<Levels>().unwrap(), Levels::Valid);
        assert!("0..2"
            .parse::<Levels>()
            .unwrap_err()
            .to_string()
            .contains("'0' is not a level"));
        assert!("3..1"
            .parse::<Levels>()
            .unwrap_err()
            .to_string()
            .contains("empty"));
    }

    #[test]
    fn identical_banks_run_once() {
        let g = Grid {
            wavelets: vec!["haar".into(), "db1".into(), "*1.1".into(), "db4".into()],
            ..Grid::default()
        };
        let w = g.wavelets().unwrap();
        let names: Vec<(&str, Vec<&str>)> = w
            .iter()
            .map(|(w, a)| (w.name.as_str(), a.clone()))
            .collect();
        assert_eq!(
            names,
            vec![("haar", vec!["db1", "bior1.1", "rbio1.1"]), ("db4", vec![])]
        );
        // Banks that agree within 1e-9 (pywt's db2 and sym2 differ by ~1e-12) too; db4
        // and sym4 do not.
        let g = Grid {
            wavelets: vec!["db2".into(), "sym2".into(), "db4".into(), "sym4".into()],
            ..Grid::default()
        };
        let names: Vec<(String, Vec<&str>)> = g
            .wavelets()
            .unwrap()
            .iter()
            .map(|(w, a)| (w.name.clone(), a.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("db2".to_string(), vec!["sym2"]),
                ("db4".to_string(), vec![]),
                ("sym4".to_string(), vec![])
            ]
        );
    }

    #[test]
    fn patterns_and_levels_select() {
        let g = Grid {
            wavelets: vec!["sym*".into()],
            levels: Levels::Listed(vec![2, 9]),
            ..Grid::default()
        };
        let (p, skipped) = g.points(64).unwrap();
        assert!(p
            .iter()
            .all(|p| p.transform.wavelet.family == "sym" && p.transform.level == 2));
        // sym17..sym20 (34..40 taps) allow no level in 64 rows; the others stop at 4 or
        // below, so every one of them skips level 9.
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert!(
            skipped[0].starts_with(
                "sym17, sym18, sym19, sym20 left out: windows of 64 rows allow them no level"
            ),
            "{}",
            skipped[0]
        );
        assert!(skipped[1].contains("sym2 9 (up to 4)"), "{}", skipped[1]);
        let e = Grid {
            wavelets: vec!["symm*x".into()],
            ..Grid::default()
        }
        .wavelets()
        .unwrap_err()
        .to_string();
        assert!(e.contains("matches no wavelet"), "{e}");
        let e = Grid {
            wavelets: vec!["db44".into()],
            ..Grid::default()
        }
        .wavelets()
        .unwrap_err()
        .to_string();
        assert!(e.contains("did you mean"), "{e}");
    }
}
