//! A batch held in memory as rows — a training step's `x_enc` of shape (B, N, T) — straight
//! to features and prompts: the Python wheel's path.
//!
//! The CLI's pipeline reads windows out of a table's channels; a training step already
//! holds its B·N series, so here the engine reads them where they lie (`native::
//! summarize_slices`, the same lane kernels, so the same bits as the CLI for the same
//! windows), groups them as `--aggregate` does, and renders. Statistics-only templates
//! (`timellm`) skip the transform altogether.

use crate::data::Normalize;
use crate::engine::{native, DType, Plan, Real, SeriesSummary, StatsRequest};
use crate::features::degenerate::{self, Describe};
use crate::features::{self, Aggregate, Features};
use crate::numeric::parallel;
use crate::prompt::{PromptVars, Prompter, TemplateError};
use crate::stats::{LagRule, StatsScratch};
use rayon::prelude::*;

/// Series per piece of `statistics_prompts`: small enough that a thread that starts late
/// finds work left, large enough that taking a piece costs little beside rendering it.
const PROMPTS_PER_PIECE: usize = 8;

/// Prompts in order, rendered a piece's worth to a string.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompts {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Piece {
    text: String,
    /// Where each of its prompts ends in `text`.
    ends: smallvec::SmallVec<[usize; PROMPTS_PER_PIECE]>,
}

impl Prompts {
    pub fn len(&self) -> usize {
        self.pieces.iter().map(|p| p.ends.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.pieces.iter().flat_map(|p| {
            let starts = std::iter::once(0).chain(p.ends.iter().copied());
            starts.zip(&p.ends).map(|(a, &b)| &p.text[a..b])
        })
    }
}

/// Series `k` is sample `k / channels`, channel `k % channels` (sample-major, the order of
/// the CLI's series within a window), each `T` samples long.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a, T> {
    pub rows: &'a [&'a [T]],
    pub channels: usize,
}

/// Why a batch could not be summarised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RowsError {
    /// Sample `sample` of row `row` is a NaN or an infinity (its first such sample).
    #[error("row {row}, sample {sample} is {value}: the input must be finite")]
    NotFinite {
        row: usize,
        sample: usize,
        value: f64,
    },
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("internal: {0}")]
    Internal(String),
}

