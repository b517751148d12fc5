//! Lockstep multiplayer, in one window: two peers, each its own headless Bevy `App` with the
//! flocking plugins, simulate the same crowd from the same orders. Orders (a click, or the
//! game's own every few seconds) reach both peers a few ticks after they are given, as a
//! lockstep game's input delay does; each tick the peers' `FlockSimulation::checksum`s are
//! compared. Peer A is drawn on the left, peer B on the right.
//!
//! Run with `cargo run --features examples --example lockstep`.
//! Buttons (or keys): `D` nudges one of peer B's agents by one unit in the last place, a
//! desync the checksums catch at the next tick (and the crowds then visibly part); `S` saves
//! peer A's game (`FlockSnapshot`, to a file); `L` loads it into both peers, which are back in
//! step. Click a field to send the squad there.

use std::collections::VecDeque;
use std::path::PathBuf;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::window::PrimaryWindow;
use bevy_flock::FlockSnapshot;
use bevy_flock::prelude::*;

#[path = "support/button.rs"]
mod button;
#[path = "support/capture.rs"]
mod capture;

use button::{PressedButtons, button, panel, row};

/// Half the size of each peer's walled field, in world units.
const HALF_FIELD: Vec2 = Vec2::new(28.0, 16.0);
/// Pixels a world unit takes on screen.
const SCALE: f32 = 10.5;
/// Where each peer's field is centred on screen, peer A first.
const FIELD_CENTRES: [Vec2; 2] = [Vec2::new(-315.0, -40.0), Vec2::new(315.0, -40.0)];
const SQUAD: u64 = 160;
const BIRDS: u64 = 90;
/// Ticks between an order and the tick both peers apply it.
const INPUT_DELAY: u64 = 6;
/// Ticks between the game's own orders to the squad.
const ORDER_EVERY: u64 = 300;
/// The points the game sends the squad to in turn.
const WAYPOINTS: [Vec2; 4] = [
    Vec2::new(18.0, 9.0),
    Vec2::new(-18.0, -9.0),
    Vec2::new(18.0, -9.0),
    Vec2::new(-18.0, 9.0),
];

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: lockstep".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((button::ButtonStylePlugin, capture::CapturePlugin))
        .insert_resource(ClearColor(Color::srgb(0.09, 0.1, 0.12)))
        .insert_non_send(Peers::new())
        .add_systems(Startup, setup)
        .add_systems(Update, (act, click, step_peers, draw, show_status).chain())
        .run();
}

/// The two peers and what the session knows of them.
struct Peers {
    apps: [App; 2],
    /// Orders given and not yet applied: the tick both peers apply each at, and the squad's
    /// goal.
    orders: VecDeque<(u64, Vec2)>,
    /// The first tick whose checksums differed, since the last load.
    desync: Option<u64>,
    /// What happened last (a save, a load, a nudge).
    news: String,
}

/// What an on-screen button does.
#[derive(Component, Clone, Copy, PartialEq)]
enum Action {
    Desync,
    Save,
    Load,
}

#[derive(Component)]
struct StatusText;

impl Peers {
    fn new() -> Self {
        Self {
            apps: [peer(), peer()],
            orders: VecDeque::new(),
            desync: None,
            news: String::from("The peers start alike."),
        }
    }

    /// The kernel's count of ticks on peer A (both peers count alike).
    fn tick(&self) -> u64 {
        let sim = self.apps[0].world().resource::<FlockSimulation>();
        sim.crowd().tick()
    }

    fn checksums(&self) -> [u64; 2] {
        (self.apps.each_ref()).map(|app| app.world().resource::<FlockSimulation>().checksum())
    }
}

