//! The Bevy ECS layer of `bevy_flock`: components, [`FlockingPlugin`], its system sets and
//! diagnostics, over the engine-agnostic [`flock_core`] kernel.
//!
//! Most users depend on the `bevy_flock` facade crate instead; its documentation has the
//! guide.

pub mod backend;
mod components;
pub mod diagnostics;
#[cfg(feature = "bevy_gizmos")]
mod gizmos;
mod plugin;
#[cfg(feature = "presets")]
pub mod presets;
mod simulation;
mod tuning;

pub use backend::{BuiltInObstacles, ObstacleBackend, ObstacleBackendAppExt};
pub use components::{
    Agent, Flock, FlockMembers, InFlock, Obstacle, Predator, SteeringState, Target, Velocity,
};
pub use diagnostics::{FlockMetrics, InputCorrected};
#[cfg(feature = "bevy_gizmos")]
pub use gizmos::{FlockGizmos, FlockGizmosPlugin, PerceptionGizmos};
pub use plugin::{DefaultFlock, FlockingConfig, FlockingPlugin, FlockingSystems};
#[cfg(feature = "presets")]
pub use presets::{FlockPreset, FlockPresetsPlugin, PresetLoadErrors, UsePreset};
pub use simulation::{FlockSimulation, NearbyAgent};
pub use tuning::{
    Boundary, FlockTuning, FlockWeights, ObstacleAvoidance, Perception, RuleStyle, SteeringLimits,
};

/// The types most games need: `use bevy_flock_plugin::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Agent, Boundary, DefaultFlock, Flock, FlockMetrics, FlockSimulation, FlockTuning,
        FlockWeights, FlockingConfig, FlockingPlugin, FlockingSystems, InFlock, NearbyAgent,
        Obstacle, ObstacleAvoidance, Perception, Predator, RuleStyle, SteeringLimits, Target,
        Velocity,
    };
    #[cfg(feature = "bevy_gizmos")]
    pub use crate::{FlockGizmos, FlockGizmosPlugin, PerceptionGizmos};
    #[cfg(feature = "presets")]
    pub use crate::{FlockPreset, FlockPresetsPlugin, UsePreset};
}
