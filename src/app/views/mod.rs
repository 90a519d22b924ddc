//! One file per view; each draws what it is given and changes only `Settings`.

pub mod bands;
pub mod compare;
pub mod config;
pub mod data;
pub mod energy;
pub mod features;
pub mod prompt;
pub mod sweep;
pub mod time_axis;
pub mod timing;

/// `cA_n, cD_n, …, cD_1`.
pub fn band_names(level: usize) -> Vec<String> {
    std::iter::once(format!("cA{level}"))
        .chain((1..=level).rev().map(|j| format!("cD{j}")))
        .collect()
}

/// The width `text` takes in `font`, unwrapped: to size a column or a bar to what it holds.
pub fn text_width(ui: &egui::Ui, text: &str, font: &egui::FontId) -> f32 {
    ui.fonts_mut(|f| {
        f.layout_no_wrap(text.to_owned(), font.clone(), egui::Color32::WHITE)
            .size()
            .x
    })
}
