//! [`NavMeshPlugin`]: the ground as a navigation mesh, and paths across it for the
//! destinations of agents and squads.

mod edges;
mod floor;
mod joins;
mod mesh;
mod outside;
mod planner;

use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::{Shape, Space};

use crate::components::{Agent, OnFloor};
use crate::destination::Destination;
use crate::diagnostics::Reporter;
use crate::schedule::{FlockingSchedule, Step};
use crate::simulation::FlockSimulation;
pub use floor::NavFloor;
pub use joins::FloorJoin;
pub use mesh::{NavMesh, NavMeshError};
pub use planner::NavMeshPlanner;
#[cfg(feature = "snapshot")]
pub(crate) use planner::SavedMeshPlanner;

/// Navigation meshes (the `navmesh` feature; add it after
/// [`FlockingPlugins`](crate::FlockingPlugins), with [`SquadsPlugin`](crate::SquadsPlugin)):
/// while a [`NavMesh`] resource is in the world, agents and squads with a
/// [`Destination`] get their paths across it rather than across the `Terrain` (see
/// [`NavMeshPlanner`]), planned again when it is replaced; a destination it cannot reach gets a
/// [`PathNotFound`](crate::PathNotFound). The mesh's walls (see [`NavMesh::walls`]) join the
/// crowd's obstacles each tick, so that no agent's body leaves the ground; the obstacles the
/// mesh was built from need not be given again. On ground with a height (see
/// [`NavMesh::with_height`]), agents walk on its surface. On a mesh of floors (see
/// [`NavMesh::from_floors`]), each floor's walls stand on its [`OnFloor`], and an agent that
/// walks across a join to another floor is moved to that floor.
pub struct NavMeshPlugin;

impl Plugin for NavMeshPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "NavMeshPlugin");
        app.init_resource::<NavMeshPlanner>()
            .add_systems(
                schedule,
                (new_planning_tick, forget_removed_requests)
                    .chain()
                    .in_set(Step::Flocks),
            )
            .add_systems(schedule, add_walls.in_set(Step::CopyTerrain))
            .add_systems(
                schedule,
                (cross_joins, walk_on_surface).chain().in_set(Step::Metrics),
            );
    }
}

/// How far a piece of wall spans, in metres, along x or y, whichever it spans less: the
/// obstacles are binned by their bounds, and a long slanting wall's would hold a street. A
/// wall along x or y is one piece however long: cut, its pieces (4 m long, a street's wall cut
/// in four) filled each cell of the bins two or three times over, and every cast and sweep
/// near it tested each (the navmesh bench's crowd: its tick 1.52 times open ground's, median of
/// ten runs, against 1.46 with whole walls).
const WALL_PIECE: f32 = 4.0;
/// The most pieces one wall is cut into (a slanting wall kilometres long has longer pieces).
const MOST_PIECES: f32 = 1024.0;

/// Adds the navmesh's walls to this tick's obstacles, as segments (capsules of no radius: the
/// crowd keeps each body its own radius from them), each floor's on the kernel's plane of that
/// floor (see [`OnFloor`]); cut again only when the mesh is replaced.
fn add_walls(
    mut sim: ResMut<FlockSimulation>,
    mesh: Option<Res<NavMesh>>,
    mut walls: Local<(u64, Vec<Shape>)>,
) {
    let started = Instant::now();
    let planar = sim.crowd().space() == Space::Planar;
    let (cut_for, pieces) = &mut *walls;
    match &mesh {
        Some(mesh) if *cut_for != mesh.number() => {
            *cut_for = mesh.number();
            pieces.clear();
            for floor in 0..mesh.floors() {
                let z = match i32::try_from(floor) {
                    Ok(floor) if planar => Space::floor_height(floor),
                    _ => 0.0,
                };
                for [a, b] in mesh.walls(floor) {
                    pieces.extend(wall_pieces(a, b, z));
                }
            }
        }
        Some(_) => {}
        None => (*cut_for, *pieces) = (0, Vec::new()),
    }
    sim.shapes.extend_from_slice(pieces);
    sim.step_time += started.elapsed();
}

/// The wall from `a` to `b` at height `z`, cut into pieces that span at most [`WALL_PIECE`]
/// along x or y, whichever they span less (at most [`MOST_PIECES`] of them).
fn wall_pieces(a: Vec2, b: Vec2, z: f32) -> impl Iterator<Item = Shape> {
    let span = (b - a).abs().min_element();
    let count = (span / WALL_PIECE).ceil().clamp(1.0, MOST_PIECES);
    (0..count as u32).map(move |k| Shape::Capsule {
        a: a.lerp(b, k as f32 / count).extend(z),
        b: a.lerp(b, (k + 1) as f32 / count).extend(z),
        radius: 0.0,
    })
}

