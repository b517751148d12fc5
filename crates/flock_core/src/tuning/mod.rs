//! The tuning of one flock or agent: each value defined, documented and checked once, here.
//!
//! With the `bevy` feature these types are Bevy components (and `Reflect`), which the plugin
//! puts on flock and agent entities as they are; with `serde` they read and write presets.

mod checks;
pub(crate) mod recipes;

use glam::Vec3;

#[cfg(feature = "bevy")]
use bevy_ecs::reflect::ReflectComponent;
#[cfg(feature = "bevy")]
use bevy_reflect::std_traits::ReflectDefault;

use crate::field_of_view::FieldOfView;

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
/// Every rule's force is limited to [`SteeringLimits::max_force`] and then weighted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "bevy", derive(bevy_reflect::Reflect))]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RuleStyle {
    /// The rule's vector is the force itself (Reynolds 1987 as usually coded, e.g. in Unity
    /// tutorials): separation grows as `1 / distance`, cohesion with the distance to the
    /// centroid. Suits metre-scale worlds.
    #[default]
    Vector,
    /// Reynolds' (1999) steering: each rule picks a direction `u`, the desired velocity is
    /// `unit(u) * max_speed`, and the force is `(desired - velocity) / response_time` (see
    /// [`SteeringLimits::response_time`]). Separation weighs each neighbour by the inverse
    /// square of its distance. Independent of the world's scale, so it suits pixel-scale 2D
    /// games; with a response time of one frame it is the flocking lab's model.
    DesiredVelocity,
}

/// How an agent's behaviours share its max force (Reynolds 1999, "combining behaviours").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "bevy", derive(bevy_reflect::Reflect))]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BlendMode {
    /// Urgent needs (fleeing, a predicted collision) are served first; the other behaviours
    /// are weighted, summed, and the sum is cut to what the urgent needs leave of the max
    /// force. Every behaviour always counts a little, so none is ever starved, but under a
    /// tight budget a strong pull (a target, cohesion) dilutes separation.
    #[default]
    WeightedSum,
    /// Reynolds' prioritised acceleration allocation: in the order flee, sidestep,
    /// separation, standoff, walls, leader, target, flow, alignment, cohesion, wander, each
    /// weighted behaviour takes what it needs from what is left of the max force, until none
    /// is left. Under a tight budget the urgent ones win and the later ones go without.
    Prioritised,
    /// Each behaviour is limited to the max force on its own, weighted, and the weighted
    /// forces are added with no limit on the sum, so `n` behaviours can reach the sum of their
    /// weights times the max force. The flocking lab's blending (each rule's velocity change
    /// cut, then weighted and added).
    RuleLimitsOnly,
}

/// How an agent's velocity is made collision-free after the rules are blended (see
/// [`Perception::velocity_obstacles`]): optimal reciprocal collision avoidance (ORCA: van den
/// Berg, Guy, Lin and Manocha 2011) replaces the velocity the rules ask for with the nearest one,
/// within the max speed, that keeps the agent's body (of diameter
/// [`Perception::collision_distance`]) clear of its nearest neighbours' for
/// [`Perception::collision_horizon`] seconds, each doing its share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "bevy", derive(bevy_reflect::Reflect))]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum VelocityObstacles {
    /// No step: the velocity the rules ask for stands.
    #[default]
    Off,
    /// ORCA: an agent avoids one that does not avoid on its own, assuming it keeps its
    /// velocity; two that both avoid share each manoeuvre (0.8 and 0.2, by a fixed ranking, so
    /// that symmetric jams resolve; the paper's equal halves leave agents swapping places round
    /// a circle standing for good), and a blocked agent steps to its right. Where a dense crowd
    /// leaves no collision-free velocity, the agent takes the one that violates the
    /// constraints least rather than lock up; the program keeps bodies 5% further apart than
    /// their radii and each agent takes twice its share, which covers most of what that gives
    /// away. Where the velocity chosen would still leave its body overlapping a neighbour's at
    /// the end of the tick, the agent chooses again bounded as `Solid` agents are, against
    /// those neighbours that could touch it (up to three rounds), so bodies overlap rarely and
    /// hardly (by at most 0.001 of the radius in the benchmark's crowd scenarios) while crowds
    /// still flow where `Solid` ones jam.
    Reciprocal,
    /// As `Reciprocal`, and bodies never end a tick inside each other: each neighbour near
    /// enough to touch within the tick bounds how fast the agent may close on it (each of two
    /// solid agents closes at most its share of the gap between them, a bound never relaxed).
    /// Obstacles and walls bound the velocity too, so that no move is cut short at one and
    /// slid into a neighbour. Crowds walking through each other from opposite sides, or
    /// through a narrow door, can jam where `Reciprocal` ones squeeze past (see the
    /// benchmarks). The bound holds between two solid agents; against
    /// others, the solid one keeps its own share.
    Solid,
}

