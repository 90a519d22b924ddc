//! The process's allocator, tuned for a sweep: freed memory kept for the next
//! configuration, and handed back once after the shared work.

/// Keep freed memory in the process for the next allocation (once is enough; again is
/// harmless). Each configuration allocates and frees the same ~100 MB (summaries,
/// features, prompts); by default glibc returns large blocks to the kernel and the next
/// configuration faults them back in, page by page (BENCHMARKS.md, "Measurements behind
/// the code").
pub(crate) fn keep_freed_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets allocator parameters (the CLI's sweep and the app's sweep
    // job call it before the grid's configurations allocate).
    unsafe {
        // Blocks up to 32 MB (glibc's ceiling) from the heap, not mmap; the heap is never
        // trimmed, and grows 64 MB at a time.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

/// Return the pages of freed memory to the kernel once (the heap is otherwise never
/// trimmed, see [`keep_freed_memory`]).
pub(crate) fn release_freed_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only returns free pages; no allocation is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}
