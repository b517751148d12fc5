//! Taking a [`FlockSnapshot`] of a world.

use bevy::ecs::query::QueryState;
use bevy::prelude::*;
use flock_core::Space;

use super::record::{AgentRecord, AgentState, TargetRecord};
use super::routes::Routes;
use super::units::Units;
use super::{FlockSnapshot, SnapshotError};
use crate::simulation::FlockSimulation;
use crate::{Agent, AgentId, FlockingSetup, OnFloor, SteeringState, Target, Velocity};

/// Bytes reserved for each agent: about what an agent with most optional parts takes (a
/// crowd that outgrew a smaller guess was copied as it grew); what is left unused is given
/// back after, and memory reserved and never written costs nothing.
const RESERVED_A_RECORD: usize = 128;

impl FlockSnapshot {
    /// A snapshot of `world` as it stands: take it between ticks (between two updates, or in
    /// an exclusive system after [`FlockingSystems::Last`](crate::FlockingSystems::Last)), when
    /// the agents' components hold what the last tick left.
    ///
    /// Fails, taking nothing, where an agent has no [`AgentId`] or shares one, where an agent
    /// targets an entity without one, or where a squad with orders has none. At 100,000
    /// agents it takes 10 to 15 ms (BENCHMARKS.md).
    pub fn take(world: &mut World) -> Result<Self, SnapshotError> {
        let space = world
            .get_resource::<FlockingSetup>()
            .ok_or(SnapshotError::NoPlugin)?
            .space();
        let tick = world
            .get_resource::<FlockSimulation>()
            .ok_or(SnapshotError::NoPlugin)?
            .crowd()
            .tick();
        let order = agents_by_id(world)?;
        let units = Units::of(world, &order.agents)?;
        let routes = Routes::take(world, &units);
        let routes = postcard::to_allocvec(&routes).expect("orders always serialise");
        let mut query = world.query_filtered::<AgentParts, With<Agent>>();
        let world: &World = world;
        let mut agents = Vec::with_capacity(order.agents.len() * RESERVED_A_RECORD);
        let mut write = |parts| encode(world, space, parts, &mut agents);
        // Whether this query visits the agents in id order (another query may visit their
        // tables in another order).
        let in_order = (query.iter(world).map(|parts| parts.0.map(|id| id.0)))
            .eq(order.agents.iter().map(|&(id, _)| Some(id)));
        if in_order {
            // Agents spawned in id order, say: read as stored.
            query.iter(world).try_for_each(&mut write)?;
        } else {
            order.agents.iter().try_for_each(|&(_, entity)| {
                write(query.get(world, entity).expect("an agent just found"))
            })?;
        }
        agents.shrink_to_fit();
        Ok(Self {
            version: Self::FORMAT_VERSION,
            tick,
            len: order.agents.len() as u64,
            agents,
            routes_digest: super::digest(&routes),
            routes,
            checked: true,
        })
    }
}

/// What a snapshot reads of each agent.
type AgentParts = (
    Option<&'static AgentId>,
    &'static Transform,
    &'static Velocity,
    &'static SteeringState,
    &'static Target,
    Option<&'static OnFloor>,
);

/// Appends the agent `parts` to `agents` (an agent of `world`, in `space`, whose id was
/// checked).
fn encode(
    world: &World,
    space: Space,
    parts: (
        Option<&AgentId>,
        &Transform,
        &Velocity,
        &SteeringState,
        &Target,
        Option<&OnFloor>,
    ),
    agents: &mut Vec<u8>,
) -> Result<(), SnapshotError> {
    let (id, transform, velocity, state, target, floor) = parts;
    let id = id.expect("every agent's id was checked").0;
    let agent = AgentState {
        transform: *transform,
        velocity: *velocity,
        state: *state,
        floor: floor.copied(),
    };
    let named = name_target(world, id, *target)?;
    let record = AgentRecord::new(id, &agent, named, space);
    *agents = postcard::to_extend(&record, core::mem::take(agents))
        .expect("a record always serialises: a Vec grows as needed");
    Ok(())
}

/// A world's agents by id.
pub(super) struct ById {
    /// Each agent's id and entity, by id, ascending.
    pub(super) agents: Vec<(u64, Entity)>,
}

/// `world`'s agents by id; fails where one has no id or two share one.
pub(super) fn agents_by_id(world: &mut World) -> Result<ById, SnapshotError> {
    let mut named: QueryState<(Entity, Option<&AgentId>), With<Agent>> = world.query_filtered();
    let mut agents = Vec::with_capacity(named.iter(world).len());
    for (entity, id) in named.iter(world) {
        let id = id.ok_or(SnapshotError::UnnamedAgent { entity })?;
        agents.push((id.0, entity));
    }
    if !agents.is_sorted_by_key(|&(id, _)| id) {
        agents.sort_unstable_by_key(|&(id, _)| id);
    }
    if let Some(shared) = agents.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(SnapshotError::SharedId { id: shared[0].0 });
    }
    Ok(ById { agents })
}

/// Agent `agent`'s target, with an entity named by its [`AgentId`]; one that no longer exists
/// is no target (the plugin seeks nothing toward it either).
fn name_target(world: &World, agent: u64, target: Target) -> Result<TargetRecord, SnapshotError> {
    let name = |entity: Entity| match world.get_entity(entity) {
        Err(_) => Ok(None),
        Ok(found) => found
            .get::<AgentId>()
            .map(|id| Some(id.0))
            .ok_or(SnapshotError::UnnamedTarget { agent }),
    };
    Ok(match target {
        Target::None => TargetRecord::None,
        Target::Point(point) => TargetRecord::Point(point.to_array()),
        Target::Entity(entity) => name(entity)?.map_or(TargetRecord::None, TargetRecord::Entity),
        Target::Pursue(entity) => name(entity)?.map_or(TargetRecord::None, TargetRecord::Pursue),
    })
}
