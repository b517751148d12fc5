//! Benchmark runner for bevy_flock: one workload, several ways of finding neighbours, side by
//! side in the same run.
//!
//! The workload: N agents uniform in a cube (a square in 2D) sized so that each has about 25
//! neighbours within radius 4, moving in random directions at speed 3, the default rules on.
//! Every method starts from the same seeded positions; the measured window is short (under a
//! third of a second of simulated time), so the density barely changes, and the neighbours
//! found at its end are reported beside the times.
//!
//! Methods, per tick:
//! - `plugin`: the full `FlockingPlugins` tick in a headless Bevy app (copy in, grid, forces,
//!   integration, writes of `Velocity` and `Transform`, Bevy's scheduling);
//! - `kernel`: `flock_core::Crowd::step` alone (grid build, forces, integration);
//! - `kd-tree`: kd-tree 0.6 (what bevy_spatial wraps): rebuild, then one within-radius query
//!   per agent;
//! - `kiddo`: kiddo's immutable tree, the same;
//! - `brute`: every pair (up to 10k agents).
//!
//! "1 thread" runs everything on the calling thread; "2 threads" splits the per-agent work in
//! two (the plugin and the kernel on Bevy's compute task pool, the trees and brute force on
//! scoped threads, spawned once per tick).
//!
//! Run in release: `cargo run --release -p flock_bench` (add `-- --quick` for a short run).
//! It prints a table and writes `BENCHMARKS.md` and `benchmarks.svg` in the current directory.
//! `-- --only kernel --agents 100000 --space 3d` runs one case, without writing the report
//! (`--threads 1` or `2` narrows it to one thread count, e.g. for a profile);
//! `-- --only avoidance` runs the obstacle avoidance cases alone (see the `avoidance` module).
//! `-- --only lab` runs the flocking lab's scene alone (see the `lab` module).
//! `-- --only detail` runs the level-of-detail cases alone (see the `detail` module).
//! `-- --only clumped` runs 50,000 agents packed into a unit cube against the same spread out,
//! and prints its section of the report (see the `clumped` module).
//! `-- --only plugin-default-pool` runs the plugin with Bevy's default task pools alone; in a
//! full run that row comes from a child process of the benchmark, since the pools are global.
//! `-- --only squads` runs the squads' flocking against potential fields alone, and prints
//! its section of the report (see the `squads` module); with `--agents N`, only the cases of
//! N units (64, 256 or 1024).
//! `-- --only planning` runs path planning on big maps alone, and prints its section of the
//! report (see the `planning` module).
//! `-- --only crowds` runs the crowd scenarios (circle swaps, crossing streams, a bottleneck, a
//! dense crowd) in every avoidance mode and what the velocity-obstacle step costs, and prints
//! its section of the report (see the `crowds` module); `-- --only crowd-cost` runs only what
//! the step costs (with `--agents N`, at N agents only).
//! `-- --only plugin --pause-ms 14` sleeps 14 ms before each timed plugin tick (with Bevy's
//! default pools too, `--only plugin-default-pool`), as a game's frame at 60 Hz leaves the cores
//! idle between ticks.
//! `-- --soak` runs the soak test instead (see the `soak` module) and writes `SOAK.md`.