/// One peer: a headless app that runs one flocking tick an update, with the same world as the
/// other (the same agents, with the same `AgentId`s).
fn peer() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        FlockingPlugins::default().planar(),
    ))
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.finish();
    app.cleanup();
    let world = app.world_mut();
    world.resource_mut::<FlockingConfig>().seed = 2026;
    let walls = Boundary::walls(HALF_FIELD.extend(1.0) * -1.0, HALF_FIELD.extend(1.0), 2.0);
    let squad = world
        .spawn((
            Flock,
            FlockWeights {
                target: 1.5,
                collision_avoidance: 1.0,
                ..default()
            },
            Perception {
                neighbour_radius: 3.0,
                separation_radius: 1.2,
                velocity_obstacles: VelocityObstacles::Reciprocal,
                ..default()
            },
            walls,
        ))
        .id();
    let birds = world
        .spawn((
            Flock,
            FlockWeights {
                noise: 0.3,
                wander: 0.8,
                collision_avoidance: 1.0,
                ..default()
            },
            SteeringLimits {
                min_speed: 2.0,
                ..default()
            },
            walls,
        ))
        .id();
    for (centre, radius) in [(Vec2::new(0.0, 0.0), 3.0), (Vec2::new(-12.0, 6.0), 2.0)] {
        world.spawn((
            Obstacle::Sphere { radius },
            Transform::from_translation(centre.extend(0.0)),
        ));
    }
    for id in 0..SQUAD + BIRDS {
        // A deterministic spread of starting points and headings.
        let (row, column) = ((id % 16) as f32, (id / 16) as f32);
        let start = Vec2::new(-24.0 + column * 3.0, -12.0 + row * 1.6);
        let angle = id as f32 * 2.4;
        let (flock, target) = if id < SQUAD {
            (squad, Target::Point(WAYPOINTS[3].extend(0.0)))
        } else {
            (birds, Target::None)
        };
        world.spawn((
            Agent,
            AgentId(id),
            InFlock(flock),
            target,
            Transform::from_translation(start.extend(0.0)),
            Velocity(Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 2.0),
        ));
    }
    app
}

fn setup(mut commands: Commands) {
    commands.spawn(Camera2d);
    commands
        .spawn(panel((px(10), px(10))))
        .with_children(|panel| {
            panel.spawn(row()).with_children(|row| {
                row.spawn(button(Action::Desync, "Desync peer B (D)"));
                row.spawn(button(Action::Save, "Save (S)"));
                row.spawn(button(Action::Load, "Load into both (L)"));
            });
            panel.spawn((
                StatusText,
                Text::new(""),
                TextFont::from_font_size(14.0),
                TextColor(Color::srgb(0.85, 0.87, 0.9)),
            ));
        });
}

/// Where the save goes.
fn save_path() -> PathBuf {
    std::env::temp_dir().join("bevy_flock-lockstep.flks")
}

/// The buttons and their keys.
fn act(
    keys: Res<ButtonInput<KeyCode>>,
    pressed: PressedButtons<Action>,
    mut peers: NonSendMut<Peers>,
) {
    let keyed = [
        (KeyCode::KeyD, Action::Desync),
        (KeyCode::KeyS, Action::Save),
        (KeyCode::KeyL, Action::Load),
    ];
    let actions = keyed
        .into_iter()
        .filter(|(key, _)| keys.just_pressed(*key))
        .map(|(_, action)| action)
        .chain(pressed.iter().copied());
    for action in actions {
        peers.news = match action {
            Action::Desync => desync(&mut peers),
            Action::Save => save(&mut peers),
            Action::Load => load(&mut peers),
        };
    }
}

/// Nudges agent 0 of peer B by one unit in the last place of its x.
fn desync(peers: &mut Peers) -> String {
    let tick = peers.tick();
    let world = peers.apps[1].world_mut();
    let mut agents = world.query::<(&AgentId, &mut Transform)>();
    for (id, mut transform) in agents.iter_mut(world) {
        if id.0 == 0 {
            let x = &mut transform.translation.x;
            *x = f32::from_bits(x.to_bits() + 1);
        }
    }
    format!("Peer B's agent 0 moved by one ulp after tick {tick}.")
}

fn save(peers: &mut Peers) -> String {
    let saved = FlockSnapshot::take(peers.apps[0].world_mut()).map(|s| (s.tick(), s.into_bytes()));
    let path = save_path();
    match saved.map_err(|e| e.to_string()).and_then(|(tick, bytes)| {
        std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
        Ok((tick, bytes.len()))
    }) {
        Ok((tick, bytes)) => format!(
            "Saved peer A at tick {tick}: {bytes} bytes ({:.0} an agent) to {}.",
            bytes as f32 / (SQUAD + BIRDS) as f32,
            path.display()
        ),
        Err(e) => format!("Not saved: {e}"),
    }
}

fn load(peers: &mut Peers) -> String {
    let loaded = std::fs::read(save_path())
        .map_err(|e| format!("no save yet ({e})"))
        .and_then(|bytes| FlockSnapshot::from_vec(bytes).map_err(|e| e.to_string()));
    let snapshot = match loaded {
        Ok(snapshot) => snapshot,
        Err(e) => return format!("Not loaded: {e}"),
    };
    for app in &mut peers.apps {
        if let Err(e) = snapshot.restore(app.world_mut()) {
            return format!("Not loaded: {e}");
        }
    }
    peers.orders.clear();
    peers.desync = None;
    format!("Loaded tick {} into both peers.", snapshot.tick())
}

