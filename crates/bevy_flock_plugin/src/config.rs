//! [`FlockingConfig`]: the settings shared by every flock.

use core::time::Duration;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
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
    /// Read-only: 3D or the XY plane, chosen with [`FlockingPlugins::planar`].
    #[reflect(ignore)]
    pub(crate) space: Space,
    /// Read-only: the schedule the systems run in, chosen with
    /// [`FlockingPlugins::in_schedule`].
    #[reflect(ignore, default = "fixed_update")]
    pub(crate) schedule: InternedScheduleLabel,
}

/// [`FixedUpdate`], the schedule the systems run in unless set otherwise.
fn fixed_update() -> InternedScheduleLabel {
    FixedUpdate.intern()
}

impl FlockingConfig {
    /// Whether agents are kept on the XY plane.
    pub fn is_planar(&self) -> bool {
        self.space == Space::Planar
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
            space: Space::Volume,
            schedule: fixed_update(),
        }
    }
}
