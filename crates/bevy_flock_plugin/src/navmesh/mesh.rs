//! The [`NavMesh`] resource: where agents can walk, as polygons on the plane on one floor or
//! several, and the shortest paths across it.

use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;

use super::edges::bounds;
use super::floor::{Floor, NavFloor};
use super::joins::{Crossings, FloorJoin};

/// How many cells of the edge grid a unit's way is checked ahead (see
/// [`NavMesh::look_ahead`]). With no limit, a unit on a long street checked the whole street
/// twice a tick, and following cost the bench's crowd of 10,000 about a sixth more a tick.
const LOOK_AHEAD_CELLS: f32 = 2.0;

/// Numbers each mesh built, so that a system can tell a new one from the one it planned on.
static NEXT_MESH: AtomicU64 = AtomicU64::new(1);

/// A navigation mesh on the XY plane (the plane of
/// [`Space::Planar`](flock_core::Space::Planar) and of the `Terrain`), or on a surface over it
/// (see [`with_height`](Self::with_height)), or on floors over one another (see
/// [`from_floors`](Self::from_floors)): the ground agents may walk on, built from an outline
/// and the obstacles inside it. Insert it as a resource, with
/// [`NavMeshPlugin`](crate::NavMeshPlugin), and the [`Destination`](crate::Destination)s of
/// agents and squads are planned across it: shortest paths (Polyanya, Cui, Harabor and
/// Grastien 2017, through the `polyanya` crate), which bend only at the corners of obstacles.
/// Replace it when the ground changes (a door closes, a building is placed), and every path is
/// planned again.
///
/// The mesh's edges (its outline and every obstacle's, as given) are walls to the crowd:
/// [`NavMeshPlugin`](crate::NavMeshPlugin) hands them to the kernel's obstacles each tick, so
/// that the velocity obstacles, the shape casts and the integration keep each agent's whole
/// body, whatever its radius, on the ground. Paths keep the clearance from every wall; an
/// agent nearer one than that (a narrower body, or one pushed aside) plans from the nearest
/// point the clearance leaves.
/// Walls hold from both sides: an agent placed off the ground (inside a building) stays
/// there, so place agents where [`is_walkable_at`](Self::is_walkable_at) holds.
///
/// The mesh's floors are the agents' [`OnFloor`](crate::OnFloor)s: the first floor is floor
/// 0, the next floor 1, and so on. A point is on the floor whose ground under it is nearest
/// its height (among the floors walkable there): every method that takes a point reads its
/// floor so, and paths' waypoints carry their floor's height.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::NavMesh;
///
/// let outline = [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0), Vec2::new(0.0, 10.0)];
/// let wall = vec![
///     Vec2::new(4.0, 2.0), Vec2::new(6.0, 2.0), Vec2::new(6.0, 8.0), Vec2::new(4.0, 8.0),
/// ];
/// let mesh = NavMesh::from_outline(&outline, [wall], 0.0).unwrap();
/// assert!(!mesh.is_walkable_at(Vec3::new(5.0, 5.0, 0.0)));
/// let path = mesh.find_path(Vec3::new(1.0, 5.0, 0.0), Vec3::new(9.0, 5.0, 0.0)).unwrap();
/// assert_eq!(path.last(), Some(&Vec3::new(9.0, 5.0, 0.0)));
/// assert_eq!(path.len(), 3, "round two corners of the wall, not through it: {path:?}");
/// ```
#[derive(Resource, Clone)]
pub struct NavMesh {
    floors: Vec<Floor>,
    crossings: std::sync::Arc<Crossings>,
    clearance: f32,
    number: u64,
}

/// Why a [`NavMesh`] could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavMeshError {
    /// There is no floor, a floor's outline has fewer than three points, or a point or the
    /// clearance is not finite or larger than
    /// [`LARGEST_PARAMETER`](flock_core::LARGEST_PARAMETER).
    BadInput,
    /// Nothing is left to walk on, or to plan on once the clearance is kept from every wall,
    /// on some floor.
    Empty,
    /// A [`FloorJoin`] names a floor the mesh lacks or one floor twice, has an end that is not
    /// finite, or does not have one of its floors' ground on one side of its middle and only
    /// the other's on the other side.
    BadJoin,
}

