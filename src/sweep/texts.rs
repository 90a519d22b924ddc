//! Every unit's prompt pieces that no wavelet changes, written once per sweep: a
//! built-in's opening, the unit's statistics and its top lags (`prompt::Piece`), as
//! written and with their digits masked. A configuration then writes only its words to
//! hash a prompt, and the hashes are those of the whole prompt ([`Diversity::hashes`]):
//! formatting the numbers and masking their digits had been most of a sweep's prompts.

use std::sync::Arc;
use wavebench_core::features::{Degenerate, Features};
use wavebench_core::prompt::{Direct, Piece, PromptVars, Prompter};
use wavebench_core::score::information::mask_digits_onto;
use wavebench_core::score::Diversity;
use wavebench_core::stats::SeriesStats;

/// Units past which a sweep writes each prompt whole rather than keep its pieces (about
/// 100 bytes a unit: 100 MB).
pub(super) const KEPT_TEXTS: usize = 1_000_000;

/// One built-in template's pieces of every unit that a sweep's statistics hold (in their
/// order), for one description and pair of lengths.
pub struct UnitTexts {
    direct: Direct,
    /// What the pieces were written for: the template's text, the description and the
    /// lengths.
    made_for: (String, String, usize, usize),
    /// The opening, the same for every unit: as written, and masked.
    opening: String,
    opening_masked: Vec<u8>,
    /// Every unit's statistics and then its tail, unit after unit: as written, and each
    /// piece masked on its own (as if after a letter).
    pieces: String,
    pieces_masked: Vec<u8>,
    /// Per unit, where its statistics and its tail end in `pieces` and in
    /// `pieces_masked`.
    ends: Vec<[[u32; 2]; 2]>,
}

/// The whole text so far ends in a digit (so a piece that starts with one goes on its
/// run).
fn after_digit(text: &str) -> bool {
    text.as_bytes().last().is_some_and(u8::is_ascii_digit)
}

/// A piece's mask (made as if after a letter) appended after `text`.
fn append_masked(masked: &mut Vec<u8>, text: &str, piece: &str, piece_masked: &[u8]) {
    // After a digit, a piece's leading run of digits continues the run already masked.
    let skip = after_digit(text) && piece.as_bytes().first().is_some_and(u8::is_ascii_digit);
    masked.extend_from_slice(&piece_masked[usize::from(skip)..]);
}

impl UnitTexts {
    /// The pieces of `prompter` (None unless it is a built-in with a direct writer) over
    /// units whose statistics are `stats`.
    pub(super) fn new(
        prompter: &Prompter,
        stats: &[SeriesStats],
        description: &str,
        seq_len: usize,
        pred_len: usize,
    ) -> Option<UnitTexts> {
        let direct = prompter.direct()?;
        if stats.len() > KEPT_TEXTS {
            return None;
        }
        let mut texts = UnitTexts {
            direct,
            made_for: (
                prompter.source().to_string(),
                description.to_string(),
                seq_len,
                pred_len,
            ),
            opening: String::new(),
            opening_masked: Vec::new(),
            pieces: String::new(),
            pieces_masked: Vec::new(),
            ends: Vec::with_capacity(stats.len()),
        };
        fn vars<'a>(features: &'a Features, (d, s, p): (&'a str, usize, usize)) -> PromptVars<'a> {
            PromptVars {
                features,
                description: d,
                seq_len: s,
                pred_len: p,
            }
        }
        let run = (description, seq_len, pred_len);
        let none = Features::of_statistics(SeriesStats::default());
        direct.write_piece(Piece::Opening, &vars(&none, run), &mut texts.opening);
        mask_digits_onto(texts.opening.as_bytes(), &mut texts.opening_masked, false);
        for s in stats {
            let f = Features::of_statistics(s.clone());
            let mut ends = [[0; 2]; 2];
            for (k, piece) in [Piece::Statistics, Piece::Tail].into_iter().enumerate() {
                let from = texts.pieces.len();
                direct.write_piece(piece, &vars(&f, run), &mut texts.pieces);
                let written = &texts.pieces.as_bytes()[from..];
                mask_digits_onto(written, &mut texts.pieces_masked, false);
                ends[0][k] = u32::try_from(texts.pieces.len()).ok()?;
                ends[1][k] = u32::try_from(texts.pieces_masked.len()).ok()?;
            }
            texts.ends.push(ends);
        }
        Some(texts)
    }

    /// Whether these are the pieces of `prompter` for this description and these
    /// lengths.
    pub(super) fn serve(
        &self,
        prompter: &Prompter,
        description: &str,
        seq_len: usize,
        pred_len: usize,
    ) -> bool {
        let (source, d, s, p) = &self.made_for;
        source == prompter.source() && d == description && *s == seq_len && *p == pred_len
    }

    /// The hashes of unit `i`'s prompt (`vars`: its features, the statistics those
    /// these pieces were written from), as [`Diversity::hashes`] gives them; `text` and
    /// `masked` are scratch. None when there is no unit `i`.
    pub(super) fn hashes(
        &self,
        i: usize,
        vars: &PromptVars<'_>,
        text: &mut String,
        masked: &mut Vec<u8>,
    ) -> Option<[u128; 2]> {
        let ends = self.ends.get(i)?;
        let start = match i {
            0 => [0, 0],
            _ => self.ends[i - 1].map(|e| e[1]),
        };
        // Where piece `k` (0: statistics, 1: tail) lies in the written or masked texts
        // (`m`).
        let at = |m: usize, k: usize| {
            let from = if k == 0 { start[m] } else { ends[m][0] } as usize;
            from..ends[m][k] as usize
        };
        let piece = |k: usize| self.pieces.get(at(0, k)).unwrap_or("");
        let masked_piece = |k: usize| self.pieces_masked.get(at(1, k)).unwrap_or(&[]);
        text.clear();
        masked.clear();
        text.push_str(&self.opening);
        masked.extend_from_slice(&self.opening_masked);
        append_masked(masked, text, piece(0), masked_piece(0));
        text.push_str(piece(0));
        let words = text.len();
        let after = after_digit(text);
        self.direct.write_piece(Piece::Words, vars, text);
        mask_digits_onto(&text.as_bytes()[words..], masked, after);
        // A constant input's words end its prompt.
        if vars.features.degenerate != Some(Degenerate::Constant) {
            append_masked(masked, text, piece(1), masked_piece(1));
            text.push_str(piece(1));
        }
        Some(Diversity::hashes_of(text.as_bytes(), masked))
    }
}

/// Each of `templates`' pieces over units whose statistics are `stats` (None for a
/// template without them): the ones in `kept` where they serve, written anew otherwise.
/// `kept` then holds those in use.
pub(super) fn for_templates(
    templates: &[(String, Arc<Prompter>)],
    stats: &[SeriesStats],
    (description, seq_len, pred_len): (&str, usize, usize),
    kept: &mut Vec<Arc<UnitTexts>>,
) -> Vec<Option<Arc<UnitTexts>>> {
    let out: Vec<Option<Arc<UnitTexts>>> = templates
        .iter()
        .map(|(_, prompter)| {
            let fits = |t: &&Arc<UnitTexts>| {
                t.ends.len() == stats.len() && t.serve(prompter, description, seq_len, pred_len)
            };
            match kept.iter().find(fits) {
                Some(t) => Some(t.clone()),
                None => {
                    UnitTexts::new(prompter, stats, description, seq_len, pred_len).map(Arc::new)
                }
            }
        })
        .collect();
    *kept = out.iter().flatten().cloned().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::prompt::{builtin_prompter, BUILTINS};

    /// Statistics whose numbers run into each other's digits, and a constant unit.
    fn units() -> Vec<(SeriesStats, Option<Degenerate>)> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut r = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        for i in 0..400 {
            let mut num = || (r() % 2_000_001) as f64 / 1000.0 - 1000.0;
            let s = SeriesStats {
                min: num(),
                max: num(),
                median: if i % 7 == 0 { 0.0 } else { num() },
                trend: num(),
                lags: (0..i % 6).map(|k| k * 37 + i).collect(),
                lags_clean: Default::default(),
            };
            out.push((s, (i % 50 == 3).then_some(Degenerate::Constant)));
        }
        out
    }

