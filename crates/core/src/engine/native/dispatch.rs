//! The row loops compiled once per instruction set, chosen at run time: the binary stays
//! portable, and CPUs with AVX-512 or AVX2+FMA get their vectors. (The kernels are
//! `inline(always)` so they are compiled inside these frames; a closure is not reliably
//! inlined there, so each entry point is spelled out.)

use super::kernel;
use super::tasks::{self, SlicesScratch};
use crate::engine::batch::WindowBatch;
use crate::engine::plan::Plan;
use crate::engine::summary::SeriesSummary;
use crate::engine::StatsRequest;
use crate::numeric::real::Real;
use crate::numeric::simd::{Isa, Portable};
use crate::timing::StageClock;

pub fn decompose_rows<T: Real>(isa: Isa, xs: &[T], os: &mut [T], plan: &Plan) {
    match isa {
        // SAFETY (both): callers checked `isa.supported()`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::decompose_rows_avx512(xs, os, plan) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::decompose_rows_avx2(xs, os, plan) },
        _ => kernel::decompose_rows::<Portable<T>>(xs, os, plan),
    }
}

pub fn summarize_rows<T: Real>(
    isa: Isa,
    xs: &[T],
    sums: &mut [SeriesSummary],
    plan: &Plan,
    first: usize,
    stats: Option<StatsRequest>,
) {
    match isa {
        // SAFETY (both): callers checked `isa.supported()`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::summarize_rows_avx512(xs, sums, plan, first, stats) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::summarize_rows_avx2(xs, sums, plan, first, stats) },
        _ => kernel::summarize_rows::<Portable<T>>(xs, sums, plan, first, stats),
    }
}

/// The lane kernels are eight-wide arrays either way, so AVX-512 runs the AVX2 frame (an
/// AVX-512 frame is no faster: BENCHMARKS.md, "Measurements behind the code").
pub fn summarize_task<W: Real>(
    isa: Isa,
    batch: &WindowBatch<'_>,
    w0: usize,
    sums: &mut [SeriesSummary],
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) {
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        // SAFETY: callers checked `isa.supported()`.
        return unsafe { x86::summarize_task::<W>(batch, w0, sums, plan, stats, clock) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    tasks::summarize_task::<W>(batch, w0, sums, plan, stats, clock)
}

/// As `summarize_task`: the lane kernels in an AVX2 frame.
pub fn slices_task<W: Real>(
    isa: Isa,
    rows: &[&[W]],
    first: usize,
    plan: &Plan,
    scratch: &mut SlicesScratch<W>,
    sums: &mut [SeriesSummary],
) -> Result<(), usize> {
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        // SAFETY: callers checked `isa.supported()`.
        return unsafe { x86::slices_task::<W>(rows, first, plan, scratch, sums) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    tasks::slices_task::<W, false>(rows, first, plan, scratch, sums)
}

/// The entry points compiled with an instruction set's features: each calls its kernel,
/// which is `inline(always)` and so compiled into that frame.
#[cfg(target_arch = "x86_64")]
macro_rules! compiled_for {
    ($($features:literal fn $name:ident<$t:ident>($($arg:ident: $ty:ty),*) $(-> $ret:ty)?
        = $kernel:expr;)*) => {
        $(
            #[target_feature(enable = $features)]
            pub unsafe fn $name<$t: Real>($($arg: $ty),*) $(-> $ret)? {
                $kernel
            }
        )*
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{
        kernel, tasks, Plan, Real, SeriesSummary, SlicesScratch, StageClock, StatsRequest,
        WindowBatch,
    };

    compiled_for! {
        "avx512f,avx2,fma" fn decompose_rows_avx512<T>(xs: &[T], os: &mut [T], plan: &Plan)
            = kernel::decompose_rows::<T::Avx512>(xs, os, plan);
        "avx2,fma" fn decompose_rows_avx2<T>(xs: &[T], os: &mut [T], plan: &Plan)
            = kernel::decompose_rows::<T::Avx2>(xs, os, plan);
        "avx512f,avx2,fma" fn summarize_rows_avx512<T>(
            xs: &[T], sums: &mut [SeriesSummary], plan: &Plan,
            first: usize, stats: Option<StatsRequest>
        ) = kernel::summarize_rows::<T::Avx512>(xs, sums, plan, first, stats);
        "avx2,fma" fn summarize_rows_avx2<T>(
            xs: &[T], sums: &mut [SeriesSummary], plan: &Plan,
            first: usize, stats: Option<StatsRequest>
        ) = kernel::summarize_rows::<T::Avx2>(xs, sums, plan, first, stats);
        "avx2,fma" fn slices_task<W>(
            rows: &[&[W]], first: usize, plan: &Plan,
            scratch: &mut SlicesScratch<W>, sums: &mut [SeriesSummary]
        ) -> Result<(), usize> = tasks::slices_task::<W, true>(rows, first, plan, scratch, sums);
        "avx2,fma" fn summarize_task<W>(
            batch: &WindowBatch<'_>, w0: usize, sums: &mut [SeriesSummary], plan: &Plan,
            stats: Option<StatsRequest>, clock: &StageClock
        ) = tasks::summarize_task::<W>(batch, w0, sums, plan, stats, clock);
    }
}
