//! The fan search: the clear direction nearest the heading for an agent blocked ahead.

use glam::Vec3;

use super::query::{CastHit, ObstacleQuery};
use super::settings::ObstacleAvoidance;
use crate::maths::{rotated, rotation};
use crate::space::Space;

/// Directions tried on each side of the heading in the fan search.
const FAN_STEPS: usize = 10;

/// Which way an agent blocked ahead should go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Avoidance {
    /// The clear direction of the fan nearest to the heading.
    Clear(Vec3),
    /// No direction of the fan is clear: away from the obstacle ahead, along its normal.
    Back(Vec3),
}

impl Avoidance {
    /// The unit direction to steer along.
    pub fn direction(self) -> Vec3 {
        match self {
            Avoidance::Clear(dir) | Avoidance::Back(dir) => dir,
        }
    }
}

/// Where an agent at `p` heading along unit `heading` should steer, or `None` when straight
/// ahead is clear for `look_ahead`. Searches a fan of directions turning away from the obstacle
/// ahead (on the plane: in the plane), nearest to the heading first, and takes the first clear
/// one; if none is, the obstacle's normal.
pub fn avoidance_direction(
    obstacles: &(impl ObstacleQuery + ?Sized),
    p: Vec3,
    heading: Vec3,
    look_ahead: f32,
    params: &ObstacleAvoidance,
    space: Space,
) -> Option<Avoidance> {
    let hit = obstacles.cast(p, heading, look_ahead, params.cast_radius)?;
    Some(way_round(
        obstacles, p, heading, hit, look_ahead, params, space,
    ))
}

/// The fan search of [`avoidance_direction`] once the cast ahead has `hit`.
pub(crate) fn way_round(
    obstacles: &(impl ObstacleQuery + ?Sized),
    p: Vec3,
    heading: Vec3,
    hit: CastHit,
    look_ahead: f32,
    params: &ObstacleAvoidance,
    space: Space,
) -> Avoidance {
    let r = params.cast_radius;
    let normal = match space {
        Space::Volume => hit.normal,
        Space::Planar => hit.normal.with_z(0.0),
    }
    .try_normalize()
    .unwrap_or(-heading);
    // Turn toward the side the normal leans to: the axis of rotation is heading x normal
    // (on the plane, z), with its sign chosen so that the first turn goes that way.
    let axis = match space {
        Space::Planar => Vec3::Z * heading.cross(normal).z.signum().max(-1.0),
        Space::Volume => heading
            .cross(normal)
            .try_normalize()
            .or_else(|| heading.any_orthonormal_vector().try_normalize())
            .unwrap_or(Vec3::Y),
    };
    let axis = if axis == Vec3::ZERO { Vec3::Z } else { axis };
    let step = params.fan_degrees.to_radians() / FAN_STEPS as f32;
    for k in 1..=FAN_STEPS {
        for side in [1.0, -1.0] {
            let dir = rotated(rotation(axis, side * step * k as f32), heading);
            if obstacles.is_clear(p, dir, look_ahead, r) {
                return Avoidance::Clear(dir);
            }
        }
    }
    Avoidance::Back(normal)
}
