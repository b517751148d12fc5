//! Tuning values of one agent or flock, and the checks that make them safe to simulate.

use glam::Vec3;

use crate::neighbours::lanes::FieldOfView;
use crate::sanitise::{Checker, Correction, Value};

/// How separation, alignment and cohesion become steering forces.
///
/// With `p`, `v` the agent's position and velocity, `p_j`, `v_j` its neighbours', `d_j` the
/// distance to neighbour `j`, and the means taken over its flock-mates in view:
///
/// | rule | [`Vector`](Self::Vector) | [`DesiredVelocity`](Self::DesiredVelocity): direction `u` |
/// |---|---|---|
/// | separation | `sum (p - p_j) / d_j^2` | `sum unit(p - p_j) / d_j^2` |
/// | alignment | `mean(v_j) - v` | `mean(v_j)` |
/// | cohesion | `mean(p_j) - p` | `mean(p_j) - p` |
///
/// Every rule's force is limited to [`Limits::max_force`] and then weighted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SteeringStyle {
    /// The rule's vector is the force itself (Reynolds 1987 as usually coded, e.g. in Unity
    /// tutorials): separation grows as `1 / distance`, cohesion with the distance to the
    /// centroid. Suits metre-scale worlds.
    #[default]
    Vector,
    /// Reynolds' (1999) steering: each rule picks a direction `u`, the desired velocity is
    /// `unit(u) * max_speed`, and the force is `(desired - velocity) / response_time` (see
    /// [`Limits::response_time`]). Separation weighs each neighbour by the inverse square of
    /// its distance. Independent of the world's scale, so it suits pixel-scale 2D games; with a
    /// response time of one frame it is the flocking lab's model.
    DesiredVelocity,
}

/// How an agent's behaviours share its max force.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Blending {
    /// Urgent needs (fleeing, a predicted collision) are served first; the other behaviours
    /// are weighted, summed, and the sum is cut to what the urgent needs leave of the max
    /// force. Every behaviour always counts a little, so none is ever starved, but under a
    /// tight budget a strong pull (a target, cohesion) dilutes separation.
    #[default]
    WeightedSum,
    /// Reynolds' prioritised acceleration allocation: in the order flee, sidestep,
    /// separation, walls, leader, target, flow, alignment, cohesion, wander, each weighted
    /// behaviour takes what it needs from what is left of the max force, until none is left.
    /// Under a tight budget the urgent ones win and the later ones go without.
    Prioritised,
    /// Each behaviour is limited to the max force on its own, weighted, and the weighted
    /// forces are added with no limit on the sum, so `n` behaviours can reach the sum of their
    /// weights times the max force. The flocking lab's blending (each rule's velocity change
    /// cut, then weighted and added).
    RuleLimitsOnly,
}

