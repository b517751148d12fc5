//! 2,000 birds over a meadow, following a lure round trees, pillars and rocks that are rapier
//! colliders, tuned live in the inspector panel. The birds start from the `birds` preset in
//! `assets/presets/`; pick another in the panel, edit the file while the example runs (it
//! reloads), or save your own.
//!
//! Run with `cargo run --release --features examples --example birds_3d` (add a bird count
//! after `--` for more or fewer). Right-drag orbits the camera and the wheel zooms; `Tab`
//! shows or hides the panel; `I` inspects one bird's components (bevy-inspector-egui) and
//! draws its perception; `G` shows velocities.

use std::f32::consts::{FRAC_PI_2, TAU};

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::light::NotShadowCaster;
use bevy::prelude::*;
use bevy_flock::inspector::bevy_egui::{
    EguiContext, EguiContexts, EguiPrimaryContextPass, PrimaryEguiContext, egui,
};
use bevy_flock::inspector::{FlockInspector, FlockInspectorPlugin};
use bevy_flock::prelude::*;
use bevy_flock::rapier::FlockRapierPlugin;
use bevy_rapier3d::prelude::{Collider, NoUserData, RapierPhysicsPlugin};

#[path = "support/capture.rs"]
mod capture;
#[path = "support/random.rs"]
mod random;

const DEFAULT_BIRDS: usize = 2_000;
/// Half the width of the airspace; birds keep between the ground and [`CEILING`].
const HALF_WIDTH: f32 = 60.0;
const CEILING: f32 = 40.0;
/// Wing beats per second.
const FLAPS: f32 = 3.0;

fn main() {
    let birds = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(DEFAULT_BIRDS);
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: birds_3d".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default(),
            RapierPhysicsPlugin::<NoUserData>::default(),
            FlockRapierPlugin::default(),
            FlockInspectorPlugin,
            bevy_inspector_egui::DefaultInspectorConfigPlugin,
            FlockGizmosPlugin,
            capture::CapturePlugin,
        ))
        .insert_resource(Birds(birds))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.78, 0.95)))
        .init_resource::<Watched>()
        .add_systems(Startup, (setup, spawn_obstacles))
        .add_systems(
            Update,
            (move_lure, flap_wings, orbit_camera, handle_keys, show_help),
        )
        .add_systems(EguiPrimaryContextPass, inspect_watched_bird)
        .run();
}

/// How many birds to spawn.
#[derive(Resource)]
struct Birds(usize);

/// The bird whose components the `I` window shows, if it is open.
#[derive(Resource, Default)]
struct Watched(Option<Entity>);

/// What the birds follow.
#[derive(Component)]
struct Lure;

/// A wing, beating about the bird's forward axis.
#[derive(Component)]
struct Wing {
    /// +1 for the right wing, -1 for the left.
    side: f32,
    /// Where in its beat this bird is, so that the flock does not flap in step.
    phase: f32,
}

/// The camera's place on a sphere round the middle of the airspace.
#[derive(Component)]
struct Orbit {
    yaw: f32,
    pitch: f32,
    distance: f32,
}

