//! The kernel as a resource, and the systems that copy agents in, step them and copy them out.

use core::time::Duration;

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::{QueryData, QueryEntityError};
use bevy::ecs::system::StaticSystemParam;
use bevy::math::ops;
use bevy::platform::collections::HashSet;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use std::sync::Mutex;

use flock_core::{
    AgentInput, ChunkExecutor, Correction, Crowd, Leader, ParamsId, Shape, Space, Threat, Value,
};

use crate::backend::{ObstacleBackend, ObstacleBackends};
use crate::diagnostics::Reporter;
use crate::*;

/// The flock's state for this tick in contiguous buffers (the [`flock_core::Crowd`]), filled in
/// [`FlockingSystems::NeighbourLookup`] and written back in [`FlockingSystems::Integration`].
///
/// Between those sets, systems can read any agent's position, velocity and force by entity,
/// and add forces of their own.
#[derive(Resource, Debug)]
pub struct FlockSimulation {
    crowd: Crowd,
    entities: Vec<Entity>,
    /// Kernel index by entity index (`Entity::index_u32`); an entry is valid only if `entities`
    /// holds the same entity there, so stale entries need no clearing.
    index: Vec<u32>,
    /// The flock entity of each flock number (agents whose flock is missing have a number
    /// past its end).
    flock_entities: Vec<Entity>,
    pub(crate) step_time: Duration,
    /// Agents that steered around an obstacle this tick.
    pub(crate) avoiding: usize,
}

/// An agent found by a spatial query of [`FlockSimulation`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearbyAgent {
    /// The agent.
    pub entity: Entity,
    /// Its distance from the query point.
    pub distance: f32,
}

impl FlockSimulation {
    pub(crate) fn new(space: Space) -> Self {
        Self {
            crowd: Crowd::new(space),
            entities: Vec::new(),
            index: Vec::new(),
            flock_entities: Vec::new(),
            step_time: Duration::ZERO,
            avoiding: 0,
        }
    }

    /// The kernel with this tick's agents, in the order of [`entities`](Self::entities).
    pub fn crowd(&self) -> &Crowd {
        &self.crowd
    }

    /// This tick's agents; agent `i` of the [`crowd`](Self::crowd) is `entities()[i]`.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The kernel index of `entity`, if it is an agent this tick.
    pub fn index_of(&self, entity: Entity) -> Option<usize> {
        let i = *self.index.get(entity.index_u32() as usize)? as usize;
        (self.entities.get(i) == Some(&entity)).then_some(i)
    }

    /// `entity`'s position this tick.
    pub fn position(&self, entity: Entity) -> Option<Vec3> {
        self.index_of(entity).map(|i| self.crowd.position(i))
    }

    /// `entity`'s velocity this tick.
    pub fn velocity(&self, entity: Entity) -> Option<Vec3> {
        self.index_of(entity).map(|i| self.crowd.velocity(i))
    }

    /// `entity`'s steering force accumulated so far this tick.
    pub fn force(&self, entity: Entity) -> Option<Vec3> {
        self.index_of(entity).map(|i| self.crowd.force(i))
    }

    /// The flock `entity` belongs to this tick, if it is an agent of an existing flock.
    pub fn flock_of(&self, entity: Entity) -> Option<Entity> {
        let flock = self.crowd.flock(self.index_of(entity)?);
        self.flock_entities.get(flock as usize).copied()
    }

