//! The kernel's stages as systems, and the copy of the moved agents back to their components.

use std::sync::Mutex;

use bevy::ecs::system::StaticSystemParam;
use bevy::math::ops;
use bevy::platform::collections::HashSet;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use flock_core::{ChunkExecutor, Space};

use crate::backend::ObstacleBackend;
use crate::simulation::FlockSimulation;
use crate::{Agent, AgentStuck, FlockingConfig, SteeringState, Target, TargetReached, Velocity};

/// Runs the crowd's per-agent passes in chunks on Bevy's compute task pool.
pub(crate) struct TaskPoolExecutor {
    chunk_size: Option<usize>,
}

/// The fewest agents a task is given when a pass is split a task per thread of the pool: for
/// fewer, waking a thread costs about what its share of the work saves.
const MIN_TASK_AGENTS: usize = 128;
/// The most agents a task is given when a pass is split a task per thread of the pool, the
/// fixed chunk size before the split adapted: at 10,000 and 100,000 agents on 2 threads, tasks
/// of this size measured the same as one per thread, and smaller ones (256) slower.
const MAX_TASK_AGENTS: usize = 1024;

impl TaskPoolExecutor {
    /// Chunks of [`FlockingConfig::parallel_chunk_size`] agents.
    pub(crate) fn new(config: &FlockingConfig) -> Self {
        Self {
            chunk_size: config.parallel_chunk_size,
        }
    }
}

impl ChunkExecutor for TaskPoolExecutor {
    /// The chunk size if set; else a task per thread of the compute pool, of
    /// [`MIN_TASK_AGENTS`] to [`MAX_TASK_AGENTS`]: a crowd of 1,024 (RTS units, whose obstacle
    /// casts make each agent costly) is shared among the threads too.
    fn chunk_len(&self, len: usize) -> usize {
        let size = self.chunk_size.unwrap_or_else(|| {
            let threads = ComputeTaskPool::get_or_init(TaskPool::default).thread_num();
            len.div_ceil(threads.max(1))
                .clamp(MIN_TASK_AGENTS, MAX_TASK_AGENTS)
        });
        size.max(1)
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        if tasks <= 1 {
            (0..tasks).for_each(task);
            return;
        }
        ComputeTaskPool::get_or_init(TaskPool::default).scope(|scope| {
            for k in 0..tasks {
                scope.spawn(async move { task(k) });
            }
        });
    }
}

/// Ends the neighbour lookup: the obstacles gathered this tick and
/// [`FlockingConfig::avoidance`] (its corrections reported once per field) handed to the
/// kernel.
pub(crate) fn apply_obstacles(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    mut reported_fields: Local<HashSet<&'static str>>,
) {
    let started = Instant::now();
    let (avoidance, corrections) = config.avoidance.sanitized();
    for correction in corrections {
        if reported_fields.insert(correction.field) {
            warn!("bevy_flock: FlockingConfig::{correction}");
        }
    }
    let sim = &mut *sim;
    let shapes = core::mem::take(&mut sim.shapes);
    let crowd = sim.crowd_mut();
    crowd.set_avoidance(avoidance);
    crowd.set_obstacles(shapes.iter().copied());
    sim.shapes = shapes;
    sim.step_time += started.elapsed();
}

/// The force pass.
pub(crate) fn accumulate_forces(mut sim: ResMut<FlockSimulation>) {
    let started = Instant::now();
    sim.crowd_mut().accumulate_forces();
    sim.step_time += started.elapsed();
}

/// Obstacle avoidance against the built-in obstacles and backend `B`'s.
pub(crate) fn avoid_obstacles<B: ObstacleBackend>(
    mut sim: ResMut<FlockSimulation>,
    backend: StaticSystemParam<B::Param>,
) {
    let started = Instant::now();
    let sim = &mut *sim;
    sim.avoiding = B::with_obstacles(&backend, |colliders| {
        sim.crowd_mut().avoid_obstacles(colliders)
    });
    sim.step_time += started.elapsed();
}

