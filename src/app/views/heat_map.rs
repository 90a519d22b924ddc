//! The sweep's heat map: wavelets down, levels across, each cell coloured by the val
//! score, the test score or the bits beyond the series ([`HeatOf`]), with labels, a colour
//! bar and hover values; one family or all; the configuration loaded outlined (and
//! scrolled to when it changes); clicking a cell loads that configuration.

use super::heat_grid::{colour_scale, Cell, HeatGrid, Style};
use crate::app::state::Settings;
use crate::sweep::{RankBy, SweepRow};
use wavebench_core::transform::Transform;

/// What the heat map colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeatOf {
    /// What the table ranks by, on val.
    #[default]
    Val,
    /// The test score.
    Test,
    /// The val complementary score (bits beyond the series-only forecaster).
    Complementary,
}

impl HeatOf {
    pub const ALL: [HeatOf; 3] = [HeatOf::Val, HeatOf::Test, HeatOf::Complementary];

    pub fn name(self) -> &'static str {
        match self {
            HeatOf::Val => "val",
            HeatOf::Test => "test",
            HeatOf::Complementary => "beyond the series",
        }
    }

    fn of(self, r: &SweepRow, by: RankBy) -> f64 {
        match self {
            HeatOf::Val => by.of(r),
            HeatOf::Test => r.test.score_bits,
            HeatOf::Complementary => r.val.complementary_bits,
        }
    }
}

/// The heat map's choices.
#[derive(Debug, Default)]
pub struct HeatMap {
    pub of: HeatOf,
    /// Only this family's wavelets; None: every family the sweep has.
    pub family: Option<&'static str>,
    /// The configuration last outlined: the map scrolls to it when it changes.
    outlined: Option<Transform>,
}

impl HeatMap {
    /// Wavelets down, levels across, coloured by the metric; a colour bar above.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        sweep: &crate::sweep::Sweep,
        m: RankBy,
        degenerate: bool,
        s: &mut Settings,
        step_ms: Option<f64>,
    ) {
        let heat = self.of;
        self.family_picker(ui, &sweep.rows);
        let current = s.run.transform;
        let scroll_to_current = self.outlined != Some(current);
        self.outlined = Some(current);
        let value = |r: &SweepRow| heat.of(r, m);
        let shown = self.shown_rows(&sweep.rows, degenerate);
        let levels = shown.iter().map(|r| r.transform.level).max().unwrap_or(1);
        let names = wavelet_names(&shown);
        let (lo, hi) = shown
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(value(r)), hi.max(value(r)))
            });
        let small = egui::FontId::proportional(10.0);
        colour_bar(ui, heat, m, lo, hi, &small);
        let grid = grid_of(ui, &names, levels, small);
        level_header(ui, &grid, step_ms);
        // The bar always shown: over a hundred wavelets run past the pane.
        let room = ui
            .available_height()
            .min(ui.clip_rect().bottom() - ui.cursor().top())
            .max(40.0);
        let mut area = egui::ScrollArea::vertical()
            .id_salt("sweep heat map")
            .max_height(room);
        // Brought into view when it changes (a click in the table), not every frame: the
        // user scrolls the map freely in between.
        if scroll_to_current {
            if let Some(i) = names.iter().position(|n| *n == current.name()) {
                area = area.vertical_scroll_offset((grid.cell.y * i as f32 - room / 2.0).max(0.0));
            }
        }
        area.scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
            .show(ui, |ui| {
                let top = grid.allocate_rows(ui, names.len()).min;
                for (i, n) in names.iter().enumerate() {
                    grid.row_name(ui, top, i, n, *n == current.name());
                }
                for r in &shown {
                    let t = r.transform;
                    let i = names.iter().position(|n| *n == t.name()).unwrap_or(0);
                    let cell = Cell {
                        fill: colour_scale(share_of(value(r), lo, hi)),
                        marked: t == current,
                        figure: None,
                    };
                    let rect = grid.cell_rect(top, i, t.level - 1);
                    let id = ui.scope_id().with(t);
                    let clicked = grid.cell(ui, rect, id, cell, egui::Sense::click());
                    if clicked.clicked() {
                        s.run.transform = t;
                    }
                    clicked.on_hover_text(cell_hover(sweep, r, m));
                }
            });
    }

    /// The rows the map shows: the chosen family's (or every family's), the degenerate
    /// levels only where asked.
    fn shown_rows<'r>(&self, rows: &'r [SweepRow], degenerate: bool) -> Vec<&'r SweepRow> {
        rows.iter()
            .filter(|r| degenerate || !r.degenerate())
            .filter(|r| self.family.is_none_or(|f| r.transform.wavelet.family == f))
            .collect()
    }

    /// The wavelet families the sweep has, one (or all) shown.
    fn family_picker(&mut self, ui: &mut egui::Ui, rows: &[SweepRow]) {
        let mut families: Vec<&'static str> = Vec::new();
        for r in rows {
            let wavelet: &'static _ = r.transform.wavelet;
            if !families.contains(&wavelet.family.as_str()) {
                families.push(wavelet.family.as_str());
            }
        }
        ui.horizontal(|ui| {
            egui::ComboBox::from_id_salt("heat map family")
                .selected_text(self.family.unwrap_or("all families"))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.family, None, "all families");
                    for f in &families {
                        ui.selectable_value(&mut self.family, Some(*f), *f);
                    }
                })
                .response
                .on_hover_text("Show one wavelet family's rows of the map");
        });
    }
}

