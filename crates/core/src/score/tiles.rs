//! The forecaster's normal equations as register-tiled products: `AᵀA` (upper
//! triangle) and the horizon's `AᵀY` summed a block of rows at a time, four rows of the
//! result per task, in AVX2 or AVX-512 tiles where the CPU has them; AVX2 and AVX-512 sum
//! every entry alike, so a sweep's forecaster is the same on either.

/// Rows `i0..` of AᵀA (`out`, up to four rows of `dim`) += Σ over `rows` (each `dim`
/// values) of `a[i] · a[j]`, for the upper triangle's columns (and a few below it, where a
/// tile straddles the diagonal: the forecaster's fit reads the upper triangle only).
pub(super) fn gram_rows(rows: &[f64], dim: usize, i0: usize, out: &mut [f64]) {
    use crate::numeric::simd::Isa;
    #[cfg(target_arch = "x86_64")]
    match Isa::active() {
        // SAFETY: `Isa::active` checked that this CPU has AVX-512F (and AVX2 and FMA).
        Isa::Avx512 => return unsafe { gram_rows_avx512(rows, dim, i0, out) },
        // SAFETY: `Isa::active` checked that this CPU has AVX2 and FMA.
        Isa::Avx2 => return unsafe { gram_rows_avx2(rows, dim, i0, out) },
        Isa::Portable => {}
    }
    gram_rows_plain(rows, dim, i0, 0, out)
}

/// Rows `i0..` of XᵀY (`out`, up to four rows of `dy`) += Σ over the block's rows of
/// `x[i] · y[j]`, X's rows `dx` values and Y's `dy`: the horizon's AᵀY.
pub(super) fn cross_rows(x: &[f64], dx: usize, y: &[f64], dy: usize, i0: usize, out: &mut [f64]) {
    use crate::numeric::simd::Isa;
    #[cfg(target_arch = "x86_64")]
    if out.len() == 4 * dy && matches!(Isa::active(), Isa::Avx2 | Isa::Avx512) {
        // SAFETY: `Isa::active` checked that this CPU has AVX2 and FMA.
        return unsafe { cross_rows_avx2(x, dx, y, dy, i0, out) };
    }
    cross_rows_plain(x, dx, y, dy, i0, 0, out)
}

/// Columns `j_from..` of [`cross_rows`], one multiply-add at a time.
fn cross_rows_plain(
    x: &[f64],
    dx: usize,
    y: &[f64],
    dy: usize,
    i0: usize,
    j_from: usize,
    out: &mut [f64],
) {
    for (a, h) in x.chunks_exact(dx).zip(y.chunks_exact(dy)) {
        for (r, out) in out.chunks_exact_mut(dy).enumerate() {
            let ai = a[i0 + r];
            for (o, v) in out[j_from..].iter_mut().zip(&h[j_from..]) {
                *o += ai * v;
            }
        }
    }
}

/// Rows `i0..i0 + 4` of XᵀY for the tiles of whole eight columns, then the columns past
/// them one at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn cross_rows_avx2(x: &[f64], dx: usize, y: &[f64], dy: usize, i0: usize, out: &mut [f64]) {
    let end = dy / 8 * 8;
    cross_tiles_avx2((x, dx), (y, dy), i0, 0, end, out);
    cross_rows_plain(x, dx, y, dy, i0, end, out);
}

/// Four rows (`i0..`) × eight columns of XᵀY in eight registers, summed over every row of
/// the block by fused multiply-adds, then added to `out` (rows of Y's width), for the
/// tiles of columns `jb..end`. X and Y are the block's rows with their widths.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn cross_tiles_avx2(
    (x, dx): (&[f64], usize),
    (y, dy): (&[f64], usize),
    i0: usize,
    mut jb: usize,
    end: usize,
    out: &mut [f64],
) {
    use std::arch::x86_64::*;
    let n = x.len() / dx;
    while jb < end {
        let mut acc = [_mm256_setzero_pd(); 8];
        for k in 0..n {
            let a = x.as_ptr().add(k * dx + i0);
            let h = y.as_ptr().add(k * dy + jb);
            let lo = _mm256_loadu_pd(h);
            let hi = _mm256_loadu_pd(h.add(4));
            for r in 0..4 {
                let b = _mm256_broadcast_sd(&*a.add(r));
                acc[2 * r] = _mm256_fmadd_pd(b, lo, acc[2 * r]);
                acc[2 * r + 1] = _mm256_fmadd_pd(b, hi, acc[2 * r + 1]);
            }
        }
        for r in 0..4 {
            let o = out.as_mut_ptr().add(r * dy + jb);
            _mm256_storeu_pd(o, _mm256_add_pd(_mm256_loadu_pd(o), acc[2 * r]));
            let o = o.add(4);
            _mm256_storeu_pd(o, _mm256_add_pd(_mm256_loadu_pd(o), acc[2 * r + 1]));
        }
        jb += 8;
    }
}

/// Columns `j_from..` of the rows, one multiply-add at a time.
fn gram_rows_plain(rows: &[f64], dim: usize, i0: usize, j_from: usize, out: &mut [f64]) {
    for (r, out) in out.chunks_exact_mut(dim).enumerate() {
        let i = i0 + r;
        let from = j_from.max(i);
        for a in rows.chunks_exact(dim) {
            let ai = a[i];
            for (o, v) in out[from..].iter_mut().zip(&a[from..]) {
                *o += ai * v;
            }
        }
    }
}

