//! Sharding a run: `--shard I/N` takes the I-th of N contiguous parts of every file's
//! windows, cut on group boundaries so the shards' outputs concatenate to the whole run's.

use crate::names::BadValue;

/// `i/n`: the i-th of n parts of a run (1-based, as Slurm's array indices usually are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = BadValue;
    fn from_str(s: &str) -> Result<Self, BadValue> {
        let bad = || BadValue {
            what: "shard",
            given: s.to_string(),
            expected: "I/N with 1 <= I <= N, e.g. 3/8",
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// This shard's windows of each file, given every file's window count and the size of
    /// the groups that must not be cut (a batch for `batch` aggregation, else one window).
    /// Groups are split into `count` contiguous runs, so the shards' outputs concatenated
    /// in order are the whole run's.
    pub fn parts(&self, windows_per_file: &[usize], group: usize) -> Vec<std::ops::Range<usize>> {
        let group = group.max(1);
        let groups: Vec<usize> = windows_per_file.iter().map(|w| w.div_ceil(group)).collect();
        let total: usize = groups.iter().sum();
        // In 128 bits: `total * index` overflows 64 bits for a count near 2^64.
        let at = |i: usize| (total as u128 * i as u128 / self.count as u128) as usize;
        let (lo, hi) = (at(self.index - 1), at(self.index));
        let mut first = 0;
        windows_per_file
            .iter()
            .zip(&groups)
            .map(|(&w, &g)| {
                let (a, b) = (lo.clamp(first, first + g), hi.clamp(first, first + g));
                first += g;
                ((a - (first - g)) * group).min(w)..((b - (first - g)) * group).min(w)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;

    #[test]
    fn shards_tile_the_run_on_group_boundaries() {
        let files = [10, 0, 7, 33];
        for group in [1, 4] {
            for n in 1..9 {
                let mut seen = vec![Vec::new(); files.len()];
                for i in 1..=n {
                    let parts = Shard { index: i, count: n }.parts(&files, group);
                    assert_eq!(parts.len(), files.len());
                    for (f, p) in parts.iter().enumerate() {
                        assert!(p.start % group == 0 || p.is_empty(), "{p:?}");
                        seen[f].extend(p.clone());
                    }
                }
                for (f, s) in seen.iter().enumerate() {
                    assert_eq!(*s, (0..files[f]).collect::<Vec<_>>(), "n={n} group={group}");
                }
            }
        }
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
    }
}
