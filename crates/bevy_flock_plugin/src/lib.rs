//! The Bevy ECS layer of `bevy_flock`: components, [`FlockingPlugins`], their system sets and
//! diagnostics, over the engine-agnostic [`flock_core`] kernel.
//!
//! Most users depend on the `bevy_flock` facade crate instead; its documentation has the
//! guide.

mod agent_order;
pub mod backend;
mod components;
mod config;
mod destination;
pub mod diagnostics;
mod executor;
mod extract;
mod flow;
#[cfg(feature = "bevy_gizmos")]
mod gizmos;
#[cfg(feature = "navmesh")]
mod navmesh;
mod obstacles;
mod plugin;
#[cfg(feature = "presets")]
pub mod presets;
#[cfg(feature = "pathfinding")]
mod requests;
mod roles;
mod schedule;
mod simulation;
#[cfg(feature = "snapshot")]
mod snapshot;
mod speeds;
mod squads;
mod states;
mod step;
#[cfg(feature = "pathfinding")]
mod terrain;
#[cfg(test)]
mod testing;
// Only a navmesh keeps what following measured (the `navmesh` feature).
#[cfg_attr(not(feature = "navmesh"), allow(dead_code))]
mod way_checks;

pub use backend::{BuiltInObstacles, ObstacleBackend, ObstacleBackendAppExt};
pub use components::{
    Agent, AgentId, AgentStuck, DefaultFlock, DetailFocus, Flock, FlockMembers, FollowLeader,
    InFlock, LeaderLost, Obstacle, OnFloor, Predator, SteeringState, Target, TargetReached,
    Velocity,
};
pub use config::{FlockingConfig, FlockingSetup};
pub use destination::{Destination, PathNotFound, PathStatus, PlannedPath};
pub use diagnostics::{FlockDiagnosticsPlugin, FlockMetrics, InputCorrected, ReportedInput};
pub use flow::{FlowField, FlowFieldsPlugin};
#[cfg(feature = "bevy_gizmos")]
pub use gizmos::{FlockGizmos, FlockGizmosPlugin, PerceptionGizmos};
#[cfg(feature = "navmesh")]
pub use navmesh::{FloorJoin, NavFloor, NavMesh, NavMeshError, NavMeshPlanner, NavMeshPlugin};
pub use obstacles::BuiltInObstaclesPlugin;
pub use plugin::{FlockingPlugin, FlockingPlugins};
#[cfg(feature = "presets")]
pub use presets::{FlockPreset, FlockPresetsPlugin, PresetLoadErrors, UsePreset};
pub use schedule::FlockingSystems;
pub use simulation::{FlockSimulation, NearbyAgent};
#[cfg(feature = "snapshot")]
pub use snapshot::{FlockSnapshot, SnapshotError};
pub use speeds::SpeedFactor;
pub use squads::{
    Combatant, Formation, PotentialField, SUPPORT_MARGIN, SquadsPlugin, UNARMED_MARGIN,
};
pub use states::{BehaviourStates, BehaviourStatesPlugin};
#[cfg(feature = "pathfinding")]
pub use terrain::{LARGEST_TERRAIN, PathPlanner, Terrain, TerrainPlugin, TerrainTooLarge};
// The tuning types: defined (with their defaults, checks and docs) once, in the kernel, and
// used here as components.
pub use flock_core::{
    BlendMode, Boundary, FlockTuning, FlockWeights, LevelOfDetail, ObstacleAvoidance, Perception,
    Progress, RuleStyle, SteeringLimits, VelocityObstacles,
};

/// The types most games need: `use bevy_flock_plugin::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Agent, AgentId, AgentStuck, BehaviourStates, BlendMode, Boundary, Combatant, DefaultFlock,
        Destination, DetailFocus, Flock, FlockMetrics, FlockSimulation, FlockTuning, FlockWeights,
        FlockingConfig, FlockingPlugins, FlockingSetup, FlockingSystems, FlowField, FollowLeader,
        Formation, InFlock, LeaderLost, LevelOfDetail, NearbyAgent, Obstacle, ObstacleAvoidance,
        OnFloor, Perception, PotentialField, Predator, RuleStyle, SpeedFactor, SquadsPlugin,
        SteeringLimits, Target, TargetReached, Velocity, VelocityObstacles,
    };
    #[cfg(feature = "bevy_gizmos")]
    pub use crate::{FlockGizmos, FlockGizmosPlugin, PerceptionGizmos};
    #[cfg(feature = "presets")]
    pub use crate::{FlockPreset, FlockPresetsPlugin, UsePreset};
    #[cfg(feature = "navmesh")]
    pub use crate::{FloorJoin, NavFloor, NavMesh, NavMeshPlugin};
    #[cfg(feature = "pathfinding")]
    pub use crate::{Terrain, TerrainPlugin};
}
