//! What the squad systems carry from tick to tick.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

use super::ground::SeenGround;

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
