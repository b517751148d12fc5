//! A flocking lab: 1,500 Reynolds (1987) boids on a 900 x 560 field, tuned live to see how the
//! three rules shape a flock. Pick a preset (birds, fish, insects, loners), move the sliders, and
//! watch the order parameter (polarisation: 1 when every boid heads the same way, about 0.03
//! for 1,500 random headings). Press or drag on the field to put food there (boids seek it) or
//! a predator (boids within 160 px flee), by the mode switch; the edge wraps round or walls
//! push boids back inside 50 px of it. Boids are coloured by heading, so order shows as one
//! colour.
//!
//! Run with `cargo run --features examples --example flocking_lab`, or with a boid count:
//! `cargo run --release --features examples --example flocking_lab -- 5000`.

use bevy::prelude::*;
use bevy::ui::Selected;
use bevy::ui_widgets::{SliderValue, ValueChange};
use bevy::window::PrimaryWindow;
use bevy_flock::prelude::*;

#[path = "support/button.rs"]
mod button;
#[path = "support/capture.rs"]
mod capture;
#[path = "support/random.rs"]
mod random;
#[path = "support/slider.rs"]
mod slider;

use button::{PressedButtons, button, panel, row};
use slider::slider;

const DEFAULT_BOIDS: usize = 1_500;
/// Half the lab's 900 x 560 field.
const HALF_FIELD: Vec2 = Vec2::new(450.0, 280.0);
/// Boids within this distance of the predator flee it.
const PREDATOR_RADIUS: f32 = 160.0;
/// Width of the band inside the walls where they push boids back.
const WALL_MARGIN: f32 = 50.0;
/// Hues the boids are coloured with, by heading.
const HEADING_COLOURS: usize = 24;
/// Where the field's centre sits on screen, leaving room on the left for the controls.
const FIELD_OFFSET: Vec2 = Vec2::new(140.0, 0.0);

fn main() {
    let boids = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(DEFAULT_BOIDS);
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: flocking lab".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default().planar(),
            button::ButtonStylePlugin,
            slider::SliderStylePlugin,
            capture::CapturePlugin,
        ))
        .insert_resource(Boids(boids))
        // The lab steps its boids 60 times a second (Bevy's fixed timestep is 64 by default).
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(ClearColor(Color::srgb(0.05, 0.06, 0.08)))
        .init_resource::<PointerMode>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                press_buttons,
                sync_sliders,
                use_pointer,
                colour_by_heading,
                show_order,
                draw_pointer,
            ),
        )
        .add_observer(move_slider)
        .run();
}

/// How many boids to spawn.
#[derive(Resource)]
struct Boids(usize);

/// What pressing on the field puts there.
#[derive(Resource, Default, Clone, Copy, PartialEq)]
enum PointerMode {
    /// Something the boids seek.
    #[default]
    Food,
    /// Something the boids flee.
    Predator,
}

/// The lab's flock types: where a session starts from.
#[derive(Clone, Copy, PartialEq)]
enum Preset {
    /// A loose, fast flock that orders fully: the lab's defaults.
    Birds,
    /// Slower, tighter schools that see 300 degrees round and align strongly.
    Fish,
    /// A swarm that clumps but hardly aligns, jittering with noise.
    Insects,
    /// Each for itself: boids only keep apart.
    Loners,
}

impl Preset {
    const ALL: [Preset; 4] = [Preset::Birds, Preset::Fish, Preset::Insects, Preset::Loners];

    fn name(self) -> &'static str {
        match self {
            Preset::Birds => "birds",
            Preset::Fish => "fish",
            Preset::Insects => "insects",
            Preset::Loners => "loners",
        }
    }

    /// The preset's rules, limits and perception, in the lab's pixels and seconds.
    fn tuning(self) -> FlockTuning {
        let birds = FlockTuning::flocking_lab();
        let limits = |max_speed: f32| SteeringLimits {
            max_speed,
            min_speed: max_speed / 3.0,
            max_force: 2.0 * max_speed,
            ..birds.limits
        };
        match self {
            Preset::Birds => birds,
            Preset::Fish => FlockTuning {
                weights: FlockWeights {
                    alignment: 1.6,
                    cohesion: 1.2,
                    ..birds.weights
                },
                limits: limits(140.0),
                perception: Perception {
                    neighbour_radius: 40.0,
                    separation_radius: 14.0,
                    field_of_view: 300.0,
                    ..birds.perception
                },
                ..birds
            },
            Preset::Insects => FlockTuning {
                weights: FlockWeights {
                    separation: 1.0,
                    alignment: 0.1,
                    cohesion: 1.6,
                    noise: 0.3,
                    ..birds.weights
                },
                limits: limits(220.0),
                perception: Perception {
                    neighbour_radius: 70.0,
                    separation_radius: 10.0,
                    ..birds.perception
                },
                ..birds
            },
            Preset::Loners => FlockTuning {
                weights: FlockWeights {
                    alignment: 0.0,
                    cohesion: 0.0,
                    noise: 0.1,
                    ..birds.weights
                },
                ..birds
            },
        }
    }
}

