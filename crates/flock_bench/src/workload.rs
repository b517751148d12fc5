//! The benchmark's workload: agents uniform in a cube (a square in 2D) at a density of about
//! 25 neighbours within radius 4, moving in random directions at speed 3.

use bevy::app::App;
use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::{AgentInput, Crowd, FlockTuning, Space};

/// Expected neighbours per agent within the radius, from the density.
pub(crate) const NEIGHBOURS: f32 = 25.0;
pub(crate) const RADIUS: f32 = 4.0;
pub(crate) const SPEED: f32 = 3.0;
pub(crate) const DT: f32 = 1.0 / 60.0;

/// A seeded generator of numbers uniform in `0..1` (xorshift), so runs repeat.
pub(crate) fn unit_generator(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Seeded starting state shared by every method.
pub(crate) struct Workload {
    pub(crate) space: Space,
    pub(crate) positions: Vec<Vec3>,
    pub(crate) velocities: Vec<Vec3>,
}

impl Workload {
    /// Spawns the agents in a plugin app; returns their entities, in the workload's order.
    pub(crate) fn spawn_agents(&self, app: &mut App) -> Vec<Entity> {
        let agents: Vec<_> = self
            .positions
            .iter()
            .zip(&self.velocities)
            .map(|(&p, &v)| (Agent, Transform::from_translation(p), Velocity(v)))
            .collect();
        app.world_mut().spawn_batch(agents).collect()
    }

    /// The agents in a kernel crowd with the default parameters.
    pub(crate) fn crowd(&self) -> Crowd {
        let mut crowd = Crowd::new(self.space);
        self.refill(&mut crowd);
        crowd
    }

    /// Empties `crowd` (keeping its buffers) and puts the agents back with the default
    /// parameters.
    pub(crate) fn refill(&self, crowd: &mut Crowd) {
        self.refill_tuned(crowd, FlockTuning::default());
    }

    /// [`refill`](Self::refill), with the parameters `tuning`.
    pub(crate) fn refill_tuned(&self, crowd: &mut Crowd, tuning: FlockTuning) {
        crowd.clear();
        let params = crowd.add_params(tuning);
        for (&position, &velocity) in self.positions.iter().zip(&self.velocities) {
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: 0,
                params,
                target: None,
            });
        }
    }

    pub(crate) fn new(n: usize, space: Space) -> Self {
        // Density that gives NEIGHBOURS agents inside a ball (disc) of radius RADIUS.
        let extent = match space {
            Space::Volume => {
                let ball = 4.0 / 3.0 * std::f32::consts::PI * RADIUS * RADIUS * RADIUS;
                ops::cbrt(n as f32 * ball / NEIGHBOURS)
            }
            Space::Planar => {
                let disc = std::f32::consts::PI * RADIUS * RADIUS;
                (n as f32 * disc / NEIGHBOURS).sqrt()
            }
        };
        let mut unit = unit_generator(0x853C_49E6_748F_EA9B);
        let flat = |v: Vec3| match space {
            Space::Volume => v,
            Space::Planar => v.with_z(0.0),
        };
        let mut positions = Vec::with_capacity(n);
        let mut velocities = Vec::with_capacity(n);
        for _ in 0..n {
            positions.push(flat((Vec3::new(unit(), unit(), unit()) - 0.5) * extent));
            let dir = flat(Vec3::new(unit(), unit(), unit()) - 0.5).normalize_or(Vec3::X);
            velocities.push(dir * SPEED);
        }
        Self {
            space,
            positions,
            velocities,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.positions.len()
    }
}
