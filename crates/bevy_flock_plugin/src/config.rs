//! [`FlockingConfig`], the settings shared by every flock, and [`FlockingSetup`], what the
//! plugins were built with.

use core::time::Duration;

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use flock_core::{LevelOfDetail, ObstacleAvoidance, Space};

/// Settings shared by every flock.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct FlockingConfig {
    /// Longest time one tick may advance; longer frames are cut to it (with one warning), so a
    /// stall does not fling agents across the world. Default 0.1 s.
    pub max_timestep: Duration,
    /// Whether the plugin turns agents to face their velocity.
    pub orient_to_velocity: bool,
    /// Agents per task of the parallel passes (gathering into cell order, forces, avoidance,
    /// integration, the copy back) on Bevy's compute task pool, or `None` (the default) to
    /// split each pass into a task per thread of the pool, of at least 128 agents (a crowd of
    /// up to 128 is one task, run on the calling thread, where spreading the work would cost
    /// more than it saves) and at most 1,024. `Some(usize::MAX)` runs every pass as one task.
    /// The result is the same for any value.
    ///
    /// The chunks run on Bevy's compute task pool, whose size `TaskPoolPlugin` sets: its
    /// default split leaves the compute pool a single thread on a 2-core machine, and two on
    /// four cores. Where the pool has fewer threads than the machine has cores, the main
    /// thread, which otherwise waits while the schedule's systems run on the pool, takes
    /// tasks too (with the plugin's default `multi_threaded` feature): Bevy's default pools
    /// on two cores then run a pass on both.
    pub parallel_chunk_size: Option<usize>,
    /// How agents look ahead for obstacles.
    pub avoidance: ObstacleAvoidance,
    /// Seed of the random noise ([`FlockWeights::noise`](crate::FlockWeights::noise)) and wander: the same seed, spawn
    /// order and ticks give the same run. Default 0.
    pub seed: u64,
    /// Level of detail around the [`DetailFocus`](crate::DetailFocus) entity (the camera), or `None` (the
    /// default) to update every agent every tick.
    pub level_of_detail: Option<LevelOfDetail>,
    /// How long an agent with a target may go without coming its reach radius closer before
    /// it gets an [`AgentStuck`](crate::AgentStuck) event, or `None` to send none. Default 3 s.
    pub stuck_after: Option<Duration>,
}

/// What the flocking plugins were built with: the space agents move in and the schedule their
/// systems run in, chosen with [`FlockingPlugins::planar`](crate::FlockingPlugins::planar) and
/// [`FlockingPlugins::in_schedule`](crate::FlockingPlugins::in_schedule). It has no public
/// constructor, so it cannot be replaced, and a game that replaces [`FlockingConfig`] (a new
/// one, one built by struct update, one changed in place) leaves it as it is.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlockingSetup {
    space: Space,
    schedule: InternedScheduleLabel,
}

impl FlockingSetup {
    /// The setup of plugins built for `space` and `schedule`.
    pub(crate) fn new(space: Space, schedule: InternedScheduleLabel) -> Self {
        Self { space, schedule }
    }

    /// 3D, or the XY plane.
    pub fn space(&self) -> Space {
        self.space
    }

    /// Whether agents are kept on the XY plane.
    pub fn is_planar(&self) -> bool {
        self.space == Space::Planar
    }

    /// The schedule the flocking systems run in.
    pub fn schedule(&self) -> InternedScheduleLabel {
        self.schedule
    }
}

impl Default for FlockingConfig {
    fn default() -> Self {
        Self {
            max_timestep: Duration::from_millis(100),
            orient_to_velocity: true,
            parallel_chunk_size: None,
            avoidance: ObstacleAvoidance::default(),
            seed: 0,
            level_of_detail: None,
            stuck_after: Some(Duration::from_secs(3)),
        }
    }
}