/// The columns the vector kernels tile (8 at a time from the strip's diagonal, rounded
/// down to 8) and where the tiles end; the columns after, and a strip of fewer than four
/// rows, go through [`gram_rows_plain`]. Each tile entry is one fused multiply-add per
/// row of the block into a register, then added to `out`: AVX2 and AVX-512 compute every
/// entry the same way, so their sums agree to the bit.
fn tiled(dim: usize, i0: usize) -> (usize, usize) {
    let first = i0 / 8 * 8;
    (first, first + (dim - first) / 8 * 8)
}

/// Four rows × eight columns in eight registers, over every row of the block, for the
/// tiles of `jb..end`: AᵀA's entries as XᵀY's with X = Y = A.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn gram_tiles_avx2(
    rows: &[f64],
    dim: usize,
    i0: usize,
    jb: usize,
    end: usize,
    out: &mut [f64],
) {
    cross_tiles_avx2((rows, dim), (rows, dim), i0, jb, end, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn gram_rows_avx2(rows: &[f64], dim: usize, i0: usize, out: &mut [f64]) {
    if out.len() / dim < 4 {
        return gram_rows_plain(rows, dim, i0, 0, out);
    }
    let (first, end) = tiled(dim, i0);
    gram_tiles_avx2(rows, dim, i0, first, end, out);
    gram_rows_plain(rows, dim, i0, end, out);
}

/// Four rows × 32 columns in sixteen 512-bit registers (four times the AVX2 tile's work
/// per row of the block for twice its loads), then the AVX2 tiles for the last columns.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn gram_rows_avx512(rows: &[f64], dim: usize, i0: usize, out: &mut [f64]) {
    use std::arch::x86_64::*;
    if out.len() / dim < 4 {
        return gram_rows_plain(rows, dim, i0, 0, out);
    }
    let n = rows.len() / dim;
    let (mut jb, end) = tiled(dim, i0);
    while jb + 32 <= end {
        let mut acc = [_mm512_setzero_pd(); 16];
        for k in 0..n {
            let a = rows.as_ptr().add(k * dim);
            let c = [0, 8, 16, 24].map(|q| _mm512_loadu_pd(a.add(jb + q)));
            for r in 0..4 {
                let b = _mm512_set1_pd(*a.add(i0 + r));
                for q in 0..4 {
                    acc[4 * r + q] = _mm512_fmadd_pd(b, c[q], acc[4 * r + q]);
                }
            }
        }
        for r in 0..4 {
            for q in 0..4 {
                let o = out.as_mut_ptr().add(r * dim + jb + 8 * q);
                _mm512_storeu_pd(o, _mm512_add_pd(_mm512_loadu_pd(o), acc[4 * r + q]));
            }
        }
        jb += 32;
    }
    gram_tiles_avx2(rows, dim, i0, jb, end, out);
    gram_rows_plain(rows, dim, i0, end, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector kernels compute each entry alike (a fused multiply-add per row into a
    /// register, then one add): AVX-512's sums equal AVX2's to the bit, so a sweep's
    /// forecaster is the same on either CPU.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn wide_and_narrow_tiles_agree_to_the_bit() {
        use crate::numeric::simd::Isa;
        if !Isa::Avx512.supported() {
            return;
        }
        let mut x = 7u64;
        let mut r = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        // A dimension whose tiles end on a part of a wide tile, and strips across it.
        let dim = 101;
        let rows: Vec<f64> = (0..37 * dim).map(|_| r() * 3.0).collect();
        for i0 in [0, 4, 36, 64, 96] {
            let strip = 4.min(dim - i0);
            let start: Vec<f64> = (0..strip * dim).map(|_| r()).collect();
            let (mut narrow, mut wide) = (start.clone(), start.clone());
            // SAFETY: AVX-512F (and so AVX2 and FMA) checked above.
            unsafe {
                gram_rows_avx2(&rows, dim, i0, &mut narrow);
                gram_rows_avx512(&rows, dim, i0, &mut wide);
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&narrow), bits(&wide), "strip at row {i0}");
            assert_ne!(narrow, start, "strip at row {i0} was not summed");
        }
    }

    /// The horizon's tiles sum what the plain loop sums (to rounding), every column and
    /// row of a strip, the columns past the last whole tile included.
    #[test]
    fn cross_tiles_sum_every_entry() {
        let mut x = 3u64;
        let mut r = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let (dx, dy, n) = (13, 21, 37);
        let xs: Vec<f64> = (0..n * dx).map(|_| r()).collect();
        let ys: Vec<f64> = (0..n * dy).map(|_| r()).collect();
        for i0 in [0, 4, 8, 12] {
            let rows = 4.min(dx - i0);
            let mut tiled = vec![1.0; rows * dy];
            let mut plain = tiled.clone();
            cross_rows(&xs, dx, &ys, dy, i0, &mut tiled);
            cross_rows_plain(&xs, dx, &ys, dy, i0, 0, &mut plain);
            for (k, (a, b)) in tiled.iter().zip(&plain).enumerate() {
                assert!((a - b).abs() < 1e-12, "row {i0}, entry {k}: {a} {b}");
            }
            assert!(
                tiled.iter().all(|v| *v != 1.0),
                "row {i0}: every entry summed"
            );
        }
    }
}
