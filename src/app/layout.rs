//! The dashboard's panes and their arrangement (egui_tiles, as in Rerun's viewer): the
//! default fits every view on one 1400×900 screen; panes can be dragged, resized, closed
//! and reopened, and the arrangement is saved with the session.

use egui_tiles::{Container, Tile, TileId, Tiles, Tree};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pane {
    /// The whole channel on its time axis (saved layouts from before call it Overview).
    #[serde(alias = "Overview")]
    Series,
    Bands,
    Energy,
    Prompt,
    Features,
    Timing,
    Compare,
    Sweep,
    DataSet,
}

impl Pane {
    pub const ALL: [Pane; 9] = [
        Pane::Series,
        Pane::Bands,
        Pane::Energy,
        Pane::Prompt,
        Pane::Features,
        Pane::Timing,
        Pane::Compare,
        Pane::Sweep,
        Pane::DataSet,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Series => "Series",
            Pane::Bands => "Bands",
            Pane::Energy => "Energy, trends, stds",
            Pane::Prompt => "Prompt",
            Pane::Features => "Features",
            Pane::Timing => "Timing",
            Pane::Compare => "Compare",
            Pane::Sweep => "Sweep",
            Pane::DataSet => "Data set",
        }
    }
}

pub type Layout = Tree<Pane>;

/// Series across the top; below, bands (with compare and sweep as tabs behind them),
/// energy over features, prompt over timing.
pub fn default_layout() -> Layout {
    let mut tiles = Tiles::default();
    let mut pane = |p| tiles.insert_pane(p);
    let (overview, bands, compare, sweep, dataset) = (
        pane(Pane::Series),
        pane(Pane::Bands),
        pane(Pane::Compare),
        pane(Pane::Sweep),
        pane(Pane::DataSet),
    );
    let (energy, features, prompt, timing) = (
        pane(Pane::Energy),
        pane(Pane::Features),
        pane(Pane::Prompt),
        pane(Pane::Timing),
    );
    let band_tabs = tiles.insert_tab_tile(vec![bands, compare, sweep, dataset]);
    let overview_tab = tiles.insert_tab_tile(vec![overview]);
    let tab = |tiles: &mut Tiles<Pane>, id| tiles.insert_tab_tile(vec![id]);
    let (energy, features, prompt, timing) = (
        tab(&mut tiles, energy),
        tab(&mut tiles, features),
        tab(&mut tiles, prompt),
        tab(&mut tiles, timing),
    );
    let middle = tiles.insert_vertical_tile(vec![energy, features]);
    let right = tiles.insert_vertical_tile(vec![prompt, timing]);
    let lower = tiles.insert_horizontal_tile(vec![band_tabs, middle, right]);
    let root = tiles.insert_vertical_tile(vec![overview_tab, lower]);
    share(&mut tiles, root, &[(overview_tab, 1.0), (lower, 3.6)]);
    share(
        &mut tiles,
        lower,
        &[(band_tabs, 1.45), (middle, 1.0), (right, 1.0)],
    );
    share(&mut tiles, middle, &[(energy, 1.0), (features, 1.05)]);
    share(&mut tiles, right, &[(prompt, 1.0), (timing, 1.45)]);
    Tree::new(egui::Id::unique("dashboard"), root, tiles)
}

fn share(tiles: &mut Tiles<Pane>, container: TileId, shares: &[(TileId, f32)]) {
    if let Some(Tile::Container(Container::Linear(l))) = tiles.get_mut(container) {
        for &(id, s) in shares {
            l.shares.set_share(id, s);
        }
    }
}

pub fn is_open(layout: &Layout, pane: Pane) -> bool {
    layout.tiles.find_pane(&pane).is_some()
}

/// Close an open pane, or reopen a closed one (added beside the others at the top level).
pub fn toggle(layout: &mut Layout, pane: Pane) {
    if let Some(id) = layout.tiles.find_pane(&pane) {
        layout.remove_recursively(id);
        return;
    }
    let id = layout.tiles.insert_pane(pane);
    let id = layout.tiles.insert_tab_tile(vec![id]);
    match layout.root() {
        Some(root) => match layout.tiles.get_mut(root) {
            Some(Tile::Container(c)) => c.add_child(id),
            _ => {
                let new_root = layout.tiles.insert_vertical_tile(vec![root, id]);
                layout.root = Some(new_root);
            }
        },
        None => layout.root = Some(id),
    }
}

/// Make `pane` the visible tab of its tab group (opening it if closed).
pub fn focus(layout: &mut Layout, pane: Pane) {
    if !is_open(layout, pane) {
        toggle(layout, pane);
    }
    if let Some(id) = layout.tiles.find_pane(&pane) {
        if let Some(parent) = layout.tiles.parent_of(id) {
            if let Some(Tile::Container(Container::Tabs(t))) = layout.tiles.get_mut(parent) {
                t.set_active(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_layout_saved_before_the_series_pane_was_named_so_still_opens() {
        let old: super::Pane = ron::from_str("Overview").unwrap();
        assert_eq!(old, super::Pane::Series);
        assert_eq!(ron::to_string(&super::Pane::Series).unwrap(), "Series");
    }
    use super::*;

    #[test]
    fn every_pane_is_in_the_default_layout_and_toggles() {
        let mut l = default_layout();
        for p in Pane::ALL {
            assert!(is_open(&l, p), "{p:?}");
        }
        toggle(&mut l, Pane::Timing);
        assert!(!is_open(&l, Pane::Timing));
        toggle(&mut l, Pane::Timing);
        assert!(is_open(&l, Pane::Timing));
        let json = serde_json::to_string(&l).unwrap();
        let back: Layout = serde_json::from_str(&json).unwrap();
        assert!(Pane::ALL.iter().all(|&p| is_open(&back, p)));
    }
}
