//! libtorch engines (`torch-cpu`, `torch-cuda`): the whole batch on the device.
//!
//! Each level gathers the extended input with `index_select` (plus a weighted sum for the
//! modes whose edges mix samples), then one `conv1d(stride 2)` with the two reversed
//! decomposition filters as output channels. Reductions run on the device too, into one
//! `[series × k]` tensor per batch. The pipeline queues every batch (`queue_windows`) and
//! `collect` downloads them all at once: one synchronisation per run. Only fallible
//! (`f_*`) calls are used, so a CUDA error or out-of-memory is an `Err`, never a panic.

mod pack;

use pack::Packed;
use std::collections::HashMap;
use std::time::Instant;
use tch::{Cuda, Device, Kind, TchError, Tensor};
use wavebench_core::data::Affine;
use wavebench_core::engine::plan::{LevelPlan, Plan};
use wavebench_core::engine::summary::SeriesSummary;
use wavebench_core::engine::{
    DType, Engine, EngineError, EngineKind, Queued, SeriesRef, StatsRequest, Values, WindowBatch,
};
use wavebench_core::timing::{Stage, Timer};

struct PreparedLevel {
    /// `xe = Σ_i coef_i ⊙ x[:, idx_i]`; `coef` is None for plain copies.
    terms: Vec<(Tensor, Option<Tensor>)>,
}

struct OnDevice {
    levels: Vec<PreparedLevel>,
    /// `[2, 1, F]`: reversed dec_lo and dec_hi.
    weight: Tensor,
}

#[derive(Hash, PartialEq, Eq)]
struct PlanKey(String, wavebench_core::wavelet::Mode, usize, usize, DType);

pub struct Torch {
    device: Device,
    prepared: HashMap<PlanKey, OnDevice>,
    /// Summaries queued by `queue_windows`, waiting on the device for `collect`.
    queued: Vec<Packed>,
}

fn kind_of(dtype: DType) -> Kind {
    match dtype {
        DType::F32 => Kind::Float,
        DType::F64 => Kind::Double,
    }
}

impl Torch {
    pub fn cpu() -> Self {
        Torch {
            device: Device::Cpu,
            prepared: HashMap::new(),
            queued: Vec::new(),
        }
    }

    /// The first CUDA device, if libtorch can use one (None: no CUDA device is visible
    /// to libtorch).
    pub fn cuda() -> Option<Self> {
        Cuda::is_available().then(|| Torch {
            device: Device::Cuda(0),
            prepared: HashMap::new(),
            queued: Vec::new(),
        })
    }

    fn err(&self, e: TchError) -> EngineError {
        EngineError::Torch {
            engine: self.kind().name(),
            message: e.to_string(),
        }
    }

