//! Do a prompt's claims tell a forecaster anything about what comes next? Each unit's
//! categorical claims (its trend word, pattern, difficulty, …) against what its horizon
//! did (direction, the naive forecast's error, the volatility), as mutual information in
//! bits over the units of a chronological split, beside a permutation noise floor
//! (docs/score.md).
//!
//! The score is a proxy for a forecaster's use of the prompt, not a forecast.

pub mod information;
pub mod outcomes;
pub mod split;

pub use information::Diversity;
pub use outcomes::{Outcome, Terciles};
pub use split::{Borders, Part, Split};

use crate::data::{Table, Windows};
use crate::features::{Features, Reads};
use rustc_hash::FxHashMap;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::ops::Range;

/// A categorical claim a prompt makes, under its name in docs/score.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// Time-LLM's word: "upward" if the input's sum of differences is > 0, else "downward".
    Trend,
    TrendDesc,
    Difficulty,
    SignalQuality,
    StabilityDesc,
    FreqPattern,
    DominantBand,
    /// The top-5 lags, the whole list as one category.
    Lags,
}

impl Claim {
    pub const ALL: [Claim; 8] = [
        Claim::Trend,
        Claim::TrendDesc,
        Claim::Difficulty,
        Claim::SignalQuality,
        Claim::StabilityDesc,
        Claim::FreqPattern,
        Claim::DominantBand,
        Claim::Lags,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Claim::Trend => "trend",
            Claim::TrendDesc => "trend_desc",
            Claim::Difficulty => "difficulty",
            Claim::SignalQuality => "signal_quality",
            Claim::StabilityDesc => "stability_desc",
            Claim::FreqPattern => "freq_pattern",
            Claim::DominantBand => "dominant_band",
            Claim::Lags => "lags",
        }
    }

    /// What the claims read of the wavelet features: every description and the dominant
    /// band (a run may slide where these come out as the per-window path's).
    pub const READS: Reads = Reads {
        stability: true,
        dominant: true,
        ..Reads::DESCRIPTIONS
    };

    pub fn parse(name: &str) -> Result<Claim, String> {
        Claim::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Claim::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown claim '{name}' (expected one of {})",
                    names.join(", ")
                )
            })
    }

    /// The outcome this claim is scored against, if it is part of the score.
    pub fn scored_against(self) -> Option<Target> {
        match self {
            Claim::Trend | Claim::TrendDesc => Some(Target::Direction),
            Claim::Difficulty | Claim::SignalQuality => Some(Target::NaiveMase),
            Claim::StabilityDesc | Claim::FreqPattern | Claim::DominantBand => {
                Some(Target::VolRatio)
            }
            Claim::Lags => None,
        }
    }

    /// This claim's category for a unit's features, written into `buf`; `bands` names the
    /// bands (cA3, cD3, …).
    pub fn category<'a>(
        self,
        f: &'a Features,
        bands: &'a [String],
        buf: &'a mut String,
    ) -> &'a str {
        match self {
            Claim::Trend => {
                if f.trend > 0.0 {
                    "upward"
                } else {
                    "downward"
                }
            }
            Claim::TrendDesc => &f.trend_desc,
            Claim::Difficulty => &f.difficulty,
            Claim::SignalQuality => &f.signal_quality,
            Claim::StabilityDesc => &f.stability_desc,
            Claim::FreqPattern => &f.freq_pattern,
            Claim::DominantBand => bands.get(f.dominant_band).map_or("?", String::as_str),
            Claim::Lags => {
                buf.clear();
                buf.push('[');
                for (i, l) in f.lags.iter().enumerate() {
                    if i > 0 {
                        buf.push_str(", ");
                    }
                    buf.push_str(itoa::Buffer::new().format(*l));
                }
                buf.push(']');
                buf
            }
        }
    }
}

