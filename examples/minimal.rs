//! Two flocks of birds in a walled box with two pillars they fly around: the smallest windowed
//! use of `bevy_flock`.
//!
//! Run with `cargo run --features examples --example minimal`.
//! Keys: `G` toggles velocity gizmos, `P` shows one bird's perception radii, `Space` pauses.
//!
//! Set `BEVY_FLOCK_CAPTURE=FRAMES:PATH` to save a screenshot to `PATH` after `FRAMES` frames
//! and exit (how CI and the docs take their pictures; see `support/capture.rs`).

use std::f32::consts::FRAC_PI_2;

use bevy::prelude::*;
use bevy_flock::prelude::*;

#[path = "support/capture.rs"]
mod capture;

/// Half the size of the box the birds fly in.
const HALF_BOX: f32 = 25.0;
const BIRDS_PER_FLOCK: usize = 400;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: minimal".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default(),
            FlockGizmosPlugin,
            capture::CapturePlugin,
        ))
        .add_systems(Startup, setup)
        .add_systems(Update, (orbit_camera, show_metrics, handle_keys))
        .run();
}

#[derive(Component)]
struct MetricsText;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // A cone whose tip points along -Z, the direction the plugin turns agents to face.
    let bird =
        meshes.add(Mesh::from(Cone::new(0.3, 1.0)).rotated_by(Quat::from_rotation_x(-FRAC_PI_2)));
    let walls = Boundary::walls(Vec3::splat(-HALF_BOX), Vec3::splat(HALF_BOX), 6.0);

    let flocks = [
        ("Swallows", Color::srgb(0.95, 0.55, 0.2), 1.0),
        ("Starlings", Color::srgb(0.25, 0.6, 0.95), -1.0),
    ];
    for (name, colour, side) in flocks {
        let flock = commands
            .spawn((
                Flock,
                Name::new(name),
                walls,
                SteeringLimits {
                    min_speed: 2.5,
                    ..default()
                },
                // Looser than the defaults, so birds keep a body length or two apart.
                FlockWeights {
                    separation: 4.0,
                    cohesion: 0.4,
                    ..default()
                },
                Perception {
                    neighbour_radius: 5.0,
                    separation_radius: 2.0,
                    ..default()
                },
            ))
            .id();
        let material = materials.add(StandardMaterial {
            base_color: colour,
            perceptual_roughness: 0.6,
            ..default()
        });
        for i in 0..BIRDS_PER_FLOCK {
            // A deterministic spiral of starting points and headings.
            let t = i as f32 / BIRDS_PER_FLOCK as f32;
            let angle = t * 40.0;
            let position = Vec3::new(
                side * (5.0 + 10.0 * t),
                (t - 0.5) * 30.0,
                ops::cos(angle) * 12.0,
            );
            let heading = Vec3::new(
                ops::cos(angle),
                ops::sin(angle * 0.3) * 0.3,
                ops::sin(angle),
            );
            commands.spawn((
                Agent,
                InFlock(flock),
                Transform::from_translation(position),
                Velocity(heading.normalize() * 3.0),
                Mesh3d(bird.clone()),
                MeshMaterial3d(material.clone()),
            ));
        }
    }

    // Two pillars from floor to ceiling: obstacles the birds steer around and never enter.
    let pillar_material = materials.add(Color::srgb(0.75, 0.7, 0.65));
    for x in [-9.0, 9.0] {
        let (half_length, radius) = (HALF_BOX, 2.5);
        commands.spawn((
            Obstacle::Capsule {
                half_length,
                radius,
            },
            Mesh3d(meshes.add(Capsule3d::new(radius, half_length * 2.0))),
            MeshMaterial3d(pillar_material.clone()),
            Transform::from_xyz(x, 0.0, -4.0),
        ));
    }

    // The box's floor, for a sense of space.
    commands.spawn((
        Mesh3d(
            meshes.add(
                Plane3d::default()
                    .mesh()
                    .size(HALF_BOX * 2.0, HALF_BOX * 2.0),
            ),
        ),
        MeshMaterial3d(materials.add(Color::srgb(0.3, 0.45, 0.3))),
        Transform::from_xyz(0.0, -HALF_BOX - 0.5, 0.0),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(20.0, 40.0, 10.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 400.0,
        ..default()
    });
    commands.insert_resource(ClearColor(Color::srgb(0.55, 0.75, 0.95)));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, 10.0, 70.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        MetricsText,
        Text::new(""),
        TextColor(Color::BLACK),
        Node {
            position_type: PositionType::Absolute,
            top: px(10),
            left: px(10),
            ..default()
        },
    ));
}

/// Circles the camera slowly round the box.
fn orbit_camera(time: Res<Time>, mut camera: Single<&mut Transform, With<Camera3d>>) {
    let angle = time.elapsed_secs() * 0.1;
    let eye = Vec3::new(ops::sin(angle) * 70.0, 10.0, ops::cos(angle) * 70.0);
    **camera = Transform::from_translation(eye).looking_at(Vec3::ZERO, Vec3::Y);
}

fn show_metrics(metrics: Res<FlockMetrics>, mut text: Single<&mut Text, With<MetricsText>>) {
    text.0 = format!(
        "agents {}   polarisation {:.2}   neighbours {:.1}   step {:.2} ms\n[G] velocities  [P] one bird's perception  [Space] pause",
        metrics.agents,
        metrics.polarisation,
        metrics.mean_neighbours,
        metrics.step_time.as_secs_f64() * 1000.0,
    );
}

fn handle_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut overlay: ResMut<FlockGizmos>,
    mut time: ResMut<Time<Virtual>>,
    birds: Query<Entity, With<Agent>>,
) {
    if keys.just_pressed(KeyCode::KeyG) {
        overlay.velocity = !overlay.velocity;
    }
    if keys.just_pressed(KeyCode::KeyP) {
        overlay.perception = match (overlay.perception, birds.iter().next()) {
            (PerceptionGizmos::Off, Some(bird)) => PerceptionGizmos::Agent(bird),
            _ => PerceptionGizmos::Off,
        };
    }
    if keys.just_pressed(KeyCode::Space) {
        if time.is_paused() {
            time.unpause();
        } else {
            time.pause();
        }
    }
}