/// The colour scale: the quantity named on its own line, the bar as wide as the column
/// leaves beside its end values (a fixed 140 px bar pushed the upper value and the name
/// out of a narrow pane).
fn colour_bar(ui: &mut egui::Ui, heat: HeatOf, m: RankBy, lo: f64, hi: f64, small: &egui::FontId) {
    ui.small(match (heat, m) {
        (HeatOf::Test, _) => "colour: test score (bits above the null)".to_string(),
        (HeatOf::Complementary, _) => {
            "colour: val bits beyond the series-only forecaster".to_string()
        }
        (HeatOf::Val, RankBy::Score) => "colour: val score (bits above the null)".to_string(),
        (HeatOf::Val, RankBy::Complementary) => {
            "colour: val bits beyond the series-only forecaster".to_string()
        }
        (HeatOf::Val, RankBy::Forecast) => {
            "colour: val forecast gain (share of the series-only MSE)".to_string()
        }
        (HeatOf::Val, RankBy::Mean(x)) => format!("colour: mean {}", x.name()),
        (HeatOf::Val, RankBy::Pair(..)) => format!("colour: val bits {}", m.name()),
    });
    ui.horizontal(|ui| {
        ui.small(format!("{lo:.2}"));
        let ends = super::text_width(ui, &format!("{hi:.2}"), small);
        let width = (ui.available_width() - ends - ui.spacing().item_spacing.x).clamp(28.0, 140.0);
        let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 10.0), egui::Sense::hover());
        const STEPS: usize = 28;
        let step = width / STEPS as f32;
        for i in 0..STEPS {
            let x = rect.left() + i as f32 * step;
            ui.painter().rect_filled(
                egui::Rect::from_min_size(egui::pos2(x, rect.top()), egui::vec2(step, 10.0)),
                0.0,
                colour_scale(i as f32 / (STEPS - 1) as f32),
            );
        }
        ui.small(format!("{hi:.2}"));
    });
}

/// Where `v` falls between the map's `lo` and `hi` (the middle when they are one).
fn share_of(v: f64, lo: f64, hi: f64) -> f32 {
    if hi > lo {
        ((v - lo) / (hi - lo)) as f32
    } else {
        0.5
    }
}

/// Each wavelet of the rows shown, once, in the order first met.
fn wavelet_names<'r>(shown: &[&'r SweepRow]) -> Vec<&'r str> {
    let mut names: Vec<&str> = Vec::new();
    for r in shown {
        if !names.contains(&r.transform.name()) {
            names.push(r.transform.name());
        }
    }
    names
}

/// The map's grid: the names' column as wide as the longest name, and the cells (one a
/// level) sharing the rest less the scroll bar: at 70 px and 14 px cells, level 7 fell off
/// a narrow pane.
fn grid_of(ui: &egui::Ui, names: &[&str], levels: usize, small: egui::FontId) -> HeatGrid {
    let names_width = 6.0
        + names
            .iter()
            .map(|n| super::text_width(ui, n, &small))
            .fold(0.0, f32::max);
    let scroll_bar = ui.spacing().scroll.allocated_width() + ui.spacing().item_spacing.x;
    let cell = egui::vec2(
        ((ui.available_width() - names_width - scroll_bar) / levels as f32).clamp(8.0, 40.0),
        12.0,
    );
    HeatGrid {
        names_width,
        cell,
        columns: levels,
        font: small,
        style: Style::PACKED,
    }
}

/// Level labels across the top; on hover, what each level reaches in the data's time
/// units (its deepest detail band and the approximation it leaves), written only while
/// hovered.
fn level_header(ui: &mut egui::Ui, grid: &HeatGrid, step_ms: Option<f64>) {
    let levels = grid.columns;
    let header = grid.header(ui, (1..=levels).map(|l| format!("L{l}")));
    header.on_hover_ui(|ui| {
        let periods = wavebench_core::engine::plan::band_periods(levels, step_ms);
        for l in 1..=levels {
            let approx = wavebench_core::engine::plan::band_periods(l, step_ms);
            ui.label(format!(
                "L{l}: cD{l} holds periods of {}, cA{l} those {}",
                periods[levels + 1 - l],
                approx[0]
            ));
        }
    });
}

/// A cell's hover: the row's scores, and what is ranked where that is something else.
fn cell_hover(sweep: &crate::sweep::Sweep, r: &SweepRow, m: RankBy) -> String {
    format!(
        "{}: val score {}, test {:.4}, beyond the series {:.4}{}{}",
        r.label(),
        super::interval_text(
            r.val.score_bits,
            sweep.shown(wavebench_core::score::Part::Val, r.val.interval)
        ),
        r.test.score_bits,
        r.val.complementary_bits,
        if m == RankBy::Score || m == RankBy::Complementary {
            String::new()
        } else {
            format!(", {} = {:.4}", m.name(), m.of(r))
        },
        if r.degenerate() { " (degenerate)" } else { "" }
    )
}
