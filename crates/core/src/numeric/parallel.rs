//! Sharing a small job between the calling thread and the thread pool.
//!
//! A training step's batch (224 series) is a few hundred microseconds of work. Handed to
//! rayon from a thread outside the pool (Python's), the caller sleeps while the workers are
//! woken, and the wake-ups cost as much as the second core gains. Here the caller works
//! too, and the job is cut into small pieces that each thread takes as it comes free: a
//! worker that wakes late takes fewer pieces instead of holding up a fixed share, and one
//! that wakes after the pieces are gone is not waited for (the helpers run behind a
//! [`Gate`], not in a rayon scope, which would wait for every job it spawned to run).
//! Each thread keeps its working memory for the next call of the same shape (a training
//! loop makes the same call every step).

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long the calling thread waits awake for the helpers' last pieces before it parks:
/// longer than a piece takes.
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
    // One `()` per piece: the pieces alone (a Vec of a zero-sized type allocates nothing).
    let mut none = vec![(); out.len().div_ceil(piece.max(1))];
    for_each_piece_with(out, piece, &mut none, state, |state, first, items, _| {
        f(state, first, items)
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
    if helpers == 0 {
        work();
    } else {
        // A helper's panic is kept and raised here once no helper runs.
        let panicked: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
        let helper_work = || {
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(&work)) {
                *panicked.lock().unwrap_or_else(PoisonError::into_inner) = Some(p);
            }
        };
        let gate = Arc::new(Gate::new());
        // Declared after everything the helpers borrow, so dropped before it, also when
        // this thread unwinds: no helper is inside once it is gone.
        let closed = CloseAndWait(&gate);
        let erased: &(dyn Fn() + Sync) = &helper_work;
        // SAFETY: only the lifetime is erased. A helper calls through the pointer only
        // between `Gate::enter` and its `Leave`, and `CloseAndWait` returns only once no
        // helper is inside and none can enter, before `helper_work` and what it borrows
        // go out of scope.
        let erased = unsafe {
            std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(
                erased,
            )
        };
        for _ in 0..helpers {
            let (gate, work) = (gate.clone(), WorkPtr(erased));
            rayon::spawn(move || {
                if gate.enter() {
                    let _leave = Leave(&gate);
                    // SAFETY: inside the gate (see above).
                    unsafe { (*work.get())() };
                }
            });
        }
        work();
        drop(closed);
        if let Some(p) = panicked
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
        {
            panic::resume_unwind(p);
        }
    }
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// The caller's work, as a helper job may hold it: called only inside the gate.
struct WorkPtr(*const (dyn Fn() + Sync + 'static));

// SAFETY: the pointee is `Sync`, and is only called inside the gate (see `run`).
unsafe impl Send for WorkPtr {}

impl WorkPtr {
    // A method, so that the closure captures the whole (Send) wrapper, not its field.
    fn get(&self) -> *const (dyn Fn() + Sync + 'static) {
        self.0
    }
}

/// Who may still run a call's work: helpers enter while it is open; the caller closes
/// it when it runs out of pieces and waits for those inside to leave. A helper that
/// starts after that (its thread woke late: behind PyTorch's spinning OpenMP threads this
/// took ~0.4 ms) leaves at once without touching the call, and the call does not wait for
/// it (a rayon scope would).
struct Gate {
    /// Bit 0: closed; the rest: helpers inside, times two.
    state: AtomicUsize,
    caller: std::thread::Thread,
}

const CLOSED: usize = 1;
const INSIDE: usize = 2;

impl Gate {
    fn new() -> Gate {
        Gate {
            state: AtomicUsize::new(0),
            caller: std::thread::current(),
        }
    }

    /// Enter if still open.
    fn enter(&self) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if s & CLOSED != 0 {
                return false;
            }
            match self.state.compare_exchange_weak(
                s,
                s + INSIDE,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Close, then wait until no helper is inside: awake for up to [`SPIN_JOIN`] (those
    /// inside are at most a piece from done, and a sleeping wait is woken ~8 µs late on a
    /// VM), then parked until the last one leaves.
    fn close_and_wait(&self) {
        if self.state.fetch_or(CLOSED, Ordering::AcqRel) == 0 {
            return;
        }
        let deadline = Instant::now() + SPIN_JOIN;
        while self.state.load(Ordering::Acquire) != CLOSED {
            if Instant::now() < deadline {
                std::hint::spin_loop();
            } else {
                std::thread::park();
            }
        }
    }
}

/// Closes the gate and waits for the helpers inside when dropped.
struct CloseAndWait<'a>(&'a Gate);

impl Drop for CloseAndWait<'_> {
    fn drop(&mut self) {
        self.0.close_and_wait();
    }
}

/// A helper's way out of the gate, also when its work panics.
struct Leave<'a>(&'a Gate);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        // The last one out of a closed gate wakes the caller (a wake before it parks
        // makes its park return at once).
        if self.0.state.fetch_sub(INSIDE, Ordering::AcqRel) == CLOSED + INSIDE {
            self.0.caller.unpark();
        }
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
    fn calls_from_many_threads_each_get_all_their_pieces() {
        // Helpers of one call wake during others, and late ones meet a closed gate.
        std::thread::scope(|s| {
            for t in 0..4usize {
                s.spawn(move || {
                    for call in 0..200usize {
                        let n = 1 + (call * 7 + t) % 64;
                        let mut out = vec![usize::MAX; n];
                        let r: Result<(), ()> = for_each_piece(
                            &mut out,
                            1 + call % 3,
                            State {
                                key: (),
                                make: || (),
                            },
                            |_, first, items| {
                                for (k, v) in items.iter_mut().enumerate() {
                                    *v = first + k + t;
                                }
                                Ok(())
                            },
                        );
                        assert_eq!(r, Ok(()));
                        assert!(
                            out.iter().enumerate().all(|(k, &v)| v == k + t),
                            "t {t} call {call}"
                        );
                    }
                });
            }
        });
    }

    #[test]
    fn a_panic_in_any_piece_reaches_the_caller_after_every_helper_left() {
        for bad in [0, 57, 99] {
            let mut out = vec![0u8; 100];
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let _: Result<(), ()> = for_each_piece(
                    &mut out,
                    1,
                    State {
                        key: (),
                        make: || (),
                    },
                    |_, first, items| {
                        assert_ne!(first, bad, "piece {bad} fails");
                        items[0] = 1;
                        Ok(())
                    },
                );
            }));
            let msg = r.expect_err("the panic is raised in the caller");
            let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains(&format!("piece {bad} fails")), "{msg}");
            // No helper writes after the call returned (the pieces left after a panic
            // may or may not have run).
            let snapshot = out.clone();
            std::thread::sleep(std::time::Duration::from_millis(5));
            assert_eq!(out, snapshot);
            assert_eq!(out[bad], 0);
        }
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
