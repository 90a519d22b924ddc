//! One configuration's claims over the scored units ([`Tally`]) and what they tell about
//! the outcomes ([`Evaluation`]: mutual information against its null, the score with its
//! bootstrap interval, categories, diversity), written as docs/cli.md#sweep shows.

use super::column::{ColumnStats, Info};
use super::defined::{ClaimVars, DefinedClaim, DefinedError};
use super::gain::{ClaimColumns, ForecastGain};
use super::information::{interval, Diversity};
use super::{AnyClaim, Claim, Horizons, Part, PerPart, ScoredPart, Scorer, Target};
use crate::features::Features;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One configuration's claims over each scored part (val, test), each unit at its place
/// in the part's sequences.
#[derive(Debug, Clone)]
pub struct Tally {
    parts: PerPart<PartTally>,
    /// The fit units' claims (every k-th train window's units): what each row's forecast
    /// gain is fit on.
    fit: PartTally,
    bands: Vec<String>,
    /// The claims a researcher defined, after the built-ins' columns.
    defined: Vec<Arc<DefinedClaim>>,
    /// What a defined claim sees besides the unit: the description and the lengths.
    description: String,
    seq_len: usize,
    pred_len: usize,
    buf: String,
}

#[derive(Debug, Clone, Default)]
struct PartTally {
    /// The built-in claims' columns (in `Claim::ALL`'s order), then the defined ones'.
    claims: Vec<Column>,
    /// Per claim, its column taken whole from another tally (units are not counted into
    /// it; `claims` holds an empty one in its place).
    preset: Vec<Option<Arc<Column>>>,
    filled: usize,
}

impl PartTally {
    /// Claim `i`'s column, counted or taken.
    fn column(&self, i: usize) -> &Column {
        match self.preset.get(i) {
            Some(Some(c)) => c,
            _ => &self.claims[i],
        }
    }
}

/// The columns of the claims no wavelet changes ([`Claim::of_statistics`]) over each
/// scored part, from a tally of every unit: a tally of the same units under another
/// configuration takes them ([`Tally::with_statistics_columns`]) instead of counting them.
#[derive(Debug, Clone, Default)]
pub struct StatisticsColumns {
    /// Per scored part, each such claim's index in `Claim::ALL` and its column.
    parts: PerPart<Vec<(usize, Arc<Column>)>>,
    /// The same for the fit units.
    fit: Vec<(usize, Arc<Column>)>,
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

/// A unit not yet counted.
const EMPTY: u32 = u32::MAX;

impl Column {
    fn set(&mut self, slot: usize, category: &str) {
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
        self.ids[slot] = id;
    }
}

/// The scored part a unit belongs to, for the callers that render prompts beside.
impl Tally {
    /// An empty tally of `scored` val and test units and `fit` fit units; `bands` names
    /// the bands (cA3, cD3, …) for the dominant-band claim; `defined` are the
    /// researcher's claims, which also see `description` and the lengths.
    pub(super) fn new(
        bands: &[String],
        scored: PerPart<usize>,
        fit: usize,
        defined: &[Arc<DefinedClaim>],
        description: &str,
        lengths: [usize; 2],
    ) -> Tally {
        let part = |n: usize| PartTally {
            claims: (0..Claim::ALL.len() + defined.len())
                .map(|_| Column {
                    ids: vec![EMPTY; n],
                    ..Column::default()
                })
                .collect(),
            preset: Vec::new(),
            filled: 0,
        };
        Tally {
            parts: scored.map(part),
            fit: part(fit),
            bands: bands.to_vec(),
            defined: defined.to_vec(),
            description: description.to_string(),
            seq_len: lengths[0],
            pred_len: lengths[1],
            buf: String::new(),
        }
    }

    /// The columns of the claims no wavelet changes, once every unit has been counted.
    pub fn statistics_columns(&self) -> StatisticsColumns {
        let of_statistics = |t: &PartTally| -> Vec<(usize, Arc<Column>)> {
            Claim::ALL
                .into_iter()
                .enumerate()
                .filter(|(_, c)| c.of_statistics())
                .map(|(i, _)| {
                    let col = match t.preset.get(i) {
                        Some(Some(c)) => c.clone(),
                        _ => Arc::new(t.claims[i].clone()),
                    };
                    (i, col)
                })
                .collect()
        };
        StatisticsColumns {
            parts: self.parts.each_ref().map(of_statistics),
            fit: of_statistics(&self.fit),
        }
    }

