//! Destinations: agents sent to a point along a path, over the ground the squads move on.

#[cfg(not(feature = "pathfinding"))]
use core::marker::PhantomData;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::Combatant;
use crate::diagnostics::Reporter;
use crate::{Agent, Flock, InFlock, Target};
#[cfg(feature = "pathfinding")]
use crate::{PathPlanner, Terrain};

/// Sends an agent to a point (the hybrid pathfinding of RTS squads): the plugin plans a path
/// (a [`PlannedPath`]) across the `Terrain` by A* when there is one (the `pathfinding` feature
/// and `TerrainPlugin`, whose `PathPlanner` spreads long searches over ticks), plans it again
/// when the destination changes or a new wall crosses it, and steers the agent along it by
/// setting its [`Target`] to each waypoint in turn, the last being the destination itself,
/// where the agent arrives and settles. Without a terrain the path is the destination alone.
/// When no path exists the agent stays, its path says so, and it gets a [`PathNotFound`].
///
/// While an agent has a destination, the plugin owns its [`Target`]; remove the destination
/// to steer the agent yourself again. A [`Combatant`] that sees an enemy within its
/// [`sight`](Combatant::sight) leaves its path for the nearest such enemy, where its standoff
/// holds it at its weapon's range (path finding hands over to flocking), and takes up its
/// path again once none is in sight.
///
/// On a [`Flock`](crate::Flock) entity it sends the whole flock as a squad: the squad plans one
/// path, and each member gets its own place in a [`Formation`](crate::Formation) round the
/// point as its destination, with the squad's path to it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[require(PlannedPath)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Destination(pub Vec3);

/// The path the plugin planned toward an agent's [`Destination`]. Written by the plugin.
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
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

/// Where planning an agent's path stands.
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

/// What changed on the ground since a system last looked.
#[derive(Clone, Debug, PartialEq)]
// Open ground, the only ground without the `pathfinding` feature, never changes.
#[cfg_attr(not(feature = "pathfinding"), allow(dead_code))]
pub(crate) enum GroundChange {
    /// Nothing.
    None,
    /// Only these tiles were walled in (and maybe others opened).
    Blocked(NewWalls),
    /// Too much to tell: the ground was replaced, or changed too often.
    All,
}

/// How far along its path, in tiles, a unit checks that its way is clear each tick (and the
/// longest leg path shortening makes, so that the next waypoint is always within it).
#[cfg(feature = "pathfinding")]
const LOOK_AHEAD_TILES: f32 = crate::terrain::LONGEST_SHORTCUT;

/// The walls raised since a system last looked.
#[cfg(feature = "pathfinding")]
pub(crate) type NewWalls = crate::terrain::NewWalls;
/// The walls raised since a system last looked: open ground has none.
#[cfg(not(feature = "pathfinding"))]
pub(crate) type NewWalls = ();

/// The ground as a system last saw it: the terrain's revision, if there was one.
#[cfg(feature = "pathfinding")]
pub(crate) type SeenGround = Option<crate::terrain::TerrainRevision>;
/// The ground as a system last saw it: open ground never changes.
#[cfg(not(feature = "pathfinding"))]
pub(crate) type SeenGround = ();

/// The ground squads move over: the `Terrain` (with the `pathfinding` feature, when one is
/// inserted and valid), else open ground, where every straight line is clear.
#[derive(SystemParam)]
pub(crate) struct Ground<'w> {
    #[cfg(feature = "pathfinding")]
    terrain: Option<Res<'w, Terrain>>,
    #[cfg(feature = "pathfinding")]
    planner: Option<ResMut<'w, PathPlanner>>,
    #[cfg(not(feature = "pathfinding"))]
    _open: PhantomData<&'w ()>,
}

