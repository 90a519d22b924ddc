//! A batch's summaries on the device, packed into one `[series, width]` f64 tensor
//! (band moments, statistics, lags), and back on the host: one transfer per run.

use super::Torch;
use std::time::Instant;
use tch::{Device, Kind, TchError, Tensor};
use wavebench_core::engine::plan::Plan;
use wavebench_core::engine::summary::{BandSummary, SeriesSummary};
use wavebench_core::engine::{DType, StatsRequest};
use wavebench_core::stats::{LagRule, SeriesStats, TOP_LAGS};
use wavebench_core::timing::{Stage, Timer};

/// Per-band values sent back: energy, mean, m2, first, last.
const BAND_FIELDS: usize = 5;

impl Torch {
    /// Every summary of `xt` (`rows` series in `work` precision, on the device) packed
    /// there as `[series, width]` f64 (see `unpack`): queued work, nothing waited for.
    pub(super) fn pack(
        &mut self,
        xt: Tensor,
        rows: usize,
        work: DType,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Packed, TchError> {
        let t = Instant::now();
        let bands = self.wavedec(&xt, plan, work)?;
        self.lap(timer, Stage::Decompose, t);

        // Every reduction in f64 so the features match the native engine's.
        let t = Instant::now();
        let bands: Vec<Tensor> = bands
            .iter()
            .map(|b| b.f_to_dtype(Kind::Double, false, false))
            .collect::<Result<_, _>>()?;
        let energy: Vec<Tensor> = bands
            .iter()
            .map(|b| b.f_square()?.f_sum_dim_intlist(-1, false, Kind::Double))
            .collect::<Result<_, _>>()?;
        self.lap(timer, Stage::Frequency, t);
        let t = Instant::now();
        let ends: Vec<(Tensor, Tensor)> = bands
            .iter()
            .map(|b| Ok((b.f_select(1, 0)?, b.f_select(1, b.size()[1] - 1)?)))
            .collect::<Result<_, TchError>>()?;
        self.lap(timer, Stage::Trend, t);
        let t = Instant::now();
        let moments = band_moments(&bands)?;
        self.lap(timer, Stage::Quality, t);

        let mut columns = Vec::with_capacity(plan.bands() * BAND_FIELDS + 4 + TOP_LAGS);
        for k in 0..plan.bands() {
            columns.extend([
                energy[k].shallow_clone(),
                moments[k].0.shallow_clone(),
                moments[k].1.shallow_clone(),
                ends[k].0.shallow_clone(),
                ends[k].1.shallow_clone(),
            ]);
        }
        let (mut n_lags, mut n_clean) = (0, 0);
        if let Some(stats) = stats {
            let t = Instant::now();
            let (more, n, clean) = statistics_columns(&xt, rows, plan.len, stats)?;
            columns.extend(more);
            (n_lags, n_clean) = (n, clean);
            self.lap(timer, Stage::Statistics, t);
        }

        Ok(Packed {
            tensor: Tensor::f_stack(&columns, 1)?,
            layout: Layout {
                band_lens: plan.band_lens.clone(),
                stats: stats.is_some(),
                n_lags,
                n_clean,
            },
        })
    }

    /// Bring packed summaries to the host: one transfer, one synchronisation.
    pub(super) fn download(
        &self,
        packed: &Tensor,
        timer: &mut Timer,
    ) -> Result<Vec<f64>, TchError> {
        let t = Instant::now();
        let host = packed.f_to_device_(Device::Cpu, Kind::Double, false, false)?;
        let mut v = vec![0.0f64; host.numel()];
        let n = v.len();
        host.f_copy_data(&mut v, n)?;
        timer.host_syncs += 1;
        timer.add(Stage::Download, t.elapsed());
        Ok(v)
    }
}

/// What the columns of a packed summary tensor are.
#[derive(Clone, PartialEq)]
pub(super) struct Layout {
    band_lens: Vec<usize>,
    stats: bool,
    n_lags: usize,
    n_clean: usize,
}

impl Layout {
    fn width(&self) -> usize {
        self.band_lens.len() * BAND_FIELDS
            + if self.stats {
                4 + self.n_lags + self.n_clean
            } else {
                0
            }
    }

