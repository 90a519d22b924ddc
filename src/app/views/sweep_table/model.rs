//! What the sweep's table shows, built before it is drawn: its columns for a ranking, each
//! row's cells (text, hover, and the gain's tone by where its interval lies).

use crate::sweep::rank::{Standing, Standings};
use crate::sweep::{RankBy, Sweep};
use wavebench_core::score::{Evaluation, Part};

/// The three figures that answer "does this configuration's prompt help", in the table's
/// units: bits, bits, and percent of the series-only forecaster's MSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    Score,
    Beyond,
    Forecast,
}

impl Answer {
    fn of_ranking(by: RankBy) -> Option<Answer> {
        match by {
            RankBy::Score => Some(Answer::Score),
            RankBy::Complementary => Some(Answer::Beyond),
            RankBy::Forecast => Some(Answer::Forecast),
            RankBy::Mean(_) | RankBy::Pair(..) => None,
        }
    }

    /// The estimate and its 95% interval as the evaluation holds them (NaN where the
    /// sweep has no forecast gain).
    fn of(self, e: &Evaluation) -> (f64, [f64; 2]) {
        match self {
            Answer::Score => (e.score_bits, e.interval),
            Answer::Beyond => (e.complementary_bits, e.complementary_interval),
            Answer::Forecast => e.forecast.as_ref().map_or((f64::NAN, [f64::NAN; 2]), |g| {
                (100.0 * g.gain, g.interval.map(|v| 100.0 * v))
            }),
        }
    }

    /// A standing's gain over the baseline in this figure, and its paired interval.
    fn gain(self, st: &Standing<'_>) -> (f64, [f64; 2]) {
        match self {
            Answer::Score => (st.gain, st.gain_interval),
            Answer::Beyond => (st.complementary_gain, st.complementary_gain_interval),
            Answer::Forecast => (
                100.0 * st.forecast_gain,
                st.forecast_gain_interval.map(|v| 100.0 * v),
            ),
        }
    }

    /// Decimals its figures print with (an interval's too).
    fn digits(self) -> usize {
        match self {
            Answer::Forecast => 2,
            Answer::Score | Answer::Beyond => 3,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Answer::Score | Answer::Beyond => "bits",
            Answer::Forecast => "points of MSE %",
        }
    }
}

/// The table's columns, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Column {
    Rank,
    Configuration,
    /// A feature's mean or a claim–outcome pair's bits: what is ranked, when it is none of
    /// the answers.
    Ranked,
    Figure(Answer),
    Tie,
    Gain,
    TestRank,
    /// The ranked quantity on test: shown only where the pane has room for it.
    Test,
}

/// How a figure's interval lies against 0 (the gain's colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tone {
    Plain,
    Above,
    Below,
    HoldsZero,
}

impl Tone {
    fn of(interval: [f64; 2]) -> Tone {
        match interval {
            [lo, _] if lo > 0.0 => Tone::Above,
            [_, hi] if hi < 0.0 => Tone::Below,
            [lo, hi] if lo.is_finite() && hi.is_finite() => Tone::HoldsZero,
            _ => Tone::Plain,
        }
    }

    pub fn colour(self, ui: &egui::Ui) -> Option<egui::Color32> {
        let dark = ui.visuals().dark_mode;
        match self {
            Tone::Plain => None,
            Tone::Above if dark => Some(egui::Color32::from_rgb(110, 210, 130)),
            Tone::Above => Some(egui::Color32::from_rgb(20, 130, 50)),
            Tone::Below => Some(ui.visuals().error_fg_color),
            Tone::HoldsZero => Some(ui.visuals().weak_text_color()),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct Cell {
    pub text: String,
    pub hover: Option<String>,
    pub tone: Option<Tone>,
}

impl Cell {
    fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            ..Default::default()
        }
    }

    fn hover(mut self, hover: impl Into<String>) -> Cell {
        self.hover = Some(hover.into());
        self
    }
}

/// A table row: the Time-LLM baseline's, then the ranked configurations'.
pub(super) enum Subject<'s, 'a> {
    Baseline,
    Row(&'s Standing<'a>),
}

/// What the table shows, built before it is drawn.
pub(super) struct Model<'s, 'a> {
    sweep: &'a Sweep,
    by: RankBy,
    ranked: Option<Answer>,
    pub columns: Vec<Column>,
    pub rows: Vec<Subject<'s, 'a>>,
}

impl<'s, 'a> Model<'s, 'a> {
    pub fn new(sweep: &'a Sweep, standings: &'s Standings<'a>) -> Self {
        let by = standings.by;
        let ranked = Answer::of_ranking(by);
        let mut columns = vec![Column::Rank, Column::Configuration];
        if ranked.is_none() {
            columns.push(Column::Ranked);
        }
        columns.extend([
            Column::Figure(Answer::Score),
            Column::Tie,
            Column::Gain,
            Column::Figure(Answer::Beyond),
            Column::Figure(Answer::Forecast),
            Column::TestRank,
            Column::Test,
        ]);
        let rows = std::iter::once(Subject::Baseline)
            .chain(
                standings
                    .rows
                    .iter()
                    .filter(|st| st.rank.is_some())
                    .map(Subject::Row),
            )
            .collect();
        Model {
            sweep,
            by,
            ranked,
            columns,
            rows,
        }
    }

