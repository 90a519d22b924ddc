//! An evaluation as the report's JSON writes it (docs/cli.md#sweep): named maps a reader
//! indexes by claim and outcome, not the lossless form a part file keeps.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use wavebench_core::score::{Evaluation, ForecastGain, Target};

/// An evaluation in the report's JSON form; `withheld`: its part's intervals are
/// withheld (written null, as is any whose percentiles collapse).
pub struct EvaluationJson<'a> {
    pub evaluation: &'a Evaluation,
    pub withheld: bool,
}

/// docs/cli.md#sweep: `{"units", "scored", "score_bits", "mi_bits_sum", "interval",
/// "complementary_bits", "complementary_interval", "claims": {claim: {outcome: {mi_bits,
/// null_median, null_p95, p, excess_bits}}}, "complementary": {claim: {outcome: {…}}},
/// "categories": {claim: {category: count}}, "diversity": {…}, "forecast": {…} or null}`, the built-in claims in
/// docs order, then the defined ones in the order given.
impl Serialize for EvaluationJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.evaluation;
        let shown = |i: [f64; 2]| {
            let i = crate::withheld::shown(i, self.withheld);
            i[0].is_finite().then_some(i)
        };
        let claims = MapOf(|| {
            e.claims.iter().map(|c| {
                let info =
                    MapOf(move || Target::ALL.into_iter().map(move |t| (t.name(), c.info(t))));
                (c.claim.name(), info)
            })
        });
        let complementary = MapOf(|| {
            e.claims.iter().map(|c| {
                let info = MapOf(move || {
                    Target::ALL
                        .into_iter()
                        .map(move |t| (t.name(), c.complementary(t)))
                });
                (c.claim.name(), info)
            })
        });
        let categories = MapOf(|| {
            e.claims.iter().map(|c| {
                (
                    c.claim.name(),
                    MapOf(move || c.categories.iter().map(|(k, v)| (k, v))),
                )
            })
        });
        let forecast = e.forecast.as_ref().map(|g| ForecastJson {
            gain: g,
            interval: shown(g.interval),
        });
        let mut m = s.serialize_map(Some(12))?;
        m.serialize_entry("units", &e.units)?;
        let scored: Vec<&str> = e.scored.iter().map(|c| c.name()).collect();
        m.serialize_entry("scored", &scored)?;
        m.serialize_entry("score_bits", &e.score_bits)?;
        m.serialize_entry("mi_bits_sum", &e.mi_bits_sum)?;
        m.serialize_entry("interval", &shown(e.interval))?;
        m.serialize_entry("complementary_bits", &e.complementary_bits)?;
        m.serialize_entry("complementary_interval", &shown(e.complementary_interval))?;
        m.serialize_entry("claims", &claims)?;
        m.serialize_entry("complementary", &complementary)?;
        m.serialize_entry("categories", &categories)?;
        m.serialize_entry("diversity", &e.diversity)?;
        m.serialize_entry("forecast", &forecast)?;
        m.end()
    }
}

/// docs/cli.md#sweep: `{"mse_series", "mse_with_claims", "mae_series", "mae_with_claims",
/// "gain", "interval", "columns", "left_out"}`, the interval null where withheld.
pub struct ForecastJson<'a> {
    pub gain: &'a ForecastGain,
    pub interval: Option<[f64; 2]>,
}

impl Serialize for ForecastJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let g = self.gain;
        let mut m = s.serialize_map(Some(8))?;
        m.serialize_entry("mse_series", &g.mse_series)?;
        m.serialize_entry("mse_with_claims", &g.mse_with_claims)?;
        m.serialize_entry("mae_series", &g.mae_series)?;
        m.serialize_entry("mae_with_claims", &g.mae_with_claims)?;
        m.serialize_entry("gain", &g.gain)?;
        m.serialize_entry("interval", &self.interval)?;
        m.serialize_entry("columns", &g.columns)?;
        m.serialize_entry("left_out", &g.left_out)?;
        m.end()
    }
}

/// A map serialised from the pairs a closure makes (serde's `collect_map`): nested maps of
/// borrowed data without a wrapper type each.
struct MapOf<F>(F);

impl<F, I, K, V> Serialize for MapOf<F>
where
    F: Fn() -> I,
    I: IntoIterator<Item = (K, V)>,
    K: Serialize,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map((self.0)())
    }
}
