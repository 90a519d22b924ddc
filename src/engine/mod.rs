//! The libtorch engines and the choice between them and the core's native one: they live
//! here because only this crate links libtorch. The engine trait, the native engine, plans
//! and inverse transforms are `wavebench_core::engine`.

pub mod torch;

use wavebench_core::engine::{EngineKind, Native, Selected};

/// Build the engine for `kind`. `auto` is CUDA when it is usable and native otherwise,
/// silently: that is what it asks for. An explicit `torch-cuda` that cannot run falls back
/// to native with a notice instead of failing.
pub fn select(kind: EngineKind) -> Selected {
    match kind {
        EngineKind::Native => Selected {
            engine: Box::new(Native),
            notice: None,
        },
        EngineKind::TorchCpu => Selected {
            engine: Box::new(torch::Torch::cpu()),
            notice: None,
        },
        EngineKind::Auto => match torch::Torch::cuda() {
            Some(t) => Selected {
                engine: Box::new(t),
                notice: None,
            },
            None => Selected {
                engine: Box::new(Native),
                notice: None,
            },
        },
        EngineKind::TorchCuda => match torch::Torch::cuda() {
            Some(t) => Selected {
                engine: Box::new(t),
                notice: None,
            },
            None => Selected {
                engine: Box::new(Native),
                notice: Some(
                    "torch-cuda unavailable (no CUDA device visible to libtorch); using the native CPU engine"
                        .into(),
                ),
            },
        },
    }
}
