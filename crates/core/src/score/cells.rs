//! A unit's cells: per outcome, its class and the forecaster's predicted class of it as
//! one number, which every count of the score (observed, null, bootstrap) tallies.

/// A unit's cells, one per outcome, stacked: the outcome's class and the forecaster's
/// predicted class of it as one cell, `offset + class · k + predicted` (k classes):
/// direction in 0..4, naive_mase in 4..13, vol_ratio in 13..22.
pub const CELLS: usize = 4 + 9 + 9;

/// Where each outcome's cells start.
pub const OFFSET: [usize; 3] = [0, 4, 13];

/// A unit's three cells, from its outcome classes and the forecaster's predicted classes.
pub fn cells(outcome: [u8; 3], predicted: [u8; 3]) -> [u8; 3] {
    [
        outcome[0] * 2 + predicted[0],
        OFFSET[1] as u8 + outcome[1] * 3 + predicted[1],
        OFFSET[2] as u8 + outcome[2] * 3 + predicted[2],
    ]
}

/// The classes each outcome's forecaster predicted, back from a unit's [`cells`].
pub const CLASSES: [u8; 3] = [2, 3, 3];

/// The forecaster's predicted classes, from a unit's cells (what [`cells`] was given).
pub fn predicted(cells: &[u8; 3]) -> [u8; 3] {
    std::array::from_fn(|t| (cells[t] - OFFSET[t] as u8) % CLASSES[t])
}

/// A unit's three cells as one code, `d · 81 + m · 9 + v` (`d`, `m`, `v` its cells within
/// each outcome's range): a table over codes counts a unit with one increment, not three.
pub const CODES: usize = 4 * 9 * 9;

/// [`CODES`]' code of a unit's cells.
pub fn code(cells: &[u8; 3]) -> u16 {
    let [d, m, v] = [0, 1, 2].map(|t| u16::from(cells[t]) - OFFSET[t] as u16);
    d * 81 + m * 9 + v
}