/// Weights of the steering behaviours, and how they are blended. In the plugin, on a flock
/// entity they tune the flock; on an agent they override its flock's weights for that agent.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "bevy",
    derive(bevy_ecs::component::Component, bevy_reflect::Reflect)
)]
#[cfg_attr(feature = "bevy", reflect(Component, Default, Debug, Clone, PartialEq))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct FlockWeights {
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
    /// Flee every threat within its radius (the plugin's `Predator` entities; see
    /// [`Crowd::set_threats`](crate::Crowd::set_threats)): a desired velocity straight away
    /// from them at max speed (the nearer one counting more), with up to this many times the
    /// max force, served before the flocking rules.
    pub flee: f32,
    /// Vicsek's angular noise η, in radians per tick (so it depends on the timestep, as in
    /// Vicsek's discrete model): every tick the velocity turns by a random angle up to η / 2
    /// either way (on the plane; in 3D, about a random axis across it). Seeded (see
    /// [`Crowd::set_seed`](crate::Crowd::set_seed)), so runs repeat. With alignment alone and
    /// a constant speed (`min_speed` equal to `max_speed`) this is Vicsek's model (see
    /// [`FlockTuning::vicsek`]). Zero: none.
    pub noise: f32,
    /// Follow the agent's leader (the plugin's `FollowLeader`; see
    /// [`Crowd::set_leader`](crate::Crowd::set_leader)): keep station
    /// [`Leader::distance`](crate::Leader) behind it, matching its velocity, and step sideways
    /// out of the path ahead of it.
    pub leader: f32,
    /// Steer along the flow a flow field or game code feeds each agent (see
    /// [`Crowd::set_flow`](crate::Crowd::set_flow)).
    pub flow: f32,
    /// Wander (Reynolds 1999): steer toward a point that drifts at random round a sphere (a
    /// circle, on the plane) ahead of the agent, so its heading changes smoothly and at random.
    /// Seeded like the noise.
    pub wander: f32,
    /// How fast the wander point drifts, in radians per square root of a second (a random
    /// walk: after `t` seconds it has moved about `wander_rate * sqrt(t)` round the sphere).
    pub wander_rate: f32,
    /// Keep a standoff distance from enemy units, as RTS units hold their weapon's range: back
    /// off from enemies nearer than it, toward a velocity away from them (see
    /// [`Crowd::set_standoff`](crate::Crowd::set_standoff); the plugin's squads work it out
    /// from its `Combatant`s), with up to this many times max force.
    pub standoff: f32,
    /// How each rule's vector becomes a force.
    pub style: RuleStyle,
    /// How the behaviours share the max force.
    pub blending: BlendMode,
}

impl Default for FlockWeights {
    /// The Unity tutorial's weights: separation 1.8, alignment 1.0, cohesion 0.9, target 0.6;
    /// collision avoidance off; flee 1; no noise; leader 1, flow 1; no wander (rate 2);
    /// standoff 3 (enough to hold a unit within 2% of its standoff distance against a seek at
    /// full force); weighted sum.
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
            standoff: 3.0,
            style: RuleStyle::Vector,
            blending: BlendMode::WeightedSum,
        }
    }
}

