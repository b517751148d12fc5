//! Test app and measurements shared by the behaviour tests.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_flock::InputCorrected;
use bevy_flock::prelude::*;

/// Counts completed flocking ticks.
#[derive(Resource, Default)]
pub struct Ticks(pub u32);

/// Every [`InputCorrected`] message sent so far.
#[derive(Resource, Default)]
pub struct Corrections(pub Vec<InputCorrected>);

/// `MinimalPlugins`, transforms and the plugins; every `update` runs exactly one fixed tick.
pub fn create_test_app(plugin: FlockingPlugins) -> App {
    create_test_app_with(plugin, |_| {})
}

/// [`create_test_app`] with RTS movement: squads, destinations and terrain.
pub fn create_squads_test_app(plugin: FlockingPlugins) -> App {
    create_test_app_with(plugin, |app| {
        app.add_plugins((SquadsPlugin, TerrainPlugin));
    })
}

/// [`create_test_app`], with `install` adding more plugins before the app is finished.
pub fn create_test_app_with(plugin: FlockingPlugins, install: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, plugin));
    finish_test_app(app, install)
}

/// [`create_test_app_with`], Bevy's compute pool given `threads` threads (and one each to the
/// other two pools). The pools are one per process, made by its first app: a test that needs a
/// thread count runs in a process of its own (see [`in_own_process`]).
pub fn create_test_app_on_threads(
    plugin: FlockingPlugins,
    threads: usize,
    install: impl FnOnce(&mut App),
) -> App {
    let policy = |threads| TaskPoolThreadAssignmentPolicy {
        min_threads: threads,
        max_threads: threads,
        percent: 1.0,
        on_thread_spawn: None,
        on_thread_destroy: None,
    };
    let task_pool_options = TaskPoolOptions {
        io: policy(1),
        async_compute: policy(1),
        compute: policy(threads),
        ..TaskPoolOptions::with_num_threads(threads + 2)
    };
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin { task_pool_options }),
        TransformPlugin,
        plugin,
    ));
    finish_test_app(app, install)
}

/// Runs the test `name` (its path in this test binary) in a process of its own with `variable`
/// set to `value`, and returns what it printed.
pub fn in_own_process(name: &str, variable: &str, value: &str) -> String {
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = std::process::Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(variable, value)
        .output()
        .expect("the test binary runs");
    assert!(
        output.status.success(),
        "{name} with {variable}={value} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Installs the plugins of `install` and what every test app has, and finishes `app`.
fn finish_test_app(mut app: App, install: impl FnOnce(&mut App)) -> App {
    install(&mut app);
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .init_resource::<Ticks>()
        .init_resource::<Corrections>()
        .add_systems(
            FixedUpdate,
            (
                (|mut ticks: ResMut<Ticks>| ticks.0 += 1).in_set(FlockingSystems::Last),
                (|mut seen: ResMut<Corrections>, mut messages: MessageReader<InputCorrected>| {
                    seen.0.extend(messages.read().copied());
                })
                .in_set(FlockingSystems::Last),
            ),
        );
    app.finish();
    app.cleanup();
    app
}

/// Runs the app until `n` more flocking ticks have completed.
pub fn run_ticks(app: &mut App, n: u32) {
    let goal = app.world().resource::<Ticks>().0 + n;
    for _ in 0..(n * 2 + 4) {
        if app.world().resource::<Ticks>().0 >= goal {
            return;
        }
        app.update();
    }
    panic!("the flocking schedule did not run {n} ticks");
}

/// A small deterministic random generator, so runs repeat.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in `0..1`.
    pub fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `-extent..extent` on each axis.
    pub fn in_cube(&mut self, extent: f32) -> Vec3 {
        Vec3::new(self.unit(), self.unit(), self.unit()) * 2.0 * extent - extent
    }

    /// A uniform random direction.
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = self.in_cube(1.0);
            let len_sq = v.length_squared();
            if len_sq > 1e-3 && len_sq <= 1.0 {
                return v / len_sq.sqrt();
            }
        }
    }
}

/// Spawns a flock entity with `tuning` and returns it.
pub fn spawn_flock(app: &mut App, tuning: FlockTuning) -> Entity {
    app.world_mut().spawn((Flock, tuning)).id()
}

/// Sets the default flock's tuning.
pub fn tune_default_flock(app: &mut App, tuning: FlockTuning) {
    let flock = **app.world().resource::<DefaultFlock>();
    app.world_mut().entity_mut(flock).insert(tuning);
}

