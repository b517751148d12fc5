//! Taking a [`FlockSnapshot`] of a world.

use bevy::prelude::*;

use super::record::{AgentRecord, AgentState, TargetRecord};
use super::{FlockSnapshot, SnapshotError};
use crate::simulation::FlockSimulation;
use crate::{Agent, AgentId, Destination, FlockingSetup, SteeringState, Target, Velocity};

impl FlockSnapshot {
    /// A snapshot of `world` as it stands: take it between ticks (between two updates, or in
    /// an exclusive system after [`FlockingSystems::Last`](crate::FlockingSystems::Last)), when
    /// the agents' components hold what the last tick left.
    ///
    /// Fails, taking nothing, where an agent has no [`AgentId`] or shares one, where an agent
    /// targets an entity without one, or where the world holds a [`Destination`] (see
    /// [`SnapshotError::Unsupported`]). At 100,000 agents on two cores it takes a few
    /// milliseconds (BENCHMARKS.md).
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
        let mut destinations = world.query_filtered::<(), With<Destination>>();
        if destinations.iter(world).next().is_some() {
            return Err(SnapshotError::Unsupported {
                what: "destinations and the paths planned to them",
            });
        }
        let mut query = world.query_filtered::<AgentParts, With<Agent>>();
        let world: &World = world;
        let mut agents = Vec::with_capacity(query.iter(world).len());
        for (entity, id, transform, velocity, state, target) in query.iter(world) {
            let id = id.ok_or(SnapshotError::UnnamedAgent { entity })?.0;
            let agent = AgentState {
                transform: *transform,
                velocity: *velocity,
                state: *state,
                target: *target,
            };
            let target = name_target(world, id, *target)?;
            agents.push(AgentRecord::new(id, &agent, target, space));
        }
        if !agents.is_sorted_by_key(|a| a.id) {
            agents.sort_unstable_by_key(|a| a.id);
        }
        if let Some(shared) = agents.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(SnapshotError::SharedId { id: shared[0].id });
        }
        Ok(Self {
            version: Self::FORMAT_VERSION,
            tick,
            agents,
        })
    }
}

/// What a snapshot reads of each agent.
type AgentParts = (
    Entity,
    Option<&'static AgentId>,
    &'static Transform,
    &'static Velocity,
    &'static SteeringState,
    &'static Target,
);

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