#[cfg(feature = "pathfinding")]
impl Ground<'_> {
    /// The terrain, if there is a usable one.
    fn terrain(&self) -> Option<&Terrain> {
        self.terrain.as_deref().filter(|t| t.is_valid())
    }

    /// What changed since the ground `seen` last, which becomes the ground as it is.
    pub(crate) fn changes(&self, seen: &mut SeenGround) -> GroundChange {
        let Some(terrain) = self.terrain() else {
            return if seen.take().is_some() {
                GroundChange::All
            } else {
                GroundChange::None
            };
        };
        let revision = terrain.revision();
        match seen.replace(revision) {
            Some(before) if before == revision => GroundChange::None,
            Some(before) => terrain
                .blocked_since(before)
                .map_or(GroundChange::All, GroundChange::Blocked),
            None => GroundChange::All,
        }
    }

    /// Whether the planner holds a request of `who`'s, or its answer.
    pub(crate) fn has_request(&self, who: Entity) -> bool {
        self.planner.as_ref().is_some_and(|p| p.has_request(who))
    }

    /// Whether a wall raised on one of `tiles` would block the way from `from` along
    /// `waypoints`.
    pub(crate) fn crosses(&self, from: Vec3, waypoints: &[Vec3], tiles: &NewWalls) -> bool {
        self.terrain()
            .is_some_and(|t| t.crosses(from, waypoints, tiles))
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

    /// The path for `who` from `from` to `to` (see [`Terrain::find_path`]): through the
    /// [`PathPlanner`] when there is one, so that it may have to wait its turn; on open ground,
    /// `to` alone.
    pub(crate) fn plan(&mut self, who: Entity, from: Vec3, to: Vec3) -> Planned {
        let Some(terrain) = self.terrain.as_deref().filter(|t| t.is_valid()) else {
            return Planned::Ready(vec![to]);
        };
        match self.planner.as_deref_mut() {
            Some(planner) => planner.plan(terrain, who, from, to),
            None => terrain
                .find_path(from, to)
                .map_or(Planned::NoPath, Planned::Ready),
        }
    }

    /// The centres of the unwalkable tiles.
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        self.terrain().map_or_else(Vec::new, Terrain::wall_centres)
    }

    /// How far along its path a unit checks its way is clear: [`LOOK_AHEAD_TILES`] tiles.
    pub(crate) fn look_ahead(&self) -> f32 {
        self.terrain()
            .map_or(f32::INFINITY, |t| t.tile_size() * LOOK_AHEAD_TILES)
    }

    /// Half the width of a tile (half a unit on open ground).
    pub(crate) fn half_tile(&self) -> f32 {
        self.terrain().map_or(0.5, |t| t.tile_size() * 0.5)
    }
}

/// Open ground, where no terrain can be (without the `pathfinding` feature).
#[cfg(not(feature = "pathfinding"))]
impl Ground<'_> {
    /// Nothing: open ground does not change.
    pub(crate) fn changes(&self, _seen: &mut SeenGround) -> GroundChange {
        GroundChange::None
    }

    /// Never: open ground answers at once.
    pub(crate) fn has_request(&self, _who: Entity) -> bool {
        false
    }

    /// Never.
    pub(crate) fn crosses(&self, _from: Vec3, _waypoints: &[Vec3], _tiles: &NewWalls) -> bool {
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
    pub(crate) fn plan(&mut self, _who: Entity, _from: Vec3, to: Vec3) -> Planned {
        Planned::Ready(vec![to])
    }

    /// None.
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        Vec::new()
    }

    /// Without end: every line is clear.
    pub(crate) fn look_ahead(&self) -> f32 {
        f32::INFINITY
    }

    /// Half a unit.
    pub(crate) fn half_tile(&self) -> f32 {
        0.5
    }
}

impl Ground<'_> {
    /// Moves `path` on to the furthest waypoint in a clear line from `position` (the unit cuts
    /// the corners its path allows, and no more) or past the one it has reached; plans it
    /// again from `position` if the unit has lost sight of its way (its neighbours pushed it
    /// round a corner). Each check is of a line no longer than the unit looks ahead (see
    /// [`Ground::look_ahead`]): a corner is cut only toward a waypoint that near, and the way
    /// is watched only that far, so that following a long path costs no more a tick than
    /// following a short one.
    fn steer_along(&mut self, who: Entity, position: Vec3, path: &mut PlannedPath) {
        let reach = self.look_ahead();
        let ahead = |to: Vec3| position + (to - position).clamp_length_max(reach);
        let last = path.waypoints.len().saturating_sub(1);
        while path.next < last {
            let (waypoint, after) = (path.waypoints[path.next], path.waypoints[path.next + 1]);
            // Toward a far waypoint, only from the one before, whose leg to it is clear.
            let near = position.distance(after) <= reach
                || position.distance(waypoint) <= self.half_tile() * 2.0;
            if !(near && self.is_clear_line(position, ahead(after))) {
                break;
            }
            path.next += 1;
        }
        let Some(&waypoint) = path.waypoints.get(path.next) else {
            return;
        };
        if !self.sees(position, ahead(waypoint))
            && let Some(destination) = path.destination
            && let Planned::Ready(waypoints) = self.plan(who, position, destination)
        {
            path.waypoints = waypoints;
            path.next = 0;
        }
    }
}