/// A click on either field sends the squad there.
fn click(
    mouse: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut peers: NonSendMut<Peers>,
) {
    if !mouse.just_pressed(MouseButton::Left) {
        return;
    }
    let (camera, at) = *camera;
    let Some(point) =
        (window.cursor_position()).and_then(|cursor| camera.viewport_to_world_2d(at, cursor).ok())
    else {
        return;
    };
    for centre in FIELD_CENTRES {
        let goal = (point - centre) / SCALE;
        if goal.abs().cmple(HALF_FIELD).all() {
            let tick = peers.tick() + INPUT_DELAY;
            peers.orders.push_back((tick, goal));
        }
    }
}

/// One tick of both peers: the orders due applied alike, then the checksums compared.
fn step_peers(mut peers: NonSendMut<Peers>) {
    let tick = peers.tick();
    if tick % ORDER_EVERY == ORDER_EVERY - INPUT_DELAY {
        let goal = WAYPOINTS[(tick / ORDER_EVERY) as usize % WAYPOINTS.len()];
        peers.orders.push_back((tick + INPUT_DELAY, goal));
    }
    while let Some(&(due, goal)) = peers.orders.front()
        && due <= tick
    {
        peers.orders.pop_front();
        for app in &mut peers.apps {
            send_squad(app.world_mut(), goal);
        }
    }
    for app in &mut peers.apps {
        app.update();
    }
    let [a, b] = peers.checksums();
    if a != b && peers.desync.is_none() {
        peers.desync = Some(peers.tick());
    }
}

/// Gives every squad agent of `world` the goal `goal`, spread a little by id.
fn send_squad(world: &mut World, goal: Vec2) {
    let mut agents = world.query::<(&AgentId, &mut Target)>();
    for (id, mut target) in agents.iter_mut(world) {
        if id.0 < SQUAD {
            let spread = Vec2::new((id.0 % 8) as f32, (id.0 / 8 % 8) as f32) * 0.6;
            *target = Target::Point((goal + spread).extend(0.0));
        }
    }
}

/// Each peer's field, obstacles and agents.
fn draw(mut peers: NonSendMut<Peers>, mut gizmos: Gizmos) {
    let desynced = peers.desync.is_some();
    for (k, app) in peers.apps.iter_mut().enumerate() {
        let centre = FIELD_CENTRES[k];
        let frame = if desynced && k == 1 {
            Color::srgb(0.9, 0.3, 0.3)
        } else {
            Color::srgb(0.4, 0.45, 0.5)
        };
        gizmos.rect_2d(centre, HALF_FIELD * 2.0 * SCALE, frame);
        let world = app.world_mut();
        let mut obstacles = world.query::<(&Obstacle, &Transform)>();
        for (obstacle, transform) in obstacles.iter(world) {
            if let Obstacle::Sphere { radius } = obstacle {
                let at = centre + transform.translation.truncate() * SCALE;
                gizmos.circle_2d(at, radius * SCALE, Color::srgb(0.75, 0.7, 0.65));
            }
        }
        let mut agents = world.query::<(&AgentId, &Transform, &Velocity)>();
        for (id, transform, velocity) in agents.iter(world) {
            let colour = if id.0 < SQUAD {
                Color::srgb(0.98, 0.62, 0.2)
            } else {
                Color::srgb(0.35, 0.65, 1.0)
            };
            let at = centre + transform.translation.truncate() * SCALE;
            gizmos.circle_2d(at, 0.45 * SCALE, colour);
            gizmos.line_2d(at, at + velocity.truncate() * 0.25 * SCALE, colour);
        }
    }
}

fn show_status(peers: NonSend<Peers>, mut text: Single<&mut Text, With<StatusText>>) {
    let [a, b] = peers.checksums();
    let state = match peers.desync {
        None => String::from("in step"),
        Some(tick) => format!("DESYNC caught at tick {tick}"),
    };
    text.0 = format!(
        "tick {}   peer A {a:016x}   peer B {b:016x}   {state}\n{}\n\
         Orders reach both peers {INPUT_DELAY} ticks after they are given. Click a field to \
         send the squad (orange) there.",
        peers.tick(),
        peers.news,
    );
}
