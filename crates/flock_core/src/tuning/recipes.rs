//! Tunings that reproduce a known model or suit a known kind of game.

use glam::Vec3;

use crate::maths::NoiseDraw;

use super::{
    BlendMode, Boundary, FlockTuning, FlockWeights, Perception, RuleStyle, SteeringLimits,
    VelocityObstacles,
};

/// A pedestrian's free walking speed, m/s: the mean over field studies in Weidmann (1993),
/// "Transporttechnik der Fussgänger", ETH Zürich, Schriftenreihe IVT 90.
const FREE_WALKING_SPEED: f32 = 1.34;
/// The relaxation time in which a pedestrian reaches the velocity it wants, s: the social force
/// model's (Helbing and Molnár 1995; Helbing, Farkas and Vicsek 2000).
const RELAXATION_TIME: f32 = 0.5;
/// The time gap a pedestrian keeps to the body ahead, s: the collision-free speed model's
/// (Tordeux, Chraibi and Seyfried 2016), fitted with these bodies to Weidmann's (1993)
/// speed-density curve (RiMEA test 4, crowds of one speed started in no order: 0.5 s walks at
/// the free speed at 1 per m², 0.28 m/s too fast; 0.7 s walks 0.16 m/s too slow at 2 per m²).
const TIME_GAP: f32 = 0.6;
/// The breadth of a pedestrian's body, m: the 0.2 m radius crowd simulators give a person,
/// about the shoulder breadth in Weidmann (1993).
const BODY_BREADTH: f32 = 0.4;
/// The spread of free walking speeds, m/s: the standard deviation in Weidmann (1993).
const WALKING_SPEED_SPREAD: f32 = 0.26;
/// The slowest and the fastest free walking speed drawn, m/s: Vadere's bounds on its normal
/// distribution of free speeds (Kleinmeier et al. 2019, "Vadere: an open-source simulation
/// framework to promote interdisciplinary understanding", Collective Dynamics 4).
const WALKING_SPEED_RANGE: (f32, f32) = (0.5, 2.2);
/// Mixed into the key of a walking speed's draw, so that it is no other draw's.
const WALKING_SPEED_STREAM: u64 = 0x5741_4C4B_5350_4544;

/// A [speed factor](crate::Crowd::set_speed_factor) that gives a pedestrian of the
/// [`FlockTuning::pedestrian`] recipe its own free walking speed, drawn from Weidmann's
/// (1993) normal distribution of free speeds, 1.34 m/s with a standard deviation of 0.26 m/s,
/// kept within 0.5-2.2 m/s. The same `key` (an agent's id, mixed with the game's seed)
/// always draws the same factor, on every platform.
pub fn walking_speed_factor(key: u64) -> f32 {
    let mut draw = NoiseDraw::new(key ^ WALKING_SPEED_STREAM, 0, 0);
    let speed = FREE_WALKING_SPEED + WALKING_SPEED_SPREAD * draw.standard_normal();
    let (slowest, fastest) = WALKING_SPEED_RANGE;
    speed.clamp(slowest, fastest) / FREE_WALKING_SPEED
}