impl<T: Real> Rows<'_, T> {
    fn stats_request(&self, aggregate: Aggregate, lags: LagRule) -> StatsRequest {
        // Lags are read from each group's first series only (as in `pipeline::features`).
        StatsRequest {
            lags_every: match aggregate {
                Aggregate::Series => 1,
                Aggregate::Sample => self.channels,
                Aggregate::Batch => self.rows.len(),
            },
            lags,
        }
    }

    /// The features of each group of rows (`aggregate`: every row, every sample's
    /// `channels` rows, or all rows together), normalised first as the CLI's
    /// `--normalize` does. `statistics`: also Time-LLM's min/max/median/trend/lags.
    /// Degenerate groups are flagged (and constant ones described) as `describe` says.
    pub fn features(
        &self,
        plan: &Plan,
        aggregate: Aggregate,
        normalize: Normalize,
        statistics: bool,
        describe: Describe,
    ) -> Result<Vec<Features>, RowsError> {
        let stats = statistics.then(|| self.stats_request(aggregate, describe.lags));
        // A whole batch's sums are made run by run in the parallel pass (a run is a lane
        // group): the group's serial pass only adds 28 runs for 224 series.
        let runs = |group: &[SeriesSummary]| match aggregate {
            Aggregate::Batch => features::Sums::of_run(group, self.rows.len()),
            _ => features::Sums::default(),
        };
        let (sums, runs) = match plan.work_dtype(T::DTYPE) {
            // The common case (x_enc normalised by the model): read in place.
            w if w == T::DTYPE && normalize == Normalize::None => {
                native::summarize_slices(self.rows, plan, stats, runs)
            }
            DType::F32 => {
                let owned = self.prepared::<f32>(normalize)?;
                native::summarize_slices(&borrowed(&owned), plan, stats, runs)
            }
            DType::F64 => {
                let owned = self.prepared::<f64>(normalize)?;
                native::summarize_slices(&borrowed(&owned), plan, stats, runs)
            }
        }
        .map_err(|row| not_finite(row, self.rows[row]))?;
        let mut feats = match aggregate {
            Aggregate::Batch => vec![features::compute_from_runs(&sums, runs)],
            _ => group_features(&sums, aggregate, self.channels),
        };
        let group = match aggregate {
            Aggregate::Series => 1,
            Aggregate::Sample => self.channels.max(1),
            Aggregate::Batch => self.rows.len().max(1),
        };
        if feats.len() != self.rows.len().div_ceil(group) {
            return Err(RowsError::Internal(format!(
                "{} feature sets for {} rows in groups of {group}",
                feats.len(),
                self.rows.len()
            )));
        }
        // Raw rows are constant exactly when their normalised ones are.
        let scan = !describe.seed_compatible;
        feats
            .par_iter_mut()
            .zip(self.rows.par_chunks(group))
            .for_each(|(f, rows)| {
                let constant = scan && rows.iter().all(|r| degenerate::is_constant(r));
                describe.apply(f, constant);
            });
        Ok(feats)
    }

    /// Time-LLM's per-series prompts (the `timellm` template, or any template that reads
    /// only the statistics): no transform, every series' statistics and prompt in one pass.
    pub fn statistics_prompts(
        &self,
        prompter: &Prompter,
        normalize: Normalize,
        description: &str,
        pred_len: usize,
        describe: Describe,
    ) -> Result<Prompts, RowsError> {
        if normalize != Normalize::None {
            let owned = self.prepared::<T>(normalize)?;
            let rows = borrowed(&owned);
            let me = Rows {
                rows: &rows,
                channels: self.channels,
            };
            return me.statistics_prompts(
                prompter,
                Normalize::None,
                description,
                pred_len,
                describe,
            );
        }
        let seq_len = self.rows.first().map_or(0, |r| r.len());
        // One string per piece, not per prompt: allocating and freeing 224 strings was
        // a fiftieth of a Time-LLM batch, the freeing on the calling thread alone. The
        // pieces are the items shared out, one at a time.
        let n = self.rows.len();
        let mut pieces = vec![Piece::default(); n.div_ceil(PROMPTS_PER_PIECE)];
        parallel::for_each_piece(
            &mut pieces,
            1,
            parallel::State {
                key: seq_len,
                make: || StatsScratch::new(seq_len),
            },
            |st, i, piece| {
                let [piece] = piece else {
                    unreachable!("pieces taken one at a time")
                };
                let first = i * PROMPTS_PER_PIECE;
                let series = first..(first + PROMPTS_PER_PIECE).min(n);
                for k in series.clone() {
                    let row = self.rows[k];
                    let stats = st.compute(row, true);
                    // Total order puts every NaN and infinity beyond the finite values, so
                    // finite extremes mean finite samples, without a scan of its own.
                    if !(stats.min.is_finite() && stats.max.is_finite()) {
                        return Err(not_finite(k, row));
                    }
                    // Finite extremes that are equal: a constant row.
                    let constant = stats.min == stats.max;
                    let mut f = Features::of_statistics(stats);
                    describe.apply(&mut f, constant);
                    let vars = PromptVars {
                        features: &f,
                        description,
                        seq_len,
                        pred_len,
                    };
                    if piece.text.is_empty() {
                        piece.text.reserve(series.len() * prompter.room(&vars));
                    }
                    prompter.render_into(&vars, &mut piece.text)?;
                    piece.ends.push(piece.text.len());
                }
                Ok(())
            },
        )?;
        Ok(Prompts { pieces })
    }

    /// Every row normalised and rounded to this precision, as `WindowBatch::fill` reads a
    /// window, in `W`.
    fn prepared<W: Real>(&self, normalize: Normalize) -> Result<Vec<Vec<W>>, RowsError> {
        self.rows
            .par_iter()
            .enumerate()
            .map(|(k, row)| {
                let raw: Vec<f64> = row.iter().map(|v| v.to_f64()).collect();
                if !raw.iter().all(|v| v.is_finite()) {
                    return Err(not_finite(k, row));
                }
                let a = normalize.affine(&raw);
                Ok(raw
                    .iter()
                    .map(|&v| W::from_f64(T::DTYPE.round(a.map(v))))
                    .collect())
            })
            .collect()
    }
}

/// The error for row `row`, which holds a value that is not finite: its first one.
fn not_finite<T: Real>(row: usize, x: &[T]) -> RowsError {
    let (sample, value) = x
        .iter()
        .map(|v| v.to_f64())
        .enumerate()
        .find(|(_, v)| !v.is_finite())
        .unwrap_or((0, f64::NAN));
    RowsError::NotFinite { row, sample, value }
}

fn borrowed<W>(owned: &[Vec<W>]) -> Vec<&[W]> {
    owned.iter().map(|r| r.as_slice()).collect()
}

/// Each group's features, groups as `pipeline::features` forms them for one batch.
fn group_features(sums: &[SeriesSummary], aggregate: Aggregate, channels: usize) -> Vec<Features> {
    match aggregate {
        Aggregate::Series => sums
            .par_iter()
            .map(|s| features::compute(std::slice::from_ref(s)))
            .collect(),
        Aggregate::Sample => sums
            .par_chunks(channels.max(1))
            .map(features::compute)
            .collect(),
        Aggregate::Batch => vec![features::compute(sums)],
    }
}

/// A batch's runs are the pass's lane groups.
const _: () = assert!(features::RUN == native::LANES);

#[cfg(test)]
mod tests;