mod avoidance;
mod clumped;
mod crowds;
mod detail;
mod lab;
mod planning;
mod soak;
mod squads;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::app::{App, TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use bevy::time::TimeUpdateStrategy;
use bevy_flock_plugin::prelude::*;
use flock_core::{AgentInput, ChunkExecutor, Crowd, FlockTuning, SimdPath, Space};

/// Expected neighbours per agent within the radius, from the density.
const NEIGHBOURS: f32 = 25.0;
const RADIUS: f32 = 4.0;
const SPEED: f32 = 3.0;
const DT: f32 = 1.0 / 60.0;
/// Ticks run before measuring.
const WARM_UP_TICKS: usize = 2;
/// How long the compute pool's threads are kept busy before a case's warm-up ticks. After a
/// stretch on one thread (a case measured on one, or the trees'), the first ticks on two pay
/// for waking the idle core: on the shared cloud machine, the plugin at 10,000 agents took
/// about 3.7 ms a tick for some 15 ticks, then 2.1.
const WARM_UP_TIME: Duration = Duration::from_millis(200);
/// The speed issue's targets (must, target, stretch): the plugin tick in ms at 10k and 100k
/// agents (3D, 2 threads).
const TICK_TARGETS: [(usize, [f64; 3]); 2] =
    [(10_000, [2.0, 1.5, 1.0]), (100_000, [20.0, 15.0, 10.0])];
/// kd-tree time over the plugin tick at 50k agents: at least these.
const KD_TREE_TARGETS: [f64; 3] = [6.0, 8.0, 10.0];
/// The ECS share of the plugin tick at 100k agents, in percent: at most these.
const ECS_SHARE_TARGETS: [f64; 3] = [20.0, 15.0, 10.0];
/// The whole update of 1,024 flocking squad units on the 128 x 128 map, ms: at most these.
const SQUADS_TARGETS: [f64; 3] = [6.0, 4.0, 3.0];
/// The clumped plugin tick over the spread one at 50k agents: at most these.
const CLUMPED_TARGETS: [f64; 3] = [4.0, 3.0, 2.0];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--soak") {
        soak::run(&args);
        return;
    }
    if args.iter().any(|a| a == CHILD_FLAG) {
        run_default_pool_child(&args);
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    // `--only METHOD`, `--agents N`, `--space 3d|2d` and `--threads 1|2` narrow the run (e.g.
    // to profile one case); the report is then not written.
    let only = value_of("--only");
    let pause = pause_of(&args);
    let agents: Option<usize> = value_of("--agents").and_then(|n| n.parse().ok());
    let only_space = value_of("--space");
    let only_threads: Option<usize> = value_of("--threads").map(|n| match n.as_str() {
        "1" => 1,
        "2" => 2,
        other => panic!("--threads takes 1 or 2, not {other}"),
    });
    let narrowed =
        only.is_some() || agents.is_some() || only_space.is_some() || only_threads.is_some();
    let thread_counts: Vec<usize> = match only_threads {
        Some(n) => vec![n],
        None => vec![1, 2],
    };
    let sizes: Vec<usize> = match agents {
        Some(n) => vec![n],
        None if quick => vec![1_000, 10_000],
        None => vec![1_000, 10_000, 50_000, 100_000],
    };
    let spaces: Vec<Space> = match only_space.as_deref() {
        Some("3d") => vec![Space::Volume],
        Some("2d") => vec![Space::Planar],
        _ => vec![Space::Volume, Space::Planar],
    };
    let ticks = if quick { 5 } else { 31 };
    // The sweep runs `rounds` times and each case's ticks are pooled: a slow spell of a shared
    // machine then lands on every method instead of one.
    let rounds: usize = value_of("--rounds")
        .and_then(|n| n.parse().ok())
        .unwrap_or(if quick { 1 } else { 5 });

    if only.as_deref() == Some("lab") {
        for row in lab::measure(ticks, rounds) {
            println!("{}", row.line());
        }
        return;
    }
    if only.as_deref() == Some("squads") {
        let rows = squads::measure(ticks, rounds, agents);
        for row in &rows {
            println!("{}", row.line());
        }
        println!("\n{}", squads::section(&rows, ticks, rounds));
        return;
    }
    if only.as_deref() == Some("planning") {
        let (rows, serpentines) = planning::measure(rounds);
        println!("\n{}", planning::section(&rows, &serpentines));
        return;
    }
    if only.as_deref() == Some("crowds") {
        let report = crowds::measure(ticks, rounds);
        println!("\n{}", crowds::section(&report, ticks, rounds));
        return;
    }
    if only.as_deref() == Some("crowd-cost") {
        crowds::measure_costs(
            ticks,
            rounds,
            &agents.map_or(crowds::COST_AGENTS.to_vec(), |n| vec![n]),
        );
        return;
    }
    if only.as_deref() == Some("clumped") {
        let rows = clumped::measure(ticks, rounds);
        for row in &rows {
            println!("{}", row.line());
        }
        println!("\n{}", clumped::section(&rows, ticks, rounds));
        return;
    }
    if only.as_deref() == Some("detail") {
        for row in detail::measure(ticks, rounds) {
            println!("{}", row.line());
        }
        return;
    }
    if only.as_deref() == Some("avoidance") {
        for row in avoidance::measure(ticks, rounds) {
            println!("{}", row.line());
        }
        return;
    }

    // One compute pool for the whole run, with one thread per core here (2 on the CI box).
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut rows: Vec<Row> = Vec::new();
    for _ in 0..rounds {
        for &space in &spaces {
            for &n in &sizes {
                let workload = Workload::new(n, space);
                for &threads in &thread_counts {
                    let wanted =
                        |method: Method| only.as_deref().is_none_or(|o| o == method.name());
                    let mut measure = |method: Method, row: Option<Row>| {
                        if let Some(row) = row {
                            println!("{}", row.line());
                            match rows.iter_mut().find(|r| r.same_case(&row)) {
                                Some(pooled) => pooled.pool(row),
                                None => rows.push(row),
                            }
                        } else {
                            println!("{:>8} {:>7} {:?} skipped", method.name(), n, space);
                        }
                    };
                    if wanted(Method::Plugin) {
                        measure(
                            Method::Plugin,
                            Some(bench_plugin(&workload, threads, cores, ticks, pause)),
                        );
                    }
                    // The same app without the plugin, on the same pool: once per size.
                    if wanted(Method::BareApp) && threads == 2 && space == Space::Volume {
                        measure(
                            Method::BareApp,
                            Some(bench_bare_app(&workload, threads, cores, ticks, pause)),
                        );
                    }
                    // Bevy's pools give the thread count; measured once per size.
                    if wanted(Method::PluginDefaultPool) && threads == 2 {
                        let row =
                            bench_plugin_default_pool(&workload, ticks, pause, only.is_some());
                        measure(Method::PluginDefaultPool, row);
                    }
                    if wanted(Method::Kernel) {
                        measure(
                            Method::Kernel,
                            Some(bench_kernel(&workload, threads, ticks, SimdPath::detect())),
                        );
                    }
                    // Side by side with the path detected, where that is not the portable one.
                    if wanted(Method::KernelPortable) && SimdPath::detect() != SimdPath::Portable {
                        let row = bench_kernel(&workload, threads, ticks, SimdPath::Portable);
                        measure(Method::KernelPortable, Some(row));
                    }
                    if space == Space::Volume {
                        if wanted(Method::KdTree) {
                            measure(
                                Method::KdTree,
                                Some(bench_kd_tree(&workload, threads, ticks)),
                            );
                        }
                        if wanted(Method::Kiddo) {
                            measure(Method::Kiddo, Some(bench_kiddo(&workload, threads, ticks)));
                        }
                        if wanted(Method::Brute) {
                            let brute =
                                (n <= 10_000).then(|| bench_brute(&workload, threads, ticks));
                            measure(Method::Brute, brute);
                        }
                    }
                }
            }
        }
    }

    if narrowed {
        return;
    }
    let avoidance_rows = avoidance::measure(ticks, rounds);
    for row in &avoidance_rows {
        println!("{}", row.line());
    }
    let lab_rows = lab::measure(ticks, rounds);
    for row in &lab_rows {
        println!("{}", row.line());
    }
    let detail_rows = detail::measure(ticks, rounds);
    for row in &detail_rows {
        println!("{}", row.line());
    }
    let clumped_rows = clumped::measure(ticks, rounds);
    for row in &clumped_rows {
        println!("{}", row.line());
    }
    let squads_rows = squads::measure(ticks, rounds, None);
    for row in &squads_rows {
        println!("{}", row.line());
    }
    let (planning_rows, serpentines) = planning::measure(rounds);
    for row in &serpentines {
        println!("{}", row.line());
    }
    let targets = targets_section(&rows, &squads_rows, &clumped_rows);
    let report = report(&rows, &targets, ticks, rounds)
        + "\n"
        + &avoidance::section(&avoidance_rows, ticks, rounds)
        + "\n"
        + &lab::section(&lab_rows, ticks, rounds)
        + "\n"
        + &detail::section(&detail_rows, ticks, rounds)
        + "\n"
        + &clumped::section(&clumped_rows, ticks, rounds)
        + "\n"
        + &squads::section(&squads_rows, ticks, rounds)
        + "\n"
        + &planning::section(&planning_rows, &serpentines);
    std::fs::write("BENCHMARKS.md", &report).expect("write BENCHMARKS.md");
    plot(&rows, "benchmarks.svg");
    println!("\nwrote BENCHMARKS.md and benchmarks.svg");
}

