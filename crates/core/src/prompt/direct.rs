//! The four built-in templates written out directly, without the template engine: the
//! same bytes minijinja renders from `assets/templates/` (tests render both over ETTh1's
//! windows and thousands of random feature sets), at a fraction of the cost. Rendering was
//! the pipeline's largest stage; user templates, and any edit of a built-in, still go
//! through minijinja.

use super::pyfmt::{Fixed, Repr};
use super::PromptVars;
use crate::features::{Degenerate, Features, Text};
use std::fmt::Write;

/// Which built-in a template's source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    TimeLlm,
    Minimal,
    Balanced,
    Detailed,
}

impl Direct {
    /// The writer for `source` when it is exactly a built-in's text.
    pub fn for_source(source: &str) -> Option<Self> {
        let named = |name| super::builtin(name) == Some(source);
        [
            ("timellm", Direct::TimeLlm),
            ("dwt-minimal", Direct::Minimal),
            ("dwt-balanced", Direct::Balanced),
            ("dwt-detailed", Direct::Detailed),
        ]
        .into_iter()
        .find(|(n, _)| named(n))
        .map(|(_, d)| d)
    }

    pub fn render(self, v: &PromptVars<'_>) -> String {
        let mut s = String::with_capacity(self.room(v));
        self.write(v, &mut s);
        s
    }

    /// Room for a whole prompt: the string is not grown while it is written.
    pub fn room(self, v: &PromptVars<'_>) -> usize {
        384 + v.description.len()
    }

    /// The prompt appended to `s`: its pieces in order.
    pub fn write(self, v: &PromptVars<'_>, s: &mut String) {
        for piece in Piece::ALL {
            self.write_piece(piece, v, s);
        }
    }

