//! Solid shapes agents steer around and never enter: a sphere cast along each agent's heading,
//! a fan search for the nearest clear direction, and a hard boundary in integration.
//!
//! [`ObstacleQuery`] is what avoidance and integration ask of obstacles. [`ObstacleSet`] answers
//! it from built-in [`Shape`]s; a physics backend answers it from its colliders.
//!
//! The built-in casts are exact: a cast ball touches a shape where the ray of its centre meets
//! the shape grown by the ball (a ball, a half-space, a capsule or a rounded box), tested
//! against the shapes binned near the cast. Each shape's signed distance field answers
//! distances and normals, and moves are swept along it (sphere tracing).

mod around;
mod bins;
mod clearance;
mod fan;
mod hull;
mod layered;
mod query;
pub(crate) mod set;
mod settings;
mod shape;
mod sweep;

pub(crate) use clearance::Clearances;
pub(crate) use fan::way_round;
pub use fan::{Avoidance, avoidance_direction};
pub(crate) use layered::Layered;
pub use query::{CastHit, LEAVING_CONTACT, ObstacleQuery};
pub use set::ObstacleSet;
pub use settings::{AvoidanceHold, ObstacleAvoidance};
pub use shape::Shape;
