//! Big buffers: a batch's samples and coefficients are hundreds of MB, touched once.

/// A zeroed buffer of `n` samples. Large ones are backed by transparent huge pages where
/// the kernel offers them, as numpy does for big arrays: first-touch faults on 4 KiB pages
/// otherwise cost more than the transform itself (BENCHMARKS.md, "Measurements behind
/// the code"),
/// and streaming through 4 KiB pages misses the TLB every other series.
pub fn zeroed<T: Default + Clone>(n: usize) -> Vec<T> {
    // alloc_zeroed for a zero of all-zero bits (0.0): fresh, untouched pages when large.
    let v = vec![T::default(); n];
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(v.as_slice());
        if bytes >= 8 * HUGE {
            let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
            let end = (v.as_ptr() as usize + bytes) / HUGE * HUGE;
            if end > start {
                // SAFETY: advice on a range inside our own allocation; it changes no contents.
                unsafe {
                    libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE)
                };
            }
        }
    }
    v
}

/// `values` converted into a [`zeroed`] buffer.
pub fn collect<S: Copy, T: Default + Clone>(values: &[S], convert: impl Fn(S) -> T) -> Vec<T> {
    let mut v = zeroed(values.len());
    for (o, &x) in v.iter_mut().zip(values) {
        *o = convert(x);
    }
    v
}