    /// Every agent within `radius` of `point` for which `filter` holds, nearest first.
    ///
    /// Spatial queries answer from the neighbour grid, with positions as of this tick's
    /// [`FlockingSystems::NeighbourLookup`]: run them after that set. Any radius works; large
    /// ones cost more. A non-finite point or negative radius finds nothing.
    pub fn agents_within(
        &self,
        point: Vec3,
        radius: f32,
        mut filter: impl FnMut(Entity) -> bool,
    ) -> Vec<NearbyAgent> {
        let mut found = Vec::new();
        self.crowd.for_each_within(point, radius, |i, distance| {
            let entity = self.entities[i];
            if filter(entity) {
                found.push(NearbyAgent { entity, distance });
            }
        });
        found.sort_unstable_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.entity.cmp(&b.entity))
        });
        found
    }

    /// The `k` agents nearest to `point` for which `filter` holds, nearest first (see
    /// [`agents_within`](Self::agents_within) for when to query).
    pub fn k_nearest(
        &self,
        point: Vec3,
        k: usize,
        mut filter: impl FnMut(Entity) -> bool,
    ) -> Vec<NearbyAgent> {
        self.crowd
            .k_nearest(point, k, |i| filter(self.entities[i]))
            .into_iter()
            .map(|(i, distance)| NearbyAgent {
                entity: self.entities[i],
                distance,
            })
            .collect()
    }

    /// The agent nearest to `point` for which `filter` holds (see
    /// [`agents_within`](Self::agents_within) for when to query).
    pub fn nearest(&self, point: Vec3, filter: impl FnMut(Entity) -> bool) -> Option<NearbyAgent> {
        self.k_nearest(point, 1, filter).into_iter().next()
    }

    /// Feeds `entity` the flow to steer along this tick, weighted by
    /// [`FlockWeights::flow`]: the way to go, as a vector whose length (cut to 1) is the
    /// fraction of max speed asked for; it replaces what its flock's [`FlowField`] gave. The
    /// hook for a path follower or a flow of the game's own: call it after
    /// [`FlockingSystems::NeighbourLookup`] and before [`FlockingSystems::ForceAccumulation`].
    /// Non-finite flows are ignored. Returns whether `entity` is an agent this tick.
    pub fn set_flow(&mut self, entity: Entity, flow: Vec3) -> bool {
        match self.index_of(entity) {
            Some(i) => self.crowd.set_flow(i, flow),
            None => false,
        }
    }

    /// Makes `entity` back off from enemies this tick, toward a velocity along `away` at
    /// `urgency` (0 to 1) of its max speed, weighted by [`FlockWeights::standoff`]: what the
    /// squads do for each [`Combatant`]. Call it after [`FlockingSystems::NeighbourLookup`] and
    /// before [`FlockingSystems::ForceAccumulation`]. Returns whether it was kept (an agent this
    /// tick, a finite direction that is not zero, a finite urgency).
    pub fn set_standoff(&mut self, entity: Entity, away: Vec3, urgency: f32) -> bool {
        match self.index_of(entity) {
            Some(i) => self.crowd.set_standoff(i, away, urgency),
            None => false,
        }
    }

    /// Replaces `entity`'s steering force for this tick with `force` (an acceleration), dropping
    /// what the rules and [`add_force`](Self::add_force) gave it: for agents steered some other
    /// way, such as a [`PotentialField`] squad. Like an added force, it is added to what
    /// obstacle avoidance asks for, and the sum limited to the max force. Call it in
    /// [`FlockingSystems::ForceAccumulation`], after the plugin's systems. Non-finite forces
    /// are ignored. Returns whether `entity` is an agent this tick and the force was kept.
    pub fn replace_force(&mut self, entity: Entity, force: Vec3) -> bool {
        match self.index_of(entity) {
            Some(i) => self.crowd.replace_force(i, force),
            None => false,
        }
    }

    /// Adds `force` (an acceleration) to `entity`'s steering for this tick; the sum is still
    /// limited to the agent's max force. Non-finite forces are ignored. Returns whether
    /// `entity` is an agent this tick.
    pub fn add_force(&mut self, entity: Entity, force: Vec3) -> bool {
        match self.index_of(entity) {
            Some(i) => self.crowd.add_force(i, force),
            None => false,
        }
    }
}

/// What the plugin reads of each agent.
#[derive(QueryData)]
pub(crate) struct AgentData {
    entity: Entity,
    transform: &'static Transform,
    velocity: &'static Velocity,
    state: &'static SteeringState,
    target: &'static Target,
    flock: Option<&'static InFlock>,
    weights: Option<&'static FlockWeights>,
    limits: Option<&'static SteeringLimits>,
    perception: Option<&'static Perception>,
    boundary: Option<&'static Boundary>,
    follow: Option<&'static FollowLeader>,
}

type FlockData = (
    Entity,
    &'static FlockWeights,
    &'static SteeringLimits,
    &'static Perception,
    &'static Boundary,
    Option<&'static FlowField>,
);

/// A flock's number in the kernel and its parameter set, with its tuning for agents that
/// override part of it.
struct FlockEntry<'a> {
    number: u32,
    params: ParamsId,
    tuning: TuningParts<'a>,
    flow: Option<&'a FlowField>,
}

