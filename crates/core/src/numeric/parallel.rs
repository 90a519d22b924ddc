//! Sharing a small job between the calling thread and the thread pool.
//!
//! A training step's batch (224 series) is a few hundred microseconds of work. Handed to
//! rayon from a thread outside the pool (Python's), the caller sleeps while the workers are
//! woken, and the wake-ups cost as much as the second core gains. Here the caller works
//! too, and the job is cut into small pieces that each thread takes as it comes free: a
//! worker that wakes late takes fewer pieces instead of holding up a fixed share. Each
//! thread keeps its working memory for the next call of the same shape (a training loop
//! makes the same call every step).

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long the calling thread waits awake for the helpers' last pieces before it sleeps
/// on the scope's join: longer than a piece takes (~5-20 µs at T = 512).
const SPIN_JOIN: Duration = Duration::from_micros(100);

/// A thread's working memory for the pieces of a call: made by `make`, and kept by the
/// thread for its next call whose `key` is equal (one kept state per type and thread).
pub struct State<K, M> {
    pub key: K,
    pub make: M,
}

/// `f(state, first, piece)` over `out` cut into pieces of `piece` items (the last may be
/// shorter), `first` the index of the piece's first item in `out`. Each thread that takes
/// a piece uses its kept state for `state.key` or makes one. Every piece runs; the error
/// of the first failing piece in order is returned.
pub fn for_each_piece<T: Send, K, S, E: Send>(
    out: &mut [T],
    piece: usize,
    state: State<K, impl Fn() -> S + Sync>,
    f: impl Fn(&mut S, usize, &mut [T]) -> Result<(), E> + Sync,
) -> Result<(), E>
where
    K: PartialEq + Clone + Sync + 'static,
    S: 'static,
{
    let piece = piece.max(1);
    let count = out.len().div_ceil(piece);
    run(out.chunks_mut(piece), count, state, |state, i, items| {
        f(state, i * piece, items)
    })
}

/// [`for_each_piece`] with a second output of one item per piece:
/// `f(state, first, piece, per_piece_item)`.
pub fn for_each_piece_with<T: Send, B: Send, K, S, E: Send>(
    out: &mut [T],
    piece: usize,
    per_piece: &mut [B],
    state: State<K, impl Fn() -> S + Sync>,
    f: impl Fn(&mut S, usize, &mut [T], &mut B) -> Result<(), E> + Sync,
) -> Result<(), E>
where
    K: PartialEq + Clone + Sync + 'static,
    S: 'static,
{
    let piece = piece.max(1);
    let count = out.len().div_ceil(piece);
    assert_eq!(
        per_piece.len(),
        count,
        "for_each_piece_with: one item per piece"
    );
    run(
        out.chunks_mut(piece).zip(per_piece.iter_mut()),
        count,
        state,
        |state, i, (items, b)| f(state, i * piece, items, b),
    )
}

/// The `count` pieces of `pieces` shared out: `f(state, index, piece)`.
fn run<P: Send, K, S, E: Send>(
    pieces: impl Iterator<Item = P> + Send,
    count: usize,
    state: State<K, impl Fn() -> S + Sync>,
    f: impl Fn(&mut S, usize, P) -> Result<(), E> + Sync,
) -> Result<(), E>
where
    K: PartialEq + Clone + Sync + 'static,
    S: 'static,
{
    let helpers = (rayon::current_num_threads().max(1) - 1).min(count.saturating_sub(1));
    let pieces = Mutex::new(pieces.enumerate());
    let failed: Mutex<Option<(usize, E)>> = Mutex::new(None);
    let work = || {
        let mut kept: Option<S> = None;
        loop {
            // The lock is held only to take the next piece.
            let next = pieces.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some((i, piece)) = next else { break };
            let s = kept.get_or_insert_with(|| take_kept(&state.key).unwrap_or_else(&state.make));
            if let Err(e) = f(s, i, piece) {
                let mut failed = failed.lock().unwrap_or_else(PoisonError::into_inner);
                if failed.as_ref().is_none_or(|(j, _)| i < *j) {
                    *failed = Some((i, e));
                }
            }
        }
        if let Some(s) = kept {
            keep(state.key.clone(), s);
        }
    };
    let finished = AtomicUsize::new(0);
    rayon::in_place_scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| {
                work();
                finished.fetch_add(1, Ordering::Release);
            });
        }
        work();
        // The helpers are at most a piece from done. The scope's own join sleeps on a
        // condition variable and is woken ~8 µs after the last helper ends (a futex round
        // trip on a VM), so wait for them here, awake, for up to a bound first.
        let deadline = Instant::now() + SPIN_JOIN;
        while finished.load(Ordering::Acquire) < helpers && Instant::now() < deadline {
            std::hint::spin_loop();
        }
    });
    // The scope returns once every helper has run (a panic in one is re-raised there).
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

thread_local! {
    /// This thread's kept states, each boxed with its key: at most one per type.
    static KEPT: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// This thread's kept `S`, taken out, if it was kept for `key`.
fn take_kept<K: PartialEq + 'static, S: 'static>(key: &K) -> Option<S> {
    KEPT.with_borrow_mut(|kept| {
        let at = kept.iter().position(|b| b.is::<(K, S)>())?;
        let (k, s) = *kept.swap_remove(at).downcast::<(K, S)>().ok()?;
        (k == *key).then_some(s)
    })
}

/// Keep `s` for this thread's next call with `key`, in place of any other `S`.
fn keep<K: 'static, S: 'static>(key: K, s: S) {
    KEPT.with_borrow_mut(|kept| {
        kept.retain(|b| !b.is::<(K, S)>());
        kept.push(Box::new((key, s)));
    });
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
                State {
                    key: (),
                    make: || 0usize,
                },
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
    fn a_thread_keeps_its_state_for_the_next_call_with_an_equal_key() {
        use std::sync::atomic::AtomicUsize;
        static MADE: AtomicUsize = AtomicUsize::new(0);
        // One piece: the calling thread alone takes it, so its kept state is the one seen.
        let call = |key: u32| {
            let mut out = [0u32; 4];
            let r: Result<(), ()> = for_each_piece(
                &mut out,
                4,
                State {
                    key,
                    make: || {
                        MADE.fetch_add(1, Ordering::Relaxed);
                        vec![key]
                    },
                },
                |state: &mut Vec<u32>, _, items| {
                    items.fill(state[0]);
                    Ok(())
                },
            );
            assert_eq!(r, Ok(()));
            (out, MADE.load(Ordering::Relaxed))
        };
        let (out, made) = call(7);
        assert_eq!((out, made), ([7; 4], 1));
        assert_eq!(call(7), ([7; 4], 1), "kept");
        assert_eq!(call(9), ([9; 4], 2), "another key: made anew");
        assert_eq!(call(7), ([7; 4], 3), "only the last state is kept");
    }

    #[test]
    fn the_first_failing_piece_in_order_is_reported() {
        let mut out = vec![0u8; 100];
        let r = for_each_piece(
            &mut out,
            10,
            State {
                key: (),
                make: || (),
            },
            |_, first, _| if first >= 30 { Err(first) } else { Ok(()) },
        );
        assert_eq!(r, Err(30));
    }
}
