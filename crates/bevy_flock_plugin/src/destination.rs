//! Destinations: the point an agent or squad is sent to, the path planned there, and what a
//! planner answers. The squads follow paths; the terrain plans them.

use bevy::prelude::*;

use crate::components::Target;
use crate::way_checks::WayChecks;

/// Sends an agent to a point (the hybrid pathfinding of RTS squads): the plugin plans a path
/// (a [`PlannedPath`]) across the `Terrain` by A* when there is one (the `pathfinding` feature
/// and `TerrainPlugin`, whose `PathPlanner` spreads long searches over ticks), plans it again
/// when the destination changes or a new wall crosses it, and steers the agent along it by
/// setting its [`Target`](crate::Target) to each waypoint in turn, the last being the destination itself,
/// where the agent arrives and settles. An agent its neighbours push out of sight of its way
/// mends the path from a waypoint ahead (a short search); set the destination again to have the
/// whole way planned anew. Without a terrain the path is the destination alone.
/// When no path exists the agent stays, its path says so, and it gets a [`PathNotFound`].
///
/// While an agent has a destination, the plugin owns its [`Target`](crate::Target); remove the destination
/// to steer the agent yourself again. A [`Combatant`](crate::Combatant) that sees an enemy within its
/// [`sight`](crate::Combatant::sight) leaves its path for the nearest such enemy, where its standoff
/// holds it at its weapon's range (path finding hands over to flocking), and takes up its
/// path again once none is in sight. While it sees the waypoint it heads for, its obstacle
/// avoidance looks ahead along the way there, which the path keeps clear of walls, rather than
/// along its heading, jostled toward the walls in a crowd (see
/// [`Crowd::set_target_in_sight`](flock_core::Crowd::set_target_in_sight); not for the
/// members of a flock with a [`PotentialField`](crate::PotentialField), who steer down the
/// field).
///
/// On a [`Flock`](crate::Flock) entity it sends the whole flock as a squad: the squad plans one
/// path, and each member gets its own place in a [`Formation`](crate::Formation) round the
/// point as its destination, with the squad's path to it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[require(PlannedPath)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Destination(pub Vec3);

/// The path the plugin planned toward an agent's [`Destination`]. Written by the plugin.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[require(WayAhead)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct PlannedPath {
    /// The destination this path leads to, or is being planned to.
    pub destination: Option<Vec3>,
    /// The waypoints, the destination last; empty when no path was found.
    pub waypoints: Vec<Vec3>,
    /// The waypoint the agent is heading for.
    pub next: usize,
    /// Whether the path is planned, being planned, or cannot be.
    pub status: PathStatus,
}

/// The waypoint an agent heads for on its [`PlannedPath`] and the one after, kept beside the
/// path: following reads them every tick, where the path's own list, on the heap apart from
/// every other agent's, misses the cache (a twelfth of a navmesh crowd's tick). Following
/// takes them from the path again whenever anything else changed it.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WayAhead {
    /// The path's `next` when taken.
    pub(crate) next: usize,
    /// The waypoint at `next`, if any.
    pub(crate) waypoint: Option<Vec3>,
    /// The waypoint after it, if any.
    pub(crate) after: Option<Vec3>,
    /// What following measured of the lines to them, for the next tick.
    pub(crate) checks: WayChecks,
    /// Whether following saw the waypoint this tick, in a line the mesh or terrain keeps
    /// clear, and made it the agent's target.
    pub(crate) in_sight: bool,
}

impl WayAhead {
    /// The way ahead on `path` from its waypoint `next` on.
    pub(crate) fn of(path: &PlannedPath, next: usize) -> Self {
        Self {
            next,
            waypoint: path.waypoints.get(next).copied(),
            after: path.waypoints.get(next + 1).copied(),
            checks: WayChecks::default(),
            in_sight: false,
        }
    }

    /// Whether `target` is the waypoint following saw in a clear line this tick: the kernel is
    /// told so (see [`Crowd::set_target_in_sight`](flock_core::Crowd::set_target_in_sight)),
    /// and the agent looks ahead along its path rather than its heading. A target set since
    /// by anything else is not.
    pub(crate) fn sees(&self, target: &Target) -> bool {
        self.in_sight && self.waypoint.is_some_and(|w| *target == Target::Point(w))
    }
}

/// Where planning an agent's path stands.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Default, Debug, Clone, PartialEq)]
pub enum PathStatus {
    /// Waiting for its turn in the planner (the agent keeps the path it had, if any).
    #[default]
    Planning,
    /// Planned: the waypoints lead to the destination.
    Found,
    /// No path joins the agent to its destination; it stays until the destination or the
    /// terrain changes.
    NoPath,
}

/// Triggered on an agent when no path joins it to its [`Destination`]: once per destination,
/// and again only if it found one since and lost it to a new wall.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct PathNotFound {
    /// The agent.
    pub entity: Entity,
    /// The destination it has no path to.
    pub destination: Vec3,
}

/// What the ground says of a path asked for.
#[derive(Clone, Debug, PartialEq)]
// Open ground, the only ground without the `pathfinding` feature, always has a path ready.
#[cfg_attr(not(feature = "pathfinding"), allow(dead_code))]
pub(crate) enum Planned {
    /// The waypoints, the destination last.
    Ready(Vec<Vec3>),
    /// Still waiting for its turn or its search.
    Waiting,
    /// No path joins the two points.
    NoPath,
}
