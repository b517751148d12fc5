//! The checks that make a tuning safe to simulate, one part at a time.

use glam::Vec3;

use super::{
    Boundary, FlockTuning, FlockWeights, Perception, SHORTEST_RESPONSE_TIME, SteeringLimits,
};
use crate::sanitise::{Checker, Correction, Value};

impl FlockTuning {
    /// Returns this tuning made safe to simulate, with one [`Correction`] per value that had to
    /// change: non-finite values, radii that are not positive, a separation radius above the
    /// neighbour radius, a minimum speed above the maximum, an inverted or non-finite box.
    pub fn sanitized(mut self) -> (Self, Vec<Correction>) {
        let mut check = Checker::default();
        self.weights.check(&mut check);
        self.limits.check(&mut check);
        self.perception.check(&mut check);
        self.boundary = self.boundary.checked(&mut check);
        (self, check.corrections)
    }
}

impl FlockWeights {
    /// FlockWeights must be finite (a bad one becomes zero); noise and the wander rate must not be
    /// negative either.
    fn check(&mut self, check: &mut Checker) {
        check.finite("weights.separation", &mut self.separation, 0.0);
        check.finite("weights.alignment", &mut self.alignment, 0.0);
        check.finite("weights.cohesion", &mut self.cohesion, 0.0);
        check.finite("weights.target", &mut self.target, 0.0);
        check.finite(
            "weights.collision_avoidance",
            &mut self.collision_avoidance,
            0.0,
        );
        check.finite("weights.flee", &mut self.flee, 0.0);
        check.non_negative("weights.noise", &mut self.noise, 0.0);
        check.finite("weights.leader", &mut self.leader, 0.0);
        check.finite("weights.flow", &mut self.flow, 0.0);
        check.finite("weights.wander", &mut self.wander, 0.0);
        check.non_negative("weights.wander_rate", &mut self.wander_rate, 0.0);
        check.finite("weights.standoff", &mut self.standoff, 0.0);
    }
}

impl SteeringLimits {
    /// Speeds, the force and the radii must be finite and not negative (a bad one becomes the
    /// default), the min speed at most the max, the response time at least
    /// [`SHORTEST_RESPONSE_TIME`], a turn rate finite and not negative.
    fn check(&mut self, check: &mut Checker) {
        let d = Self::default();
        check.non_negative("limits.max_speed", &mut self.max_speed, d.max_speed);
        check.non_negative("limits.min_speed", &mut self.min_speed, 0.0);
        if self.min_speed > self.max_speed {
            let max = self.max_speed;
            check.fix(
                "limits.min_speed",
                &mut self.min_speed,
                max,
                "must not exceed limits.max_speed",
            );
        }
        check.non_negative("limits.max_force", &mut self.max_force, d.max_force);
        check.positive(
            "limits.response_time",
            &mut self.response_time,
            d.response_time,
        );
        if self.response_time < SHORTEST_RESPONSE_TIME {
            check.fix(
                "limits.response_time",
                &mut self.response_time,
                SHORTEST_RESPONSE_TIME,
                "must be at least 1e-6 seconds",
            );
        }
        check.non_negative("limits.arrival_radius", &mut self.arrival_radius, 0.0);
        check.non_negative(
            "limits.reach_radius",
            &mut self.reach_radius,
            d.reach_radius,
        );
        if let Some(rate) = self.max_turn_rate
            && !(rate.is_finite() && rate >= 0.0)
        {
            check.record(
                "limits.max_turn_rate",
                Value::Scalar(rate),
                Value::None,
                "must be finite and not negative; turning is not limited",
            );
            self.max_turn_rate = None;
        }
    }
}

impl Perception {
    /// The neighbour radius must be positive, the separation radius within it, the field of
    /// view within 0 to 360 degrees, the collision distance and horizon not negative, the
    /// avoidance priority positive.
    fn check(&mut self, check: &mut Checker) {
        let d = Self::default();
        check.positive(
            "perception.neighbour_radius",
            &mut self.neighbour_radius,
            d.neighbour_radius,
        );
        check.non_negative(
            "perception.separation_radius",
            &mut self.separation_radius,
            d.separation_radius.min(self.neighbour_radius),
        );
        if self.separation_radius > self.neighbour_radius {
            let max = self.neighbour_radius;
            check.fix(
                "perception.separation_radius",
                &mut self.separation_radius,
                max,
                "must not exceed perception.neighbour_radius",
            );
        }
        check.finite("perception.field_of_view", &mut self.field_of_view, 360.0);
        if !(0.0..=360.0).contains(&self.field_of_view) {
            let clamped = self.field_of_view.clamp(0.0, 360.0);
            check.fix(
                "perception.field_of_view",
                &mut self.field_of_view,
                clamped,
                "must lie in 0..=360 degrees",
            );
        }
        check.non_negative(
            "perception.collision_distance",
            &mut self.collision_distance,
            d.collision_distance,
        );
        check.non_negative(
            "perception.collision_horizon",
            &mut self.collision_horizon,
            d.collision_horizon,
        );
        check.non_negative("perception.time_gap", &mut self.time_gap, d.time_gap);
        check.positive(
            "perception.avoidance_priority",
            &mut self.avoidance_priority,
            d.avoidance_priority,
        );
    }
}

