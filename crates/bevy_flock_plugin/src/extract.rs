//! The copy into the kernel, one step per system: flocks, agents, leaders, predators.

use bevy::ecs::query::{QueryData, QueryEntityError};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::{AgentInput, Correction, Leader, ParamsId, Space, Threat, Value};

use crate::diagnostics::Reporter;
use crate::simulation::{FlockEntry, FlockSimulation};
use crate::step::TaskPoolExecutor;
use crate::{
    Agent, Boundary, DefaultFlock, DetailFocus, Flock, FlockTuning, FlockWeights, FlockingConfig,
    FollowLeader, InFlock, LeaderLost, Perception, Predator, SteeringLimits, SteeringState, Target,
    Velocity,
};

/// A flock's tuning components.
type FlockData = (
    Entity,
    &'static FlockWeights,
    &'static SteeringLimits,
    &'static Perception,
    &'static Boundary,
);

/// Starts the tick's copy: the crowd cleared and set up from the [`FlockingConfig`], and every
/// flock's tuning sanitised (reported once) and added as a parameter set, once per flock.
pub(crate) fn extract_flocks(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    flocks: Query<FlockData, With<Flock>>,
    focus: Query<&GlobalTransform, With<DetailFocus>>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let sim = &mut *sim;
    sim.clear();
    let crowd = sim.crowd_mut();
    crowd.set_space(config.space);
    crowd.set_seed(config.seed);
    crowd.set_executor(TaskPoolExecutor::new(&config));
    let focus = focus.iter().next().map(GlobalTransform::translation);
    crowd.set_level_of_detail(
        config.level_of_detail.filter(|_| focus.is_some()),
        focus.unwrap_or_default(),
    );
    for (number, (entity, weights, limits, perception, boundary)) in flocks.iter().enumerate() {
        let tuning = FlockTuning {
            weights: *weights,
            limits: *limits,
            perception: *perception,
            boundary: *boundary,
        };
        let (params, corrections) = tuning.sanitized();
        reporter.report(entity, &corrections);
        let params = sim.crowd_mut().add_params(params);
        sim.flock_entities.push(entity);
        let entry = FlockEntry {
            number: number as u32,
            params,
            tuning,
        };
        sim.flocks.insert(entity, entry);
    }
    sim.step_time = started.elapsed();
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
}

impl AgentDataItem<'_, '_> {
    /// Whether the agent overrides any part of its flock's tuning.
    #[inline]
    fn overrides(&self) -> bool {
        self.weights.is_some()
            || self.limits.is_some()
            || self.perception.is_some()
            || self.boundary.is_some()
    }
}

/// Where targets are: any entity with a transform, moving if it has a velocity.
type Whereabouts = (&'static GlobalTransform, Option<&'static Velocity>);

/// Pushes every agent into the kernel: its flock's parameters (or its own overrides of them),
/// its target (the quarry's velocity given for a pursuit), its state (values that are not
/// finite replaced, and reported once), and the memory it carries from the last tick; then
/// builds the neighbour grid.
pub(crate) fn extract_agents(
    mut sim: ResMut<FlockSimulation>,
    config: Res<FlockingConfig>,
    default_flock: Res<DefaultFlock>,
    agents: Query<AgentData, With<Agent>>,
    targets: Query<Whereabouts>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let sim = &mut *sim;
    let mut fallback: Option<ParamsId> = None;
    // Agents of one flock usually come in a row: look their flock up once per run (its number
    // and parameter set only: its tuning is large, and read only for agents that override it).
    let mut last_flock: Option<(Entity, Option<(u32, ParamsId)>)> = None;
    for agent in &agents {
        let flock_entity = agent.flock.map_or(default_flock.0, |f| f.0);
        let entry = match last_flock {
            Some((entity, entry)) if entity == flock_entity => entry,
            _ => {
                let entry = sim.flocks.get(&flock_entity).map(|e| (e.number, e.params));
                last_flock = Some((flock_entity, entry));
                entry
            }
        };
        let (flock, params) = agent_params(
            sim,
            &agent,
            flock_entity,
            entry,
            &mut fallback,
            &mut reporter,
        );
        let (target, quarry_velocity) = resolve_target(&agent, &targets, &mut reporter);
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
        let crowd = sim.crowd_mut();
        let i = crowd.push(input);
        if let Some(velocity) = quarry_velocity {
            crowd.pursue(i, velocity);
        }
        if agent.state.has_memory() {
            crowd.set_memory(i, agent.state.memory());
        }
        sim.add_entity(agent.entity, i);
    }
    // The grid at once, while the agents just copied are in this thread's cache.
    sim.crowd_mut().build_index();
    sim.step_time += started.elapsed();
}

