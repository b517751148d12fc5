//! The kernel's stages as systems, and the copy of the moved agents back to their components.

use std::sync::Mutex;

use bevy::ecs::change_detection::{ContiguousMut, Tick};
use bevy::ecs::query::QueryData;
use bevy::ecs::system::StaticSystemParam;
use bevy::math::ops;
use bevy::platform::collections::HashSet;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::{ChunkExecutor, Serial, Space, for_each_part};

use crate::backend::source::ObstacleBackend;
use crate::executor::TaskPoolExecutor;
use crate::simulation::{FlockSimulation, on_ground, seen_since};
use crate::{Agent, AgentStuck, FlockingConfig, SteeringState, Target, TargetReached, Velocity};

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
/// progress toward them), written back table by table.
#[derive(QueryData)]
#[query_data(mutable, contiguous(mutable))]
pub(crate) struct Moved {
    entity: Entity,
    transform: &'static mut Transform,
    velocity: &'static mut Velocity,
    state: &'static mut SteeringState,
    target: Ref<'static, Target>,
}

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
///
/// The agents are written table by table, in parallel: a table whose entities are, in order, a
/// run of the crowd's (as the copy in left them, unless a table changed since or the crowd is in
/// [`AgentId`](crate::AgentId) order) is written row by row beside that run; the rows of any
/// other table find their agent in the crowd by entity.
fn write_back(
    sim: &mut FlockSimulation,
    config: &FlockingConfig,
    dt: f32,
    mut agents: Query<Moved, With<Agent>>,
    mut commands: Commands,
) {
    let started = Instant::now();
    let out = WriteBack {
        sim: &*sim,
        orient: config.orient_to_velocity,
        space: sim.crowd().space(),
        patience: config.stuck_after.map(|d| d.as_secs_f32()),
        dt,
        arrivals: Mutex::new(Vec::new()),
        stalls: Mutex::new(Vec::new()),
    };
    let executor = TaskPoolExecutor::new(config, &sim.main_thread);
    let chunk_len = executor.chunk_len(out.sim.entities().len());
    let mut parts = Vec::new();
    let tables = agents
        .contiguous_iter_mut()
        .expect("the moved agents' components are all stored in tables, so their query is dense");
    for table in tables {
        let first = crowd_run(out.sim, table.entity);
        Rows::split(table, first, chunk_len, out.sim.restored_at, &mut parts);
    }
    // A crowd of one chunk is written on this thread, however many tables it spans.
    let executor: &dyn ChunkExecutor = if out.sim.entities().len() > chunk_len {
        &executor
    } else {
        &Serial
    };
    for_each_part(executor, parts, |_, rows| {
        let (last_run, this_run) = rows.runs;
        for (row, &entity) in rows.entities.iter().enumerate() {
            let i = match rows.first {
                Some(first) => first + row,
                // Not in the crowd: spawned since the copy in.
                None => match out.sim.index_of(entity) {
                    Some(i) => i,
                    None => continue,
                },
            };
            out.agent(
                i,
                entity,
                Written {
                    transform: &mut rows.transforms[row],
                    velocity: &mut rows.velocities[row],
                    state: &mut rows.states[row],
                },
                rows.goals_changed[row].is_newer_than(last_run, this_run),
            );
        }
    });
    out.trigger_events(&mut commands);
    sim.restored_at = None;
    sim.step_time += started.elapsed();
}

impl WriteBack<'_> {
    /// Triggers [`TargetReached`] for the agents that arrived and [`AgentStuck`] for those that
    /// stalled, in entity order, whatever order the threads wrote them in.
    fn trigger_events(self, commands: &mut Commands) {
        let mut arrivals = self
            .arrivals
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        // In a fixed order, whatever the threads did.
        arrivals.sort_unstable();
        for entity in arrivals {
            if let Some(target) = self
                .sim
                .index_of(entity)
                .and_then(|i| self.sim.crowd().target(i))
            {
                commands.trigger(TargetReached { entity, target });
            }
        }
        let mut stalls = self.stalls.into_inner().unwrap_or_else(|e| e.into_inner());
        stalls.sort_unstable_by_key(|&(entity, ..)| entity);
        for (entity, target, distance) in stalls {
            commands.trigger(AgentStuck {
                entity,
                target,
                distance,
            });
        }
    }
}

/// The first agent of the crowd's run `entities` are, in order, if they are one (as the copy in
/// lays out each table, unless it changed since).
fn crowd_run(sim: &FlockSimulation, entities: &[Entity]) -> Option<usize> {
    let first = sim.index_of(*entities.first()?)?;
    (sim.entities().get(first..first + entities.len()) == Some(entities)).then_some(first)
}