impl FlockTuning {
    /// Vicsek et al.'s (1995) self-propelled particles, with noise `eta` (radians, 0 to
    /// `2 * PI`) for a crowd stepped every `tick` seconds (the plugin's schedule timestep;
    /// Bevy's fixed timestep is 1/64 s): every tick each agent takes the mean heading of itself
    /// and the agents within radius 1, turns by a random angle up to `eta / 2` either way, and
    /// moves 0.03 at constant speed (the paper's figure 2: `r = 1`, `v = 0.03`). That is
    /// alignment alone in the desired-velocity style, counting itself, with a response time of
    /// one tick, a max force that allows any turn, and no neighbour cap. Add a wrap-around
    /// [`Boundary`] for the paper's periodic box, e.g. 10 x 10 for 400 agents (density 4); set
    /// the radius and speed to taste. A non-positive or non-finite `tick` is taken as one
    /// second.
    pub fn vicsek(eta: f32, tick: f32) -> Self {
        let tick = if tick.is_finite() && tick > 0.0 {
            tick
        } else {
            1.0
        };
        let speed = 0.03 / tick;
        Self {
            weights: FlockWeights {
                separation: 0.0,
                alignment: 1.0,
                cohesion: 0.0,
                noise: eta,
                style: RuleStyle::DesiredVelocity,
                ..FlockWeights::default()
            },
            limits: SteeringLimits {
                max_speed: speed,
                min_speed: speed,
                // Reversing needs a velocity change of twice the speed within one tick.
                max_force: 4.0 * speed / tick,
                response_time: tick,
                ..SteeringLimits::default()
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

    /// The flocking lab's birds (the `flocking_lab` example), Reynolds' boids on a 900 x 560
    /// field centred on the origin, wrapping round, on the XY plane: vision radius 50,
    /// separation radius 20, max speed 180 and min speed 60 (a third), every neighbour counted.
    /// Each rule asks for the velocity change to its desired velocity (separation away from
    /// neighbours by the inverse square of their distance, alignment along their mean velocity,
    /// cohesion toward their centroid), made within one frame (a response time of 1/60 s) but
    /// at most max speed / 30 per frame (a max force of 360 units/s^2); the changes are
    /// weighted (separation x1.5) and added with no further limit.
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

    /// An RTS squad of units about a metre across on the plane (the `rts_squads` example):
    /// units seek their waypoints (target 1, arriving within 2), keep apart (separation 1.8
    /// within 0.9), hold together a little (alignment 0.3, cohesion 0.2, neighbours within 3)
    /// and keep their standoff from enemies (3), at up to 4 units per second with a max force
    /// of 8.
    pub fn squad() -> Self {
        Self {
            weights: FlockWeights {
                separation: 1.8,
                alignment: 0.3,
                cohesion: 0.2,
                target: 1.0,
                standoff: 3.0,
                ..FlockWeights::default()
            },
            limits: SteeringLimits {
                max_speed: 4.0,
                max_force: 8.0,
                arrival_radius: 2.0,
                ..SteeringLimits::default()
            },
            perception: Perception {
                neighbour_radius: 3.0,
                separation_radius: 0.9,
                ..Perception::default()
            },
            boundary: Boundary::None,
        }
    }

    /// Pedestrians, in metres and seconds on the plane: bodies 0.4 m across, walking to their
    /// target at up to the free walking speed of 1.34 m/s (Weidmann 1993), reaching the
    /// velocity they want within the relaxation time of 0.5 s (the social force model's), and
    /// keeping clear of each other with reciprocal velocity obstacles (van den Berg et al.
    /// 2011) over a 2 s horizon, the ten nearest within 4 m counted, and a time gap of 0.6 s
    /// to the body ahead (Tordeux et al. 2016; in a crowd heading many ways, only to a body
    /// straight before it), so that the crowd slows as it packs as Weidmann (1993) measured: a
    /// crowd of his spread of free speeds ([`walking_speed_factor`] with
    /// [`Crowd::set_speed_factor`](crate::Crowd::set_speed_factor)) walks at 1.0 m/s at 1
    /// person per m², 0.72 at 2, 0.44 at 3, 0.24 at 4 (his 1.06, 0.61, 0.33, 0.16); one of a
    /// single speed follows it from 2 per m² (0.62 there) but walks at 1.27 at 1. People in a
    /// crowd neither align nor cohere, so the flocking rules are off; they slow down within half
    /// a metre of their target and count as there within 0.3 m. Give the crowd's walls as
    /// obstacles or a [`Boundary`].
    pub fn pedestrian() -> Self {
        Self {
            weights: FlockWeights {
                separation: 0.0,
                alignment: 0.0,
                cohesion: 0.0,
                target: 1.0,
                ..FlockWeights::default()
            },
            limits: SteeringLimits {
                max_speed: FREE_WALKING_SPEED,
                min_speed: 0.0,
                // Room to turn round: twice the change from rest to the free speed, within
                // the relaxation time.
                max_force: 2.0 * FREE_WALKING_SPEED / RELAXATION_TIME,
                response_time: RELAXATION_TIME,
                arrival_radius: 0.5,
                max_turn_rate: None,
                reach_radius: 0.3,
            },
            perception: Perception {
                neighbour_radius: 4.0,
                separation_radius: 0.0,
                collision_distance: BODY_BREADTH,
                collision_horizon: 2.0,
                velocity_obstacles: VelocityObstacles::Reciprocal,
                time_gap: TIME_GAP,
                ..Perception::default()
            },
            boundary: Boundary::None,
        }
    }
}
