//! How a grid's configurations are dealt out: into the groups a sweep computes together
//! (a wavelet and mode's levels), and to the shards of a sweep by cost.

use super::grid::Point;
use wavebench_core::run_spec::Shard;

/// The configurations (indices into `points`, in grid order) that shard `shard` computes:
/// the grid dealt out by cost, the dearest first, each to the shard with the least so far
/// (ties to the lower shard), so that shards finish together. Where there are at least two
/// per shard, the groups a sweep computes together (`by_transform`, at most `at_most`
/// levels) are dealt whole, so a shard still computes its levels together; else single
/// configurations. The deal depends on the grid and `at_most` (the data's channels)
/// alone, so every shard of one sweep computes its own share and no two share one.
pub fn share(points: &[Point], shard: Shard, at_most: usize) -> Vec<usize> {
    let all: Vec<usize> = (0..points.len()).collect();
    let groups = by_transform(points, &all, at_most);
    let units: Vec<Vec<usize>> = if groups.len() >= 2 * shard.count {
        groups
    } else {
        all.into_iter().map(|i| vec![i]).collect()
    };
    let cost_of = |u: &Vec<usize>| u.iter().map(|&i| cost(&points[i])).sum::<usize>();
    let mut order: Vec<&Vec<usize>> = units.iter().collect();
    // Stable: equal costs keep grid order.
    order.sort_by_key(|u| std::cmp::Reverse(cost_of(u)));
    let mut load = vec![0usize; shard.count];
    let mut mine = Vec::new();
    for u in order {
        let least = (0..shard.count).min_by_key(|&s| (load[s], s)).unwrap_or(0);
        load[least] += cost_of(u);
        if least + 1 == shard.index {
            mine.extend_from_slice(u);
        }
    }
    mine.sort_unstable();
    mine
}

/// The `chosen` points (indices into `points`, increasing) by wavelet and mode, at most
/// `at_most` in a group, each group's levels increasing, the groups in the order of their
/// first point: the points a sweep computes together.
pub fn by_transform(points: &[Point], chosen: &[usize], at_most: usize) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in chosen {
        let t = points[i].transform;
        // A level asked twice (a mode listed twice) starts a group of its own.
        let same = |g: &&mut Vec<usize>| {
            let u = points[g[0]].transform;
            g.len() < at_most.max(1)
                && u.wavelet.name == t.wavelet.name
                && u.mode == t.mode
                && g.iter().all(|&j| points[j].transform.level != t.level)
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    for g in &mut groups {
        g.sort_by_key(|&i| points[i].transform.level);
    }
    groups
}

/// A configuration's relative cost: the per-unit work every configuration does (features,
/// claims, prompts), plus its transform's, which grows with the filter's length (the
/// levels after the first add about as much again, on halved bands).
pub fn cost(p: &Point) -> usize {
    24 + 2 * p.transform.wavelet.filter_length
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Grid, Levels};

    /// A sweep computes each wavelet and mode's levels together: the groups hold every
    /// chosen point once, one wavelet and mode each, levels increasing, and a mode listed
    /// twice does not put one level twice into a group.
    #[test]
    fn points_group_by_wavelet_and_mode() {
        use wavebench_core::wavelet::Mode;
        let g = Grid {
            wavelets: vec!["haar".into(), "db4".into()],
            levels: Levels::Listed(vec![1, 2, 3]),
            modes: vec![Mode::Reflect, Mode::Zero, Mode::Reflect],
        };
        // Reflect given twice runs once.
        let (points, _) = g.points(64).unwrap();
        assert_eq!(points.len(), 12);
        assert!(g
            .repeats(&[])
            .unwrap()
            .contains("reflect given 2 times in --modes"));
        let chosen: Vec<usize> = (0..points.len()).filter(|i| i % 5 != 4).collect();
        let groups = by_transform(&points, &chosen, 8);
        let mut seen: Vec<usize> = groups.concat();
        seen.sort_unstable();
        assert_eq!(seen, chosen);
        for group in &groups {
            let t = points[group[0]].transform;
            for pair in group.windows(2) {
                let (a, b) = (points[pair[0]].transform, points[pair[1]].transform);
                assert!(a.level < b.level, "{a} before {b}");
                assert_eq!(
                    (b.wavelet.name.as_str(), b.mode),
                    (t.wavelet.name.as_str(), t.mode)
                );
            }
        }
        // haar and db4 in reflect and zero: four groups, the first haar reflect.
        assert_eq!(groups.len(), 4);
        assert_eq!(
            points[groups[0][0]].transform.to_string(),
            "haar level 1 reflect"
        );
    }

    /// Shards partition the grid; with at least two groups per shard each shard gets
    /// whole groups (its levels still go through together), with fewer it gets single
    /// configurations, and the loads stay close.
    #[test]
    fn shards_get_whole_groups_where_there_are_enough() {
        use wavebench_core::run_spec::Shard;
        let g = Grid {
            wavelets: vec!["db*".into(), "sym*".into()],
            ..Grid::default()
        };
        let (points, _) = g.points(512).unwrap();
        let all: Vec<usize> = (0..points.len()).collect();
        let groups = by_transform(&points, &all, 8);
        for (count, whole) in [(3, true), (groups.len(), false)] {
            let shares: Vec<Vec<usize>> = (1..=count)
                .map(|index| share(&points, Shard { index, count }, 8))
                .collect();
            let mut seen = shares.concat();
            seen.sort_unstable();
            assert_eq!(seen, all, "{count} shards");
            let whole_groups = shares.iter().all(|mine| {
                groups.iter().all(|g| {
                    g.iter().all(|i| mine.contains(i)) || !g.iter().any(|i| mine.contains(i))
                })
            });
            assert_eq!(whole_groups, whole, "{count} shards");
            let loads: Vec<usize> = shares
                .iter()
                .map(|m| m.iter().map(|&i| cost(&points[i])).sum())
                .collect();
            let (lo, hi) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
            assert!(hi - lo <= *hi / 4, "{count} shards: loads {loads:?}");
        }
    }
}
