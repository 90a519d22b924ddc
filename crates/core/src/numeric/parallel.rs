//! Splitting a small job over the thread pool with the calling thread working too.
//!
//! A training step's batch (224 series) is a few hundred microseconds of work. Handed to
//! rayon from a thread outside the pool (Python's), the caller sleeps while every worker is
//! woken, and the wake-ups cost as much as the second core gains. Here the caller takes the
//! first part itself and only the other parts go to the pool.

use std::ops::Range;

/// `f` over `0..n` split into one range per pool thread (lengths multiples of `align`, but
/// the last), results in order. The calling thread runs the first range.
pub fn map_parts<R: Send>(n: usize, align: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let threads = rayon::current_num_threads().max(1);
    let per = n.div_ceil(threads).next_multiple_of(align.max(1)).max(1);
    let ranges: Vec<Range<usize>> = (0..n).step_by(per).map(|s| s..(s + per).min(n)).collect();
    let Some((first, rest)) = ranges.split_first() else {
        return Vec::new();
    };
    let mut out: Vec<Option<R>> = ranges.iter().map(|_| None).collect();
    let (head, tail) = out.split_at_mut(1);
    rayon::in_place_scope(|s| {
        let f = &f;
        for (slot, r) in tail.iter_mut().zip(rest) {
            s.spawn(move |_| *slot = Some(f(r.clone())));
        }
        head[0] = Some(f(first.clone()));
    });
    // The scope returns once every part has run (a panic in one is re-raised there).
    out.into_iter().flatten().collect()
}

/// `map_parts` whose parts return rows or fail: the rows end to end, or the first error
/// in order.
pub fn try_concat_parts<T: Send, E: Send>(
    n: usize,
    align: usize,
    f: impl Fn(Range<usize>) -> Result<Vec<T>, E> + Sync,
) -> Result<Vec<T>, E> {
    let mut out = Vec::with_capacity(n);
    for part in map_parts(n, align, f) {
        out.extend(part?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_range_in_order_and_aligned() {
        for (n, align) in [
            (0, 8),
            (1, 8),
            (7, 8),
            (224, 8),
            (225, 8),
            (1000, 1),
            (3, 1),
        ] {
            let parts = map_parts(n, align, |r| r);
            let joined: Vec<usize> = parts.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(joined, (0..n).collect::<Vec<_>>(), "n {n}");
            for r in &parts[..parts.len().saturating_sub(1)] {
                assert_eq!(r.len() % align, 0, "n {n}: {r:?}");
            }
        }
    }
}