#[expect(
    clippy::too_many_arguments,
    reason = "a system's parameters: what it reads of the world"
)]
pub(crate) fn extract_agents(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    default_flock: Res<DefaultFlock>,
    flocks: Query<FlockData, With<Flock>>,
    agents: Query<AgentData, With<Agent>>,
    targets: Query<(&GlobalTransform, Option<&Velocity>)>,
    focus: Query<&GlobalTransform, With<DetailFocus>>,
    mut commands: Commands,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let sim = &mut *sim;
    sim.crowd.clear();
    sim.crowd.set_space(config.space);
    sim.crowd.set_seed(config.seed);
    let focus = focus.iter().next().map(GlobalTransform::translation);
    sim.crowd.set_level_of_detail(
        config.level_of_detail.filter(|_| focus.is_some()),
        focus.unwrap_or_default(),
    );
    sim.entities.clear();
    sim.flock_entities.clear();

    let mut flock_entries = EntityHashMap::default();
    for (number, (entity, weights, limits, perception, boundary, flow)) in flocks.iter().enumerate()
    {
        let tuning = TuningParts {
            weights,
            limits,
            perception,
            boundary,
        };
        let (params, corrections) = tuning.merged().sanitized();
        reporter.report(entity, &corrections);
        let params = sim.crowd.add_params(params);
        sim.flock_entities.push(entity);
        let number = number as u32;
        let flow = flow.filter(|field| {
            field.is_valid() || {
                reporter.warn_once(
                    entity,
                    "flow field",
                    "has a flow field with a cell size that is not positive and finite, or a non-finite origin; its agents ignore it",
                );
                false
            }
        });
        flock_entries.insert(
            entity,
            FlockEntry {
                number,
                params,
                tuning,
                flow,
            },
        );
    }
    let mut fallback: Option<ParamsId> = None;

    // Agents of one flock usually come in a row: look their flock up once per run.
    let mut last_flock: Option<(Entity, Option<&FlockEntry>)> = None;
    for agent in &agents {
        let flock_entity = agent.flock.map_or(default_flock.0, |f| f.0);
        let entry = match last_flock {
            Some((entity, entry)) if entity == flock_entity => entry,
            _ => {
                let entry = flock_entries.get(&flock_entity);
                last_flock = Some((flock_entity, entry));
                entry
            }
        };
        if entry.is_none() {
            reporter.warn_once(
                flock_entity,
                "not a flock",
                &format!(
                    "is named as the flock of agent {} (and maybe others) but has no `Flock` component; its agents use the default tuning",
                    agent.entity
                ),
            );
        }
        let (flock, params) = match entry {
            Some(entry) if has_override(&agent) => {
                let tuning = TuningParts {
                    weights: agent.weights.unwrap_or(entry.tuning.weights),
                    limits: agent.limits.unwrap_or(entry.tuning.limits),
                    perception: agent.perception.unwrap_or(entry.tuning.perception),
                    boundary: agent.boundary.unwrap_or(entry.tuning.boundary),
                };
                let (params, corrections) = tuning.merged().sanitized();
                reporter.report(agent.entity, &corrections);
                (entry.number, sim.crowd.add_params(params))
            }
            Some(entry) => (entry.number, entry.params),
            None => {
                let id =
                    *fallback.get_or_insert_with(|| sim.crowd.add_params(FlockTuning::default()));
                (u32::MAX, id)
            }
        };

        let target = match *agent.target {
            Target::None => None,
            Target::Point(point) => Some(point),
            Target::Entity(target) | Target::Pursue(target) if target == agent.entity => {
                reporter.report(agent.entity, &[itself("target")]);
                None
            }
            Target::Entity(target) | Target::Pursue(target) => match targets.get(target) {
                Ok((transform, velocity)) => {
                    let at = transform.translation();
                    match (*agent.target, velocity) {
                        (Target::Pursue(_), Some(velocity)) => {
                            let max_speed = agent
                                .limits
                                .or(entry.map(|e| e.tuning.limits))
                                .map_or(SteeringLimits::default().max_speed, |l| l.max_speed);
                            let distance = at.distance(agent.transform.translation);
                            Some(at + velocity.0 * flock_core::lead_time(distance, max_speed))
                        }
                        _ => Some(at),
                    }
                }
                Err(_) => {
                    reporter.warn_once(
                        target,
                        "despawned target",
                        &format!(
                            "is the target of agent {} (and maybe others) but has no transform or no longer exists; its followers seek nothing",
                            agent.entity
                        ),
                    );
                    None
                }
            },
        };

        let heading = if agent.state.heading != Vec3::ZERO {
            agent.state.heading
        } else {
            heading_of(agent.transform.rotation, config.space).unwrap_or_else(|correction| {
                reporter.report(agent.entity, &[correction]);
                Vec3::ZERO
            })
        };
        let input = AgentInput {
            position: agent.transform.translation,
            velocity: agent.velocity.0,
            heading,
            flock,
            params,
            target,
        };
        let (input, corrections) = input.sanitized(agent.state.last_valid_position);
        reporter.report(agent.entity, &corrections);

        let i = sim.crowd.push(input);
        if let Some(follow) = agent.follow.filter(|follow| {
            follow.leader != agent.entity || {
                reporter.report(agent.entity, &[itself("leader")]);
                false
            }
        }) {
            match targets.get(follow.leader) {
                Ok((transform, velocity)) => {
                    let leader = Leader {
                        position: transform.translation(),
                        velocity: velocity.map_or(Vec3::ZERO, |v| v.0),
                        distance: follow.distance,
                    };
                    if !sim.crowd.set_leader(i, Some(leader)) {
                        reporter.warn_once(
                            agent.entity,
                            "leader",
                            &format!(
                                "follows {} at distance {} from {} moving at {}; a distance must be finite and not negative, and the leader's position and velocity finite, so it is not followed",
                                follow.leader, follow.distance, leader.position, leader.velocity
                            ),
                        );
                    }
                }
                Err(QueryEntityError::QueryDoesNotMatch(..)) => {
                    // It exists but has no place in the world (yet): not lost, not followed.
                    reporter.warn_once(
                        agent.entity,
                        "leader without a transform",
                        &format!(
                            "follows {}, which has no transform; it is not followed until it has one",
                            follow.leader
                        ),
                    );
                }
                Err(_) => {
                    commands.entity(agent.entity).remove::<FollowLeader>();
                    commands.trigger(LeaderLost {
                        entity: agent.entity,
                        leader: follow.leader,
                    });
                }
            }
        }
        if let Some(flow) = entry
            .and_then(|e| e.flow)
            .and_then(|f| f.sample(input.position))
        {
            sim.crowd.set_flow(i, flow);
        }
        sim.crowd.set_memory(i, agent.state.memory());
        sim.entities.push(agent.entity);
        let slot = agent.entity.index_u32() as usize;
        if sim.index.len() <= slot {
            sim.index.resize(slot + 1, u32::MAX);
        }
        sim.index[slot] = i as u32;
    }

    sim.crowd.set_executor(TaskPoolExecutor::new(&config));
    sim.crowd.build_index();
    sim.step_time = started.elapsed();
}