    /// One piece of the prompt appended to `s` (see [`Piece`]).
    pub fn write_piece(self, piece: Piece, v: &PromptVars<'_>, s: &mut String) {
        let f = v.features;
        // A constant input's prompt says so in place of the band claims and lags.
        let constant = f.degenerate == Some(Degenerate::Constant);
        // Writing to a String cannot fail, hence the ignored results. Pieces are pushed
        // one by one and integers go through `itoa`, not the formatting machinery.
        match piece {
            Piece::Opening => self.opening(v, s),
            Piece::Statistics => self.statistics(v, s),
            Piece::Words if constant => s.push_str(match self {
                Direct::TimeLlm => ", the input is constant<|<end_prompt>|>",
                Direct::Minimal => "constant input\nCycles: none<|<end_prompt>|>",
                Direct::Balanced => {
                    "Pattern analysis: constant input\nDominant periodicities: none<|<end_prompt>|>"
                }
                Direct::Detailed => {
                    "Multi-scale wavelet analysis: none (constant input)\nTemporal patterns: none<|<end_prompt>|>"
                }
            }),
            Piece::Words => self.words(v, s),
            Piece::Tail if constant => {}
            Piece::Tail => {
                // `lags[:n] | pylist` and the end marker.
                let n_lags = match self {
                    Direct::TimeLlm => usize::MAX,
                    Direct::Minimal => 2,
                    Direct::Balanced => 3,
                    Direct::Detailed => 5,
                };
                s.push('[');
                for (i, l) in f.lags.iter().take(n_lags).enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(itoa::Buffer::new().format(*l));
                }
                s.push_str("]<|<end_prompt>|>");
            }
        }
    }

    /// What a unit's words are a function of, where that is a few static wordings alone
    /// (`Minimal`, `Balanced`): whether the input is constant, and each wording's address
    /// and length. A static wording is one string in the binary, so units of one identity
    /// have the same words (a sweep writes and hashes them once per identity, not once
    /// per unit); two identities may still word alike. None where the words print numbers
    /// (`Detailed`, `TimeLlm`'s trend) or a wording was made for the case (past
    /// `describe`'s worded bands).
    pub fn words_identity(self, f: &Features) -> Option<[usize; 9]> {
        let at = |t: &Text| match t {
            Text::Borrowed(s) => Some([s.as_ptr() as usize, s.len()]),
            Text::Owned(_) => None,
        };
        match self {
            Direct::Minimal | Direct::Balanced => {
                let mut id = [0; 9];
                id[0] = usize::from(f.degenerate == Some(Degenerate::Constant));
                let texts = [
                    &f.freq_pattern,
                    &f.trend_desc,
                    &f.signal_quality,
                    &f.difficulty,
                ];
                for (k, t) in texts.into_iter().enumerate() {
                    id[1 + 2 * k..3 + 2 * k].copy_from_slice(&at(t)?);
                }
                Some(id)
            }
            Direct::TimeLlm | Direct::Detailed => None,
        }
    }

    /// The description and the task (lengths).
    fn opening(self, v: &PromptVars<'_>, s: &mut String) {
        // The task line Time-LLM's prompt starts with; `sep` ends each of its two parts.
        let task = |s: &mut String, sep: &str| {
            s.push_str("<|start_prompt|>Dataset description: ");
            s.push_str(v.description);
            s.push_str(sep);
            s.push_str("Task description: forecast the next ");
            s.push_str(itoa::Buffer::new().format(v.pred_len));
            s.push_str(" steps given the previous ");
            s.push_str(itoa::Buffer::new().format(v.seq_len));
            s.push_str(" steps information; ");
            s.push_str(sep);
        };
        match self {
            Direct::TimeLlm => task(s, ""),
            Direct::Minimal => {
                s.push_str("<|start_prompt|>");
                s.push_str(v.description);
                s.push_str("\nForecast ");
                s.push_str(itoa::Buffer::new().format(v.pred_len));
                s.push_str(" from ");
                s.push_str(itoa::Buffer::new().format(v.seq_len));
                s.push_str(": ");
            }
            Direct::Balanced | Direct::Detailed => task(s, "\n"),
        }
    }

    /// Time-LLM's statistics of the input: min, max and median.
    fn statistics(self, v: &PromptVars<'_>, s: &mut String) {
        let f = v.features;
        match self {
            Direct::TimeLlm => {
                s.push_str("Input statistics: min value ");
                let _ = Repr(f.min).write_to(s);
                s.push_str(", max value ");
                let _ = Repr(f.max).write_to(s);
                s.push_str(", median value ");
                let _ = Repr(f.median).write_to(s);
            }
            Direct::Minimal => {
                let _ = writeln!(
                    s,
                    "[{},{}]@{}",
                    Fixed(f.min, 1),
                    Fixed(f.max, 1),
                    Fixed(f.median, 1),
                );
            }
            Direct::Balanced => {
                let _ = writeln!(
                    s,
                    "Input statistics: range [{}, {}], median {}",
                    Fixed(f.min, 2),
                    Fixed(f.max, 2),
                    Fixed(f.median, 2),
                );
            }
            Direct::Detailed => {
                let _ = writeln!(
                    s,
                    "Input statistics:\n  - Value range: [{}, {}]\n  - Median: {}",
                    Fixed(f.min, 2),
                    Fixed(f.max, 2),
                    Fixed(f.median, 2),
                );
            }
        }
    }

    /// What the wavelet's features say (Time-LLM's trend word for `timellm`), up to the
    /// lags' heading.
    fn words(self, v: &PromptVars<'_>, s: &mut String) {
        let f = v.features;
        match self {
            Direct::TimeLlm => {
                s.push_str(", the trend of input is ");
                s.push_str(if f.trend > 0.0 { "upward" } else { "downward" });
                s.push_str(", top 5 lags are : ");
            }
            Direct::Minimal => {
                s.push_str(&f.freq_pattern);
                s.push_str(", ");
                s.push_str(&f.trend_desc);
                s.push_str(", ");
                s.push_str(&f.signal_quality);
                if f.difficulty == "high" {
                    s.push_str(", high difficulty");
                }
                s.push_str("\nCycles: ");
            }
            Direct::Balanced => {
                s.push_str("Pattern analysis: ");
                s.push_str(&f.freq_pattern);
                s.push_str(", trend is ");
                s.push_str(&f.trend_desc);
                s.push_str(", signal quality is ");
                s.push_str(&f.signal_quality);
                if f.difficulty != "moderate" {
                    s.push_str(", forecast difficulty: ");
                    s.push_str(&f.difficulty);
                }
                s.push_str("\nDominant periodicities: ");
            }
            Direct::Detailed => {
                let _ = write!(
                    s,
                    "Multi-scale wavelet analysis:\n  - Frequency pattern: {}\n  - Trend behavior: {}\n  - Signal quality: {} (SNR: {} dB)\n  - Energy entropy: {}\n  - Prediction difficulty: {}\nTemporal patterns: top periodicities are ",
                    f.freq_pattern,
                    f.trend_desc,
                    f.signal_quality,
                    Fixed(f.snr_db, 1),
                    Fixed(f.energy_entropy, 2),
                    f.difficulty,
                );
            }
        }
    }
}

