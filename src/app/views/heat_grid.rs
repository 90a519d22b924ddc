//! The one heat-map widget: rows of named cells under a header of column labels, each
//! cell coloured on the maps' scale ([`colour_scale`]), outlined where it is marked, its
//! figure inside where it has one. The sweep's map (wavelets × levels, `heat_map`) and the
//! claims' map (claims × outcomes, `evaluation`) draw through it, each in its [`Style`].

/// The maps' colour for `t` in 0..=1: dark blue (low) to yellow (high).
pub fn colour_scale(t: f32) -> egui::Color32 {
    let t = t.clamp(0.0, 1.0);
    egui::Color32::from_rgb(
        (30.0 + 225.0 * t) as u8,
        (40.0 + 180.0 * t) as u8,
        (110.0 - 70.0 * t) as u8,
    )
}

/// How a map's cells and labels sit.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Between a row's name (right-aligned) and its first cell.
    pub name_gap: f32,
    /// A cell's margin inside its place on the grid: its outline and what it answers to.
    pub margin: f32,
    /// How far the colour stands inside the cell's outline.
    pub inset: f32,
    /// The width of a marked cell's outline.
    pub outline: f32,
    /// The column labels' row.
    pub header_height: f32,
}

impl Style {
    /// Many small cells side by side (the sweep's map): a hairline between colours, a
    /// thick outline to find the marked one.
    pub const PACKED: Style = Style {
        name_gap: 4.0,
        margin: 0.0,
        inset: 0.5,
        outline: 2.0,
        header_height: 14.0,
    };

    /// A few cells that hold their figures (the claims' map): apart, thinly framed.
    pub const FRAMED: Style = Style {
        name_gap: 6.0,
        margin: 1.0,
        inset: 0.0,
        outline: 1.5,
        header_height: 16.0,
    };
}

/// One cell's look.
pub struct Cell {
    pub fill: egui::Color32,
    /// Outlined: the configuration loaded, a scored pair.
    pub marked: bool,
    /// The figure written inside, in black or white as the fill is light or dark.
    pub figure: Option<String>,
}

/// A grid of `columns` cells of size `cell` a row, after a column of names
/// `names_width` wide, labelled in `font`.
pub struct HeatGrid {
    pub names_width: f32,
    pub cell: egui::Vec2,
    pub columns: usize,
    pub font: egui::FontId,
    pub style: Style,
}

impl HeatGrid {
    /// The grid's width: the names and every column.
    pub fn width(&self) -> f32 {
        self.names_width + self.cell.x * self.columns as f32
    }

    /// The column labels across the top, each centred over its column; the header's
    /// response (to show more on hover).
    pub fn header<L: std::fmt::Display>(
        &self,
        ui: &mut egui::Ui,
        labels: impl IntoIterator<Item = L>,
    ) -> egui::Response {
        let (top, header) = ui.allocate_exact_size(
            egui::vec2(self.width(), self.style.header_height),
            egui::Sense::hover(),
        );
        let text = ui.visuals().text_color();
        for (c, label) in labels.into_iter().enumerate() {
            ui.painter().text(
                top.min + egui::vec2(self.names_width + self.cell.x * (c as f32 + 0.5), 0.0),
                egui::Align2::CENTER_TOP,
                label.to_string(),
                self.font.clone(),
                text,
            );
        }
        header
    }

    /// Room for `rows` rows, one under the other.
    pub fn allocate_rows(&self, ui: &mut egui::Ui, rows: usize) -> egui::Rect {
        let (rect, _) = ui.allocate_exact_size(
            egui::vec2(self.width(), self.cell.y * rows as f32),
            egui::Sense::hover(),
        );
        rect
    }

    /// Row `row`'s name, from the grid's `top` left corner, right-aligned against its
    /// cells; `strong` for the row marked.
    pub fn row_name(&self, ui: &egui::Ui, top: egui::Pos2, row: usize, name: &str, strong: bool) {
        let visuals = ui.visuals();
        ui.painter().text(
            top + egui::vec2(
                self.names_width - self.style.name_gap,
                self.cell.y * (row as f32 + 0.5),
            ),
            egui::Align2::RIGHT_CENTER,
            name,
            self.font.clone(),
            if strong {
                visuals.strong_text_color()
            } else {
                visuals.text_color()
            },
        );
    }

    /// Where the cell of `row` and `column` sits, from the grid's `top` left corner.
    pub fn cell_rect(&self, top: egui::Pos2, row: usize, column: usize) -> egui::Rect {
        egui::Rect::from_min_size(
            top + egui::vec2(
                self.names_width + self.cell.x * column as f32,
                self.cell.y * row as f32,
            ),
            self.cell,
        )
        .shrink(self.style.margin)
    }

    /// Paint `cell` at `rect` (from [`HeatGrid::cell_rect`]) and answer to `sense` there
    /// as widget `id`.
    pub fn cell(
        &self,
        ui: &mut egui::Ui,
        rect: egui::Rect,
        id: egui::Id,
        cell: Cell,
        sense: egui::Sense,
    ) -> egui::Response {
        let painter = ui.painter();
        painter.rect_filled(rect.shrink(self.style.inset), 0.0, cell.fill);
        if cell.marked {
            painter.rect_stroke(
                rect,
                0.0,
                egui::Stroke::new(self.style.outline, ui.visuals().strong_text_color()),
                egui::StrokeKind::Inside,
            );
        }
        if let Some(figure) = cell.figure {
            let ink = if cell.fill.r() > 150 {
                egui::Color32::BLACK
            } else {
                egui::Color32::WHITE
            };
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                figure,
                self.font.clone(),
                ink,
            );
        }
        ui.interact(rect, id, sense)
    }
}
