//! [`TerrainPlugin`]: a grid of walkable and unwalkable tiles on the plane, whose walls every
//! agent steers around, and paths across it (A*, hierarchical on big maps) for the squads'
//! destinations.

mod hierarchy;
mod map;
mod new_walls;
mod planner;
mod regions;
mod routes;
#[cfg(feature = "snapshot")]
mod saved;
mod search;
mod sight;
mod tiles;

use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::Shape;

use crate::destination::Destination;
use crate::schedule::{FlockingSchedule, Step};
use crate::simulation::FlockSimulation;
pub(crate) use map::TerrainRevision;
pub use map::{LARGEST_TERRAIN, Terrain, TerrainTooLarge};
pub(crate) use new_walls::NewWalls;
pub use planner::PathPlanner;
#[cfg(feature = "snapshot")]
pub(crate) use planner::save::SavedPlanner;
pub(crate) use routes::LONGEST_SHORTCUT;
#[cfg(feature = "snapshot")]
pub(crate) use saved::{Renaming, SavedTerrain};
#[cfg(feature = "navmesh")]
pub(crate) use sight::clip_to_box;

/// Tile maps (the `pathfinding` feature; add it after
/// [`FlockingPlugins`](crate::FlockingPlugins)): the [`Terrain`] resource's unwalkable tiles
/// are obstacles every agent steers around and never enters, and, with
/// [`SquadsPlugin`](crate::SquadsPlugin), agents with a [`Destination`](crate::Destination)
/// get paths across it (see [`PathPlanner`]), planned again when it changes.
pub struct TerrainPlugin;

impl Plugin for TerrainPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "TerrainPlugin");
        app.register_type::<Terrain>()
            .init_resource::<PathPlanner>()
            .add_systems(
                schedule,
                (
                    (new_planning_tick, forget_removed_requests)
                        .chain()
                        .in_set(Step::Flocks),
                    add_walls.in_set(Step::CopyTerrain),
                ),
            );
    }
}

/// Gives the path planner this tick's budget.
fn new_planning_tick(mut planner: ResMut<PathPlanner>) {
    planner.new_tick();
}

/// Drops what agents and squads asked of the planner once their destination is removed or
/// they are despawned, so that it neither searches for them nor keeps their answers.
fn forget_removed_requests(
    mut removed: RemovedComponents<Destination>,
    mut planner: ResMut<PathPlanner>,
) {
    for who in removed.read() {
        planner.forget(who);
    }
}

/// Adds the terrain's unwalkable tiles to this tick's obstacles, as boxes worked out again
/// only when the terrain changes; a terrain with a bad tile size or origin is reported once
/// and ignored.
fn add_walls(
    mut sim: ResMut<FlockSimulation>,
    terrain: Option<Res<Terrain>>,
    mut walls: Local<Vec<Shape>>,
    mut warned_invalid: Local<bool>,
) {
    let started = Instant::now();
    match &terrain {
        Some(terrain) if !terrain.is_valid() => {
            if !*warned_invalid {
                warn!(
                    "bevy_flock: the Terrain's tile size {} must be positive and finite and its origin finite; it is ignored (reported once)",
                    terrain.tile_size()
                );
                *warned_invalid = true;
            }
            walls.clear();
        }
        Some(terrain) if terrain.is_changed() => *walls = terrain.blocking_boxes(),
        Some(_) => {}
        None => walls.clear(),
    }
    sim.shapes.extend_from_slice(&walls);
    sim.step_time += started.elapsed();
}
