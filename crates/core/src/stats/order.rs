//! Min, max and median of consecutive windows of one series, kept as a sorted window.

/// Min, max and median of consecutive windows of one series, kept as a sorted window.
///
/// Moving a window by a stride `s` replaces `s` samples, each one binary search and one
/// short shift, instead of a fresh selection over the whole window: with stride 1 that is
/// ~20× less work than `select_nth_unstable` per window.
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
                let pick = |a: f64, b: f64, want: std::cmp::Ordering| {
                    if b.total_cmp(&a) == want {
                        b
                    } else {
                        a
                    }
                };
                let (lo, hi) = s.iter().fold((s[0], s[0]), |(lo, hi), &v| {
                    (
                        pick(lo, v, std::cmp::Ordering::Less),
                        pick(hi, v, std::cmp::Ordering::Greater),
                    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsScratch;

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