    /// The gain column's figure: the ranked answer's, or the score's when a feature's
    /// mean or a pair is ranked.
    fn gain_answer(&self) -> Answer {
        self.ranked.unwrap_or(Answer::Score)
    }

    pub fn title(&self, c: Column) -> String {
        // Two lines: the narrow figure columns keep to the width of what they hold.
        let ci = |a: Answer, one_line: &str, two_lines: &str| {
            if self.ranked == Some(a) {
                format!("{one_line}\n[95% CI]")
            } else {
                two_lines.to_string()
            }
        };
        match c {
            Column::Rank => "#".into(),
            Column::Configuration => "wavelet\nlevel".into(),
            Column::Ranked => self.by.name().replace(' ', "\n"),
            Column::Figure(a @ Answer::Score) => ci(a, "val bits", "val\nbits"),
            Column::Figure(a @ Answer::Beyond) => ci(a, "beyond series", "beyond\nseries"),
            Column::Figure(a @ Answer::Forecast) => ci(a, "MSE cut %", "MSE\ncut %"),
            Column::Tie => "=".into(),
            Column::Gain => "gain\nvs TL".into(),
            Column::TestRank => "test\n#".into(),
            Column::Test => "test".into(),
        }
    }

    pub fn title_hover(&self, c: Column) -> String {
        match c {
            Column::Rank => "its place by the val ranking".into(),
            Column::Configuration => "wavelet and level; click a row to load it, right-click to export its configuration".into(),
            Column::Ranked => format!("val {}: what is ranked", self.by.name()),
            Column::Figure(Answer::Score) => "val score: bits the claims tell about the horizon above a null of circular shifts".into(),
            Column::Figure(Answer::Beyond) => "val bits beyond the series-only forecaster, above their null: what the claims tell that the series does not".into(),
            Column::Figure(Answer::Forecast) => "val forecast gain: how much the claims lower the MSE of a forecaster that reads only the series, in % (docs/score.md#forecast-gain-beyond-the-series)".into(),
            Column::Tie => "tied with the best: the interval of their difference contains 0".into(),
            Column::Gain => format!(
                "gain over the Time-LLM baseline (its trend word alone) in {}, {}: green where its 95% interval is above 0, red below, grey where it holds 0; hover a cell for its interval",
                self.gain_answer().unit(),
                match self.gain_answer() {
                    Answer::Score => "val score",
                    Answer::Beyond => "bits beyond the series",
                    Answer::Forecast => "forecast gain",
                }
            ),
            Column::TestRank => "its place by the same quantity on test: whether val's choice holds".into(),
            Column::Test => format!("{} on test", self.by.name()),
        }
    }

    pub fn cell(&self, c: Column, subject: &Subject<'_, '_>) -> Cell {
        let sw = self.sweep;
        let base = &sw.baseline;
        match (c, subject) {
            (Column::Rank, Subject::Baseline) => Cell::default(),
            (Column::Rank, Subject::Row(st)) => {
                Cell::text(st.rank.map_or("–".into(), |k| k.to_string()))
            }
            (Column::Configuration, Subject::Baseline) => Cell::text("Time-LLM").hover(
                "the Time-LLM baseline (template timellm): its trend word alone, the same for every wavelet; each row's gain is measured from it",
            ),
            (Column::Configuration, Subject::Row(st)) => configuration_cell(st),
            (Column::Ranked, Subject::Baseline) => Cell::default(),
            (Column::Ranked, Subject::Row(st)) => Cell::text(format!("{:.3}", self.by.of(st.row))),
            (Column::Figure(a), subject) => self.figure_cell(a, subject),
            (Column::Tie, Subject::Row(st)) if st.tied => Cell::text("="),
            (Column::Tie, _) => Cell::default(),
            (Column::Gain, Subject::Baseline) => Cell::default(),
            (Column::Gain, Subject::Row(st)) => self.gain_cell(st),
            (Column::TestRank, Subject::Baseline) => Cell::default(),
            (Column::TestRank, Subject::Row(st)) => Cell::text(
                st.test_rank.map_or("–".into(), |k| k.to_string()),
            )
            .hover(format!(
                "{} on test: {:.4}",
                self.by.name(),
                self.by.on_test(st.row)
            )),
            (Column::Test, Subject::Baseline) => match self.ranked {
                Some(a) => {
                    let (value, _) = a.of(&base.test);
                    Cell::text(estimate_text(a, value))
                }
                None => Cell::default(),
            },
            (Column::Test, Subject::Row(st)) => {
                let value = self.by.on_test(st.row);
                Cell::text(match self.ranked {
                    Some(Answer::Forecast) => format!("{:.2}", 100.0 * value),
                    _ => format!("{value:.3}"),
                })
            }
        }
    }