/// Copies the obstacles and the [`Terrain`]'s unwalkable tiles into the kernel, in world
/// space; degenerate obstacles are reported once and left out, as are corrections to
/// [`FlockingConfig::avoidance`].
#[expect(
    clippy::too_many_arguments,
    reason = "a system's parameters: what it reads of the world"
)]
pub(crate) fn extract_obstacles(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    obstacles: Query<(Entity, &Obstacle, &GlobalTransform)>,
    terrain: Option<Res<Terrain>>,
    backends: Res<ObstacleBackends>,
    mut reporter: Reporter,
    mut reported_fields: Local<HashSet<&'static str>>,
    mut terrain_boxes: Local<Vec<Shape>>,
) {
    let started = Instant::now();
    let (avoidance, corrections) = config.avoidance.sanitized();
    for correction in corrections {
        if reported_fields.insert(correction.field) {
            warn!("bevy_flock: FlockingConfig::{correction}");
        }
    }
    sim.crowd.set_avoidance(avoidance);
    match &terrain {
        Some(terrain) if terrain.is_changed() => *terrain_boxes = terrain.blocking_boxes(),
        Some(_) => {}
        None => terrain_boxes.clear(),
    }
    let mut shapes = Vec::with_capacity(obstacles.iter().len() + terrain_boxes.len());
    shapes.extend_from_slice(&terrain_boxes);
    for (entity, obstacle, transform) in &obstacles {
        let Some(shape) = shape_of(obstacle, transform) else {
            if backends.is_built_in() {
                reporter.warn_once(
                    entity,
                    "collider obstacle",
                    "is an `Obstacle::Collider` but no physics backend is installed (bevy_flock_rapier's `FlockRapierPlugin`); agents ignore it",
                );
            }
            continue;
        };
        if shape.is_valid() {
            shapes.push(shape);
        } else {
            reporter.report_in_detail(
                entity,
                Correction {
                    field: "obstacle",
                    found: Value::Vector(transform.scale()),
                    used: Value::None,
                    rule: "must have a positive, finite size and a finite transform (found: its scale); agents ignore it",
                },
                &format!(
                    "has a degenerate obstacle ({obstacle:?} at {}, scale {}); agents ignore it",
                    transform.translation(),
                    transform.scale()
                ),
            );
        }
    }
    sim.crowd.set_obstacles(shapes);
    sim.step_time += started.elapsed();
}

