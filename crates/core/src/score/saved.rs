//! A [`Scorer`] as it is written and read back (`sweep prepare`, `sweep --prepared`):
//! what took the data set's work (every file's units, the terciles, the forecasters, each
//! unit's observed and predicted classes, the residuals), not what is rebuilt from it in a
//! moment (the sequences' counts, masks, shifts and blocks; the x·ln x table; the memo).
//! A scorer read back scores every configuration as the one written did, bit for bit.

use super::column::Info;
use super::forecaster::{ForecastClasses, Forecaster};
use super::gain::GainUnits;
use super::information::XLnX;
use super::sequences::{Protocol, Sequences};
use super::{Horizons, PartCounts, PerPart, Scorer, Terciles};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Mutex;

/// The scorer's fields that are written: borrowed to write, owned when read.
#[derive(Serialize, Deserialize)]
struct Saved<'a> {
    files: Cow<'a, [Horizons]>,
    mase: Terciles,
    vol: Terciles,
    units: PartCounts,
    protocol: Protocol,
    sequences: PerPart<SavedSequences<'a>>,
    forecast_classes: ForecastClasses,
    forecaster_bits: PerPart<[Info; 3]>,
    fitted_units: usize,
    fit_every: usize,
    forecaster: Cow<'a, Forecaster>,
    fit_units: usize,
    gain: Cow<'a, Option<GainUnits>>,
    gain_withheld: Option<String>,
}

/// A scored part's sequences as [`Sequences::new`] takes them.
#[derive(Serialize, Deserialize)]
struct SavedSequences<'a> {
    ranges: Cow<'a, [Range<usize>]>,
    span: usize,
    cells: Cow<'a, [[u8; 3]]>,
}

impl Serialize for Scorer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Saved {
            files: Cow::Borrowed(&self.files),
            mase: self.mase,
            vol: self.vol,
            units: self.units,
            protocol: self.protocol,
            sequences: self.sequences.each_ref().map(|q| SavedSequences {
                ranges: Cow::Borrowed(&q.ranges),
                span: q.span,
                cells: Cow::Borrowed(&q.cells),
            }),
            forecast_classes: self.forecast_classes,
            forecaster_bits: self.forecaster_bits,
            fitted_units: self.fitted_units,
            fit_every: self.fit_every,
            forecaster: Cow::Borrowed(&self.forecaster),
            fit_units: self.fit_units,
            gain: Cow::Borrowed(&self.gain),
            gain_withheld: self.gain_withheld.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Scorer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scorer, D::Error> {
        let saved = Saved::deserialize(d)?;
        let protocol = saved.protocol;
        // Each scored part's sequences hold its units: a file that says otherwise was
        // not written by a scorer.
        for (q, units) in saved
            .sequences
            .iter()
            .zip([saved.units.val, saved.units.test])
        {
            let covered = q.ranges.last().map_or(0, |r| r.end);
            if q.cells.len() != units || covered > q.cells.len() {
                return Err(serde::de::Error::custom(format!(
                    "a scored part of {units} units holds {} cells",
                    q.cells.len()
                )));
            }
        }
        let sequences = saved.sequences.map(|q| {
            Sequences::new(
                q.ranges.into_owned(),
                q.cells.into_owned(),
                q.span,
                protocol,
            )
        });
        Ok(Scorer {
            files: saved.files.into_owned(),
            mase: saved.mase,
            vol: saved.vol,
            xlnx: XLnX::new(saved.units.val.max(saved.units.test)),
            units: saved.units,
            protocol,
            sequences,
            forecast_classes: saved.forecast_classes,
            forecaster_bits: saved.forecaster_bits,
            fitted_units: saved.fitted_units,
            fit_every: saved.fit_every,
            forecaster: saved.forecaster.into_owned(),
            fit_units: saved.fit_units,
            gain: saved.gain.into_owned(),
            gain_withheld: saved.gain_withheld,
            memo: Mutex::default(),
        })
    }
}
