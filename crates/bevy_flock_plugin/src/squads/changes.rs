//! What the squad systems count as changed since they last looked.

use bevy::ecs::system::{SystemChangeTick, SystemParam};
use bevy::prelude::*;

use crate::simulation::{FlockSimulation, seen_since};

/// What changed since a system last ran, or since a snapshot's restore after that: what the
/// restore wrote, and what the game set up before it (a navmesh inserted), counts as seen, as
/// it had been in the world the snapshot was taken of.
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
