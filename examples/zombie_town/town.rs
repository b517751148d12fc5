//! The town drawn: its ground, river, bridges, ramp, terrace and buildings.

use bevy::prelude::*;

use super::ground_plan::{
    BRIDGE, Building, FOOTBRIDGE, HALF_TOWN, RAMP_FOOT, RAMP_TOP, RAMP_X, RIVER, TERRACE,
    TERRACE_HEIGHT, ground_height,
};

/// How many flat pieces draw a bridge's arch.
const DECK_PIECES: usize = 12;

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
    // The ramp, tilted to its slope, and its deck over the street to the terrace.
    let (width, run) = (RAMP_X[1] - RAMP_X[0], RAMP_TOP - RAMP_FOOT);
    let middle_x = (RAMP_X[0] + RAMP_X[1]) * 0.5;
    commands.spawn((
        Mesh3d(meshes.add(flat(Vec2::new(
            width,
            Vec2::new(run, TERRACE_HEIGHT).length(),
        )))),
        MeshMaterial3d(deck.clone()),
        Transform::from_xyz(middle_x, RAMP_FOOT + run * 0.5, TERRACE_HEIGHT * 0.5)
            .with_rotation(Quat::from_rotation_x(ops::atan2(TERRACE_HEIGHT, run))),
    ));
    let over_street = TERRACE[0].y - RAMP_TOP;
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(width, over_street, 0.3))),
        MeshMaterial3d(deck.clone()),
        Transform::from_xyz(
            middle_x,
            RAMP_TOP + over_street * 0.5,
            TERRACE_HEIGHT - 0.15,
        ),
    ));
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
