//! The edge coefficients of a block of windows as small matrix products, outputs =
//! weights · inputs, in AVX2 register tiles where the CPU has them.

use super::plan::{Side, TILE_ROWS};
use super::BLOCK;
use crate::numeric::simd::Isa;

/// Windows of one register tile of [`products`] (and `TILE_ROWS` output rows).
const TILE_WINDOWS: usize = 8;

/// `out[r][v] = Σ_i w[i][r] · x[i][v]` for the `2·ne` rows of one side (`w[i]` the side's
/// column for input `i`: its `ne` low-pass weights, then its `ne` high-pass ones) and the
/// block's `nb` windows, into `lo` (rows `< ne`) and `hi` (the others), `BLOCK` apart.
/// Each sum runs over the inputs in order from zero, a product then a sum at each step,
/// as `y += w * x` does: the same bits as a multiply-add per input over the whole block,
/// with the sums held in registers instead of memory.
#[inline(always)]
pub(super) fn products(side: &Side, x: &[f64], nb: usize, lo: &mut [f64], hi: &mut [f64]) {
    let (w, ne) = (&side.columns[..], side.slots.len());
    let rows = 2 * ne;
    let inputs = x.len() / BLOCK;
    assert!(w.len() == inputs * rows && x.len() == inputs * BLOCK && nb <= BLOCK);
    let avx2 = cfg!(target_arch = "x86_64") && Isa::active() >= Isa::Avx2;
    let mut store = |r: usize, v0: usize, sums: &[f64]| {
        let out = if r < ne {
            &mut lo[r * BLOCK..]
        } else {
            &mut hi[(r - ne) * BLOCK..]
        };
        out[v0..v0 + sums.len()].copy_from_slice(sums);
    };
    for (r0, used) in (0..rows).step_by(TILE_ROWS).zip(&side.tile_inputs) {
        let nr = (rows - r0).min(TILE_ROWS);
        // Only the inputs this tile weighs (the others add zeros).
        let (w, x) = (
            &w[used.start * rows..used.end * rows],
            &x[used.start * BLOCK..used.end * BLOCK],
        );
        for v0 in (0..nb).step_by(TILE_WINDOWS) {
            let nv = (nb - v0).min(TILE_WINDOWS);
            let mut acc = [[0.0f64; TILE_WINDOWS]; TILE_ROWS];
            if nv == TILE_WINDOWS && avx2 && nr % 2 == 0 {
                // SAFETY (both): the CPU has AVX2 (`avx2`); the tile lies inside `w` and
                // `x` (rows `r0..r0 + nr` of `rows`, windows `v0..v0 + TILE_WINDOWS` of
                // `BLOCK`, `inputs` of each).
                #[cfg(target_arch = "x86_64")]
                if nr == TILE_ROWS {
                    acc = unsafe { tile_avx2::<TILE_ROWS>(w, x, rows, r0, v0) };
                } else {
                    for (r, sums) in unsafe { tile_avx2::<2>(w, x, rows, r0, v0) }
                        .into_iter()
                        .enumerate()
                    {
                        acc[r] = sums;
                    }
                }
            } else {
                for (wi, xi) in w.chunks_exact(rows).zip(x.chunks_exact(BLOCK)) {
                    for (acc, &wr) in acc.iter_mut().zip(&wi[r0..r0 + nr]) {
                        for (a, &xv) in acc.iter_mut().zip(&xi[v0..v0 + nv]) {
                            *a += wr * xv;
                        }
                    }
                }
            }
            for (r, sums) in acc.iter().enumerate().take(nr) {
                store(r0 + r, v0, &sums[..nv]);
            }
        }
    }
}

/// One full tile of [`products`] in AVX2 registers: a product then a sum per input, as
/// the portable loop does (never fused), so the same bits.
///
/// # Safety
/// The CPU has AVX2; `r0 + TILE_ROWS <= rows`, `v0 + TILE_WINDOWS <= BLOCK`,
/// `w.len() == inputs * rows` and `x.len() == inputs * BLOCK` for some `inputs`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tile_avx2<const R: usize>(
    w: &[f64],
    x: &[f64],
    rows: usize,
    r0: usize,
    v0: usize,
) -> [[f64; TILE_WINDOWS]; R] {
    use std::arch::x86_64::*;
    let mut acc = [[_mm256_setzero_pd(); 2]; R];
    for (wi, xi) in w.chunks_exact(rows).zip(x.chunks_exact(BLOCK)) {
        let xp = xi.as_ptr().add(v0);
        let (x0, x1) = (_mm256_loadu_pd(xp), _mm256_loadu_pd(xp.add(4)));
        let wp = wi.as_ptr().add(r0);
        for (r, acc) in acc.iter_mut().enumerate() {
            let wr = _mm256_set1_pd(*wp.add(r));
            acc[0] = _mm256_add_pd(acc[0], _mm256_mul_pd(wr, x0));
            acc[1] = _mm256_add_pd(acc[1], _mm256_mul_pd(wr, x1));
        }
    }
    let mut out = [[0.0; TILE_WINDOWS]; R];
    for (o, a) in out.iter_mut().zip(&acc) {
        _mm256_storeu_pd(o.as_mut_ptr(), a[0]);
        _mm256_storeu_pd(o.as_mut_ptr().add(4), a[1]);
    }
    out
}
