//! Per-flock tuning components, overridable per agent, and presets.

use bevy::prelude::*;
use flock_core::{AgentParams, AvoidanceParams, Blending, Limits, SteeringStyle, Weights};

/// How agents look ahead for [`Obstacle`](crate::Obstacle)s, by a sphere cast: a ball
/// of `cast_radius` cast along the heading as far as a look-ahead that grows with speed, from
/// `min_look_ahead` at rest to `max_look_ahead` at max speed; when it hits, the agent turns to
/// the nearest clear direction within `fan_degrees` either side of its heading, and keeps it
/// for `hold_seconds` while it stays clear.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
#[reflect(Default, Debug, Clone, PartialEq)]
pub struct ObstacleAvoidance {
    /// Radius of the cast ball: how much room an agent keeps.
    pub cast_radius: f32,
    /// Look-ahead at rest.
    pub min_look_ahead: f32,
    /// Look-ahead at max speed.
    pub max_look_ahead: f32,
    /// Half the width of the fan searched for a clear direction, in degrees (at most 180).
    pub fan_degrees: f32,
    /// Seconds a chosen direction is kept while it stays clear, so that agents commit to a
    /// detour rather than waver between an obstacle and their target (0.5 by default, as
    /// `examples/creatures_2d` shows; zero keeps none). It starts again while the way to the target stays blocked,
    /// so that agents follow a wall to its end.
    pub hold_seconds: f32,
}

impl Default for ObstacleAvoidance {
    /// Cast radius 0.35, look-ahead 1.5 to 5, a fan of 150 degrees either side, a hold of 0.5 s.
    fn default() -> Self {
        let d = AvoidanceParams::default();
        Self {
            cast_radius: d.cast_radius,
            min_look_ahead: d.min_look_ahead,
            max_look_ahead: d.max_look_ahead,
            fan_degrees: d.fan_degrees,
            hold_seconds: d.hold_seconds,
        }
    }
}

impl From<ObstacleAvoidance> for AvoidanceParams {
    fn from(a: ObstacleAvoidance) -> Self {
        Self {
            cast_radius: a.cast_radius,
            min_look_ahead: a.min_look_ahead,
            max_look_ahead: a.max_look_ahead,
            fan_degrees: a.fan_degrees,
            hold_seconds: a.hold_seconds,
        }
    }
}

/// How separation, alignment and cohesion become steering forces. See
/// [`flock_core::SteeringStyle`] for the formulas.
#[derive(Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[reflect(Default, Debug, Clone, PartialEq)]
pub enum RuleStyle {
    /// The rule's vector is the force (Reynolds 1987 as usually coded; metre-scale worlds).
    #[default]
    Vector,
    /// Each rule picks a direction; its force is `(direction * max_speed - velocity) /
    /// response_time` (Reynolds 1999; scale-free, the flocking lab's model).
    DesiredVelocity,
}

/// How an agent's behaviours share its max force. See [`flock_core::Blending`].
#[derive(Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[reflect(Default, Debug, Clone, PartialEq)]
pub enum BlendMode {
    /// Fleeing and sidestepping first; the other behaviours weighted and summed into what is
    /// left. Every behaviour always counts a little.
    #[default]
    WeightedSum,
    /// Reynolds' prioritised allocation: flee, sidestep, separation, walls, leader, target,
    /// flow, alignment, cohesion, wander, each taking what it needs of what is left of the
    /// max force. Under a tight budget the urgent ones win.
    Prioritised,
    /// Each behaviour limited to the max force on its own, weighted, and added with no limit
    /// on the sum (the flocking lab's blending).
    RuleLimitsOnly,
}

/// [`FlockWeights::standoff`] by default: enough to hold a unit within 2% of its standoff
/// distance against a seek at full force.
const DEFAULT_STANDOFF: f32 = 3.0;

