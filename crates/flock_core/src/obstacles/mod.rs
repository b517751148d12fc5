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

pub(crate) mod set;
mod shape;

use glam::Vec3;

#[cfg(feature = "bevy")]
use bevy_reflect::std_traits::ReflectDefault;

pub use set::ObstacleSet;
pub use shape::Shape;

use crate::Space;
use crate::maths::rotation;
use crate::sanitise::{Checker, Correction};

/// Directions tried on each side of the heading in the fan search.
const FAN_STEPS: usize = 10;

/// How agents look ahead for obstacles, by a sphere cast: a ball of `cast_radius` cast along
/// the heading as far as a look-ahead that grows with speed, from `min_look_ahead` at rest to
/// `max_look_ahead` at max speed; when it hits, the agent turns to the nearest clear direction
/// within `fan_degrees` either side of its heading, and keeps it for `hold_seconds` while it
/// stays clear. In the plugin, one for every flock, in its `FlockingConfig`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy_reflect::Reflect))]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct ObstacleAvoidance {
    /// Radius of the ball cast ahead of each agent: how much room it keeps.
    pub cast_radius: f32,
    /// Look-ahead at rest; it grows linearly with speed...
    pub min_look_ahead: f32,
    /// ...to this at max speed.
    pub max_look_ahead: f32,
    /// Half the angle of the fan searched for a clear direction, in degrees (at most 180).
    pub fan_degrees: f32,
    /// Seconds an agent keeps a chosen avoidance direction while it stays clear, even once
    /// straight ahead is clear again, so that it commits to a detour instead of wavering
    /// between the obstacle and its target; the hold starts again for as long as the way to
    /// its target stays blocked, so that it follows a wall to its end. Zero: no hold.
    pub hold_seconds: f32,
}

/// An avoidance direction an agent keeps for a while (see [`ObstacleAvoidance::hold_seconds`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceHold {
    /// The unit direction kept.
    pub direction: Vec3,
    /// Seconds it is still kept.
    pub seconds_left: f32,
}

impl Default for ObstacleAvoidance {
    /// Cast radius 0.35, look-ahead 1.5 to 5, a fan of up to 150 degrees either side, and
    /// a hold of 0.5 s (the cooldown the creatures of `examples/creatures_2d` keep a detour for).
    fn default() -> Self {
        Self {
            cast_radius: 0.35,
            min_look_ahead: 1.5,
            max_look_ahead: 5.0,
            fan_degrees: 150.0,
            hold_seconds: 0.5,
        }
    }
}

impl ObstacleAvoidance {
    /// Returns these parameters made safe, with one [`Correction`] per value that had to
    /// change, as [`FlockTuning::sanitized`](crate::FlockTuning::sanitized) does: non-finite or
    /// negative values become the defaults, magnitudes are capped at
    /// [`LARGEST_PARAMETER`](crate::LARGEST_PARAMETER), the look-ahead at max speed is at least
    /// the one at rest, and the fan is at most 180 degrees wide on each side.
    pub fn sanitized(mut self) -> (Self, Vec<Correction>) {
        let mut check = Checker::default();
        let d = Self::default();
        check.non_negative(
            "avoidance.cast_radius",
            &mut self.cast_radius,
            d.cast_radius,
        );
        check.non_negative(
            "avoidance.min_look_ahead",
            &mut self.min_look_ahead,
            d.min_look_ahead,
        );
        check.non_negative(
            "avoidance.max_look_ahead",
            &mut self.max_look_ahead,
            d.max_look_ahead,
        );
        if self.max_look_ahead < self.min_look_ahead {
            let min = self.min_look_ahead;
            check.fix(
                "avoidance.max_look_ahead",
                &mut self.max_look_ahead,
                min,
                "must not be below avoidance.min_look_ahead",
            );
        }
        check.non_negative(
            "avoidance.hold_seconds",
            &mut self.hold_seconds,
            d.hold_seconds,
        );
        check.non_negative(
            "avoidance.fan_degrees",
            &mut self.fan_degrees,
            d.fan_degrees,
        );
        if self.fan_degrees > 180.0 {
            check.fix(
                "avoidance.fan_degrees",
                &mut self.fan_degrees,
                180.0,
                "must be at most 180 degrees",
            );
        }
        (self, check.corrections)
    }
}

/// Where a cast first touched an obstacle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit {
    /// How far the cast travelled before touching.
    pub distance: f32,
    /// Unit normal of the surface touched, pointing out of the obstacle.
    pub normal: Vec3,
}

