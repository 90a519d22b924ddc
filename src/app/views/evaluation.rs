//! A part's evaluation as the Data set pane shows it: each claim's category shares (a bar
//! of shares with its legend) and the claims × outcomes heat map of bits above the null.

use super::heat_grid::{colour_scale, Cell, HeatGrid, Style};
use wavebench_core::score::{Evaluation, Target};

/// Categories' colours in the share bars.
const PALETTE: [egui::Color32; 8] = [
    egui::Color32::from_rgb(86, 148, 214),
    egui::Color32::from_rgb(230, 159, 0),
    egui::Color32::from_rgb(0, 158, 115),
    egui::Color32::from_rgb(204, 121, 167),
    egui::Color32::from_rgb(240, 228, 66),
    egui::Color32::from_rgb(213, 94, 0),
    egui::Color32::from_rgb(140, 140, 140),
    egui::Color32::from_rgb(120, 94, 240),
];

/// Each claim's categories as a bar of shares (hover for counts).
pub(super) fn shares(ui: &mut egui::Ui, e: &Evaluation) {
    ui.strong("Category shares");
    for c in &e.claims {
        let total: usize = c.categories.iter().map(|(_, n)| n).sum();
        ui.horizontal(|ui| {
            ui.add_sized([110.0, 14.0], egui::Label::new(c.claim.name()).truncate());
            // Short of the edge: a vertical scroll bar may take the last pixels.
            let width = (ui.available_width() - 14.0).max(60.0);
            let (rect, response) =
                ui.allocate_exact_size(egui::vec2(width, 12.0), egui::Sense::hover());
            let mut x = rect.left();
            for (i, (_, n)) in c.categories.iter().enumerate() {
                let w = width * *n as f32 / total.max(1) as f32;
                ui.painter().rect_filled(
                    egui::Rect::from_min_size(egui::pos2(x, rect.top()), egui::vec2(w, 12.0)),
                    0.0,
                    PALETTE[i % PALETTE.len()],
                );
                x += w;
            }
            let lines: Vec<String> = c
                .categories
                .iter()
                .take(12)
                .map(|(name, n)| {
                    format!(
                        "{}: {n} ({:.1} %)",
                        crate::sweep::report::category_shown(name),
                        100.0 * *n as f64 / total.max(1) as f64
                    )
                })
                .collect();
            let more = c.categories.len().saturating_sub(12);
            response.on_hover_text(if more > 0 {
                format!("{}\n… and {more} more", lines.join("\n"))
            } else {
                lines.join("\n")
            });
        });
        legend(ui, &c.categories, total);
    }
}

/// The first categories' colours and names under a bar (the rest on hover).
fn legend(ui: &mut egui::Ui, categories: &[(String, usize)], total: usize) {
    const SHOWN: usize = 4;
    ui.horizontal_wrapped(|ui| {
        ui.add_space(114.0);
        ui.spacing_mut().item_spacing.x = 4.0;
        for (i, (name, n)) in categories.iter().take(SHOWN).enumerate() {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(8.0, 8.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(rect, 0.0, PALETTE[i % PALETTE.len()]);
            let short: String = name.chars().take(24).collect();
            ui.small(format!(
                "{short}{} {:.0} %",
                if short.len() < name.len() { "..." } else { "" },
                100.0 * *n as f64 / total.max(1) as f64
            ));
        }
        if categories.len() > SHOWN {
            ui.small(format!("+{} more", categories.len() - SHOWN));
        }
    });
}

/// Claims down, outcomes across: bits of information above the null (the median of the
/// circular shifts), or beyond the series-only forecaster when `complementary`, coloured
/// from 0 to the table's largest, a star where p <= 0.05; the scored pairs framed; the
/// observed bits, the null and p in each cell's hover.
pub(super) fn heat_map(ui: &mut egui::Ui, e: &Evaluation, complementary: bool) {
    ui.strong(if complementary {
        "Bits each claim tells beyond the series-only forecaster, above their null (scored pairs framed; * where p <= 0.05)"
    } else {
        "Bits each claim tells about the horizon above its null (scored pairs framed; * where p <= 0.05)"
    });
    let of = |c: &wavebench_core::score::ClaimInfo, t: Target| {
        if complementary {
            c.complementary(t)
        } else {
            c.info(t)
        }
    };
    let hi = e
        .claims
        .iter()
        .flat_map(|c| Target::ALL.map(|t| of(c, t).excess_bits))
        .fold(1e-6, f64::max);
    // Inside the pane whatever its width (short of a vertical scroll bar): the last
    // column was cut at 1400×900 when the names and cells kept their widths.
    let avail = ui.available_width() - 14.0;
    let name_w = (avail * 0.4).clamp(70.0, 110.0);
    let cell = egui::vec2(((avail - name_w) / 3.0).clamp(24.0, 110.0), 18.0);
    let grid = HeatGrid {
        names_width: name_w,
        cell,
        columns: Target::ALL.len(),
        font: egui::FontId::proportional(11.0),
        style: Style::FRAMED,
    };
    grid.header(ui, Target::ALL.map(|t| t.name()));
    for c in &e.claims {
        let top = grid.allocate_rows(ui, 1).min;
        grid.row_name(ui, top, 0, c.claim.name(), false);
        for t in Target::ALL {
            let r = grid.cell_rect(top, 0, t as usize);
            let framed = e.scored.contains(&c.claim) && c.claim.scored_against() == Some(t);
            claim_cell(ui, &grid, r, (c, t), of(c, t), framed, hi, complementary);
        }
    }
}

/// One claim × outcome cell of the map at `r`: shaded by its bits above the null (of the
/// map's highest, `hi`), framed where the pair is scored, its figure inside (`*` where
/// p <= 0.05), read as its text says, the null's figures on hover.
#[allow(clippy::too_many_arguments)]
fn claim_cell(
    ui: &mut egui::Ui,
    grid: &HeatGrid,
    r: egui::Rect,
    (c, t): (&wavebench_core::score::ClaimInfo, Target),
    info: wavebench_core::score::Info,
    framed: bool,
    hi: f64,
    complementary: bool,
) {
    let figure = format!(
        "{:+.3}{}",
        info.excess_bits,
        if info.p <= 0.05 { "*" } else { "" }
    );
    let cell = Cell {
        fill: colour_scale((info.excess_bits.max(0.0) / hi) as f32),
        marked: framed,
        figure: Some(figure),
    };
    let id = ui.scope_id().with((c.claim.name(), t.name()));
    let cell = grid.cell(ui, r, id, cell, egui::Sense::hover());
    // Screen readers (and tests) read the cell as its text says.
    let said = format!(
        "{} × {}: {:+.3} bits {}",
        c.claim.name(),
        t.name(),
        info.excess_bits,
        if complementary {
            "beyond the series"
        } else {
            "above the null"
        }
    );
    cell.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &said));
    cell.on_hover_text(format!(
        "{} × {}: {:.4} bits observed; null (circular shifts): median {:.4}, 95th percentile {:.4}; {:+.4} above the median; p = {:.3}",
        c.claim.name(),
        t.name(),
        info.mi_bits,
        info.null_median,
        info.null_p95,
        info.excess_bits,
        info.p
    ));
}