/// The agents that integration moves, and their targets (whose changes restart the count of
/// progress toward them).
type Moved = (
    Entity,
    &'static mut Transform,
    &'static mut Velocity,
    &'static mut SteeringState,
    Ref<'static, Target>,
);

/// Integration, kept out of the built-in obstacles and backend `B`'s, by this tick's time (cut
/// to [`FlockingConfig::max_timestep`], with one warning), then the moved agents written back
/// (see [`write_back`]), in the same system so that the crowd's buffers are still in this
/// thread's cache.
pub(crate) fn integrate<B: ObstacleBackend>(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    backend: StaticSystemParam<B::Param>,
    time: Res<Time>,
    agents: Query<Moved, With<Agent>>,
    commands: Commands,
    mut warned_long_frame: Local<bool>,
) {
    let started = Instant::now();
    let mut dt = time.delta();
    if dt > config.max_timestep {
        if !*warned_long_frame {
            warn!(
                "bevy_flock: a tick of {:.3} s exceeds FlockingConfig::max_timestep; stepping {:.3} s instead (reported once)",
                dt.as_secs_f32(),
                config.max_timestep.as_secs_f32()
            );
            *warned_long_frame = true;
        }
        dt = config.max_timestep;
    }
    let sim = &mut *sim;
    B::with_obstacles(&backend, |colliders| {
        sim.crowd_mut().integrate(dt.as_secs_f32(), colliders)
    });
    sim.step_time += started.elapsed();
    write_back(sim, &config, dt.as_secs_f32(), agents, commands);
}

/// Writes each moved agent's [`Transform`] (turned to face its heading, if
/// [`FlockingConfig::orient_to_velocity`]), [`Velocity`] and [`SteeringState`] back, in
/// parallel, after a tick of `dt` seconds, and triggers [`TargetReached`] for those that
/// arrived and [`AgentStuck`] for those that stalled, in entity order.
fn write_back(
    sim: &mut FlockSimulation,
    config: &FlockingConfig,
    dt: f32,
    mut agents: Query<Moved, With<Agent>>,
    mut commands: Commands,
) {
    let started = Instant::now();
    let (orient, space) = (config.orient_to_velocity, config.space);
    let patience = config.stuck_after.map(|d| d.as_secs_f32());
    let sim_ref = &*sim;
    let arrivals = Mutex::new(Vec::new());
    let stalls = Mutex::new(Vec::new());
    agents
        .par_iter_mut()
        .for_each(|(entity, mut transform, mut velocity, mut state, goal)| {
            let Some(i) = sim_ref.index_of(entity) else {
                return;
            };
            let crowd = sim_ref.crowd();
            let (position, heading) = (crowd.position(i), crowd.heading(i));
            transform.translation = position;
            velocity.0 = crowd.velocity(i);
            let at_target = arrived(sim_ref, i, state.at_target, || {
                let mut arrivals = arrivals.lock().unwrap_or_else(|e| e.into_inner());
                arrivals.push(entity);
            });
            let mut progress = state.progress;
            if goal.is_changed() {
                progress.reset();
            }
            match (crowd.target(i), patience) {
                (Some(target), Some(patience)) if !at_target => {
                    let distance = position.distance(target);
                    let step = crowd.params_of(i).limits.reach_radius;
                    if progress.update(distance, step, dt, patience) {
                        let mut stalls = stalls.lock().unwrap_or_else(|e| e.into_inner());
                        stalls.push((entity, target, distance));
                    }
                }
                _ => progress.reset(),
            }
            *state = SteeringState::new(heading, position, crowd.memory(i), at_target, progress);
            if orient && heading != Vec3::ZERO {
                transform.rotation = match space {
                    Space::Volume => facing(heading),
                    Space::Planar => Quat::from_rotation_z(ops::atan2(heading.y, heading.x)),
                };
            }
        });
    let mut arrivals = arrivals.into_inner().unwrap_or_else(|e| e.into_inner());
    // In a fixed order, whatever the threads did.
    arrivals.sort_unstable();
    for entity in arrivals {
        if let Some(target) = sim.index_of(entity).and_then(|i| sim.crowd().target(i)) {
            commands.trigger(TargetReached { entity, target });
        }
    }
    let mut stalls = stalls.into_inner().unwrap_or_else(|e| e.into_inner());
    stalls.sort_unstable_by_key(|&(entity, ..)| entity);
    for (entity, target, distance) in stalls {
        commands.trigger(AgentStuck {
            entity,
            target,
            distance,
        });
    }
    sim.step_time += started.elapsed();
}