/// A run of a table's rows, for one task of the write-back: agents `first..` of the crowd, or
/// where `first` is `None`, each found by entity.
struct Rows<'w> {
    first: Option<usize>,
    entities: &'w [Entity],
    transforms: &'w mut [Transform],
    velocities: &'w mut [Velocity],
    states: &'w mut [SteeringState],
    /// When each row's [`Target`] last changed, and when the system last saw them (its last run,
    /// or a restore since) and this run.
    goals_changed: &'w [Tick],
    runs: (Tick, Tick),
}

impl<'w> Rows<'w> {
    /// Splits `table`, agents `first..` of the crowd (or found by entity, where `None`), into
    /// runs of `len` rows, every row marked changed. A target changed before `restored_at` (a
    /// snapshot's restore since the last run) counts as seen.
    fn split(
        table: MovedContiguousItem<'w, '_>,
        first: Option<usize>,
        len: usize,
        restored_at: Option<Tick>,
        into: &mut Vec<Self>,
    ) {
        let (transforms, _) = ContiguousMut::split(table.transform);
        let (velocities, _) = ContiguousMut::split(table.velocity);
        let (states, _) = ContiguousMut::split(table.state);
        let (last_run, this_run) = (table.target.last_run_tick(), table.target.this_run_tick());
        let seen = seen_since(restored_at, last_run, this_run);
        let runs = (seen, this_run);
        let runs_of_rows = table
            .entity
            .chunks(len)
            .zip(transforms.chunks_mut(len))
            .zip(velocities.chunks_mut(len))
            .zip(states.chunks_mut(len))
            .zip(table.target.changed_ticks_slice().chunks(len));
        let mut first = first;
        for ((((entities, transforms), velocities), states), goals_changed) in runs_of_rows {
            into.push(Self {
                first,
                entities,
                transforms,
                velocities,
                states,
                goals_changed,
                runs,
            });
            first = first.map(|f| f + entities.len());
        }
    }
}

/// The components an agent's write-back sets.
struct Written<'a> {
    transform: &'a mut Transform,
    velocity: &'a mut Velocity,
    state: &'a mut SteeringState,
}

/// What the write-back of every agent reads, and the events it collects from any thread.
struct WriteBack<'a> {
    sim: &'a FlockSimulation,
    orient: bool,
    space: Space,
    /// [`FlockingConfig::stuck_after`], in seconds.
    patience: Option<f32>,
    dt: f32,
    arrivals: Mutex<Vec<Entity>>,
    stalls: Mutex<Vec<(Entity, Vec3, f32)>>,
}

impl WriteBack<'_> {
    /// Writes agent `i` of the crowd, `entity`, into `to`; `goal_changed` whether its
    /// [`Target`] changed since the last tick, which restarts its count of progress.
    #[inline]
    fn agent(&self, i: usize, entity: Entity, to: Written, goal_changed: bool) {
        let crowd = self.sim.crowd();
        let (position, heading) = (crowd.position(i), crowd.heading(i));
        to.transform.translation = on_ground(position, self.space);
        to.velocity.0 = crowd.velocity(i);
        let at_target = arrived(self.sim, i, to.state.at_target, || {
            let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
            arrivals.push(entity);
        });
        let mut progress = to.state.progress;
        if goal_changed {
            progress.reset();
        }
        match (crowd.target(i), self.patience) {
            (Some(target), Some(patience)) if !at_target => {
                let distance = position.distance(target);
                let step = crowd.params_of(i).limits.reach_radius;
                if progress.update(distance, step, self.dt, patience) {
                    let mut stalls = self.stalls.lock().unwrap_or_else(|e| e.into_inner());
                    stalls.push((entity, target, distance));
                }
            }
            _ => progress.reset(),
        }
        *to.state = SteeringState::new(heading, position, crowd.memory(i), at_target, progress);
        if self.orient && heading != Vec3::ZERO {
            to.transform.rotation = turned_to(heading, self.space);
        }
    }
}

/// The rotation the write-back gives an agent heading along `heading` (not zero) in `space`,
/// where [`FlockingConfig::orient_to_velocity`] is on: local `-Z` toward it in 3D, local `+X`
/// toward it on the plane.
#[inline]
pub(crate) fn turned_to(heading: Vec3, space: Space) -> Quat {
    match space {
        Space::Volume => facing(heading),
        Space::Planar => Quat::from_rotation_z(ops::atan2(heading.y, heading.x)),
    }
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
