//! Clumped crowds: what a tick costs when every agent is packed into a tiny box, against the
//! same agents spread at the sweep's density.
//!
//! The neighbour cap bounds the force pass (an agent stops scanning after a fixed number of
//! candidates in range); this section checks that the whole tick stays bounded too: lookup,
//! forces and integration, and with `Perception::velocity_obstacles` the crowd step, which
//! avoids the nearest ten of the candidates the cap took in rather than scan everyone.
//! Separation scatters a clump within a few ticks, so every measured tick starts again from the
//! clumped positions (the reset is not timed).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::{Crowd, FlockTuning, Space, VelocityObstacles};

use crate::harness::{PoolParts, plugin_app};
use crate::workload::{Workload, unit_generator};

/// Agents in each case without the crowd step, and its modes: the step's cases at 10,000, the
/// size of the crowd-cost table.
const CASES: [(VelocityObstacles, usize); 4] = [
    (VelocityObstacles::Off, 50_000),
    (VelocityObstacles::Off, 10_000),
    (VelocityObstacles::Reciprocal, 10_000),
    (VelocityObstacles::Solid, 10_000),
];
/// The side of the box the clumped agents fill.
const CLUMP_SIDE: f32 = 1.0;
/// Ticks before measuring.
const WARM_UP_TICKS: usize = 2;

/// How the agents are placed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The sweep's density: about 25 neighbours each.
    Spread,
    /// Every agent in a cube of side [`CLUMP_SIDE`].
    Clumped,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Spread => "spread",
            Layout::Clumped => "clumped",
        }
    }
}

/// One measured layout.
pub struct ClumpedRow {
    layout: Layout,
    mode: VelocityObstacles,
    agents: usize,
    plugin: Duration,
    kernel: Duration,
    /// The plugin's first tick (its buffers made, no nearest kept from a tick before).
    first: Duration,
    /// Neighbours per agent in the measured ticks (the cap binds when clumped).
    neighbours: f32,
}

/// The sweep's 3D workload of `agents`, or the same agents and velocities packed into the
/// clump.
fn workload(layout: Layout, agents: usize) -> Workload {
    let mut workload = Workload::new(agents, Space::Volume);
    if layout == Layout::Clumped {
        let mut unit = unit_generator(0x5EED_C1A3);
        for p in &mut workload.positions {
            *p = (Vec3::new(unit(), unit(), unit()) - 0.5) * CLUMP_SIDE;
        }
    }
    workload
}

/// One layout's plugin app (every agent's entity, to put it back each tick) and kernel crowd.
struct Case {
    layout: Layout,
    tuning: FlockTuning,
    workload: Workload,
    app: App,
    entities: Vec<Entity>,
    crowd: Crowd,
    plugin: Vec<Duration>,
    kernel: Vec<Duration>,
    first: Duration,
    neighbours: f32,
}

impl Case {
    fn new(layout: Layout, (mode, agents): (VelocityObstacles, usize), cores: usize) -> Self {
        let workload = workload(layout, agents);
        let mut tuning = FlockTuning::default();
        tuning.perception.velocity_obstacles = mode;
        let mut app = plugin_app(Space::Volume, cores);
        let flock = **app.world().resource::<DefaultFlock>();
        app.world_mut().entity_mut(flock).insert(tuning.perception);
        app.finish();
        app.cleanup();
        // Bevy's first updates run no fixed tick (its clock starts there): run them before the
        // agents come, so that the first timed tick is the flock's first.
        while app.world().resource::<Time<Fixed>>().elapsed().is_zero() {
            app.update();
        }
        let entities = workload.spawn_agents(&mut app);
        let mut crowd = Crowd::new(Space::Volume);
        workload.refill_tuned(&mut crowd, tuning);
        crowd.set_executor(PoolParts(2));
        Self {
            layout,
            tuning,
            workload,
            app,
            entities,
            crowd,
            plugin: Vec::new(),
            kernel: Vec::new(),
            first: Duration::ZERO,
            neighbours: 0.0,
        }
    }

    /// Puts every agent back where the workload starts it.
    fn reset(&mut self) {
        let world = self.app.world_mut();
        for (k, &entity) in self.entities.iter().enumerate() {
            let mut agent = world.entity_mut(entity);
            agent.insert((
                Transform::from_translation(self.workload.positions[k]),
                Velocity(self.workload.velocities[k]),
            ));
        }
        // Refilled rather than made anew, so that its buffers are not allocated in the step.
        self.workload.refill_tuned(&mut self.crowd, self.tuning);
    }