/// Limits on speed and steering force. In the plugin, on a flock they tune the flock; on an
/// agent they override it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "bevy",
    derive(bevy_ecs::component::Component, bevy_reflect::Reflect)
)]
#[cfg_attr(feature = "bevy", reflect(Component, Default, Debug, Clone, PartialEq))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct SteeringLimits {
    /// Highest speed, in world units per second.
    pub max_speed: f32,
    /// Lowest speed; agents that must keep moving (birds, the lab's boids) set it above zero.
    pub min_speed: f32,
    /// Largest steering force (acceleration), per rule and (unless the blending is
    /// [`BlendMode::RuleLimitsOnly`]) for the sum.
    pub max_force: f32,
    /// Seconds in which a behaviour that steers toward a desired velocity asks to reach it:
    /// its force is `(desired - velocity) / response_time`, up to the max force. This holds for
    /// seek and arrive, flee and evade, wander, flows, the leader's station, standoffs, and
    /// separation, alignment and cohesion in the [`RuleStyle::DesiredVelocity`] style. One
    /// second (the default) treats the velocity change as an acceleration, as most game
    /// tutorials do; Reynolds' vehicles (1999) and the flocking lab change velocity by the
    /// whole (limited) steering every step, which is a response time of one tick. At least
    /// [`SHORTEST_RESPONSE_TIME`].
    pub response_time: f32,
    /// Distance from the target inside which the agent slows down; zero seeks at full speed.
    ///
    /// Inside the radius the approach behaves like a damped spring with damping ratio
    /// `0.5 * sqrt(weight * arrival_radius / max_speed)` (`weight` is
    /// [`FlockWeights::target`]): below 1 the agent overshoots a little and settles; the
    /// defaults give 0.3.
    pub arrival_radius: f32,
    /// Fastest the agent's heading turns, in degrees per second, or `None` to turn at once.
    /// With a limit the heading drives the motion, like a creature that turns at a limited
    /// rotation speed (the `creatures_2d` example): the steering picks where to go, the
    /// heading turns toward it at most this fast, and the agent moves along its heading. Only
    /// a surface it slides along turns it faster.
    pub max_turn_rate: Option<f32>,
    /// Within this distance of its target the agent has reached it (see
    /// [`Crowd::has_reached_target`](crate::Crowd::has_reached_target); the plugin sends a
    /// `TargetReached` event).
    pub reach_radius: f32,
}

