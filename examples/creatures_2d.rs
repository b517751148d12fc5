//! Creatures that avoid obstacles, on a 2D field: they chase a ring that follows the mouse (and roams
//! while the mouse rests), turn at a limited rotation speed instead of snapping round, and
//! steer round walls, boxes and circles (a ball cast ahead; a chosen detour is kept for the
//! cooldown). Two blue creatures shuttle head on along the bottom and pass each other.
//!
//! Run with `cargo run --features examples --example creatures_2d`.
//! Buttons (or keys): `C` turns the avoidance cooldown on and off, `R` cycles the rotation
//! speed, `G` shows velocities.

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy_flock::prelude::*;

#[path = "support/button.rs"]
mod button;
#[path = "support/capture.rs"]
mod capture;

use button::{PressedButtons, button, panel, row};

/// Half the size of the walled field, in world units (a creature is about 0.7 long).
const HALF_FIELD: Vec2 = Vec2::new(16.5, 9.0);
/// The rotation speeds the `R` button cycles through, degrees per second (`None`: at once).
const TURN_RATES: [Option<f32>; 4] = [Some(120.0), Some(240.0), None, Some(60.0)];
/// The avoidance cooldown: how long a chosen detour is kept.
const COOLDOWN_SECONDS: f32 = 0.5;
const CHASERS: usize = 12;
/// The lane along which the two blue creatures shuttle.
const LANE_Y: f32 = -7.0;
const LANE_END_X: f32 = 13.0;
/// Seconds the mouse may rest before the bait roams on its own.
const MOUSE_REST_SECONDS: f32 = 3.0;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: creatures_2d".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default().planar(),
            FlockGizmosPlugin,
            button::ButtonStylePlugin,
            capture::CapturePlugin,
        ))
        .insert_resource(ClearColor(Color::srgb(0.09, 0.1, 0.12)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (move_bait, toggle, toggle_gizmos, show_status, draw_bait),
        )
        .add_systems(FixedUpdate, shuttle.in_set(FlockingSystems::First))
        .run();
}

/// The ring the chasers seek.
#[derive(Component)]
struct Bait;

/// A creature that goes back and forth between two points.
#[derive(Component)]
struct Shuttle {
    ends: [Vec3; 2],
    heading_to: usize,
}

/// What an on-screen button does.
#[derive(Component, Clone, Copy, PartialEq)]
enum Toggle {
    Cooldown,
    TurnRate,
}

#[derive(Component)]
struct StatusText;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut config: ResMut<FlockingConfig>,
) {
    // The view shows the field with a strip above it for the controls.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::FixedVertical {
                viewport_height: 2.0 * HALF_FIELD.y + 4.0,
            },
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, 1.5, 0.0),
    ));

    // The creatures keep moving, turn at a limited rate and sidestep one another. The chasers
    // flock a little; the pair only go for their ends.
    config.avoidance.hold_seconds = COOLDOWN_SECONDS;
    let creature_tuning = |alignment, cohesion| FlockTuning {
        weights: FlockWeights {
            alignment,
            cohesion,
            target: 1.5,
            collision_avoidance: 1.0,
            ..default()
        },
        limits: SteeringLimits {
            min_speed: 1.0,
            max_turn_rate: TURN_RATES[0],
            ..default()
        },
        perception: Perception {
            neighbour_radius: 2.5,
            separation_radius: 1.0,
            ..default()
        },
        boundary: Boundary::walls((-HALF_FIELD).extend(-1.0), HALF_FIELD.extend(1.0), 1.0),
    };
    let chasers = commands
        .spawn((Flock, Name::new("Chasers"), creature_tuning(0.3, 0.2)))
        .id();
    let shuttles = commands
        .spawn((Flock, Name::new("Shuttles"), creature_tuning(0.0, 0.0)))
        .id();

    // The floor of the field, so its walls show.
    commands.spawn((
        Mesh2d(meshes.add(Rectangle::from_size(HALF_FIELD * 2.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.16, 0.18, 0.2))),
        Transform::from_xyz(0.0, 0.0, -2.0),
    ));
    spawn_obstacles(&mut commands, &mut meshes, &mut materials);

    // Creatures are triangles pointing along their local +X, the way the plugin turns them.
    let body = meshes.add(Triangle2d::new(
        Vec2::new(0.45, 0.0),
        Vec2::new(-0.3, 0.28),
        Vec2::new(-0.3, -0.28),
    ));
    let bait = commands
        .spawn((Bait, Transform::from_xyz(8.0, 3.0, 0.0)))
        .id();
    let chaser_colour = materials.add(Color::srgb(0.98, 0.62, 0.2));
    for i in 0..CHASERS {
        let angle = i as f32 / CHASERS as f32 * std::f32::consts::TAU;
        let start = Vec3::new(
            -13.0 + (i % 3) as f32 * 1.5,
            5.0 - (i / 3) as f32 * 1.5,
            0.0,
        );
        commands.spawn((
            Agent,
            InFlock(chasers),
            Target::Entity(bait),
            Transform::from_translation(start).with_rotation(Quat::from_rotation_z(angle)),
            Velocity(Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 2.0),
            Mesh2d(body.clone()),
            MeshMaterial2d(chaser_colour.clone()),
        ));
    }

    // Two creatures that meet head on along the bottom lane, over and over.
    let shuttle_colour = materials.add(Color::srgb(0.35, 0.65, 1.0));
    let ends = [
        Vec3::new(-LANE_END_X, LANE_Y, 0.0),
        Vec3::new(LANE_END_X, LANE_Y, 0.0),
    ];
    for (start, heading_to) in [(0, 1), (1, 0)] {
        let towards = (ends[heading_to] - ends[start]).normalize();
        commands.spawn((
            Agent,
            InFlock(shuttles),
            Shuttle { ends, heading_to },
            Target::Point(ends[heading_to]),
            Transform::from_translation(ends[start])
                .with_rotation(Quat::from_rotation_arc(Vec3::X, towards)),
            Velocity(towards * 3.0),
            Mesh2d(body.clone()),
            MeshMaterial2d(shuttle_colour.clone()),
        ));
    }

    commands
        .spawn(panel((px(10), px(10))))
        .with_children(|panel| {
            panel.spawn(row()).with_children(|row| {
                row.spawn(button(Toggle::Cooldown, cooldown_label(COOLDOWN_SECONDS)));
                row.spawn(button(Toggle::TurnRate, turn_rate_label(TURN_RATES[0])));
            });
            panel.spawn((
                StatusText,
                Text::new(""),
                TextFont::from_font_size(14.0),
                TextColor(Color::srgb(0.85, 0.87, 0.9)),
            ));
        });
}

