//! One floor of a [`NavMesh`](super::NavMesh): the ground it is built from ([`NavFloor`]),
//! and as built, its walls, the margin its paths are planned on, its planner and its height.

use std::sync::Arc;

use bevy::prelude::*;
use polyanya::{Mesh, Triangulation};

use super::edges::{Bound, Edge, Outline, boundary};
use super::outside::outside_of;

/// The ground's height at a point of the plane (see [`NavFloor::with_height`]).
pub(super) type Height = dyn Fn(Vec2) -> f32 + Send + Sync;

/// How many points round a grown obstacle's right-angled corner: three chords of the
/// clearance's circle, so that a path passes the corner at no less than cos 15° (97%) of the
/// clearance. Each point is a turning point to the search: polyanya's default of five planned
/// about 1.5 times as slowly across a grid of streets, and three (one chord, 71%) hardly
/// faster.
const CORNER_POINTS: u8 = 4;

/// How near a join a wall must lie, at both ends, to be left open along it, in metres: the
/// rounding of the triangulation's vertices.
const ON_JOIN: f32 = 1e-3;

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

/// One floor of a [`NavMesh`](super::NavMesh) with floors (see
/// [`NavMesh::from_floors`](super::NavMesh::from_floors)): the walkable ground inside an
/// outline (a polygon, either way round) less obstacles (polygons inside it), on the plane,
/// with a height over it. A street with the foot of a ramp walled off, a footbridge with its
/// ramps, a roof terrace.
#[derive(Clone)]
pub struct NavFloor {
    pub(super) outline: Vec<Vec2>,
    pub(super) obstacles: Vec<Vec<Vec2>>,
    pub(super) height: Option<Arc<Height>>,
}

impl core::fmt::Debug for NavFloor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NavFloor")
            .field("outline", &self.outline)
            .field("obstacles", &self.obstacles)
            .field("has_height", &self.height.is_some())
            .finish()
    }
}

impl NavFloor {
    /// The ground inside `outline` less `obstacles` (obstacles of fewer than three points are
    /// left out), flat at z 0.
    pub fn new(
        outline: impl Into<Vec<Vec2>>,
        obstacles: impl IntoIterator<Item = Vec<Vec2>>,
    ) -> Self {
        Self {
            outline: outline.into(),
            obstacles: (obstacles.into_iter()).filter(|o| o.len() >= 3).collect(),
            height: None,
        }
    }

    /// The floor with its ground at `height` over each point of the plane (a ramp rising to a
    /// deck, a roof's level).
    pub fn with_height(self, height: impl Fn(Vec2) -> f32 + Send + Sync + 'static) -> Self {
        Self {
            height: Some(Arc::new(height)),
            ..self
        }
    }

    /// Whether every point of the outline and the obstacles is finite and no larger than
    /// [`LARGEST_PARAMETER`](flock_core::LARGEST_PARAMETER).
    pub(super) fn is_sane(&self) -> bool {
        let sane = |v: f32| v.is_finite() && v.abs() <= flock_core::LARGEST_PARAMETER;
        let finite = |points: &[Vec2]| points.iter().all(|p| sane(p.x) && sane(p.y));
        self.outline.len() >= 3 && finite(&self.outline) && self.obstacles.iter().all(|o| finite(o))
    }
}

/// A floor as built: its walls and margin, its planner and its height.
#[derive(Clone)]
pub(super) struct Floor {
    paths: Arc<dyn PlansPaths>,
    /// The walls, and the margin the clearance leaves inside them.
    outline: Arc<Outline>,
    clearance: f32,
    height: Option<Arc<Height>>,
}