impl Default for SteeringLimits {
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

/// What an agent can see. In the plugin, on a flock it tunes the flock; on an agent it
/// overrides it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "bevy",
    derive(bevy_ecs::component::Component, bevy_reflect::Reflect)
)]
#[cfg_attr(feature = "bevy", reflect(Component, Default, Debug, Clone, PartialEq))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
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
    /// picked (ties in distance go to the agent first in the grid's order). To bound that work
    /// when agents pile up, the scan stops after four times this many candidates in range and
    /// in view (at least 64) and keeps the nearest of those. `None` counts every neighbour.
    pub max_neighbours: Option<u32>,
    /// Two agents whose centres come closer than this collide (twice the agents' radius):
    /// see [`FlockWeights::collision_avoidance`]. Half of it is the body that obstacles keep
    /// out: no part of it enters one, and a gap narrower than it is closed to the agent.
    pub collision_distance: f32,
    /// How many seconds ahead collisions with neighbours are predicted, each assuming the
    /// other keeps its velocity. Only neighbours are predicted, so the neighbour radius also
    /// bounds how early an agent reacts.
    pub collision_horizon: f32,
    /// Whether and how the agent's velocity is made collision-free after the rules are
    /// blended (see [`VelocityObstacles`]). The chosen velocity may be below the min speed or
    /// turn faster than the max turn rate. Off by default; it needs a collision horizon above
    /// zero. See [`MOST_AGENTS_AVOIDED`](crate::MOST_AGENTS_AVOIDED) for how many neighbours
    /// count.
    pub velocity_obstacles: VelocityObstacles,
    /// The time gap, in seconds, an agent that avoids velocity obstacles keeps to the body
    /// ahead of it: it walks no faster than it could cover the free distance to that body in
    /// this time (the collision-free speed model, Tordeux, Chraibi and Seyfried 2016), so
    /// that a crowd slows as it packs, as people do (see [`FlockTuning::pedestrian`]). A body
    /// coming the other way does not count: the velocity obstacles pass it. One with a lower
    /// max speed is overtaken where a lane beside is free. 0 (the default) keeps no gap.
    ///
    /// It is made for people walking in streams (corridors, doors, crossings), and measured on
    /// them in the repository's validation crate. A packed crowd going every which way walks
    /// as slowly as people do at its density: in BENCHMARKS.md's dense crowd to goals (400
    /// units 0.7 m across, a metre apart, each sent to another's place) everyone is home in
    /// 415-527 s with a gap of 0.6 s, against 87-187 s with none, over six assignments of
    /// places, and no unit stays in one spot longer than 52.1 s; keep it at 0 where such a crowd
    /// must clear quickly.
    pub time_gap: f32,
    /// How much the agent keeps its way in velocity-obstacle avoidance: of two agents that
    /// avoid each other, each takes the share `other / (own + other)` of each manoeuvre, so the
    /// one of lower priority gives most of the way (priorities 4 and 1: a fifth and four
    /// fifths), as important units push on and idle ones step aside. Between equal priorities
    /// the shares are 0.8 and 0.2 by a fixed ranking (see [`VelocityObstacles::Reciprocal`]).
    /// `Reciprocal` agents take twice their share, at most all of it (two fifths and all, for
    /// priorities 4 and 1), in case the other does not take its own. Positive; 1 by default.
    pub avoidance_priority: f32,
    /// The avoidance layers the agent is in, a bit per layer (bit `k` is layer `k`): another
    /// agent avoids it with velocity obstacles only if that agent's
    /// [`avoidance_mask`](Self::avoidance_mask) has one of them. Layer 0 (`1`) by default; `0`
    /// puts it in none, so that no agent avoids it.
    pub avoidance_layers: u32,
    /// The layers of the agents this one avoids with velocity obstacles, a bit per layer:
    /// every layer (`u32::MAX`) by default. An agent avoiding one that does not avoid it back
    /// takes the whole of each manoeuvre, as it does with an agent whose velocity obstacles are
    /// off. The predicted-collision sidestep ([`FlockWeights::collision_avoidance`]) and
    /// separation ignore layers.
    pub avoidance_mask: u32,
    /// Whether the agent counts itself among the flock-mates whose mean velocity and centroid
    /// alignment and cohesion steer toward, as Vicsek et al. (1995) average "the particle and
    /// its neighbours". Off by default (Reynolds' boids average their neighbours only).
    pub counts_itself: bool,
}

impl Default for Perception {
    /// Neighbour radius 4, separation radius 1.2, full 360-degree view, at most 64 neighbours;
    /// collisions at 0.7 (two agents of the obstacle cast radius, 0.35) predicted 1.5 s ahead;
    /// no velocity obstacles, but when on, priority 1, in layer 0 and avoiding every layer.
    fn default() -> Self {
        Self {
            neighbour_radius: 4.0,
            separation_radius: 1.2,
            field_of_view: 360.0,
            max_neighbours: Some(64),
            collision_distance: 0.7,
            collision_horizon: 1.5,
            velocity_obstacles: VelocityObstacles::Off,
            time_gap: 0.0,
            avoidance_priority: 1.0,
            avoidance_layers: 1,
            avoidance_mask: u32::MAX,
            counts_itself: false,
        }
    }
}

