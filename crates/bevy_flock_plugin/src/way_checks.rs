//! What following measured of the ground along a unit's way, kept beside its path so that the
//! next tick need not measure it again: a wall found across a line, tried first next time, and
//! a line of sight found with room to spare, which vouches for the lines from anywhere within
//! that room. Both are hints: what they say is checked against the ground as it is, so a hint
//! left over from other ground never changes an answer.

use bevy::prelude::*;

/// A wall of a navmesh's floor: the floor's number and the wall's among its edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WallRef {
    pub(crate) floor: u32,
    pub(crate) edge: u32,
}

/// A line of sight to a waypoint measured from `from`, on floor `floor` of the mesh numbered
/// `mesh`: with `room`, no wall came within `room` of the line (so every line to the waypoint
/// from within `room` of `from` is clear too); without, the room was lacking, and is not
/// measured again until the unit has moved `room` away.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClearSight {
    pub(crate) from: Vec2,
    pub(crate) room: f32,
    pub(crate) mesh: u64,
    pub(crate) floor: u32,
    pub(crate) vouches: bool,
}

impl ClearSight {
    /// Whether the measure stands for a unit at `at` on floor `floor` of mesh `mesh`: the same
    /// ground, and `at` within the room (less a millimetre for rounding) of where it was taken.
    pub(crate) fn stands_for(&self, at: Vec2, mesh: u64, floor: u32) -> bool {
        let room = self.room - 1e-3;
        self.mesh == mesh
            && self.floor == floor
            && room > 0.0
            && at.distance_squared(self.from) < room * room
    }
}

/// What following last measured along a unit's way (see the module's docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WayChecks {
    /// The wall last found across the line to the waypoint after the next.
    pub(crate) across_next_leg: Option<WallRef>,
    /// The line of sight to the next waypoint, as last measured.
    pub(crate) sight: Option<ClearSight>,
}
