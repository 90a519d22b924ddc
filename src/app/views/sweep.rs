//! The sweep: every wavelet × level scored by what its prompts' claims tell about the
//! horizon (docs/score.md), ranked by the val score with the test score beside it (or by a
//! feature's mean, as a description), as a table and a heat map with wavelet and level
//! labels, a colour scale and hover values; clicking a row or a cell loads that
//! configuration.

use crate::app::commands::{Commands, UiCommand};
use crate::app::state::Settings;
use crate::sweep::{self, RankBy, Sweep, SweepRow};
use wavebench_core::score::{Part, Split};

pub use super::heat_map::{HeatMap, HeatOf};
use super::sweep_table::sweep_table;

pub struct SweepView {
    pub sweep: Option<Sweep>,
    pub by: RankBy,
    pub heat: HeatMap,
    /// Show configurations whose approximation band has fewer than 2 coefficients.
    pub show_degenerate: bool,
    /// The split's text as typed (the split itself is in the settings); None until the
    /// settings first show it.
    pub split_text: Option<String>,
    /// The claims you define, one `NAME[:OUTCOME]=TEMPLATE` per line, as typed.
    pub claims: super::claims::ClaimEditor,
}

impl Default for SweepView {
    fn default() -> Self {
        SweepView {
            sweep: None,
            by: RankBy::Score,
            heat: HeatMap::default(),
            show_degenerate: false,
            split_text: None,
            claims: Default::default(),
        }
    }
}

impl SweepView {
    /// Draw; what the user asks for (a new sweep, a row's configuration written out) goes
    /// to `commands`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        s: &mut Settings,
        running: bool,
        commands: &mut Commands,
        step_ms: Option<f64>,
    ) {
        self.controls(ui, s, running, commands);
        self.claims.ui(ui, s);
        let Some(sw) = &self.sweep else {
            ui.label("Every wavelet and level over the data set, scored by the bits of information its prompts' claims carry about what the next pred_len rows do (val units rank; test units show whether the choice holds).");
            return;
        };
        let stale = stale(sw, s);
        if let Some(why) = &stale {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("Warning: {why}: run again"),
            );
        }
        // A sweep of other data options stays readable, greyed out, until it is run again
        // (the pane's ui is made anew each frame).
        if stale.is_some() {
            ui.multiply_opacity(0.45);
        }
        let by = self.by;
        let standings = sweep::rank::Standings::of(sw, by, self.show_degenerate);
        summary(ui, sw, by, &standings);
        // Solid scroll bars for the table and the map: egui's floating bars are invisible
        // until hovered, so over a hundred wavelets looked cut at the pane's edge (db21)
        // and the test rank's column cut at its right.
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        // The table and the map scroll within what the pane shows.
        let visible = ui.clip_rect();
        let height = ui
            .available_height()
            .min(visible.bottom() - ui.cursor().top())
            .max(120.0);
        // Table and heat map side by side in a wide pane; in a narrow one (the default
        // layout's tab) the table above the map, each with its share of the height.
        let wide = ui.available_width() >= 720.0;
        // The table carries the answer: most of the height, the map below it.
        let table_height = if wide { height } else { height * 0.6 };
        if wide {
            ui.columns(2, |cols| {
                sweep_table(&mut cols[0], sw, &standings, table_height, s, commands);
                self.heat
                    .ui(&mut cols[1], sw, by, self.show_degenerate, s, step_ms);
            });
        } else {
            sweep_table(ui, sw, &standings, table_height, s, commands);
            ui.separator();
            self.heat.ui(ui, sw, by, self.show_degenerate, s, step_ms);
        }
    }

    /// The run button, the split as typed (read into the settings where it parses), what
    /// the rows are ranked by, the map's quantity and whether degenerate levels show.
    fn controls(
        &mut self,
        ui: &mut egui::Ui,
        s: &mut Settings,
        running: bool,
        commands: &mut Commands,
    ) {
        let mut start = false;
        let split_text = self.split_text.get_or_insert_with(|| s.split.to_string());
        let split_error = match split_text.parse::<Split>() {
            Ok(split) => {
                s.split = split;
                None
            }
            Err(e) => Some(e),
        };
        ui.horizontal_wrapped(|ui| {
            start = UiCommand::StartSweep
                .button(ui, !running && split_error.is_none())
                .clicked();
            ui.label("split");
            ui.add(egui::TextEdit::singleline(split_text).desired_width(90.0))
                .on_hover_text("Train, val and test shares of the rows in time order (0.7,0.1,0.2), or ett-hour / ett-minute: the val units rank, the test units check");
            egui::ComboBox::from_label("rank by")
                .selected_text(self.by.name())
                .show_ui(ui, |ui| {
                    for by in RankBy::ALL {
                        ui.selectable_value(&mut self.by, by, by.name());
                    }
                });
            ui.label("map");
            for h in HeatOf::ALL {
                ui.selectable_value(&mut self.heat.of, h, h.name());
            }
            ui.checkbox(&mut self.show_degenerate, "show degenerate")
                .on_hover_text("Configurations whose approximation band has fewer than 2 coefficients (their std and SNR mean nothing)");
        });
        if let Some(e) = split_error {
            ui.colored_label(ui.visuals().error_fg_color, format!("split {e}"));
        }
        if start {
            commands.send(UiCommand::StartSweep);
        }
    }
}