/// What a horizon did, as classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Direction,
    NaiveMase,
    VolRatio,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Direction, Target::NaiveMase, Target::VolRatio];

    pub fn name(self) -> &'static str {
        match self {
            Target::Direction => "direction",
            Target::NaiveMase => "naive_mase",
            Target::VolRatio => "vol_ratio",
        }
    }

    pub fn parse(name: &str) -> Result<Target, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| {
                format!("unknown outcome '{name}' (expected direction, naive_mase or vol_ratio)")
            })
    }

    pub fn classes(self) -> &'static [&'static str] {
        match self {
            Target::Direction => &["down", "up"],
            Target::NaiveMase | Target::VolRatio => &outcomes::TERCILE_NAMES,
        }
    }
}

/// Where one file's scored units are: which part each window's horizon lies in, and each
/// unit's outcome. Made once per data set; every configuration is scored on the same units.
#[derive(Debug, Clone)]
pub struct Horizons {
    pub borders: Borders,
    /// The windows (numbered as in the run) whose horizon lies in val or test.
    pub scored: Range<usize>,
    channels: usize,
    /// Per window of `scored`, its part (None: its horizon straddles two parts).
    parts: Vec<Option<Part>>,
    /// Per unit of `scored` (window-major, channel-minor), its outcome (None: left out).
    outcomes: Vec<Option<Outcome>>,
    /// The train units' naive_mase and vol_ratio, for the terciles.
    train: [Vec<f64>; 2],
    /// Units left out per part (a denominator of 0).
    pub left_out: [usize; 3],
}

impl Horizons {
    /// The outcomes of every unit of `table`'s `windows` whose next `pred_len` rows exist
    /// and lie in one part of `split` (over the windows' rows).
    pub fn new(
        table: &Table,
        windows: &Windows,
        pred_len: usize,
        split: &Split,
        rows: Range<usize>,
    ) -> Result<Horizons, String> {
        if pred_len < 2 {
            return Err(format!(
                "--pred-len {pred_len}: scoring needs a horizon of at least 2 rows (vol_ratio reads its differences)"
            ));
        }
        let borders = split.borders(rows.start, rows.len())?;
        let t = windows.seq_len;
        let part_of = |w: usize| {
            let s = windows.start(w - windows.first);
            borders.holding(&(s + t..s + t + pred_len))
        };
        let values: Vec<Vec<f64>> = table.channels.iter().map(|c| c.values.to_f64()).collect();
        let outcome = |w: usize, c: usize| {
            let s = windows.start(w - windows.first);
            let x = &values[c][s..s + t];
            Outcome::of(x, &values[c][s + t..s + t + pred_len])
        };
        let all = windows.first..windows.first + windows.count;
        let channels = table.channels.len();
        let mut train = [Vec::new(), Vec::new()];
        let mut left_out = [0; 3];
        // The first and last window whose horizon lies in val or test.
        let mut first_last: Option<(usize, usize)> = None;
        for w in all.clone() {
            let Some(p) = part_of(w) else { continue };
            if p == Part::Train {
                for c in 0..channels {
                    match outcome(w, c) {
                        Some(o) => {
                            train[0].push(o.naive_mase);
                            train[1].push(o.vol_ratio);
                        }
                        None => left_out[0] += 1,
                    }
                }
            } else {
                first_last = Some((first_last.map_or(w, |(a, _)| a), w));
            }
        }
        let scored = first_last.map_or(all.end..all.end, |(a, b)| a..b + 1);
        let parts: Vec<Option<Part>> = scored.clone().map(part_of).collect();
        let mut outcomes = Vec::with_capacity(scored.len() * channels);
        for (k, w) in scored.clone().enumerate() {
            for c in 0..channels {
                let o = parts[k].and_then(|_| outcome(w, c));
                if let (Some(p), None) = (parts[k], o) {
                    left_out[p as usize] += 1;
                }
                outcomes.push(o);
            }
        }
        Ok(Horizons {
            borders,
            scored,
            channels,
            parts,
            outcomes,
            train,
            left_out,
        })
    }
}

/// The units a data set's configurations are scored on: its files' horizons, the train
/// terciles, and each part's noise-floor permutation.
#[derive(Debug, Clone)]
pub struct Scorer {
    pub files: Vec<Horizons>,
    pub mase: Terciles,
    pub vol: Terciles,
    /// Scored units per part (train counted for the terciles).
    pub units: [usize; 3],
    perms: [Vec<usize>; 3],
}