/// What happens at the edge of the world. In the plugin, on a flock it applies to the flock;
/// on an agent it overrides it. The box may be flat on one axis (the plane's Z, a layer of
/// ground units); one flat on two or more axes is a line or a point, and is switched off with a
/// [`Correction`](crate::Correction).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "bevy",
    derive(bevy_ecs::component::Component, bevy_reflect::Reflect)
)]
#[cfg_attr(feature = "bevy", reflect(Component, Default, Debug, Clone, PartialEq))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    /// Walls that hold each agent's whole body (its [`Perception::collision_distance`] across)
    /// inside the box: within `margin` of where the body would touch a face a force pushes
    /// inward, growing with depth; the faces themselves are hard, and a body that reaches one
    /// stops touching it with its velocity reflected. A box narrower than a body holds it at
    /// its middle; an axis on which the box is flat holds agents on that plane.
    Walls {
        /// Lowest corner.
        min: Vec3,
        /// Highest corner.
        max: Vec3,
        /// Width of the band, inside the place where a body touches each face, where the
        /// inward force acts.
        margin: f32,
        /// Strength of the inward force, as a multiple of `max_force` at full depth.
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

/// Everything that tunes one agent: what a flock shares and an agent may override. In the
/// plugin it is a bundle of the four components: spawn it with a flock, or insert it on one to
/// apply a preset.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "bevy",
    derive(bevy_ecs::bundle::Bundle, bevy_reflect::Reflect)
)]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct FlockTuning {
    /// Rule weights.
    pub weights: FlockWeights,
    /// Speed and force limits.
    pub limits: SteeringLimits,
    /// Radii and field of view.
    pub perception: Perception,
    /// World edge behaviour.
    pub boundary: Boundary,
}

/// The largest magnitude a parameter may have: limits and radii are squared (a speed limit of
/// 1e20 would square to infinity and never limit anything), and weights multiply forces.
pub const LARGEST_PARAMETER: f32 = 1e15;

/// The shortest [`SteeringLimits::response_time`]: a desired-velocity force is the velocity
/// change over the response time, and shorter ones would overflow it.
pub const SHORTEST_RESPONSE_TIME: f32 = 1e-6;

/// Parameters with the derived values the hot loop needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prepared {
    pub(crate) params: FlockTuning,
    pub(crate) neighbour_radius_sq: f32,
    pub(crate) separation_radius_sq: f32,
    /// The field of view, or `None` for a full 360-degree view.
    pub(crate) view: Option<FieldOfView>,
    /// The radius of the agent's body, half its collision distance: obstacles keep all of it
    /// out.
    pub(crate) body_radius: f32,
    /// Whether collisions are predicted (a weight, a distance and a horizon).
    pub(crate) predicts: bool,
    /// How the velocity is made collision-free (off without a horizon).
    pub(crate) velocity_obstacles: VelocityObstacles,
    /// Whether separation falls off as the inverse square of the distance (the
    /// desired-velocity style) rather than its inverse.
    pub(crate) unit_separation: bool,
}

impl Prepared {
    /// `params`, sanitised, with what the passes derive from them.
    pub(crate) fn new(params: FlockTuning) -> Self {
        let (params, _) = params.sanitized();
        let p = params.perception;
        Self {
            params,
            neighbour_radius_sq: p.neighbour_radius * p.neighbour_radius,
            separation_radius_sq: p.separation_radius * p.separation_radius,
            view: FieldOfView::new(p.field_of_view),
            body_radius: 0.5 * p.collision_distance,
            predicts: params.weights.collision_avoidance != 0.0
                && p.collision_distance > 0.0
                && p.collision_horizon > 0.0,
            velocity_obstacles: if p.collision_horizon > 0.0 {
                p.velocity_obstacles
            } else {
                VelocityObstacles::Off
            },
            unit_separation: params.weights.style == RuleStyle::DesiredVelocity,
        }
    }
}