/// What the sweep scored and how it ranks (the units, what is ranked, ρ and the ties),
/// its warnings (folded), and what the claims you defined tell on the first row.
fn summary(ui: &mut egui::Ui, sw: &Sweep, by: RankBy, standings: &sweep::rank::Standings) {
    ui.label(format!(
        "split {}: {} val and {} test units, {} · {}",
        sw.split,
        sw.units.val,
        sw.units.test,
        sw.left_out_text(),
        match by {
            RankBy::Score =>
                "score = bits the claims tell about the horizon (a proxy, not a forecast)"
                    .to_string(),
            RankBy::Complementary =>
                "complementary = bits the claims tell beyond a forecaster that reads only the series"
                    .to_string(),
            RankBy::Forecast =>
                "forecast gain = how much the claims lower the series-only forecaster's MSE"
                    .to_string(),
            RankBy::Mean(m) => format!(
                "mean {} over the scored units: a description, higher is not better",
                m.name()
            ),
            RankBy::Pair(c, t) => format!("val bits {} tells about {}", c.name(), t.name()),
        }
    ));
    let ties = if standings.has_intervals() {
        format!("{} tied with the best (=)", standings.tied().count())
    } else if sw.withholds(Part::Val) {
        "no ties: val's intervals are withheld [—]".to_string()
    } else {
        "no ties: what is ranked has no interval".to_string()
    };
    ui.label(format!(
        "val against test: Spearman's rho {} · {ties} · scores are bits above a null of circular shifts, [95% bootstrap interval]",
        standings
            .spearman
            .map_or("–".to_string(), |r| format!("{r:.2}")),
    ));
    // One line until opened, then each warning whole: unfolded, five warnings pushed
    // the table to three rows at 1400x900 (the report prints them whole too).
    let warnings = standings.warnings(sw);
    if !warnings.is_empty() {
        let warn = ui.visuals().warn_fg_color;
        let head = egui::RichText::new(format!(
            "{} warning{} (open to read)",
            warnings.len(),
            if warnings.len() == 1 { "" } else { "s" }
        ))
        .color(warn);
        egui::CollapsingHeader::new(head)
            .id_salt("sweep warnings")
            .show(ui, |ui| {
                for w in &warnings {
                    ui.label(egui::RichText::new(w.as_str()).color(warn));
                }
            });
    }
    if let Some(best) = standings.rows.first() {
        for line in defined_lines(sw, best.row) {
            ui.label(line);
        }
    }
}

/// What each claim you defined tells on the first row's val and test units: its bits
/// above the null about its designated outcome (or the most it tells about any), with p,
/// and beyond the series.
fn defined_lines(sw: &Sweep, row: &SweepRow) -> Vec<String> {
    use wavebench_core::score::{AnyClaim, Target};
    let mut out = Vec::new();
    for c in &row.val.claims {
        let AnyClaim::Defined(d) = &c.claim else {
            continue;
        };
        let target = d.target().unwrap_or_else(|| {
            Target::ALL
                .into_iter()
                .max_by(|a, b| c.info(*a).excess_bits.total_cmp(&c.info(*b).excess_bits))
                .unwrap_or(Target::Direction)
        });
        let test = row.test.claim(d.name());
        let part = |c: &wavebench_core::score::ClaimInfo, part: Part| {
            let (i, b) = (c.info(target), c.complementary(target));
            let ci = |[lo, hi]: [f64; 2]| {
                if lo.is_finite() {
                    format!(" [{lo:+.3}, {hi:+.3}]")
                } else {
                    String::new()
                }
            };
            let [ii, bi] = c.intervals(target).map(|i| sw.shown(part, i));
            format!(
                "{:+.4}{} bits (p {:.2}), beyond the series {:+.4}{} (p {:.2})",
                i.excess_bits,
                ci(ii),
                i.p,
                b.excess_bits,
                ci(bi),
                b.p
            )
        };
        out.push(format!(
            "Your claim {} about {}{}: val {}; test {} ({} categories)",
            d.name(),
            target.name(),
            if d.target().is_some() {
                ", in the score"
            } else {
                ""
            },
            part(c, Part::Val),
            test.map_or("-".to_string(), |t| part(t, Part::Test)),
            c.categories.len()
        ));
    }
    out
}

/// Why `sw` no longer answers for the knobs `s` and the split typed: the first data option
/// it was computed for that differs, worded as "computed for …".
pub fn stale(sw: &Sweep, s: &Settings) -> Option<String> {
    let split = s.split;
    let (then, now) = (&sw.base, &s.run);
    let differs = [
        (
            then.pred_len != now.pred_len,
            format!("prediction length {}", then.pred_len),
        ),
        (
            then.seq_len != Some(s.seq_len()),
            format!("window length {}", then.seq_len.unwrap_or(0)),
        ),
        (then.stride != now.stride, format!("stride {}", then.stride)),
        (sw.split != split, format!("split {}", sw.split)),
        (
            then.lags != now.lags,
            format!("top lags '{}'", then.lags.name()),
        ),
        (then.columns != now.columns, "other columns".to_string()),
        (then.rows != now.rows, "other rows".to_string()),
        (
            then.missing != now.missing,
            format!("missing values '{}'", then.missing.name()),
        ),
        (
            then.description != now.description,
            "another description".to_string(),
        ),
        (
            then.claims != now.claims,
            "other claims you define".to_string(),
        ),
        (
            sw.rows
                .first()
                .is_some_and(|r| r.template != s.template_label()),
            format!(
                "template {}",
                sw.rows.first().map_or("", |r| r.template.as_str())
            ),
        ),
    ];
    differs
        .into_iter()
        .find(|(d, _)| *d)
        .map(|(_, what)| format!("computed for {what}"))
}