impl core::fmt::Display for NavMeshError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::BadInput => {
                "a navmesh needs floors with outlines of three or more finite points and a finite clearance, none beyond 1e15"
            }
            Self::Empty => "nothing of a navmesh floor's ground is left clear of its walls",
            Self::BadJoin => {
                "a floor join must name two floors of the mesh and lie along the edge of both, one on each side"
            }
        })
    }
}

impl core::error::Error for NavMeshError {}

impl core::fmt::Debug for NavMesh {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NavMesh")
            .field("number", &self.number)
            .field("floors", &self.floors.len())
            .finish_non_exhaustive()
    }
}

impl NavMesh {
    /// The walkable ground inside `outline` (a polygon, either way round) less `obstacles`
    /// (polygons inside it; obstacles of fewer than three points are left out), on one floor.
    /// Paths keep `clearance` from every wall, the outline's as well as the obstacles': give
    /// the body radius of the widest agents that walk it, and their paths keep their bodies
    /// clear of every corner (zero or less keeps none). A passage narrower than twice the
    /// clearance is closed to paths.
    pub fn from_outline(
        outline: &[Vec2],
        obstacles: impl IntoIterator<Item = Vec<Vec2>>,
        clearance: f32,
    ) -> Result<Self, NavMeshError> {
        Self::from_floors([NavFloor::new(outline, obstacles)], [], clearance)
    }

