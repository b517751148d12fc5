//! The [`NavMesh`] resource: where agents can walk, as polygons on the plane, and the shortest
//! paths across it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;
use polyanya::{Mesh, Triangulation};

use super::edges::{Bound, Edge, Outline, boundary, bounds};
use super::outside::outside_of;

/// What the plugin asks of the crate that plans on a navigation mesh: kept this small so that
/// another planner (such as landmass's) can stand in for polyanya.
pub(super) trait PlansPaths: Send + Sync + 'static {
    /// The shortest way from `from` to `to` across the mesh: the waypoints after `from`, `to`
    /// last; `None` where no path joins them or either is off the mesh.
    fn path(&self, from: Vec2, to: Vec2) -> Option<Vec<Vec2>>;
}

impl PlansPaths for Mesh {
    fn path(&self, from: Vec2, to: Vec2) -> Option<Vec<Vec2>> {
        Mesh::path(self, from, to).map(|path| path.path)
    }
}

/// How many points round a grown obstacle's right-angled corner: three chords of the
/// clearance's circle, so that a path passes the corner at no less than cos 15° (97%) of the
/// clearance. Each point is a turning point to the search: polyanya's default of five planned
/// about 1.5 times as slowly across a grid of streets, and three (one chord, 71%) hardly
/// faster.
const CORNER_POINTS: u8 = 4;

/// How many cells of the edge grid a unit's way is checked ahead (see
/// [`NavMesh::look_ahead`]). With no limit, a unit on a long street checked the whole street
/// twice a tick, and following cost the bench's crowd of 10,000 about a sixth more a tick.
const LOOK_AHEAD_CELLS: f32 = 2.0;

/// Numbers each mesh built, so that a system can tell a new one from the one it planned on.
static NEXT_MESH: AtomicU64 = AtomicU64::new(1);

/// A navigation mesh on the XY plane (the plane of
/// [`Space::Planar`](flock_core::Space::Planar) and of the `Terrain`), or on a surface over it
/// (see [`with_height`](Self::with_height)): the ground agents may walk on, built from an
/// outline and the obstacles inside it. Insert it as a resource, with
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
/// The mesh is the ground of floor 0 (see [`OnFloor`](crate::OnFloor)): its walls stand on
/// that floor only, and the paths it plans are floor 0's, whatever the floor of the agent.
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
    paths: Arc<dyn PlansPaths>,
    /// The walls, and the margin the clearance leaves inside them.
    outline: Arc<Outline>,
    clearance: f32,
    /// The ground's height at each point of the plane, if it is not flat.
    height: Option<Arc<Height>>,
    number: u64,
}

/// The ground's height at a point of the plane (see [`NavMesh::with_height`]).
type Height = dyn Fn(Vec2) -> f32 + Send + Sync;

/// Why a [`NavMesh`] could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavMeshError {
    /// The outline has fewer than three points, or a point or the clearance is not finite or
    /// larger than [`LARGEST_PARAMETER`](flock_core::LARGEST_PARAMETER).
    BadInput,
    /// Nothing is left to walk on, or to plan on once the clearance is kept from every wall.
    Empty,
}

impl core::fmt::Display for NavMeshError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::BadInput => {
                "a navmesh needs an outline of three or more finite points and a finite clearance, none beyond 1e15"
            }
            Self::Empty => "nothing of the navmesh's ground is left clear of its walls",
        })
    }
}

impl core::error::Error for NavMeshError {}

impl core::fmt::Debug for NavMesh {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NavMesh")
            .field("number", &self.number)
            .finish_non_exhaustive()
    }
}