/// Walls, boxes and circles: each an [`Obstacle`] the creatures cast against, drawn by a child
/// mesh behind the creatures.
fn spawn_obstacles(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<ColorMaterial>,
) {
    let colour = materials.add(Color::srgb(0.45, 0.47, 0.52));
    // Boxes and walls: centre, half size, turn in degrees.
    let boxes = [
        (Vec2::new(-4.0, 1.5), Vec2::new(0.3, 4.5), 0.0),
        (Vec2::new(6.0, 4.5), Vec2::new(1.6, 1.0), 30.0),
        (Vec2::new(-10.0, -2.0), Vec2::new(2.5, 0.3), -20.0),
    ];
    for (centre, half, degrees) in boxes {
        commands
            .spawn((
                Obstacle::Box {
                    half_extents: half.extend(1.0),
                },
                Transform::from_translation(centre.extend(0.0))
                    .with_rotation(Quat::from_rotation_z(f32::to_radians(degrees))),
                Visibility::default(),
            ))
            .with_child((
                Mesh2d(meshes.add(Rectangle::from_size(half * 2.0))),
                MeshMaterial2d(colour.clone()),
                Transform::from_xyz(0.0, 0.0, -1.0),
            ));
    }
    for (centre, radius) in [(Vec2::new(4.5, -3.0), 1.4), (Vec2::new(11.0, 0.5), 0.9)] {
        commands
            .spawn((
                Obstacle::Sphere { radius },
                Transform::from_translation(centre.extend(0.0)),
                Visibility::default(),
            ))
            .with_child((
                Mesh2d(meshes.add(Circle::new(radius))),
                MeshMaterial2d(colour.clone()),
                Transform::from_xyz(0.0, 0.0, -1.0),
            ));
    }
    // A wall with rounded ends.
    let (half_length, radius) = (2.5, 0.35);
    commands
        .spawn((
            Obstacle::Capsule {
                half_length,
                radius,
            },
            Transform::from_xyz(0.5, -1.0, 0.0)
                .with_rotation(Quat::from_rotation_z(f32::to_radians(60.0))),
            Visibility::default(),
        ))
        .with_child((
            Mesh2d(meshes.add(Capsule2d::new(radius, half_length * 2.0))),
            MeshMaterial2d(colour),
            Transform::from_xyz(0.0, 0.0, -1.0),
        ));
}