/// An agent with a destination, its path, its target and its flock.
type Following = (
    Entity,
    &'static Transform,
    Ref<'static, Destination>,
    &'static mut PlannedPath,
    &'static mut Target,
    Option<&'static Combatant>,
    Option<&'static InFlock>,
);

/// Plans paths for agents whose destination changed, or whose path a new wall crosses (or
/// that had none while the terrain changed), then moves each agent's target along its path,
/// or, for a combatant that sees an enemy, to the nearest enemy in sight. Members of a squad
/// leave re-planning for a new wall to their squad, which plans once for all of them.
pub(super) fn follow_paths(
    mut ground: Ground,
    mut agents: Query<Following, With<Agent>>,
    squads: Query<(), (With<Flock>, With<Destination>)>,
    combatants: Query<(Entity, &Combatant, &GlobalTransform)>,
    mut reporter: Reporter,
    mut commands: Commands,
    mut seen: Local<SeenGround>,
) {
    let change = ground.changes(&mut seen);
    let fighters: Vec<(Entity, Combatant, Vec3)> = combatants
        .iter()
        .filter(|(_, c, _)| c.is_valid())
        .map(|(e, c, t)| (e, *c, t.translation()))
        .collect();
    for (entity, transform, destination, mut path, mut target, unit, flock) in &mut agents {
        let position = transform.translation;
        // A destination set again (by game code, not with a path of the squad's) counts as new.
        let new_goal = path.destination != Some(destination.0)
            || (destination.is_changed() && !path.is_changed());
        // A path written this tick (a squad's) was planned on the ground as it is.
        let remaining = &path.waypoints[path.next.min(path.waypoints.len())..];
        let in_squad = flock.is_some_and(|f| squads.contains(f.0));
        let stale = !path.is_changed()
            && !in_squad
            && match &change {
                GroundChange::None => false,
                GroundChange::All => true,
                GroundChange::Blocked(tiles) => {
                    path.status == PathStatus::NoPath || ground.crosses(position, remaining, tiles)
                }
            };
        let asked = match path.status {
            PathStatus::Planning => true,
            PathStatus::NoPath => ground.has_request(entity),
            PathStatus::Found => false,
        };
        if new_goal || stale || asked {
            let had = path.status;
            replan(
                &mut ground,
                entity,
                position,
                destination.0,
                &mut path,
                new_goal,
            );
            if path.status == PathStatus::NoPath && (new_goal || had != PathStatus::NoPath) {
                reporter.warn_once(
                    entity,
                    "no path",
                    &format!(
                        "has no path across the terrain from {position} to its destination {}; it stays where it is",
                        destination.0
                    ),
                );
                commands.trigger(PathNotFound {
                    entity,
                    destination: destination.0,
                });
            }
        }
        ground.steer_along(entity, position, &mut path);
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

/// Asks the ground for `who`'s path to `destination` and writes what it says into `path`:
/// the new waypoints, or, while it waits, the old ones (none for a `new_goal`), or none. A
/// path with none stays so while it waits.
fn replan(
    ground: &mut Ground,
    who: Entity,
    position: Vec3,
    destination: Vec3,
    path: &mut PlannedPath,
    new_goal: bool,
) {
    let planned = ground.plan(who, position, destination);
    let (waypoints, status) = match planned {
        Planned::Ready(waypoints) => (waypoints, PathStatus::Found),
        Planned::NoPath => (Vec::new(), PathStatus::NoPath),
        Planned::Waiting if new_goal => (Vec::new(), PathStatus::Planning),
        Planned::Waiting => {
            if path.status == PathStatus::Found {
                path.status = PathStatus::Planning;
            }
            return;
        }
    };
    *path = PlannedPath {
        destination: Some(destination),
        waypoints,
        next: 0,
        status,
    };
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