/// The rotation that turns local `-Z` toward `heading`, `+Y` up: what
/// `Transform::looking_to(heading, Vec3::Y)` gives, bit for bit, computed inline. Through
/// `Transform`, each call went out to `Dir3`'s conversions, which took a third of the copy back
/// at 100,000 agents.
#[inline]
fn facing(heading: Vec3) -> Quat {
    let length = heading.length();
    let forward = if length.is_finite() && length > 0.0 {
        heading / length
    } else {
        Vec3::NEG_Z
    };
    let back = -forward;
    let right = Vec3::Y
        .cross(back)
        .try_normalize()
        .unwrap_or_else(|| Vec3::Y.any_orthonormal_vector());
    let up = back.cross(right);
    Quat::from_mat3(&Mat3::from_cols(right, up, back))
}

/// Whether agent `i` is at its target after this tick, given whether it was (`was_there`);
/// calls `arrive` when it has just come within its reach radius. It leaves only beyond its
/// arrival radius (or twice the reach radius): an agent that overshoots and settles, or
/// settles on the edge, arrives once.
#[inline]
fn arrived(sim: &FlockSimulation, i: usize, was_there: bool, arrive: impl FnOnce()) -> bool {
    let crowd = sim.crowd();
    let Some(target) = crowd.target(i) else {
        return false;
    };
    if crowd.has_reached_target(i) {
        if !was_there {
            arrive();
        }
        return true;
    }
    let limits = crowd.params_of(i).limits;
    let leaving = limits.arrival_radius.max(2.0 * limits.reach_radius);
    was_there && crowd.position(i).distance(target) <= leaving
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `facing` gives `Transform::looking_to`'s rotation bit for bit: for headings all round
    /// the sphere, of any length, straight up and down (where `+Y` cannot be up), and the
    /// degenerate zero, tiny, huge and non-finite ones.
    #[test]
    fn facing_is_looking_to_bit_for_bit() {
        let mut unit = crate::testing::unit_generator(0x9E37_79B9_7F4A_7C15);
        let mut headings: Vec<Vec3> = (0..20_000)
            .map(|_| Vec3::new(unit() * 2.0 - 1.0, unit() * 2.0 - 1.0, unit() * 2.0 - 1.0))
            .collect();
        let scaled: Vec<Vec3> = headings
            .iter()
            .flat_map(|&h| [h.normalize_or_zero(), h * 1e-20, h * 1e30])
            .collect();
        headings.extend(scaled);
        headings.extend([
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::new(0.0, 3.0, 0.0),
            Vec3::new(1e-9, 1.0, 0.0),
            Vec3::ZERO,
            Vec3::splat(f32::NAN),
            Vec3::new(f32::INFINITY, 0.0, 1.0),
        ]);
        let mut turned = 0;
        for heading in headings {
            let expected = Transform::default().looking_to(heading, Vec3::Y).rotation;
            let got = facing(heading);
            let bits = |q: Quat| q.to_array().map(f32::to_bits);
            assert_eq!(bits(got), bits(expected), "heading {heading}");
            turned += usize::from(expected.angle_between(Quat::IDENTITY) > 0.1);
        }
        assert!(turned > 50_000, "only {turned} headings turned the agent");
    }
}
