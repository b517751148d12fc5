//! The Bevy ECS layer of `bevy_flock`: components, [`FlockingPlugin`], its system sets and
//! diagnostics, over the engine-agnostic [`flock_core`] kernel.
//!
//! Most users depend on the `bevy_flock` facade crate instead; its documentation has the
//! guide.

pub mod backend;
mod components;
pub mod diagnostics;
mod flow;
#[cfg(feature = "bevy_gizmos")]
mod gizmos;
mod plugin;
#[cfg(feature = "presets")]
pub mod presets;
mod simulation;
mod squads;
mod states;
mod terrain;

pub use backend::{BuiltInObstacles, ObstacleBackend, ObstacleBackendAppExt};
pub use components::{
    Agent, DetailFocus, Flock, FlockMembers, FollowLeader, InFlock, LeaderLost, Obstacle, Predator,
    SteeringState, Target, TargetReached, Velocity,
};
pub use diagnostics::{FlockMetrics, InputCorrected, ReportedInput};
pub use flow::FlowField;
#[cfg(feature = "bevy_gizmos")]
pub use gizmos::{FlockGizmos, FlockGizmosPlugin, PerceptionGizmos};
pub use plugin::{DefaultFlock, FlockingConfig, FlockingPlugin, FlockingSystems};
#[cfg(feature = "presets")]
pub use presets::{FlockPreset, FlockPresetsPlugin, PresetLoadErrors, UsePreset};
pub use simulation::{FlockSimulation, NearbyAgent};
pub use squads::{Combatant, Formation, PotentialField, SUPPORT_MARGIN, UNARMED_MARGIN};
pub use states::BehaviourStates;
pub use terrain::{Destination, LARGEST_TERRAIN, PlannedPath, Terrain, TerrainTooLarge};
// The tuning types: defined (with their defaults, checks and docs) once, in the kernel, and
// used here as components.
pub use flock_core::{
    BlendMode, Boundary, FlockTuning, FlockWeights, LevelOfDetail, ObstacleAvoidance, Perception,
    RuleStyle, SteeringLimits,
};

/// The types most games need: `use bevy_flock_plugin::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Agent, BehaviourStates, BlendMode, Boundary, Combatant, DefaultFlock, Destination,
        DetailFocus, Flock, FlockMetrics, FlockSimulation, FlockTuning, FlockWeights,
        FlockingConfig, FlockingPlugin, FlockingSystems, FlowField, FollowLeader, Formation,
        InFlock, LeaderLost, LevelOfDetail, NearbyAgent, Obstacle, ObstacleAvoidance, Perception,
        Predator, RuleStyle, SteeringLimits, Target, TargetReached, Terrain, Velocity,
    };
    #[cfg(feature = "bevy_gizmos")]
    pub use crate::{FlockGizmos, FlockGizmosPlugin, PerceptionGizmos};
    #[cfg(feature = "presets")]
    pub use crate::{FlockPreset, FlockPresetsPlugin, UsePreset};
}
