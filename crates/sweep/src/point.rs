//! One grid point of a sweep: every scored unit's features under its transform, counted
//! into the claims' tallies, evaluated against the null and the bootstrap, and each
//! template's prompts rendered for their diversity ([`Scoring::point`]).

use super::request::slide;
use super::texts::{self, UnitTexts};
use super::{claims, defined_claims, Metric, Point, Request, SweepRow};
use crate::error::{Error, Result};
use crate::words::place;
use crate::Progress;
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};
use wavebench_core::data::Table;
use wavebench_core::engine::{self, Selected};
use wavebench_core::features::{Reads, Unit};
use wavebench_core::pipeline::NoSlide;
use wavebench_core::prompt::{PromptVars, Prompter};
use wavebench_core::run_spec::{Prepared, Purpose, RunSpec};
use wavebench_core::score::{
    AnyClaim, Claim, DefinedClaim, Diversity, Evaluation, ForecastGain, Part, PerPart, Scorer,
    StatisticsColumns, Tally, TextKey, WindowFacts,
};
use wavebench_core::stats::SeriesStats;
use wavebench_core::timing::Timer;

/// Prompts a thread renders at a time when a configuration's prompts are rendered.
const RENDER_PIECE: usize = 2048;

/// What the first configuration computes that the others borrow (no wavelet changes
/// them): every scored window's units' statistics, in order, and the columns of the
/// claims that read only those.
pub(super) type Lent = (Vec<SeriesStats>, StatisticsColumns);

/// Each point's rows (one per template), and what was kept to lend, if it was.
type Computed = (Vec<Vec<SweepRow>>, Option<Lent>);

/// A unit counted in a part, and its place among the units whose statistics were lent.
type Counted<'u> = (Part, &'u Unit, Option<usize>);

/// Which units a pass over a file's windows counts: the scored ones (their prompts
/// rendered and hashed) or the forecast gain's fit units (their claims only).
#[derive(Clone, Copy)]
enum Pass {
    Scored,
    Fit,
}

/// One file's passes: its number and table, the windows per chunk, the statistics lent
/// (if any) and where the next chunk's units start in them, and the engine.
struct FileChunks<'a> {
    f: usize,
    table: &'a Table,
    step: usize,
    stats: Option<&'a [SeriesStats]>,
    stats_at: &'a mut usize,
    engine: &'a mut Selected,
}