impl Boundary {
    /// The box must have finite corners (else the boundary is off), `min` below `max` (else
    /// they are swapped) and room on at least two axes (else it is off); walls need a margin
    /// that is not negative and a finite weight.
    fn checked(self, check: &mut Checker) -> Self {
        let (min, max) = match self {
            Boundary::None => return self,
            Boundary::Wrap { min, max } | Boundary::Walls { min, max, .. } => (min, max),
        };
        for (field, corner) in [("boundary.min", min), ("boundary.max", max)] {
            if !corner.is_finite() {
                check.record(
                    field,
                    Value::Vector(corner),
                    Value::None,
                    "must be finite; the boundary is switched off",
                );
                return Boundary::None;
            }
        }
        let (lo, hi) = (min.min(max), min.max(max));
        if lo != min {
            check.record(
                "boundary.min",
                Value::Vector(min),
                Value::Vector(lo),
                "must not exceed boundary.max on any axis; corners swapped",
            );
        }
        if (hi - lo).cmple(Vec3::ZERO).bitmask().count_ones() >= 2 {
            // A line or a point: walls would pin every agent onto it, and a wrap does nothing.
            check.record(
                "boundary.max",
                Value::Vector(max),
                Value::None,
                "must be above boundary.min on at least two axes (a box with room to move in); the boundary is switched off",
            );
            return Boundary::None;
        }
        match self {
            Boundary::Walls {
                mut margin,
                mut weight,
                ..
            } => {
                check.non_negative("boundary.margin", &mut margin, 0.0);
                check.finite("boundary.weight", &mut weight, 0.0);
                Boundary::Walls {
                    min: lo,
                    max: hi,
                    margin,
                    weight,
                }
            }
            _ => Boundary::Wrap { min: lo, max: hi },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_need_no_correction() {
        let (params, corrections) = FlockTuning::default().sanitized();
        assert!(corrections.is_empty(), "{corrections:?}");
        assert_eq!(params, FlockTuning::default());
    }

    #[test]
    fn bad_values_are_replaced_and_named() {
        let mut params = FlockTuning::default();
        params.weights.cohesion = f32::NAN;
        params.limits.min_speed = 9.0;
        params.limits.max_turn_rate = Some(f32::NAN);
        params.perception.neighbour_radius = -1.0;
        params.perception.separation_radius = 6.0;
        params.perception.field_of_view = f32::INFINITY;
        let (fixed, corrections) = params.sanitized();
        let fields: Vec<_> = corrections.iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                "weights.cohesion",
                "limits.min_speed",
                "limits.max_turn_rate",
                "perception.neighbour_radius",
                "perception.separation_radius",
                "perception.field_of_view",
            ]
        );
        assert_eq!(fixed.weights.cohesion, 0.0);
        assert_eq!(fixed.limits.min_speed, fixed.limits.max_speed);
        assert_eq!(fixed.limits.max_turn_rate, None);
        assert_eq!(fixed.perception.neighbour_radius, 4.0);
        assert_eq!(fixed.perception.separation_radius, 4.0);
        assert_eq!(fixed.perception.field_of_view, 360.0);
        assert_eq!(
            corrections[3].to_string(),
            "perception.neighbour_radius = -1 must be positive; using 4"
        );
    }

    #[test]
    fn inverted_box_is_swapped_and_infinite_box_dropped() {
        let mut params = FlockTuning {
            boundary: Boundary::Wrap {
                min: Vec3::splat(5.0),
                max: Vec3::splat(-5.0),
            },
            ..Default::default()
        };
        let (fixed, corrections) = params.sanitized();
        assert_eq!(corrections.len(), 1);
        assert_eq!(
            fixed.boundary,
            Boundary::Wrap {
                min: Vec3::splat(-5.0),
                max: Vec3::splat(5.0)
            }
        );
        params.boundary = Boundary::Wrap {
            min: Vec3::NEG_INFINITY,
            max: Vec3::ONE,
        };
        let (fixed, corrections) = params.sanitized();
        assert_eq!(corrections.len(), 1);
        assert_eq!(fixed.boundary, Boundary::None);
    }
}