/// What obstacle avoidance and integration ask of a set of obstacles: a ball cast ahead, and a
/// move that never ends inside one. [`ObstacleSet`] implements it for built-in shapes; physics
/// backends implement it over their colliders.
pub trait ObstacleQuery: Sync {
    /// Whether there is nothing to avoid: the avoidance pass and the integration sweep skip
    /// their work then.
    fn is_empty(&self) -> bool;

    /// Casts a ball of `radius` from `origin` along unit `dir` for `length`: the first contact,
    /// or `None` when the way is clear. A ball that starts touching an obstacle hits at 0.
    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit>;

    /// Whether the way is clear for a ball, as for [`cast`](Self::cast) finding nothing,
    /// except that a ball that starts in contact with a surface is not stopped by it while it
    /// leaves it at least [`LEAVING_CONTACT`] steeply: the fan search and a held direction ask
    /// for ways out, where the cast ahead asks whether the agent is too close.
    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool;

    /// Moves `from -> to` but never into an obstacle: the motion stops just outside the first
    /// surface it crosses (so a fast agent cannot tunnel through a thin wall), and a point
    /// already inside is pushed out. Returns the allowed point and the outward normal of the
    /// surface it was stopped by, if any.
    fn constrain(&self, from: Vec3, to: Vec3) -> (Vec3, Option<Vec3>);
}

/// How steeply (the sine of the angle to the surface) a ball that starts in contact must
/// leave it for [`ObstacleQuery::is_clear`] to let it go.
pub const LEAVING_CONTACT: f32 = 0.5;

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

impl<T: ObstacleQuery + ?Sized> ObstacleQuery for &T {
    fn is_empty(&self) -> bool {
        (**self).is_empty()
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        (**self).cast(origin, dir, length, radius)
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        (**self).is_clear(origin, dir, length, radius)
    }

    fn constrain(&self, from: Vec3, to: Vec3) -> (Vec3, Option<Vec3>) {
        (**self).constrain(from, to)
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
            let dir = rotation(axis, side * step * k as f32) * heading;
            if obstacles.is_clear(p, dir, look_ahead, r) {
                return Avoidance::Clear(dir);
            }
        }
    }
    Avoidance::Back(normal)
}

/// The crowd's own obstacles (the set, or the part of it [`around`](Layered::around) one
/// agent) and, if any, a backend's: a cast hits the nearer of the two, and a move is
/// constrained by each in turn.
pub(crate) struct Layered<'a, Own = &'a ObstacleSet> {
    own: Option<Own>,
    other: Option<&'a dyn ObstacleQuery>,
}

impl<'a> Layered<'a> {
    pub(crate) fn new(own: &'a ObstacleSet, other: Option<&'a dyn ObstacleQuery>) -> Self {
        Self {
            own: (!own.is_empty()).then_some(own),
            other: other.filter(|other| !other.is_empty()),
        }
    }

    /// The same obstacles for the casts of a ball of up to `radius` from `origin`, no farther
    /// than `length`: the own set's shapes that such a cast may touch are gathered once (see
    /// [`ObstacleSet::around`]), with the same answers.
    pub(crate) fn around(
        &self,
        origin: Vec3,
        length: f32,
        radius: f32,
    ) -> Layered<'a, set::Around<'a>> {
        Layered {
            own: self.own.map(|own| own.around(origin, length, radius)),
            other: self.other,
        }
    }
}

impl<Own: ObstacleQuery> ObstacleQuery for Layered<'_, Own> {
    fn is_empty(&self) -> bool {
        self.own.is_none() && self.other.is_none()
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        let own = self
            .own
            .as_ref()
            .and_then(|o| o.cast(origin, dir, length, radius));
        // Past the own hit nothing matters: cast the other only that far.
        let length = own.map_or(length, |hit| hit.distance);
        let other = self.other.and_then(|o| o.cast(origin, dir, length, radius));
        match (own, other) {
            (Some(a), Some(b)) => Some(if b.distance < a.distance { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        self.own
            .as_ref()
            .is_none_or(|o| o.is_clear(origin, dir, length, radius))
            && self
                .other
                .is_none_or(|o| o.is_clear(origin, dir, length, radius))
    }

    fn constrain(&self, from: Vec3, to: Vec3) -> (Vec3, Option<Vec3>) {
        let (mut end, mut normal) = (to, None);
        if let Some(own) = &self.own {
            (end, normal) = own.constrain(from, end);
        }
        if let Some(other) = self.other {
            let (allowed, stopped) = other.constrain(from, end);
            end = allowed;
            normal = stopped.or(normal);
        }
        (end, normal)
    }
}
