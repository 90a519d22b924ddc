//! Sharing a small job between the calling thread and the thread pool.
//!
//! A training step's batch (224 series) is a few hundred microseconds of work. Handed to
//! rayon from a thread outside the pool (Python's), the caller sleeps while the workers are
//! woken, and the wake-ups cost as much as the second core gains. Here the caller works
//! too, and the job is cut into small pieces that each thread takes as it comes free: a
//! worker that wakes late takes fewer pieces instead of holding up a fixed share.

use std::sync::{Mutex, PoisonError};

/// `f(state, first, piece)` over `out` cut into pieces of `piece` items (the last may be
/// shorter), `first` the index of the piece's first item in `out`. Each thread makes its
/// `state` with `init` once, when it takes its first piece (scratch planned once per
/// thread, not per piece). Every piece runs; the error of the first failing piece in
/// order is returned.
pub fn for_each_piece<T: Send, S, E: Send>(
    out: &mut [T],
    piece: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, &mut [T]) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let piece = piece.max(1);
    let helpers =
        (rayon::current_num_threads().max(1) - 1).min(out.len().div_ceil(piece).saturating_sub(1));
    let pieces = Mutex::new(out.chunks_mut(piece).enumerate());
    let failed: Mutex<Option<(usize, E)>> = Mutex::new(None);
    let work = || {
        let mut state = None;
        loop {
            // The lock is held only to take the next piece.
            let next = pieces.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some((i, items)) = next else { break };
            let state = state.get_or_insert_with(&init);
            if let Err(e) = f(state, i * piece, items) {
                let mut failed = failed.lock().unwrap_or_else(PoisonError::into_inner);
                if failed.as_ref().is_none_or(|(j, _)| i < *j) {
                    *failed = Some((i, e));
                }
            }
        }
    };
    rayon::in_place_scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| work());
        }
        work();
    });
    // The scope returns once every helper has run (a panic in one is re-raised there).
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once_at_its_place() {
        for (n, piece) in [
            (0, 8),
            (1, 8),
            (7, 8),
            (224, 8),
            (225, 8),
            (1000, 1),
            (3, 1),
        ] {
            let mut out = vec![usize::MAX; n];
            let r: Result<(), ()> = for_each_piece(
                &mut out,
                piece,
                || 0usize,
                |runs, first, items| {
                    *runs += 1;
                    assert!(items.len() <= piece && (first % piece == 0), "n {n}");
                    for (k, v) in items.iter_mut().enumerate() {
                        assert_eq!(*v, usize::MAX, "n {n}: item {} twice", first + k);
                        *v = first + k;
                    }
                    Ok(())
                },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(out, (0..n).collect::<Vec<_>>(), "n {n}");
        }
    }

    #[test]
    fn the_first_failing_piece_in_order_is_reported() {
        let mut out = vec![0u8; 100];
        let r = for_each_piece(
            &mut out,
            10,
            || (),
            |_, first, _| if first >= 30 { Err(first) } else { Ok(()) },
        );
        assert_eq!(r, Err(30));
    }
}
