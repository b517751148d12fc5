//! The [`NavMesh`] resource: where agents can walk, as polygons on the plane, and the shortest
//! paths across it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;
use polyanya::{Mesh, Triangulation};

use super::edges::Outline;

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

/// Numbers each mesh built, so that a system can tell a new one from the one it planned on.
static NEXT_MESH: AtomicU64 = AtomicU64::new(1);

/// A navigation mesh on the XY plane (the plane of
/// [`Space::Planar`](flock_core::Space::Planar) and of the `Terrain`): the ground agents may
/// walk on, built from an outline and the obstacles inside it. Insert it as a resource, with
/// [`NavMeshPlugin`](crate::NavMeshPlugin), and the [`Destination`](crate::Destination)s of
/// agents and squads are planned across it: shortest paths (Polyanya, Cui, Harabor and
/// Grastien 2017, through the `polyanya` crate), which bend only at the corners of obstacles.
/// Replace it when the ground changes (a door closes, a building is placed), and every path is
/// planned again.
///
/// The mesh plans the way; the crowd's bodies are kept off the obstacles it was built from by
/// the obstacle avoidance, so give them to the crowd as well (as [`Obstacle`](crate::Obstacle)s
/// or the `Terrain`'s walls).
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
    outline: Arc<Outline>,
    number: u64,
}

/// Why a [`NavMesh`] could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavMeshError {
    /// The outline has fewer than three points, or a point or the clearance is not finite.
    BadInput,
    /// Nothing is left to walk on: the obstacles (grown by the clearance) cover the outline.
    Empty,
}

impl core::fmt::Display for NavMeshError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::BadInput => {
                "a navmesh needs an outline of three or more finite points and a finite clearance"
            }
            Self::Empty => "the obstacles cover the navmesh's whole outline",
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
    /// (polygons inside it, each grown by `clearance`: give the agents' body radius, and a path
    /// keeps their bodies clear of every obstacle's corner; zero or less grows nothing).
    /// Obstacles of fewer than three points are left out.
    pub fn from_outline(
        outline: &[Vec2],
        obstacles: impl IntoIterator<Item = Vec<Vec2>>,
        clearance: f32,
    ) -> Result<Self, NavMeshError> {
        let finite = |points: &[Vec2]| points.iter().all(|p| p.is_finite());
        let obstacles: Vec<Vec<Vec2>> = obstacles.into_iter().collect();
        if outline.len() < 3
            || !finite(outline)
            || !obstacles.iter().all(|o| finite(o))
            || !clearance.is_finite()
        {
            return Err(NavMeshError::BadInput);
        }
        let mut triangulation = Triangulation::from_outer_edges(outline);
        triangulation.add_obstacles(obstacles.into_iter().filter(|o| o.len() >= 3));
        if clearance > 0.0 {
            triangulation.set_agent_radius(clearance);
        }
        let mut mesh = triangulation.as_navmesh();
        let layer = &mesh.layers[0];
        if layer.polygons.is_empty() {
            return Err(NavMeshError::Empty);
        }
        let vertices: Vec<Vec2> = layer.vertices.iter().map(|v| v.coords).collect();
        let polygons: Vec<Vec<u32>> = layer.polygons.iter().map(|p| p.vertices.clone()).collect();
        let outline = Outline::new(&vertices, &polygons);
        mesh.bake();
        Ok(Self {
            paths: Arc::new(mesh),
            outline: Arc::new(outline),
            number: NEXT_MESH.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// Whether `point` (its x and y) is on the walkable ground.
    pub fn is_walkable_at(&self, point: Vec3) -> bool {
        self.outline.contains(point.truncate())
    }

    /// Whether the straight line from `a` to `b` (their x and y) stays on the walkable ground
    /// where it is on it: it crosses none of the ground's edges. Running along an edge or
    /// ending at its corner is not crossing it.
    pub fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        !self.outline.crosses(a.truncate(), b.truncate())
    }

    /// The shortest path from `from` to `to` across the ground: the waypoints after `from`,
    /// `to` itself last (on the plane, z zero); `None` where no path joins them or either is
    /// off the ground.
    pub fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        let (from, to) = (from.truncate(), to.truncate());
        if !(from.is_finite() && to.is_finite()) {
            return None;
        }
        let mut path = self.paths.path(from, to)?;
        // The destination exactly as asked: the search may have moved it onto the mesh.
        if let Some(last) = path.last_mut() {
            *last = to;
        }
        Some(path.into_iter().map(|p| p.extend(0.0)).collect())
    }

    /// Unique to the mesh as built: a clone keeps it.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }
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
        // Grown by 6 m, a 2 m block in the middle covers the whole room.
        let middle = square(4.0, 4.0, 2.0);
        assert_eq!(bad(&room, vec![middle], 6.0), Some(NavMeshError::Empty));
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
}
