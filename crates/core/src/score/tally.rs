//! One configuration's claims over the scored units ([`Tally`]) and what they tell about
//! the outcomes ([`Evaluation`]: mutual information, noise floor, categories, diversity),
//! written as docs/cli.md#sweep shows.

use super::information::{self, Diversity};
use super::{Claim, Horizons, Part, Scorer, Target};
use crate::features::Features;
use rustc_hash::FxHashMap;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

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
    /// An empty tally; `bands` names the bands (cA3, cD3, …) for the dominant-band claim.
    pub(super) fn new(bands: &[String]) -> Tally {
        Tally {
            parts: [PartTally::default(), PartTally::default()],
            bands: bands.to_vec(),
            buf: String::new(),
        }
    }

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
        // Each unit's three outcome classes as one code (`Outcomes`), as observed and as
        // permuted for the noise floor: each claim is then counted against all three
        // outcomes in one pass.
        let codes = Outcomes::codes(&t.outcomes, |k| k);
        let permuted = Outcomes::codes(&t.outcomes, |k| perm[k]);
        let mut claims = Vec::with_capacity(Claim::ALL.len());
        let mut score = 0.0;
        for (i, claim) in Claim::ALL.into_iter().enumerate() {
            let col = &t.claims[i];
            let k = col.names.len();
            let observed = Outcomes::count(&col.ids, &codes, k);
            let noise = Outcomes::count(&col.ids, &permuted, k);
            let info = Target::ALL.map(|target| Info {
                mi_bits: observed.information(target),
                noise_bits: noise.information(target),
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
        let claims = MapOf(|| {
            self.claims.iter().map(|c| {
                let info = MapOf(move || {
                    Target::ALL
                        .into_iter()
                        .map(move |t| (t.name(), &c.info[t as usize]))
                });
                (c.claim.name(), info)
            })
        });
        let categories = MapOf(|| {
            self.claims.iter().map(|c| {
                (
                    c.claim.name(),
                    MapOf(move || c.categories.iter().map(|(k, v)| (k, v))),
                )
            })
        });
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("units", &self.units)?;
        m.serialize_entry("score_bits", &self.score_bits)?;
        m.serialize_entry("claims", &claims)?;
        m.serialize_entry("categories", &categories)?;
        m.serialize_entry("diversity", &self.diversity)?;
        m.end()
    }
}

/// A map serialised from the pairs a closure makes (serde's `collect_map`): nested maps of
/// borrowed data without a wrapper type each.
struct MapOf<F>(F);

impl<F, I, K, V> Serialize for MapOf<F>
where
    F: Fn() -> I,
    I: IntoIterator<Item = (K, V)>,
    K: Serialize,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map((self.0)())
    }
}

/// The joint counts of one claim's categories and the three outcomes' classes together
/// (direction × naive_mase × vol_ratio, `CODES` cells per category), from which each
/// claim × outcome table is summed: the same integer counts, in the same order, as a
/// pass per outcome would make.
struct Outcomes {
    joint: Vec<u32>,
    categories: usize,
    units: usize,
}

/// Outcome codes: `direction · 9 + naive_mase · 3 + vol_ratio`.
const CODES: usize = 2 * 3 * 3;

impl Outcomes {
    /// Each unit's code, unit `k` taking the outcomes of unit `source(k)`.
    fn codes(outcomes: &[Vec<u32>; 3], source: impl Fn(usize) -> usize) -> Vec<u8> {
        (0..outcomes[0].len())
            .map(|k| {
                let u = source(k);
                (outcomes[0][u] * 9 + outcomes[1][u] * 3 + outcomes[2][u]) as u8
            })
            .collect()
    }

    fn count(ids: &[u32], codes: &[u8], categories: usize) -> Outcomes {
        assert_eq!(ids.len(), codes.len(), "one claim and one outcome per unit");
        let mut joint = vec![0u32; categories * CODES];
        for (&id, &code) in ids.iter().zip(codes) {
            joint[id as usize * CODES + code as usize] += 1;
        }
        Outcomes {
            joint,
            categories,
            units: ids.len(),
        }
    }

    /// The claim's information about `target`, in bits (`information::mutual_information`).
    fn information(&self, target: Target) -> f64 {
        let kt = target.classes().len();
        let class = |code: usize| match target {
            Target::Direction => code / 9,
            Target::NaiveMase => code / 3 % 3,
            Target::VolRatio => code % 3,
        };
        let mut joint = vec![0u32; self.categories * kt];
        for (cell, &n) in self.joint.iter().enumerate() {
            joint[cell / CODES * kt + class(cell % CODES)] += n;
        }
        information::mutual_information_of_table(&joint, self.categories, kt, self.units)
    }
}