/// Moves each agent that walked across a join between the navmesh's floors (see
/// [`NavMesh::from_floors`]) to the floor it crossed to: sets its [`OnFloor`] (floor 0 without
/// one), after integration.
fn cross_joins(
    mesh: Option<Res<NavMesh>>,
    mut agents: Query<(Entity, &Transform, Option<&mut OnFloor>), With<Agent>>,
    mut commands: Commands,
) {
    let Some(mesh) = mesh.filter(|mesh| mesh.has_joins()) else {
        return;
    };
    for (entity, transform, floor) in &mut agents {
        let on = floor.as_deref().map_or(0, |f| f.0);
        let Some(to) = usize::try_from(on)
            .ok()
            .and_then(|on| mesh.crossed_to(on, transform.translation.truncate()))
            .and_then(|to| i32::try_from(to).ok())
        else {
            continue;
        };
        match floor {
            Some(mut floor) => floor.0 = to,
            None => {
                commands.entity(entity).insert(OnFloor(to));
            }
        }
    }
}

/// Sets each agent's z to the height of the navmesh's ground under it on its floor (see
/// [`OnFloor`]), when that floor's ground has one (see [`NavMesh::with_height`] and
/// [`NavFloor::with_height`]): after integration, which moves agents on the plane (z 0). A
/// height that is not finite leaves the agent there, and is reported once.
fn walk_on_surface(
    mesh: Option<Res<NavMesh>>,
    mut agents: Query<(Entity, &mut Transform, Option<&OnFloor>), With<Agent>>,
    mut reporter: Reporter,
) {
    let Some(mesh) = mesh.filter(|mesh| mesh.has_height()) else {
        return;
    };
    for (entity, mut transform, floor) in &mut agents {
        let floor = usize::try_from(floor.map_or(0, |f| f.0)).unwrap_or(usize::MAX);
        let Some(height) = mesh.height_on(floor, transform.translation.truncate()) else {
            continue;
        };
        if height.is_finite() {
            transform.translation.z = height;
        } else {
            let at = transform.translation.truncate();
            reporter.warn_once(
                entity,
                "navmesh height",
                &format!(
                    "the navmesh's ground has no finite height at {at}; it walks on the plane there"
                ),
            );
        }
    }
}

/// Gives the planner this tick's budget.
fn new_planning_tick(mut planner: ResMut<NavMeshPlanner>) {
    planner.new_tick();
}

/// Drops what agents and squads asked of the planner once their destination is removed or
/// they are despawned.
fn forget_removed_requests(
    mut removed: RemovedComponents<Destination>,
    mut planner: ResMut<NavMeshPlanner>,
) {
    for who in removed.read() {
        planner.forget(who);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ends of each capsule of `pieces`, as points of the plane.
    fn ends(pieces: impl Iterator<Item = Shape>) -> Vec<[Vec2; 2]> {
        pieces
            .map(|piece| match piece {
                Shape::Capsule { a, b, .. } => [a.truncate(), b.truncate()],
                other => panic!("not a segment: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_wall_is_cut_only_where_it_slants() {
        let along_y = ends(wall_pieces(Vec2::ZERO, Vec2::new(0.0, 100.0), 0.0));
        assert_eq!(along_y, vec![[Vec2::ZERO, Vec2::new(0.0, 100.0)]]);
        // 16 m at 45 degrees spans 11.3 m each way: three pieces, end to end.
        let (a, b) = (Vec2::ZERO, Vec2::splat(16.0 / 2f32.sqrt()));
        let slanting = ends(wall_pieces(a, b, 0.0));
        assert_eq!(slanting.len(), 3);
        assert_eq!((slanting[0][0], slanting[2][1]), (a, b));
        assert!(slanting.windows(2).all(|w| w[0][1] == w[1][0]));
        let spans = slanting.iter().map(|[p, q]| (*q - *p).abs().min_element());
        assert!(spans.clone().all(|s| s <= WALL_PIECE), "{slanting:?}");
        // Kilometres long: no more than the most pieces.
        let long = wall_pieces(Vec2::ZERO, Vec2::splat(1e5), 2.0);
        assert_eq!(long.count(), MOST_PIECES as usize);
    }
}
