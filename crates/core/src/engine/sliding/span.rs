//! A task's span once, before its blocks of windows: the stationary transform of the
//! span ([`transform`]) and, for each band the plans read, its prefix sums along the
//! phases of its step ([`phased`]), from which any window's interior sums are two reads.

use super::plan::SlidePlan;

/// A band's sequence (`A_j` or `D_j`) over a task's span, and its prefix sums of values
/// and squares along each phase of step `2^j`.
pub(super) struct Phased<'a> {
    pub(super) v: &'a [f64],
    pub(super) sum: Vec<f64>,
    pub(super) sq: Vec<f64>,
}

/// The phased sequences a job's plans read: every detail band of the deepest plan, and
/// the approximation at each plan's level.
pub(super) struct Phases<'a> {
    detail: Vec<Phased<'a>>,
    /// Level `j`'s at `j - 1`, where some plan ends at level `j`.
    approx: Vec<Option<Phased<'a>>>,
}

impl Phases<'_> {
    pub(super) fn get(&self, j: usize, is_a: bool) -> &Phased<'_> {
        match is_a {
            true => self.approx[j - 1]
                .as_ref()
                .expect("a plan's approximation band is phased"),
            false => &self.detail[j - 1],
        }
    }
}

/// `A_j` and `D_j` over the span (`xs` less `origin`), level by level; zero where the span
/// does not hold their inputs (no window's interior reads there).
#[inline(always)]
pub(super) fn transform(sp: &SlidePlan, xs: &[f64], origin: f64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let (f, nl, span) = (sp.filter, sp.levels.len(), xs.len());
    let a0: Vec<f64> = xs.iter().map(|v| v - origin).collect();
    let mut approx: Vec<Vec<f64>> = Vec::with_capacity(nl);
    let mut detail: Vec<Vec<f64>> = Vec::with_capacity(nl);
    let mut valid = 0..span as isize;
    for lv in &sp.levels {
        let src = approx.last().unwrap_or(&a0);
        let d = lv.dil as isize;
        let lo = valid.start - d * lv.first;
        let hi = valid.end - d * (f as isize - 1 + lv.first);
        let (mut a, mut dd) = (vec![0.0; span], vec![0.0; span]);
        if hi > lo {
            let (lo, hi) = (lo as usize, hi as usize);
            for tap in 0..f {
                let off = (lo as isize + d * (tap as isize + lv.first)) as usize;
                let input = &src[off..off + (hi - lo)];
                let (cl, ch) = (sp.lo[tap], sp.hi[tap]);
                for ((x, ya), yd) in input.iter().zip(&mut a[lo..hi]).zip(&mut dd[lo..hi]) {
                    *ya += cl * x;
                    *yd += ch * x;
                }
            }
        }
        valid = lo..hi.max(lo);
        approx.push(a);
        detail.push(dd);
    }
    (approx, detail)
}

/// Each band the plans read, with its prefix sums along the phases of its step.
#[inline(always)]
pub(super) fn phased<'a>(
    sps: &[SlidePlan],
    approx: &'a [Vec<f64>],
    detail: &'a [Vec<f64>],
) -> Phases<'a> {
    let phase = |j: usize, v: &'a Vec<f64>| {
        let step = 1 << j;
        let (mut sum, mut sq) = (v.clone(), v.iter().map(|x| x * x).collect::<Vec<_>>());
        for q in step..v.len() {
            sum[q] += sum[q - step];
            sq[q] += sq[q - step];
        }
        Phased { v, sum, sq }
    };
    Phases {
        detail: (1..=detail.len())
            .map(|j| phase(j, &detail[j - 1]))
            .collect(),
        approx: (1..=approx.len())
            .map(|j| {
                sps.iter()
                    .any(|sp| sp.levels.len() == j)
                    .then(|| phase(j, &approx[j - 1]))
            })
            .collect(),
    }
}