impl Scorer {
    /// Errors name the part left without units (a horizon too long for it, say).
    pub fn new(files: Vec<Horizons>) -> Result<Scorer, String> {
        let mut train = [Vec::new(), Vec::new()];
        let mut units = [0; 3];
        for h in &files {
            train[0].extend_from_slice(&h.train[0]);
            train[1].extend_from_slice(&h.train[1]);
            units[0] += h.train[0].len();
            for (k, p) in h.parts.iter().enumerate() {
                if let Some(p) = p {
                    units[*p as usize] += (0..h.channels)
                        .filter(|c| h.outcomes[k * h.channels + c].is_some())
                        .count();
                }
            }
        }
        for p in Part::ALL {
            if units[p as usize] == 0 {
                return Err(format!(
                    "no unit's horizon lies wholly in the {} part: lower --pred-len or --seq-len, or change --split",
                    p.name()
                ));
            }
        }
        let [mut mase, mut vol] = train;
        Ok(Scorer {
            files,
            mase: Terciles::of(&mut mase),
            vol: Terciles::of(&mut vol),
            units,
            perms: Part::ALL.map(|p| {
                information::permutation(units[p as usize], information::PERMUTATION_SEED)
            }),
        })
    }

    /// A tally for one configuration's units.
    pub fn tally(&self, bands: &[String]) -> Tally {
        Tally {
            parts: [PartTally::default(), PartTally::default()],
            bands: bands.to_vec(),
            buf: String::new(),
        }
    }
}

/// One configuration's claims and outcome classes over each scored part (val, test).
#[derive(Debug, Clone)]
pub struct Tally {
    parts: [PartTally; 2],
    bands: Vec<String>,
    buf: String,
}

#[derive(Debug, Clone, Default)]
struct PartTally {
    claims: [Column; 8],
    outcomes: [Vec<u32>; 3],
}

/// One claim's category per unit, its categories interned.
#[derive(Debug, Clone, Default)]
struct Column {
    ids: Vec<u32>,
    names: Vec<String>,
    /// Past a few categories (lags may have hundreds), a name's id by hash.
    index: FxHashMap<String, u32>,
}

/// Categories a column looks up by comparing names, before it hashes them: the wordings
/// come in a handful.
const FEW: usize = 16;

impl Column {
    fn push(&mut self, category: &str) {
        let found = if self.names.len() <= FEW {
            self.names
                .iter()
                .position(|n| n == category)
                .map(|i| i as u32)
        } else {
            self.index.get(category).copied()
        };
        let id = found.unwrap_or_else(|| {
            let id = self.names.len() as u32;
            self.names.push(category.to_string());
            if self.names.len() > FEW {
                if self.index.is_empty() {
                    self.index = self.names.iter().cloned().zip(0..).collect();
                } else {
                    self.index.insert(category.to_string(), id);
                }
            }
            id
        });
        self.ids.push(id);
    }
}

/// The scored part a unit belongs to, for the callers that render prompts beside.
fn scored_slot(p: Part) -> Option<usize> {
    match p {
        Part::Train => None,
        Part::Val => Some(0),
        Part::Test => Some(1),
    }
}

impl Tally {
    /// One unit of file `h` (window `window` as the run numbers it, channel `channel`)
    /// with its features; returns the part it was counted in (None: not scored).
    pub fn push(
        &mut self,
        scorer: &Scorer,
        h: &Horizons,
        window: usize,
        channel: usize,
        f: &Features,
    ) -> Option<Part> {
        if !h.scored.contains(&window) {
            return None;
        }
        let k = window - h.scored.start;
        let part = h.parts[k]?;
        let o = h.outcomes[k * h.channels + channel]?;
        let slot = scored_slot(part)?;
        let t = &mut self.parts[slot];
        for (i, claim) in Claim::ALL.into_iter().enumerate() {
            t.claims[i].push(claim.category(f, &self.bands, &mut self.buf));
        }
        t.outcomes[0].push(o.up as u32);
        t.outcomes[1].push(scorer.mase.class(o.naive_mase));
        t.outcomes[2].push(scorer.vol.class(o.vol_ratio));
        Some(part)
    }

