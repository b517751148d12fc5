//! Zombies in a small town, in 3D: 3,000 zombies stream through its streets, alleys, square and
//! over its bridges toward the player (the red figure), who follows the mouse across the
//! ground, and up the ramp from the square to a roof terrace, over the street between (a floor
//! of its own: zombies in the street pass under the ramp's deck, those on it walk over them).
//! The town's navigation mesh is built from its buildings and river at start-up: each
//! zombie's `Destination` is planned across it (shortest paths, Polyanya) by a planner that
//! answers a few paths a tick and shares a path among zombies that set out together, and the
//! mesh's edges keep every zombie's body on the ground. The zombies flock loosely; switch how
//! they keep apart with the buttons or keys:
//!
//! - `1` no avoidance: separation alone, so bodies pass through each other in a crush;
//! - `2` sidestep: each predicts its soonest collision and steps aside (Reynolds' unaligned
//!   collision avoidance);
//! - `3` reciprocal: velocity obstacles (ORCA, van den Berg et al. 2011), so bodies hardly
//!   overlap;
//! - `4` solid: as reciprocal, and no two bodies ever end a tick inside each other.
//!
//! The panel shows the planner's queue and how many zombies stand off the ground (none should).
//! Until the mouse moves over the town, the player walks a round of the town on its own.
//!
//! Run with `cargo run --features examples --example zombie_town`.

use std::collections::HashMap;
use std::f32::consts::FRAC_PI_2;

use bevy::prelude::*;
use bevy::ui::Selected;
use bevy::ui_widgets::Button;
use bevy_flock::NavMeshPlanner;
use bevy_flock::prelude::*;

#[path = "../support/button.rs"]
mod button;
#[path = "../support/capture.rs"]
mod capture;
#[path = "../support/choice.rs"]
mod choice;
mod ground_plan;
mod mode;
#[path = "../support/random.rs"]
mod random;
mod town;

use button::{PressedButtons, button, panel, row};
use choice::picked;
use ground_plan::HALF_TOWN;
use mode::Mode;

/// How many zombies, and their body's diameter.
const ZOMBIES: usize = 3_000;
const BODY: f32 = 2.0 * ground_plan::CLEARANCE;
/// The player's walking speed, in metres a second: faster than a zombie.
const PLAYER_SPEED: f32 = 4.0;
/// The zombies are sent after the player again once it is this far from where they were sent:
/// each sending asks the planner for up to 3,000 paths, which zombies that set out near each
/// other share.
const RESEND_AFTER: f32 = 10.0;
/// Paths the planner searches for a tick: about 0.1 ms each across this town.
const PATHS_PER_TICK: u32 = 64;
/// Seconds after the mouse last moved over the town that the player keeps to it.
const MOUSE_REST_SECONDS: f32 = 5.0;
/// The player's round of the town while the mouse rests: the square, the street south of it,
/// round the roof terrace (up the ramp), the bridge, the east bank's streets, the footbridge
/// and back.
const ROUND: [Vec2; 10] = [
    Vec2::new(-39.0, 0.5),
    Vec2::new(-20.0, -9.0),
    Vec2::new(-48.5, 20.0),
    Vec2::new(-52.5, 23.5),
    Vec2::new(-44.5, 23.5),
    Vec2::new(24.0, 0.0),
    Vec2::new(50.0, 10.0),
    Vec2::new(50.0, 29.0),
    Vec2::new(24.0, 29.0),
    Vec2::new(-20.0, 10.0),
];
/// Zombies rise anywhere on the ground at least this far from where the player starts, at
/// least [`ZOMBIE_SPACING`] apart.
const RISE_BEYOND: f32 = 30.0;
const ZOMBIE_SPACING: f32 = 1.0;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: zombie_town".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default().planar(),
            SquadsPlugin,
            NavMeshPlugin,
            button::ButtonStylePlugin,
            capture::CapturePlugin,
        ))
        .insert_resource(ClearColor(Color::srgb(0.05, 0.06, 0.08)))
        .init_resource::<Chase>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (steer_player, switch_mode, show_status, colour_buttons),
        )
        .add_systems(FixedUpdate, send_zombies.in_set(FlockingSystems::First))
        .run();
}