    fn prepare(&mut self, plan: &Plan, dtype: DType) -> Result<&OnDevice, TchError> {
        let key = PlanKey(
            plan.wavelet.name.clone(),
            plan.mode,
            plan.level,
            plan.len,
            dtype,
        );
        let device = self.device;
        match self.prepared.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
            std::collections::hash_map::Entry::Vacant(e) => {
                let kind = kind_of(dtype);
                let f = plan.wavelet.filter_length as i64;
                let w: Vec<f64> = plan.lo_rev.iter().chain(&plan.hi_rev).copied().collect();
                let weight = Tensor::f_from_slice(&w)?
                    .f_view([2, 1, f])?
                    .f_to_dtype(kind, false, false)?
                    .f_to_device_(device, kind, false, false)?;
                let levels = plan
                    .levels
                    .iter()
                    .map(|lp| level_terms(lp, device, kind))
                    .collect::<Result<_, _>>()?;
                Ok(e.insert(OnDevice { levels, weight }))
            }
        }
    }

    fn upload(&self, x: SeriesRef<'_>, len: usize, dtype: DType) -> Result<Tensor, TchError> {
        let rows = (x.values() / len.max(1)) as i64;
        let t = match x {
            SeriesRef::F32(v) => Tensor::f_from_slice(v)?,
            SeriesRef::F64(v) => Tensor::f_from_slice(v)?,
        };
        t.f_view([rows, len as i64])?
            .f_to_device_(self.device, kind_of(dtype), false, false)
    }

    /// `[cA_n, cD_n, …, cD_1]` on the device, each `[series, len_k]`.
    fn wavedec(&mut self, x: &Tensor, plan: &Plan, dtype: DType) -> Result<Vec<Tensor>, TchError> {
        let prepared = self.prepare(plan, dtype)?;
        let mut details = Vec::with_capacity(plan.level);
        let mut a = x.shallow_clone();
        for lvl in &prepared.levels {
            let mut xe: Option<Tensor> = None;
            for (idx, coef) in &lvl.terms {
                let g = a.f_index_select(1, idx)?;
                let g = match coef {
                    Some(c) => g.f_mul(c)?,
                    None => g,
                };
                xe = Some(match xe {
                    Some(acc) => acc.f_add(&g)?,
                    None => g,
                });
            }
            let xe = match xe {
                Some(t) => t,
                None => unreachable!("a level always has at least one term"),
            };
            // cuDNN may run a convolution in TF32 (10-bit mantissas) by default on Ampere
            // and later: on an H100 dmey's coefficients were 5e-4 off pywt's. Not allowed
            // here, so the GPU's coefficients are f32's (or f64's) as on the CPU.
            let y = xe.f_unsqueeze(1)?.f_internal_convolution(
                &prepared.weight,
                None::<Tensor>,
                [2],
                [0],
                [1],
                false,
                [0],
                1,
                false,
                true,
                true,
                false,
            )?;
            details.push(y.f_select(1, 1)?);
            a = y.f_select(1, 0)?;
        }
        let mut bands = vec![a];
        bands.extend(details.into_iter().rev());
        Ok(bands)
    }

    /// The windows of `batch` on the device as `[series, seq_len]` in `work` precision,
    /// each value what `WindowBatch::fill` makes, to the bit. The rows the windows read go
    /// up once, not once per window that holds them (at stride 1 a sample is in 512
    /// windows of 512: on an H100 machine the upload of gathered windows was most of a
    /// run, BENCHMARKS.md "On a GPU"). The windows are cut on the device, and normalised
    /// there with the host's maps as `fill` does: `(v - mean) * scale` in f64 (two IEEE
    /// operations, one kernel each), then rounded to the batch's precision.
    fn upload_windows(
        &self,
        batch: &WindowBatch<'_>,
        work: DType,
        timer: &mut Timer,
    ) -> Result<Tensor, TchError> {
        let (n, len) = (batch.channel_count(), batch.seq_len());
        let (w, series) = (batch.range.len(), batch.series());
        let t = Instant::now();
        let mut maps = Vec::with_capacity(series);
        batch.affines(0..series, &mut maps);
        let column = |f: fn(&Affine) -> f64| maps.iter().map(f).collect::<Vec<f64>>();
        let (mean, scale) = (column(|a| a.mean), column(|a| a.scale));
        let first = batch.windows.start(batch.range.start);
        let end = batch.windows.start(batch.range.end - 1) + len;
        let mut rows = Vec::with_capacity(n * (end - first));
        for c in &batch.channels {
            rows.extend_from_slice(&c[first..end]);
        }
        timer.add(Stage::Prepare, t.elapsed());

        let t = Instant::now();
        let up = |v: &[f64], shape: [i64; 2]| {
            Tensor::f_from_slice(v)?.f_view(shape)?.f_to_device_(
                self.device,
                Kind::Double,
                false,
                false,
            )
        };
        let rows = up(&rows, [n as i64, (end - first) as i64])?;
        let mean = up(&mean, [series as i64, 1])?;
        let scale = up(&scale, [series as i64, 1])?;
        // [n, w, len] (a view), window-major as the engines' series are: [w·n, len].
        let x = rows
            .f_unfold(1, len as i64, batch.windows.stride as i64)?
            .f_permute([1, 0, 2])?
            .f_reshape([(w * n) as i64, len as i64])?;
        let x = x
            .f_sub(&mean)?
            .f_mul(&scale)?
            .f_to_kind(kind_of(batch.dtype))?
            .f_to_kind(kind_of(work))?;
        self.lap(timer, Stage::Upload, t);
        Ok(x)
    }

    /// Charge the time since `t` to `stage`; in precise mode after waiting for the device's
    /// queued work, so it is charged to the stage that queued it.
    fn lap(&self, timer: &mut Timer, stage: Stage, t: Instant) {
        if let (true, Device::Cuda(i)) = (timer.precise, self.device) {
            Cuda::synchronize(i as i64);
        }
        timer.add(stage, t.elapsed());
    }

    fn summarize_impl(
        &mut self,
        x: SeriesRef<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Vec<SeriesSummary>, TchError> {
        let rows = x.values() / plan.len.max(1);
        if rows == 0 {
            return Ok(Vec::new());
        }
        let t = Instant::now();
        let work = plan.work_dtype(x.dtype());
        let xt = self.upload(x, plan.len, work)?;
        self.lap(timer, Stage::Upload, t);
        let packed = self.pack(xt, rows, work, plan, stats, timer)?;
        let host = self.download(&packed.tensor, timer)?;
        Ok(packed.layout.unpack(&host))
    }

    fn collect_impl(&mut self, timer: &mut Timer) -> Result<Vec<SeriesSummary>, TchError> {
        let queued = std::mem::take(&mut self.queued);
        let mut out = Vec::new();
        // One transfer per run of batches with the same layout (a pipeline run has one).
        for same in queued.chunk_by(|a, b| a.layout == b.layout) {
            let parts: Vec<&Tensor> = same.iter().map(|p| &p.tensor).collect();
            let host = self.download(&Tensor::f_cat(&parts, 0)?, timer)?;
            out.extend(same[0].layout.unpack(&host));
        }
        Ok(out)
    }
}

