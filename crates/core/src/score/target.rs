//! What a horizon did, as classes ([`Target`]), and one value per outcome
//! ([`PerTarget`]).

use super::outcomes;
use serde::Serialize;

/// What a horizon did, as classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Direction,
    NaiveMase,
    VolRatio,
}

/// One value per outcome, indexed by [`Target`] (stored in `Target::ALL`'s order, and
/// written as that list).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct PerTarget<T>(pub [T; 3]);

impl<T> std::ops::Index<Target> for PerTarget<T> {
    type Output = T;
    fn index(&self, t: Target) -> &T {
        &self.0[t as usize]
    }
}

impl<T> std::ops::IndexMut<Target> for PerTarget<T> {
    fn index_mut(&mut self, t: Target) -> &mut T {
        &mut self.0[t as usize]
    }
}

impl<T> PerTarget<T> {
    /// Each outcome's value from `f`.
    pub fn from_fn(mut f: impl FnMut(Target) -> T) -> Self {
        PerTarget(Target::ALL.map(&mut f))
    }
}

crate::names::named! {
    Target, "outcome":
    Direction = "direction",
    NaiveMase = "naive_mase",
    VolRatio = "vol_ratio",
}

impl Target {
    pub fn classes(self) -> &'static [&'static str] {
        match self {
            Target::Direction => &["down", "up"],
            Target::NaiveMase | Target::VolRatio => &outcomes::TERCILE_NAMES,
        }
    }
}