/// Where a built-in prompt is cut for a sweep, which renders the same units under many
/// wavelets: the opening depends on the run alone (description, lengths), the statistics
/// and the tail (the top lags) on the unit's Time-LLM statistics alone, the words on the
/// wavelet's features. A constant input's words say so and its tail is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Opening,
    Statistics,
    Words,
    Tail,
}

impl Piece {
    /// The pieces in the prompt's order.
    pub const ALL: [Piece; 4] = [Piece::Opening, Piece::Statistics, Piece::Words, Piece::Tail];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Features;
    use crate::prompt::{Prompter, BUILTINS};

    /// A number, often one that rounds awkwardly.
    fn num(r: &mut impl FnMut() -> u64) -> f64 {
        const AWKWARD: [f64; 12] = [
            0.0,
            -0.0,
            0.005,
            -0.005,
            2.675,
            0.05,
            1e-300,
            -1e300,
            123_456_789.125,
            0.1 + 0.2,
            -7.0,
            1.5e-7,
        ];
        let k = r();
        if k.is_multiple_of(3) {
            AWKWARD[(k / 3) as usize % AWKWARD.len()]
        } else {
            (r() as i64 % 2_000_001 - 1_000_000) as f64 / (1 + r() % 10_000) as f64
        }
    }

    fn features(r: &mut impl FnMut() -> u64) -> Features {
        let words = [
            "single-scale dominant (trend)",
            "mixed (1/4 scales upward)",
            "ü {{ x }}",
        ];
        let difficulty = ["low", "moderate", "high"];
        Features {
            degenerate: [None, Some(Degenerate::Constant), Some(Degenerate::Level)]
                [(r() % 3) as usize],
            energy_ratio: smallvec::smallvec![num(r), num(r)],
            energy_entropy: num(r),
            dominant_band: 1,
            dominant_energy: num(r),
            freq_pattern: words[(r() % 3) as usize].into(),
            trends: smallvec::smallvec![num(r)],
            trends_sign: smallvec::smallvec![1, -1],
            trend_consistency: num(r),
            trend_desc: words[(r() % 3) as usize].into(),
            band_stds: smallvec::smallvec![num(r)],
            snr_db: num(r),
            volatility_ratio: num(r),
            stability_desc: words[(r() % 3) as usize].into(),
            signal_quality: words[(r() % 3) as usize].into(),
            difficulty_score: num(r),
            difficulty: difficulty[(r() % 3) as usize].into(),
            min: num(r),
            max: num(r),
            median: num(r),
            trend: num(r),
            lags: (0..r() % 8).map(|_| (r() % 600) as usize).collect(),
            lags_clean: (0..r() % 6).map(|_| (r() % 300) as usize).collect(),
        }
    }

    #[test]
    fn direct_writers_render_what_minijinja_renders() {
        let mut r = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        for (name, src) in BUILTINS {
            let direct = Prompter::new(src).unwrap();
            assert!(direct.direct.is_some(), "{name} has a direct writer");
            let engine = Prompter::interpreted(src).unwrap();
            for i in 0..3000 {
                let f = features(&mut r);
                let description = ["ETTh1", "line one\nline two {% raw %}", ""][i % 3];
                let vars = PromptVars {
                    features: &f,
                    description,
                    seq_len: 96 + i,
                    pred_len: i,
                };
                assert_eq!(
                    direct.render(&vars).unwrap(),
                    engine.render(&vars).unwrap(),
                    "{name}, case {i}: {f:?}"
                );
            }
        }
        // An edited built-in is a user template: minijinja renders it.
        let edited = format!("{} ", BUILTINS[0].1);
        assert!(Prompter::new(&edited).unwrap().direct.is_none());
    }
}