/// The edge of the field.
#[derive(Clone, Copy, PartialEq)]
enum Edge {
    Wrap,
    Walls,
}

impl Edge {
    fn boundary(self) -> Boundary {
        let (min, max) = (-HALF_FIELD.extend(0.0), HALF_FIELD.extend(0.0));
        match self {
            Edge::Wrap => Boundary::Wrap { min, max },
            Edge::Walls => Boundary::walls(min, max, WALL_MARGIN),
        }
    }
}

/// What a button does.
#[derive(Component, Clone, Copy, PartialEq)]
enum Action {
    Preset(Preset),
    Pointer(PointerMode),
    Edge(Edge),
}

/// Which setting a slider edits.
#[derive(Component, Clone, Copy)]
enum Setting {
    Separation,
    Alignment,
    Cohesion,
    VisionRadius,
    SeparationRadius,
    FieldOfView,
}

impl Setting {
    /// The setting's value in a flock's tuning.
    fn read(self, weights: &FlockWeights, perception: &Perception) -> f32 {
        match self {
            Setting::Separation => weights.separation,
            Setting::Alignment => weights.alignment,
            Setting::Cohesion => weights.cohesion,
            Setting::VisionRadius => perception.neighbour_radius,
            Setting::SeparationRadius => perception.separation_radius,
            Setting::FieldOfView => perception.field_of_view,
        }
    }

    /// Sets it, keeping the separation radius within the vision radius.
    fn write(self, value: f32, weights: &mut FlockWeights, perception: &mut Perception) {
        match self {
            Setting::Separation => weights.separation = value,
            Setting::Alignment => weights.alignment = value,
            Setting::Cohesion => weights.cohesion = value,
            Setting::VisionRadius => {
                perception.neighbour_radius = value;
                perception.separation_radius = perception.separation_radius.min(value);
            }
            Setting::SeparationRadius => {
                perception.separation_radius = value.min(perception.neighbour_radius);
            }
            Setting::FieldOfView => perception.field_of_view = value,
        }
    }
}

/// The food or predator under the pointer while it is pressed on the field.
#[derive(Component)]
struct Bait;

#[derive(Component)]
struct OrderText;

