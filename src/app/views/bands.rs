//! The bands: per-band reconstruction stacked (or raw coefficients), with the samples the
//! signal extension reaches shaded.

use super::band_names;
use crate::pipeline::Inspection;
use egui_plot::{Legend, Line, Plot, PlotPoints, Span};

pub fn ui(ui: &mut egui::Ui, r: &Inspection, raw: bool, link: egui::Id) {
    let names = band_names(r.coeffs.len() - 1);
    let h = ((ui.available_height() - 10.0) / r.coeffs.len() as f32).clamp(70.0, 160.0);
    for (k, name) in names.iter().enumerate() {
        let plot = Plot::new(("band", k)).height(h).legend(Legend::default());
        if raw {
            let c = &r.coeffs[k];
            let b = r.boundary[k] as f64;
            plot.show(ui, |p| {
                p.line(Line::new(
                    name.clone(),
                    PlotPoints::from_iter(c.iter().enumerate().map(|(i, &v)| [i as f64, v])),
                ));
                if b > 0.0 {
                    p.span(Span::new("boundary", 0.0..=b - 1.0));
                    p.span(Span::new(
                        "boundary",
                        c.len() as f64 - b..=c.len() as f64 - 1.0,
                    ));
                }
            });
        } else {
            let c = &r.mra[k];
            let start = r.start as f64;
            // In the time domain a band's edge effect reaches about 2^level samples per
            // affected coefficient.
            let level = if k == 0 {
                names.len() - 1
            } else {
                names.len() - k
            };
            let reach = (r.boundary[k] << level) as f64;
            plot.link_axis(link, [true, false]).show(ui, |p| {
                p.line(Line::new(
                    name.clone(),
                    PlotPoints::from_iter(
                        c.iter().enumerate().map(|(i, &v)| [start + i as f64, v]),
                    ),
                ));
                let end = start + c.len() as f64;
                let reach = reach.min(c.len() as f64 / 2.0);
                p.span(Span::new("boundary", start..=start + reach));
                p.span(Span::new("boundary", end - reach..=end));
            });
        }
    }
}