/// Weights of the steering behaviours, and how they are blended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Push away from agents inside the separation radius (any flock).
    pub separation: f32,
    /// Match the mean velocity of flock-mates in view.
    pub alignment: f32,
    /// Move toward the centroid of flock-mates in view.
    pub cohesion: f32,
    /// Seek the agent's target, slowing inside the arrival radius.
    pub target: f32,
    /// Sidestep agents (of any flock) on a collision course: the most imminent collision
    /// predicted within [`Perception::collision_horizon`] turns the agent across its heading,
    /// away from where the other will be (to its right when they meet exactly head on), with up
    /// to this many times its max force, served before the other rules.
    ///
    /// Zero (the default) switches the prediction off. It costs about a fifth of the force
    /// pass, so it is for agents that cross each other's paths (crowds, creatures, squads);
    /// a flock that aligns rarely needs it, since separation keeps its members apart.
    pub collision_avoidance: f32,
    /// Flee every predator (see [`Crowd::set_predators`](crate::Crowd::set_predators)) within
    /// its radius: a desired velocity straight away from them at max speed (the nearer one
    /// counting more), with up to this many times the max force, served before the flocking
    /// rules.
    pub flee: f32,
    /// Vicsek's angular noise η, in radians per tick (so it depends on the timestep, as in
    /// Vicsek's discrete model): every tick the velocity turns by a random angle up to η / 2
    /// either way (on the plane; in 3D, about a random axis across it). Seeded (see
    /// [`Crowd::set_seed`](crate::Crowd::set_seed)), so runs repeat. With alignment alone and
    /// a constant speed (`min_speed` equal to `max_speed`) this is Vicsek's model. Zero: none.
    pub noise: f32,
    /// Follow the agent's leader (see [`Crowd::set_leader`](crate::Crowd::set_leader)): keep
    /// station [`Leader::distance`](crate::Leader) behind it, matching its velocity, and step
    /// sideways out of the path ahead of it.
    pub leader: f32,
    /// Steer along the flow a game feeds each agent (a flow field, a path; see
    /// [`Crowd::set_flow`](crate::Crowd::set_flow)).
    pub flow: f32,
    /// Wander (Reynolds): steer toward a point that drifts at random round a sphere (a circle,
    /// on the plane) ahead of the agent, so its heading changes smoothly and at random.
    /// Seeded like the noise.
    pub wander: f32,
    /// How fast the wander point drifts, in radians per square root of a second (a random
    /// walk: after `t` seconds it has moved about `wander_rate * sqrt(t)` round the sphere).
    pub wander_rate: f32,
    /// How each rule's vector becomes a force.
    pub style: SteeringStyle,
    /// How the behaviours share the max force.
    pub blending: Blending,
}

impl Default for Weights {
    /// The Unity tutorial's weights: separation 1.8, alignment 1.0, cohesion 0.9, target 0.6;
    /// collision avoidance off; flee 1; no noise; leader 1, flow 1; no wander (rate 2);
    /// weighted sum.
    fn default() -> Self {
        Self {
            separation: 1.8,
            alignment: 1.0,
            cohesion: 0.9,
            target: 0.6,
            collision_avoidance: 0.0,
            flee: 1.0,
            noise: 0.0,
            leader: 1.0,
            flow: 1.0,
            wander: 0.0,
            wander_rate: 2.0,
            style: SteeringStyle::Vector,
            blending: Blending::WeightedSum,
        }
    }
}

/// Limits on speed and steering force.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Highest speed, in world units per second.
    pub max_speed: f32,
    /// Lowest speed; agents that must keep moving (birds, the lab's boids) set it above zero.
    pub min_speed: f32,
    /// Largest steering force (acceleration), per rule and (unless the blending is
    /// [`Blending::RuleLimitsOnly`]) for the sum.
    pub max_force: f32,
    /// Seconds in which a behaviour that steers toward a desired velocity asks to reach it:
    /// its force is `(desired - velocity) / response_time`, up to the max force. This holds for
    /// seek and arrive, flee and evade, wander, flows, the leader's station, and separation,
    /// alignment and cohesion in the [`SteeringStyle::DesiredVelocity`] style. One second (the
    /// default) treats the velocity change as an acceleration, as most game tutorials do;
    /// Reynolds' vehicles (1999) and the flocking lab change velocity by the whole (limited)
    /// steering every step, which is a response time of one tick. At least `1e-6`.
    pub response_time: f32,
    /// Distance from the target inside which the agent slows down; zero seeks at full speed.
    pub arrival_radius: f32,
    /// Fastest the agent's heading turns, in degrees per second, or `None` to turn at once.
    /// With a limit the heading drives the motion, like a creature that turns at a limited
    /// rotation speed (`examples/creatures_2d`): the steering picks where to go, the heading turns toward it at most this fast, and the agent moves along
    /// its heading. Only a surface it slides along turns it faster.
    pub max_turn_rate: Option<f32>,
    /// Within this distance of its target the agent has reached it (see
    /// [`Crowd::has_reached_target`](crate::Crowd::has_reached_target)).
    pub reach_radius: f32,
}