/// `agent`'s flock number and parameter set: its flock's (`flock`, the number and set of
/// `flock_entity`), or, where it overrides part of its flock's tuning, a set of its own; the
/// defaults (created once, in `fallback`) for an agent whose flock is not a [`Flock`].
#[inline]
fn agent_params(
    sim: &mut FlockSimulation,
    agent: &AgentDataItem,
    flock_entity: Entity,
    flock: Option<(u32, ParamsId)>,
    fallback: &mut Option<ParamsId>,
    reporter: &mut Reporter,
) -> (u32, ParamsId) {
    let Some((number, params)) = flock else {
        reporter.warn_once(
            flock_entity,
            "not a flock",
            &format!(
                "is named as the flock of agent {} (and maybe others) but has no `Flock` component; its agents use the default tuning",
                agent.entity
            ),
        );
        let crowd = sim.crowd_mut();
        let id = *fallback.get_or_insert_with(|| crowd.add_params(FlockTuning::default()));
        return (u32::MAX, id);
    };
    if !agent.overrides() {
        return (number, params);
    }
    (number, own_params(sim, agent, flock_entity, reporter))
}

/// The parameter set of `agent`, which overrides part of the tuning of its flock
/// `flock_entity`: added to the crowd, its corrections reported once.
#[cold]
fn own_params(
    sim: &mut FlockSimulation,
    agent: &AgentDataItem,
    flock_entity: Entity,
    reporter: &mut Reporter,
) -> ParamsId {
    let Some(entry) = sim.flocks.get(&flock_entity) else {
        return ParamsId(u32::MAX);
    };
    let own = FlockTuning {
        weights: agent.weights.copied().unwrap_or(entry.tuning.weights),
        limits: agent.limits.copied().unwrap_or(entry.tuning.limits),
        perception: agent.perception.copied().unwrap_or(entry.tuning.perception),
        boundary: agent.boundary.copied().unwrap_or(entry.tuning.boundary),
    };
    let (own, corrections) = own.sanitized();
    reporter.report(agent.entity, &corrections);
    sim.crowd_mut().add_params(own)
}

/// The point `agent` seeks and, for a [`Target::Pursue`] of a moving entity, that entity's
/// velocity (the kernel leads the aim by it). A target that names the agent itself, or an
/// entity without a transform, is dropped and reported once.
#[inline]
fn resolve_target(
    agent: &AgentDataItem,
    targets: &Query<Whereabouts>,
    reporter: &mut Reporter,
) -> (Option<Vec3>, Option<Vec3>) {
    let target = match *agent.target {
        Target::None => return (None, None),
        Target::Point(point) => return (Some(point), None),
        Target::Entity(target) | Target::Pursue(target) => target,
    };
    if target == agent.entity {
        reporter.report(agent.entity, &[itself("target")]);
        return (None, None);
    }
    match targets.get(target) {
        Ok((transform, velocity)) => {
            let pursued = matches!(*agent.target, Target::Pursue(_));
            let quarry_velocity = velocity.filter(|_| pursued).map(|v| v.0);
            (Some(transform.translation()), quarry_velocity)
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
            (None, None)
        }
    }
}

/// Hands every follower its leader; a follower whose leader is gone gets [`LeaderLost`] and
/// loses its [`FollowLeader`], so that it is told once. One that names itself, or a leader
/// without a transform or with bad values, is not followed (and reported once).
pub(crate) fn extract_leaders(
    mut sim: ResMut<FlockSimulation>,
    followers: Query<(Entity, &FollowLeader), With<Agent>>,
    leaders: Query<Whereabouts>,
    mut commands: Commands,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    for (entity, follow) in &followers {
        let Some(i) = sim.index_of(entity) else {
            continue;
        };
        if follow.leader == entity {
            reporter.report(entity, &[itself("leader")]);
            continue;
        }
        match leaders.get(follow.leader) {
            Ok((transform, velocity)) => {
                let leader = Leader {
                    position: transform.translation(),
                    velocity: velocity.map_or(Vec3::ZERO, |v| v.0),
                    distance: follow.distance,
                };
                if !sim.crowd_mut().set_leader(i, Some(leader)) {
                    reporter.warn_once(
                        entity,
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
                    entity,
                    "leader without a transform",
                    &format!(
                        "follows {}, which has no transform; it is not followed until it has one",
                        follow.leader
                    ),
                );
            }
            Err(_) => {
                commands.entity(entity).remove::<FollowLeader>();
                commands.trigger(LeaderLost {
                    entity,
                    leader: follow.leader,
                });
            }
        }
    }
    sim.step_time += started.elapsed();
}

/// Hands the kernel every [`Predator`] as a threat to flee; one with a bad radius is reported
/// once and left out.
pub(crate) fn extract_predators(
    mut sim: ResMut<FlockSimulation>,
    predators: Query<(Entity, &Predator, &GlobalTransform, Option<&Velocity>)>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let mut found = Vec::with_capacity(predators.iter().len());
    for (entity, predator, transform, velocity) in &predators {
        let threat = Threat {
            position: transform.translation(),
            velocity: velocity.map_or(Vec3::ZERO, |v| v.0),
            radius: predator.radius,
        };
        if threat.is_valid() {
            found.push(threat);
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
                    threat.velocity
                ),
            );
        }
    }
    sim.crowd_mut().set_threats(found);
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
#[inline]
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
