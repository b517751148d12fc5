//! Two crowds crossing a plaza: orange walkers head east through a door in a wall, blue ones
//! head north across their path, and each walker starts over from its side once across. Switch
//! how they keep apart and watch the live count of overlapping bodies:
//!
//! - `1` no avoidance: separation alone, so bodies pass through each other where crowds cross;
//! - `2` sidestep: each predicts its soonest collision and steps aside (Reynolds' unaligned
//!   collision avoidance), a heuristic;
//! - `3` reciprocal: velocity obstacles (ORCA, van den Berg et al. 2011) make each velocity
//!   collision-free for the horizon where there is room, and walkers whose velocity would still
//!   end the tick inside another's choose again, bounded by the gap, so bodies hardly overlap;
//! - `4` solid: as reciprocal, and no two bodies ever end a tick inside each other, at the
//!   price of jams;
//! - `5` pedestrians: `FlockTuning::pedestrian()` (walking speeds in metres a second, a time gap
//!   to the body ahead, so that the crowd slows as it packs, as Weidmann 1993 measured) with
//!   this plaza's bodies, each walker at its own free speed (`SpeedFactor::walking`), the
//!   faster overtaking where there is room. Its crowds cross more slowly than reciprocal's,
//!   queueing at the door (see the README).
//!
//! Bodies that overlap are ringed in red. `AgentStuck` events (walkers that made no progress
//! for three seconds) are counted too, and so are the flow through the door (over the last ten
//! seconds) and the density in the 3 m by 6 m before it.
//!
//! Run with `cargo run --features examples --example crowd_plaza`; pass a mode's number to
//! start in it (`-- 4` starts solid; reciprocal is the default).

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy::ui::Selected;
use bevy::ui_widgets::Button;
use bevy_flock::prelude::*;

#[path = "../support/button.rs"]
mod button;
#[path = "../support/capture.rs"]
mod capture;
#[path = "../support/choice.rs"]
mod choice;
mod counters;
#[path = "../support/random.rs"]
mod random;

use button::{PressedButtons, button, panel, row};
use choice::picked;
use counters::{StatusText, Tally, count_overlaps, count_stuck, ring_overlaps, show_status};

/// Half the size of the plaza, in world units (a walker's body is 0.7 across).
const HALF_PLAZA: Vec2 = Vec2::new(24.0, 13.5);
/// The wall with the door runs north to south at this x.
const WALL_X: f32 = 10.0;
/// Half the width of the door, centred on y = 0.
const HALF_DOOR: f32 = 2.0;
/// Half the thickness of the wall.
const HALF_WALL: f32 = 0.4;
/// The x past which an eastward walker is through the door.
const THROUGH_DOOR: f32 = WALL_X + HALF_WALL + 0.5;
/// Diameter of a walker's body.
const BODY: f32 = 0.7;
/// Walkers in each crowd: five ranks of twenty, a metre apart.
const RANKS: usize = 5;
const FILES: usize = 20;
/// Where orange walkers start (corners of the area) and east of which they are across.
const WEST_AREA: [Vec2; 2] = [Vec2::new(-23.5, -9.5), Vec2::new(-14.5, 9.5)];
const EAST_EXIT: f32 = 21.5;
/// Where blue walkers start and north of which they are across.
const SOUTH_AREA: [Vec2; 2] = [Vec2::new(-12.0, -13.0), Vec2::new(7.0, -6.0)];
const NORTH_EXIT: f32 = 11.5;
/// Tries at a free place to start over, per walker and tick.
const PLACE_TRIES: usize = 8;
/// The area before the door whose density the status shows: its corners.
const BEFORE_DOOR: [Vec2; 2] = [
    Vec2::new(WALL_X - HALF_WALL - 3.0, -3.0),
    Vec2::new(WALL_X - HALF_WALL, 3.0),
];
/// The flow through the door is counted over this many seconds.
const FLOW_WINDOW: f32 = 10.0;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: crowd_plaza".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default().planar(),
            button::ButtonStylePlugin,
            capture::CapturePlugin,
        ))
        .insert_resource(ClearColor(Color::srgb(0.09, 0.1, 0.12)))
        .init_resource::<Tally>()
        .insert_resource(Dice(Box::new(random::unit_generator(7))))
        .add_systems(Startup, setup)
        .add_systems(Update, (switch_mode, show_status, ring_overlaps))
        .add_systems(FixedUpdate, walk_on.in_set(FlockingSystems::First))
        .add_systems(FixedUpdate, count_overlaps.in_set(FlockingSystems::Last))
        .add_observer(count_stuck)
        .run();
}

/// How walkers keep apart; every crowd uses the same.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    NoAvoidance,
    Sidestep,
    Reciprocal,
    Solid,
    Pedestrians,
}

impl Mode {
    const ALL: [Mode; 5] = [
        Mode::NoAvoidance,
        Mode::Sidestep,
        Mode::Reciprocal,
        Mode::Solid,
        Mode::Pedestrians,
    ];