    /// Row-major `[series, width]` values back into summaries.
    pub(super) fn unpack(&self, host: &[f64]) -> Vec<SeriesSummary> {
        let bands = self.band_lens.len();
        host.chunks_exact(self.width().max(1))
            .map(|row| SeriesSummary {
                bands: (0..bands)
                    .map(|k| {
                        let v = &row[k * BAND_FIELDS..(k + 1) * BAND_FIELDS];
                        BandSummary {
                            energy: v[0],
                            mean: v[1],
                            m2: v[2],
                            first: v[3],
                            last: v[4],
                            len: self.band_lens[k],
                        }
                    })
                    .collect(),
                stats: self.stats.then(|| {
                    let s = &row[bands * BAND_FIELDS..];
                    let lags = |cols: &[f64]| {
                        cols.iter()
                            .filter(|&&v| v >= 0.0)
                            .map(|&v| v as usize)
                            .collect()
                    };
                    let (timellm, clean) =
                        s[4..4 + self.n_lags + self.n_clean].split_at(self.n_lags);
                    SeriesStats {
                        min: s[0],
                        max: s[1],
                        median: s[2],
                        trend: s[3],
                        lags: lags(timellm),
                        lags_clean: lags(clean),
                    }
                }),
            })
            .collect()
    }
}

/// A batch's summaries, still on the device.
pub(super) struct Packed {
    pub(super) tensor: Tensor,
    pub(super) layout: Layout,
}

/// Top lags of every row on the device, by the rule of `stats` (symmetrised circular
/// autocorrelation, ratios to lag 0 rounded to 9 decimals, stable descending sort):
/// `[rows, k + kc]`, Time-LLM's k lags then the kc clean ones (among 1..=n/2).
fn device_lags(xs: &Tensor, peaks: bool) -> Result<(Tensor, usize, usize), TchError> {
    let t = xs.size()[1];
    let n = 2 * (t / 2);
    if n == 0 {
        return Ok((
            xs.f_zeros_like()?.f_to_dtype(Kind::Int64, false, false)?,
            1,
            0,
        ));
    }
    let spec = xs.f_fft_rfft(None, -1, "backward")?;
    let power = spec.f_abs()?.f_square()?;
    let r = power.f_fft_irfft(None, -1, "backward")?;
    // Mirror: r[(n - k) mod n].
    let mirror = Tensor::f_cat(
        &[r.f_narrow(1, 0, 1)?, r.f_narrow(1, 1, n - 1)?.f_flip([1])?],
        1,
    )?;
    let r = r.f_add(&mirror)?.f_mul_scalar(0.5)?;
    let r0 = r.f_narrow(1, 0, 1)?;
    let nonzero = r0.f_ne(0.0)?;
    let safe = r0.f_where_self(&nonzero, &r0.f_ones_like()?)?;
    let ratio = r.f_div(&safe)?.f_where_self(&nonzero, &r.f_zeros_like()?)?;
    // Ratios rounded to 9 decimals are integers in units of 1e-9; `round * (n+1) - lag` is a
    // unique key (exact in f64: |key| < 2^53) that orders larger ratios first and, among
    // equal ones, the smaller lag first, so an ordinary top-k gives the stable order.
    let rounded = ratio.f_mul_scalar(1e9)?.f_round()?;
    let lag = Tensor::f_arange(n, (Kind::Double, xs.device()))?;
    let key = rounded.f_mul_scalar((n + 1) as f64)?.f_sub(&lag)?;
    let (order, k) = if peaks {
        peak_lags(&rounded, &key, n / 2)?
    } else {
        let k = TOP_LAGS.min(n as usize);
        (key.f_topk(k as i64, 1, true, true)?.1, k)
    };
    // Clean: the same keys over lags 1..=n/2 (their order among themselves is the same).
    let kc = TOP_LAGS.min(n as usize / 2);
    let (_, clean) = key
        .f_narrow(1, 1, n / 2)?
        .f_topk(kc as i64, 1, true, true)?;
    let both = Tensor::f_cat(&[order, clean.f_add_scalar(1)?], 1)?;
    Ok((both, k, kc))
}

/// The peaks (`LagRule::Peaks`, `stats::lags`): lags `1..half` whose rounded ratio is above
/// the lag before and at least the lag after, ranked by their keys; -1 past a row's last
/// peak. `[rows, k]` and k.
fn peak_lags(rounded: &Tensor, key: &Tensor, half: i64) -> Result<(Tensor, usize), TchError> {
    let k = TOP_LAGS.min((half - 1).max(0) as usize);
    let rows = rounded.size()[0];
    if k == 0 {
        let none = Tensor::f_empty([rows, 0], (Kind::Int64, rounded.device()))?;
        return Ok((none, 0));
    }
    let at = rounded.f_narrow(1, 1, half - 1)?;
    let before = rounded.f_narrow(1, 0, half - 1)?;
    let after = rounded.f_narrow(1, 2, half - 1)?;
    let peak = at
        .f_gt_tensor(&before)?
        .f_logical_and(&at.f_ge_tensor(&after)?)?;
    let keys = key.f_narrow(1, 1, half - 1)?;
    let keys = keys.f_where_self(&peak, &keys.f_full_like(f64::NEG_INFINITY)?)?;
    let (values, index) = keys.f_topk(k as i64, 1, true, true)?;
    let lag = index.f_add_scalar(1)?;
    let found = values.f_gt(f64::NEG_INFINITY)?;
    Ok((lag.f_where_self(&found, &lag.f_full_like(-1)?)?, k))
}

/// Each band's mean and sum of squared deviations, in f64.
fn band_moments(bands: &[Tensor]) -> Result<Vec<(Tensor, Tensor)>, TchError> {
    bands
        .iter()
        .map(|b| {
            let mean = b.f_mean_dim(-1, true, Kind::Double)?;
            let m2 = b
                .f_sub(&mean)?
                .f_square()?
                .f_sum_dim_intlist(-1, false, Kind::Double)?;
            Ok((mean.f_squeeze_dim(-1)?, m2))
        })
        .collect()
}

/// The window statistics of `xt` (`rows` series of `len` samples) as columns: min, max,
/// median, last − first, then the top lags (Time-LLM's or the peaks, then the clean ones);
/// with how many of each kind of lag.
fn statistics_columns(
    xt: &Tensor,
    rows: usize,
    len: usize,
    stats: StatsRequest,
) -> Result<(Vec<Tensor>, usize, usize), TchError> {
    let every = stats.lags_every.max(1) as i64;
    let xs = xt.f_to_dtype(Kind::Double, false, false)?;
    // Lags only for the series that will use them (every `every`-th), scattered back into
    // a [rows, n] tensor; the other rows keep -1.
    let picked = xs.f_slice(0, 0, rows as i64, every)?;
    // Time-LLM's top lags (or the peaks), then the clean ones, side by side.
    let peaks = stats.lags == LagRule::Peaks;
    let (some, n_lags, n_clean) = device_lags(&picked, peaks)?;
    let n = n_lags + n_clean;
    let at = Tensor::f_arange_start_step(0, rows as i64, every, (Kind::Int64, xs.device()))?;
    let lags = Tensor::f_full([rows as i64, n as i64], -1, (Kind::Int64, xs.device()))?
        .f_index_copy(0, &at, &some)?;
    let last = xs.f_select(1, len as i64 - 1)?;
    let mut columns = vec![
        xs.f_amin(-1, false)?,
        xs.f_amax(-1, false)?,
        xs.f_median_dim(1, false)?.0,
        last.f_sub(&xs.f_select(1, 0)?)?,
    ];
    for j in 0..n {
        columns.push(
            lags.f_select(1, j as i64)?
                .f_to_dtype(Kind::Double, false, false)?,
        );
    }
    Ok((columns, n_lags, n_clean))
}
