//! Obstacle avoidance cost on both backends: the plugin's tick with 0, 10 and 100 obstacles
//! among the agents, as built-in shapes and as rapier colliders, and its avoidance and
//! integration sets alone.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use bevy_flock_rapier::FlockRapierPlugin;
use bevy_rapier3d::prelude::{Collider, NoUserData, RapierPhysicsPlugin};
use flock_core::Space;

use crate::harness::{median, plugin_app};
use crate::workload::{Workload, unit_generator};

/// Agents in the avoidance workload.
pub const AGENTS: usize = 10_000;
/// Radius of each spherical obstacle.
const OBSTACLE_RADIUS: f32 = 2.0;
/// Obstacle counts measured.
const OBSTACLES: [usize; 3] = [0, 10, 100];

/// Where the obstacles live.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Backend {
    BuiltIn,
    Rapier,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::BuiltIn => "built-in",
            Backend::Rapier => "rapier",
        }
    }
}

/// One measured backend and obstacle count.
pub struct AvoidanceRow {
    backend: Backend,
    obstacles: usize,
    tick: Duration,
    avoidance: Duration,
    integration: Duration,
    avoiding: f32,
}

/// Per-tick times of the avoidance and integration sets, taken by systems around them.
#[derive(Resource, Default)]
struct SetClock {
    started: Option<Instant>,
    avoidance: Vec<Duration>,
    integration: Vec<Duration>,
}

fn start_clock(mut clock: ResMut<SetClock>) {
    clock.started = Some(Instant::now());
}

fn stop_avoidance(mut clock: ResMut<SetClock>) {
    let elapsed = clock.started.map_or(Duration::ZERO, |s| s.elapsed());
    clock.avoidance.push(elapsed);
    clock.started = Some(Instant::now());
}

fn stop_integration(mut clock: ResMut<SetClock>) {
    let elapsed = clock.started.map_or(Duration::ZERO, |s| s.elapsed());
    clock.integration.push(elapsed);
}

/// A plugin app on 2 cores with the workload's agents and `obstacles` spheres of `backend`
/// at seeded places among them, run for two ticks (agents spawned inside one get out, and
/// rapier takes in its colliders).
fn app(workload: &Workload, backend: Backend, obstacles: usize) -> App {
    let mut app = plugin_app(Space::Volume, 2);
    app.add_plugins(TransformPlugin);
    if backend == Backend::Rapier {
        app.add_plugins((
            RapierPhysicsPlugin::<NoUserData>::default(),
            FlockRapierPlugin::default(),
        ));
    }
    app.init_resource::<SetClock>().add_systems(
        FixedUpdate,
        (
            start_clock
                .after(FlockingSystems::ForceAccumulation)
                .before(FlockingSystems::Avoidance),
            stop_avoidance
                .after(FlockingSystems::Avoidance)
                .before(FlockingSystems::Integration),
            stop_integration
                .after(FlockingSystems::Integration)
                .before(FlockingSystems::Last),
        ),
    );
    let half = workload
        .positions
        .iter()
        .fold(Vec3::ZERO, |m, p| m.max(p.abs()));
    let mut unit = unit_generator(0x2545_F491_4F6C_DD1D);
    for _ in 0..obstacles {
        let centre = (Vec3::new(unit(), unit(), unit()) * 2.0 - 1.0) * half;
        let transform = Transform::from_translation(centre);
        match backend {
            Backend::BuiltIn => app.world_mut().spawn((
                Obstacle::Sphere {
                    radius: OBSTACLE_RADIUS,
                },
                transform,
            )),
            Backend::Rapier => app.world_mut().spawn((
                Collider::ball(OBSTACLE_RADIUS),
                Obstacle::Collider,
                transform,
            )),
        };
    }
    workload.spawn_agents(&mut app);
    app.finish();
    app.cleanup();
    for _ in 0..2 {
        app.update();
    }
    *app.world_mut().resource_mut::<SetClock>() = SetClock::default();
    app
}

/// Measures `rounds` interleaved rounds of `ticks` ticks of every backend and obstacle count
/// (so a slow spell of the machine lands on all of them), pooled into medians.
pub fn measure(ticks: usize, rounds: usize) -> Vec<AvoidanceRow> {
    let workload = Workload::new(AGENTS, Space::Volume);
    let mut cases: Vec<(Backend, usize, App, Vec<Duration>, usize)> = OBSTACLES
        .into_iter()
        .flat_map(|n| [(Backend::BuiltIn, n), (Backend::Rapier, n)])
        .map(|(backend, n)| (backend, n, app(&workload, backend, n), Vec::new(), 0))
        .collect();
    for _ in 0..rounds {
        for (_, _, app, steps, avoiding) in &mut cases {
            for _ in 0..ticks {
                app.update();
                let metrics = app.world().resource::<FlockMetrics>();
                steps.push(metrics.step_time);
                *avoiding += metrics.avoiding;
            }
        }
    }
    cases
        .into_iter()
        .map(|(backend, obstacles, mut app, steps, avoiding)| {
            let clock = std::mem::take(&mut *app.world_mut().resource_mut::<SetClock>());
            AvoidanceRow {
                backend,
                obstacles,
                tick: median(steps),
                avoidance: median(clock.avoidance),
                integration: median(clock.integration),
                avoiding: avoiding as f32 / (ticks * rounds) as f32,
            }
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn ns_per_agent(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9 / AGENTS as f64
}

impl AvoidanceRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "avoidance {:>8} {:>3} obstacles: tick {:.3} ms, avoidance {:.3} ms ({:.0} ns/agent), integration {:.3} ms, {:.0} agents avoiding",
            self.backend.name(),
            self.obstacles,
            ms(self.tick),
            ms(self.avoidance),
            ns_per_agent(self.avoidance),
            ms(self.integration),
            self.avoiding
        )
    }
}

/// The report's section on avoidance.
pub fn section(rows: &[AvoidanceRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Obstacle avoidance (plugin, 3D, {AGENTS} agents, 2 threads)\n\n\
         The workload above at {AGENTS} agents in a `FlockingPlugins` app, with spheres of \
         radius {OBSTACLE_RADIUS} at seeded places among them: built-in `Obstacle::Sphere`s, \
         or rapier balls marked `Obstacle::Collider` cast through `bevy_flock_rapier`. \
         Medians of {rounds} interleaved rounds of {ticks} ticks. The avoidance set casts a \
         ball ahead of every agent (one far from every obstacle costs a bounds test against \
         the built-in shapes, an empty tree query in rapier); the integration set moves every agent and keeps it out of the \
         obstacles, then writes `Transform` and `Velocity` back, so its 0-obstacle time is \
         the write-back alone.\n\n\
         | backend | obstacles | tick ms | avoidance set ms | avoidance ns / agent | integration set ms | agents avoiding |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {:.3} | {:.3} | {:.0} | {:.3} | {:.0} |",
            r.backend.name(),
            r.obstacles,
            ms(r.tick),
            ms(r.avoidance),
            ns_per_agent(r.avoidance),
            ms(r.integration),
            r.avoiding
        );
    }
    out
}