    #[test]
    fn pieces_hash_as_the_whole_prompt() {
        let units = units();
        let stats: Vec<SeriesStats> = units.iter().map(|(s, _)| s.clone()).collect();
        let words = ["single-scale (trend)", "mixed (2/4 scales upward)", "7"];
        for (name, _) in BUILTINS {
            let prompter = builtin_prompter(name).expect("a built-in");
            for description in ["ETTh1 2016", "", "ends in 9"] {
                let texts = UnitTexts::new(prompter, &stats, description, 512, 96)
                    .expect("a built-in's pieces");
                assert!(texts.serve(prompter, description, 512, 96));
                assert!(!texts.serve(prompter, description, 512, 24));
                let (mut text, mut masked, mut buf) = (String::new(), Vec::new(), Vec::new());
                for (i, (s, degenerate)) in units.iter().enumerate() {
                    let mut f = Features::of_statistics(s.clone());
                    f.degenerate = *degenerate;
                    f.freq_pattern = words[i % 3].into();
                    f.trend_desc = words[(i / 3) % 3].into();
                    f.signal_quality = words[(i / 9) % 3].into();
                    f.difficulty = ["low", "moderate", "high"][i % 3].into();
                    f.snr_db = i as f64 * 1.25;
                    let vars = PromptVars {
                        features: &f,
                        description,
                        seq_len: 512,
                        pred_len: 96,
                    };
                    let whole = prompter.render(&vars).expect("renders");
                    assert_eq!(
                        texts.hashes(i, &vars, &mut text, &mut masked),
                        Some(Diversity::hashes(&whole, &mut buf)),
                        "{name}, unit {i}: {whole:?}"
                    );
                    assert_eq!(text, whole, "{name}, unit {i}");
                }
                assert_eq!(
                    texts.hashes(units.len(), &vars_of(&none()), &mut text, &mut masked),
                    None
                );
            }
        }
        // A template of the researcher's has no pieces.
        let mine = Prompter::new("{{ trend_desc }} {{ min }}").expect("compiles");
        assert!(UnitTexts::new(&mine, &stats, "", 512, 96).is_none());
    }

    fn none() -> Features {
        Features::of_statistics(SeriesStats::default())
    }

    fn vars_of(f: &Features) -> PromptVars<'_> {
        PromptVars {
            features: f,
            description: "",
            seq_len: 512,
            pred_len: 96,
        }
    }
}