/// Weights of the steering rules. On a [`Flock`](crate::Flock) entity they tune the flock; on
/// an [`Agent`](crate::Agent) they override its flock's weights for that agent.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct FlockWeights {
    /// Push away from any agent inside the separation radius.
    pub separation: f32,
    /// Match flock-mates' mean velocity.
    pub alignment: f32,
    /// Move toward flock-mates' centroid.
    pub cohesion: f32,
    /// Seek the [`Target`](crate::Target).
    pub target: f32,
    /// Sidestep agents on a collision course, predicted [`Perception::collision_horizon`]
    /// ahead: turn across the heading away from where the other will be (right when meeting
    /// head on), with up to this many times max force, before the other rules. Zero (the
    /// default) is off: prediction costs about a fifth of the force pass, worth it for agents
    /// that cross paths (crowds, creatures, squads), rarely for a flock that aligns.
    pub collision_avoidance: f32,
    /// Run from every [`Predator`](crate::Predator) within its radius, with up to this many
    /// times max force, before the other rules.
    pub flee: f32,
    /// Vicsek's angular noise η in radians per tick: each tick the velocity turns by a random
    /// angle up to η / 2 either way, seeded by [`FlockingConfig::seed`](crate::FlockingConfig). With
    /// alignment alone and `min_speed` equal to `max_speed`, Vicsek's model. Zero: none.
    pub noise: f32,
    /// Follow the agent's [`FollowLeader`](crate::FollowLeader): keep station behind the
    /// leader, matching its velocity, and step out of the path ahead of it.
    pub leader: f32,
    /// Steer along the flock's [`FlowField`](crate::FlowField), or the flow game code feeds
    /// with [`FlockSimulation::set_flow`](crate::FlockSimulation::set_flow).
    pub flow: f32,
    /// Wander: smooth random changes of heading (Reynolds), seeded by
    /// [`FlockingConfig::seed`](crate::FlockingConfig).
    pub wander: f32,
    /// How fast the wander point drifts, in radians per square root of a second.
    pub wander_rate: f32,
    /// Keep a [`Combatant`](crate::Combatant)'s standoff distance from enemy units, as RTS units hold their weapon's range:
    /// back off from any nearer than it, up to this many times max force. Worked out by the
    /// plugin from the combatants' teams and weapons.
    pub standoff: f32,
    /// How rule vectors become forces.
    pub style: RuleStyle,
    /// How the behaviours share the max force.
    pub blending: BlendMode,
}

impl Default for FlockWeights {
    /// Separation 1.8, alignment 1.0, cohesion 0.9, target 0.6, collision avoidance off,
    /// flee 1, no noise, leader 1, flow 1, no wander (rate 2), standoff 3, weighted sum.
    fn default() -> Self {
        Weights::default().into()
    }
}

/// Speed and force limits. On a flock they tune the flock; on an agent they override it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct SteeringLimits {
    /// Highest speed (units per second).
    pub max_speed: f32,
    /// Lowest speed; above zero, agents never stop.
    pub min_speed: f32,
    /// Largest steering acceleration, per rule and (unless the blending is
    /// [`BlendMode::RuleLimitsOnly`]) in total.
    pub max_force: f32,
    /// Seconds in which a behaviour that steers toward a desired velocity asks to reach it:
    /// its force is `(desired - velocity) / response_time`, up to the max force. One second
    /// by default; one tick gives Reynolds' per-step vehicles and the flocking lab. See
    /// [`flock_core::Limits::response_time`].
    pub response_time: f32,
    /// Inside this distance of its target an agent slows down; zero seeks at full speed.
    ///
    /// Inside the radius the approach behaves like a damped spring with damping ratio
    /// `0.5 * sqrt(weight * arrival_radius / max_speed)` (`weight` is `FlockWeights::target`):
    /// below 1 the agent overshoots a little and settles; the defaults give 0.3.
    pub arrival_radius: f32,
    /// Fastest the heading turns, in degrees per second (`None`: at once). With a limit the
    /// heading drives the motion, as for the creatures of `examples/creatures_2d`: steering
    /// picks the way, the
    /// heading turns toward it at most this fast, and the agent moves along its heading.
    pub max_turn_rate: Option<f32>,
    /// Within this distance of its [`Target`](crate::Target) an agent has reached it: it gets a
    /// [`TargetReached`](crate::TargetReached) event.
    pub reach_radius: f32,
}

impl Default for SteeringLimits {
    /// Max speed 5, min speed 0, max force 8, response time 1 s, arrival radius 3, turning at
    /// once, reach radius 0.5.
    fn default() -> Self {
        Limits::default().into()
    }
}

/// What an agent sees. On a flock it tunes the flock; on an agent it overrides it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct Perception {
    /// Agents within this distance are neighbours.
    pub neighbour_radius: f32,
    /// Agents within this distance push apart; at most the neighbour radius.
    pub separation_radius: f32,
    /// Field of view in degrees around the heading: 360 sees all, 270 ignores the 90 behind.
    pub field_of_view: f32,
    /// At most this many neighbours count, the nearest. When more are in range, the agent's
    /// neighbour radius shrinks to 0.85, 0.7 or 0.6 of itself, the largest that holds no more
    /// than this many; where even 0.6 holds too many, exactly this many nearest are picked,
    /// and the scan stops after four times this many candidates in range (at least 64), which
    /// bounds the work per agent. `None` counts every neighbour.
    pub max_neighbours: Option<u32>,
    /// Agents whose centres come closer than this collide (twice an agent's radius).
    pub collision_distance: f32,
    /// Seconds ahead that collisions with neighbours are predicted.
    pub collision_horizon: f32,
    /// Whether an agent counts itself among the flock-mates it aligns and coheres with, as in
    /// Vicsek et al.'s (1995) model. Off by default.
    pub counts_itself: bool,
}