/// The boids' materials, one per heading hue.
#[derive(Resource)]
struct HeadingColours(Vec<Handle<ColorMaterial>>);

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    boids: Res<Boids>,
    default_flock: Res<DefaultFlock>,
) {
    commands.spawn((
        Camera2d,
        Transform::from_translation(-FIELD_OFFSET.extend(0.0)),
    ));
    commands.entity(**default_flock).insert(FlockTuning {
        boundary: Edge::Wrap.boundary(),
        ..Preset::Birds.tuning()
    });
    commands.spawn((
        Mesh2d(meshes.add(Rectangle::from_size(HALF_FIELD * 2.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.1, 0.12, 0.15))),
        Transform::from_xyz(0.0, 0.0, -1.0),
    ));

    let colours: Vec<_> = (0..HEADING_COLOURS)
        .map(|i| {
            let hue = i as f32 / HEADING_COLOURS as f32 * 360.0;
            materials.add(Color::hsl(hue, 0.75, 0.62))
        })
        .collect();
    // A boid is a small triangle pointing along its local +X, the way the plugin turns it.
    let body = meshes.add(Triangle2d::new(
        Vec2::new(6.0, 0.0),
        Vec2::new(-4.0, 3.5),
        Vec2::new(-4.0, -3.5),
    ));
    // The lab's start: boids scattered over the field, random headings at the lab's speed.
    let mut unit = random::unit_generator(0x2545_f491_4f6c_dd1d);
    for _ in 0..boids.0 {
        let position = (Vec2::new(unit(), unit()) * 2.0 - 1.0) * HALF_FIELD;
        let angle = unit() * std::f32::consts::TAU;
        let heading = Vec2::from_angle(angle);
        commands.spawn((
            Agent,
            Transform::from_translation(position.extend(0.0))
                .with_rotation(Quat::from_rotation_z(angle)),
            Velocity((heading * 120.0).extend(0.0)),
            Mesh2d(body.clone()),
            MeshMaterial2d(colours[0].clone()),
        ));
    }
    commands.insert_resource(HeadingColours(colours));

    commands
        .spawn(panel((px(10), px(10))))
        .with_children(|panel| {
            panel.spawn(caption("Flock type"));
            panel.spawn(row()).with_children(|row| {
                for preset in Preset::ALL {
                    let mut button = row.spawn(button(Action::Preset(preset), preset.name()));
                    if preset == Preset::Birds {
                        button.insert(Selected);
                    }
                }
            });
            panel.spawn(caption("Rules"));
            panel.spawn(slider(Setting::Separation, "separation", 0.0..=3.0, 2));
            panel.spawn(slider(Setting::Alignment, "alignment", 0.0..=3.0, 2));
            panel.spawn(slider(Setting::Cohesion, "cohesion", 0.0..=3.0, 2));
            panel.spawn(slider(
                Setting::VisionRadius,
                "vision radius",
                5.0..=200.0,
                0,
            ));
            panel.spawn(slider(
                Setting::SeparationRadius,
                "separation radius",
                0.0..=100.0,
                0,
            ));
            panel.spawn(slider(
                Setting::FieldOfView,
                "field of view",
                30.0..=360.0,
                0,
            ));
            panel.spawn(caption("Pressing on the field places"));
            panel.spawn(row()).with_children(|row| {
                row.spawn((button(Action::Pointer(PointerMode::Food), "food"), Selected));
                row.spawn(button(Action::Pointer(PointerMode::Predator), "a predator"));
            });
            panel.spawn(caption("Edge"));
            panel.spawn(row()).with_children(|row| {
                row.spawn((button(Action::Edge(Edge::Wrap), "wrap round"), Selected));
                row.spawn(button(Action::Edge(Edge::Walls), "walls"));
            });
        });
    commands.spawn((
        OrderText,
        Text::new(""),
        TextFont::from_font_size(16.0),
        TextColor(Color::srgb(0.9, 0.92, 0.95)),
        Node {
            position_type: PositionType::Absolute,
            right: px(12),
            bottom: px(8),
            ..default()
        },
    ));
}

fn caption(text: &str) -> impl Bundle {
    (
        Text::new(text),
        TextFont::from_font_size(14.0),
        TextColor(Color::srgb(0.7, 0.74, 0.8)),
        Node {
            margin: UiRect::top(px(6)),
            ..default()
        },
    )
}

/// Applies presets, the pointer mode and the edge, and marks the chosen button of each kind.
fn press_buttons(
    mut commands: Commands,
    buttons: PressedButtons<Action>,
    all_buttons: Query<(Entity, &Action)>,
    default_flock: Res<DefaultFlock>,
    mut mode: ResMut<PointerMode>,
) {
    let chosen: Vec<Action> = buttons.iter().copied().collect();
    for action in chosen {
        match action {
            Action::Preset(preset) => {
                let tuning = preset.tuning();
                commands.entity(**default_flock).insert((
                    tuning.weights,
                    tuning.limits,
                    tuning.perception,
                ));
            }
            Action::Pointer(pointer) => *mode = pointer,
            Action::Edge(edge) => {
                commands.entity(**default_flock).insert(edge.boundary());
            }
        }
        for (entity, other) in &all_buttons {
            let same_kind = std::mem::discriminant(other) == std::mem::discriminant(&action);
            if *other == action {
                commands.entity(entity).insert(Selected);
            } else if same_kind {
                commands.entity(entity).remove::<Selected>();
            }
        }
    }
}

