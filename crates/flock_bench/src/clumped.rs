//! Clumped crowds: what a tick costs when every agent is packed into a tiny box, against the
//! same agents spread at the sweep's density.
//!
//! The neighbour cap bounds the force pass (an agent stops scanning after a fixed number of
//! candidates in range); this section checks that the whole tick stays bounded too: lookup,
//! forces and integration. Separation scatters a clump within a few ticks, so every measured
//! tick starts again from the clumped positions (the reset is not timed).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::{Crowd, Space};

use crate::harness::{PoolParts, plugin_app};
use crate::workload::{Workload, unit_generator};

/// Agents in each case.
const AGENTS: usize = 50_000;
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
    plugin: Duration,
    kernel: Duration,
    /// Neighbours per agent in the measured ticks (the cap binds when clumped).
    neighbours: f32,
}

/// The sweep's 3D workload at [`AGENTS`] agents, or the same agents and velocities packed into
/// the clump.
fn workload(layout: Layout) -> Workload {
    let mut workload = Workload::new(AGENTS, Space::Volume);
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
    workload: Workload,
    app: App,
    entities: Vec<Entity>,
    crowd: Crowd,
    plugin: Vec<Duration>,
    kernel: Vec<Duration>,
    neighbours: f32,
}

impl Case {
    fn new(layout: Layout, cores: usize) -> Self {
        let workload = workload(layout);
        let mut app = plugin_app(Space::Volume, cores);
        let entities = workload.spawn_agents(&mut app);
        app.finish();
        app.cleanup();
        let mut crowd = workload.crowd();
        crowd.set_executor(PoolParts(2));
        Self {
            layout,
            workload,
            app,
            entities,
            crowd,
            plugin: Vec::new(),
            kernel: Vec::new(),
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
        self.workload.refill(&mut self.crowd);
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

/// Measures both layouts, pooling `rounds` interleaved rounds of `ticks` ticks into medians.
pub fn measure(ticks: usize, rounds: usize) -> Vec<ClumpedRow> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut cases = [
        Case::new(Layout::Spread, cores),
        Case::new(Layout::Clumped, cores),
    ];
    for case in &mut cases {
        for _ in 0..WARM_UP_TICKS {
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
            plugin: median(&mut case.plugin),
            kernel: median(&mut case.kernel),
            neighbours: case.neighbours / case.plugin.len() as f32,
        })
        .collect()
}

impl ClumpedRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "clumped {:>7} {} agents: plugin {:.2} ms, kernel {:.2} ms, {:.1} neighbours",
            self.layout.name(),
            AGENTS,
            self.plugin.as_secs_f64() * 1e3,
            self.kernel.as_secs_f64() * 1e3,
            self.neighbours
        )
    }
}

/// The clumped plugin tick over the spread one, if both were measured.
pub fn plugin_ratio(rows: &[ClumpedRow]) -> Option<f64> {
    let tick = |layout| {
        rows.iter()
            .find(|r| r.layout == layout)
            .map(|r| r.plugin.as_secs_f64())
    };
    Some(tick(Layout::Clumped)? / tick(Layout::Spread)?)
}

/// The section of the report.
pub fn section(rows: &[ClumpedRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Clumped crowds (3D, 2 threads)\n\n\
         {AGENTS} agents with the sweep's velocities and default rules (neighbour cap 64), \
         spread at the sweep's density or packed into a cube of side {CLUMP_SIDE}, where every \
         agent is within the neighbour radius of every other. Every measured tick starts from \
         the placement (separation scatters a clump in a few ticks); the reset is not timed. \
         Medians of {rounds} interleaved rounds of {ticks} ticks: the whole plugin tick, and the \
         kernel's step alone.\n\n\
         | placement | agents | plugin ms | vs spread | kernel ms | vs spread | neighbours |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    let spread = rows.iter().find(|r| r.layout == Layout::Spread);
    for r in rows {
        let ratio = |f: fn(&ClumpedRow) -> Duration| {
            spread.map_or("n/a".to_owned(), |s| {
                format!("{:.2}x", f(r).as_secs_f64() / f(s).as_secs_f64())
            })
        };
        let _ = writeln!(
            out,
            "| {} | {AGENTS} | {:.2} | {} | {:.2} | {} | {:.1} |",
            r.layout.name(),
            r.plugin.as_secs_f64() * 1e3,
            ratio(|r| r.plugin),
            r.kernel.as_secs_f64() * 1e3,
            ratio(|r| r.kernel),
            r.neighbours
        );
    }
    out
}