/// What one grid point accumulates as its chunks of units go through.
struct Counts {
    tally: Tally,
    /// Each [`Metric`]'s sum over the counted units, and how many there are.
    sums: [f64; 6],
    counted: usize,
    /// Per template, per scored part (val, test), its prompts' hashes.
    hashes: Vec<PerPart<Vec<TextKey>>>,
    /// The units' Time-LLM statistics, in order, where they are kept.
    kept_stats: Option<Vec<SeriesStats>>,
}

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
    facts: Vec<claims::Facts>,
    /// Where each point says how far its units have got, if anyone is watching.
    pub(super) progress: Option<Progress>,
    /// Per template, its prompts' pieces that no wavelet changes, where they are written
    /// (for the units whose statistics are lent, in their order).
    pub(super) texts: Vec<Option<Arc<UnitTexts>>>,
    /// The columns of the claims that read only the statistics, for the units whose
    /// statistics are lent.
    pub(super) columns: Option<StatisticsColumns>,
    /// Per template, its prompts' diversity over val and test where no configuration
    /// changes it (`Prompter::same_for_every_transform`), once a configuration has
    /// measured it: the others neither render nor hash those prompts.
    pub(super) fixed: Vec<Option<PerPart<Diversity>>>,
    /// The Time-LLM baseline's forecast gain (its trend word's: the same under every
    /// configuration), once a configuration has measured it.
    pub(super) baseline_gain: OnceLock<Option<PerPart<ForecastGain>>>,
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
            let base = RunSpec::new(
                req.data_config(),
                Purpose::Features,
                &wavebench_core::run_spec::NATIVE_ONLY,
            )?;
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
            progress: None,
            texts: Vec::new(),
            columns: None,
            fixed: Vec::new(),
            baseline_gain: OnceLock::new(),
        })
    }

    /// What the prompts' pieces are written for: the description and the lengths.
    pub(super) fn lengths(&self) -> (&str, usize, usize) {
        (
            &self.req.base.description,
            self.seq_len,
            self.req.base.pred_len,
        )
    }

    /// The rows of grid points of one wavelet and mode at increasing levels (one row per
    /// template each), computed together: where they slide, the levels they share are
    /// transformed once (`Prepared::features_together`). Without `stats` it computes the
    /// units' statistics, and returns them (every scored window's units in order) where
    /// `keep_stats` says so.
    ///
    /// The windows go through in chunks: each chunk's units are counted into the tallies,
    /// the means and each template's prompt hashes, then dropped, so memory grows by a few
    /// bytes per unit (its claims' categories, 32 bytes per prompt), not by its features
    /// and prompt text (about 1 kB). A chunk holds every level's units, so it is as many
    /// times smaller as there are levels.
    pub(super) fn points(
        &self,
        points: &[&Point],
        stats: Option<&[SeriesStats]>,
        keep_stats: bool,
    ) -> Result<Computed> {
        if points.is_empty() {
            return Ok((Vec::new(), None));
        }
        let specs = self.specs(points)?;
        let mut counts = self.counts_for(points, stats, keep_stats);
        let mut engine = Selected::native();
        let mut approx_len = vec![0; points.len()];
        // Where the next chunk's units start in `stats`.
        let mut stats_at = 0;
        self.start_progress(points.len());
        for (f, ((name, table), h)) in self.tables.iter().zip(&self.scorer.files).enumerate() {
            // A plan's errors name the file already.
            let prepared = specs
                .iter()
                .map(|spec| spec.prepare(table).map(Prepared::without_time_labels))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            for (len, p) in approx_len.iter_mut().zip(&prepared) {
                *len = p.plan.band_lens[0];
            }
            let step = (prepared[0].chunk_windows(table.channels.len()) / points.len()).max(1);
            let at =
                |what: &str| format!("sweep at {}{what}: {}", label(points), place(name, table));
            let mut file = FileChunks {
                f,
                table,
                step,
                stats,
                stats_at: &mut stats_at,
                engine: &mut engine,
            };
            self.count_chunks(
                &mut file,
                Pass::Scored,
                &prepared,
                h.scored.clone(),
                &at(""),
                &mut counts,
            )?;
            // The fit units (every k-th train window), whose claims each row's forecast
            // gain is fit on: counted into the tallies, no prompt rendered. Their
            // statistics are lent after the file's scored units'.
            let fit = self.fit_windows(h);
            if let Some(&first_fit) = fit.first() {
                let every: Vec<Prepared> = prepared
                    .iter()
                    .map(|p| p.every(first_fit, h.fit_stride, fit.len()))
                    .collect();
                self.count_chunks(
                    &mut file,
                    Pass::Fit,
                    &every,
                    0..fit.len(),
                    &at(", train"),
                    &mut counts,
                )?;
            }
        }
        let kept = counts.first_mut().and_then(|c| {
            let stats = c.kept_stats.take()?;
            Some((stats, c.tally.statistics_columns()))
        });
        let rows = points
            .iter()
            .zip(counts)
            .zip(approx_len)
            .map(|((point, counts), approx_len)| self.rows(point, counts, approx_len))
            .collect();
        Ok((rows, kept))
    }

    /// Each grid point's run over the sweep's data options.
    fn specs(&self, points: &[&Point]) -> Result<Vec<RunSpec>> {
        let specs = points
            .iter()
            .map(|p| {
                RunSpec::new(
                    self.req.config(Some(p)),
                    Purpose::Features,
                    &wavebench_core::run_spec::NATIVE_ONLY,
                )
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(specs)
    }

    /// The units of `windows` (one run per grid point) over `range`, a chunk of
    /// `file.step` windows at a time: lent the file's statistics where there are, counted
    /// into each point's `counts` as `pass` says, the progress told.
    fn count_chunks(
        &self,
        file: &mut FileChunks<'_>,
        pass: Pass,
        windows: &[Prepared],
        range: std::ops::Range<usize>,
        at: &str,
        counts: &mut [Counts],
    ) -> Result<()> {
        for first in range.clone().step_by(file.step) {
            let chunk = first..(first + file.step).min(range.end);
            let parts: Vec<Prepared> = windows.iter().map(|p| p.part(chunk.clone())).collect();
            let lent = file.stats.is_some();
            let levels = self.features(&parts, lent, file.table, file.engine, at)?;
            let mut done = 0;
            for (mut units, counts) in levels.into_iter().zip(counts.iter_mut()) {
                lend(&mut units, file.stats, *file.stats_at)?;
                match pass {
                    // With statistics lent, the pieces of `texts` are those units'.
                    Pass::Scored => {
                        let first = file.stats.map(|_| *file.stats_at);
                        self.count(counts, file.f, &units, first)?
                    }
                    Pass::Fit => self.count_fit(counts, file.f, &units)?,
                }
                if let Some(p) = &self.progress {
                    p.add(units.len());
                }
                done = units.len();
            }
            *file.stats_at += done;
        }
        Ok(())
    }

    /// What each of `points` accumulates, empty: its tally (with the statistics' columns
    /// where `stats` are lent), its sums and its prompt hashes (sized at once); the first
    /// point keeps the units' statistics where `keep_stats` asks and none are lent.
    fn counts_for(
        &self,
        points: &[&Point],
        stats: Option<&[SeriesStats]>,
        keep_stats: bool,
    ) -> Vec<Counts> {
        let req = self.req;
        points
            .iter()
            .enumerate()
            .map(|(k, point)| Counts {
                tally: {
                    let mut tally = self.scorer.tally(
                        &engine::plan::band_names(point.transform.level),
                        &self.defined,
                        &req.base.description,
                    );
                    if let (Some(_), Some(columns)) = (stats, &self.columns) {
                        tally.with_statistics_columns(columns);
                    }
                    tally
                },
                sums: [0.0; 6],
                counted: 0,
                // Sized at once: a list that doubles as it grows holds up to twice its
                // hashes.
                hashes: (0..req.templates.len())
                    .map(|t| match self.fixed_at(t) {
                        Some(_) => PerPart::default(),
                        None => {
                            PerPart::from_fn(|p| Vec::with_capacity(self.scorer.units.of(p.part())))
                        }
                    })
                    .collect(),
                // The statistics do not depend on the level: the first point keeps them.
                kept_stats: (k == 0 && stats.is_none() && keep_stats).then(Vec::new),
            })
            .collect()
    }

    /// Tell the progress, if any, how many units `points` grid points will count.
    fn start_progress(&self, points: usize) {
        if let Some(p) = &self.progress {
            let units = self.tables.iter().zip(&self.scorer.files);
            p.start(
                points
                    * units
                        .map(|((_, t), h)| {
                            (h.scored.len() + self.fit_windows(h).len()) * t.channels.len()
                        })
                        .sum::<usize>(),
            );
        }
    }

    /// The fit windows of file `h`, where the rows' forecast gain is measured.
    fn fit_windows<'h>(&self, h: &'h wavebench_core::score::Horizons) -> &'h [usize] {
        match self.scorer.gain {
            Some(_) => &h.fit_windows,
            None => &[],
        }
    }

    /// The features of `parts` (one run per level of a grid point, the same windows),
    /// without Time-LLM's statistics where they are `lent`; errors say `at`.
    fn features(
        &self,
        parts: &[Prepared],
        lent: bool,
        table: &Table,
        engine: &mut Selected,
        at: &str,
    ) -> Result<Vec<Vec<Unit>>> {
        let parts: Vec<Prepared> = parts
            .iter()
            .map(|p| {
                let part = p.clone().sliding(self.slide.clone());
                if lent {
                    part.without_statistics()
                } else {
                    part
                }
            })
            .collect();
        let mut timer = Timer::default();
        let computed = match parts.as_slice() {
            [one] => one
                .features(table, engine, &mut timer, |_| true)
                .map(|units| vec![units]),
            _ => {
                let runs: Vec<&Prepared> = parts.iter().collect();
                Prepared::features_together(&runs, table, engine, &mut timer)
            }
        };
        computed.map_err(|e| Error::from(e).within(at))
    }

    /// Template `t`'s diversities over val and test, where they are the same for every
    /// configuration and already measured.
    fn fixed_at(&self, t: usize) -> Option<PerPart<Diversity>> {
        self.fixed.get(t).copied().flatten()
    }

    /// One grid point's rows (one per template) from what its units counted.
    fn rows(&self, point: &Point, counts: Counts, approx_len: usize) -> Vec<SweepRow> {
        let req = self.req;
        let Counts {
            tally,
            sums,
            counted: counted_units,
            hashes,
            ..
        } = counts;
        let means = sums.map(|s| s / counted_units.max(1) as f64);
        // The claims do not depend on the template: one evaluation per part, each
        // template's row with its own prompts' diversity.
        let (val, test) = rayon::join(
            || tally.evaluate(self.scorer, Part::Val, &[], Diversity::default()),
            || tally.evaluate(self.scorer, Part::Test, &[], Diversity::default()),
        );
        let mut rows = Vec::with_capacity(req.templates.len());
        // The claims' forecast gain, once per set of scored claims.
        let mut gains: Vec<(Vec<AnyClaim>, Option<PerPart<ForecastGain>>)> = Vec::new();
        let baseline: Vec<AnyClaim> = Claim::BASELINE.map(AnyClaim::Builtin).to_vec();
        let baseline_gain = self
            .baseline_gain
            .get_or_init(|| tally.forecast_gain(self.scorer, &baseline));
        for (t, ((template, prompter), mut hashes)) in req.templates.iter().zip(hashes).enumerate()
        {
            // The two parts' diversities side by side (each a sort of its hashes).
            let (val_diversity, test_diversity) = match self.fixed_at(t) {
                Some(fixed) => (fixed.val, fixed.test),
                None => rayon::join(
                    || Diversity::of_hashes(&mut hashes.val),
                    || Diversity::of_hashes(&mut hashes.test),
                ),
            };
            let scored = Claim::printed(prompter);
            let transform_free = prompter.transform_free()
                && self
                    .defined
                    .iter()
                    .filter(|c| c.target().is_some())
                    .all(|c| c.transform_free());
            let mut val = Evaluation {
                diversity: val_diversity,
                ..val.clone()
            }
            .rescored(&scored);
            let mut test = Evaluation {
                diversity: test_diversity,
                ..test.clone()
            }
            .rescored(&scored);
            let gain = if val.scored == baseline {
                baseline_gain.clone()
            } else if let Some((_, g)) = gains.iter().find(|(c, _)| *c == val.scored) {
                g.clone()
            } else {
                let g = tally.forecast_gain(self.scorer, &val.scored);
                gains.push((val.scored.clone(), g.clone()));
                g
            };
            if let Some(g) = gain {
                val.forecast = Some(g.val);
                test.forecast = Some(g.test);
            }
            rows.push(SweepRow {
                transform: point.transform,
                aliases: point.aliases.iter().map(|a| a.to_string()).collect(),
                template: template.clone(),
                approx_len,
                val,
                test,
                means,
                transform_free,
            });
        }
        rows
    }

    /// A chunk of file `f`'s units (in window-major, channel-minor order, their statistics
    /// in place) counted into `counts`: each unit's claims, the feature means and each
    /// template's prompt hashes over the units of val and test. `first`: the first unit's
    /// place among the units whose statistics were lent (and whose `texts` are written).
    fn count(
        &self,
        counts: &mut Counts,
        f: usize,
        units: &[Unit],
        first: Option<usize>,
    ) -> Result<()> {
        let (name, table) = self.tables[f];
        let h = &self.scorer.files[f];
        let channels = table.channels.len();
        let mut counted: Vec<Counted<'_>> = Vec::with_capacity(units.len());
        for (k, u) in units.iter().enumerate() {
            if let Some(kept) = counts.kept_stats.as_mut() {
                kept.push(u.features.statistics());
            }
            let c = k % channels;
            let facts = self.facts.get(f).map_or(WindowFacts::MISSING, |facts| {
                facts.scored[(u.window - h.scored.start) * channels + c]
            });
            let part = counts
                .tally
                .push(h, u.window, c, &u.features, facts)
                .map_err(|e| claim_error(e, (name, table), c, u.window))?;
            if let Some(p) = part {
                counted.push((p, u, first.map(|i| i + k)));
                counts.counted += 1;
                for (m, acc) in Metric::ALL.iter().zip(counts.sums.iter_mut()) {
                    *acc += m.of(&u.features);
                }
            }
        }
        for (t, ((template, prompter), hashes)) in self
            .req
            .templates
            .iter()
            .zip(&mut counts.hashes)
            .enumerate()
        {
            if self.fixed_at(t).is_some() {
                continue;
            }
            let texts = first.and(self.texts.get(t)).and_then(Option::as_deref);
            self.hash_prompts(template, (prompter, texts), &counted, hashes)?;
        }
        Ok(())
    }

    /// A chunk of file `f`'s fit units (numbered by their fit window, window-major,
    /// channel-minor, their statistics in place) counted into `counts`' tally.
    fn count_fit(&self, counts: &mut Counts, f: usize, units: &[Unit]) -> Result<()> {
        let (name, table) = self.tables[f];
        let h = &self.scorer.files[f];
        let channels = table.channels.len();
        for (k, u) in units.iter().enumerate() {
            if let Some(kept) = counts.kept_stats.as_mut() {
                kept.push(u.features.statistics());
            }
            let c = k % channels;
            let facts = self.facts.get(f).map_or(WindowFacts::MISSING, |facts| {
                facts.fit[u.window * channels + c]
            });
            counts
                .tally
                .push_fit(h, u.window, c, &u.features, facts)
                .map_err(|e| {
                    let window = h.fit_windows.get(u.window).copied().unwrap_or(u.window);
                    claim_error(e, (name, table), c, window)
                })?;
        }
        Ok(())
    }

    /// The prompts of `counted` (a chunk's units with their parts) under one template,
    /// rendered in pieces on every core, each kept as its hashes in its part's list; with
    /// `texts`, the template's pieces of these units, only their words are written.
    fn hash_prompts(
        &self,
        template: &str,
        (prompter, texts): (&Prompter, Option<&UnitTexts>),
        counted: &[Counted<'_>],
        hashes: &mut PerPart<Vec<TextKey>>,
    ) -> Result<()> {
        let req = self.req;
        let pieces: Vec<Result<Vec<(Part, TextKey)>>> = counted
            .par_chunks(RENDER_PIECE)
            .map(|piece| {
                let mut text = String::new();
                let mut buf = Vec::new();
                let mut scratch = texts::Scratch::default();
                let mut out = Vec::with_capacity(piece.len());
                for (p, u, at) in piece {
                    let vars = PromptVars {
                        features: &u.features,
                        description: &req.base.description,
                        seq_len: self.seq_len,
                        pred_len: req.base.pred_len,
                    };
                    let written = texts
                        .zip(*at)
                        .and_then(|(t, i)| t.hashes(i, &vars, &mut scratch));
                    if let Some(h) = written {
                        out.push((*p, h));
                        continue;
                    }
                    text.clear();
                    prompter
                        .render_into(&vars, &mut text)
                        .map_err(|source| Error::Template {
                            place: template.to_string(),
                            source,
                        })?;
                    out.push((*p, Diversity::hashes(&text, &mut buf)));
                }
                Ok(out)
            })
            .collect();
        for piece in pieces {
            for (p, h) in piece? {
                match p {
                    Part::Test => hashes.test.push(h),
                    _ => hashes.val.push(h),
                }
            }
        }
        Ok(())
    }
}