/// Puts the bait under the mouse; while the mouse rests (or is away) for
/// [`MOUSE_REST_SECONDS`], the bait roams a figure of eight on its own.
fn move_bait(
    time: Res<Time>,
    mut cursor_moves: MessageReader<CursorMoved>,
    mut last_moved: Local<Option<f32>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut bait: Single<&mut Transform, With<Bait>>,
) {
    let now = time.elapsed_secs();
    if cursor_moves.read().count() > 0 {
        *last_moved = Some(now);
    }
    let (camera, camera_transform) = *camera;
    let under_mouse = window
        .cursor_position()
        .filter(|_| last_moved.is_some_and(|moved| now - moved < MOUSE_REST_SECONDS))
        .and_then(|cursor| camera.viewport_to_world_2d(camera_transform, cursor).ok());
    let place = under_mouse.unwrap_or_else(|| {
        let t = now * 0.25;
        Vec2::new(ops::sin(t) * 12.0, ops::sin(2.0 * t) * 6.0)
    });
    bait.translation = place.clamp(-HALF_FIELD, HALF_FIELD).extend(0.0);
}

/// Sends each shuttle back the other way once it is within a body length or two of its end.
fn shuttle(mut shuttles: Query<(&mut Shuttle, &mut Target, &Transform)>) {
    for (mut shuttle, mut target, transform) in &mut shuttles {
        if transform
            .translation
            .distance(shuttle.ends[shuttle.heading_to])
            < 1.5
        {
            shuttle.heading_to = 1 - shuttle.heading_to;
            *target = Target::Point(shuttle.ends[shuttle.heading_to]);
        }
    }
}

fn cooldown_label(seconds: f32) -> String {
    if seconds > 0.0 {
        format!("[C] cooldown {seconds} s")
    } else {
        "[C] cooldown off".into()
    }
}

fn turn_rate_label(rate: Option<f32>) -> String {
    match rate {
        Some(degrees) => format!("[R] rotation {degrees} deg/s"),
        None => "[R] rotation unlimited".into(),
    }
}

/// Replaces the text of the button `children` belong to.
pub fn set_label(children: &Children, texts: &mut Query<&mut Text>, label: impl Into<String>) {
    if let Some(child) = children.iter().find(|&child| texts.contains(child))
        && let Ok(mut text) = texts.get_mut(child)
    {
        text.0 = label.into();
    }
}

/// Applies the buttons and keys to the creatures' tuning.
fn toggle(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: PressedButtons<Toggle>,
    labels: Query<(&Toggle, &Children)>,
    mut texts: Query<&mut Text>,
    mut config: ResMut<FlockingConfig>,
    mut flocks: Query<&mut SteeringLimits, With<Flock>>,
    mut turn_rate: Local<usize>,
) {
    let mut toggled: Vec<Toggle> = buttons.iter().copied().collect();
    if keys.just_pressed(KeyCode::KeyC) {
        toggled.push(Toggle::Cooldown);
    }
    if keys.just_pressed(KeyCode::KeyR) {
        toggled.push(Toggle::TurnRate);
    }
    for toggle in toggled {
        let label = match toggle {
            Toggle::Cooldown => {
                let hold = &mut config.avoidance.hold_seconds;
                *hold = if *hold > 0.0 { 0.0 } else { COOLDOWN_SECONDS };
                cooldown_label(*hold)
            }
            Toggle::TurnRate => {
                *turn_rate = (*turn_rate + 1) % TURN_RATES.len();
                for mut limits in &mut flocks {
                    limits.max_turn_rate = TURN_RATES[*turn_rate];
                }
                turn_rate_label(TURN_RATES[*turn_rate])
            }
        };
        for (_, children) in labels.iter().filter(|(kind, _)| **kind == toggle) {
            set_label(children, &mut texts, label.clone());
        }
    }
}

fn toggle_gizmos(keys: Res<ButtonInput<KeyCode>>, mut overlay: ResMut<FlockGizmos>) {
    if keys.just_pressed(KeyCode::KeyG) {
        overlay.velocity = !overlay.velocity;
    }
}

fn show_status(metrics: Res<FlockMetrics>, mut text: Single<&mut Text, With<StatusText>>) {
    text.0 = format!(
        "Orange creatures chase the ring: move the mouse to lead it. The blue pair meet head on.\n\
         creatures {}   steering round an obstacle {}   step {:.2} ms   [G] velocities",
        metrics.agents,
        metrics.avoiding,
        metrics.step_time.as_secs_f64() * 1000.0,
    );
}

fn draw_bait(mut gizmos: Gizmos, bait: Single<&Transform, With<Bait>>) {
    gizmos.circle_2d(bait.translation.truncate(), 0.5, Color::srgb(0.5, 1.0, 0.5));
}