/// Copies the predators into the kernel; one with a bad radius is reported once and left out.
pub(crate) fn extract_predators(
    mut sim: ResMut<FlockSimulation>,
    predators: Query<(Entity, &Predator, &GlobalTransform, Option<&Velocity>)>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let mut found = Vec::with_capacity(predators.iter().len());
    for (entity, predator, transform, velocity) in &predators {
        let kernel = Threat {
            position: transform.translation(),
            velocity: velocity.map_or(Vec3::ZERO, |v| v.0),
            radius: predator.radius,
        };
        if kernel.is_valid() {
            found.push(kernel);
        } else {
            reporter.report_in_detail(
                entity,
                Correction {
                    field: "predator",
                    found: Value::Scalar(predator.radius),
                    used: Value::None,
                    rule: "must have a positive, finite radius (found) and a finite position and velocity; agents ignore it",
                },
                &format!(
                    "is a predator with radius {} at {} moving at {}; agents ignore it",
                    predator.radius,
                    transform.translation(),
                    kernel.velocity
                ),
            );
        }
    }
    sim.crowd.set_threats(found);
    sim.step_time += started.elapsed();
}

/// The correction for an agent that names itself as its `field` (target or leader).
fn itself(field: &'static str) -> Correction {
    Correction {
        field,
        found: Value::None,
        used: Value::None,
        rule: "must be another entity than the agent itself; it is ignored",
    }
}

/// The way an agent rotated by `rotation` faces (local `-Z` in 3D, `+X` on the plane), or,
/// for a rotation that is not a finite unit quaternion, the correction to report: the heading
/// then comes from the velocity.
fn heading_of(rotation: Quat, space: Space) -> Result<Vec3, Correction> {
    if !rotation.is_finite() || (rotation.length_squared() - 1.0).abs() > 1e-3 {
        return Err(Correction {
            field: "rotation",
            found: Value::Scalar(rotation.length()),
            used: Value::None,
            rule: "must be a unit quaternion (found: its length); the heading comes from the velocity",
        });
    }
    Ok(match space {
        Space::Volume => rotation * Vec3::NEG_Z,
        Space::Planar => rotation * Vec3::X,
    })
}

/// An obstacle in world space, placed and scaled by its transform (a sphere by its largest
/// scale, a capsule's radius by the largest across its axis); `None` for a collider, which is
/// the physics backend's.
fn shape_of(obstacle: &Obstacle, transform: &GlobalTransform) -> Option<Shape> {
    let (scale, rotation, centre) = transform.to_scale_rotation_translation();
    let scale = scale.abs();
    Some(match *obstacle {
        Obstacle::Sphere { radius } => Shape::Sphere {
            centre,
            radius: radius * scale.max_element(),
        },
        Obstacle::Box { half_extents } => Shape::Box {
            centre,
            half_extents: half_extents * scale,
            rotation,
        },
        Obstacle::HalfSpace { normal } => Shape::HalfSpace {
            point: centre,
            normal: rotation * normal.as_vec3(),
        },
        Obstacle::Capsule {
            half_length,
            radius,
        } => {
            let half = rotation * Vec3::Y * (half_length * scale.y);
            Shape::Capsule {
                a: centre - half,
                b: centre + half,
                radius: radius * scale.x.max(scale.z),
            }
        }
        Obstacle::Collider => return None,
    })
}

