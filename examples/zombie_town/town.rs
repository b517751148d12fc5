//! The town's navigation mesh, built from its ground plan, and the town drawn.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use super::ground_plan::{
    BRIDGE, Building, CLEARANCE, FOOTBRIDGE, HALF_TOWN, RIVER, ground_height, obstacles, outline,
};

/// How many flat pieces draw a bridge's arch.
const DECK_PIECES: usize = 12;

/// The town's navigation mesh: the outline less the buildings and the river between the
/// bridges, paths kept [`CLEARANCE`] from them, its ground arched over the bridges.
pub fn navmesh(buildings: &[Building]) -> NavMesh {
    NavMesh::from_outline(&outline(), obstacles(buildings), CLEARANCE)
        .expect("the town's ground plan")
        .with_height(ground_height)
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
    // Each deck in pieces along its arch, each tilted to the slope under it.
    let piece = (east - west) / DECK_PIECES as f32;
    for [south, north] in [BRIDGE, FOOTBRIDGE] {
        let middle = (south + north) * 0.5;
        for k in 0..DECK_PIECES {
            let x0 = west + piece * k as f32;
            let (z0, z1) = (
                ground_height(Vec2::new(x0, middle)),
                ground_height(Vec2::new(x0 + piece, middle)),
            );
            let length = Vec2::new(piece, z1 - z0).length();
            commands.spawn((
                Mesh3d(meshes.add(flat(Vec2::new(length + 0.05, north - south)))),
                MeshMaterial3d(deck.clone()),
                Transform::from_xyz(x0 + piece * 0.5, middle, (z0 + z1) * 0.5)
                    .with_rotation(Quat::from_rotation_y(-ops::atan2(z1 - z0, piece))),
            ));
        }
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