impl NavMesh {
    /// The walkable ground inside `outline` (a polygon, either way round) less `obstacles`
    /// (polygons inside it; obstacles of fewer than three points are left out). Paths keep
    /// `clearance` from every wall, the outline's as well as the obstacles': give the body
    /// radius of the widest agents that walk it, and their paths keep their bodies clear of
    /// every corner (zero or less keeps none). A passage narrower than twice the clearance is
    /// closed to paths.
    pub fn from_outline(
        outline: &[Vec2],
        obstacles: impl IntoIterator<Item = Vec<Vec2>>,
        clearance: f32,
    ) -> Result<Self, NavMeshError> {
        let sane = |v: f32| v.is_finite() && v.abs() <= flock_core::LARGEST_PARAMETER;
        let finite = |points: &[Vec2]| points.iter().all(|p| sane(p.x) && sane(p.y));
        let obstacles: Vec<Vec<Vec2>> = (obstacles.into_iter()).filter(|o| o.len() >= 3).collect();
        if outline.len() < 3
            || !finite(outline)
            || !obstacles.iter().all(|o| finite(o))
            || !sane(clearance)
        {
            return Err(NavMeshError::BadInput);
        }
        // A clearance beyond the outline's size would keep paths from all of it, as that does.
        let (low, high) = bounds(outline.iter().copied());
        let clearance = clearance.clamp(0.0, low.distance(high));
        let ground = triangulate(outline, &obstacles, 0.0);
        let mut edges = boundary_of(&ground, Bound::Wall).ok_or(NavMeshError::Empty)?;
        let mut mesh = if clearance > 0.0 {
            // The outline's outside as two obstacles, grown as every other is, in a box with
            // room round them: the mesh's polygons between box and outside are unreachable
            // from the ground, and their edges are left out.
            let ([above, below], [low, high]) = outside_of(outline, 1.0);
            let room = clearance + 1.0;
            let (low, high) = (low - room, high + room);
            let exterior = [
                low,
                Vec2::new(high.x, low.y),
                high,
                Vec2::new(low.x, high.y),
            ];
            let grown: Vec<Vec<Vec2>> = obstacles.iter().cloned().chain([above, below]).collect();
            let margin = triangulate(&exterior, &grown, clearance);
            let ground_outline = Outline::new(edges.clone());
            let mut on_ground = boundary_of(&margin, Bound::Margin).unwrap_or_default();
            on_ground.retain(|e| ground_outline.contains((e.a + e.b) * 0.5, Bound::Wall));
            if on_ground.is_empty() {
                return Err(NavMeshError::Empty);
            }
            edges.extend(on_ground);
            margin
        } else {
            ground
        };
        // Triangles merged into convex polygons: fewer intervals for the search to push.
        mesh.merge_polygons();
        mesh.bake();
        Ok(Self {
            paths: Arc::new(mesh),
            outline: Arc::new(Outline::new(edges)),
            clearance,
            height: None,
            number: NEXT_MESH.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The mesh with ground that is not flat: `height` gives its z at each point of the plane
    /// (a ramp, a hill, a bridge's arch; one surface, not floors above floors).
    /// [`NavMeshPlugin`](crate::NavMeshPlugin) sets each agent's z to it every tick, so that
    /// agents walk on the surface. The paths, the walls and the crowd's rules stay in the XY
    /// plane: distances along a slope are measured across the plane, shorter by the slope's
    /// cosine (4% at 16°). Where the height is not finite, an agent walks on the plane (z 0),
    /// with a warning.
    pub fn with_height(self, height: impl Fn(Vec2) -> f32 + Send + Sync + 'static) -> Self {
        Self {
            height: Some(Arc::new(height)),
            ..self
        }
    }

    /// The ground's height at `point` (its x and y): 0 where the ground is flat (see
    /// [`with_height`](Self::with_height)).
    pub fn height_at(&self, point: Vec3) -> f32 {
        self.height.as_ref().map_or(0.0, |h| h(point.truncate()))
    }

    /// Whether the ground has a height (see [`with_height`](Self::with_height)).
    pub(crate) fn has_height(&self) -> bool {
        self.height.is_some()
    }

    /// Whether `point` (its x and y) is on the walkable ground: inside the outline and outside
    /// every obstacle, as given.
    pub fn is_walkable_at(&self, point: Vec3) -> bool {
        self.outline.contains(point.truncate(), Bound::Wall)
    }

    /// Whether the straight line from `a` to `b` (their x and y) stays on the ground with the
    /// clearance kept: it crosses no wall, and does not go nearer one than the clearance (a
    /// line from nearer, heading away, is clear). Running along an edge or ending at its
    /// corner is not crossing it.
    pub fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        !self.outline.crosses(a.truncate(), b.truncate(), true)
    }

    /// Whether the straight line from `a` to `b` (their x and y) crosses no wall: a line of
    /// sight, which may pass nearer a wall than the clearance.
    pub fn sees(&self, a: Vec3, b: Vec3) -> bool {
        !self.outline.crosses(a.truncate(), b.truncate(), false)
    }

    /// How far along its path a unit on this mesh checks each tick that its way is clear (and
    /// cuts a corner toward a waypoint no farther): [`LOOK_AHEAD_CELLS`] cells of the grid the
    /// mesh's edges are found by, a few edges' worth of ground, so that the checks of a unit
    /// on a long street read a few cells, whatever the length of its path.
    pub(crate) fn look_ahead(&self) -> f32 {
        self.outline.cell_side() * LOOK_AHEAD_CELLS
    }

    /// The shortest path from `from` to `to` across the ground, keeping the clearance from
    /// every wall: the waypoints after `from`, `to` itself last (on the plane, z zero); `None`
    /// where no path joins them or either is off the ground. A point on the ground nearer a
    /// wall than the clearance is planned from (or to) the nearest point that keeps it.
    pub fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        let (from_kept, to_kept) = (self.kept_clear(from)?, self.kept_clear(to)?);
        let mut path = self.paths.path(from_kept, to_kept)?;
        // The destination exactly as asked: the search may have moved it onto the mesh.
        if let Some(last) = path.last_mut() {
            *last = to.truncate();
        }
        Some(path.into_iter().map(|p| p.extend(0.0)).collect())
    }

    /// The walls agents' bodies are kept behind: the edges of the outline and of every
    /// obstacle as given (where obstacles overlap, of their union), each from one end to the
    /// other with the ground on its left.
    pub fn walls(&self) -> impl Iterator<Item = [Vec2; 2]> + '_ {
        self.outline.edges(Bound::Wall).map(|e| [e.a, e.b])
    }

