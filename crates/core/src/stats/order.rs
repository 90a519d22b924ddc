//! Min, max and median of consecutive windows of one series, kept as a sorted window;
//! min and max alone, kept as monotone queues.

use std::cmp::Ordering;
use std::collections::VecDeque;

/// Min, max and median of consecutive windows of one series, kept as a sorted window.
///
/// Moving a window by a stride `s` replaces `s` samples, each one binary search and one
/// short shift, instead of a fresh selection over the whole window (`select_nth_unstable`)
/// per window.
pub struct SlidingOrder {
    len: usize,
    sorted: Vec<f64>,
    /// Start of the window `sorted` holds (None when it holds none in order).
    at: Option<usize>,
    /// The last window could not slide from the one before: windows far apart (a batch of
    /// separate samples) take a linear-time selection instead of a sort.
    jumped: bool,
}

impl SlidingOrder {
    pub fn new(len: usize) -> Self {
        SlidingOrder {
            len,
            sorted: Vec::with_capacity(len),
            at: None,
            jumped: false,
        }
    }

    /// For windows `stride` apart: ones too far apart to slide select from the start.
    pub fn for_stride(len: usize, stride: usize) -> Self {
        SlidingOrder {
            jumped: stride > len / 8,
            ..SlidingOrder::new(len)
        }
    }

    /// `(min, max, lower median)` of `series[start..start + len]`.
    pub fn window(&mut self, series: &[f64], start: usize) -> (f64, f64, f64) {
        let len = self.len;
        match self.at {
            // A short step: swap the samples that left for those that came in.
            Some(at) if at <= start && start - at <= len / 8 => {
                for t in at..start {
                    self.replace(series[t], series[t + len]);
                }
            }
            _ if self.jumped => {
                // Far from the last window too: select the median, scan for the extremes.
                let s = &mut self.sorted;
                s.clear();
                s.extend_from_slice(&series[start..start + len]);
                let (_, &mut median, _) = s.select_nth_unstable_by((len - 1) / 2, f64::total_cmp);
                let pick = |a: f64, b: f64, want: Ordering| {
                    if b.total_cmp(&a) == want {
                        b
                    } else {
                        a
                    }
                };
                let (lo, hi) = s.iter().fold((s[0], s[0]), |(lo, hi), &v| {
                    (pick(lo, v, Ordering::Less), pick(hi, v, Ordering::Greater))
                });
                self.at = None;
                return (lo, hi, median);
            }
            _ => {
                self.jumped = self.at.is_some();
                self.sorted.clear();
                self.sorted.extend_from_slice(&series[start..start + len]);
                self.sorted.sort_unstable_by(f64::total_cmp);
            }
        }
        self.at = Some(start);
        let s = &self.sorted;
        (s[0], s[len - 1], s[(len - 1) / 2])
    }

    /// Remove one sample equal to `old` and insert `new`, keeping the order.
    fn replace(&mut self, old: f64, new: f64) {
        let s = &mut self.sorted;
        let lt = |v: f64| move |a: &f64| a.total_cmp(&v).is_lt();
        let i = s.partition_point(lt(old));
        let j = s.partition_point(lt(new));
        if j > i {
            // Everything in i+1..j is below `new`: close the gap at i, put `new` just before j.
            s.copy_within(i + 1..j, i);
            s[j - 1] = new;
        } else {
            // Everything in j..i is at or above `new`: open a gap at j over `old`'s slot.
            s.copy_within(j..i, j + 1);
            s[j] = new;
        }
    }
}

/// Min and max of consecutive windows of one series, each kept as a monotone queue of
/// positions: what the sliding path's error bound reads when no statistics are asked for
/// (a sweep lends them). A sample costs O(1) amortised where [`SlidingOrder`] shifts a
/// sorted window; the values are its min and max, ordered by `total_cmp` as it orders
/// them.
pub struct SlidingRange {
    len: usize,
    lo: VecDeque<usize>,
    hi: VecDeque<usize>,
    /// The window the queues hold: its start, and the first position not pushed yet.
    at: Option<(usize, usize)>,
}