    fn label(self) -> &'static str {
        match self {
            Mode::NoAvoidance => "[1] no avoidance",
            Mode::Sidestep => "[2] sidestep",
            Mode::Reciprocal => "[3] reciprocal (ORCA)",
            Mode::Solid => "[4] solid",
            Mode::Pedestrians => "[5] pedestrians",
        }
    }

    /// How a crowd walks in this mode.
    fn tuning(self) -> FlockTuning {
        let boundary = Boundary::walls((-HALF_PLAZA).extend(-1.0), HALF_PLAZA.extend(1.0), 0.5);
        if self == Mode::Pedestrians {
            let recipe = FlockTuning::pedestrian();
            return FlockTuning {
                perception: Perception {
                    collision_distance: BODY,
                    ..recipe.perception
                },
                boundary,
                ..recipe
            };
        }
        FlockTuning {
            weights: FlockWeights {
                separation: 1.0,
                alignment: 0.0,
                cohesion: 0.0,
                target: 1.0,
                collision_avoidance: if self == Mode::Sidestep { 1.0 } else { 0.0 },
                ..default()
            },
            limits: SteeringLimits {
                max_speed: 3.0,
                max_force: 12.0,
                arrival_radius: 0.0,
                ..default()
            },
            perception: Perception {
                neighbour_radius: 3.0,
                separation_radius: 0.8,
                collision_distance: BODY,
                collision_horizon: 2.0,
                velocity_obstacles: match self {
                    Mode::NoAvoidance | Mode::Sidestep | Mode::Pedestrians => {
                        VelocityObstacles::Off
                    }
                    Mode::Reciprocal => VelocityObstacles::Reciprocal,
                    Mode::Solid => VelocityObstacles::Solid,
                },
                ..default()
            },
            boundary,
        }
    }
}

/// Which way a walker crosses the plaza.
#[derive(Component, Clone, Copy, PartialEq, Eq)]
enum Crossing {
    /// West to east, through the door.
    Eastward,
    /// South to north, across the eastward crowd.
    Northward,
}

/// Numbers uniform in `0..1` for where walkers start, seeded so that every run starts alike.
#[derive(Resource)]
struct Dice(Box<dyn FnMut() -> f32 + Send + Sync>);

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut tally: ResMut<Tally>,
) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::FixedVertical {
                viewport_height: 2.0 * HALF_PLAZA.y + 5.0,
            },
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, 2.0, 0.0),
    ));
    commands.spawn((
        Mesh2d(meshes.add(Rectangle::from_size(HALF_PLAZA * 2.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.16, 0.18, 0.2))),
        Transform::from_xyz(0.0, 0.0, -2.0),
    ));

    // The wall, in two pieces either side of the door.
    let wall_colour = materials.add(Color::srgb(0.45, 0.47, 0.52));
    let half_piece = 0.5 * (HALF_PLAZA.y - HALF_DOOR);
    for side in [-1.0, 1.0] {
        let half = Vec2::new(HALF_WALL, half_piece);
        commands
            .spawn((
                Obstacle::Box {
                    half_extents: half.extend(1.0),
                },
                Transform::from_xyz(WALL_X, side * (HALF_DOOR + half_piece), 0.0),
                Visibility::default(),
            ))
            .with_child((
                Mesh2d(meshes.add(Rectangle::from_size(half * 2.0))),
                MeshMaterial2d(wall_colour.clone()),
                Transform::from_xyz(0.0, 0.0, -1.0),
            ));
    }

    let mode = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse::<usize>().ok())
        .and_then(|number| Mode::ALL.get(number.wrapping_sub(1)).copied())
        .unwrap_or(Mode::Reciprocal);
    tally.mode = Some(mode);
    let tuning = mode.tuning();

    let body = meshes.add(Circle::new(0.5 * BODY));
    for (crossing, colour, name) in [
        (Crossing::Eastward, Color::srgb(0.98, 0.62, 0.2), "Eastward"),
        (
            Crossing::Northward,
            Color::srgb(0.35, 0.65, 1.0),
            "Northward",
        ),
    ] {
        let flock = commands.spawn((Flock, Name::new(name), tuning)).id();
        let material = materials.add(colour);
        let [low, high] = crossing.area();
        for k in 0..RANKS * FILES {
            let (rank, file) = ((k / FILES) as f32, (k % FILES) as f32);
            let start = match crossing {
                Crossing::Eastward => Vec3::new(high.x - rank, low.y + file, 0.0),
                Crossing::Northward => Vec3::new(low.x + file, high.y - rank, 0.0),
            };
            let walker = commands
                .spawn((
                    Agent,
                    InFlock(flock),
                    crossing,
                    Target::Point(goal(crossing, start)),
                    Transform::from_translation(start),
                    Mesh2d(body.clone()),
                    MeshMaterial2d(material.clone()),
                ))
                .id();
            if mode == Mode::Pedestrians {
                commands
                    .entity(walker)
                    .insert(SpeedFactor::walking(walker.to_bits()));
            }
        }
    }

    commands
        .spawn(panel((px(10), px(10))))
        .with_children(|panel| {
            panel.spawn(row()).with_children(|row| {
                for option in Mode::ALL {
                    let mut entity = row.spawn(button(option, option.label()));
                    if option == mode {
                        entity.insert(Selected);
                    }
                }
            });
            panel.spawn((
                StatusText,
                Text::new(""),
                TextFont::from_font_size(14.0),
                TextColor(Color::srgb(0.85, 0.87, 0.9)),
            ));
        });
}

