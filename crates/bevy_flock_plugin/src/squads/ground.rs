//! The ground squads move over: the `NavMesh` or the `Terrain` when there is one, else open
//! ground, each [`Walkable`].

#[cfg(not(feature = "pathfinding"))]
use core::marker::PhantomData;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::changes::Changes;
use crate::destination::Planned;
#[cfg(feature = "navmesh")]
use crate::navmesh::{NavMesh, NavMeshPlanner};
#[cfg(feature = "pathfinding")]
use crate::terrain::{PathPlanner, Terrain};
use crate::way_checks::WayChecks;

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

/// The ground squads move over: the `NavMesh` (with the `navmesh` feature, when one is
/// inserted), else the `Terrain` (with the `pathfinding` feature, when one is inserted and
/// valid), else open ground, where every straight line is clear.
#[derive(SystemParam)]
pub(crate) struct Ground<'w> {
    #[cfg(feature = "navmesh")]
    navmesh: Option<Res<'w, NavMesh>>,
    #[cfg(feature = "navmesh")]
    mesh_planner: Option<ResMut<'w, NavMeshPlanner>>,
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

    /// What changed since the ground `seen` last, which becomes the ground as it is. A
    /// navmesh counts as changed when it was replaced since the system last ran (or since a
    /// snapshot's restore after that: see [`Changes`]).
    #[cfg_attr(
        not(feature = "navmesh"),
        expect(
            unused_variables,
            reason = "a terrain's changes are told by its revisions"
        )
    )]
    pub(crate) fn changes(&self, seen: &mut SeenGround, changes: &Changes) -> GroundChange {
        #[cfg(feature = "navmesh")]
        if let Some(mesh) = &self.navmesh {
            // The terrain is not walked while a navmesh is: seen afresh once the mesh goes.
            *seen = None;
            return if changes.of(mesh) {
                GroundChange::All
            } else {
                GroundChange::None
            };
        }
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
        #[cfg(feature = "navmesh")]
        if self.navmesh.is_some() {
            return (self.mesh_planner.as_ref()).is_some_and(|p| p.has_request(who));
        }
        self.planner.as_ref().is_some_and(|p| p.has_request(who))
    }

    /// Whether a wall raised on one of `tiles` would block the way from `from` along
    /// `waypoints`.
    pub(crate) fn crosses(&self, from: Vec3, waypoints: &[Vec3], tiles: &NewWalls) -> bool {
        self.terrain()
            .is_some_and(|t| t.crosses(from, waypoints, tiles))
    }

    /// The path for `who` from `from` to `to` (see [`Terrain::find_path`]): through the
    /// [`PathPlanner`] when there is one, so that it may have to wait its turn; on open ground,
    /// `to` alone.
    pub(crate) fn plan(&mut self, who: Entity, from: Vec3, to: Vec3) -> Planned {
        #[cfg(feature = "navmesh")]
        if let Some(mesh) = &self.navmesh {
            return match self.mesh_planner.as_deref_mut() {
                Some(planner) => planner.plan(mesh, who, from, to),
                None => (mesh.find_path(from, to)).map_or(Planned::NoPath, Planned::Ready),
            };
        }
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
}

/// Open ground, where no terrain can be (without the `pathfinding` feature).
#[cfg(not(feature = "pathfinding"))]
impl Ground<'_> {
    /// Nothing: open ground does not change.
    pub(crate) fn changes(&self, _seen: &mut SeenGround, _changes: &Changes) -> GroundChange {
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

    /// Straight to `to`.
    pub(crate) fn plan(&mut self, _who: Entity, _from: Vec3, to: Vec3) -> Planned {
        Planned::Ready(vec![to])
    }
}

/// What the squads ask of the ground they move over, whatever it is: open ground, the
/// `Terrain`'s tiles, or the `NavMesh`.
trait Walkable {
    /// Whether `point` is walkable.
    fn is_walkable_at(&self, point: Vec3) -> bool;
    /// Whether a unit goes straight from `a` to `b` with room to spare.
    fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool;
    /// Whether the segment from `a` to `b` crosses only walkable ground: a line of sight.
    fn sees(&self, a: Vec3, b: Vec3) -> bool;
    /// [`is_clear_line`](Self::is_clear_line), helped by and noting in `checks` what was
    /// measured of the line before.
    fn is_clear_line_noting(&self, a: Vec3, b: Vec3, _checks: &mut WayChecks) -> bool {
        self.is_clear_line(a, b)
    }
    /// Whether a unit at `at` sees `waypoint`, or the look-ahead's share of the line to it,
    /// helped by and noting in `checks` what was measured of it before.
    fn sees_waypoint(&self, at: Vec3, waypoint: Vec3, _checks: &mut WayChecks) -> bool {
        self.sees(at, at + (waypoint - at).clamp_length_max(self.look_ahead()))
    }
    /// The centres of the unwalkable tiles (none but on a terrain).
    fn wall_centres(&self) -> Vec<Vec3>;
    /// How far along its path a unit checks its way is clear.
    fn look_ahead(&self) -> f32;
    /// Half the width of a tile (half a unit off a terrain).
    fn half_tile(&self) -> f32;
}

