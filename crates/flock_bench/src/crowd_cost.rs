//! What the velocity-obstacle step costs the plugin's tick on the sweep's workload: off, in
//! each mode, and `Reciprocal` with the pedestrian recipe's time gap to the body ahead.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::{FlockTuning, Space, VelocityObstacles};

use crate::harness::{median, plugin_app};
use crate::workload::Workload;

/// The crowd sizes at which the step's cost is measured.
pub const COST_AGENTS: [usize; 2] = [10_000, 50_000];

/// The step's settings measured, in turn: off, `Reciprocal`, `Solid`, and `Reciprocal` with
/// the pedestrian recipe's time gap.
const SETTINGS: usize = 4;

/// The cost of the step on the sweep's 3D workload in the plugin, 2 threads: the tick's
/// median with the step off and with each setting, the settings taking turns of two ticks
/// (see `interleaved_ticks`).
pub struct CostRow {
    agents: usize,
    /// Off, `Reciprocal`, `Solid`, `Reciprocal` with the time gap.
    medians: [Duration; SETTINGS],
}

/// The perception of each setting measured.
fn settings() -> [Perception; SETTINGS] {
    let with = |velocity_obstacles, time_gap| Perception {
        velocity_obstacles,
        time_gap,
        ..default()
    };
    let gap = FlockTuning::pedestrian().perception.time_gap;
    [
        with(VelocityObstacles::Off, 0.0),
        with(VelocityObstacles::Reciprocal, 0.0),
        with(VelocityObstacles::Solid, 0.0),
        with(VelocityObstacles::Reciprocal, gap),
    ]
}

/// The plugin's tick times with each setting, taking turns in one app, so that a slow spell of
/// the shared machine lands on each alike (separate apps run one after the other measured the
/// tick without the step up to 40% apart between runs, more than the step's cost changed).
/// Each turn is two ticks, the second measured: a game keeps its mode from tick to tick, and
/// the first tick after a switch pays for it (the flock's tuning prepared again, and with the
/// step on, the force pass of a tick after one without it offers every neighbour to the
/// nearest kept, with no ceiling from the tick before).
fn interleaved_ticks(agents: usize, ticks: usize) -> [Vec<Duration>; SETTINGS] {
    const WARM_UP: usize = 2;
    let workload = Workload::new(agents, Space::Volume);
    let mut app = plugin_app(Space::Volume, 2);
    workload.spawn_agents(&mut app);
    app.finish();
    app.cleanup();
    let flock = **app.world().resource::<DefaultFlock>();
    let mut times: [Vec<Duration>; SETTINGS] = Default::default();
    for tick in 0..WARM_UP + ticks {
        for (perception, times) in settings().into_iter().zip(&mut times) {
            app.world_mut().entity_mut(flock).insert(perception);
            app.update();
            let started = Instant::now();
            app.update();
            if tick >= WARM_UP {
                times.push(started.elapsed());
            }
        }
    }
    times
}

/// The cost rows, for each crowd size of `sizes`: `rounds` rounds of `ticks` measured ticks.
pub fn measure_costs(ticks: usize, rounds: usize, sizes: &[usize]) -> Vec<CostRow> {
    let mut costs = Vec::new();
    for &agents in sizes {
        let mut pooled: [Vec<Duration>; SETTINGS] = Default::default();
        for _ in 0..rounds {
            for (all, round) in pooled.iter_mut().zip(interleaved_ticks(agents, ticks)) {
                all.extend(round);
            }
        }
        let medians = pooled.map(median);
        let row = CostRow { agents, medians };
        println!("cost {} agents: {}", row.agents, row.cells());
        costs.push(row);
    }
    costs
}

impl CostRow {
    /// The row's cells after the agents: each median, then each setting's over the step off.
    fn cells(&self) -> String {
        let [off, rest @ ..] = self.medians.map(ms);
        let times = rest.iter().map(|t| format!("{t:.3}"));
        let ratios = rest.iter().map(|t| format!("{:.2}", t / off));
        let cells: Vec<String> = std::iter::once(format!("{off:.3}"))
            .chain(times)
            .chain(ratios)
            .collect();
        cells.join(" | ")
    }
}

/// The cost table, with what it measured: `costs` of `rounds` rounds of `ticks` ticks.
pub fn cost_table(costs: &[CostRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nWhat the step costs: the plugin's whole tick on the sweep's 3D workload (about 25 \
         neighbours each, the default rules, 2 threads), with `velocity_obstacles` off, in each \
         mode, and `Reciprocal` with the pedestrian recipe's time gap to the body ahead \
         (`Perception::time_gap` 0.6 s), the four taking turns in one app, each turn two ticks \
         of which the second is measured; medians of {rounds} rounds of {ticks} ticks.\n\n\
         | agents | tick ms, off | Reciprocal | Solid | Reciprocal, time gap | Reciprocal / off \
         | Solid / off | time gap / off |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for c in costs {
        let _ = writeln!(out, "| {} | {} |", c.agents, c.cells());
    }
    out
}

/// `d` in milliseconds.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
