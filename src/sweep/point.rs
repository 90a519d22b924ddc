//! One grid point of a sweep: every scored unit's features under its transform, counted
//! into the claims' tallies, evaluated against the null and the bootstrap, and each
//! template's prompts rendered for their diversity ([`Scoring::point`]).

use super::place;
use super::{claims, defined_claims, slide, Metric, Point, Request, SweepRow};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::Arc;
use wavebench_core::data::Table;
use wavebench_core::engine::{self, Selected};
use wavebench_core::features::{Reads, Unit};
use wavebench_core::pipeline::NoSlide;
use wavebench_core::prompt::PromptVars;
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::score::{Claim, DefinedClaim, Diversity, Evaluation, Part, Scorer};
use wavebench_core::stats::SeriesStats;
use wavebench_core::timing::Timer;

/// A piece of a configuration's prompts: their text one after another, and where each
/// ends with its part.
type Rendered = (String, Vec<(Part, usize)>);

/// Prompts a thread renders at a time when a configuration's prompts are rendered.
const RENDER_PIECE: usize = 2048;

/// What every configuration of one sweep shares.
pub(super) struct Scoring<'a> {
    tables: &'a [(&'a str, &'a Table)],
    req: &'a Request,
    scorer: &'a Scorer,
    pub(super) seq_len: usize,
    slide: Result<Reads, NoSlide>,
    /// The researcher's claims, and per file its scored units' `[last, mean]` (empty
    /// without claims).
    defined: Vec<Arc<DefinedClaim>>,
    facts: Vec<Vec<[f64; 2]>>,
}

impl<'a> Scoring<'a> {
    pub(super) fn new(
        tables: &'a [(&'a str, &'a Table)],
        req: &'a Request,
        scorer: &'a Scorer,
    ) -> Result<Self> {
        // Every file's windows have one length (`scorer` checked it).
        let seq_len = scorer.files.first().map_or(0, |h| h.seq_len);
        let defined = defined_claims(&req.base)?;
        let facts = if defined.is_empty() {
            Vec::new()
        } else {
            let base = RunSpec::new(req.data_config(), Purpose::Features, &crate::backend::LOCAL)?;
            claims::facts_of(tables, scorer, &base)?
        };
        Ok(Scoring {
            tables,
            req,
            scorer,
            seq_len,
            slide: slide(req, &defined),
            defined,
            facts,
        })
    }

