//! Agents' own speeds: a [`SpeedFactor`] on an agent scales its flock's speeds.

use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::components::Agent;
use crate::diagnostics::Reporter;
use crate::simulation::FlockSimulation;

/// Makes an agent this many times as fast as its flock's tuning says: its max and min speeds
/// and its max force are scaled, so that one flock holds a crowd with a spread of walking
/// speeds (see [`Crowd::set_speed_factor`](flock_core::Crowd::set_speed_factor)). A slower
/// agent ahead is overtaken where there is room, when the flock keeps a
/// [time gap](crate::Perception::time_gap). 1 (the default) changes nothing; a factor that is
/// not finite and positive is reported once and ignored.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::{Agent, SpeedFactor};
///
/// fn spawn_walkers(mut commands: Commands) {
///     for k in 0..100_u64 {
///         // Each walker at its own free speed, drawn from Weidmann's (1993) spread.
///         commands.spawn((Agent, SpeedFactor::walking(k), Transform::default()));
///     }
/// }
/// # bevy::ecs::system::assert_is_system(spawn_walkers);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct SpeedFactor(pub f32);

impl Default for SpeedFactor {
    fn default() -> Self {
        Self(1.0)
    }
}

impl SpeedFactor {
    /// A pedestrian's own free walking speed, for a flock tuned with
    /// [`FlockTuning::pedestrian`](crate::FlockTuning::pedestrian): drawn from Weidmann's
    /// (1993) normal distribution, 1.34 m/s with a standard deviation of 0.26 m/s, kept within
    /// 0.5-2.2 m/s (see [`flock_core::walking_speed_factor`]). The same `key` (a number of the
    /// game's own, mixed with its seed) always draws the same.
    pub fn walking(key: u64) -> Self {
        Self(flock_core::walking_speed_factor(key))
    }
}

/// Hands the kernel every agent's [`SpeedFactor`]; a bad one is reported once and ignored.
pub(crate) fn extract_speed_factors(
    mut sim: ResMut<FlockSimulation>,
    agents: Query<(Entity, &SpeedFactor), With<Agent>>,
    mut reporter: Reporter,
) {
    if agents.is_empty() {
        return;
    }
    let started = Instant::now();
    for (entity, &SpeedFactor(factor)) in &agents {
        let Some(i) = sim.index_of(entity) else {
            continue;
        };
        if factor != 1.0 && !sim.crowd_mut().set_speed_factor(i, factor) {
            reporter.warn_once(
                entity,
                "speed factor",
                &format!(
                    "has speed factor {factor}; it must be finite and positive, so the agent keeps its flock's speeds"
                ),
            );
        }
    }
    sim.step_time += started.elapsed();
}
