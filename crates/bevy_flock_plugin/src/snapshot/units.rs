//! The units a snapshot's orders name: agents, and flocks with an [`AgentId`] (squads).

use bevy::prelude::*;

use super::error::SnapshotError;
use crate::{Agent, AgentId, Destination, Flock, Formation};

/// The units a snapshot's orders may name: agents, and flocks with an id (squads); each by
/// id, ascending.
pub(super) struct Units(Vec<(u64, Entity)>);

impl Units {
    /// `world`'s units: its `agents` (by id, ascending) and its flocks with an id. Fails
    /// where a flock with orders has no id, or two units share one.
    pub(super) fn of(world: &mut World, agents: &[(u64, Entity)]) -> Result<Self, SnapshotError> {
        let mut flocks = world.query_filtered::<(Entity, Option<&AgentId>, Has<Destination>, Has<Formation>), (With<Flock>, Without<Agent>)>();
        let mut units = agents.to_vec();
        for (entity, id, sent, formed) in flocks.iter(world) {
            match id {
                Some(id) => units.push((id.0, entity)),
                None if sent || formed => return Err(SnapshotError::UnnamedSquad { entity }),
                None => {}
            }
        }
        units.sort_unstable_by_key(|&(id, _)| id);
        if let Some(shared) = units.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(SnapshotError::SharedId { id: shared[0].0 });
        }
        Ok(Self(units))
    }

    /// The unit with `id`.
    pub(super) fn entity(&self, id: u64) -> Option<Entity> {
        let k = self.0.partition_point(|&(other, _)| other < id);
        self.0
            .get(k)
            .filter(|&&(other, _)| other == id)
            .map(|&(_, e)| e)
    }

    /// The id of unit `entity`, found among the units by a lookup in `world`.
    pub(super) fn id(&self, world: &World, entity: Entity) -> Option<u64> {
        let id = world.get::<AgentId>(entity)?.0;
        (self.entity(id) == Some(entity)).then_some(id)
    }
}