/// A seeded generator of numbers uniform in `0..1` (xorshift), so runs repeat.
fn unit_generator(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Seeded starting state shared by every method.
struct Workload {
    space: Space,
    positions: Vec<Vec3>,
    velocities: Vec<Vec3>,
}

impl Workload {
    /// Spawns the agents in a plugin app; returns their entities, in the workload's order.
    fn spawn_agents(&self, app: &mut App) -> Vec<Entity> {
        let agents: Vec<_> = self
            .positions
            .iter()
            .zip(&self.velocities)
            .map(|(&p, &v)| (Agent, Transform::from_translation(p), Velocity(v)))
            .collect();
        app.world_mut().spawn_batch(agents).collect()
    }

    /// The agents in a kernel crowd with the default parameters.
    fn crowd(&self) -> Crowd {
        let mut crowd = Crowd::new(self.space);
        self.refill(&mut crowd);
        crowd
    }

    /// Empties `crowd` (keeping its buffers) and puts the agents back with the default
    /// parameters.
    fn refill(&self, crowd: &mut Crowd) {
        crowd.clear();
        let params = crowd.add_params(FlockTuning::default());
        for (&position, &velocity) in self.positions.iter().zip(&self.velocities) {
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: 0,
                params,
                target: None,
            });
        }
    }

    fn new(n: usize, space: Space) -> Self {
        // Density that gives NEIGHBOURS agents inside a ball (disc) of radius RADIUS.
        let extent = match space {
            Space::Volume => {
                let ball = 4.0 / 3.0 * std::f32::consts::PI * RADIUS * RADIUS * RADIUS;
                ops::cbrt(n as f32 * ball / NEIGHBOURS)
            }
            Space::Planar => {
                let disc = std::f32::consts::PI * RADIUS * RADIUS;
                (n as f32 * disc / NEIGHBOURS).sqrt()
            }
        };
        let mut unit = unit_generator(0x853C_49E6_748F_EA9B);
        let flat = |v: Vec3| match space {
            Space::Volume => v,
            Space::Planar => v.with_z(0.0),
        };
        let mut positions = Vec::with_capacity(n);
        let mut velocities = Vec::with_capacity(n);
        for _ in 0..n {
            positions.push(flat((Vec3::new(unit(), unit(), unit()) - 0.5) * extent));
            let dir = flat(Vec3::new(unit(), unit(), unit()) - 0.5).normalize_or(Vec3::X);
            velocities.push(dir * SPEED);
        }
        Self {
            space,
            positions,
            velocities,
        }
    }

    fn len(&self) -> usize {
        self.positions.len()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    Plugin,
    /// The plugin's app without the plugin: Bevy's own update.
    BareApp,
    /// The plugin in an app with Bevy's default task pools (run in a child process, since the
    /// pools are global and the first app of a process sets them).
    PluginDefaultPool,
    Kernel,
    /// The kernel with its neighbour scan forced onto the portable SIMD path.
    KernelPortable,
    KdTree,
    Kiddo,
    Brute,
}