    /// These claims' columns taken from a tally of the same units (the same scorer, whose
    /// units carry the same statistics) instead of counted.
    /// Columns of other units (another scorer's) are not taken.
    pub fn with_statistics_columns(&mut self, columns: &StatisticsColumns) {
        let PerPart { val, test } = &mut self.parts;
        let mut parts = [val, test, &mut self.fit];
        let given = [&columns.parts.val, &columns.parts.test, &columns.fit];
        let fits = parts.iter().zip(given).all(|(t, cols)| {
            cols.iter()
                .all(|(i, col)| *i < t.claims.len() && t.column(*i).ids.len() == col.ids.len())
        });
        if !fits {
            return;
        }
        for (t, cols) in parts.iter_mut().zip(given) {
            t.preset.resize(t.claims.len(), None);
            for (i, col) in cols {
                t.claims[*i] = Column::default();
                t.preset[*i] = Some(col.clone());
            }
        }
    }

    /// One unit of file `h` (window `window` as the run numbers it, channel `channel`)
    /// with its features and `[last, mean]` ([`ClaimVars::facts`]; read only by defined
    /// claims); returns the part it was counted in (None: not scored). Errors: a defined
    /// claim that fails to render or renders empty for this unit.
    pub fn push(
        &mut self,
        h: &Horizons,
        window: usize,
        channel: usize,
        f: &Features,
        facts: super::defined::WindowFacts,
    ) -> Result<Option<Part>, DefinedError> {
        if !h.scored.contains(&window) {
            return Ok(None);
        }
        let k = window - h.scored.start;
        let Some(part) = h.parts[k] else {
            return Ok(None);
        };
        let slot = h.slots[k * h.channels + channel];
        let Some(t) = ScoredPart::of(part).filter(|_| slot != EMPTY) else {
            return Ok(None);
        };
        self.count(Some(t), slot as usize, f, facts)?;
        Ok(Some(part))
    }

    /// One fit unit of file `h` (its fit window `index`, channel `channel`), as
    /// [`Tally::push`]; returns whether it is a fit unit (one with an outcome).
    pub fn push_fit(
        &mut self,
        h: &Horizons,
        index: usize,
        channel: usize,
        f: &Features,
        facts: super::defined::WindowFacts,
    ) -> Result<bool, DefinedError> {
        let slot = h
            .fit_slots
            .get(index * h.channels + channel)
            .copied()
            .unwrap_or(EMPTY);
        if slot == EMPTY {
            return Ok(false);
        }
        self.count(None, slot as usize, f, facts)?;
        Ok(true)
    }

    /// A unit's categories into scored part `part`'s columns (None: the fit units').
    fn count(
        &mut self,
        part: Option<ScoredPart>,
        slot: usize,
        f: &Features,
        facts: super::defined::WindowFacts,
    ) -> Result<(), DefinedError> {
        let t = match part {
            Some(ScoredPart::Val) => &mut self.parts.val,
            Some(ScoredPart::Test) => &mut self.parts.test,
            None => &mut self.fit,
        };
        for (i, claim) in Claim::ALL.into_iter().enumerate() {
            if t.preset.get(i).is_none_or(Option::is_none) {
                let category = claim.category(f, &self.bands, &mut self.buf);
                t.claims[i].set(slot, category);
            }
        }
        if !self.defined.is_empty() {
            let vars = ClaimVars {
                features: f,
                last: facts.last,
                mean: facts.mean,
                description: &self.description,
                seq_len: self.seq_len,
                pred_len: self.pred_len,
            };
            for (i, d) in self.defined.iter().enumerate() {
                d.category(&vars, &mut self.buf)?;
                t.claims[Claim::ALL.len() + i].set(slot, &self.buf);
            }
        }
        t.filled += 1;
        Ok(())
    }

