//! How the zombies keep apart: the modes the panel switches between, and the horde's tuning in
//! each.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use super::ground_plan::CLEARANCE;

/// How zombies keep apart.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    NoAvoidance,
    Sidestep,
    Reciprocal,
    Solid,
}

impl Mode {
    pub const ALL: [Mode; 4] = [
        Mode::NoAvoidance,
        Mode::Sidestep,
        Mode::Reciprocal,
        Mode::Solid,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Mode::NoAvoidance => "[1] no avoidance",
            Mode::Sidestep => "[2] sidestep",
            Mode::Reciprocal => "[3] reciprocal (ORCA)",
            Mode::Solid => "[4] solid",
        }
    }

    /// A loose horde: zombies keep a little apart, drift with their neighbours and shamble
    /// after the player at up to 1.8 m/s.
    pub fn tuning(self) -> FlockTuning {
        FlockTuning {
            weights: FlockWeights {
                separation: 1.5,
                alignment: 0.2,
                cohesion: 0.1,
                target: 1.0,
                collision_avoidance: if self == Mode::Sidestep { 1.0 } else { 0.0 },
                ..default()
            },
            limits: SteeringLimits {
                max_speed: 1.8,
                max_force: 6.0,
                arrival_radius: 2.0,
                ..default()
            },
            perception: Perception {
                neighbour_radius: 3.0,
                separation_radius: 0.8,
                collision_distance: 2.0 * CLEARANCE,
                velocity_obstacles: match self {
                    Mode::NoAvoidance | Mode::Sidestep => VelocityObstacles::Off,
                    Mode::Reciprocal => VelocityObstacles::Reciprocal,
                    Mode::Solid => VelocityObstacles::Solid,
                },
                ..default()
            },
            boundary: Boundary::None,
        }
    }
}