impl Default for Limits {
    /// Max speed 5, min speed 0, max force 8 (the Unity tutorial), response time 1 s, arrival
    /// radius 3, turning at once, reach radius 0.5.
    fn default() -> Self {
        Self {
            max_speed: 5.0,
            min_speed: 0.0,
            max_force: 8.0,
            response_time: 1.0,
            arrival_radius: 3.0,
            max_turn_rate: None,
            reach_radius: 0.5,
        }
    }
}

/// What an agent can see.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Perception {
    /// Agents within this distance are neighbours.
    pub neighbour_radius: f32,
    /// Agents within this distance push each other apart; at most `neighbour_radius`.
    pub separation_radius: f32,
    /// Field of view in degrees, centred on the heading: 360 sees all around, 270 ignores the
    /// 90-degree cone behind.
    pub field_of_view: f32,
    /// At most this many neighbours count, the nearest ones. When more are in range, the
    /// agent's neighbour radius shrinks to 0.85, 0.7 or 0.6 of itself, the largest that holds
    /// no more than this many (so a dense flock counts fewer, all nearer than the rest, at the
    /// cost of the usual scan); where even 0.6 holds too many, exactly this many nearest are
    /// picked. To bound that work when agents pile up, the scan stops after four times this
    /// many candidates in range (at least 64) and keeps the nearest of those. `None` counts
    /// every neighbour.
    pub max_neighbours: Option<u32>,
    /// Two agents whose centres come closer than this collide (twice the agents' radius):
    /// see [`Weights::collision_avoidance`].
    pub collision_distance: f32,
    /// How many seconds ahead collisions with neighbours are predicted, each assuming the
    /// other keeps its velocity. Only neighbours are predicted, so the neighbour radius also
    /// bounds how early an agent reacts.
    pub collision_horizon: f32,
    /// Whether the agent counts itself among the flock-mates whose mean velocity and centroid
    /// alignment and cohesion steer toward, as Vicsek et al. (1995) average "the particle and
    /// its neighbours". Off by default (Reynolds' boids average their neighbours only).
    pub counts_itself: bool,
}

impl Default for Perception {
    /// Neighbour radius 4, separation radius 1.2, full 360-degree view, at most 64 neighbours;
    /// collisions at 0.7 (two agents of the obstacle cast radius, 0.35) predicted 1.5 s ahead.
    fn default() -> Self {
        Self {
            neighbour_radius: 4.0,
            separation_radius: 1.2,
            field_of_view: 360.0,
            max_neighbours: Some(64),
            collision_distance: 0.7,
            collision_horizon: 1.5,
            counts_itself: false,
        }
    }
}

/// What happens at the edge of the world. The box may be flat on one axis (the plane's Z, a
/// layer of ground units); one flat on two or more axes is a line or a point, and is switched
/// off with a [`Correction`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Boundary {
    /// Unbounded.
    #[default]
    None,
    /// Leaving one face of the box re-enters through the opposite face.
    Wrap {
        /// Lowest corner.
        min: Vec3,
        /// Highest corner.
        max: Vec3,
    },
    /// Within `margin` of a face a force pushes inward, growing with depth; the faces themselves
    /// are hard and reflect the velocity.
    Walls {
        /// Lowest corner.
        min: Vec3,
        /// Highest corner.
        max: Vec3,
        /// Width of the band inside each face where the inward force acts.
        margin: f32,
        /// Strength of the inward force, as a multiple of `max_force` at full depth.
        weight: f32,
    },
}

/// Everything that tunes one agent: what a flock shares and an agent may override.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AgentParams {
    /// Rule weights.
    pub weights: Weights,
    /// Speed and force limits.
    pub limits: Limits,
    /// Radii and field of view.
    pub perception: Perception,
    /// World edge behaviour.
    pub boundary: Boundary,
}

/// The largest magnitude a parameter may have: limits and radii are squared (a speed limit of
/// 1e20 would square to infinity and never limit anything), and weights multiply forces.
pub const LARGEST_PARAMETER: f32 = 1e15;