/// Weights with every rule off.
pub fn no_weights() -> FlockWeights {
    FlockWeights {
        separation: 0.0,
        alignment: 0.0,
        cohesion: 0.0,
        target: 0.0,
        collision_avoidance: 0.0,
        flee: 0.0,
        noise: 0.0,
        leader: 0.0,
        flow: 0.0,
        wander: 0.0,
        standoff: 0.0,
        ..FlockWeights::default()
    }
}

/// Positions of all agents.
pub fn positions(app: &mut App) -> Vec<Vec3> {
    let world = app.world_mut();
    let mut query = world.query_filtered::<&Transform, With<Agent>>();
    query.iter(world).map(|t| t.translation).collect()
}

/// Velocities of the given agents.
pub fn velocities_of(app: &App, agents: &[Entity]) -> Vec<Vec3> {
    agents
        .iter()
        .map(|&e| app.world().get::<Velocity>(e).expect("agent").0)
        .collect()
}

/// Length of the sum of unit velocities over their count.
pub fn polarisation(velocities: &[Vec3]) -> f32 {
    let sum: Vec3 = velocities.iter().map(|v| v.normalize_or_zero()).sum();
    sum.length() / velocities.len() as f32
}

/// Smallest distance between any two points (brute force).
pub fn min_pair_distance(points: &[Vec3]) -> f32 {
    let mut min = f32::INFINITY;
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            min = min.min(a.distance(*b));
        }
    }
    min
}

/// Root-mean-square distance from the centroid.
pub fn spread(points: &[Vec3]) -> f32 {
    let centroid = points.iter().copied().sum::<Vec3>() / points.len() as f32;
    (points
        .iter()
        .map(|p| p.distance_squared(centroid))
        .sum::<f32>()
        / points.len() as f32)
        .sqrt()
}

/// How two agents meeting went: the closest their centres came, and whether each got past the
/// other's starting point.
pub struct Meeting {
    pub closest: f32,
    pub both_past: bool,
}

/// Two agents start 40 apart, `lateral` off each other's line, each seeking a point beyond the
/// other's start at speed 5, each in its own flock with `tuning` (so only separation and
/// collision avoidance act between them), for 12 seconds.
pub fn meet(plugin: FlockingPlugins, lateral: Vec3, tuning: FlockTuning) -> Meeting {
    let mut app = create_test_app(plugin);
    let starts = [
        Vec3::new(-20.0, 0.0, 0.0),
        Vec3::new(20.0, 0.0, 0.0) + lateral,
    ];
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| {
            let flock = spawn_flock(&mut app, tuning);
            let goal = Vec3::new(-start.x * 1.5, start.y, start.z);
            app.world_mut()
                .spawn((
                    Agent,
                    InFlock(flock),
                    Transform::from_translation(start),
                    Velocity((goal - start).normalize() * 5.0),
                    Target::Point(goal),
                ))
                .id()
        })
        .collect();
    let mut closest = f32::INFINITY;
    for _ in 0..12 * 64 {
        run_ticks(&mut app, 1);
        let [a, b] = [agents[0], agents[1]]
            .map(|agent| app.world().get::<Transform>(agent).unwrap().translation);
        closest = closest.min(a.distance(b));
    }
    let [a, b] = [agents[0], agents[1]]
        .map(|agent| app.world().get::<Transform>(agent).unwrap().translation);
    Meeting {
        closest,
        both_past: a.x > 20.0 && b.x < -20.0,
    }
}

/// A serpentine of one-tile corridors on a `side` x `side` map: walls on every odd row, each
/// with one gap, at alternate ends. Returns the terrain and the corridor's ends.
pub fn serpentine(side: u32) -> (Terrain, Vec3, Vec3) {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(side));
    for y in (1..side).step_by(2) {
        let gap = if (y / 2) % 2 == 0 { side - 1 } else { 0 };
        for x in 0..side {
            terrain.set_walkable(UVec2::new(x, y), x == gap);
        }
    }
    let start = Vec3::new(0.5, 0.5, 0.0);
    let goal = terrain.centre(UVec2::new(0, side - 1));
    (terrain, start, goal)
}

/// The length of the way from `from` along `waypoints`, asserting each leg clear of walls.
pub fn clear_path_length(terrain: &Terrain, from: Vec3, waypoints: &[Vec3]) -> f32 {
    let mut at = from;
    let mut length = 0.0;
    for &waypoint in waypoints {
        assert!(
            terrain.is_clear_line(at, waypoint),
            "the leg {at} -> {waypoint} crosses a wall"
        );
        length += at.distance(waypoint);
        at = waypoint;
    }
    length
}
