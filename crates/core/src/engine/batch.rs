//! A batch of windows read straight from a table's channels.
//!
//! Series `k` of a batch is channel `k % n` of window `range.start + k / n` (window-major,
//! as every engine returns its summaries), normalised and rounded to the batch's precision
//! as it is read. Engines that need one contiguous array `gather` it; the native engine
//! `fill`s small blocks of series as it goes, so the batch never exists in memory.

use crate::data::{Affine, Normalize, Windows};
use crate::numeric::real::{DType, Real, Values};
use rayon::prelude::*;
use std::ops::Range;

#[derive(Debug, Clone)]
pub struct WindowBatch<'a> {
    /// Every channel's samples.
    pub channels: Vec<&'a [f64]>,
    pub windows: Windows,
    /// The windows in this batch.
    pub range: Range<usize>,
    pub normalize: Normalize,
    /// The precision the series are handed over in.
    pub dtype: DType,
}

impl WindowBatch<'_> {
    pub fn channel_count(&self) -> usize {
        self.channels.len()
    }

    pub fn series(&self) -> usize {
        self.range.len() * self.channels.len()
    }

    pub fn seq_len(&self) -> usize {
        self.windows.seq_len
    }

    /// The raw samples of window `i` (an index into all windows) of channel `c`.
    pub fn raw(&self, i: usize, c: usize) -> &[f64] {
        let s = self.windows.start(i);
        &self.channels[c][s..s + self.windows.seq_len]
    }

    /// Window `i` of channel `c` into `out`, normalised and rounded to the batch's dtype;
    /// returns the normalisation's map.
    #[inline(always)]
    pub fn fill<W: Real>(&self, i: usize, c: usize, out: &mut [W]) -> Affine {
        self.fill_with(i, c, |t, v| out[t] = v)
    }

    /// Like `fill`, handing each sample `t` to `put` (e.g. into one lane of a group).
    #[inline(always)]
    pub fn fill_with<W: Real>(&self, i: usize, c: usize, put: impl FnMut(usize, W)) -> Affine {
        let a = self.normalize.affine(self.raw(i, c));
        self.fill_mapped(i, c, a, put);
        a
    }

    /// Like `fill_with`, with the window's map already known (see `affines`).
    #[inline(always)]
    pub fn fill_mapped<W: Real>(
        &self,
        i: usize,
        c: usize,
        a: Affine,
        mut put: impl FnMut(usize, W),
    ) {
        for (t, &v) in self.raw(i, c).iter().enumerate() {
            put(t, W::from_f64(self.dtype.round(a.map(v))));
        }
    }

    /// The normalisation maps of series `k0..k1` of the batch (series k: window
    /// `range.start + k / n`, channel `k % n`) into `out`, several windows side by side.
    #[inline(always)]
    pub fn affines(&self, k: Range<usize>, out: &mut Vec<Affine>) {
        let n = self.channels.len();
        let xs: Vec<&[f64]> = k
            .map(|k| self.raw(self.range.start + k / n, k % n))
            .collect();
        self.normalize.affines_into(&xs, out);
    }

    /// The whole batch as one contiguous row-major array.
    pub fn gather(&self) -> Values {
        match self.dtype {
            DType::F32 => Values::F32(self.gather_as()),
            DType::F64 => Values::F64(self.gather_as()),
        }
    }

    fn gather_as<W: Real>(&self) -> Vec<W> {
        let (n, len) = (self.channels.len(), self.windows.seq_len);
        let mut out = vec![W::ZERO; self.series() * len];
        out.par_chunks_mut(len).enumerate().for_each(|(k, row)| {
            self.fill(self.range.start + k / n, k % n, row);
        });
        out
    }
}