impl Floor {
    /// `floor`, its paths keeping `clearance` (zero or more) from every wall, its edges along
    /// `joins` (each a segment's two ends) left open; `None` where nothing is left to walk on,
    /// or to plan on once the clearance is kept.
    pub(super) fn build(floor: &NavFloor, clearance: f32, joins: &[[Vec2; 2]]) -> Option<Self> {
        let ground = triangulate(&floor.outline, &floor.obstacles, 0.0);
        let mut edges = boundary_of(&ground, Bound::Wall)?;
        let mut mesh = if clearance > 0.0 {
            // The outline's outside as two obstacles, grown as every other is, in a box with
            // room round them: the mesh's polygons between box and outside are unreachable
            // from the ground, and their edges are left out.
            let ([above, below], [low, high]) = outside_of(&floor.outline, 1.0);
            let room = clearance + 1.0;
            let (low, high) = (low - room, high + room);
            let exterior = [
                low,
                Vec2::new(high.x, low.y),
                high,
                Vec2::new(low.x, high.y),
            ];
            let grown: Vec<Vec<Vec2>> = (floor.obstacles.iter().cloned())
                .chain([above, below])
                .collect();
            let margin = triangulate(&exterior, &grown, clearance);
            let ground_outline = Outline::new(edges.clone());
            let mut on_ground = boundary_of(&margin, Bound::Margin).unwrap_or_default();
            on_ground.retain(|e| ground_outline.contains((e.a + e.b) * 0.5, Bound::Wall));
            if on_ground.is_empty() {
                return None;
            }
            edges.extend(on_ground);
            margin
        } else {
            ground
        };
        open_along(&mut edges, joins, clearance);
        // Triangles merged into convex polygons: fewer intervals for the search to push.
        mesh.merge_polygons();
        mesh.bake();
        Some(Self {
            paths: Arc::new(mesh),
            outline: Arc::new(Outline::new(edges)),
            clearance,
            height: floor.height.clone(),
        })
    }

    /// Whether `point` is on the walkable ground.
    pub(super) fn contains(&self, point: Vec2) -> bool {
        self.outline.contains(point, Bound::Wall)
    }

    /// Whether the segment from `a` to `b` crosses a wall, or leaves the margin when
    /// `margin` (see [`Outline::crosses`]).
    pub(super) fn crosses(&self, a: Vec2, b: Vec2, margin: bool) -> bool {
        self.outline.crosses(a, b, margin)
    }

    /// The floor's walls and margin, as an [`Outline`].
    pub(super) fn outline(&self) -> &Outline {
        &self.outline
    }

    /// The ground's height at `point`: 0 where the floor is flat.
    pub(super) fn height_at(&self, point: Vec2) -> f32 {
        self.height.as_ref().map_or(0.0, |h| h(point))
    }

    /// The floor with its ground at `height` over each point of the plane.
    pub(super) fn set_height(&mut self, height: Arc<Height>) {
        self.height = Some(height);
    }

    /// Whether the floor's ground has a height.
    pub(super) fn has_height(&self) -> bool {
        self.height.is_some()
    }

    /// The shortest way from `from` to `to`, both kept clear (see
    /// [`kept_clear`](Self::kept_clear)): the waypoints after `from`, `to` last.
    pub(super) fn path(&self, from: Vec2, to: Vec2) -> Option<Vec<Vec2>> {
        self.paths.path(from, to)
    }

    /// `point` where it keeps the clearance; else the nearest point that does, if that is
    /// within the clearance and in sight; `None` off the ground.
    pub(super) fn kept_clear(&self, point: Vec2) -> Option<Vec2> {
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

    /// The walls, each with the ground on its left (open edges along joins left out).
    pub(super) fn walls(&self) -> impl Iterator<Item = [Vec2; 2]> + '_ {
        self.outline.edges(Bound::Wall).map(|e| [e.a, e.b])
    }

    /// The side of the cells the floor's edges are found by.
    pub(super) fn cell_side(&self) -> f32 {
        self.outline.cell_side()
    }
}

/// Leaves open the edges along `joins`: the walls that lie on one, and the margin's edges
/// within the clearance of one (where the clearance is kept from the join as from a wall, a
/// line to the other floor goes out across them).
fn open_along(edges: &mut [Edge], joins: &[[Vec2; 2]], clearance: f32) {
    for edge in edges {
        let reach = match edge.bound {
            Bound::Wall => ON_JOIN,
            // The grown corners' arcs round a join's ends lie a little beyond the clearance.
            Bound::Margin => clearance * 1.05 + ON_JOIN,
        };
        edge.open = joins.iter().any(|&[a, b]| {
            let join = Edge {
                a,
                b,
                bound: Bound::Wall,
                open: true,
            };
            [edge.a, edge.b]
                .iter()
                .all(|&p| join.nearest_to(p).distance(p) <= reach)
        });
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
