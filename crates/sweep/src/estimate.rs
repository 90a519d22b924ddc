//! What a sweep will take before it starts: its time and peak memory on this machine,
//! from the data's shape alone (rows, channels, window, horizon, split) and rates
//! measured on a 2-core EPYC run as AVX2 (BENCHMARKS.md: ETTh1's whole sweep, the Traffic
//! and Electricity shapes with and without `--fit-subset-above`). A guide, within a factor
//! of about 1.5, not a promise: the progress bar's ETA then follows the real pace.

use super::Request;
use wavebench_core::data::Table;
use wavebench_core::score::{Part, Protocol};

/// CPU seconds per multiply-add of the forecaster's normal equations (a train unit adds
/// (T+1)²/2 of them).
const GRAM_FMA: f64 = 1.07e-10;
/// Seconds per unit for its outcome and the forecasters' inputs and predictions (counted
/// as one thread: the passes overlap the cores only in part).
const OUTCOME: f64 = 1.3e-6;
/// CPU seconds per scored unit in the first configuration (its Time-LLM statistics too).
const FIRST: f64 = 7.8e-6;
/// CPU seconds per scored unit in each later configuration.
const LATER: f64 = 1.8e-6;
/// Seconds per scored unit to read a prepared folder's units back and rebuild their
/// sequences.
const PREPARED_READ: f64 = 2.0e-7;
/// The process before any data: libtorch's libraries mapped and relocated.
const PROCESS: f64 = 0.45e9;
/// Per unit of the scorer (outcomes, train values, predictions, slots, the scored units'
/// 16-bit prefix counts) at its peak.
const SCORER_PER_UNIT: f64 = 35.0;
/// Per scored unit and claim column (a u32 category).
const CLAIM: f64 = 4.0;
/// Per scored unit and template (a prompt's two hashes).
const PROMPT_HASHES: f64 = 32.0;
/// Per scored unit when its Time-LLM statistics are kept for the later configurations.
const STATISTICS: f64 = 130.0;
/// A chunk of windows' features in flight, per configuration running.
const CHUNK: f64 = 40e6;
/// CPU seconds per null draw, scored unit and claim column of a configuration, beyond
/// the default 99 draws that `LATER` and `FIRST` include.
const NULL_DRAW: f64 = 3.6e-10;
/// CPU seconds per bootstrap replicate, scored unit and claim column of a configuration,
/// beyond the default 199 replicates.
const BOOT_REPLICATE: f64 = 4.0e-11;
/// Bytes per replicate a configuration keeps per part and claim column (its designated
/// outcome's bits and complementary bits, shared by the configuration's rows), and a row
/// per part (its score's and complementary score's).
const REPLICATE: f64 = 16.0;
/// Bytes per replicate of the bootstrap's blocks, per block of scored units (a piece or
/// two of 12 bytes).
const BLOCK_PIECE: f64 = 18.0;
/// Bytes per replicate a row keeps per part for its forecast gain.
const GAIN_REPLICATE: f64 = 8.0;

/// A sweep's estimated wall time and peak resident memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub seconds: f64,
    /// Of `seconds`, the work every configuration shares (the units' outcomes, the
    /// forecasters' fit and predictions): what `sweep prepare` does once.
    pub shared_seconds: f64,
    pub bytes: f64,
    /// Units (windows × channels) of every file, and those the configurations score.
    pub units: usize,
    pub scored: usize,
}

/// What the estimate counts over the data set.
struct Counted {
    /// Units (windows × channels) of every file.
    units: usize,
    /// Train units: horizons within train's rows.
    train: usize,
    /// The units from the first val horizon on, computed per configuration.
    scored: usize,
    /// The units of every k-th train window: each configuration's features for the
    /// forecast gain's fit.
    fit: usize,
    /// Train windows and channels per file, for the forecasters' fit (all, or a subset
    /// where asked).
    train_windows: Vec<(usize, usize)>,
    /// The tables' samples as f64.
    table_bytes: f64,
}

