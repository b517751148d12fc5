//! Restoring a [`FlockSnapshot`] into a world: every check first, then every write, so that a
//! restore that fails changes nothing.

use bevy::prelude::*;

use super::record::TargetRecord;
use super::{FlockSnapshot, SnapshotError};
use crate::simulation::FlockSimulation;
use crate::{Agent, AgentId, FlockingSetup, SteeringState, Target, Velocity};

impl FlockSnapshot {
    /// Puts `world`'s agents back as the snapshot holds them, agent by agent by
    /// [`AgentId`], and the kernel's count of ticks with them; the next tick then continues as
    /// the snapshotted world's next tick did. Restore between ticks, as [`take`](Self::take)
    /// is taken.
    ///
    /// The world must hold exactly the snapshot's agents, each with its id, and every entity
    /// they target: otherwise it fails with [`SnapshotError::AgentMissing`],
    /// [`AgentNotInSnapshot`](SnapshotError::AgentNotInSnapshot),
    /// [`TargetMissing`](SnapshotError::TargetMissing) (or another error) and changes
    /// nothing. A change the game makes to a [`Target`] after the restore (an order replayed
    /// in a rollback) counts as new, as it would have in the original; the restored targets do
    /// not.
    pub fn restore(&self, world: &mut World) -> Result<(), SnapshotError> {
        Self::check_version(self.version)?;
        self.check_ids()?;
        let space = world
            .get_resource::<FlockingSetup>()
            .ok_or(SnapshotError::NoPlugin)?
            .space();
        if !world.contains_resource::<FlockSimulation>() {
            return Err(SnapshotError::NoPlugin);
        }
        let entities = self.pair_with(world)?;
        let targets = self.find_targets(world, &entities)?;
        let mut query = world.query_filtered::<AgentParts, With<Agent>>();
        let mut children = Vec::new();
        for ((record, &entity), target) in self.agents.iter().zip(&entities).zip(targets) {
            let (mut transform, mut global, mut velocity, mut state, mut goal, parent) = query
                .get_mut(world, entity)
                .expect("paired with a world's agent just now");
            let restored = record.state(transform.scale, target, space);
            *transform = restored.transform;
            *velocity = restored.velocity;
            *state = restored.state;
            *goal = restored.target;
            match parent {
                None => *global = GlobalTransform::from(restored.transform),
                Some(parent) => children.push((entity, parent.parent())),
            }
        }
        place_children(world, &children);
        let restored_at = world.change_tick();
        let mut sim = world.resource_mut::<FlockSimulation>();
        sim.crowd_mut().set_tick(self.tick);
        sim.restored_at = Some(restored_at);
        // What the game writes from now on is newer than the restore.
        world.increment_change_tick();
        Ok(())
    }

    /// The world's agent of each of the snapshot's agents, in the snapshot's order; fails
    /// unless the two hold the same ids, each once.
    fn pair_with(&self, world: &mut World) -> Result<Vec<Entity>, SnapshotError> {
        let mut named = world.query_filtered::<(Entity, Option<&AgentId>), With<Agent>>();
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
        // Both in ascending order: where they first differ, the lower id is the one missing
        // from the other.
        let ids = self.ids().map(Some).chain(core::iter::repeat(None));
        let theirs = agents
            .iter()
            .map(|&(id, _)| Some(id))
            .chain(core::iter::repeat(None));
        let len = self.len().max(agents.len());
        let parting = ids
            .zip(theirs)
            .take(len)
            .find(|(ours, theirs)| ours != theirs);
        match parting {
            None => Ok(agents.into_iter().map(|(_, entity)| entity).collect()),
            Some((Some(ours), Some(theirs))) if ours < theirs => {
                Err(SnapshotError::AgentMissing { id: ours })
            }
            Some((Some(ours), None)) => Err(SnapshotError::AgentMissing { id: ours }),
            Some((_, Some(theirs))) => Err(SnapshotError::AgentNotInSnapshot { id: theirs }),
            Some((None, None)) => unreachable!("only the first `len` pairs are compared"),
        }
    }

    /// Each agent's [`Target`], with the entities named found among the world's agents
    /// (`entities`, in the snapshot's order) or its other entities with an [`AgentId`].
    fn find_targets(
        &self,
        world: &mut World,
        entities: &[Entity],
    ) -> Result<Vec<Target>, SnapshotError> {
        let mut others: Option<Vec<(u64, Entity)>> = None;
        let mut find = |world: &mut World, agent: u64, id: u64| {
            if let Ok(k) = self.agents.binary_search_by_key(&id, |a| a.id) {
                return Ok(entities[k]);
            }
            let others = others.get_or_insert_with(|| {
                let mut query = world.query_filtered::<(Entity, &AgentId), Without<Agent>>();
                let mut found: Vec<_> = query.iter(world).map(|(e, id)| (id.0, e)).collect();
                found.sort_unstable_by_key(|&(id, e)| (id, e));
                found
            });
            let k = others.partition_point(|&(other, _)| other < id);
            match others.get(k) {
                Some(&(other, entity)) if other == id => Ok(entity),
                _ => Err(SnapshotError::TargetMissing { agent, target: id }),
            }
        };
        let mut targets = Vec::with_capacity(self.len());
        for record in &self.agents {
            targets.push(match record.target {
                TargetRecord::None => Target::None,
                TargetRecord::Point(point) => Target::Point(Vec3::from_array(point)),
                TargetRecord::Entity(id) => Target::Entity(find(world, record.id, id)?),
                TargetRecord::Pursue(id) => Target::Pursue(find(world, record.id, id)?),
            });
        }
        Ok(targets)
    }
}

/// What a restore writes of each agent.
type AgentParts = (
    &'static mut Transform,
    &'static mut GlobalTransform,
    &'static mut Velocity,
    &'static mut SteeringState,
    &'static mut Target,
    Option<&'static ChildOf>,
);

/// Gives each of `children` (an agent and its parent) its [`GlobalTransform`] under its
/// parent's, as transform propagation will.
fn place_children(world: &mut World, children: &[(Entity, Entity)]) {
    for &(child, parent) in children {
        let Some(&parent) = world.get::<GlobalTransform>(parent) else {
            continue;
        };
        let Some(&transform) = world.get::<Transform>(child) else {
            continue;
        };
        if let Some(mut global) = world.get_mut::<GlobalTransform>(child) {
            *global = parent.mul_transform(transform);
        }
    }
}
