//! The current window's inspection: the newest request, for the settings it was asked
//! for, the result shown, and whether the worker is still on a request the view waits for.

use super::latest::Latest;
use super::state::Settings;
use wavebench_core::pipeline::Inspection;

#[derive(Default)]
pub(super) struct Window {
    /// The newest inspection of the current window, for the settings it was asked for.
    pub latest: Latest<Settings>,
    /// The inspection shown (None while the settings give none).
    pub result: Option<Box<Inspection>>,
    /// A load or this window's inspection is in flight (the spinner).
    pub busy: bool,
}
