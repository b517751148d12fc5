//! Restoring a [`FlockSnapshot`] into a world: every check first, then every write, so that a
//! restore that fails changes nothing.

use bevy::prelude::*;
use flock_core::Space;

use super::record::{AgentRecord, TargetRecord};
use super::take::{ById, agents_by_id};
use super::units::Units;
use super::{FlockSnapshot, SnapshotError};
use crate::simulation::FlockSimulation;
use crate::{Agent, AgentId, FlockingSetup, OnFloor, SteeringState, Target, Velocity};

impl FlockSnapshot {
    /// Puts `world`'s agents back as the snapshot holds them, agent by agent by
    /// [`AgentId`], and the kernel's count of ticks with them; the next tick then continues as
    /// the snapshotted world's next tick did. Restore between ticks, as [`take`](Self::take)
    /// is taken.
    ///
    /// Orders are restored too: every agent and squad gets the snapshot's
    /// [`Destination`](crate::Destination), path and formation, or loses its own where the
    /// snapshot has none; the snapshot's terrain and path planner replace the world's (a
    /// snapshot without them leaves the world's as they are, and one without a terrain but
    /// with a planner removes the world's terrain).
    ///
    /// The world must hold exactly the snapshot's agents, each with its id, the squads and
    /// every entity they target or name, and the plugins that run the orders: otherwise it
    /// fails with [`SnapshotError::AgentMissing`],
    /// [`AgentNotInSnapshot`](SnapshotError::AgentNotInSnapshot),
    /// [`TargetMissing`](SnapshotError::TargetMissing),
    /// [`UnitMissing`](SnapshotError::UnitMissing),
    /// [`PluginMissing`](SnapshotError::PluginMissing) (or another error) and changes nothing.
    /// A change the game makes to a [`Target`] or a [`Destination`](crate::Destination) after
    /// the restore (an order replayed in a rollback) counts as new, as it would have in the
    /// original; the restored ones do not.
    pub fn restore(&self, world: &mut World) -> Result<(), SnapshotError> {
        self.check_unless_known()?;
        let space = world
            .get_resource::<FlockingSetup>()
            .ok_or(SnapshotError::NoPlugin)?
            .space();
        if !world.contains_resource::<FlockSimulation>() {
            return Err(SnapshotError::NoPlugin);
        }
        // One pass for the ids and the entities targeted, one to write.
        let mut ids = Vec::with_capacity(self.len());
        let mut wanted = Vec::new();
        for (id, target) in self.ids_and_targets() {
            ids.push(id);
            if let TargetRecord::Entity(_) | TargetRecord::Pursue(_) = target {
                wanted.push((id, target));
            }
        }
        let agents = pair_with(world, &ids)?;
        drop(ids);
        let mut targets = find_targets(world, &agents, &wanted)?.into_iter();
        let units = Units::of(world, &agents)?;
        let orders = self.routes()?.prepare(world, &units)?;
        let mut target_of = |record: &AgentRecord| match record.target {
            TargetRecord::None => Target::None,
            TargetRecord::Point(point) => Target::Point(Vec3::from_array(point)),
            TargetRecord::Entity(_) | TargetRecord::Pursue(_) => {
                targets.next().expect("each entity target found")
            }
        };
        let mut query = world.query_filtered::<AgentParts, With<Agent>>();
        let mut children = Vec::new();
        let mut floors = Vec::new();
        // Whether this query visits the agents in id order (another query may visit their
        // tables in another order).
        let in_order = (query.iter_mut(world).map(|agent| agent.0)).eq(agents.iter().map(|a| a.1));
        if in_order {
            // Agents spawned in id order, say: written as stored.
            for (record, agent) in self.records().zip(query.iter_mut(world)) {
                let target = target_of(&record);
                write(&record, target, agent, space, &mut children, &mut floors);
            }
        } else {
            for (record, &(_, entity)) in self.records().zip(&agents) {
                let agent = (query.get_mut(world, entity)).expect("paired with an agent just now");
                let target = target_of(&record);
                write(&record, target, agent, space, &mut children, &mut floors);
            }
        }
        place_children(world, &children);
        for (entity, floor) in floors {
            let mut agent = world.entity_mut(entity);
            match floor {
                Some(floor) => agent.insert(floor),
                None => agent.remove::<OnFloor>(),
            };
        }
        orders.write(world, &units);
        let restored_at = world.change_tick();
        let mut sim = world.resource_mut::<FlockSimulation>();
        sim.crowd_mut().set_tick(self.tick);
        sim.restored_at = Some(restored_at);
        // What the game writes from now on is newer than the restore.
        world.increment_change_tick();
        Ok(())
    }
}