    /// One plugin tick and one kernel step from the start, timed (not the resets).
    fn tick(&mut self) -> (Duration, Duration) {
        self.reset();
        let started = Instant::now();
        self.app.update();
        let plugin = started.elapsed();
        let started = Instant::now();
        self.crowd.step(crate::workload::DT);
        (plugin, started.elapsed())
    }
}

/// Measures both layouts of each of the [`CASES`], pooling `rounds` interleaved rounds of
/// `ticks` ticks into medians.
pub fn measure(ticks: usize, rounds: usize) -> Vec<ClumpedRow> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut cases: Vec<Case> = (CASES.iter())
        .flat_map(|&case| [Layout::Spread, Layout::Clumped].map(|l| Case::new(l, case, cores)))
        .collect();
    for case in &mut cases {
        case.first = case.tick().0;
        for _ in 1..WARM_UP_TICKS {
            case.tick();
        }
    }
    for _ in 0..rounds {
        for case in &mut cases {
            for _ in 0..ticks {
                let (plugin, kernel) = case.tick();
                case.plugin.push(plugin);
                case.kernel.push(kernel);
                case.neighbours += case.crowd.metrics().mean_neighbours;
            }
        }
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort_unstable();
        times[times.len() / 2]
    };
    cases
        .into_iter()
        .map(|mut case| ClumpedRow {
            layout: case.layout,
            mode: case.tuning.perception.velocity_obstacles,
            agents: case.workload.len(),
            first: case.first,
            plugin: median(&mut case.plugin),
            kernel: median(&mut case.kernel),
            neighbours: case.neighbours / case.plugin.len() as f32,
        })
        .collect()
}

impl ClumpedRow {
    /// The row's mode, as the tables name it.
    fn mode_name(&self) -> &'static str {
        match self.mode {
            VelocityObstacles::Off => "no crowd step",
            VelocityObstacles::Reciprocal => "Reciprocal",
            VelocityObstacles::Solid => "Solid",
        }
    }

    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "clumped {:>7} {} agents, {}: plugin {:.2} ms (first {:.1} ms), kernel {:.2} ms, \
             {:.1} neighbours",
            self.layout.name(),
            self.agents,
            self.mode_name(),
            ms(self.plugin),
            ms(self.first),
            ms(self.kernel),
            self.neighbours
        )
    }

    /// The row of the same case spread, among `rows`.
    fn spread<'a>(&self, rows: &'a [ClumpedRow]) -> Option<&'a ClumpedRow> {
        rows.iter()
            .find(|r| r.layout == Layout::Spread && r.mode == self.mode && r.agents == self.agents)
    }
}

/// `d` in milliseconds.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The first case's clumped plugin tick (50,000 agents, no crowd step) over its spread one, if
/// both were measured.
pub fn plugin_ratio(rows: &[ClumpedRow]) -> Option<f64> {
    let (mode, agents) = CASES[0];
    let clumped = rows
        .iter()
        .find(|r| r.layout == Layout::Clumped && r.mode == mode && r.agents == agents)?;
    Some(clumped.plugin.as_secs_f64() / clumped.spread(rows)?.plugin.as_secs_f64())
}

/// The section of the report.
pub fn section(rows: &[ClumpedRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Clumped crowds (3D, 2 threads)\n\n\
         Agents with the sweep's velocities and default rules (neighbour cap 64), without the \
         crowd step and with each mode of `Perception::velocity_obstacles`, spread at the \
         sweep's density or packed into a cube of side {CLUMP_SIDE}, where every agent is within \
         the neighbour radius of every other. Every measured tick starts from the placement \
         (separation scatters a clump in a few ticks); the reset is not timed. Medians of \
         {rounds} interleaved rounds of {ticks} ticks: the whole plugin tick, and the kernel's \
         step alone; \"first\" is the plugin's first tick after the agents were spawned, with no \
         nearest neighbours kept from a tick before. Each clumped row is compared with the same \
         case spread.\n\n\
         | placement | agents | crowd step | plugin ms | vs spread | first tick ms | vs spread \
         | kernel ms | vs spread | neighbours |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let ratio = |f: fn(&ClumpedRow) -> Duration| {
            r.spread(rows).map_or("n/a".to_owned(), |s| {
                format!("{:.2}x", f(r).as_secs_f64() / f(s).as_secs_f64())
            })
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} | {} | {:.1} | {} | {:.2} | {} | {:.1} |",
            r.layout.name(),
            r.agents,
            r.mode_name(),
            ms(r.plugin),
            ratio(|r| r.plugin),
            ms(r.first),
            ratio(|r| r.first),
            ms(r.kernel),
            ratio(|r| r.kernel),
            r.neighbours
        );
    }
    out
}
