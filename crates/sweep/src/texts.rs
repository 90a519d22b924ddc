//! Every unit's prompt pieces that no wavelet changes, written once per sweep: a
//! built-in's unit statistics and its top lags (`prompt::Piece`), kept as the hashes of
//! their text and of their masks. A configuration then writes only its words, and hashes
//! them between those keys: prompts are told apart as by their whole texts
//! ([`UnitTexts::hashes`]). Formatting the numbers and masking their digits had been most
//! of a sweep's prompts, and hashing the whole texts most of the rest.

use rustc_hash::FxHashMap;
use std::sync::Arc;
use wavebench_core::features::{Degenerate, Features};
use wavebench_core::prompt::{Direct, Piece, PromptVars, Prompter};
use wavebench_core::score::information::mask_digits_onto;
#[cfg(test)]
use wavebench_core::score::Diversity;
use wavebench_core::score::TextKey;
use wavebench_core::stats::SeriesStats;
use xxhash_rust::xxh3::xxh3_128;

/// Units past which a sweep writes each prompt whole rather than keep its pieces (about
/// 100 bytes a unit: 100 MB).
pub(super) const KEPT_TEXTS: usize = 1_000_000;

/// One built-in template's pieces of every unit that a sweep's statistics hold (in their
/// order), for one description and pair of lengths, kept as their hashes: a prompt is
/// told apart from another by the hashes of its statistics and tail beside its words.
pub struct UnitTexts {
    direct: Direct,
    /// What the pieces were written for: the template's text, the description and the
    /// lengths.
    made_for: (String, String, usize, usize),
    /// Per unit, its pieces' keys.
    units: Vec<UnitKeys>,
}

/// The hashes of one unit's pieces that no wavelet changes, as written and as masked in
/// place (a piece's leading digits go on a run of digits before it: `mask_digits_onto`).
#[derive(Debug, Clone, Copy)]
struct UnitKeys {
    /// The statistics piece, and its mask after the opening.
    stats: TextKey,
    /// The tail, and its mask after words that end in a letter or in a digit.
    tail: u128,
    tail_masked: TailMasks,
    /// Whether the opening and statistics end in a digit (the words' mask goes on it).
    after_digit: bool,
}

/// A tail's mask as it reads after words that end in a letter, and in a digit (a run of
/// digits that goes on into it is masked once).
#[derive(Debug, Clone, Copy)]
struct TailMasks {
    after_letter: u128,
    after_digit: u128,
}

/// Whether the text ends in a digit once `piece` follows a text that did when `before`
/// (so a piece that starts with one goes on its run).
fn ends_in_digit(piece: &str, before: bool) -> bool {
    piece.as_bytes().last().map_or(before, u8::is_ascii_digit)
}