impl Counted {
    fn of(tables: &[(&str, &Table)], req: &Request) -> Counted {
        let t = req.base.seq_len.unwrap_or(0);
        let p = req.base.pred_len;
        let stride = req.base.stride.max(1);
        let every = wavebench_core::score::gain::fit_stride(t, stride);
        let mut c = Counted {
            units: 0,
            train: 0,
            scored: 0,
            fit: 0,
            train_windows: Vec::with_capacity(tables.len()),
            table_bytes: 0.0,
        };
        for (_, table) in tables {
            let rows = table.rows();
            let channels = table.channels.len();
            c.table_bytes += (rows * channels * 8) as f64;
            let need = t.saturating_add(p);
            let windows =
                |rows: usize| rows.saturating_sub(need) / stride + usize::from(rows >= need);
            c.units += windows(rows) * channels;
            if let Ok(b) = req.split.borders(0, rows) {
                let n_train = windows(b.part(Part::Train).end);
                c.train += n_train * channels;
                c.train_windows.push((n_train, channels));
                c.fit += n_train.div_ceil(every) * channels;
                c.scored += windows(rows).saturating_sub(n_train) * channels;
            }
        }
        c
    }
}

/// The estimate for `configurations` configurations of `req` over `tables`, on `threads`.
pub fn estimate(
    tables: &[(&str, &Table)],
    req: &Request,
    configurations: usize,
    threads: usize,
) -> Estimate {
    let t = req.base.seq_len.unwrap_or(0);
    let p = req.base.pred_len;
    let stride = req.base.stride.max(1);
    let counted = Counted::of(tables, req);
    let Counted {
        units,
        train,
        scored,
        fit,
        ..
    } = counted;
    let threads = threads.max(1) as f64;
    let k = wavebench_core::score::forecaster::fit_every(
        train,
        t,
        stride,
        req.protocol.fit_subset_above,
    );
    let fitted: usize = counted
        .train_windows
        .iter()
        .map(|(n, c)| n.div_ceil(k) * c)
        .sum();
    // The normal equations over the fitted units (and the horizon's P columns beside
    // them), then each fit and scored unit's residuals once, where they are kept.
    let residuals = wavebench_core::score::GainUnits::bytes(fit + scored, p);
    let kept_residuals = residuals <= wavebench_core::score::gain::RESIDUALS_BUDGET;
    let fma = fitted as f64 * (((t + 1) * (t + 1)) as f64 / 2.0 + ((t + 1) * p) as f64)
        + if kept_residuals {
            ((fit + scored) * (t + 1) * p) as f64
        } else {
            0.0
        };
    let residuals = if kept_residuals {
        residuals as f64
    } else {
        0.0
    };
    // The first configuration computes the statistics too; the later ones borrow them
    // where they are kept, else compute their own.
    let keeps = scored <= crate::units::KEPT_STATISTICS;
    let per_unit = match configurations {
        0 => 0.0,
        n if keeps => FIRST + LATER * (n - 1) as f64,
        n => FIRST * n as f64,
    };
    let claims = (wavebench_core::score::Claim::ALL.len() + req.base.claims.len()) as f64;
    let default = Protocol::default();
    let (draws, replicates) = (
        req.protocol.null_draws as f64,
        req.protocol.bootstrap as f64,
    );
    // Draws and replicates past the defaults the rates were measured at.
    let resampling = configurations as f64
        * scored as f64
        * claims
        * (NULL_DRAW * (draws - default.null_draws as f64)
            + BOOT_REPLICATE * (replicates - default.bootstrap as f64));
    let shared_seconds = OUTCOME * units as f64 + GRAM_FMA * fma / threads;
    let seconds =
        shared_seconds + (per_unit * (scored + fit) as f64 + resampling.max(0.0)) / threads;
    Estimate {
        seconds,
        shared_seconds,
        bytes: memory(&counted, req, configurations, threads, residuals),
        units,
        scored,
    }
}

