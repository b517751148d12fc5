//! Destinations: agents sent to a point along a path, over the ground the squads move on.

#[cfg(not(feature = "pathfinding"))]
use core::marker::PhantomData;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::Combatant;
#[cfg(feature = "pathfinding")]
use crate::Terrain;
use crate::diagnostics::Reporter;
use crate::{Agent, Target};

/// Sends an agent to a point (the hybrid pathfinding of RTS squads): the plugin plans a path
/// (a [`PlannedPath`]) across the `Terrain` by A* when there is one (the `pathfinding` feature
/// and `TerrainPlugin`), re-plans it when the destination or the terrain changes, and steers
/// the agent along it by setting its [`Target`] to each waypoint in turn, the last being the
/// destination itself, where the agent arrives and settles. Without a terrain the path is the
/// destination alone.
///
/// While an agent has a destination, the plugin owns its [`Target`]; remove the destination
/// to steer the agent yourself again. A [`Combatant`] that sees an enemy within its
/// [`sight`](Combatant::sight) leaves its path for the nearest such enemy, where its standoff
/// holds it at its weapon's range (path finding hands over to flocking), and takes up its
/// path again once none is in sight.
///
/// On a [`Flock`](crate::Flock) entity it sends the whole flock as a squad: each member gets
/// its own place in a [`Formation`](crate::Formation) round the point as its destination.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[require(PlannedPath)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Destination(pub Vec3);

/// The path the plugin planned toward an agent's [`Destination`]. Written by the plugin.
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct PlannedPath {
    /// The destination this path leads to.
    pub destination: Option<Vec3>,
    /// The waypoints, the destination last; empty when no path was found.
    pub waypoints: Vec<Vec3>,
    /// The waypoint the agent is heading for.
    pub next: usize,
}

/// The ground squads move over: the `Terrain` (with the `pathfinding` feature, when one is
/// inserted and valid), else open ground, where every straight line is clear.
#[derive(SystemParam)]
pub(crate) struct Ground<'w> {
    #[cfg(feature = "pathfinding")]
    terrain: Option<Res<'w, Terrain>>,
    #[cfg(not(feature = "pathfinding"))]
    _open: PhantomData<&'w ()>,
}

#[cfg(feature = "pathfinding")]
impl Ground<'_> {
    /// The terrain, if there is a usable one.
    fn terrain(&self) -> Option<&Terrain> {
        self.terrain.as_deref().filter(|t| t.is_valid())
    }

    /// Whether the terrain changed since the system last ran.
    pub(crate) fn is_changed(&self) -> bool {
        self.terrain
            .as_ref()
            .is_some_and(|t| t.is_valid() && t.is_changed())
    }

    /// Whether `point` is walkable.
    pub(crate) fn is_walkable_at(&self, point: Vec3) -> bool {
        self.terrain().is_none_or(|t| t.is_walkable_at(point))
    }

    /// Whether a unit goes straight from `a` to `b` with room to spare (see
    /// [`Terrain::is_clear_line`]).
    pub(crate) fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        self.terrain().is_none_or(|t| t.is_clear_line(a, b))
    }

    /// Whether the segment from `a` to `b` crosses only walkable ground: a line of sight.
    pub(crate) fn sees(&self, a: Vec3, b: Vec3) -> bool {
        self.terrain().is_none_or(|t| t.is_clear_band(a, b, 0.0))
    }

    /// A path from `from` to `to` (see [`Terrain::find_path`]); on open ground, `to` alone.
    pub(crate) fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        match self.terrain() {
            Some(terrain) => terrain.find_path(from, to),
            None => Some(vec![to]),
        }
    }

    /// The centres of the unwalkable tiles.
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        self.terrain().map_or_else(Vec::new, Terrain::wall_centres)
    }

    /// Half the width of a tile (half a unit on open ground).
    pub(crate) fn half_tile(&self) -> f32 {
        self.terrain().map_or(0.5, |t| t.tile_size() * 0.5)
    }
}

