//! [`NavMeshPlugin`]: the ground as a navigation mesh, and paths across it for the
//! destinations of agents and squads.

mod edges;
mod mesh;
mod planner;

use bevy::prelude::*;

use crate::destination::Destination;
use crate::schedule::{FlockingSchedule, Step};
pub use mesh::{NavMesh, NavMeshError};
pub use planner::NavMeshPlanner;

/// Navigation meshes (the `navmesh` feature; add it after
/// [`FlockingPlugins`](crate::FlockingPlugins), with [`SquadsPlugin`](crate::SquadsPlugin)):
/// while a [`NavMesh`] resource is in the world, agents and squads with a
/// [`Destination`] get their paths across it rather than across the `Terrain` (see
/// [`NavMeshPlanner`]), planned again when it is replaced; a destination it cannot reach gets a
/// [`PathNotFound`](crate::PathNotFound).
pub struct NavMeshPlugin;

impl Plugin for NavMeshPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "NavMeshPlugin");
        app.init_resource::<NavMeshPlanner>().add_systems(
            schedule,
            (new_planning_tick, forget_removed_requests)
                .chain()
                .in_set(Step::Flocks),
        );
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
