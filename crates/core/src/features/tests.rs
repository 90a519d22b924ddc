use super::*;

fn band(energy: f64, first: f64, last: f64, len: usize) -> BandSummary {
    BandSummary {
        energy,
        mean: 0.0,
        m2: 0.0,
        first,
        last,
        len,
    }
}

#[test]
fn constant_series_has_uniform_ratios_and_zero_snr() {
    let s = SeriesSummary {
        bands: smallvec::smallvec![band(0.0, 0.0, 0.0, 10); 4],
        stats: None,
    };
    let f = compute(&[s]);
    assert_eq!(f.energy_ratio[..], [0.25; 4]);
    assert_eq!(f.snr_db, 0.0);
    assert_eq!(f.trend_consistency, 0.5);
    assert_eq!(f.trend_desc, "mixed (0/4 scales upward)");
    assert_eq!(f.dominant_band, 0);
}

/// Series with every band's moments drawn at random.
fn random_group(n: usize) -> Vec<SeriesSummary> {
    let mut next = crate::testing::xorshift(11);
    let mut u = move || (next() % 1_000_000) as f64 / 1e6;
    (0..n)
        .map(|_| SeriesSummary {
            bands: [9usize, 9, 16, 30]
                .iter()
                .map(|&len| BandSummary {
                    energy: u() * 50.0,
                    mean: u() - 0.5,
                    m2: u() * 20.0,
                    first: u(),
                    last: u(),
                    len,
                })
                .collect(),
            stats: None,
        })
        .collect()
}

#[test]
fn a_group_is_summed_in_runs_of_eight() {
    // The rule stated on its own: each run of 8 consecutive series from zero, series
    // by series; then the runs in order.
    let pooled_std = |group: &[SeriesSummary], k: usize, run: usize| {
        let fold = |acc: BandSummary, b: &BandSummary| acc.pooled(b);
        let runs: Vec<BandSummary> = group
            .chunks(run)
            .map(|r| {
                r.iter()
                    .map(|s| s.bands[k])
                    .fold(BandSummary::default(), |a, b| fold(a, &b))
            })
            .collect();
        runs.iter().fold(BandSummary::default(), fold).std()
    };
    let mean_ratio = |group: &[SeriesSummary], k: usize, run: usize| {
        let m = group.len() as f64;
        group
            .chunks(run)
            .map(|r| {
                r.iter()
                    .fold(0.0, |a, s| a + energy_ratios(&s.bands)[k] / m)
            })
            .fold(0.0, |a, r| a + r)
    };
    let group = random_group(20);
    let f = compute(&group);
    for k in 0..4 {
        assert_eq!(f.band_stds[k], pooled_std(&group, k, 8), "band {k}");
        assert_eq!(f.energy_ratio[k], mean_ratio(&group, k, 8), "band {k}");
    }
    // A group of at most one run is summed series by series.
    let small = &group[..8];
    let f = compute(small);
    for k in 0..4 {
        assert_eq!(f.band_stds[k], pooled_std(small, k, usize::MAX), "band {k}");
        assert_eq!(
            f.energy_ratio[k],
            mean_ratio(small, k, usize::MAX),
            "band {k}"
        );
    }
    // Runs made elsewhere (the wheel's parallel pass) give the same features.
    let runs: Vec<Sums> = group
        .chunks(RUN)
        .map(|r| Sums::of_run(r, group.len()))
        .collect();
    assert_eq!(compute_from_runs(&group, runs), compute(&group));
}

#[test]
fn descriptions_follow_the_thresholds() {
    assert_eq!(
        describe::frequency_pattern(0.3, 0, 0.9),
        "single-scale dominant (trend)"
    );
    assert_eq!(
        describe::frequency_pattern(0.7, 5, 0.2),
        "dual-scale pattern"
    );
    assert_eq!(
        describe::trend(&[1, 1, -1, 1], 0.75),
        "mostly upward, except medium-term"
    );
    assert_eq!(describe::trend(&[-1, -1, -1], 1.0), "consistent downward");
    assert_eq!(describe::quality(20.0), "moderate SNR");
    assert_eq!(
        describe::stability(0.5, true),
        "trend-dominated with low noise (strong mid-frequency components)"
    );
    assert_eq!(describe::difficulty(15.0), "moderate");
    assert_eq!(snr_db(1.0, 0.0), 60.0);
    assert_eq!(snr_db(1.0, 1e-9), 60.0);
}

/// A group of one series takes its own path (`of_series`), which must give the bits of
/// its run's sums: over random bands with the awkward values a sliding run makes (zero
/// and negative-zero energies, a single coefficient, equal first and last, a band with no
/// energy among others, every band count up to 9), with statistics and without.
#[test]
fn one_series_has_the_bits_of_its_run() {
    let mut next = crate::testing::xorshift(43);
    let mut pick = move |n: u64| next() % n;
    let awkward = [0.0, -0.0, 1e-300, 0.5, 3.0, 1e6];
    for case in 0..5000 {
        let bands = 1 + pick(9) as usize;
        let value = |p: &mut dyn FnMut(u64) -> u64| match p(3) {
            0 => awkward[p(awkward.len() as u64) as usize],
            _ => (p(2_000_001) as f64 - 1e6) / 1e4,
        };
        let series = SeriesSummary {
            bands: (0..bands)
                .map(|_| {
                    let first = value(&mut pick);
                    BandSummary {
                        energy: value(&mut pick).abs() * if pick(7) == 0 { -0.0 } else { 1.0 },
                        mean: value(&mut pick),
                        m2: value(&mut pick).abs(),
                        first,
                        last: if pick(5) == 0 {
                            first
                        } else {
                            value(&mut pick)
                        },
                        len: [1, 2, 3, 17, 259][pick(5) as usize],
                    }
                })
                .collect(),
            stats: (case % 3 == 0).then(|| crate::stats::SeriesStats {
                min: value(&mut pick),
                max: value(&mut pick),
                median: value(&mut pick),
                trend: value(&mut pick),
                lags: (0..pick(6) as usize).collect(),
                lags_clean: Default::default(),
            }),
        };
        let group = std::slice::from_ref(&series);
        let by_run = from_runs(group, std::iter::once(Sums::of_run(group, 1)));
        // Debug prints -0.0 and NaN as such: equal text is equal bits.
        assert_eq!(
            format!("{:?}", of_series(&series)),
            format!("{by_run:?}"),
            "case {case}: {series:?}"
        );
        assert_eq!(format!("{:?}", compute(group)), format!("{by_run:?}"));
    }
}
