//! Engine-agnostic flocking kernel behind `bevy_flock`.
//!
//! Agents live in contiguous buffers inside a [`Crowd`]. Each tick the crowd rebuilds a
//! [`UniformGrid`] by counting sort, scans each agent's neighbouring cells for Reynolds'
//! separation, alignment and cohesion, adds target seeking and walls, and integrates with limits
//! on force and speed. Nothing here knows about Bevy; the only dependencies are `glam` and
//! `libm`.
//!
//! ```
//! use flock_core::{AgentInput, AgentParams, Crowd, Space};
//! use glam::Vec3;
//!
//! let mut crowd = Crowd::new(Space::Volume);
//! let params = crowd.add_params(AgentParams::default());
//! for i in 0..10 {
//!     crowd.push(AgentInput {
//!         position: Vec3::new(i as f32, 0.0, 0.0),
//!         velocity: Vec3::X,
//!         heading: Vec3::X,
//!         flock: 0,
//!         params,
//!         target: None,
//!     });
//! }
//! crowd.step(1.0 / 60.0);
//! assert!(crowd.metrics().polarisation > 0.99);
//! ```

mod crowd;
mod executor;
mod grid;
mod lanes;
mod obstacles;
mod params;

pub use crowd::{
    AgentInput, Crowd, LONGEST_LEAD, Leader, LevelOfDetail, ParamsId, Predator, lead_time,
};
pub use executor::{ChunkExecutor, ScopedThreads, Serial};
pub use glam;
pub use grid::UniformGrid;
pub use obstacles::{
    Avoidance, AvoidanceHold, AvoidanceParams, CastHit, LEAVING_CONTACT, ObstacleQuery,
    ObstacleSet, Shape, avoidance_direction,
};
pub use params::{
    AgentParams, Blending, Boundary, Correction, LARGEST_PARAMETER, Limits, Perception,
    SHORTEST_RESPONSE_TIME, SteeringStyle, Value, Weights,
};

/// The space agents move in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Space {
    /// Full 3D.
    #[default]
    Volume,
    /// The XY plane: z of positions, velocities and forces is kept at zero, and the grid scans
    /// one layer of cells instead of a block.
    Planar,
}

/// Figures that describe the state of a crowd.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Number of agents.
    pub agents: usize,
    /// Order parameter: the length of the sum of unit headings divided by the agent count.
    /// 1 when all agents head the same way, about `1 / sqrt(N)` for random headings.
    pub polarisation: f32,
    /// Mean number of agents within each agent's neighbour radius and field of view.
    pub mean_neighbours: f32,
    /// Mean distance to the nearest neighbour, over agents that have one.
    pub mean_nearest_distance: Option<f32>,
    /// Smallest distance between an agent and its nearest neighbour.
    pub min_nearest_distance: Option<f32>,
}

#[cfg(test)]
mod tests;
