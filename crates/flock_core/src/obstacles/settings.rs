//! [`ObstacleAvoidance`]: how agents look ahead for obstacles, and the direction they hold.

use glam::Vec3;

#[cfg(feature = "bevy")]
use bevy_reflect::std_traits::ReflectDefault;

use crate::sanitise::{Checker, Correction};

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
    /// Radius of the ball cast ahead of each agent: how much room it keeps. An agent casts a
    /// ball at least a quarter wider than its body (half its
    /// [`collision_distance`](crate::Perception::collision_distance)), so that it turns
    /// before its body touches and never heads for a gap its body cannot pass.
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