    /// The forecast gain of the claims `scored` over val and test (docs/score.md#forecast-gain-beyond-the-series),
    /// where the scorer has the residuals.
    pub fn forecast_gain(
        &self,
        scorer: &Scorer,
        scored: &[AnyClaim],
    ) -> Option<PerPart<ForecastGain>> {
        let units = scorer.gain.as_ref()?;
        let n = self.fit.column(0).ids.len();
        assert_eq!(
            self.fit.filled, n,
            "internal: a configuration counted {} of the {n} fit units",
            self.fit.filled
        );
        let index = |claim: &AnyClaim| match claim {
            AnyClaim::Builtin(c) => Claim::ALL.iter().position(|b| b == c),
            AnyClaim::Defined(d) => self
                .defined
                .iter()
                .position(|x| Arc::ptr_eq(x, d) || **x == **d)
                .map(|i| Claim::ALL.len() + i),
        };
        let claims: Vec<ClaimColumns<'_>> = scored
            .iter()
            .filter(|c| c.scored_against().is_some())
            .filter_map(|c| {
                let i = index(c)?;
                fn col(t: &PartTally, i: usize) -> (&[u32], &[String]) {
                    let col = t.column(i);
                    (col.ids.as_slice(), col.names.as_slice())
                }
                Some(ClaimColumns {
                    name: c.name(),
                    fit: col(&self.fit, i),
                    parts: PerPart {
                        val: col(&self.parts.val, i),
                        test: col(&self.parts.test, i),
                    },
                })
            })
            .collect();
        Some(super::gain::gain(units, &scorer.sequences, &claims))
    }

    /// The claims' information over part `p` (val or test) against its null; the score
    /// of the claims `scored` (a template's printed claims, [`Claim::printed`]) and its
    /// bootstrap replicates; with the prompts' diversity measured by the caller.
    pub fn evaluate(
        &self,
        scorer: &Scorer,
        p: Part,
        scored: &[Claim],
        diversity: Diversity,
    ) -> Evaluation {
        let Some(t) = self.parts.get(p) else {
            return Evaluation::default();
        };
        let n = t.column(0).ids.len();
        assert_eq!(
            t.filled,
            n,
            "internal: a configuration counted {} of the {} {} units",
            t.filled,
            n,
            p.name()
        );
        let every = Claim::ALL
            .into_iter()
            .map(AnyClaim::Builtin)
            .chain(self.defined.iter().cloned().map(AnyClaim::Defined));
        let every: Vec<AnyClaim> = every.collect();
        assert_eq!(
            every.len(),
            t.claims.len(),
            "internal: one column per claim"
        );
        // Column by column on every core: a configuration's columns are its serial tail
        // (the app's survey waits on them).
        let columns: Vec<&Column> = (0..t.claims.len()).map(|i| t.column(i)).collect();
        let stats: Vec<Arc<ColumnStats>> = every
            .par_iter()
            .zip(&columns)
            .map(|(claim, col)| {
                scorer.column_stats(p, &col.ids, col.names.len(), claim.scored_against())
            })
            .collect();
        let mut claims = Vec::with_capacity(t.claims.len());
        for ((claim, col), stats) in every.into_iter().zip(columns).zip(stats) {
            let mut counts = vec![0usize; col.names.len()];
            for &id in &col.ids {
                counts[id as usize] += 1;
            }
            let mut categories: Vec<(String, usize)> =
                col.names.iter().cloned().zip(counts).collect();
            categories.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            claims.push(ClaimInfo {
                claim,
                stats,
                categories,
            });
        }
        Evaluation {
            units: n,
            claims,
            diversity,
            ..Evaluation::default()
        }
        .rescored(scored)
    }
}

/// One claim over a part: its information about each outcome against its null, the
/// bootstrap replicates, and its categories' counts (most common first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimInfo {
    pub claim: AnyClaim,
    pub stats: Arc<ColumnStats>,
    pub categories: Vec<(String, usize)>,
}

impl ClaimInfo {
    pub fn info(&self, target: Target) -> Info {
        self.stats.info[target]
    }

    /// `I(C; O | B̂)` against its null.
    pub fn complementary(&self, target: Target) -> Info {
        self.stats.complementary[target]
    }

    /// The 95% bootstrap intervals of the excess bits about `target` and of the excess
    /// beyond the series: only for the outcome the claim is scored against (the others
    /// have no replicates: [NaN, NaN]).
    pub fn intervals(&self, target: Target) -> [[f64; 2]; 2] {
        let excess = |boot: &[f64], null: f64| {
            interval(&boot.iter().map(|v| v - null).collect::<Vec<f64>>())
        };
        [
            excess(
                &self.stats.boot[target],
                self.stats.info[target].null_median,
            ),
            excess(
                &self.stats.boot_complementary[target],
                self.stats.complementary[target].null_median,
            ),
        ]
    }
}