/// A defined claim's failure on one unit, named by its file, channel and window (as the
/// run numbers it).
fn claim_error(
    e: wavebench_core::score::DefinedError,
    (name, table): (&str, &Table),
    channel: usize,
    window: usize,
) -> Error {
    Error::from(e).within(&format!(
        "{}, channel {}, window {window}",
        place(name, table),
        table.channels[channel].name,
    ))
}

/// Lent statistics `stats[at..]` set in `units` (none to set without a lender).
fn lend(units: &mut [Unit], stats: Option<&[SeriesStats]>, at: usize) -> Result<()> {
    let Some(s) = stats else {
        return Ok(());
    };
    let s = s.get(at..at + units.len()).ok_or_else(|| {
        Error::internal(format!(
            "sweep: {} units' statistics lent for {} units",
            s.len(),
            at + units.len()
        ))
    })?;
    for (u, s) in units.iter_mut().zip(s) {
        u.features.set_statistics(s);
    }
    Ok(())
}

/// How an error names points computed together: "db4 level 3 reflect", or "db4 levels
/// 1 to 8 reflect".
fn label(points: &[&Point]) -> String {
    match points {
        [first, .., last] => {
            let t = first.transform;
            format!(
                "{} levels {} to {} {}",
                t.wavelet.name,
                t.level,
                last.transform.level,
                t.mode.name()
            )
        }
        [one] => one.transform.to_string(),
        [] => String::new(),
    }
}