/// Open ground, where no terrain can be (without the `pathfinding` feature).
#[cfg(not(feature = "pathfinding"))]
impl Ground<'_> {
    /// Never: open ground does not change.
    pub(crate) fn is_changed(&self) -> bool {
        false
    }

    /// Everywhere.
    pub(crate) fn is_walkable_at(&self, _point: Vec3) -> bool {
        true
    }

    /// Always.
    pub(crate) fn is_clear_line(&self, _a: Vec3, _b: Vec3) -> bool {
        true
    }

    /// Always.
    pub(crate) fn sees(&self, _a: Vec3, _b: Vec3) -> bool {
        true
    }

    /// Straight to `to`.
    pub(crate) fn find_path(&self, _from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        Some(vec![to])
    }

    /// None.
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        Vec::new()
    }

    /// Half a unit.
    pub(crate) fn half_tile(&self) -> f32 {
        0.5
    }
}

impl Ground<'_> {
    /// Moves `path` on to the furthest waypoint in a clear line from `position` (the unit cuts
    /// the corners its path allows, and no more); plans it again from `position` if the unit
    /// has lost sight of its waypoint (its neighbours pushed it round a corner).
    fn steer_along(&self, position: Vec3, path: &mut PlannedPath) {
        let last = path.waypoints.len().saturating_sub(1);
        while path.next < last && self.is_clear_line(position, path.waypoints[path.next + 1]) {
            path.next += 1;
        }
        let Some(&waypoint) = path.waypoints.get(path.next) else {
            return;
        };
        if !self.sees(position, waypoint)
            && let Some(destination) = path.destination
            && let Some(waypoints) = self.find_path(position, destination)
        {
            path.waypoints = waypoints;
            path.next = 0;
        }
    }
}

/// An agent with a destination, its path and its target.
type Following = (
    Entity,
    &'static Transform,
    Ref<'static, Destination>,
    &'static mut PlannedPath,
    &'static mut Target,
    Option<&'static Combatant>,
);

/// Plans paths for agents whose destination or ground changed (or that have none), then
/// moves each agent's target along its path, or, for a combatant that sees an enemy, to the
/// nearest enemy in sight.
pub(super) fn follow_paths(
    ground: Ground,
    mut agents: Query<Following, With<Agent>>,
    combatants: Query<(Entity, &Combatant, &GlobalTransform)>,
    mut reporter: Reporter,
) {
    let replan_all = ground.is_changed();
    let fighters: Vec<(Entity, Combatant, Vec3)> = combatants
        .iter()
        .filter(|(_, c, _)| c.is_valid())
        .map(|(e, c, t)| (e, *c, t.translation()))
        .collect();
    for (entity, transform, destination, mut path, mut target, unit) in &mut agents {
        let position = transform.translation;
        if replan_all || destination.is_changed() || path.destination != Some(destination.0) {
            let waypoints = ground.find_path(position, destination.0).unwrap_or_else(|| {
                reporter.warn_once(
                    entity,
                    "no path",
                    &format!(
                        "has no path across the terrain from {position} to its destination {}; it stays where it is",
                        destination.0
                    ),
                );
                Vec::new()
            });
            *path = PlannedPath {
                destination: Some(destination.0),
                waypoints,
                next: 0,
            };
        }
        ground.steer_along(position, &mut path);
        let in_sight = unit
            .filter(|u| u.is_valid() && u.sight > 0.0)
            .and_then(|u| nearest_enemy_in_sight(u, position, &fighters, &ground));
        let wanted = match (in_sight, path.waypoints.get(path.next)) {
            (Some(enemy), _) => Target::Entity(enemy),
            (None, Some(&waypoint)) => Target::Point(waypoint),
            (None, None) => Target::None,
        };
        target.set_if_neq(wanted);
    }
}

/// The nearest enemy of `unit` (at `position`) within its sight and in a clear line across
/// the ground, if any.
fn nearest_enemy_in_sight(
    unit: &Combatant,
    position: Vec3,
    fighters: &[(Entity, Combatant, Vec3)],
    ground: &Ground,
) -> Option<Entity> {
    fighters
        .iter()
        .filter(|(_, other, _)| other.team != unit.team)
        .map(|&(enemy, _, at)| (enemy, at.distance(position), at))
        .filter(|&(_, distance, at)| distance <= unit.sight && ground.sees(position, at))
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(enemy, ..)| enemy)
}