    /// The claims' information over part `p` (val or test), with the prompts' diversity
    /// measured by the caller.
    pub fn evaluate(&self, scorer: &Scorer, p: Part, diversity: Diversity) -> Evaluation {
        let Some(slot) = scored_slot(p) else {
            return Evaluation::default();
        };
        let t = &self.parts[slot];
        let perm = &scorer.perms[p as usize];
        let n = t.outcomes[0].len();
        // The permutation was drawn for the part's unit count; a tally of fewer units (a
        // configuration whose run skipped some) draws its own.
        let own;
        let perm = if perm.len() == n {
            perm
        } else {
            own = information::permutation(n, information::PERMUTATION_SEED);
            &own
        };
        let permuted: Vec<Vec<u32>> = t
            .outcomes
            .iter()
            .map(|o| perm.iter().map(|&i| o[i]).collect())
            .collect();
        let mut claims = Vec::with_capacity(Claim::ALL.len());
        let mut score = 0.0;
        for (i, claim) in Claim::ALL.into_iter().enumerate() {
            let col = &t.claims[i];
            let k = col.names.len();
            let info = Target::ALL.map(|target| {
                let j = target as usize;
                let kt = target.classes().len();
                Info {
                    mi_bits: information::mutual_information(&col.ids, &t.outcomes[j], k, kt),
                    noise_bits: information::mutual_information(&col.ids, &permuted[j], k, kt),
                }
            });
            if let Some(target) = claim.scored_against() {
                score += info[target as usize].mi_bits;
            }
            let mut counts = vec![0usize; k];
            for &id in &col.ids {
                counts[id as usize] += 1;
            }
            let mut categories: Vec<(String, usize)> =
                col.names.iter().cloned().zip(counts).collect();
            categories.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            claims.push(ClaimInfo {
                claim,
                info,
                categories,
            });
        }
        Evaluation {
            units: n,
            score_bits: score,
            claims,
            diversity,
        }
    }
}

/// A claim × outcome pair's information and its noise floor, in bits.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Info {
    pub mi_bits: f64,
    pub noise_bits: f64,
}

/// One claim over a part: its information about each outcome and its categories' counts
/// (most common first).
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimInfo {
    pub claim: Claim,
    pub info: [Info; 3],
    pub categories: Vec<(String, usize)>,
}

/// A configuration over one part: the score, every claim × outcome, the categories, and
/// the prompts' diversity.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    pub units: usize,
    pub score_bits: f64,
    pub claims: Vec<ClaimInfo>,
    pub diversity: Diversity,
}

impl Evaluation {
    pub fn info(&self, claim: Claim, target: Target) -> Option<Info> {
        self.claims
            .iter()
            .find(|c| c.claim == claim)
            .map(|c| c.info[target as usize])
    }
}

/// docs/cli.md#sweep: `{"score_bits", "claims": {claim: {outcome: {mi_bits,
/// noise_bits}}}, "categories": {claim: {category: count}}, "diversity": {…}}`, claims in
/// docs order.
impl Serialize for Evaluation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Claims<'a>(&'a [ClaimInfo]);
        impl Serialize for Claims<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for c in self.0 {
                    m.serialize_entry(c.claim.name(), &Targets(&c.info))?;
                }
                m.end()
            }
        }
        struct Targets<'a>(&'a [Info; 3]);
        impl Serialize for Targets<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(3))?;
                for t in Target::ALL {
                    m.serialize_entry(t.name(), &self.0[t as usize])?;
                }
                m.end()
            }
        }
        struct Categories<'a>(&'a [ClaimInfo]);
        impl Serialize for Categories<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for c in self.0 {
                    m.serialize_entry(c.claim.name(), &Counts(&c.categories))?;
                }
                m.end()
            }
        }
        struct Counts<'a>(&'a [(String, usize)]);
        impl Serialize for Counts<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("units", &self.units)?;
        m.serialize_entry("score_bits", &self.score_bits)?;
        m.serialize_entry("claims", &Claims(&self.claims))?;
        m.serialize_entry("categories", &Categories(&self.claims))?;
        m.serialize_entry("diversity", &self.diversity)?;
        m.end()
    }
}