    /// A figure's cell: its value with its interval where the table is ranked by it (or
    /// it has none), else its estimate, the interval on hover (and the forecast's MSEs).
    fn figure_cell(&self, a: Answer, subject: &Subject<'_, '_>) -> Cell {
        let sw = self.sweep;
        let base = &sw.baseline;
        let evaluation = match subject {
            Subject::Baseline => &base.val,
            Subject::Row(st) => &st.row.val,
        };
        let (value, interval) = a.of(evaluation);
        let interval = sw.shown(Part::Val, interval);
        let text = figure_text(a, value, interval);
        if self.ranked == Some(a) || value.is_nan() {
            Cell::text(text)
        } else {
            let cell = Cell::text(estimate_text(a, value)).hover(format!("val: {text}"));
            match (a, subject) {
                (Answer::Forecast, Subject::Row(st)) => cell.hover(forecast_text(
                    sw,
                    st.row.val.forecast.as_ref(),
                    st.row.test.forecast.as_ref(),
                )),
                (Answer::Forecast, Subject::Baseline) => cell.hover(forecast_text(
                    sw,
                    base.val.forecast.as_ref(),
                    base.test.forecast.as_ref(),
                )),
                _ => cell,
            }
        }
    }

    /// A row's gain over the Time-LLM baseline in the ranked answer's units, toned by
    /// whether its interval is above, across or below 0.
    fn gain_cell(&self, st: &Standing<'_>) -> Cell {
        let a = self.gain_answer();
        let (value, interval) = a.gain(st);
        if value.is_nan() {
            return Cell::text("—").hover("the sweep has no forecast gain");
        }
        let digits = a.digits();
        Cell {
            text: format!("{value:+.digits$}"),
            hover: Some(format!(
                "over the Time-LLM baseline: {} {}",
                crate::app::views::interval_text(value, interval),
                a.unit()
            )),
            tone: Some(Tone::of(interval)),
        }
    }
}

/// A row's configuration: its short label ("(degenerate)" where its approximation band is),
/// its full label, aliases and gains on hover.
fn configuration_cell(st: &Standing<'_>) -> Cell {
    let mut label = st.short_label();
    if st.covers.is_empty() && st.row.degenerate() {
        label.push_str(" (degenerate)");
    }
    let gains = format!(
        "gain over the Time-LLM baseline: {} bits; beyond the series: {}; forecast gain over it: {} points of MSE",
        crate::app::views::interval_text(st.gain, st.gain_interval),
        crate::app::views::interval_text(st.complementary_gain, st.complementary_gain_interval),
        crate::app::views::interval_text(
            100.0 * st.forecast_gain,
            st.forecast_gain_interval.map(|v| 100.0 * v)
        ),
    );
    let hover = if st.row.aliases.is_empty() {
        format!("{}; {gains}", st.label_full())
    } else {
        format!(
            "{}, same filters as {}; {gains}",
            st.label_full(),
            st.row.aliases.join(", ")
        )
    };
    Cell::text(label).hover(hover)
}

/// A figure at its column's precision, "—" where the sweep has none.
fn estimate_text(a: Answer, value: f64) -> String {
    if value.is_nan() {
        return "—".into();
    }
    let d = a.digits();
    format!("{value:.d$}")
}

/// A figure at its column's precision with its interval (`[—]` where withheld).
fn figure_text(a: Answer, value: f64, interval: [f64; 2]) -> String {
    let estimate = estimate_text(a, value);
    if value.is_nan() {
        return estimate;
    }
    let d = a.digits();
    match interval {
        [lo, hi] if lo.is_finite() && hi.is_finite() => format!("{estimate} [{lo:.d$}, {hi:.d$}]"),
        _ => format!("{estimate} [—]"),
    }
}

/// A forecast gain as a researcher reads it: both parts' MSEs and gains.
fn forecast_text(
    sw: &Sweep,
    val: Option<&wavebench_core::score::ForecastGain>,
    test: Option<&wavebench_core::score::ForecastGain>,
) -> String {
    let part = |p: Part, g: Option<&wavebench_core::score::ForecastGain>| match g {
        Some(g) => format!(
            "{}: MSE {:.4} to {:.4}, gain {} %",
            p.name(),
            g.mse_series,
            g.mse_with_claims,
            figure_text(
                Answer::Forecast,
                100.0 * g.gain,
                sw.shown(p, g.interval).map(|v| 100.0 * v)
            ),
        ),
        None => format!("{}: not measured", p.name()),
    };
    format!("{}\n{}", part(Part::Val, val), part(Part::Test, test))
}
