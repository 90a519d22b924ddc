//! Explicit SIMD vectors for the native filter kernel.
//!
//! The correlation keeps several vectors of sums in registers across the filter taps. Written
//! as one wide array of sums (16–32 lanes), LLVM spilled it to the stack or shuffled lanes
//! around. So the kernel is written once, generic over [`Vector`],
//! and each instruction set supplies the handful of operations it needs: AVX-512 and
//! AVX2 through intrinsics (masked stores for the last partial vector included), anything
//! else through [`Portable`]'s eight-lane arrays, which LLVM does vectorise: compiled in an
//! AVX2+FMA frame it runs as fast as the AVX2 intrinsics (BENCHMARKS.md, "Measurements
//! behind the code"), so CPUs with FMA in hardware (aarch64) should get vector code from
//! it as well.
//!
//! Multiply-adds are fused (`a·b + c` rounded once) in every implementation, the portable
//! one included, so every vector width gives the same bits.

use std::sync::OnceLock;

/// The instruction sets the native kernels are compiled for, plainest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// Plain Rust (eight-lane arrays the compiler vectorises as it can). On x86-64 CPUs
    /// without FMA, `mul_add` runs in software there: a last resort.
    Portable,
    /// x86-64 AVX2 with FMA: 256-bit vectors.
    Avx2,
    /// x86-64 AVX-512F: 512-bit vectors.
    Avx512,
}

impl Isa {
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run it.
    pub fn supported(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Isa::Avx2.supported() && is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The one the native engine runs: the widest this CPU has, capped by the environment
    /// variable `WAVEBENCH_ISA` (`portable`, `avx2` or `avx512`) to compare or debug them.
    pub fn active() -> Isa {
        static ACTIVE: OnceLock<Isa> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            let best = Isa::ALL.into_iter().rev().find(|i| i.supported()).unwrap_or(Isa::Portable);
            match std::env::var("WAVEBENCH_ISA") {
                Ok(v) => match Isa::ALL
                    .into_iter()
                    .find(|i| i.name() == v.trim().to_ascii_lowercase())
                {
                    Some(cap) => cap.min(best),
                    None => {
                        eprintln!(
                            "wavebench: WAVEBENCH_ISA='{v}' is not one of portable, avx2, avx512; using {}",
                            best.name()
                        );
                        best
                    }
                },
                Err(_) => best,
            }
        })
    }
}

/// Ask the caches for `data` ahead of its use (a hint; nothing where there is no such
/// instruction).
#[inline(always)]
pub fn prefetch<T>(data: &[T]) {
    #[cfg(target_arch = "x86_64")]
    for line in (0..std::mem::size_of_val(data)).step_by(64) {
        // SAFETY: a prefetch is only a hint, and the address lies inside `data`.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>((data.as_ptr() as *const i8).add(line))
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// A sample type a vector holds: what `Portable` needs of it. (The kernels need
/// `Real`, which names its vectors; this trait keeps the dependency one way.)
pub trait Lane: Copy + 'static {
    /// `self · a + b` rounded once, like `f32::mul_add`: every kernel sums its filter taps
    /// this way, so the vector widths agree to the bit.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl Lane for f32 {
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        f32::mul_add(self, a, b)
    }
}

impl Lane for f64 {
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        f64::mul_add(self, a, b)
    }
}

/// A SIMD register of `LANES` samples.
///
/// # Safety
/// The methods execute the instruction set of the implementation: call them only inside a
/// function compiled for it (`#[target_feature]`) on a CPU that has it. Loads and stores
/// take raw pointers so that a kernel checks its bounds once, not per vector: `LANES`
/// samples (`n` for `store_part`) must be readable or writable there.
pub trait Vector: Copy {
    type T: Lane;
    const LANES: usize;
    /// `v` in every lane.
    ///
    /// # Safety
    /// As the trait's.
    unsafe fn splat(v: Self::T) -> Self;
    /// `LANES` samples from `src`.
    ///
    /// # Safety
    /// As the trait's: `LANES` samples readable at `src`.
    unsafe fn load(src: *const Self::T) -> Self;
    /// The lanes to `dst`.
    ///
    /// # Safety
    /// As the trait's: `LANES` samples writable at `dst`.
    unsafe fn store(self, dst: *mut Self::T);
    /// The first `n < LANES` lanes only.
    ///
    /// # Safety
    /// As the trait's: `n` samples writable at `dst`.
    unsafe fn store_part(self, dst: *mut Self::T, n: usize);
    /// `self · a + b`, fused.
    ///
    /// # Safety
    /// As the trait's.
    unsafe fn mul_add(self, a: Self, b: Self) -> Self;
}

/// Eight lanes in plain Rust, for CPUs without the instruction sets below.
#[derive(Clone, Copy)]
pub struct Portable<T>([T; 8]);