    /// How far paths keep from every wall.
    pub fn clearance(&self) -> f32 {
        self.clearance
    }

    /// `point` where it keeps the clearance; else the nearest point that does, if that is
    /// within the clearance and in sight; `None` off the ground.
    fn kept_clear(&self, point: Vec3) -> Option<Vec2> {
        let point = point.truncate();
        if !self.outline.contains(point, Bound::Wall) {
            return None;
        }
        if self.clearance == 0.0 || self.outline.contains(point, Bound::Margin) {
            return Some(point);
        }
        // A hundredth more, for the rounding of the grown corners' arcs.
        let near = self
            .outline
            .nearest_on(point, Bound::Margin, self.clearance * 1.01)?;
        (!self.outline.crosses(point, near, false)).then_some(near)
    }

    /// Unique to the mesh as built: a clone keeps it.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }
}

/// The mesh of the ground inside `outline` less `obstacles`, each grown by `grown_by`.
fn triangulate(outline: &[Vec2], obstacles: &[Vec<Vec2>], grown_by: f32) -> Mesh {
    let mut triangulation = Triangulation::from_outer_edges(outline);
    triangulation.add_obstacles(obstacles.iter().cloned());
    if grown_by > 0.0 {
        triangulation.set_agent_radius(grown_by);
        triangulation.set_agent_radius_segments(CORNER_POINTS);
    }
    triangulation.as_navmesh()
}