/// A configuration over one part: the score (the designated pairs' excess over their
/// null) with its bootstrap interval, every claim × outcome, the categories, and the
/// prompts' diversity.
/// Serde gives every field as it is (a sweep's part file); the report's JSON is
/// `sweep::report`'s.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Evaluation {
    pub units: usize,
    /// The claims the score sums (each against its designated outcome): a template's
    /// printed claims and the researcher's designated ones.
    pub scored: Vec<AnyClaim>,
    /// Σ over the designated pairs of `excess_bits`.
    pub score_bits: f64,
    /// Σ over the designated pairs of `mi_bits` (the score before its null).
    pub mi_bits_sum: f64,
    /// The score's 95% bootstrap interval.
    pub interval: [f64; 2],
    /// The score in each bootstrap replicate (the same blocks for every configuration).
    pub boot: Vec<f64>,
    /// Σ over the designated pairs of the complementary bits' excess over their null:
    /// what the claims tell beyond the forecaster that reads only the series.
    pub complementary_bits: f64,
    pub complementary_interval: [f64; 2],
    pub boot_complementary: Vec<f64>,
    pub claims: Vec<ClaimInfo>,
    pub diversity: Diversity,
    /// What the scored claims lower the series-only forecaster's error by
    /// ([`Tally::forecast_gain`]); None where the sweep could not measure it.
    #[serde(default)]
    pub forecast: Option<ForecastGain>,
}

impl Evaluation {
    /// The same claims scored on `scored` (another template's printed claims) and the
    /// researcher's designated claims (sentences the prompts would add): the sums of their
    /// designated pairs' excess over the null, as observed and per bootstrap replicate.
    pub fn rescored(self, scored: &[Claim]) -> Evaluation {
        let scored: Vec<AnyClaim> = self
            .claims
            .iter()
            .map(|c| &c.claim)
            .filter(|c| match c {
                AnyClaim::Builtin(b) => scored.contains(b),
                AnyClaim::Defined(d) => d.target().is_some(),
            })
            .cloned()
            .collect();
        self.summed(scored)
    }

    /// Time-LLM's own prompt (its trend word, nothing the researcher defined): what every
    /// row's gain is measured from.
    pub fn baseline(self) -> Evaluation {
        self.summed(Claim::BASELINE.map(AnyClaim::Builtin).to_vec())
    }

    fn summed(self, scored: Vec<AnyClaim>) -> Evaluation {
        // The first claim (trend) is scored against direction: its replicates are the count.
        let replicates = self
            .claims
            .first()
            .map_or(0, |c| c.stats.boot[Target::Direction].len());
        let mut boot = vec![0.0; replicates];
        let mut boot_c = vec![0.0; replicates];
        let (mut score, mut mi_sum, mut complementary) = (0.0, 0.0, 0.0);
        for c in self.claims.iter().filter(|c| scored.contains(&c.claim)) {
            let Some(target) = c.claim.scored_against() else {
                continue;
            };
            let info = c.stats.info[target];
            score += info.excess_bits;
            mi_sum += info.mi_bits;
            for (acc, v) in boot.iter_mut().zip(&c.stats.boot[target]) {
                *acc += v - info.null_median;
            }
            let ci = c.stats.complementary[target];
            complementary += ci.excess_bits;
            for (acc, v) in boot_c.iter_mut().zip(&c.stats.boot_complementary[target]) {
                *acc += v - ci.null_median;
            }
        }
        Evaluation {
            scored,
            score_bits: score,
            mi_bits_sum: mi_sum,
            interval: interval(&boot),
            boot,
            complementary_bits: complementary,
            complementary_interval: interval(&boot_c),
            boot_complementary: boot_c,
            // Measured for other claims.
            forecast: None,
            ..self
        }
    }

    pub fn info(&self, claim: Claim, target: Target) -> Option<Info> {
        self.claims
            .iter()
            .find(|c| c.claim == AnyClaim::Builtin(claim))
            .map(|c| c.info(target))
    }

    /// A claim (built-in or defined) by name.
    pub fn claim(&self, name: &str) -> Option<&ClaimInfo> {
        self.claims.iter().find(|c| c.claim.name() == name)
    }
}
