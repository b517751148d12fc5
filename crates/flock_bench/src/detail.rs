//! Level of detail (`FlockingConfig::level_of_detail`): what a plugin tick costs when agents
//! far from the focus update only every k-th tick, against every agent every tick, on the
//! same crowd in the same run.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::{Crowd, Space};

use crate::harness::{PoolParts, plugin_app};
use crate::workload::{DT, Workload};

/// Crowd sizes measured (3D, the sweep's density).
const AGENTS: [usize; 2] = [50_000, 100_000];
/// Update intervals of far agents; 1 is level of detail off.
const INTERVALS: [u32; 4] = [1, 2, 4, 8];
/// The share of agents within full detail of the focus.
const NEAR_SHARE: f32 = 0.1;
/// Ticks run before measuring, so that every far agent has a force to keep.
const WARM_UP_TICKS: usize = 16;

/// One measured case.
pub struct DetailRow {
    agents: usize,
    interval: u32,
    tick: Duration,
    /// The kernel's force pass alone, on the same crowd.
    force_pass: Duration,
    /// Share of agents that computed their steering, per tick.
    computed: f32,
}

/// The radius around the origin that holds [`NEAR_SHARE`] of the workload's agents.
fn near_radius(workload: &Workload) -> f32 {
    let mut distances: Vec<f32> = workload.positions.iter().map(|p| p.length()).collect();
    distances.sort_unstable_by(f32::total_cmp);
    distances[(distances.len() as f32 * NEAR_SHARE) as usize]
}

/// Level of detail around the origin with far agents every `interval` ticks (off for 1).
fn detail(workload: &Workload, interval: u32) -> Option<LevelOfDetail> {
    (interval > 1).then(|| LevelOfDetail {
        near_radius: near_radius(workload),
        interval,
    })
}

/// A kernel crowd of the workload with level of detail as [`detail`] gives it, warmed up.
fn detail_crowd(workload: &Workload, interval: u32) -> Crowd {
    let mut crowd = workload.crowd();
    crowd.set_level_of_detail(detail(workload, interval), Vec3::ZERO);
    crowd.set_executor(PoolParts(2));
    for _ in 0..WARM_UP_TICKS {
        crowd.step(DT);
    }
    crowd
}

/// Steps `crowd` once, timing its force pass alone.
fn time_force_pass(crowd: &mut Crowd) -> Duration {
    crowd.build_index();
    let started = Instant::now();
    crowd.accumulate_forces();
    let elapsed = started.elapsed();
    crowd.integrate(DT, None);
    elapsed
}

/// A plugin app with the workload, a focus at the origin, and level of detail on with
/// `interval` (off for 1), warmed up.
fn detail_app(workload: &Workload, interval: u32, cores: usize) -> App {
    let mut app = plugin_app(Space::Volume, cores);
    workload.spawn_agents(&mut app);
    app.world_mut().spawn(DetailFocus);
    app.world_mut()
        .resource_mut::<FlockingConfig>()
        .level_of_detail = detail(workload, interval);
    app.finish();
    app.cleanup();
    for _ in 0..WARM_UP_TICKS {
        app.update();
    }
    app
}

/// One interval's plugin app and kernel crowd, and what was measured of them.
struct Case {
    interval: u32,
    app: App,
    crowd: Crowd,
    steps: Vec<Duration>,
    passes: Vec<Duration>,
    computed: f32,
}

/// Measures every case, pooling `rounds` interleaved rounds of `ticks` ticks into medians.
pub fn measure(ticks: usize, rounds: usize) -> Vec<DetailRow> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut rows = Vec::new();
    for agents in AGENTS {
        let workload = Workload::new(agents, Space::Volume);
        let mut cases: Vec<Case> = INTERVALS
            .into_iter()
            .map(|interval| Case {
                interval,
                app: detail_app(&workload, interval, cores),
                crowd: detail_crowd(&workload, interval),
                steps: Vec::new(),
                passes: Vec::new(),
                computed: 0.0,
            })
            .collect();
        for _ in 0..rounds {
            for Case {
                app,
                crowd,
                steps,
                passes,
                computed,
                ..
            } in &mut cases
            {
                for _ in 0..ticks {
                    passes.push(time_force_pass(crowd));
                    app.update();
                    steps.push(app.world().resource::<FlockMetrics>().step_time);
                    let reused = app
                        .world()
                        .resource::<FlockSimulation>()
                        .crowd()
                        .reused_forces();
                    *computed += 1.0 - reused as f32 / agents as f32;
                }
            }
        }
        for mut case in cases {
            case.steps.sort_unstable();
            case.passes.sort_unstable();
            rows.push(DetailRow {
                agents,
                interval: case.interval,
                tick: case.steps[case.steps.len() / 2],
                force_pass: case.passes[case.passes.len() / 2],
                computed: case.computed / case.steps.len() as f32,
            });
        }
    }
    rows
}

impl DetailRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "detail {:>6} agents, far every {} ticks: tick {:.2} ms, force pass {:.2} ms, {:.0}% computed their steering",
            self.agents,
            self.interval,
            self.tick.as_secs_f64() * 1e3,
            self.force_pass.as_secs_f64() * 1e3,
            self.computed * 100.0
        )
    }
}

/// The report's section on level of detail.
pub fn section(rows: &[DetailRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Level of detail (plugin, 3D, 2 threads)\n\n\
         The sweep's 3D crowds with a `DetailFocus` at their centre and full detail for the \
         nearest {:.0}% of agents; the others compute their steering every k-th tick \
         (k = 1: level of detail off). Medians of {rounds} interleaved rounds of {ticks} \
         ticks after {WARM_UP_TICKS} of warm-up. \"Tick\" is the plugin's whole tick \
         (copying agents in and out, the grid, integration, which every agent still needs); \
         \"force pass\" is the kernel's force pass alone on the same crowd, the part level of \
         detail saves on. \"Computed\" is the share of agents that ran the force pass per \
         tick, \"expected\" is near + far / k.\n\n\
         | agents | far every k ticks | tick ms | vs k = 1 | force pass ms | vs k = 1 | computed | expected |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|",
        NEAR_SHARE * 100.0
    );
    for r in rows {
        let full = rows
            .iter()
            .find(|f| f.agents == r.agents && f.interval == 1)
            .unwrap_or(r);
        let expected = NEAR_SHARE + (1.0 - NEAR_SHARE) / r.interval as f32;
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0}% | {:.0}% |",
            r.agents,
            r.interval,
            r.tick.as_secs_f64() * 1e3,
            r.tick.as_secs_f64() / full.tick.as_secs_f64(),
            r.force_pass.as_secs_f64() * 1e3,
            r.force_pass.as_secs_f64() / full.force_pass.as_secs_f64(),
            r.computed * 100.0,
            expected * 100.0
        );
    }
    out
}