#[derive(Component)]
struct HelpText;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    server: Res<AssetServer>,
    birds: Res<Birds>,
    mut config: ResMut<FlockingConfig>,
) {
    // Birds beyond the middle of the scene, as seen from the camera, steer every other tick.
    config.level_of_detail = Some(LevelOfDetail {
        near_radius: 90.0,
        interval: 2,
    });
    let flock = commands
        .spawn((
            Flock,
            Name::new("Birds"),
            UsePreset(server.load("presets/birds.preset.ron")),
            Boundary::walls(
                Vec3::new(-HALF_WIDTH, 2.0, -HALF_WIDTH),
                Vec3::new(HALF_WIDTH, CEILING, HALF_WIDTH),
                8.0,
            ),
        ))
        .id();
    let lure = commands
        .spawn((
            Lure,
            Mesh3d(meshes.add(Sphere::new(0.6))),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: Color::srgb(1.0, 0.85, 0.3),
                emissive: LinearRgba::rgb(4.0, 3.0, 0.8),
                ..default()
            })),
            Transform::from_xyz(0.0, 20.0, 0.0),
            NotShadowCaster,
        ))
        .id();

    // A bird: a cone body pointing along -Z (the way the plugin turns agents to face) and two
    // triangle wings hinged along its sides.
    let body =
        meshes.add(Mesh::from(Cone::new(0.16, 0.9)).rotated_by(Quat::from_rotation_x(-FRAC_PI_2)));
    let wing = |side: f32| {
        Triangle3d::new(
            Vec3::new(side * 0.05, 0.0, -0.2),
            Vec3::new(side * 0.05, 0.0, 0.2),
            Vec3::new(side * 0.95, 0.0, 0.15),
        )
    };
    let wings = [(1.0, meshes.add(wing(1.0))), (-1.0, meshes.add(wing(-1.0)))];
    let body_colour = materials.add(StandardMaterial {
        base_color: Color::srgb(0.16, 0.17, 0.2),
        perceptual_roughness: 0.7,
        ..default()
    });
    let wing_colour = materials.add(StandardMaterial {
        base_color: Color::srgb(0.3, 0.32, 0.38),
        perceptual_roughness: 0.8,
        cull_mode: None,
        double_sided: true,
        ..default()
    });
    let mut unit = random::unit_generator(0x9e37_79b9_7f4a_7c15);
    for _ in 0..birds.0 {
        let position = Vec3::new(
            (unit() - 0.5) * 80.0,
            8.0 + unit() * 25.0,
            (unit() - 0.5) * 80.0,
        );
        let angle = unit() * TAU;
        let phase = unit() * TAU;
        commands
            .spawn((
                Agent,
                InFlock(flock),
                Target::Entity(lure),
                Transform::from_translation(position),
                Velocity(Vec3::new(ops::cos(angle), 0.0, ops::sin(angle)) * 4.0),
                Mesh3d(body.clone()),
                MeshMaterial3d(body_colour.clone()),
                NotShadowCaster,
            ))
            .with_children(|bird| {
                for (side, mesh) in &wings {
                    bird.spawn((
                        Wing { side: *side, phase },
                        Mesh3d(mesh.clone()),
                        MeshMaterial3d(wing_colour.clone()),
                        Transform::default(),
                        NotShadowCaster,
                    ));
                }
            });
    }

    // Ground, sun, sky light, camera and help.
    commands.spawn((
        Mesh3d(
            meshes.add(
                Plane3d::default()
                    .mesh()
                    .size(4.0 * HALF_WIDTH, 4.0 * HALF_WIDTH),
            ),
        ),
        MeshMaterial3d(materials.add(Color::srgb(0.36, 0.55, 0.3))),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(40.0, 80.0, 20.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 600.0,
        ..default()
    });
    commands.spawn((
        Camera3d::default(),
        DetailFocus,
        Orbit {
            yaw: 0.6,
            pitch: 0.35,
            distance: 90.0,
        },
        Transform::default(),
        DistanceFog {
            color: Color::srgb(0.62, 0.78, 0.95),
            falloff: FogFalloff::Linear {
                start: 120.0,
                end: 320.0,
            },
            ..default()
        },
    ));
    commands.spawn((
        HelpText,
        Text::new(""),
        TextFont::from_font_size(14.0),
        TextColor(Color::srgb(0.08, 0.1, 0.15)),
        Node {
            position_type: PositionType::Absolute,
            right: px(12),
            bottom: px(10),
            ..default()
        },
    ));
}

/// Trees, pillars and rocks: rapier colliders marked [`Obstacle::Collider`], which the birds
/// cast against and fly round.
fn spawn_obstacles(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let bark = materials.add(Color::srgb(0.4, 0.3, 0.22));
    let leaves = materials.add(Color::srgb(0.22, 0.45, 0.2));
    let stone = materials.add(Color::srgb(0.62, 0.6, 0.56));
    let mut obstacle =
        |collider: Collider, mesh: Mesh, material: &Handle<StandardMaterial>, at: Vec3| {
            commands.spawn((
                Obstacle::Collider,
                collider,
                Mesh3d(meshes.add(mesh)),
                MeshMaterial3d(material.clone()),
                Transform::from_translation(at),
            ));
        };
    // Six trees in a ring: a trunk and a round crown each.
    for i in 0..6 {
        let angle = i as f32 / 6.0 * TAU + 0.3;
        let base = Vec3::new(ops::cos(angle), 0.0, ops::sin(angle)) * 28.0;
        let (trunk_half, trunk_radius, crown) = (7.0, 0.9, 5.0);
        obstacle(
            Collider::cylinder(trunk_half, trunk_radius),
            Cylinder::new(trunk_radius, trunk_half * 2.0).into(),
            &bark,
            base + Vec3::Y * trunk_half,
        );
        obstacle(
            Collider::ball(crown),
            Sphere::new(crown).mesh().ico(3).expect("a small icosphere"),
            &leaves,
            base + Vec3::Y * (trunk_half * 2.0 + crown * 0.6),
        );
    }
    // Three stone pillars up to the ceiling, off centre.
    for (x, z) in [(-12.0, 8.0), (14.0, -6.0), (2.0, -20.0)] {
        let (half, radius) = (CEILING / 2.0 + 2.0, 2.2);
        obstacle(
            Collider::cylinder(half, radius),
            Cylinder::new(radius, half * 2.0).into(),
            &stone,
            Vec3::new(x, half, z),
        );
    }
    // Boulders on the ground.
    for (x, z, radius) in [(-40.0, -30.0, 6.0), (38.0, 34.0, 5.0), (-30.0, 40.0, 4.0)] {
        obstacle(
            Collider::ball(radius),
            Sphere::new(radius)
                .mesh()
                .ico(2)
                .expect("a small icosphere"),
            &stone,
            Vec3::new(x, radius * 0.4, z),
        );
    }
}