/// `piece`'s mask as it reads after a text that ends in a digit when `after`.
fn masked_key(piece: &str, after: bool, buf: &mut Vec<u8>) -> u128 {
    buf.clear();
    mask_digits_onto(piece.as_bytes(), buf, after);
    xxh3_128(buf)
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
        fn vars<'a>(features: &'a Features, (d, s, p): (&'a str, usize, usize)) -> PromptVars<'a> {
            PromptVars {
                features,
                description: d,
                seq_len: s,
                pred_len: p,
            }
        }
        let run = (description, seq_len, pred_len);
        let mut opening = String::new();
        let none = Features::of_statistics(SeriesStats::default());
        direct.write_piece(Piece::Opening, &vars(&none, run), &mut opening);
        let (mut piece, mut buf) = (String::new(), Vec::new());
        let units = stats
            .iter()
            .map(|s| {
                let f = Features::of_statistics(s.clone());
                piece.clear();
                direct.write_piece(Piece::Statistics, &vars(&f, run), &mut piece);
                let after_opening = ends_in_digit(&opening, false);
                let stats = TextKey {
                    text: xxh3_128(piece.as_bytes()),
                    masked: masked_key(&piece, after_opening, &mut buf),
                };
                let after_digit = ends_in_digit(&piece, after_opening);
                piece.clear();
                direct.write_piece(Piece::Tail, &vars(&f, run), &mut piece);
                UnitKeys {
                    stats,
                    tail: xxh3_128(piece.as_bytes()),
                    tail_masked: TailMasks {
                        after_letter: masked_key(&piece, false, &mut buf),
                        after_digit: masked_key(&piece, true, &mut buf),
                    },
                    after_digit,
                }
            })
            .collect();
        Some(UnitTexts {
            direct,
            made_for: (
                prompter.source().to_string(),
                description.to_string(),
                seq_len,
                pred_len,
            ),
            units,
        })
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

    /// Keys of unit `i`'s prompt (`vars`: its features, the statistics those pieces were
    /// written from) that tell it apart from the others' prompts exactly as the hashes of
    /// their whole texts and of their masks do ([`Diversity::hashes`]), from its words
    /// alone. None when there is no unit `i`.
    ///
    /// A built-in prompt is its opening (the same for every unit), statistics, words and
    /// tail, and reading it back finds the pieces again: the statistics end at a fixed
    /// heading of the words, which end at the tail's heading (no number holds a letter).
    /// So two prompts are the same text when their pieces are, and each key hashes the
    /// pieces' own keys, the words' between them; likewise for the masks, each piece
    /// masked as it reads in place. Units whose words are the same few wordings
    /// (`Direct::words_identity`) share their words' keys, made once per scratch.
    pub(super) fn hashes(
        &self,
        i: usize,
        vars: &PromptVars<'_>,
        scratch: &mut Scratch,
    ) -> Option<TextKey> {
        let u = self.units.get(i)?;
        let words = match self.direct.words_identity(vars.features) {
            Some(id) => match scratch.memo.get(&(id, u.after_digit)) {
                Some(&keys) => keys,
                None => {
                    let keys = self.words_keys(vars, u.after_digit, scratch);
                    scratch.memo.insert((id, u.after_digit), keys);
                    keys
                }
            },
            None => self.words_keys(vars, u.after_digit, scratch),
        };
        let tail = vars.features.degenerate != Some(Degenerate::Constant);
        let key = |first: u128, words: u128, last: u128| {
            let mut bytes = [0u8; 48];
            bytes[..16].copy_from_slice(&first.to_le_bytes());
            bytes[16..32].copy_from_slice(&words.to_le_bytes());
            bytes[32..].copy_from_slice(&last.to_le_bytes());
            xxh3_128(&bytes[..if tail { 48 } else { 32 }])
        };
        let tail_masked = if words.ends_in_digit {
            u.tail_masked.after_digit
        } else {
            u.tail_masked.after_letter
        };
        Some(TextKey {
            text: key(u.stats.text, words.text, u.tail),
            masked: key(u.stats.masked, words.masked, tail_masked),
        })
    }

    /// The keys of a unit's words, written and masked after statistics that end in a
    /// digit or not (`after`).
    fn words_keys(&self, vars: &PromptVars<'_>, after: bool, s: &mut Scratch) -> WordsKeys {
        s.words.clear();
        self.direct.write_piece(Piece::Words, vars, &mut s.words);
        WordsKeys {
            text: xxh3_128(s.words.as_bytes()),
            masked: masked_key(&s.words, after, &mut s.buf),
            ends_in_digit: ends_in_digit(&s.words, after),
        }
    }
}

/// The keys of one unit's words ([`UnitTexts::hashes`]).
#[derive(Debug, Clone, Copy)]
struct WordsKeys {
    text: u128,
    masked: u128,
    /// Whether the text up to the tail ends in a digit (the tail's mask depends on it).
    ends_in_digit: bool,
}

/// Working memory of [`UnitTexts::hashes`]: a unit's words as written and masked, and the
/// keys of the words of each identity met so far (a configuration's prompts have a few
/// hundred distinct words at most).
#[derive(Default)]
pub(super) struct Scratch {
    words: String,
    buf: Vec<u8>,
    memo: FxHashMap<([usize; 9], bool), WordsKeys>,
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
                t.units.len() == stats.len() && t.serve(prompter, description, seq_len, pred_len)
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

    /// One side of a prompt's key (its text's hash or its mask's), by name.
    type Side = (&'static str, fn(&TextKey) -> u128);

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

    /// Pairs of units whose prompts are the same text, and whose masks are, are those
    /// whose keys are the same: over statistics and words drawn from small pools, so that
    /// many prompts repeat, whole or masked only. Each wording is drawn apart from the
    /// others, so words keyed by too few of them (one scratch serves every unit) differ.
    #[test]
    fn keys_tell_prompts_apart_as_their_texts_do() {
        let stats = units();
        // Few statistics (some differ in their digits alone) and few words.
        let pool: Vec<(SeriesStats, Option<Degenerate>)> = stats.into_iter().take(6).collect();
        // Some end in a digit, which the tail's mask goes on.
        let words = ["single-scale (trend)", "mixed (2/4 scales upward)", "7"];
        let more = [
            "single-scale (trend)",
            "mixed (2/4 scales upward)",
            "dual-scale 12",
        ];
        let mut units = Vec::new();
        for i in 0..240 {
            let (mut s, degenerate) = pool[i % pool.len()].clone();
            // Other digits: a different text, most often the same mask.
            if i % 5 == 0 {
                s.min += 1.0;
            }
            // Other lags beside the same statistics: the tail alone differs.
            if i % 4 == 1 {
                s.lags.push(7);
            }
            units.push((s, degenerate, i / 7));
        }
        let stats: Vec<SeriesStats> = units.iter().map(|(s, ..)| s.clone()).collect();
        let mut compared = [0usize; 2];
        for (name, _) in BUILTINS {
            let prompter = builtin_prompter(name).expect("a built-in");
            for description in ["ETTh1 2016", "", "ends in 9"] {
                let texts = UnitTexts::new(prompter, &stats, description, 512, 96)
                    .expect("a built-in's pieces");
                assert!(texts.serve(prompter, description, 512, 96));
                assert!(!texts.serve(prompter, description, 512, 24));
                let mut scratch = Scratch::default();
                let mut seen: Vec<(TextKey, TextKey, String)> = Vec::new();
                for (i, (s, degenerate, w)) in units.iter().enumerate() {
                    let mut f = Features::of_statistics(s.clone());
                    f.degenerate = *degenerate;
                    f.freq_pattern = more[w % 3].into();
                    f.trend_desc = more[(w / 3) % 3].into();
                    f.signal_quality = words[(w / 2) % 3].into();
                    f.difficulty = ["low", "moderate", "high"][(w / 4) % 3].into();
                    f.snr_db = (w % 4) as f64 * 1.25;
                    let vars = PromptVars {
                        features: &f,
                        description,
                        seq_len: 512,
                        pred_len: 96,
                    };
                    let whole = prompter.render(&vars).expect("renders");
                    let key = texts.hashes(i, &vars, &mut scratch).expect("a unit's keys");
                    let hashes = Diversity::hashes(&whole, &mut Vec::new());
                    for (k, h, text) in &seen {
                        let sides: [Side; 2] = [("text", |k| k.text), ("mask", |k| k.masked)];
                        for (m, (side, of)) in sides.into_iter().enumerate() {
                            assert_eq!(
                                of(&key) == of(k),
                                of(&hashes) == of(h),
                                "{name}, unit {i} ({side}): {whole:?} against {text:?}",
                            );
                            compared[m] += usize::from(of(&key) == of(k));
                        }
                    }
                    seen.push((key, hashes, whole));
                }
                let past = texts.hashes(units.len(), &vars_of(&none()), &mut scratch);
                assert!(past.is_none());
            }
        }
        // Both kinds of repeat were met, and masks repeat where texts do not.
        assert!(
            compared[0] > 1000 && compared[1] > compared[0],
            "{compared:?}"
        );
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