fn has_override(agent: &AgentDataItem) -> bool {
    agent.weights.is_some()
        || agent.limits.is_some()
        || agent.perception.is_some()
        || agent.boundary.is_some()
}

/// Runs the crowd's per-agent passes in chunks on Bevy's compute task pool.
struct TaskPoolExecutor {
    chunk_size: usize,
}

impl ChunkExecutor for TaskPoolExecutor {
    fn chunk_len(&self, _len: usize) -> usize {
        self.chunk_size.max(1)
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

impl TaskPoolExecutor {
    fn new(config: &FlockingConfig) -> Self {
        Self {
            chunk_size: config.parallel_chunk_size,
        }
    }
}

pub(crate) fn accumulate_forces(mut sim: ResMut<FlockSimulation>) {
    let started = Instant::now();
    sim.crowd.accumulate_forces();
    sim.step_time += started.elapsed();
}

pub(crate) fn avoid_obstacles<B: ObstacleBackend>(
    mut sim: ResMut<FlockSimulation>,
    backend: StaticSystemParam<B::Param>,
) {
    let started = Instant::now();
    sim.avoiding = B::with_obstacles(&backend, |colliders| sim.crowd.avoid_obstacles(colliders));
    sim.step_time += started.elapsed();
}

pub(crate) fn integrate<B: ObstacleBackend>(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    backend: StaticSystemParam<B::Param>,
    time: Res<Time>,
    mut agents: Query<(Entity, &mut Transform, &mut Velocity, &mut SteeringState), With<Agent>>,
    mut commands: Commands,
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
    B::with_obstacles(&backend, |colliders| {
        sim.crowd.integrate(dt.as_secs_f32(), colliders)
    });

    // Each agent's write-back is independent: spread it over the compute task pool.
    let (orient, space) = (config.orient_to_velocity, config.space);
    let sim_ref = &*sim;
    let arrivals = Mutex::new(Vec::new());
    agents
        .par_iter_mut()
        .for_each(|(entity, mut transform, mut velocity, mut state)| {
            let Some(i) = sim_ref.index_of(entity) else {
                return;
            };
            let position = sim_ref.crowd.position(i);
            let heading = sim_ref.crowd.heading(i);
            transform.translation = position;
            velocity.0 = sim_ref.crowd.velocity(i);
            let at_target = match sim_ref.crowd.target(i) {
                Some(target) if sim_ref.crowd.has_reached_target(i) => {
                    if !state.at_target {
                        let mut arrivals = arrivals.lock().unwrap_or_else(|e| e.into_inner());
                        arrivals.push(TargetReached { entity, target });
                    }
                    true
                }
                // It leaves only beyond its arrival radius (or twice the reach radius): an
                // agent that overshoots and settles, or settles on the edge, arrives once.
                Some(target) => {
                    let limits = sim_ref.crowd.params_of(i).limits;
                    let leaving = limits.arrival_radius.max(2.0 * limits.reach_radius);
                    state.at_target && position.distance(target) <= leaving
                }
                None => false,
            };
            *state = SteeringState::new(heading, position, sim_ref.crowd.memory(i), at_target);
            if orient && heading != Vec3::ZERO {
                transform.rotation = match space {
                    Space::Volume => Transform::default().looking_to(heading, Vec3::Y).rotation,
                    Space::Planar => Quat::from_rotation_z(ops::atan2(heading.y, heading.x)),
                };
            }
        });
    let mut arrivals = arrivals.into_inner().unwrap_or_else(|e| e.into_inner());
    // In a fixed order, whatever the threads did.
    arrivals.sort_unstable_by_key(|a| a.entity);
    for arrival in arrivals {
        commands.trigger(arrival);
    }
    sim.step_time += started.elapsed();
}

/// The four tuning parts of one agent, each possibly overriding its flock's.
#[derive(Clone, Copy)]
struct TuningParts<'a> {
    weights: &'a FlockWeights,
    limits: &'a SteeringLimits,
    perception: &'a Perception,
    boundary: &'a Boundary,
}

impl TuningParts<'_> {
    /// The parts as one tuning.
    fn merged(&self) -> FlockTuning {
        FlockTuning {
            weights: *self.weights,
            limits: *self.limits,
            perception: *self.perception,
            boundary: *self.boundary,
        }
    }
}
