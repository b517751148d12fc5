//! Engine-agnostic flocking kernel behind `bevy_flock`.
//!
//! Agents live in contiguous buffers inside a [`Crowd`]. A tick runs five stages, each a type
//! of its own module that works on a borrowed view of the buffers, composed by the crowd:
//! neighbour lookup ([`Crowd::build_index`]: a [`UniformGrid`] rebuilt by counting sort, the
//! agents copied into its cell order), force accumulation ([`Crowd::accumulate_forces`]: each
//! agent's neighbours scanned for Reynolds' separation, alignment and cohesion, and its other
//! behaviours added and blended, one file per behaviour family under `rules/`), obstacle
//! avoidance ([`Crowd::avoid_obstacles`]), the velocity-obstacle step (for agents with
//! [`Perception::velocity_obstacles`] on: the velocity the rules ask for replaced by the
//! nearest that keeps clear of the neighbours, van den Berg et al. 2011) and integration
//! (limits on force and speed, never into an obstacle). [`Crowd::integrate`] runs the last two,
//! since the step chooses among the velocities integration works out; [`Crowd::step`] runs all
//! five.
//!
//! Every tuning value ([`FlockWeights`], [`SteeringLimits`], [`Perception`], [`Boundary`], as a
//! whole [`FlockTuning`]) is defined, defaulted and checked once, in `tuning/`. Without
//! features the only dependencies are `glam` and `libm`; the `bevy` feature derives Bevy's
//! `Component`, `Bundle` and `Reflect` on the tuning types (the plugin's components are these
//! types), and `serde` their preset format.
//!
//! ```
//! use flock_core::{AgentInput, FlockTuning, Crowd, Space};
//! use glam::Vec3;
//!
//! let mut crowd = Crowd::new(Space::Volume);
//! let params = crowd.add_params(FlockTuning::default());
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

mod agents;
mod avoidance;
mod crowd;
mod detail;
mod executor;
mod field_of_view;
mod forces;
mod integration;
mod maths;
mod neighbours;
mod obstacles;
mod prefetch;
mod progress;
mod roles;
mod rules;
mod sanitise;
mod simd;
mod space;
mod tuning;
mod velocity_obstacles;

pub use agents::{AgentInput, AgentMemory, ParamsId};
pub use crowd::Crowd;
pub use crowd::admission::NewAgent;
pub use crowd::metrics::Metrics;
pub use detail::LevelOfDetail;
pub use executor::{ChunkExecutor, ScopedThreads, Serial, for_each_part};
pub use glam;
pub use maths::rotated;
pub use neighbours::grid::UniformGrid;
pub use neighbours::nearest::MOST_AGENTS_AVOIDED;
pub use obstacles::{
    Avoidance, AvoidanceHold, CastHit, LEAVING_CONTACT, ObstacleAvoidance, ObstacleQuery,
    ObstacleSet, Shape, avoidance_direction,
};
pub use progress::Progress;
pub use roles::{LONGEST_LEAD, Leader, Threat, lead_time};
pub use sanitise::{Correction, Value};
pub use simd::SimdPath;
pub use space::{FLOOR_SPACING, Space};
pub use tuning::recipes::walking_speed_factor;
pub use tuning::{
    BlendMode, Boundary, FlockTuning, FlockWeights, LARGEST_PARAMETER, Perception, RuleStyle,
    SHORTEST_RESPONSE_TIME, SteeringLimits, VelocityObstacles,
};

#[cfg(test)]
mod tests;
