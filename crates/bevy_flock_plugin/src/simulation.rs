//! The kernel as a resource: this tick's agents, by entity, for the plugin's systems and for
//! game code (positions, forces, spatial queries).

use core::time::Duration;

use bevy::ecs::change_detection::Tick;
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use flock_core::{Crowd, FlockTuning, ParamsId, Shape, Space};

use crate::OnFloor;
use crate::executor::MainThread;

#[cfg(doc)]
use crate::{AgentId, Combatant, FlockWeights, FlockingSystems, FlowField, PotentialField};

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
    /// By kernel index, each agent's [`AgentId`], where every agent has one (else empty).
    pub(crate) ids: Vec<u64>,
    /// The flock entity of each flock number (agents whose flock is missing have a number
    /// past its end).
    pub(crate) flock_entities: Vec<Entity>,
    /// This tick's flocks, by entity: their number and tuning.
    pub(crate) flocks: EntityHashMap<FlockEntry>,
    /// This tick's obstacle shapes, gathered from their sources before the grid is built.
    pub(crate) shapes: Vec<Shape>,
    pub(crate) step_time: Duration,
    /// Agents that steered around an obstacle this tick.
    pub(crate) avoiding: usize,
    /// The thread the simulation was made on, the app's, which runs its schedules.
    pub(crate) main_thread: MainThread,
    /// When a snapshot was last restored, until the next write-back: the agents' targets as
    /// restored count as seen, not as changed (see `FlockSnapshot::restore`).
    pub(crate) restored_at: Option<Tick>,
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
            ids: Vec::new(),
            flock_entities: Vec::new(),
            flocks: EntityHashMap::default(),
            shapes: Vec::new(),
            step_time: Duration::ZERO,
            avoiding: 0,
            main_thread: MainThread::current(),
            restored_at: None,
        }
    }

    /// The kernel with this tick's agents, in the order of [`entities`](Self::entities).
    #[inline]
    pub fn crowd(&self) -> &Crowd {
        &self.crowd
    }

    /// The kernel, for the plugin's systems.
    #[inline]
    pub(crate) fn crowd_mut(&mut self) -> &mut Crowd {
        &mut self.crowd
    }

    /// Forgets last tick's agents, flocks and obstacles, before the copy of this tick's.
    pub(crate) fn clear(&mut self) {
        self.crowd.clear();
        self.entities.clear();
        self.ids.clear();
        self.flock_entities.clear();
        self.flocks.clear();
        self.shapes.clear();
    }

    /// Adds `entities`, in order, to the entity map, as the next agents of the crowd.
    pub(crate) fn add_entities(&mut self, entities: &[Entity]) {
        if let Some(last) = entities.iter().map(|e| e.index_u32() as usize).max()
            && self.index.len() <= last
        {
            self.index.resize(last + 1, u32::MAX);
        }
        for &entity in entities {
            self.index[entity.index_u32() as usize] = self.entities.len() as u32;
            self.entities.push(entity);
        }
    }

    /// The kernel, with this tick's flocks beside it to read.
    pub(crate) fn crowd_and_flocks(&mut self) -> (&mut Crowd, &EntityHashMap<FlockEntry>) {
        (&mut self.crowd, &self.flocks)
    }

    /// This tick's agents; agent `i` of the [`crowd`](Self::crowd) is `entities()[i]`.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The kernel index of `entity`, if it is an agent this tick.
    #[inline]
    pub fn index_of(&self, entity: Entity) -> Option<usize> {
        let i = *self.index.get(entity.index_u32() as usize)? as usize;
        (self.entities.get(i) == Some(&entity)).then_some(i)
    }

    /// A digest of the simulation as this tick left it, for peers of a lockstep game to compare
    /// each tick: [`Crowd::checksum`] over every agent's position, velocity, heading, flock,
    /// parameter set and the memory it carries to the next tick, with each agent's
    /// [`AgentId`] beside it where every agent has one. Read it after
    /// [`FlockingSystems::Integration`]. The same on any thread count and SIMD path; without
    /// ids, it also hangs on the order Bevy stores the agents in (see [`AgentId`]).
    ///
    /// It covers the agents' motion, not the rest of the plugin's state: arrival flags and the
    /// progress behind [`AgentStuck`](crate::AgentStuck) (they raise events, and move nothing),
    /// paths being planned, squads' formations and the flocks' tuning. A desync there shows in
    /// the agents' motion from the tick it moves one. It reads every agent once, on the compute
    /// pool: at 100,000 agents on two threads, about 2% of the tick (BENCHMARKS.md).
    pub fn checksum(&self) -> u64 {
        self.crowd.checksum_with_ids(&self.ids)
    }

    /// `entity`'s position this tick (on the plane, z is its floor's in the kernel: `k *`
    /// [`FLOOR_SPACING`](flock_core::FLOOR_SPACING) on floor `k`, see [`OnFloor`]).
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
    /// ones cost more. A non-finite point or negative radius finds nothing. On the plane, the
    /// point's z picks the floor searched (see [`OnFloor`]): floor 0 for any height a game
    /// uses, floor `k` at `k *` [`FLOOR_SPACING`](flock_core::FLOOR_SPACING).
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

/// A flock's number in the kernel and its parameter set, with its tuning for agents that
/// override part of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlockEntry {
    pub(crate) number: u32,
    pub(crate) params: ParamsId,
    pub(crate) tuning: FlockTuning,
}

/// The tick a system that last ran at `last_run`, running at `this_run`, has seen changes up
/// to: its last run, or a snapshot's restore since (`restored_at`), whose writes count as seen.
pub(crate) fn seen_since(restored_at: Option<Tick>, last_run: Tick, this_run: Tick) -> Tick {
    match restored_at {
        Some(restored) if restored.is_newer_than(last_run, this_run) => restored,
        _ => last_run,
    }
}

/// Where the kernel takes an entity at `translation` on `floor` (floor 0 without one): on the
/// plane, on that floor's plane (see [`OnFloor`]), whatever the translation's z; in 3D, there.
pub(crate) fn kernel_position(translation: Vec3, floor: Option<OnFloor>, space: Space) -> Vec3 {
    match space {
        Space::Planar => translation.with_z(Space::floor_height(floor.map_or(0, |f| f.0))),
        Space::Volume => translation,
    }
}

/// Where an entity the kernel holds at `position` is in the world: on the plane, on the plane
/// (z 0), whatever its floor, which the game lifts (see [`OnFloor`]); in 3D, there.
#[inline]
pub(crate) fn on_ground(position: Vec3, space: Space) -> Vec3 {
    match space {
        Space::Planar => position.with_z(0.0),
        Space::Volume => position,
    }
}