impl<T: Lane> Vector for Portable<T> {
    type T = T;
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn splat(v: T) -> Self {
        Portable([v; 8])
    }
    #[inline(always)]
    unsafe fn load(src: *const T) -> Self {
        Portable(std::array::from_fn(|k| *src.add(k)))
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut T) {
        self.store_part(dst, 8)
    }
    #[inline(always)]
    unsafe fn store_part(self, dst: *mut T, n: usize) {
        for (k, &v) in self.0[..n].iter().enumerate() {
            *dst.add(k) = v;
        }
    }
    #[inline(always)]
    unsafe fn mul_add(self, a: Self, b: Self) -> Self {
        Portable(std::array::from_fn(|k| self.0[k].mul_add(a.0[k], b.0[k])))
    }
}

#[cfg(target_arch = "x86_64")]
pub use x86::{F32x16, F32x8, F64x4, F64x8};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Vector;
    use std::arch::x86_64::*;

    /// Lane indices, to build the masks of partial stores.
    const IOTA32: [i32; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
    const IOTA64: [i64; 4] = [0, 1, 2, 3];

    /// Eight f32 in an AVX2 register (with FMA).
    #[derive(Clone, Copy)]
    pub struct F32x8(__m256);
    /// Four f64 in an AVX2 register (with FMA).
    #[derive(Clone, Copy)]
    pub struct F64x4(__m256d);
    /// Sixteen f32 in an AVX-512 register.
    #[derive(Clone, Copy)]
    pub struct F32x16(__m512);
    /// Eight f64 in an AVX-512 register.
    #[derive(Clone, Copy)]
    pub struct F64x8(__m512d);

    impl Vector for F32x8 {
        type T = f32;
        const LANES: usize = 8;
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            F32x8(_mm256_set1_ps(v))
        }
        #[inline(always)]
        unsafe fn load(src: *const f32) -> Self {
            F32x8(_mm256_loadu_ps(src))
        }
        #[inline(always)]
        unsafe fn store(self, dst: *mut f32) {
            _mm256_storeu_ps(dst, self.0)
        }
        #[inline(always)]
        unsafe fn store_part(self, dst: *mut f32, n: usize) {
            debug_assert!(n < 8);
            let iota = _mm256_loadu_si256(IOTA32.as_ptr() as *const __m256i);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), iota);
            _mm256_maskstore_ps(dst, mask, self.0)
        }
        #[inline(always)]
        unsafe fn mul_add(self, a: Self, b: Self) -> Self {
            F32x8(_mm256_fmadd_ps(self.0, a.0, b.0))
        }
    }

    impl Vector for F64x4 {
        type T = f64;
        const LANES: usize = 4;
        #[inline(always)]
        unsafe fn splat(v: f64) -> Self {
            F64x4(_mm256_set1_pd(v))
        }
        #[inline(always)]
        unsafe fn load(src: *const f64) -> Self {
            F64x4(_mm256_loadu_pd(src))
        }
        #[inline(always)]
        unsafe fn store(self, dst: *mut f64) {
            _mm256_storeu_pd(dst, self.0)
        }
        #[inline(always)]
        unsafe fn store_part(self, dst: *mut f64, n: usize) {
            debug_assert!(n < 4);
            let iota = _mm256_loadu_si256(IOTA64.as_ptr() as *const __m256i);
            let mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), iota);
            _mm256_maskstore_pd(dst, mask, self.0)
        }
        #[inline(always)]
        unsafe fn mul_add(self, a: Self, b: Self) -> Self {
            F64x4(_mm256_fmadd_pd(self.0, a.0, b.0))
        }
    }

    impl Vector for F32x16 {
        type T = f32;
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            F32x16(_mm512_set1_ps(v))
        }
        #[inline(always)]
        unsafe fn load(src: *const f32) -> Self {
            F32x16(_mm512_loadu_ps(src))
        }
        #[inline(always)]
        unsafe fn store(self, dst: *mut f32) {
            _mm512_storeu_ps(dst, self.0)
        }
        #[inline(always)]
        unsafe fn store_part(self, dst: *mut f32, n: usize) {
            debug_assert!(n < 16);
            let mask = ((1u32 << n) - 1) as __mmask16;
            _mm512_mask_storeu_ps(dst, mask, self.0)
        }
        #[inline(always)]
        unsafe fn mul_add(self, a: Self, b: Self) -> Self {
            F32x16(_mm512_fmadd_ps(self.0, a.0, b.0))
        }
    }

    impl Vector for F64x8 {
        type T = f64;
        const LANES: usize = 8;
        #[inline(always)]
        unsafe fn splat(v: f64) -> Self {
            F64x8(_mm512_set1_pd(v))
        }
        #[inline(always)]
        unsafe fn load(src: *const f64) -> Self {
            F64x8(_mm512_loadu_pd(src))
        }
        #[inline(always)]
        unsafe fn store(self, dst: *mut f64) {
            _mm512_storeu_pd(dst, self.0)
        }
        #[inline(always)]
        unsafe fn store_part(self, dst: *mut f64, n: usize) {
            debug_assert!(n < 8);
            let mask = ((1u32 << n) - 1) as __mmask8;
            _mm512_mask_storeu_pd(dst, mask, self.0)
        }
        #[inline(always)]
        unsafe fn mul_add(self, a: Self, b: Self) -> Self {
            F64x8(_mm512_fmadd_pd(self.0, a.0, b.0))
        }
    }
}