impl SlidingRange {
    pub fn new(len: usize) -> Self {
        SlidingRange {
            len,
            lo: VecDeque::with_capacity(len),
            hi: VecDeque::with_capacity(len),
            at: None,
        }
    }

    /// `(min, max)` of `series[start..start + len]`: from the last window where this one
    /// starts after it within it, else afresh.
    pub fn window(&mut self, series: &[f64], start: usize) -> (f64, f64) {
        let end = start + self.len;
        let from = match self.at {
            Some((at, next)) if at <= start && start < next => next,
            _ => {
                self.lo.clear();
                self.hi.clear();
                start
            }
        };
        for t in from..end {
            push(&mut self.lo, series, t, Ordering::is_ge);
            push(&mut self.hi, series, t, Ordering::is_le);
        }
        for q in [&mut self.lo, &mut self.hi] {
            while q.front().is_some_and(|&f| f < start) {
                q.pop_front();
            }
        }
        self.at = Some((start, end));
        let first = |q: &VecDeque<usize>| q.front().map_or(f64::NAN, |&i| series[i]);
        (first(&self.lo), first(&self.hi))
    }
}

/// Position `t` pushed onto a monotone queue, after dropping the positions behind it whose
/// values can no longer be the window's extreme (`gone(theirs.total_cmp(t's))`).
#[inline(always)]
fn push(q: &mut VecDeque<usize>, series: &[f64], t: usize, gone: fn(Ordering) -> bool) {
    let v = series[t];
    while q.back().is_some_and(|&b| gone(series[b].total_cmp(&v))) {
        q.pop_back();
    }
    q.push_back(t);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsScratch;

    /// The monotone queues give `SlidingOrder`'s min and max, bit for bit (signed zeros
    /// included), stepping forward, jumping past the window and going back.
    #[test]
    fn sliding_range_is_the_sorted_windows_extremes() {
        let series: Vec<f64> = (0..500)
            .map(|i| match i % 11 {
                0 => 0.0,
                1 => -0.0,
                _ => ((i * 37) % 23) as f64 - (i % 5) as f64 * 0.5,
            })
            .collect();
        let mut starts: Vec<usize> = (0..200).collect();
        starts.extend((200..400).step_by(7));
        starts.extend([30, 31, 420, 0, 436]);
        for len in [1, 2, 16, 64] {
            let mut range = SlidingRange::new(len);
            let mut order = SlidingOrder::new(len);
            for &start in starts.iter().filter(|&&s| s + len <= series.len()) {
                let (lo, hi, _) = order.window(&series, start);
                let (l, h) = range.window(&series, start);
                assert_eq!(
                    (l.to_bits(), h.to_bits()),
                    (lo.to_bits(), hi.to_bits()),
                    "len {len}, start {start}"
                );
            }
        }
    }

    #[test]
    fn sliding_order_matches_a_fresh_selection() {
        // A series with repeats, so removals meet equal values.
        let series: Vec<f64> = (0..400)
            .map(|i| ((i * 37) % 23) as f64 - (i % 5) as f64 * 0.5)
            .collect();
        // Strides past len / 8 jump (sort, then selections); 64 and 97 jump past the window.
        let cases = [
            (1, 1),
            (2, 1),
            (16, 1),
            (64, 3),
            (64, 8),
            (64, 50),
            (33, 2),
            (64, 64),
            (32, 97),
            (1, 5),
        ];
        for (len, stride) in cases {
            let mut order = SlidingOrder::new(len);
            let mut told = SlidingOrder::for_stride(len, stride);
            let mut st = StatsScratch::new(len);
            for start in (0..=series.len() - len).step_by(stride) {
                let w = &series[start..start + len];
                let fresh = st.compute(w, false);
                assert_eq!(
                    order.window(&series, start),
                    (fresh.min, fresh.max, fresh.median),
                    "len {len}, stride {stride}, start {start}"
                );
                assert_eq!(
                    told.window(&series, start),
                    (fresh.min, fresh.max, fresh.median),
                    "told the stride: len {len}, stride {stride}, start {start}"
                );
            }
        }
    }
}