impl Method {
    const ALL: [Method; 8] = [
        Method::Plugin,
        Method::BareApp,
        Method::PluginDefaultPool,
        Method::Kernel,
        Method::KernelPortable,
        Method::KdTree,
        Method::Kiddo,
        Method::Brute,
    ];

    fn name(self) -> &'static str {
        match self {
            Method::Plugin => "plugin",
            Method::BareApp => "bevy-update",
            Method::PluginDefaultPool => "plugin-default-pool",
            Method::Kernel => "kernel",
            Method::KernelPortable => "kernel-portable",
            Method::KdTree => "kd-tree",
            Method::Kiddo => "kiddo",
            Method::Brute => "brute",
        }
    }
}

/// One measured case.
struct Row {
    method: Method,
    space: Space,
    agents: usize,
    threads: usize,
    /// Every measured tick time, sorted.
    times: Vec<Duration>,
    /// Median, 10th and 90th percentile of the tick time.
    median: Duration,
    p10: Duration,
    p90: Duration,
    /// Mean neighbours found per agent over the measured ticks.
    neighbours: f32,
    /// Mean candidates (distance tests) per agent, where the method exposes it.
    candidates: Option<f32>,
}

impl Row {
    fn same_case(&self, other: &Row) -> bool {
        (self.method, self.space, self.agents, self.threads)
            == (other.method, other.space, other.agents, other.threads)
    }

    /// Adds the ticks of another run of the same case.
    fn pool(&mut self, other: Row) {
        self.times.extend(other.times);
        self.times.sort_unstable();
        self.set_quantiles();
    }

    fn set_quantiles(&mut self) {
        let at = |q: f64| self.times[((self.times.len() - 1) as f64 * q).round() as usize];
        (self.median, self.p10, self.p90) = (at(0.5), at(0.1), at(0.9));
    }

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    fn line(&self) -> String {
        let (per_agent, neighbours) = self.per_agent();
        format!(
            "{:>8} {:>2}D {:>7} agents {} thr: median {:8.3} ms (p10 {:.3}, p90 {:.3}), {per_agent:>5} ns/agent, {neighbours:>5} neighbours, {} candidates per agent",
            self.method.name(),
            dims(self.space),
            self.agents,
            self.threads,
            Self::ms(self.median),
            Self::ms(self.p10),
            Self::ms(self.p90),
            self.candidates
                .map_or("n/a".to_owned(), |c| format!("{c:.1}")),
        )
    }

    /// Nanoseconds of the median tick per agent, and neighbours per agent, as printed: `n/a`
    /// for Bevy's update alone, which has no agents.
    fn per_agent(&self) -> (String, String) {
        if self.method == Method::BareApp {
            return ("n/a".to_owned(), "n/a".to_owned());
        }
        (
            format!(
                "{:.0}",
                self.median.as_secs_f64() * 1e9 / self.agents as f64
            ),
            format!("{:.1}", self.neighbours),
        )
    }
}

fn dims(space: Space) -> u8 {
    match space {
        Space::Volume => 3,
        Space::Planar => 2,
    }
}

/// Keeps the compute pool's threads waking and sleeping for [`WARM_UP_TIME`], as ticks do,
/// without running a tick (which would move the workload on).
fn wake_cores() {
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let started = Instant::now();
    while started.elapsed() < WARM_UP_TIME {
        pool.scope(|scope| {
            for _ in 0..pool.thread_num() * 4 {
                scope.spawn(async {
                    let spin = Instant::now();
                    while spin.elapsed() < Duration::from_micros(20) {
                        core::hint::spin_loop();
                    }
                });
            }
        });
    }
}

/// Runs `tick` after the cores are woken (see [`wake_cores`]) for a few warm-up ticks and then `ticks` measured ones,
/// each after `pause`; returns the times.
fn time_ticks(ticks: usize, pause: Duration, mut tick: impl FnMut()) -> Vec<Duration> {
    wake_cores();
    for _ in 0..WARM_UP_TICKS {
        tick();
    }
    (0..ticks)
        .map(|_| {
            std::thread::sleep(pause);
            let started = Instant::now();
            tick();
            started.elapsed()
        })
        .collect()
}

/// Finishes `app` and times its updates (see [`time_ticks`]).
fn time_updates(app: &mut App, ticks: usize, pause: Duration) -> Vec<Duration> {
    app.finish();
    app.cleanup();
    time_ticks(ticks, pause, || app.update())
}

fn row(
    method: Method,
    workload: &Workload,
    threads: usize,
    mut times: Vec<Duration>,
    neighbours: f32,
    candidates: Option<f32>,
) -> Row {
    times.sort_unstable();
    let mut row = Row {
        method,
        space: workload.space,
        agents: workload.len(),
        threads,
        times,
        median: Duration::ZERO,
        p10: Duration::ZERO,
        p90: Duration::ZERO,
        neighbours,
        candidates,
    };
    row.set_quantiles();
    row
}