/// The peak memory of `configurations` configurations of `req` over the `counted` data
/// set, `threads` at work, `residuals` the forecast gain's kept residuals' bytes.
fn memory(
    counted: &Counted,
    req: &Request,
    configurations: usize,
    threads: f64,
    residuals: f64,
) -> f64 {
    let Counted {
        units,
        scored,
        fit,
        table_bytes,
        ..
    } = *counted;
    let t = req.base.seq_len.unwrap_or(0);
    let p = req.base.pred_len;
    let stride = req.base.stride.max(1);
    let claims = (wavebench_core::score::Claim::ALL.len() + req.base.claims.len()) as f64;
    let (draws, replicates) = (
        req.protocol.null_draws as f64,
        req.protocol.bootstrap as f64,
    );
    let keeps = scored <= crate::units::KEPT_STATISTICS;
    let kept = if keeps { STATISTICS } else { 0.0 };
    let running = (2.0 * threads).min(configurations.max(1) as f64);
    // Every configuration keeps its claims' replicates, and every row (a configuration
    // under a template) its scores', for val and test; the blocks and shifts are shared.
    let rows = (configurations * req.templates.len().max(1)) as f64;
    let span = (t.saturating_add(p) as f64 / stride as f64).max(1.0);
    let kept_replicates = 2.0
        * replicates
        * (REPLICATE * (configurations as f64 * claims + rows) + GAIN_REPLICATE * rows)
        + replicates * (scored as f64 / span + 1.0) * BLOCK_PIECE
        + draws * 8.0 * (units as f64 / span).max(1.0);
    PROCESS
        + 2.0 * table_bytes
        + SCORER_PER_UNIT * units as f64
        + scored as f64 * (claims * CLAIM + PROMPT_HASHES * req.templates.len() as f64 + kept)
        + fit as f64 * (claims * CLAIM + kept)
        + residuals
        + CHUNK * running
        + kept_replicates
}

impl Estimate {
    /// The estimate where the shared work is read from a prepared folder
    /// (`sweep --prepared`) instead of computed: reading it back takes
    /// `PREPARED_READ` per scored unit.
    pub fn without_shared(self) -> Estimate {
        Estimate {
            seconds: self.seconds - self.shared_seconds + PREPARED_READ * self.scored as f64,
            shared_seconds: PREPARED_READ * self.scored as f64,
            ..self
        }
    }

    /// "about 3 min and 1.2 GB".
    pub fn text(&self) -> String {
        let s = self.seconds.max(1.0);
        let time = if s < 90.0 {
            format!("{s:.0} s")
        } else if s < 5400.0 {
            format!("{:.0} min", s / 60.0)
        } else {
            format!("{:.1} h", s / 3600.0)
        };
        format!("about {time} and {:.1} GB", self.bytes / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::config::Config;
    use wavebench_core::data::Channel;
    use wavebench_core::numeric::real::Values;

    fn table(rows: usize, channels: usize) -> Table {
        Table {
            channels: (0..channels)
                .map(|c| Channel {
                    name: format!("c{c}"),
                    values: Values::F64(vec![0.0; rows]),
                })
                .collect(),
            ..Table::default()
        }
    }

    /// The configurations of a prepared sweep, past the folder's reading: a later one
    /// costs less than the first where the units' statistics are kept (ETTh1's shape), as
    /// much where they are not (a Traffic shape's 4.5 M scored units: BENCHMARKS.md, the
    /// prepared shards of issue 64 item 2).
    #[test]
    fn later_configurations_borrow_the_statistics_only_where_they_are_kept() {
        let req = Request {
            base: Config {
                seq_len: Some(512),
                ..Config::default()
            },
            grid: crate::Grid::default(),
            templates: Vec::new(),
            split: Default::default(),
            protocol: Protocol::default(),
        };
        for (shape, keeps) in [(table(17_420, 7), true), (table(17_544, 862), false)] {
            let tables = [("", &shape)];
            let e = |n: usize| estimate(&tables, &req, n, 2).without_shared();
            let (one, two) = (e(1), e(2));
            let first = one.seconds - one.shared_seconds;
            let later = two.seconds - one.seconds;
            assert!(first > 0.0 && later > 0.0, "{first} {later}");
            if keeps {
                assert!(later < 0.5 * first, "kept: {later} against {first}");
            } else {
                assert!(
                    (later - first).abs() < 1e-9 * first,
                    "{later} against {first}"
                );
            }
        }
    }
}