    /// Ground on floors over one another: `floors` in order, the first [`OnFloor`]`(0)`, each
    /// with its outline, obstacles and height (see [`NavFloor`]), and the `joins` where agents
    /// cross from one to another (see [`FloorJoin`]), paths kept `clearance` from every wall
    /// as in [`from_outline`](Self::from_outline). A join narrower than twice the clearance is
    /// closed to paths. A path between floors goes through the joins, and where joins make a
    /// way between two points of one floor shorter (or the only one), through them too.
    ///
    /// The floors' walls stand on their own floors; the joins are not walls. On a floor
    /// below another, walk the other's ramps off with obstacles (their footprints), whose
    /// edge along the join is left open: an agent that walks across a join is moved to the
    /// other floor (its [`OnFloor`] set) by [`NavMeshPlugin`](crate::NavMeshPlugin).
    ///
    /// [`OnFloor`]: crate::OnFloor
    pub fn from_floors(
        floors: impl IntoIterator<Item = NavFloor>,
        joins: impl IntoIterator<Item = FloorJoin>,
        clearance: f32,
    ) -> Result<Self, NavMeshError> {
        let floors: Vec<NavFloor> = floors.into_iter().collect();
        let sane = clearance.is_finite() && clearance.abs() <= flock_core::LARGEST_PARAMETER;
        if floors.is_empty() || !sane || !floors.iter().all(NavFloor::is_sane) {
            return Err(NavMeshError::BadInput);
        }
        // A clearance beyond the floors' size would keep paths from all of them, as that does.
        let (low, high) = bounds(floors.iter().flat_map(|f| f.outline.iter().copied()));
        let clearance = clearance.clamp(0.0, low.distance(high));
        let joins: Vec<FloorJoin> = joins.into_iter().collect();
        let built = (floors.iter().enumerate())
            .map(|(k, floor)| {
                let on_floor: Vec<[Vec2; 2]> = (joins.iter())
                    .filter(|j| j.floors.contains(&k))
                    .map(|j| j.ends)
                    .collect();
                Floor::build(floor, clearance, &on_floor).ok_or(NavMeshError::Empty)
            })
            .collect::<Result<Vec<Floor>, NavMeshError>>()?;
        let crossings = Crossings::new(&built, joins).map_err(|_| NavMeshError::BadJoin)?;
        Ok(Self {
            floors: built,
            crossings: std::sync::Arc::new(crossings),
            clearance,
            number: NEXT_MESH.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The mesh with floor 0's ground not flat: `height` gives its z at each point of the
    /// plane (a ramp, a hill, a bridge's arch). [`NavMeshPlugin`](crate::NavMeshPlugin) sets
    /// each agent's z to its floor's height every tick, so that agents walk on the surface.
    /// The paths, the walls and the crowd's rules stay in the XY plane: distances along a slope
    /// are measured across the plane, shorter by the slope's cosine (4% at 16°). Where the
    /// height is not finite, an agent walks on the plane (z 0), with a warning. (Floors built
    /// by [`from_floors`](Self::from_floors) take theirs from [`NavFloor::with_height`].)
    pub fn with_height(mut self, height: impl Fn(Vec2) -> f32 + Send + Sync + 'static) -> Self {
        self.floors[0].set_height(std::sync::Arc::new(height));
        self
    }

    /// How many floors the mesh has.
    pub fn floors(&self) -> usize {
        self.floors.len()
    }

    /// The floor `point` is on: of the floors whose ground holds its x and y, the one whose
    /// ground there is nearest its z (the lowest of those equally near); `None` where no
    /// floor's ground holds it.
    pub fn floor_at(&self, point: Vec3) -> Option<usize> {
        let at = point.truncate();
        let on_ground = (0..self.floors.len()).filter(|&k| self.floors[k].contains(at));
        on_ground.min_by(|&a, &b| self.gap(a, point).total_cmp(&self.gap(b, point)))
    }

    /// The ground's height under `point` (its x and y), on its floor (see
    /// [`floor_at`](Self::floor_at); off every floor's ground, the floor whose height there is
    /// nearest): 0 where the ground is flat.
    pub fn height_at(&self, point: Vec3) -> f32 {
        self.floors[self.floor_under(point)].height_at(point.truncate())
    }

    /// Whether `point` (its x and y) is on the walkable ground of its floor: inside the
    /// outline and outside every obstacle, as given.
    pub fn is_walkable_at(&self, point: Vec3) -> bool {
        self.floor_at(point).is_some()
    }

    /// Whether the straight line from `a` to `b` (their x and y, on `a`'s floor) stays on the
    /// ground with the clearance kept: it crosses no wall, and does not go nearer one than the
    /// clearance (a line from nearer, heading away, is clear). Running along an edge or ending
    /// at its corner is not crossing it; a join to another floor is crossed freely.
    pub fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        !self.floors[self.floor_under(a)].crosses(a.truncate(), b.truncate(), true)
    }

    /// Whether the straight line from `a` to `b` (their x and y, on `a`'s floor) crosses no
    /// wall: a line of sight, which may pass nearer a wall than the clearance.
    pub fn sees(&self, a: Vec3, b: Vec3) -> bool {
        !self.floors[self.floor_under(a)].crosses(a.truncate(), b.truncate(), false)
    }

    /// The shortest path from `from` to `to` across the ground, keeping the clearance from
    /// every wall, through the joins between floors where it leads to another floor: the
    /// waypoints after `from`, `to` itself last, each at its floor's height; `None` where no
    /// path joins them or either is off the ground. A point on the ground nearer a wall than
    /// the clearance is planned from (or to) the nearest point that keeps it.
    pub fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        let (from_floor, to_floor) = (self.floor_under(from), self.floor_under(to));
        let from_kept = self.floors[from_floor].kept_clear(from.truncate())?;
        let to_kept = self.floors[to_floor].kept_clear(to.truncate())?;
        let mut path = if self.crossings.is_empty() {
            let path = (from_floor == to_floor)
                .then(|| self.floors[from_floor].path(from_kept, to_kept))
                .flatten()?;
            path.into_iter().map(|p| (from_floor, p)).collect()
        } else {
            self.crossings
                .path(&self.floors, (from_floor, from_kept), (to_floor, to_kept))?
        };
        // The destination exactly as asked: the search may have moved it onto the mesh.
        if let Some(last) = path.last_mut() {
            *last = (to_floor, to.truncate());
        }
        Some(
            (path.into_iter())
                .map(|(floor, p)| p.extend(self.ground_height(floor, p)))
                .collect(),
        )
    }

    /// The walls of floor `floor`'s ground, which agents' bodies are kept behind: the edges of
    /// its outline and of every obstacle as given (where obstacles overlap, of their union),
    /// less its joins, each from one end to the other with the ground on its left. None for a
    /// floor the mesh lacks.
    pub fn walls(&self, floor: usize) -> impl Iterator<Item = [Vec2; 2]> + '_ {
        self.floors.get(floor).into_iter().flat_map(Floor::walls)
    }