/// The shortest [`Limits::response_time`]: a desired-velocity force is the velocity change
/// over the response time, and shorter ones would overflow it.
pub const SHORTEST_RESPONSE_TIME: f32 = 1e-6;

impl AgentParams {
    /// Vicsek et al.'s (1995) self-propelled particles, with noise `eta` (radians, 0 to
    /// `2 * PI`) for a crowd stepped every `tick` seconds: every tick each agent takes the mean
    /// heading of itself and the agents within radius 1, turns by a random angle up to `eta / 2`
    /// either way, and moves 0.03 at constant speed (the paper's figure 2: `r = 1`,
    /// `v = 0.03`). That is alignment alone in the desired-velocity style, counting itself, with
    /// a response time of one tick, a max force that allows any turn, and no neighbour cap.
    /// Add a wrap-around [`Boundary`] for the paper's periodic box; set the radius and speed
    /// to taste. A non-positive or non-finite `tick` is taken as one second.
    pub fn vicsek(eta: f32, tick: f32) -> Self {
        let tick = if tick.is_finite() && tick > 0.0 {
            tick
        } else {
            1.0
        };
        let speed = 0.03 / tick;
        Self {
            weights: Weights {
                separation: 0.0,
                alignment: 1.0,
                cohesion: 0.0,
                noise: eta,
                style: SteeringStyle::DesiredVelocity,
                ..Weights::default()
            },
            limits: Limits {
                max_speed: speed,
                min_speed: speed,
                // Reversing needs a velocity change of twice the speed within one tick.
                max_force: 4.0 * speed / tick,
                response_time: tick,
                ..Limits::default()
            },
            perception: Perception {
                neighbour_radius: 1.0,
                separation_radius: 0.0,
                max_neighbours: None,
                counts_itself: true,
                ..Perception::default()
            },
            boundary: Boundary::None,
        }
    }

    /// Returns these parameters made safe to simulate, with one [`Correction`] per value that had
    /// to change: non-finite values, radii that are not positive, a separation radius above the
    /// neighbour radius, a minimum speed above the maximum, an inverted or non-finite box.
    pub fn sanitized(mut self) -> (Self, Vec<Correction>) {
        let mut check = Checker::default();
        let defaults = Self::default();

        let w = &mut self.weights;
        check.finite("weights.separation", &mut w.separation, 0.0);
        check.finite("weights.alignment", &mut w.alignment, 0.0);
        check.finite("weights.cohesion", &mut w.cohesion, 0.0);
        check.finite("weights.target", &mut w.target, 0.0);
        check.finite(
            "weights.collision_avoidance",
            &mut w.collision_avoidance,
            0.0,
        );
        check.finite("weights.flee", &mut w.flee, 0.0);
        check.non_negative("weights.noise", &mut w.noise, 0.0);
        check.finite("weights.leader", &mut w.leader, 0.0);
        check.finite("weights.flow", &mut w.flow, 0.0);
        check.finite("weights.wander", &mut w.wander, 0.0);
        check.non_negative("weights.wander_rate", &mut w.wander_rate, 0.0);

        let l = &mut self.limits;
        let d = defaults.limits;
        check.non_negative("limits.max_speed", &mut l.max_speed, d.max_speed);
        check.non_negative("limits.min_speed", &mut l.min_speed, 0.0);
        if l.min_speed > l.max_speed {
            let max = l.max_speed;
            check.fix(
                "limits.min_speed",
                &mut l.min_speed,
                max,
                "must not exceed limits.max_speed",
            );
        }
        check.non_negative("limits.max_force", &mut l.max_force, d.max_force);
        check.positive(
            "limits.response_time",
            &mut l.response_time,
            d.response_time,
        );
        if l.response_time < SHORTEST_RESPONSE_TIME {
            check.fix(
                "limits.response_time",
                &mut l.response_time,
                SHORTEST_RESPONSE_TIME,
                "must be at least 1e-6 seconds",
            );
        }
        check.non_negative("limits.arrival_radius", &mut l.arrival_radius, 0.0);
        check.non_negative("limits.reach_radius", &mut l.reach_radius, d.reach_radius);
        if let Some(rate) = l.max_turn_rate
            && !(rate.is_finite() && rate >= 0.0)
        {
            check.record(
                "limits.max_turn_rate",
                Value::Scalar(rate),
                Value::None,
                "must be finite and not negative; turning is not limited",
            );
            l.max_turn_rate = None;
        }

        let p = &mut self.perception;
        let d = defaults.perception;
        check.positive(
            "perception.neighbour_radius",
            &mut p.neighbour_radius,
            d.neighbour_radius,
        );
        check.non_negative(
            "perception.separation_radius",
            &mut p.separation_radius,
            d.separation_radius.min(p.neighbour_radius),
        );
        if p.separation_radius > p.neighbour_radius {
            let max = p.neighbour_radius;
            check.fix(
                "perception.separation_radius",
                &mut p.separation_radius,
                max,
                "must not exceed perception.neighbour_radius",
            );
        }
        check.finite("perception.field_of_view", &mut p.field_of_view, 360.0);
        if !(0.0..=360.0).contains(&p.field_of_view) {
            let clamped = p.field_of_view.clamp(0.0, 360.0);
            check.fix(
                "perception.field_of_view",
                &mut p.field_of_view,
                clamped,
                "must lie in 0..=360 degrees",
            );
        }

        check.non_negative(
            "perception.collision_distance",
            &mut p.collision_distance,
            d.collision_distance,
        );
        check.non_negative(
            "perception.collision_horizon",
            &mut p.collision_horizon,
            d.collision_horizon,
        );

        self.boundary = sanitized_boundary(self.boundary, &mut check);
        (self, check.corrections)
    }
}

