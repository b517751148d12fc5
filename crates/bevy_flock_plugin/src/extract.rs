//! The copy into the kernel, one step per system: flocks, agents, leaders, predators.

use std::sync::{Mutex, PoisonError};

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::QueryData;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::{AgentInput, Correction, NewAgent, ParamsId, Space, Value};

use crate::agent_order::{AgentOrder, sort_ids_first};
use crate::destination::{Destination, WayAhead};
use crate::diagnostics::Reporter;
use crate::executor::TaskPoolExecutor;
use crate::simulation::{FlockEntry, FlockSimulation, kernel_position};
use crate::{
    Agent, AgentId, Boundary, DefaultFlock, DetailFocus, Flock, FlockTuning, FlockWeights,
    FlockingConfig, InFlock, OnFloor, Perception, SteeringLimits, SteeringState, Target, Velocity,
};

/// A flock's tuning components, and its id if it has one.
type FlockData = (
    Entity,
    Option<&'static AgentId>,
    &'static FlockWeights,
    &'static SteeringLimits,
    &'static Perception,
    &'static Boundary,
);

/// Starts the tick's copy: the crowd cleared and set up from the [`FlockingConfig`], and every
/// flock's tuning sanitised (reported once) and added as a parameter set, once per flock.
/// Flocks are numbered in [`ids_first`](crate::agent_order::ids_first) order: a flock's number (which the checksum covers)
/// then hangs on its [`AgentId`], not on the order Bevy stores the flocks in.
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
    let executor = TaskPoolExecutor::new(&config, &sim.main_thread);
    let crowd = sim.crowd_mut();
    crowd.set_seed(config.seed);
    crowd.set_executor(executor);
    let focus = focus.iter().next().map(GlobalTransform::translation);
    crowd.set_level_of_detail(
        config.level_of_detail.filter(|_| focus.is_some()),
        focus.unwrap_or_default(),
    );
    let mut in_order: Vec<_> = flocks.iter().collect();
    sort_ids_first(&mut in_order, |flock| flock.1.map(|id| id.0));
    for (number, (entity, _, weights, limits, perception, boundary)) in
        in_order.into_iter().enumerate()
    {
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
#[query_data(contiguous(all))]
pub(crate) struct AgentData {
    entity: Entity,
    id: Option<&'static AgentId>,
    transform: &'static Transform,
    floor: Option<&'static OnFloor>,
    velocity: &'static Velocity,
    state: &'static SteeringState,
    target: &'static Target,
    /// Where following saw the way ahead, for an agent with a destination (a way ahead left
    /// by a destination removed is not read).
    way: Option<&'static WayAhead>,
    destination: Option<&'static Destination>,
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

impl AgentDataContiguousItem<'_, '_> {
    /// How many agents the table holds.
    fn len(&self) -> usize {
        self.entity.len()
    }

    /// Whether its agents override part of their flock's tuning.
    fn overrides(&self) -> bool {
        self.weights.is_some()
            || self.limits.is_some()
            || self.perception.is_some()
            || self.boundary.is_some()
    }
}

/// Where targets are: any entity with a transform, moving if it has a velocity.
pub(crate) type Whereabouts = (&'static GlobalTransform, Option<&'static Velocity>);

/// Pushes every agent into the kernel: its flock's parameters (or its own overrides of them),
/// its target (the quarry's velocity given for a pursuit), its state (values that are not
/// finite replaced, and reported once), and the memory it carries from the last tick; then
/// builds the neighbour grid.
///
/// The agents are read in parallel, in the order a query visits their tables, or where every
/// agent has an [`AgentId`], in id order (see [`AgentOrder`] and [`TableCopy`]); the few that
/// need more than a read (their own tuning, something to report) are settled after, one at a
/// time, in that order.
pub(crate) fn extract_agents(
    mut sim: ResMut<FlockSimulation>,
    default_flock: Res<DefaultFlock>,
    agents: Query<AgentData, With<Agent>>,
    targets: Query<Whereabouts>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let sim = &mut *sim;
    let tables: Vec<_> = agents
        .contiguous_iter()
        .expect("the agents' components are all stored in tables, so their query is dense")
        .collect();
    let entities: Vec<&[Entity]> = tables.iter().map(|t| t.entity).collect();
    let ids: Vec<_> = tables.iter().map(|t| t.id).collect();
    let order = AgentOrder::of(&entities, &ids, &mut reporter);
    match &order.sources {
        None => entities.iter().for_each(|e| sim.add_entities(e)),
        Some(sources) => {
            let ordered: Vec<Entity> = (sources.iter())
                .map(|&(t, row)| entities[t as usize][row as usize])
                .collect();
            sim.add_entities(&ordered);
        }
    }
    sim.ids = order.ids;
    let (crowd, flocks) = sim.crowd_and_flocks();
    let copy = TableCopy {
        sources: order.sources,
        ..TableCopy::new(&tables, flocks, default_flock.0, &targets, crowd.space())
    };
    let unsettled = Mutex::new(Vec::new());
    crowd.push_all(copy.len(), |first, batch| {
        let left = copy.fill(first, batch);
        if !left.is_empty() {
            let mut unsettled = unsettled.lock().unwrap_or_else(PoisonError::into_inner);
            unsettled.extend(left);
        }
    });
    let mut unsettled = unsettled
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    unsettled.sort_unstable();
    let mut fallback: Option<ParamsId> = None;
    for i in unsettled {
        let Ok(agent) = agents.get(sim.entities()[i]) else {
            continue;
        };
        let settled = settle(
            sim,
            &agent,
            &default_flock,
            &targets,
            &mut fallback,
            &mut reporter,
        );
        sim.crowd_mut().set_agent(i, settled);
    }
    // The grid at once, while the agents just copied are in this thread's cache.
    sim.crowd_mut().build_index();
    sim.step_time += started.elapsed();
}

/// The agents' tables, laid end to end in the order a query visits them (or in `sources`'
/// order), read into the kernel's [`NewAgent`]s by any thread.
struct TableCopy<'a, 'w, 's> {
    tables: &'a [AgentDataContiguousItem<'w, 's>],
    /// The first agent of each table, and past the end, the number of agents.
    starts: Vec<usize>,
    /// By kernel index, the table and row of each agent, where that is not the tables' order
    /// (see [`AgentOrder`]).
    sources: Option<Vec<(u32, u32)>>,
    flocks: &'a EntityHashMap<FlockEntry>,
    default_flock: Entity,
    targets: &'a Query<'w, 's, Whereabouts>,
    space: Space,
}

impl<'a, 'w, 's> TableCopy<'a, 'w, 's> {
    fn new(
        tables: &'a [AgentDataContiguousItem<'w, 's>],
        flocks: &'a EntityHashMap<FlockEntry>,
        default_flock: Entity,
        targets: &'a Query<'w, 's, Whereabouts>,
        space: Space,
    ) -> Self {
        let mut starts = Vec::with_capacity(tables.len() + 1);
        starts.push(0);
        for table in tables {
            starts.push(starts[starts.len() - 1] + table.len());
        }
        Self {
            tables,
            starts,
            sources: None,
            flocks,
            default_flock,
            targets,
            space,
        }
    }

    /// How many agents the tables hold.
    fn len(&self) -> usize {
        self.starts[self.tables.len()]
    }

    /// Writes agents `first..first + batch.len()` into `batch`; returns those that need settling
    /// one at a time (see [`settle`]), whose entries are left as they were.
    fn fill(&self, first: usize, batch: &mut [NewAgent]) -> Vec<usize> {
        let mut unsettled = Vec::new();
        // The last table holding `first`: empty tables are skipped.
        let mut t = self.starts.partition_point(|&start| start <= first) - 1;
        // Agents of one flock usually come in a row: look their flock up once per run.
        let mut last_flock: Option<(Entity, Option<(u32, ParamsId)>)> = None;
        for (i, out) in (first..).zip(batch.iter_mut()) {
            let (table, row) = match &self.sources {
                Some(sources) => (sources[i].0 as usize, sources[i].1 as usize),
                None => {
                    while i >= self.starts[t + 1] {
                        t += 1;
                    }
                    (t, i - self.starts[t])
                }
            };
            match self.read(&self.tables[table], row, &mut last_flock) {
                Some(agent) => *out = agent,
                None => unsettled.push(i),
            }
        }
        unsettled
    }

    /// Row `row` of `table` as the kernel takes it, or `None` if it needs settling one at a time:
    /// it overrides its flock's tuning, or has something to report (a missing flock or target,
    /// itself as target, values that are not finite, a broken rotation).
    #[inline]
    fn read(
        &self,
        table: &AgentDataContiguousItem,
        row: usize,
        last_flock: &mut Option<(Entity, Option<(u32, ParamsId)>)>,
    ) -> Option<NewAgent> {
        if table.overrides() {
            return None;
        }
        let entity = table.entity[row];
        let flock_entity = table.flock.map_or(self.default_flock, |f| f[row].0);
        let (flock, params) = match *last_flock {
            Some((entity, entry)) if entity == flock_entity => entry,
            _ => {
                let entry = self.flocks.get(&flock_entity).map(|e| (e.number, e.params));
                *last_flock = Some((flock_entity, entry));
                entry
            }
        }?;
        let (target, quarry_velocity) =
            find_target(entity, &table.target[row], self.targets).ok()?;
        let state = &table.state[row];
        let transform = &table.transform[row];
        let heading = if state.heading != Vec3::ZERO {
            state.heading
        } else {
            heading_of(transform.rotation, self.space).ok()?
        };
        let floor = table.floor.map(|floors| floors[row]);
        let input = AgentInput {
            position: kernel_position(transform.translation, floor, self.space),
            velocity: table.velocity[row].0,
            heading,
            flock,
            params,
            target,
        };
        let target_in_sight = table.destination.is_some()
            && table
                .way
                .is_some_and(|ways| ways[row].sees(&table.target[row]));
        input.is_finite().then(|| NewAgent {
            input,
            quarry_velocity,
            memory: state.memory(),
            target_in_sight,
        })
    }
}

/// `agent` as the kernel takes it, everything about it reported (once): its flock (or the
/// defaults, created once in `fallback`, if that is not a [`Flock`]), its own tuning if it
/// overrides part of its flock's, its target, its heading, and its values made finite.
fn settle(
    sim: &mut FlockSimulation,
    agent: &AgentDataItem,
    default_flock: &DefaultFlock,
    targets: &Query<Whereabouts>,
    fallback: &mut Option<ParamsId>,
    reporter: &mut Reporter,
) -> NewAgent {
    let flock_entity = agent.flock.map_or(default_flock.0, |f| f.0);
    let entry = sim.flocks.get(&flock_entity).map(|e| (e.number, e.params));
    let (flock, params) = agent_params(sim, agent, flock_entity, entry, fallback, reporter);
    let (target, quarry_velocity) = resolve_target(agent, targets, reporter);
    let heading = if agent.state.heading != Vec3::ZERO {
        agent.state.heading
    } else {
        heading_of(agent.transform.rotation, sim.crowd().space()).unwrap_or_else(|correction| {
            reporter.report(agent.entity, &[correction]);
            Vec3::ZERO
        })
    };
    let space = sim.crowd().space();
    let input = AgentInput {
        position: kernel_position(agent.transform.translation, agent.floor.copied(), space),
        velocity: agent.velocity.0,
        heading,
        flock,
        params,
        target,
    };
    let (input, corrections) = input.sanitized(agent.state.last_valid_position);
    reporter.report(agent.entity, &corrections);
    NewAgent {
        input,
        quarry_velocity,
        memory: agent.state.memory(),
        target_in_sight: agent.destination.is_some()
            && agent.way.is_some_and(|way| way.sees(agent.target)),
    }
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

/// Why an agent's target entity gives no point to seek.
enum Unfound {
    /// The agent names itself.
    Itself,
    /// The named entity has no transform, or no longer exists.
    Gone(Entity),
}

/// The point `entity`, whose target is `target`, seeks and, for a [`Target::Pursue`] of a
/// moving entity, that entity's velocity (the kernel leads the aim by it); or why a target
/// entity gives none.
#[inline]
fn find_target(
    entity: Entity,
    target: &Target,
    targets: &Query<Whereabouts>,
) -> Result<(Option<Vec3>, Option<Vec3>), Unfound> {
    let quarry = match *target {
        Target::None => return Ok((None, None)),
        Target::Point(point) => return Ok((Some(point), None)),
        Target::Entity(quarry) | Target::Pursue(quarry) => quarry,
    };
    if quarry == entity {
        return Err(Unfound::Itself);
    }
    let (transform, velocity) = targets.get(quarry).map_err(|_| Unfound::Gone(quarry))?;
    let pursued = matches!(*target, Target::Pursue(_));
    let quarry_velocity = velocity.filter(|_| pursued).map(|v| v.0);
    Ok((Some(transform.translation()), quarry_velocity))
}

/// [`find_target`] for `agent`: a target that names the agent itself, or an entity without a
/// transform, is dropped and reported once.
#[inline]
fn resolve_target(
    agent: &AgentDataItem,
    targets: &Query<Whereabouts>,
    reporter: &mut Reporter,
) -> (Option<Vec3>, Option<Vec3>) {
    match find_target(agent.entity, agent.target, targets) {
        Ok(found) => found,
        Err(Unfound::Itself) => {
            reporter.report(agent.entity, &[itself("target")]);
            (None, None)
        }
        Err(Unfound::Gone(target)) => {
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

/// The correction for an agent that names itself as its `field` (target or leader).
pub(crate) fn itself(field: &'static str) -> Correction {
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
        Space::Volume => flock_core::rotated(rotation, Vec3::NEG_Z),
        Space::Planar => flock_core::rotated(rotation, Vec3::X),
    })
}