/// A dragged slider changes the flock's tuning.
fn move_slider(
    change: On<ValueChange<f32>>,
    settings: Query<&Setting>,
    default_flock: Res<DefaultFlock>,
    mut flocks: Query<(&mut FlockWeights, &mut Perception)>,
) {
    let (Ok(setting), Ok((mut weights, mut perception))) =
        (settings.get(change.source), flocks.get_mut(**default_flock))
    else {
        return;
    };
    setting.write(change.value, &mut weights, &mut perception);
}

/// Shows the flock's tuning on the sliders (after a preset, or when one setting clamps
/// another).
fn sync_sliders(
    mut commands: Commands,
    default_flock: Res<DefaultFlock>,
    flocks: Query<(Ref<FlockWeights>, Ref<Perception>)>,
    sliders: Query<(Entity, &Setting, &SliderValue)>,
) {
    let Ok((weights, perception)) = flocks.get(**default_flock) else {
        return;
    };
    if !weights.is_changed() && !perception.is_changed() {
        return;
    }
    for (entity, setting, shown) in &sliders {
        let value = setting.read(&weights, &perception);
        if (value - shown.0).abs() > 1e-4 {
            commands.entity(entity).insert(SliderValue(value));
        }
    }
}

/// While the left button is held on the field, food or a predator follows the pointer.
fn use_pointer(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    mode: Res<PointerMode>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut bait: Query<(Entity, &mut Transform), With<Bait>>,
    mut boids: Query<&mut Target, With<Agent>>,
) {
    let (camera, camera_transform) = *camera;
    let on_field = window
        .cursor_position()
        .and_then(|cursor| camera.viewport_to_world_2d(camera_transform, cursor).ok())
        .filter(|place| place.abs().cmple(HALF_FIELD).all());
    match (bait.single_mut(), on_field) {
        (Ok((_, mut transform)), Some(place)) if mouse.pressed(MouseButton::Left) => {
            transform.translation = place.extend(0.0);
        }
        (Ok((entity, _)), _) => {
            // Released, or dragged off the field: the bait goes.
            commands.entity(entity).despawn();
            for mut target in &mut boids {
                *target = Target::None;
            }
        }
        (Err(_), Some(place)) if mouse.just_pressed(MouseButton::Left) => {
            let mut spawned =
                commands.spawn((Bait, Transform::from_translation(place.extend(0.0))));
            match *mode {
                PointerMode::Food => {
                    let food = spawned.id();
                    for mut target in &mut boids {
                        *target = Target::Entity(food);
                    }
                }
                PointerMode::Predator => {
                    spawned.insert(Predator {
                        radius: PREDATOR_RADIUS,
                    });
                }
            }
        }
        (Err(_), _) => {}
    }
}

/// Colours each boid by its heading.
fn colour_by_heading(
    colours: Res<HeadingColours>,
    mut boids: Query<(&Velocity, &mut MeshMaterial2d<ColorMaterial>), With<Agent>>,
) {
    let buckets = colours.0.len() as f32;
    for (velocity, mut material) in &mut boids {
        let turn = (ops::atan2(velocity.y, velocity.x) / std::f32::consts::TAU).rem_euclid(1.0);
        let colour = &colours.0[((turn * buckets) as usize).min(colours.0.len() - 1)];
        if material.0 != *colour {
            material.0 = colour.clone();
        }
    }
}

fn show_order(metrics: Res<FlockMetrics>, mut text: Single<&mut Text, With<OrderText>>) {
    text.0 = format!(
        "order (polarisation) {:.2}   boids {}   neighbours {:.1}   step {:.2} ms",
        metrics.polarisation,
        metrics.agents,
        metrics.mean_neighbours,
        metrics.step_time.as_secs_f64() * 1000.0,
    );
}

fn draw_pointer(mut gizmos: Gizmos, bait: Query<(&Transform, Has<Predator>), With<Bait>>) {
    for (transform, predator) in &bait {
        let place = transform.translation.truncate();
        if predator {
            gizmos.circle_2d(place, PREDATOR_RADIUS, Color::srgb(1.0, 0.3, 0.25));
            gizmos.circle_2d(place, 6.0, Color::srgb(1.0, 0.3, 0.25));
        } else {
            gizmos.circle_2d(place, 6.0, Color::srgb(0.4, 1.0, 0.45));
        }
    }
}
