//! What the squad systems carry from tick to tick, and what they count as changed since they
//! last looked.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::system::{SystemChangeTick, SystemParam};
use bevy::prelude::*;

use super::ground::SeenGround;
use crate::simulation::{FlockSimulation, seen_since};

/// What the squad systems carry from tick to tick, kept in the world (not in the systems) so
/// that a snapshot holds it: the ground as each system last saw it, and the squads waiting for
/// their path.
#[derive(Resource, Debug, Default)]
pub(crate) struct SquadProgress {
    /// The ground as the formations last saw it.
    pub(crate) formations_saw: SeenGround,
    /// The ground as path following last saw it.
    pub(crate) paths_saw: SeenGround,
    /// Squads whose path is being planned.
    pub(crate) waiting: EntityHashSet,
}

/// What changed since a system last ran, or since a snapshot's restore after that: what the
/// restore wrote counts as seen, as it had been in the world the snapshot was taken of.
#[derive(SystemParam)]
pub(crate) struct Changes<'w> {
    ticks: SystemChangeTick,
    sim: Res<'w, FlockSimulation>,
}

impl Changes<'_> {
    /// Whether `value` changed since the system last looked.
    pub(crate) fn of(&self, value: &impl DetectChanges) -> bool {
        let (last_run, this_run) = (self.ticks.last_run(), self.ticks.this_run());
        let seen = seen_since(self.sim.restored_at, last_run, this_run);
        value.last_changed().is_newer_than(seen, this_run)
    }
}