/// The plugins with their defaults, on the plane for a planar workload.
fn flocking_plugins(space: Space) -> FlockingPlugins {
    match space {
        Space::Volume => FlockingPlugins::default(),
        Space::Planar => FlockingPlugins::default().planar(),
    }
}

/// A headless app with the plugin, its compute pool given every core, and one fixed tick per
/// update.
fn plugin_app(space: Space, cores: usize) -> App {
    let mut app = headless_app(cores);
    app.add_plugins(flocking_plugins(space));
    app
}

/// A headless app, its compute pool given every core, and one fixed tick per update: the
/// plugin's app without the plugin.
fn headless_app(cores: usize) -> App {
    let mut app = App::new();
    // Bevy's default split of 2 cores leaves the compute pool 1 thread, on which the
    // systems themselves run; give it every core, as a game on a larger machine has.
    let one = |threads| TaskPoolThreadAssignmentPolicy {
        min_threads: threads,
        max_threads: threads,
        percent: 1.0,
        on_thread_spawn: None,
        on_thread_destroy: None,
    };
    let task_pool_options = TaskPoolOptions {
        io: one(1),
        async_compute: one(1),
        compute: one(cores),
        ..TaskPoolOptions::with_num_threads(cores + 2)
    };
    app.add_plugins(MinimalPlugins.set(TaskPoolPlugin { task_pool_options }))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

/// The update of [`bench_plugin`]'s app without the plugin and its agents: Bevy's own part of
/// every plugin tick.
fn bench_bare_app(
    workload: &Workload,
    threads: usize,
    cores: usize,
    ticks: usize,
    pause: Duration,
) -> Row {
    let times = time_updates(&mut headless_app(cores), ticks, pause);
    row(Method::BareApp, workload, threads, times, 0.0, None)
}

/// The plugin tick, on `threads` of the compute pool's `cores` threads, each tick after
/// `pause` (untimed).
fn bench_plugin(
    workload: &Workload,
    threads: usize,
    cores: usize,
    ticks: usize,
    pause: Duration,
) -> Row {
    let mut app = plugin_app(workload.space, cores);
    if threads == 1 {
        // Otherwise the plugin's default split, as a game gets it.
        app.world_mut()
            .resource_mut::<FlockingConfig>()
            .parallel_chunk_size = Some(usize::MAX);
    }
    workload.spawn_agents(&mut app);
    let times = time_updates(&mut app, ticks, pause);
    let neighbours = app.world().resource::<FlockMetrics>().mean_neighbours;
    let candidates = app
        .world()
        .resource::<FlockSimulation>()
        .crowd()
        .candidates_per_agent();
    row(
        Method::Plugin,
        workload,
        threads,
        times,
        neighbours,
        Some(candidates),
    )
}

/// The flag that makes the benchmark measure the plugin with Bevy's default task pools and
/// print the row for its parent process (see [`bench_plugin_default_pool`]).
const CHILD_FLAG: &str = "--default-pool-child";

/// The plugin tick in an app with Bevy's default task pools, as a game gets them, each after
/// `pause`: measured in a child process (`in_process` when this already is one, or the run
/// narrowed to it), whose compute pool Bevy sizes from the machine's cores. `None` if the child
/// failed.
fn bench_plugin_default_pool(
    workload: &Workload,
    ticks: usize,
    pause: Duration,
    in_process: bool,
) -> Option<Row> {
    if in_process {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .add_plugins(flocking_plugins(workload.space))
            .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
        workload.spawn_agents(&mut app);
        let times = time_updates(&mut app, ticks, pause);
        let threads = ComputeTaskPool::get().thread_num();
        let neighbours = app.world().resource::<FlockMetrics>().mean_neighbours;
        let candidates = app
            .world()
            .resource::<FlockSimulation>()
            .crowd()
            .candidates_per_agent();
        return Some(row(
            Method::PluginDefaultPool,
            workload,
            threads,
            times,
            neighbours,
            Some(candidates),
        ));
    }
    let output = std::process::Command::new(std::env::current_exe().ok()?)
        .args([
            CHILD_FLAG,
            "--agents",
            &workload.len().to_string(),
            "--space",
            &format!("{}d", dims(workload.space)),
            "--ticks",
            &ticks.to_string(),
            "--pause-ms",
            &pause.as_millis().to_string(),
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().find_map(|l| l.strip_prefix("ROW "))?;
    let fields: Vec<&str> = line.split(' ').collect();
    let [threads, neighbours, candidates, times] = fields[..] else {
        return None;
    };
    let times = times
        .split(',')
        .map(|ns| ns.parse().map(Duration::from_nanos))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    Some(row(
        Method::PluginDefaultPool,
        workload,
        threads.parse().ok()?,
        times,
        neighbours.parse().ok()?,
        candidates.parse().ok(),
    ))
}

/// `--pause-ms N` in `args`: the sleep before each timed plugin tick, as a game's frame leaves
/// the cores idle between ticks (none without the flag or a number after it).
fn pause_of(args: &[String]) -> Duration {
    let ms = args
        .iter()
        .position(|a| a == "--pause-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|ms| ms.parse().ok());
    Duration::from_millis(ms.unwrap_or(0))
}

/// The child's side of [`bench_plugin_default_pool`]: measures and prints one `ROW` line.
fn run_default_pool_child(args: &[String]) {
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let agents = value_of("--agents")
        .and_then(|n| n.parse().ok())
        .expect("--agents N");
    let space = match value_of("--space").as_deref() {
        Some("2d") => Space::Planar,
        _ => Space::Volume,
    };
    let ticks = value_of("--ticks")
        .and_then(|n| n.parse().ok())
        .expect("--ticks N");
    let pause = pause_of(args);
    let row = bench_plugin_default_pool(&Workload::new(agents, space), ticks, pause, true)
        .expect("measured in this process");
    let times: Vec<String> = row.times.iter().map(|t| t.as_nanos().to_string()).collect();
    println!(
        "ROW {} {} {} {}",
        row.threads,
        row.neighbours,
        row.candidates.unwrap_or(f32::NAN),
        times.join(",")
    );
}

/// Splits each pass into one part per thread on Bevy's compute task pool, whose threads stay
/// up between passes (scoped threads would be spawned anew for each of a tick's three passes).
struct PoolParts(usize);

impl ChunkExecutor for PoolParts {
    fn chunk_len(&self, len: usize) -> usize {
        len.div_ceil(self.0.max(1))
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        ComputeTaskPool::get_or_init(TaskPool::default).scope(|scope| {
            for k in 0..tasks {
                scope.spawn(async move { task(k) });
            }
        });
    }
}

fn bench_kernel(workload: &Workload, threads: usize, ticks: usize, simd: SimdPath) -> Row {
    let mut crowd = workload.crowd();
    assert!(crowd.set_simd_path(simd), "{simd:?} is not supported here");
    if threads > 1 {
        crowd.set_executor(PoolParts(threads));
    }
    let times = time_ticks(ticks, Duration::ZERO, || crowd.step(DT));
    let neighbours = crowd.metrics().mean_neighbours;
    let candidates = crowd.candidates_per_agent();
    let method = if simd == SimdPath::detect() {
        Method::Kernel
    } else {
        Method::KernelPortable
    };
    row(
        method,
        workload,
        threads,
        times,
        neighbours,
        Some(candidates),
    )
}

/// Runs `query(i)` for every agent, split over `threads` scoped threads; returns the sum.
fn for_all_agents(n: usize, threads: usize, query: impl Fn(usize) -> usize + Sync) -> usize {
    if threads == 1 {
        return (0..n).map(&query).sum();
    }
    let part = n.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let query = &query;
                scope.spawn(move || {
                    (t * part..((t + 1) * part).min(n))
                        .map(query)
                        .sum::<usize>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    })
}

/// Times a method that only finds neighbours: `tick` rebuilds its structure and returns the
/// neighbours found over all agents.
fn bench_search(
    method: Method,
    workload: &Workload,
    threads: usize,
    ticks: usize,
    candidates: Option<f32>,
    mut tick: impl FnMut() -> usize,
) -> Row {
    let mut found = 0;
    let times = time_ticks(ticks, Duration::ZERO, || found = tick());
    let neighbours = found as f32 / workload.len() as f32;
    row(method, workload, threads, times, neighbours, candidates)
}

fn bench_kd_tree(workload: &Workload, threads: usize, ticks: usize) -> Row {
    let n = workload.len();
    bench_search(Method::KdTree, workload, threads, ticks, None, || {
        let items: Vec<([f32; 3], u32)> = workload
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| (p.to_array(), i as u32))
            .collect();
        let tree = kd_tree::KdTree::build_by_ordered_float(items);
        for_all_agents(n, threads, |i| {
            // Minus the agent itself, which every radius query returns.
            tree.within_radius(&workload.positions[i].to_array(), RADIUS)
                .len()
                - 1
        })
    })
}

fn bench_kiddo(workload: &Workload, threads: usize, ticks: usize) -> Row {
    let n = workload.len();
    let points: Vec<[f32; 3]> = workload.positions.iter().map(|p| p.to_array()).collect();
    bench_search(Method::Kiddo, workload, threads, ticks, None, || {
        let tree: kiddo::ImmutableKdTree<f32, 3> =
            kiddo::ImmutableKdTree::new_from_slice(&points).expect("build kiddo tree");
        for_all_agents(n, threads, |i| {
            tree.query(&points[i])
                .within::<kiddo::SquaredEuclidean<f32>>(RADIUS * RADIUS)
                .unsorted()
                .execute()
                .len()
                - 1
        })
    })
}

fn bench_brute(workload: &Workload, threads: usize, ticks: usize) -> Row {
    let n = workload.len();
    let positions = &workload.positions;
    let candidates = Some(n as f32 - 1.0);
    bench_search(Method::Brute, workload, threads, ticks, candidates, || {
        for_all_agents(n, threads, |i| {
            let p = positions[i];
            positions
                .iter()
                .filter(|q| q.distance_squared(p) <= RADIUS * RADIUS)
                .count()
                - 1
        })
    })
}

fn find(rows: &[Row], method: Method, space: Space, agents: usize, threads: usize) -> Option<&Row> {
    rows.iter().find(|r| {
        r.method == method && r.space == space && r.agents == agents && r.threads == threads
    })
}

/// Which of a case's three limits (must, target, stretch) `value` meets: at most the limit, or
/// at least it where `higher_is_better`.
fn met(value: f64, limits: [f64; 3], higher_is_better: bool) -> String {
    let met: Vec<&str> = ["must", "target", "stretch"]
        .into_iter()
        .zip(limits)
        .filter(|&(_, limit)| {
            if higher_is_better {
                value >= limit
            } else {
                value <= limit
            }
        })
        .map(|(name, _)| name)
        .collect();
    if met.is_empty() {
        "none".to_owned()
    } else {
        met.join(", ")
    }
}

/// The table of the speed issue's targets, from the sweep's `rows`, the squads' and the
/// clumped crowds'.
fn targets_section(
    rows: &[Row],
    squads_rows: &[squads::SquadsRow],
    clumped_rows: &[clumped::ClumpedRow],
) -> String {
    let mut out = String::from(
        "## Targets\n\nThe speed issue's targets, from the sections below (3D, 2 threads \
         unless said).\n\n| case | must | target | stretch | measured | meets |\n\
         |---|---:|---:|---:|---:|---|\n",
    );
    let mut line = |case: String, limits: [f64; 3], value: Option<f64>, unit: &str, higher| {
        let [must, target, stretch] = limits;
        let measured = value.map_or("n/a".to_owned(), |v| format!("{v:.3}{unit}"));
        let meets = value.map_or("n/a".to_owned(), |v| met(v, limits, higher));
        let _ = writeln!(
            out,
            "| {case} | {must}{unit} | {target}{unit} | {stretch}{unit} | {measured} | {meets} |"
        );
    };
    let plugin = |n| find(rows, Method::Plugin, Space::Volume, n, 2).map(|r| r.median);
    for (n, limits) in TICK_TARGETS {
        let ms = plugin(n).map(Row::ms);
        line(format!("plugin tick, {n} agents"), limits, ms, " ms", false);
    }
    let kd_ratio = find(rows, Method::KdTree, Space::Volume, 50_000, 2)
        .zip(plugin(50_000))
        .map(|(t, p)| t.median.as_secs_f64() / p.as_secs_f64());
    line(
        "kd-tree over plugin, 50000 agents".to_owned(),
        KD_TREE_TARGETS,
        kd_ratio,
        "x",
        true,
    );
    let ecs_share = find(rows, Method::Kernel, Space::Volume, 100_000, 2)
        .zip(plugin(100_000))
        .map(|(k, p)| 100.0 * (1.0 - k.median.as_secs_f64() / p.as_secs_f64()));
    line(
        "ECS share of the plugin tick, 100000 agents".to_owned(),
        ECS_SHARE_TARGETS,
        ecs_share,
        "%",
        false,
    );
    let squads_ms = squads::flocking_time(squads_rows, 128, 1_024).map(Row::ms);
    line(
        "squads: 1024 units on the 128 x 128 map, whole update (2D)".to_owned(),
        SQUADS_TARGETS,
        squads_ms,
        " ms",
        false,
    );
    line(
        "50000 agents in a unit cube over spread, plugin tick".to_owned(),
        CLUMPED_TARGETS,
        clumped::plugin_ratio(clumped_rows),
        "x",
        false,
    );
    out
}

fn report(rows: &[Row], targets: &str, ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let simd = SimdPath::detect();
    let warm_up_ms = WARM_UP_TIME.as_millis();
    let _ = writeln!(
        out,
        "# Benchmarks\n\nWritten by `cargo run --release -p flock_bench` on {cpu}, {cores} cores, \
         default compile target; the neighbour scan ran on the `{simd:?}` path, chosen at run \
         time (`kernel-portable` forces the portable one). Median tick time (with the 10th and 90th percentiles) over \
         {rounds} rounds of {ticks} ticks after {WARM_UP_TICKS} warm-up ticks, the compute \
         pool's threads first kept waking for {warm_up_ms} ms (a core left idle is slow to wake \
         for the first ticks); the rounds sweep every case in turn, so that a slow spell of the \
         shared machine lands on every method.\n\n\
         **Workload**: N agents uniform in a cube (square in 2D) sized for about {NEIGHBOURS} \
         neighbours within radius {RADIUS}, random headings at speed {SPEED}, the default rules; \
         every method starts from the same seeded positions. `plugin` is the \
         whole `FlockingPlugins` tick in a headless Bevy app whose compute pool has a thread per \
         core (its 1-thread rows run each pass as one task, `parallel_chunk_size: \
         Some(usize::MAX)`, on the calling thread); `bevy-update` the same app without the plugin or its agents (its `agents` \
         column the size it stands beside), Bevy's own part of each plugin tick; \
         `plugin-default-pool` the plugin with Bevy's default task pools, as a game gets them \
         (its threads column is the compute pool's size); `kernel` is `Crowd` alone (grid, \
         forces, integration); `kd-tree` (0.6, what bevy_spatial wraps) and `kiddo` rebuild a \
         tree and run one within-radius query per agent; `brute` tests every pair. \
         *neighbours* is found per agent, *candidates* the distance tests per agent.\n"
    );
    out.push_str(targets);
    out.push('\n');
    for space in [Space::Volume, Space::Planar] {
        let _ = writeln!(
            out,
            "## {}D\n\n| method | agents | threads | median ms | p10 ms | p90 ms | ns / agent | neighbours | candidates |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            dims(space)
        );
        for method in Method::ALL {
            for r in rows
                .iter()
                .filter(|r| r.method == method && r.space == space)
            {
                let (per_agent, neighbours) = r.per_agent();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {per_agent} | {neighbours} | {} |",
                    method.name(),
                    r.agents,
                    r.threads,
                    Row::ms(r.median),
                    Row::ms(r.p10),
                    Row::ms(r.p90),
                    r.candidates.map_or("n/a".to_owned(), |c| format!("{c:.1}"))
                );
            }
        }
        out.push('\n');
    }

    let _ = writeln!(
        out,
        "## Derived figures (3D, 2 threads)\n\n| agents | plugin ms | of which Bevy's update ms | kd-tree ms | kd-tree / plugin | ECS share of the plugin tick | plugin, default pools ms | kernel, portable scan / detected |\n|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let sizes: Vec<usize> = {
        let mut s: Vec<usize> = rows.iter().map(|r| r.agents).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    for &n in &sizes {
        let get = |m| find(rows, m, Space::Volume, n, 2);
        if let (Some(p), Some(k), Some(t)) = (
            get(Method::Plugin),
            get(Method::Kernel),
            get(Method::KdTree),
        ) {
            let default_pool = rows
                .iter()
                .find(|r| {
                    r.method == Method::PluginDefaultPool
                        && r.space == Space::Volume
                        && r.agents == n
                })
                .map_or("n/a".to_owned(), |r| {
                    format!("{:.3} ({} thr)", Row::ms(r.median), r.threads)
                });
            let portable = get(Method::KernelPortable).map_or("n/a".to_owned(), |r| {
                format!("{:.2}x", r.median.as_secs_f64() / k.median.as_secs_f64())
            });
            let bare = get(Method::BareApp)
                .map_or("n/a".to_owned(), |r| format!("{:.3}", Row::ms(r.median)));
            let _ = writeln!(
                out,
                "| {n} | {:.3} | {bare} | {:.3} | {:.1}x | {:.0}% | {default_pool} | {portable} |",
                Row::ms(p.median),
                Row::ms(t.median),
                t.median.as_secs_f64() / p.median.as_secs_f64(),
                100.0 * (1.0 - k.median.as_secs_f64() / p.median.as_secs_f64()),
            );
        }
    }
    let _ = writeln!(
        out,
        "\nThe ECS share is 1 - kernel / plugin, from medians of separate runs on a shared \
         machine whose tick times spread by up to ±20% (see p10 and p90 above); \
         near zero or below it, the difference is inside that noise."
    );
    let per_agent = |n| {
        find(rows, Method::Plugin, Space::Volume, n, 2).map(|r| r.median.as_secs_f64() / n as f64)
    };
    if let (Some(small), Some(large)) = (per_agent(10_000), per_agent(100_000)) {
        let _ = writeln!(
            out,
            "\nPlugin cost per agent at 100k over that at 10k: {:.2}x (flat scaling is 1).",
            large / small
        );
    }
    let _ = writeln!(out, "\n![ms per tick against agents](benchmarks.svg)");
    out
}

fn plot(rows: &[Row], path: &str) {
    use plotters::prelude::*;

    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).expect("fill");
    let max_n = rows.iter().map(|r| r.agents).max().unwrap_or(1) as f64;
    let times = rows.iter().map(|r| Row::ms(r.median));
    let max_ms = times.clone().fold(0.01, f64::max);
    let min_ms = times.fold(f64::INFINITY, f64::min).min(max_ms);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Tick time against agents (3D, ~25 neighbours)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (500.0..max_n * 1.5).log_scale(),
            (min_ms * 0.5..max_ms * 2.0).log_scale(),
        )
        .expect("chart");
    chart
        .configure_mesh()
        .x_desc("agents")
        .x_label_formatter(&|n| format!("{n:.0}"))
        .y_desc("ms per tick (median)")
        .draw()
        .expect("mesh");
    let colours = [
        RED,
        RGBColor(128, 128, 128),
        RGBColor(230, 120, 0),
        BLUE,
        CYAN,
        GREEN,
        MAGENTA,
        BLACK,
    ];
    for (method, colour) in Method::ALL.into_iter().zip(colours) {
        for threads in [1, 2] {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.method == method && r.space == Space::Volume && r.threads == threads)
                .map(|r| (r.agents as f64, Row::ms(r.median)))
                .collect();
            if points.is_empty() {
                continue;
            }
            let style = if threads == 1 {
                colour.stroke_width(1)
            } else {
                colour.stroke_width(3)
            };
            chart
                .draw_series(LineSeries::new(points.clone(), style))
                .expect("series")
                .label(format!("{} ({} thr)", method.name(), threads))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 3, colour.filled())),
                )
                .expect("points");
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .expect("legend");
    root.present().expect("write svg");
}