impl Default for Perception {
    /// Neighbour radius 4, separation radius 1.2, 360 degrees, at most 64 neighbours,
    /// collisions at 0.7 predicted 1.5 s ahead.
    fn default() -> Self {
        flock_core::Perception::default().into()
    }
}

/// The edge of the world. On a flock it applies to the flock; on an agent it overrides it.
/// The box may be flat on one axis (Z on the plane); one flat on two or more axes is a line
/// or a point, and is switched off and reported.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub enum Boundary {
    /// No edge.
    #[default]
    None,
    /// Leaving through one face of the box re-enters through the opposite one.
    Wrap {
        /// Lowest corner.
        min: Vec3,
        /// Highest corner.
        max: Vec3,
    },
    /// Inside `margin` of a face, a force pushes inward (`weight` x max force at full depth);
    /// the faces are hard and reflect the velocity.
    Walls {
        /// Lowest corner.
        min: Vec3,
        /// Highest corner.
        max: Vec3,
        /// Width of the band where the inward force acts.
        margin: f32,
        /// Strength of the inward force.
        weight: f32,
    },
}

impl Boundary {
    /// Walls around the box `min..max` with a push band of `margin` and weight 2.
    pub fn walls(min: Vec3, max: Vec3, margin: f32) -> Self {
        Self::Walls {
            min,
            max,
            margin,
            weight: 2.0,
        }
    }
}

/// A flock's whole tuning as one bundle: spawn it with [`Flock`](crate::Flock), or insert it
/// on a flock to apply a preset.
#[derive(Bundle, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
#[reflect(Default, Debug, Clone, PartialEq)]
pub struct FlockTuning {
    /// Rule weights.
    pub weights: FlockWeights,
    /// Speed and force limits.
    pub limits: SteeringLimits,
    /// Radii and field of view.
    pub perception: Perception,
    /// World edge.
    pub boundary: Boundary,
}

impl FlockTuning {
    /// The flocking lab's birds (`examples/flocking_lab`), Reynolds' boids on a 900 x 560 field
    /// centred on the origin, wrapping round, on the XY plane: vision radius 50, separation
    /// radius 20, max speed 180 and min speed 60 (a third), every neighbour counted. Each rule
    /// asks for the velocity change to its desired velocity (separation away from neighbours
    /// by the inverse square of their distance, alignment along their mean velocity, cohesion
    /// toward their centroid), made within one frame (a response time of 1/60 s) but at most
    /// max speed / 30 per frame (a max force of 360 units/s^2); the changes are weighted
    /// (separation x1.5) and added with no further limit.
    pub fn flocking_lab() -> Self {
        let max_speed = 180.0;
        let frame = 1.0 / 60.0;
        Self {
            weights: FlockWeights {
                separation: 1.5,
                alignment: 1.0,
                cohesion: 1.0,
                target: 1.0,
                collision_avoidance: 0.0,
                flee: 1.0,
                noise: 0.0,
                style: RuleStyle::DesiredVelocity,
                blending: BlendMode::RuleLimitsOnly,
                ..FlockWeights::default()
            },
            limits: SteeringLimits {
                max_speed,
                min_speed: max_speed / 3.0,
                // A velocity change of at most max speed / 30 per frame.
                max_force: max_speed / 30.0 / frame,
                response_time: frame,
                arrival_radius: 50.0,
                max_turn_rate: None,
                reach_radius: 10.0,
            },
            perception: Perception {
                neighbour_radius: 50.0,
                separation_radius: 20.0,
                max_neighbours: None,
                ..Perception::default()
            },
            boundary: Boundary::Wrap {
                min: Vec3::new(-450.0, -280.0, 0.0),
                max: Vec3::new(450.0, 280.0, 0.0),
            },
        }
    }

    /// Vicsek et al.'s (1995) self-propelled particles with noise `eta` (radians), for a
    /// simulation stepped every `tick` seconds (the [`FlockingConfig`](crate::FlockingConfig)
    /// schedule's timestep; Bevy's fixed timestep is 1/64 s): radius 1, a constant 0.03 per
    /// tick, each agent taking the mean heading of itself and its neighbours every tick, then
    /// turned at random by up to `eta / 2`. See [`AgentParams::vicsek`]. Add a
    /// [`Boundary::Wrap`] for the paper's periodic box, e.g. 10 x 10 for 400 agents
    /// (density 4).
    pub fn vicsek(eta: f32, tick: f32) -> Self {
        let params = AgentParams::vicsek(eta, tick);
        Self {
            weights: params.weights.into(),
            limits: params.limits.into(),
            perception: params.perception.into(),
            boundary: Boundary::None,
        }
    }
}