/// Flies the lure on a slow, looping path through the trees.
fn move_lure(time: Res<Time>, mut lure: Single<&mut Transform, With<Lure>>) {
    let t = time.elapsed_secs();
    lure.translation = Vec3::new(
        ops::sin(t * 0.13) * 40.0,
        18.0 + ops::sin(t * 0.31) * 8.0,
        ops::sin(t * 0.21) * 36.0,
    );
}

fn flap_wings(time: Res<Time>, mut wings: Query<(&Wing, &mut Transform)>) {
    let beat = time.elapsed_secs() * FLAPS * TAU;
    for (wing, mut transform) in &mut wings {
        let lift = ops::sin(beat + wing.phase) * 0.7;
        transform.rotation = Quat::from_rotation_z(lift * wing.side);
    }
}

/// Right-drag orbits, the wheel zooms (not over the panel); idle, the camera drifts round.
fn orbit_camera(
    time: Res<Time>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    mut contexts: EguiContexts,
    mut camera: Single<(&mut Orbit, &mut Transform)>,
) {
    let over_panel = contexts
        .ctx_mut()
        .is_ok_and(|ctx| ctx.is_pointer_over_egui());
    let (orbit, transform) = &mut *camera;
    if buttons.pressed(MouseButton::Right) {
        orbit.yaw -= motion.delta.x * 0.005;
        orbit.pitch = (orbit.pitch + motion.delta.y * 0.005).clamp(0.05, 1.4);
    } else {
        orbit.yaw += time.delta_secs() * 0.03;
    }
    if !over_panel {
        orbit.distance = (orbit.distance * (1.0 - scroll.delta.y * 0.08)).clamp(20.0, 300.0);
    }
    let centre = Vec3::Y * 15.0;
    let offset = Vec3::new(
        ops::cos(orbit.pitch) * ops::sin(orbit.yaw),
        ops::sin(orbit.pitch),
        ops::cos(orbit.pitch) * ops::cos(orbit.yaw),
    ) * orbit.distance;
    **transform = Transform::from_translation(centre + offset).looking_at(centre, Vec3::Y);
}

fn handle_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut inspector: ResMut<FlockInspector>,
    mut watched: ResMut<Watched>,
    mut overlay: ResMut<FlockGizmos>,
    birds: Query<Entity, With<Agent>>,
) {
    if keys.just_pressed(KeyCode::Tab) {
        inspector.open = !inspector.open;
    }
    if keys.just_pressed(KeyCode::KeyG) {
        overlay.velocity = !overlay.velocity;
    }
    if keys.just_pressed(KeyCode::KeyI) {
        watched.0 = match watched.0 {
            Some(_) => None,
            None => birds.iter().next(),
        };
        overlay.perception = watched
            .0
            .map_or(PerceptionGizmos::Off, PerceptionGizmos::Agent);
    }
}

fn show_help(
    metrics: Res<FlockMetrics>,
    time: Res<Time<Real>>,
    mut text: Single<&mut Text, With<HelpText>>,
) {
    text.0 = format!(
        "{} birds   {:.0} fps   right-drag: orbit   wheel: zoom   Tab: panel   I: one bird   G: velocities",
        metrics.agents,
        1.0 / time.delta_secs().max(1e-4),
    );
}

/// The `I` window: every component of the watched bird, editable (bevy-inspector-egui).
fn inspect_watched_bird(world: &mut World) {
    let Some(bird) = world.resource::<Watched>().0 else {
        return;
    };
    if world.get_entity(bird).is_err() {
        world.resource_mut::<Watched>().0 = None;
        return;
    }
    let Ok(context) = world
        .query_filtered::<&mut EguiContext, With<PrimaryEguiContext>>()
        .single(world)
    else {
        return;
    };
    let mut context = context.clone();
    egui::Window::new("One bird")
        .default_pos([960.0, 10.0])
        .default_width(300.0)
        .show(context.get_mut(), |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                bevy_inspector_egui::bevy_inspector::ui_for_entity(world, bird, ui);
            });
        });
}