fn sanitized_boundary(boundary: Boundary, check: &mut Checker) -> Boundary {
    let (min, max) = match boundary {
        Boundary::None => return boundary,
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
    let size = hi - lo;
    if size.cmple(Vec3::ZERO).bitmask().count_ones() >= 2 {
        // A line or a point: walls would pin every agent onto it, and a wrap does nothing.
        check.record(
            "boundary.max",
            Value::Vector(max),
            Value::None,
            "must be above boundary.min on at least two axes (a box with room to move in); the boundary is switched off",
        );
        return Boundary::None;
    }
    match boundary {
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

/// Parameters with the derived values the hot loop needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prepared {
    pub(crate) params: AgentParams,
    pub(crate) neighbour_radius_sq: f32,
    pub(crate) separation_radius_sq: f32,
    /// The field of view, or `None` for a full 360-degree view.
    pub(crate) view: Option<FieldOfView>,
    /// Whether collisions are predicted (a weight, a distance and a horizon).
    pub(crate) predicts: bool,
    /// Whether separation falls off as the inverse square of the distance (the
    /// desired-velocity style) rather than its inverse.
    pub(crate) unit_separation: bool,
}

impl Prepared {
    pub(crate) fn new(params: AgentParams) -> Self {
        let (params, _) = params.sanitized();
        let p = params.perception;
        Self {
            params,
            neighbour_radius_sq: p.neighbour_radius * p.neighbour_radius,
            separation_radius_sq: p.separation_radius * p.separation_radius,
            view: FieldOfView::new(p.field_of_view),
            predicts: params.weights.collision_avoidance != 0.0
                && p.collision_distance > 0.0
                && p.collision_horizon > 0.0,
            unit_separation: params.weights.style == SteeringStyle::DesiredVelocity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_need_no_correction() {
        let (params, corrections) = AgentParams::default().sanitized();
        assert!(corrections.is_empty(), "{corrections:?}");
        assert_eq!(params, AgentParams::default());
    }

    #[test]
    fn bad_values_are_replaced_and_named() {
        let mut params = AgentParams::default();
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
        let mut params = AgentParams {
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