fn level_terms(lp: &LevelPlan, device: Device, kind: Kind) -> Result<PreparedLevel, TchError> {
    // Every position of xe as its taps; interior positions are single copies.
    let mut taps: Vec<Vec<(usize, f64)>> = vec![Vec::new(); lp.ext_len];
    for (i, t) in lp.interior.clone().enumerate() {
        taps[t].push((lp.src_start + i, 1.0));
    }
    for (t, ts) in &lp.edges {
        taps[*t].extend(ts.iter().map(|tap| (tap.index, tap.coef)));
    }
    let width = taps.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let plain = taps.iter().all(|t| t.len() == 1 && t[0].1 == 1.0);
    (0..width)
        .map(|i| {
            let idx: Vec<i64> = taps
                .iter()
                .map(|t| t.get(i).map_or(0, |p| p.0 as i64))
                .collect();
            let idx =
                Tensor::f_from_slice(&idx)?.f_to_device_(device, Kind::Int64, false, false)?;
            let coef = if plain {
                None
            } else {
                let c: Vec<f64> = taps.iter().map(|t| t.get(i).map_or(0.0, |p| p.1)).collect();
                Some(Tensor::f_from_slice(&c)?.f_to_device_(device, kind, false, false)?)
            };
            Ok((idx, coef))
        })
        .collect::<Result<_, _>>()
        .map(|terms| PreparedLevel { terms })
}

/// The GPU's marketing name, from the NVIDIA driver's procfs (libtorch's C API has none).
fn cuda_device_name() -> String {
    let name = std::fs::read_dir("/proc/driver/nvidia/gpus")
        .ok()
        .and_then(|mut d| {
            let entry = d.next()?.ok()?;
            let info = std::fs::read_to_string(entry.path().join("information")).ok()?;
            info.lines()
                .find_map(|l| l.strip_prefix("Model:").map(|m| m.trim().to_string()))
        });
    name.unwrap_or_else(|| "CUDA device 0".into())
}

impl Engine for Torch {
    fn kind(&self) -> EngineKind {
        match self.device {
            Device::Cpu => EngineKind::TorchCpu,
            _ => EngineKind::TorchCuda,
        }
    }

    fn device_name(&self) -> String {
        match self.device {
            Device::Cpu => format!("CPU (libtorch, {} threads)", tch::get_num_threads()),
            _ => cuda_device_name(),
        }
    }