    /// How far paths keep from every wall.
    pub fn clearance(&self) -> f32 {
        self.clearance
    }

    /// `point` on the ground of its floor: its z the ground's height there (0 where that is
    /// not finite).
    pub(crate) fn on_ground(&self, point: Vec3) -> Vec3 {
        let floor = self.floor_under(point);
        point.with_z(self.ground_height(floor, point.truncate()))
    }

    /// Whether `a` and `b` are on the same floor.
    pub(crate) fn same_floor(&self, a: Vec3, b: Vec3) -> bool {
        self.floors.len() == 1 || self.floor_under(a) == self.floor_under(b)
    }

    /// The height of floor `floor`'s ground at `point`; `None` for a floor the mesh lacks, or
    /// one that is flat.
    pub(crate) fn height_on(&self, floor: usize, point: Vec2) -> Option<f32> {
        self.floors
            .get(floor)
            .filter(|f| f.has_height())
            .map(|f| f.height_at(point))
    }

    /// Whether any floor's ground has a height.
    pub(crate) fn has_height(&self) -> bool {
        self.floors.iter().any(Floor::has_height)
    }

    /// Whether the mesh has joins between floors.
    pub(crate) fn has_joins(&self) -> bool {
        !self.crossings.is_empty()
    }

    /// The floor an agent on `floor` at `point` has crossed to over a join: `None` while it
    /// is on its floor's ground, or nowhere a join leads.
    pub(crate) fn crossed_to(&self, floor: usize, point: Vec2) -> Option<usize> {
        let on = self.floors.get(floor)?;
        if on.contains(point) {
            return None;
        }
        self.crossings.crossed_to(&self.floors, floor, point)
    }

    /// How far along its path a unit on this mesh checks each tick that its way is clear (and
    /// cuts a corner toward a waypoint no farther): [`LOOK_AHEAD_CELLS`] cells of the grid the
    /// mesh's edges are found by (the finest floor's), a few edges' worth of ground, so that
    /// the checks of a unit on a long street read a few cells, whatever the length of its
    /// path.
    pub(crate) fn look_ahead(&self) -> f32 {
        let cell = (self.floors.iter()).fold(f32::INFINITY, |c, f| c.min(f.cell_side()));
        cell * LOOK_AHEAD_CELLS
    }

    /// Unique to the mesh as built: a clone keeps it.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// The floor `point` is on (see [`floor_at`](Self::floor_at)), or off every floor's
    /// ground, the floor whose ground under it is nearest its z.
    fn floor_under(&self, point: Vec3) -> usize {
        if self.floors.len() == 1 {
            return 0;
        }
        self.floor_at(point).unwrap_or_else(|| {
            (0..self.floors.len())
                .min_by(|&a, &b| self.gap(a, point).total_cmp(&self.gap(b, point)))
                .unwrap_or(0)
        })
    }

    /// How far floor `floor`'s ground under `point` is from it, up or down (infinite where
    /// either height is not finite).
    fn gap(&self, floor: usize, point: Vec3) -> f32 {
        let gap = (self.floors[floor].height_at(point.truncate()) - point.z).abs();
        if gap.is_nan() { f32::INFINITY } else { gap }
    }

    /// Floor `floor`'s ground height at `point`, 0 where it is not finite.
    fn ground_height(&self, floor: usize, point: Vec2) -> f32 {
        let height = self.floors[floor].height_at(point);
        if height.is_finite() { height } else { 0.0 }
    }
}

#[cfg(test)]
mod tests;
mod way;