/// The world's agents, each with its id, by id: those of `ids` (a snapshot's, ascending);
/// fails unless the two hold the same ids, each once.
fn pair_with(world: &mut World, ids: &[u64]) -> Result<Vec<(u64, Entity)>, SnapshotError> {
    let ById { agents } = agents_by_id(world)?;
    // Both in ascending order: where they first differ, the lower id is the one missing
    // from the other.
    let ours = ids
        .iter()
        .map(|&id| Some(id))
        .chain(core::iter::repeat(None));
    let theirs = agents
        .iter()
        .map(|&(id, _)| Some(id))
        .chain(core::iter::repeat(None));
    let len = ids.len().max(agents.len());
    let parting = ours
        .zip(theirs)
        .take(len)
        .find(|(ours, theirs)| ours != theirs);
    match parting {
        None => Ok(agents),
        Some((Some(ours), Some(theirs))) if ours < theirs => {
            Err(SnapshotError::AgentMissing { id: ours })
        }
        Some((Some(ours), None)) => Err(SnapshotError::AgentMissing { id: ours }),
        Some((_, Some(theirs))) => Err(SnapshotError::AgentNotInSnapshot { id: theirs }),
        Some((None, None)) => unreachable!("only the first `len` pairs are compared"),
    }
}

/// The entities the agents of `wanted` (an agent's id and its entity target) target, in
/// order, found among the world's `agents` (by id) or its other entities with an
/// [`AgentId`].
fn find_targets(
    world: &mut World,
    agents: &[(u64, Entity)],
    wanted: &[(u64, TargetRecord)],
) -> Result<Vec<Target>, SnapshotError> {
    let mut others: Option<Vec<(u64, Entity)>> = None;
    let mut find = |world: &mut World, agent: u64, id: u64| {
        if let Ok(k) = agents.binary_search_by_key(&id, |&(id, _)| id) {
            return Ok(agents[k].1);
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
    let mut targets = Vec::with_capacity(wanted.len());
    for &(agent, target) in wanted {
        targets.push(match target {
            TargetRecord::Entity(id) => Target::Entity(find(world, agent, id)?),
            TargetRecord::Pursue(id) => Target::Pursue(find(world, agent, id)?),
            TargetRecord::None | TargetRecord::Point(_) => continue,
        });
    }
    Ok(targets)
}

/// What a restore writes of each agent.
type AgentParts = (
    Entity,
    &'static mut Transform,
    &'static mut GlobalTransform,
    &'static mut Velocity,
    &'static mut SteeringState,
    &'static mut Target,
    Option<&'static ChildOf>,
    Option<&'static mut OnFloor>,
);

/// One agent's [`AgentParts`].
type AgentItem<'w> = (
    Entity,
    Mut<'w, Transform>,
    Mut<'w, GlobalTransform>,
    Mut<'w, Velocity>,
    Mut<'w, SteeringState>,
    Mut<'w, Target>,
    Option<&'w ChildOf>,
    Option<Mut<'w, OnFloor>>,
);

/// Writes `record` (with its `target` found) into `agent`, in `space`; an agent with a parent
/// goes into `children`, to be placed under it, and one whose [`OnFloor`] is to be given or
/// taken away into `floors`.
fn write(
    record: &AgentRecord,
    target: Target,
    agent: AgentItem,
    space: Space,
    children: &mut Vec<(Entity, Entity)>,
    floors: &mut Vec<(Entity, Option<OnFloor>)>,
) {
    let (entity, mut transform, mut global, mut velocity, mut state, mut goal, parent, floor) =
        agent;
    let restored = record.state(transform.scale, space);
    *transform = restored.transform;
    *velocity = restored.velocity;
    *state = restored.state;
    *goal = target;
    match (floor, restored.floor) {
        (Some(mut floor), Some(restored)) => {
            floor.set_if_neq(restored);
        }
        (None, None) => {}
        (_, restored) => floors.push((entity, restored)),
    }
    match parent {
        None => *global = GlobalTransform::from(restored.transform),
        Some(parent) => children.push((entity, parent.parent())),
    }
}

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
