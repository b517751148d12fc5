//! The units a snapshot's orders name: agents, and flocks with an [`AgentId`] (squads).

use bevy::prelude::*;

use super::error::SnapshotError;
use crate::{Agent, AgentId, Destination, Flock, Formation};

/// The units a snapshot's orders may name: agents, and flocks with an id (squads); each by
/// id, ascending.
pub(super) struct Units<'a> {
    agents: &'a [(u64, Entity)],
    squads: Vec<(u64, Entity)>,
}

impl<'a> Units<'a> {
    /// `world`'s units: its `agents` (by id, ascending) and its flocks with an id. Fails
    /// where a flock with orders has no id, or a squad shares an id with another unit.
    pub(super) fn of(
        world: &mut World,
        agents: &'a [(u64, Entity)],
    ) -> Result<Self, SnapshotError> {
        let mut flocks = world.query_filtered::<(Entity, Option<&AgentId>, Has<Destination>, Has<Formation>), (With<Flock>, Without<Agent>)>();
        let mut squads = Vec::new();
        for (entity, id, sent, formed) in flocks.iter(world) {
            match id {
                Some(id) => squads.push((id.0, entity)),
                None if sent || formed => return Err(SnapshotError::UnnamedSquad { entity }),
                None => {}
            }
        }
        squads.sort_unstable_by_key(|&(id, _)| id);
        let shared = squads.windows(2).find(|w| w[0].0 == w[1].0).map(|w| w[0].0);
        let named_as_agent = || (squads.iter()).find(|&&(id, _)| find(agents, id).is_some());
        if let Some(id) = shared.or_else(|| named_as_agent().map(|&(id, _)| id)) {
            return Err(SnapshotError::SharedId { id });
        }
        Ok(Self { agents, squads })
    }

    /// The unit with `id`.
    pub(super) fn entity(&self, id: u64) -> Option<Entity> {
        find(self.agents, id).or_else(|| find(&self.squads, id))
    }

    /// The id of unit `entity`, found among the units by a lookup in `world`.
    pub(super) fn id(&self, world: &World, entity: Entity) -> Option<u64> {
        let id = world.get::<AgentId>(entity)?.0;
        (self.entity(id) == Some(entity)).then_some(id)
    }
}

/// The entity of `id` among `units`, by id, ascending.
fn find(units: &[(u64, Entity)], id: u64) -> Option<Entity> {
    let k = units.partition_point(|&(other, _)| other < id);
    units
        .get(k)
        .filter(|&&(other, _)| other == id)
        .map(|&(_, e)| e)
}