impl From<Weights> for FlockWeights {
    fn from(w: Weights) -> Self {
        Self {
            separation: w.separation,
            alignment: w.alignment,
            cohesion: w.cohesion,
            target: w.target,
            collision_avoidance: w.collision_avoidance,
            flee: w.flee,
            noise: w.noise,
            leader: w.leader,
            flow: w.flow,
            wander: w.wander,
            wander_rate: w.wander_rate,
            standoff: DEFAULT_STANDOFF,
            style: match w.style {
                SteeringStyle::Vector => RuleStyle::Vector,
                SteeringStyle::DesiredVelocity => RuleStyle::DesiredVelocity,
            },
            blending: match w.blending {
                Blending::WeightedSum => BlendMode::WeightedSum,
                Blending::Prioritised => BlendMode::Prioritised,
                Blending::RuleLimitsOnly => BlendMode::RuleLimitsOnly,
            },
        }
    }
}

impl From<FlockWeights> for Weights {
    fn from(w: FlockWeights) -> Self {
        Self {
            separation: w.separation,
            alignment: w.alignment,
            cohesion: w.cohesion,
            target: w.target,
            collision_avoidance: w.collision_avoidance,
            flee: w.flee,
            noise: w.noise,
            leader: w.leader,
            flow: w.flow,
            wander: w.wander,
            wander_rate: w.wander_rate,
            style: match w.style {
                RuleStyle::Vector => SteeringStyle::Vector,
                RuleStyle::DesiredVelocity => SteeringStyle::DesiredVelocity,
            },
            blending: match w.blending {
                BlendMode::WeightedSum => Blending::WeightedSum,
                BlendMode::Prioritised => Blending::Prioritised,
                BlendMode::RuleLimitsOnly => Blending::RuleLimitsOnly,
            },
        }
    }
}

impl From<Limits> for SteeringLimits {
    fn from(l: Limits) -> Self {
        Self {
            max_speed: l.max_speed,
            min_speed: l.min_speed,
            max_force: l.max_force,
            response_time: l.response_time,
            arrival_radius: l.arrival_radius,
            max_turn_rate: l.max_turn_rate,
            reach_radius: l.reach_radius,
        }
    }
}

impl From<SteeringLimits> for Limits {
    fn from(l: SteeringLimits) -> Self {
        Self {
            max_speed: l.max_speed,
            min_speed: l.min_speed,
            max_force: l.max_force,
            response_time: l.response_time,
            arrival_radius: l.arrival_radius,
            max_turn_rate: l.max_turn_rate,
            reach_radius: l.reach_radius,
        }
    }
}

impl From<Perception> for flock_core::Perception {
    fn from(p: Perception) -> Self {
        Self {
            neighbour_radius: p.neighbour_radius,
            separation_radius: p.separation_radius,
            field_of_view: p.field_of_view,
            max_neighbours: p.max_neighbours,
            collision_distance: p.collision_distance,
            collision_horizon: p.collision_horizon,
            counts_itself: p.counts_itself,
        }
    }
}

impl From<flock_core::Perception> for Perception {
    fn from(p: flock_core::Perception) -> Self {
        Self {
            neighbour_radius: p.neighbour_radius,
            separation_radius: p.separation_radius,
            field_of_view: p.field_of_view,
            max_neighbours: p.max_neighbours,
            collision_distance: p.collision_distance,
            collision_horizon: p.collision_horizon,
            counts_itself: p.counts_itself,
        }
    }
}

impl From<Boundary> for flock_core::Boundary {
    fn from(b: Boundary) -> Self {
        match b {
            Boundary::None => Self::None,
            Boundary::Wrap { min, max } => Self::Wrap { min, max },
            Boundary::Walls {
                min,
                max,
                margin,
                weight,
            } => Self::Walls {
                min,
                max,
                margin,
                weight,
            },
        }
    }
}

/// The four tuning parts of one agent, each possibly overriding its flock's.
#[derive(Clone, Copy)]
pub(crate) struct TuningParts<'a> {
    pub(crate) weights: &'a FlockWeights,
    pub(crate) limits: &'a SteeringLimits,
    pub(crate) perception: &'a Perception,
    pub(crate) boundary: &'a Boundary,
}

impl TuningParts<'_> {
    pub(crate) fn params(&self) -> AgentParams {
        AgentParams {
            weights: (*self.weights).into(),
            limits: (*self.limits).into(),
            perception: (*self.perception).into(),
            boundary: (*self.boundary).into(),
        }
    }
}
