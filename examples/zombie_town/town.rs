//! The town's navigation mesh, built from its ground plan, and the town drawn.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use super::ground_plan::{
    BRIDGE, Building, CLEARANCE, FOOTBRIDGE, HALF_TOWN, RIVER, obstacles, outline,
};

/// The town's navigation mesh: the outline less the buildings and the river between the
/// bridges, paths kept [`CLEARANCE`] from them.
pub fn navmesh(buildings: &[Building]) -> NavMesh {
    NavMesh::from_outline(&outline(), obstacles(buildings), CLEARANCE)
        .expect("the town's ground plan")
}

/// The ground, the river, the bridges and the buildings.
pub fn spawn(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    buildings: &[Building],
) {
    let flat = |size: Vec2| Cuboid::new(size.x, size.y, 0.1);
    commands.spawn((
        Mesh3d(meshes.add(flat(HALF_TOWN * 2.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.3, 0.3, 0.32))),
        Transform::from_xyz(0.0, 0.0, -0.1),
    ));
    let [west, east] = RIVER;
    let river = Vec2::new(east - west, HALF_TOWN.y * 2.0);
    commands.spawn((
        Mesh3d(meshes.add(flat(river))),
        MeshMaterial3d(materials.add(Color::srgb(0.12, 0.3, 0.5))),
        Transform::from_xyz((west + east) * 0.5, 0.0, -0.05),
    ));
    let deck = materials.add(Color::srgb(0.45, 0.33, 0.22));
    for [south, north] in [BRIDGE, FOOTBRIDGE] {
        commands.spawn((
            Mesh3d(meshes.add(flat(Vec2::new(east - west + 2.0, north - south)))),
            MeshMaterial3d(deck.clone()),
            Transform::from_xyz((west + east) * 0.5, (south + north) * 0.5, 0.0),
        ));
    }
    let walls = [
        materials.add(Color::srgb(0.62, 0.55, 0.48)),
        materials.add(Color::srgb(0.52, 0.5, 0.5)),
        materials.add(Color::srgb(0.7, 0.64, 0.55)),
    ];
    for (k, building) in buildings.iter().enumerate() {
        let size = building.max - building.min;
        let middle = (building.min + building.max) * 0.5;
        commands.spawn((
            Mesh3d(meshes.add(Cuboid::new(size.x, size.y, building.height))),
            MeshMaterial3d(walls[k % walls.len()].clone()),
            Transform::from_translation(middle.extend(building.height * 0.5)),
        ));
    }
}