    /// One grid point's rows (one per template). Without `stats` it computes the units'
    /// statistics and returns them, every scored window's units in order.
    pub(super) fn point(
        &self,
        point: &Point,
        stats: Option<&[SeriesStats]>,
    ) -> Result<(Vec<SweepRow>, Option<Vec<SeriesStats>>)> {
        let req = self.req;
        let spec = RunSpec::new(
            req.config(Some(point)),
            Purpose::Features,
            &crate::backend::LOCAL,
        )?;
        let bands = engine::plan::band_names(point.transform.level);
        let mut tally = self
            .scorer
            .tally(&bands, &self.defined, &req.base.description);
        let mut engine = Selected::native();
        // Per file, every unit of its scored windows and the part it was counted in (None:
        // its horizon straddles two parts, or it was left out). Each template renders them.
        let mut files: Vec<(Vec<Unit>, Vec<Option<Part>>)> = Vec::new();
        let mut approx_len = 0;
        let mut next_stats = stats.map(|s| s.iter());
        for (f, ((name, table), h)) in self.tables.iter().zip(&self.scorer.files).enumerate() {
            let prepared = spec
                .prepare(table)
                .map_err(|e| Error::from(e).within(&place(name, table)))?;
            approx_len = prepared.plan.band_lens[0];
            let prepared = prepared.part(h.scored.clone()).sliding(self.slide.clone());
            let prepared = match stats {
                Some(_) => prepared.without_statistics(),
                None => prepared,
            };
            let mut units = prepared
                .features(table, &mut engine, &mut Timer::default(), |_| true)
                .map_err(|e| {
                    Error::from(e).within(&format!(
                        "sweep at {}: {}",
                        point.transform,
                        place(name, table)
                    ))
                })?;
            let channels = table.channels.len();
            let mut parts = Vec::with_capacity(units.len());
            for (k, u) in units.iter_mut().enumerate() {
                if let Some(s) = next_stats.as_mut().and_then(Iterator::next) {
                    u.features.set_statistics(s);
                }
                let c = k % channels;
                let facts = self.facts.get(f).map_or([f64::NAN; 2], |facts| {
                    facts[(u.window - h.scored.start) * channels + c]
                });
                let part = tally
                    .push(h, u.window, c, &u.features, facts)
                    .map_err(|e| {
                        Error::input(format!(
                            "{name}, channel {}, window {}: {e}",
                            table.channels[c].name, u.window
                        ))
                    })?;
                parts.push(part);
            }
            files.push((units, parts));
        }
        let counted = || {
            files.iter().flat_map(|(units, parts)| {
                units
                    .iter()
                    .zip(parts)
                    .filter_map(|(u, p)| p.map(|p| (p, u)))
            })
        };
        let mut means = [0.0; 6];
        let mut n = 0usize;
        for (_, u) in counted() {
            n += 1;
            for (m, acc) in Metric::ALL.iter().zip(means.iter_mut()) {
                *acc += m.of(&u.features);
            }
        }
        for acc in &mut means {
            *acc /= n.max(1) as f64;
        }
        // The claims do not depend on the template: one evaluation per part, each
        // template's row with its own prompts' diversity.
        let (val, test) = rayon::join(
            || tally.evaluate(self.scorer, Part::Val, &[], Diversity::default()),
            || tally.evaluate(self.scorer, Part::Test, &[], Diversity::default()),
        );
        let mut rows = Vec::with_capacity(req.templates.len());
        for (template, prompter) in &req.templates {
            // Each file's counted prompts, one after another in one string (a string per
            // prompt was a tenth of the sweep's time in malloc and free), and where each
            // ends, with its part.
            // Rendered in pieces on every core, then joined in order (the Data set pane
            // scores one configuration: a serial render left a core idle).
            let counted: Vec<(Part, &Unit)> = counted().collect();
            let pieces: Vec<Result<Rendered>> = counted
                .par_chunks(RENDER_PIECE)
                .map(|piece| {
                    let mut texts = String::new();
                    let mut ends = Vec::with_capacity(piece.len());
                    for (p, u) in piece {
                        let vars = PromptVars {
                            features: &u.features,
                            description: &req.base.description,
                            seq_len: self.seq_len,
                            pred_len: req.base.pred_len,
                        };
                        prompter.render_into(&vars, &mut texts).map_err(|source| {
                            Error::Template {
                                place: template.clone(),
                                source,
                            }
                        })?;
                        ends.push((*p, texts.len()));
                    }
                    Ok((texts, ends))
                })
                .collect();
            let mut texts = String::new();
            let mut ends: Vec<(Part, usize)> = Vec::with_capacity(counted.len());
            for piece in pieces {
                let (t, e) = piece?;
                let at = texts.len();
                texts.push_str(&t);
                ends.extend(e.into_iter().map(|(p, end)| (p, at + end)));
            }
            let diversity = |part: Part| {
                let starts = std::iter::once(0).chain(ends.iter().map(|e| e.1));
                Diversity::of(
                    ends.iter()
                        .zip(starts)
                        .filter(|((p, _), _)| *p == part)
                        .map(|((_, end), start)| &texts[start..*end]),
                )
            };
            // The two parts' diversities side by side (each a pass of masking and hashing).
            let (val_diversity, test_diversity) =
                rayon::join(|| diversity(Part::Val), || diversity(Part::Test));
            let scored = Claim::printed(prompter);
            rows.push(SweepRow {
                transform: point.transform,
                aliases: point.aliases.iter().map(|a| a.to_string()).collect(),
                template: template.clone(),
                approx_len,
                val: Evaluation {
                    diversity: val_diversity,
                    ..val.clone()
                }
                .rescored(&scored),
                test: Evaluation {
                    diversity: test_diversity,
                    ..test.clone()
                }
                .rescored(&scored),
                means,
            });
        }
        // Every scored unit's statistics, in order (the straddling ones too: each
        // configuration renders the same units).
        let stats = stats.is_none().then(|| {
            files
                .iter()
                .flat_map(|(units, _)| units)
                .map(|u| u.features.statistics())
                .collect()
        });
        Ok((rows, stats))
    }
}