    fn decompose(&mut self, x: SeriesRef<'_>, plan: &Plan) -> Result<Values, EngineError> {
        let run = |me: &mut Self| -> Result<Values, TchError> {
            let rows = x.values() / plan.len.max(1);
            let stride = plan.coeffs_per_series();
            if rows == 0 {
                return Ok(Values::from_f64(&[], x.dtype()));
            }
            let work = plan.work_dtype(x.dtype());
            let xt = me.upload(x, plan.len, work)?;
            let bands = me.wavedec(&xt, plan, work)?;
            let all = Tensor::f_cat(&bands, 1)?.f_to_device_(
                Device::Cpu,
                kind_of(x.dtype()),
                false,
                false,
            )?;
            Ok(match x.dtype() {
                DType::F32 => {
                    let mut v = vec![0f32; rows * stride];
                    all.f_copy_data(&mut v, rows * stride)?;
                    Values::F32(v)
                }
                DType::F64 => {
                    let mut v = vec![0f64; rows * stride];
                    all.f_copy_data(&mut v, rows * stride)?;
                    Values::F64(v)
                }
            })
        };
        run(self).map_err(|e| self.err(e))
    }

    fn summarize(
        &mut self,
        x: SeriesRef<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Vec<SeriesSummary>, EngineError> {
        self.summarize_impl(x, plan, stats, timer)
            .map_err(|e| self.err(e))
    }

    fn queue_windows(
        &mut self,
        batch: &WindowBatch<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Queued, EngineError> {
        if batch.series() == 0 {
            return Ok(Queued::Ready(Vec::new()));
        }
        let work = plan.work_dtype(batch.dtype);
        let packed = self
            .upload_windows(batch, work, timer)
            .and_then(|xt| self.pack(xt, batch.series(), work, plan, stats, timer))
            .map_err(|e| self.err(e))?;
        self.queued.push(packed);
        Ok(Queued::OnDevice)
    }

    fn collect(&mut self, timer: &mut Timer) -> Result<Vec<SeriesSummary>, EngineError> {
        self.collect_impl(timer).map_err(|e| self.err(e))
    }

    fn discard_queued(&mut self) {
        self.queued.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::data::{Normalize, Windows};

    /// The windows cut and normalised on the device are `WindowBatch::gather`'s, to the
    /// bit: a batch that starts past its first rows (as a pipeline chunk does), a stride
    /// that skips samples, every normalisation, both precisions and a work precision wider
    /// than the batch's.
    #[test]
    fn windows_cut_on_the_device_equal_the_hosts() {
        let a: Vec<f64> = (0..400)
            .map(|i| 1e4 + (i as f64 / 7.0).sin() * 3.0 + ((i * 7919) % 97) as f64 / 13.0)
            .collect();
        let b: Vec<f64> = (0..400).map(|i| ((i * 31) % 17) as f64 - 8.5).collect();
        let windows = Windows {
            first_row: 5,
            first: 40,
            seq_len: 64,
            stride: 3,
            count: 100,
        };
        let torch = Torch::cpu();
        for normalize in [Normalize::None, Normalize::Zscore, Normalize::Revin] {
            for (dtype, work) in [
                (DType::F32, DType::F32),
                (DType::F32, DType::F64),
                (DType::F64, DType::F64),
            ] {
                let batch = WindowBatch {
                    channels: vec![&a, &b],
                    windows,
                    range: 7..93,
                    normalize,
                    dtype,
                };
                let got = torch
                    .upload_windows(&batch, work, &mut Timer::new(false))
                    .unwrap()
                    .f_to_kind(Kind::Double)
                    .unwrap();
                let want = batch.gather().to_f64();
                assert_eq!(got.size(), [86 * 2, 64]);
                let mut got_v = vec![0f64; want.len()];
                got.f_copy_data(&mut got_v, want.len()).unwrap();
                let ctx = format!("{normalize} {dtype:?} work {work:?}");
                assert_eq!(got_v.len(), want.len(), "{ctx}");
                for (i, (g, w)) in got_v.iter().zip(&want).enumerate() {
                    assert_eq!(g.to_bits(), w.to_bits(), "{ctx}: value {i}: {g} vs {w}");
                }
            }
        }
    }
}