/// The boundary edges of the mesh's walkable polygons, as `bound`; `None` when it has none.
fn boundary_of(mesh: &Mesh, bound: Bound) -> Option<Vec<Edge>> {
    let layer = mesh.layers.first()?;
    if layer.polygons.is_empty() {
        return None;
    }
    let vertices: Vec<Vec2> = layer.vertices.iter().map(|v| v.coords).collect();
    let polygons: Vec<Vec<u32>> = layer.polygons.iter().map(|p| p.vertices.clone()).collect();
    Some(boundary(&vertices, &polygons, bound))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x0: f32, y0: f32, side: f32) -> Vec<Vec2> {
        vec![
            Vec2::new(x0, y0),
            Vec2::new(x0 + side, y0),
            Vec2::new(x0 + side, y0 + side),
            Vec2::new(x0, y0 + side),
        ]
    }

    #[test]
    fn bad_outlines_and_clearances_are_refused() {
        let bad = |outline: &[Vec2], obstacles: Vec<Vec<Vec2>>, clearance: f32| {
            NavMesh::from_outline(outline, obstacles, clearance).err()
        };
        let room = square(0.0, 0.0, 10.0);
        assert_eq!(bad(&room[..2], vec![], 0.0), Some(NavMeshError::BadInput));
        let mut nan = room.clone();
        nan[1].x = f32::NAN;
        assert_eq!(bad(&nan, vec![], 0.0), Some(NavMeshError::BadInput));
        let inf = vec![
            Vec2::new(f32::INFINITY, 1.0),
            Vec2::ONE,
            Vec2::new(1.0, 2.0),
        ];
        assert_eq!(bad(&room, vec![inf], 0.0), Some(NavMeshError::BadInput));
        assert_eq!(bad(&room, vec![], f32::NAN), Some(NavMeshError::BadInput));
        // Huge values, whose box with room round it would overflow.
        assert_eq!(bad(&room, vec![], 1e30), Some(NavMeshError::BadInput));
        let huge = vec![Vec2::ZERO, Vec2::new(1e30, 0.0), Vec2::splat(1e30)];
        assert_eq!(bad(&huge, vec![], 1.0), Some(NavMeshError::BadInput));
        // The largest allowed clearance covers the room: nothing to plan on, and no panic.
        assert_eq!(bad(&room, vec![], 1e15), Some(NavMeshError::Empty));
        // Grown by 7 m (its corners cut by chords, 92% of that), a 2 m block in the middle
        // covers the whole room.
        let middle = square(4.0, 4.0, 2.0);
        assert_eq!(bad(&room, vec![middle], 7.0), Some(NavMeshError::Empty));
    }

    #[test]
    fn a_clearance_keeps_the_path_that_far_from_the_corners() {
        let room = square(0.0, 0.0, 20.0);
        let block = square(8.0, 4.0, 4.0);
        let (from, to) = (Vec3::new(10.0, 1.0, 0.0), Vec3::new(10.0, 15.0, 0.0));
        for clearance in [0.0, 0.5, 1.0] {
            let mesh = NavMesh::from_outline(&room, [block.clone()], clearance).unwrap();
            let path = mesh.find_path(from, to).unwrap();
            let corner_gap = (path.iter().take(path.len() - 1))
                .flat_map(|w| block.iter().map(move |c| w.truncate().distance(*c)))
                .fold(f32::INFINITY, f32::min);
            // The grown corners are arcs of a few segments: within 10% of the clearance.
            assert!(
                (corner_gap - clearance).abs() <= 0.1 * clearance + 1e-4,
                "clearance {clearance}: the path passes {corner_gap} from a corner: {path:?}"
            );
            assert!(!mesh.is_walkable_at(Vec3::new(10.0, 6.0, 0.0)));
        }
    }

    #[test]
    fn points_off_the_ground_have_no_path() {
        let mesh =
            NavMesh::from_outline(&square(0.0, 0.0, 10.0), [square(4.0, 4.0, 2.0)], 0.0).unwrap();
        let inside = Vec3::new(1.0, 1.0, 0.0);
        assert!(mesh.find_path(inside, Vec3::new(5.0, 5.0, 0.0)).is_none());
        assert!(
            mesh.find_path(inside, Vec3::new(f32::NAN, 1.0, 0.0))
                .is_none()
        );
        assert!(mesh.find_path(inside, Vec3::new(30.0, 1.0, 0.0)).is_none());
        assert_eq!(
            mesh.find_path(inside, Vec3::new(9.0, 1.0, 0.0)),
            Some(vec![Vec3::new(9.0, 1.0, 0.0)])
        );
    }

    #[test]
    fn a_point_nearer_a_wall_than_the_clearance_plans_from_where_it_is_kept() {
        let mesh =
            NavMesh::from_outline(&square(0.0, 0.0, 10.0), [square(4.0, 4.0, 2.0)], 0.5).unwrap();
        // 0.2 m off the room's left wall and off the block's right side: on the ground, within
        // the clearance.
        let (by_wall, by_block) = (Vec3::new(0.2, 5.0, 0.0), Vec3::new(6.2, 5.0, 0.0));
        assert!(mesh.is_walkable_at(by_wall) && mesh.is_walkable_at(by_block));
        let path = mesh.find_path(by_wall, by_block).unwrap();
        assert_eq!(path.last(), Some(&by_block));
        // Round the block's grown corners, half a metre clear of them.
        assert!(path.len() >= 2, "{path:?}");
        assert!(
            path.iter().take(path.len() - 1).all(|w| w.x > 0.45),
            "{path:?}"
        );
        let (off_wall, off_block) = (Vec3::new(2.0, 5.0, 0.0), Vec3::new(8.0, 5.0, 0.0));
        assert!(mesh.is_clear_line(by_wall, off_wall), "away from the wall");
        assert!(!mesh.is_clear_line(off_wall, by_wall), "toward it");
        assert!(mesh.sees(off_wall, by_wall), "in sight");
        assert!(
            mesh.is_clear_line(by_block, off_block),
            "away from the block"
        );
        assert!(!mesh.is_clear_line(off_block, by_block), "toward it");
        assert!(
            !mesh.is_clear_line(Vec3::new(3.8, 5.0, 0.0), by_block),
            "through the block"
        );
        assert_eq!(mesh.clearance(), 0.5);
    }

    #[test]
    fn overlapping_obstacles_are_walled_as_their_union() {
        let (a, b) = (square(2.0, 2.0, 4.0), square(4.0, 4.0, 4.0));
        let mesh = NavMesh::from_outline(&square(0.0, 0.0, 10.0), [a, b], 0.0).unwrap();
        for inside in [(3.0, 3.0), (5.0, 5.0), (7.0, 7.0)] {
            let p = Vec3::new(inside.0, inside.1, 0.0);
            assert!(!mesh.is_walkable_at(p), "{p}");
        }
        assert!(mesh.is_walkable_at(Vec3::new(7.0, 3.0, 0.0)));
        // No wall runs inside the union: none has a point within both squares' overlap.
        let overlap = |p: Vec2| p.cmpgt(Vec2::splat(4.0)).all() && p.cmplt(Vec2::splat(6.0)).all();
        assert!(mesh.walls().all(|[a, b]| !overlap(a.lerp(b, 0.5))));
        let length: f32 = mesh.walls().map(|[a, b]| a.distance(b)).sum();
        // The room's 40 m and the union's 24 m.
        assert!((length - 64.0).abs() < 1e-3, "{length}");
    }

    #[test]
    fn paths_keep_the_clearance_from_the_outlines_own_corners_and_narrow_gaps_close() {
        // An L of corridors 2 m wide: its inner corner at (2, 2).
        let l_shape = [
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 2.0),
            (2.0, 2.0),
            (2.0, 10.0),
            (0.0, 10.0),
        ]
        .map(|(x, y)| Vec2::new(x, y));
        let (from, to) = (Vec3::new(9.0, 1.0, 0.0), Vec3::new(1.0, 9.0, 0.0));
        for clearance in [0.3, 0.6] {
            let mesh = NavMesh::from_outline(&l_shape, [], clearance).unwrap();
            let path = mesh.find_path(from, to).unwrap();
            let mut gap = f32::INFINITY;
            let mut at = from.truncate();
            for next in path.iter().map(|w| w.truncate()) {
                // The leg's nearest approach to the corner.
                let along = next - at;
                let t =
                    ((Vec2::splat(2.0) - at).dot(along) / along.length_squared()).clamp(0.0, 1.0);
                gap = gap.min((at + along * t).distance(Vec2::splat(2.0)));
                at = next;
            }
            assert!(
                gap >= 0.96 * clearance && gap <= 1.1 * clearance,
                "clearance {clearance}: the path passes {gap} from the corner: {path:?}"
            );
        }
        // Wider than the corridors allow: no way through.
        let closed = NavMesh::from_outline(&l_shape, [], 1.1).unwrap();
        assert_eq!(closed.find_path(from, to), None);
    }
}