/// Open ground: walkable everywhere, every line clear.
struct Open;

impl Walkable for Open {
    fn is_walkable_at(&self, _point: Vec3) -> bool {
        true
    }

    fn is_clear_line(&self, _a: Vec3, _b: Vec3) -> bool {
        true
    }

    fn sees(&self, _a: Vec3, _b: Vec3) -> bool {
        true
    }

    fn wall_centres(&self) -> Vec<Vec3> {
        Vec::new()
    }

    fn look_ahead(&self) -> f32 {
        f32::INFINITY
    }

    fn half_tile(&self) -> f32 {
        0.5
    }
}

#[cfg(feature = "pathfinding")]
impl Walkable for Terrain {
    fn is_walkable_at(&self, point: Vec3) -> bool {
        Terrain::is_walkable_at(self, point)
    }

    /// See [`Terrain::is_clear_line`].
    fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        Terrain::is_clear_line(self, a, b)
    }

    fn sees(&self, a: Vec3, b: Vec3) -> bool {
        self.is_clear_band(a, b, 0.0)
    }

    fn wall_centres(&self) -> Vec<Vec3> {
        Terrain::wall_centres(self)
    }

    /// [`LOOK_AHEAD_TILES`] tiles.
    fn look_ahead(&self) -> f32 {
        self.tile_size() * LOOK_AHEAD_TILES
    }

    fn half_tile(&self) -> f32 {
        self.tile_size() * 0.5
    }
}

#[cfg(feature = "navmesh")]
impl Walkable for NavMesh {
    fn is_walkable_at(&self, point: Vec3) -> bool {
        NavMesh::is_walkable_at(self, point)
    }

    fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        NavMesh::is_clear_line(self, a, b)
    }

    fn sees(&self, a: Vec3, b: Vec3) -> bool {
        NavMesh::sees(self, a, b)
    }

    fn is_clear_line_noting(&self, a: Vec3, b: Vec3, checks: &mut WayChecks) -> bool {
        NavMesh::is_clear_line_noting(self, a, b, &mut checks.across_next_leg)
    }

    fn sees_waypoint(&self, at: Vec3, waypoint: Vec3, checks: &mut WayChecks) -> bool {
        NavMesh::sees_waypoint(self, at, waypoint, &mut checks.sight)
    }

    fn wall_centres(&self) -> Vec<Vec3> {
        Vec::new()
    }

    /// [`NavMesh::look_ahead`].
    fn look_ahead(&self) -> f32 {
        NavMesh::look_ahead(self)
    }

    fn half_tile(&self) -> f32 {
        0.5
    }
}

impl Ground<'_> {
    /// The ground as it is: the navmesh when there is one, else a usable terrain, else open
    /// ground.
    fn walkable(&self) -> &dyn Walkable {
        #[cfg(feature = "navmesh")]
        if let Some(mesh) = &self.navmesh {
            return &**mesh;
        }
        #[cfg(feature = "pathfinding")]
        if let Some(terrain) = self.terrain() {
            return terrain;
        }
        &Open
    }

    /// Whether `point` is walkable.
    pub(crate) fn is_walkable_at(&self, point: Vec3) -> bool {
        self.walkable().is_walkable_at(point)
    }

    /// Whether a unit goes straight from `a` to `b` with room to spare.
    pub(crate) fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        self.walkable().is_clear_line(a, b)
    }

    /// Whether the segment from `a` to `b` crosses only walkable ground: a line of sight.
    pub(crate) fn sees(&self, a: Vec3, b: Vec3) -> bool {
        self.walkable().sees(a, b)
    }

    /// [`is_clear_line`](Self::is_clear_line), helped by and noting in `checks` what was
    /// measured of the line before (on a navmesh).
    pub(crate) fn is_clear_line_noting(&self, a: Vec3, b: Vec3, checks: &mut WayChecks) -> bool {
        self.walkable().is_clear_line_noting(a, b, checks)
    }

    /// Whether a unit at `at` sees `waypoint`, or the look-ahead's share of the line to it,
    /// helped by and noting in `checks` what was measured of it before (on a navmesh).
    pub(crate) fn sees_waypoint(&self, at: Vec3, waypoint: Vec3, checks: &mut WayChecks) -> bool {
        self.walkable().sees_waypoint(at, waypoint, checks)
    }

    /// The centres of the unwalkable tiles (none on a navmesh or open ground).
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        self.walkable().wall_centres()
    }

    /// How far along its path a unit checks its way is clear: on a terrain, a few tiles; on a
    /// navmesh, a few cells of its edges; on open ground, without end.
    pub(crate) fn look_ahead(&self) -> f32 {
        self.walkable().look_ahead()
    }

    /// Half the width of a tile (half a unit on open ground and on a navmesh).
    pub(crate) fn half_tile(&self) -> f32 {
        self.walkable().half_tile()
    }
}
