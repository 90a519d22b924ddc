//! Energy ratios per band as bars; band trends and standard deviations beside them.

use super::band_names;
use crate::features::Features;
use egui_plot::{Bar, BarChart, Legend, Plot};

fn bars(name: &str, values: &[f64], labels: &[String]) -> BarChart {
    BarChart::new(
        name,
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| Bar::new(i as f64, v).name(&labels[i]).width(0.7))
            .collect(),
    )
}

pub fn ui(ui: &mut egui::Ui, f: &Features) {
    let labels = band_names(f.energy_ratio.len() - 1);
    ui.columns(3, |cols| {
        for (col, (title, values)) in cols.iter_mut().zip([
            ("energy ratio", &f.energy_ratio),
            ("band trend", &f.trends),
            ("band std", &f.band_stds),
        ]) {
            col.label(title);
            Plot::new(title)
                .height(140.0)
                .legend(Legend::default())
                .show(col, |p| p.bar_chart(bars(title, values, &labels)));
        }
    });
}