impl Crossing {
    /// The corners of the area its walkers start in.
    fn area(self) -> [Vec2; 2] {
        match self {
            Crossing::Eastward => WEST_AREA,
            Crossing::Northward => SOUTH_AREA,
        }
    }
}

/// Where a walker starting at `at` heads first: eastward ones to the door (at their height,
/// kept half a metre off its sides), northward ones straight north. Goals are fixed for a
/// leg, so that a walker held up makes no progress toward them and `AgentStuck` tells.
fn goal(crossing: Crossing, at: Vec3) -> Vec3 {
    match crossing {
        Crossing::Eastward => {
            let edge = HALF_DOOR - 0.5;
            Vec3::new(WALL_X + 1.0, at.y.clamp(-edge, edge), 0.0)
        }
        Crossing::Northward => Vec3::new(at.x, NORTH_EXIT + 1.0, 0.0),
    }
}

/// Sends eastward walkers through the door on to the east side, and those across back to a
/// free place in their starting area (one clear of every body, as of the last tick, by a
/// margin for this one's steps) with a new goal; a walker that finds none this tick waits at
/// the far side.
fn walk_on(
    mut walkers: Query<(&Crossing, &mut Transform, &mut Velocity, &mut Target)>,
    sim: Res<FlockSimulation>,
    time: Res<Time>,
    mut tally: ResMut<Tally>,
    mut dice: ResMut<Dice>,
) {
    let now = time.elapsed_secs();
    while tally
        .through_door
        .front()
        .is_some_and(|&t| t < now - FLOW_WINDOW)
    {
        tally.through_door.pop_front();
    }
    let mut placed: Vec<Vec3> = Vec::new();
    let clear = BODY + 0.2;
    for (&crossing, mut transform, mut velocity, mut target) in &mut walkers {
        let at = transform.translation;
        let across = match crossing {
            Crossing::Eastward => at.x > EAST_EXIT,
            Crossing::Northward => at.y > NORTH_EXIT,
        };
        if across {
            let [low, high] = crossing.area();
            let free = (0..PLACE_TRIES)
                .map(|_| {
                    let (a, b) = ((dice.0)(), (dice.0)());
                    (low + (high - low) * Vec2::new(a, b)).extend(0.0)
                })
                .find(|&place| {
                    sim.agents_within(place, clear, |_| true).is_empty()
                        && placed.iter().all(|other| other.distance(place) > clear)
                });
            if let Some(place) = free {
                tally.crossed += 1;
                placed.push(place);
                transform.translation = place;
                velocity.0 = Vec3::ZERO;
                *target = Target::Point(goal(crossing, place));
            }
        } else if crossing == Crossing::Eastward
            && at.x > THROUGH_DOOR
            && matches!(*target, Target::Point(door) if door.x < EAST_EXIT)
        {
            *target = Target::Point(Vec3::new(EAST_EXIT + 1.0, at.y.clamp(-8.0, 8.0), 0.0));
            tally.through_door.push_back(now);
        }
    }
}

/// Applies the mode buttons and keys to both crowds, and starts the counters afresh.
#[allow(clippy::type_complexity)]
fn switch_mode(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: PressedButtons<Mode>,
    options: Query<(Entity, &Mode), With<Button>>,
    flocks: Query<Entity, With<Flock>>,
    walkers: Query<Entity, With<Crossing>>,
    mut tally: ResMut<Tally>,
) {
    let Some(mode) = picked(&buttons, &keys, &Mode::ALL) else {
        return;
    };
    if tally.mode == Some(mode) {
        return;
    }
    for flock in &flocks {
        commands.entity(flock).insert(mode.tuning());
    }
    for walker in &walkers {
        if mode == Mode::Pedestrians {
            commands
                .entity(walker)
                .insert(SpeedFactor::walking(walker.to_bits()));
        } else {
            commands.entity(walker).remove::<SpeedFactor>();
        }
    }
    for (entity, option) in &options {
        if *option == mode {
            commands.entity(entity).insert(Selected);
        } else {
            commands.entity(entity).remove::<Selected>();
        }
    }
    *tally = Tally {
        mode: Some(mode),
        ..default()
    };
}