/// The player.
#[derive(Component)]
struct Player;

/// A zombie.
#[derive(Component)]
struct Zombie;

/// The chase: the mode, where the zombies were last sent, where the player is walking to and
/// its path there, the stop of its round it walks to, and when the mouse last moved.
#[derive(Resource)]
struct Chase {
    mode: Mode,
    sent_to: Option<Vec3>,
    goal: Vec3,
    path: Vec<Vec3>,
    round_stop: usize,
    mouse_moved: Option<f32>,
}

impl Default for Chase {
    fn default() -> Self {
        Self {
            mode: Mode::Reciprocal,
            sent_to: None,
            goal: ROUND[0].extend(0.0),
            path: Vec::new(),
            round_stop: 0,
            mouse_moved: None,
        }
    }
}

/// The status line.
#[derive(Component)]
struct StatusText;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut chase: ResMut<Chase>,
    mut planner: ResMut<NavMeshPlanner>,
) {
    planner.paths_per_tick = PATHS_PER_TICK;
    let buildings = ground_plan::buildings();
    let navmesh = ground_plan::navmesh(&buildings);
    chase.mode = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse::<usize>().ok())
        .and_then(|number| Mode::ALL.get(number.wrapping_sub(1)).copied())
        .unwrap_or(Mode::Reciprocal);

    // The view from the south, above the town, with z up.
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, -62.0, 128.0).looking_at(Vec3::new(0.0, 4.0, 0.0), Vec3::Z),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 7_000.0,
            ..default()
        },
        Transform::from_xyz(-30.0, -50.0, 80.0).looking_at(Vec3::ZERO, Vec3::Z),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 500.0,
        ..default()
    });

    town::spawn(&mut commands, &mut meshes, &mut materials, &buildings);

    let player = (
        Mesh3d(meshes.add(Capsule3d::new(0.6, 1.4))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.95, 0.15, 0.1),
            emissive: LinearRgba::rgb(2.0, 0.2, 0.1),
            ..default()
        })),
        Transform::from_xyz(0.0, 0.0, 1.3).with_rotation(Quat::from_rotation_x(FRAC_PI_2)),
    );
    let ring = (
        Mesh3d(meshes.add(Annulus::new(2.2, 2.6))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(1.0, 0.85, 0.2),
            emissive: LinearRgba::rgb(2.0, 1.6, 0.3),
            unlit: true,
            ..default()
        })),
        Transform::from_xyz(0.0, 0.0, 0.05),
    );
    commands
        .spawn((
            Player,
            Transform::from_translation(ROUND[0].extend(0.0)),
            Visibility::default(),
        ))
        .with_children(|player_parts| {
            player_parts.spawn(player);
            player_parts.spawn(ring);
        });

    spawn_zombies(
        &mut commands,
        &mut meshes,
        &mut materials,
        &navmesh,
        chase.mode,
    );
    commands.insert_resource(navmesh);

    commands
        .spawn(panel((px(10), px(10))))
        .with_children(|panel| {
            panel.spawn(row()).with_children(|row| {
                for option in Mode::ALL {
                    let mut entity = row.spawn(button(option, option.label()));
                    if option == chase.mode {
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

/// The zombies, at random places on the ground clear of walls and of each other, away from
/// the player, in one flock tuned for `mode`.
fn spawn_zombies(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    navmesh: &NavMesh,
    mode: Mode,
) {
    let flock = commands
        .spawn((Flock, Name::new("Zombies"), mode.tuning()))
        .id();
    let body = meshes.add(Capsule3d::new(0.5 * BODY, 1.1));
    let skins = [
        materials.add(Color::srgb(0.35, 0.6, 0.3)),
        materials.add(Color::srgb(0.45, 0.55, 0.35)),
        materials.add(Color::srgb(0.3, 0.5, 0.4)),
    ];
    let mut draw = random::unit_generator(11);
    // On the street's floor, not the terrace's.
    let clear_of_walls = |p: Vec2| {
        [Vec2::ZERO, Vec2::X, Vec2::NEG_X, Vec2::Y, Vec2::NEG_Y]
            .iter()
            .all(|&d| navmesh.floor_at((p + d * BODY).extend(0.0)) == Some(0))
    };
    // Who stands in each cell of a grid as wide as the spacing, to find near ones quickly.
    let cell = |p: Vec2| (p / ZOMBIE_SPACING).floor().as_ivec2();
    let mut taken: HashMap<IVec2, Vec<Vec2>> = default();
    let near_another = |p: Vec2, taken: &HashMap<IVec2, Vec<Vec2>>| {
        let c = cell(p);
        (-1..=1).any(|dy| {
            (-1..=1).any(|dx| {
                taken
                    .get(&(c + IVec2::new(dx, dy)))
                    .is_some_and(|ps| ps.iter().any(|q| q.distance(p) < ZOMBIE_SPACING))
            })
        })
    };
    let mut risen = 0;
    while risen < ZOMBIES {
        let at = (Vec2::new(draw(), draw()) * 2.0 - 1.0) * HALF_TOWN;
        if at.distance(ROUND[0]) < RISE_BEYOND || !clear_of_walls(at) || near_another(at, &taken) {
            continue;
        }
        taken.entry(cell(at)).or_default().push(at);
        risen += 1;
        commands
            .spawn((
                Zombie,
                Agent,
                InFlock(flock),
                Transform::from_translation(at.extend(0.0)),
                Visibility::default(),
            ))
            .with_child((
                Mesh3d(body.clone()),
                MeshMaterial3d(skins[risen % skins.len()].clone()),
                Transform::from_xyz(0.0, 0.0, 0.85).with_rotation(Quat::from_rotation_x(FRAC_PI_2)),
            ));
    }
}

/// Walks the player toward the ground under the mouse (the terrace's, where the mouse is over
/// it; while it moves over the town) or along its round, by the mesh's path, at
/// [`PLAYER_SPEED`].
fn steer_player(
    time: Res<Time>,
    mut cursor_moves: MessageReader<CursorMoved>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    navmesh: Res<NavMesh>,
    mut chase: ResMut<Chase>,
    mut player: Single<&mut Transform, With<Player>>,
) {
    let now = time.elapsed_secs();
    let (camera, camera_transform) = *camera;
    let ray = window
        .cursor_position()
        .and_then(|cursor| camera.viewport_to_world(camera_transform, cursor).ok());
    // Where the ray meets the terrace's level on the terrace, else the ground's level.
    let on_ground = [ground_plan::TERRACE_HEIGHT, 0.0]
        .into_iter()
        .find_map(|level| {
            let ray = ray?;
            let distance = ray.intersect_plane(Vec3::Z * level, InfinitePlane3d::new(Vec3::Z))?;
            let point = ray.get_point(distance);
            (navmesh.is_walkable_at(point) && navmesh.height_at(point) == level).then_some(point)
        });
    if cursor_moves.read().count() > 0 && on_ground.is_some() {
        chase.mouse_moved = Some(now);
    }
    let at = player.translation;
    let goal = match on_ground {
        Some(point)
            if chase
                .mouse_moved
                .is_some_and(|t| now - t < MOUSE_REST_SECONDS) =>
        {
            point
        }
        _ => {
            if at.truncate().distance(ROUND[chase.round_stop]) < 1.0 {
                chase.round_stop = (chase.round_stop + 1) % ROUND.len();
            }
            // On the only floor there: the roof's, or the ground's.
            ROUND[chase.round_stop].extend(0.0)
        }
    };
    if goal.distance(chase.goal) > 0.5 || chase.path.is_empty() {
        chase.goal = goal;
        chase.path = navmesh.find_path(at, goal).unwrap_or_default();
    }
    // Across the plane, then onto the ground's surface (up and over a bridge's arch).
    let mut step = PLAYER_SPEED * time.delta_secs();
    let mut on_plane = at.truncate();
    while let Some(&next) = chase.path.first() {
        let to_next = next.truncate() - on_plane;
        if to_next.length() > step {
            on_plane += to_next.normalize() * step;
            break;
        }
        step -= to_next.length();
        on_plane = next.truncate();
        chase.path.remove(0);
    }
    // On the floor nearest the height it was at: up the ramp, or under it.
    player.translation = on_plane.extend(navmesh.height_at(on_plane.extend(at.z)));
}

/// Sends every zombie after the player once it has moved [`RESEND_AFTER`] from where they were
/// last sent.
fn send_zombies(
    mut commands: Commands,
    mut chase: ResMut<Chase>,
    player: Single<&Transform, With<Player>>,
    zombies: Query<Entity, With<Zombie>>,
) {
    let at = player.translation;
    if chase
        .sent_to
        .is_some_and(|sent| sent.distance(at) < RESEND_AFTER)
    {
        return;
    }
    chase.sent_to = Some(at);
    for zombie in &zombies {
        commands.entity(zombie).insert(Destination(at));
    }
}

/// Applies the mode buttons and keys to the horde.
fn switch_mode(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: PressedButtons<Mode>,
    flock: Single<Entity, With<Flock>>,
    mut chase: ResMut<Chase>,
) {
    let Some(mode) = picked(&buttons, &keys, &Mode::ALL) else {
        return;
    };
    if chase.mode != mode {
        chase.mode = mode;
        commands.entity(*flock).insert(mode.tuning());
    }
}

/// Marks the current mode's button.
fn colour_buttons(
    mut commands: Commands,
    chase: Res<Chase>,
    options: Query<(Entity, &Mode), With<Button>>,
) {
    if !chase.is_changed() {
        return;
    }
    for (entity, option) in &options {
        if *option == chase.mode {
            commands.entity(entity).insert(Selected);
        } else {
            commands.entity(entity).remove::<Selected>();
        }
    }
}

/// The planner's queue, the zombies off the ground of their floor (none should be: the first
/// time one is, it is logged as an error, which fails the examples' run in CI), those on the
/// terrace's floor, and the mode.
fn show_status(
    planner: Res<NavMeshPlanner>,
    navmesh: Res<NavMesh>,
    zombies: Query<(&Transform, Option<&OnFloor>), With<Zombie>>,
    chase: Res<Chase>,
    mut status: Single<&mut Text, With<StatusText>>,
    mut reported: Local<bool>,
) {
    let floor = |on: Option<&OnFloor>| on.map_or(0, |f| f.0);
    let off_ground = (zombies.iter())
        .filter(|(t, on)| navmesh.floor_at(t.translation) != usize::try_from(floor(*on)).ok())
        .count();
    let upstairs = zombies.iter().filter(|(_, on)| floor(*on) == 1).count();
    if off_ground > 0 && !*reported {
        error!("zombie_town: {off_ground} zombies are off the ground");
        *reported = true;
    }
    status.0 = format!(
        "{} zombies ({upstairs} on the terrace's floor), {}; off the ground: {off_ground}\n\
         planner: {} waiting, {} paths last tick ({:.2} ms), at most {} a tick",
        zombies.iter().len(),
        chase.mode.label(),
        planner.waiting(),
        planner.spent_last_tick(),
        planner.time_last_tick().as_secs_f64() * 1e3,
        planner.paths_per_tick,
    );
}
