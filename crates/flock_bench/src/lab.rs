//! The flocking lab's scene (`examples/flocking_lab`): what one tick costs once the
//! boids have flocked, at the lab's default 1,500 boids and at 5,000.

use std::fmt::Write as _;
use std::time::Duration;

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::Space;

use crate::harness::plugin_app;
use crate::workload::unit_generator;

/// Boid counts measured: the lab's default, and the count it should stay smooth with.
const BOIDS: [usize; 2] = [1_500, 5_000];
/// Ticks run before measuring: the birds order within 12 s (`tests/flocking/lab.rs`), and
/// a flocked crowd, with far more neighbours each, is the dear case.
const WARM_UP_TICKS: usize = 15 * 64;

/// One measured boid count.
pub struct LabRow {
    boids: usize,
    tick: Duration,
    neighbours: f32,
    polarisation: f32,
}

fn lab_app(boids: usize, cores: usize) -> App {
    let mut app = plugin_app(Space::Planar, cores);
    app.finish();
    app.cleanup();
    app.update();
    let flock = **app.world().resource::<DefaultFlock>();
    app.world_mut()
        .entity_mut(flock)
        .insert(FlockTuning::flocking_lab());
    let mut unit = unit_generator(2);
    for _ in 0..boids {
        let position = Vec3::new(
            (unit() * 2.0 - 1.0) * 450.0,
            (unit() * 2.0 - 1.0) * 280.0,
            0.0,
        );
        let angle = unit() * std::f32::consts::TAU;
        let velocity = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 120.0;
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(position),
            Velocity(velocity),
        ));
    }
    for _ in 0..WARM_UP_TICKS {
        app.update();
    }
    app
}

/// Warms each scene up, then pools `rounds` interleaved rounds of `ticks` ticks into medians.
pub fn measure(ticks: usize, rounds: usize) -> Vec<LabRow> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut cases: Vec<(usize, App, Vec<Duration>)> = BOIDS
        .into_iter()
        .map(|boids| (boids, lab_app(boids, cores), Vec::new()))
        .collect();
    for _ in 0..rounds {
        for (_, app, steps) in &mut cases {
            for _ in 0..ticks {
                app.update();
                steps.push(app.world().resource::<FlockMetrics>().step_time);
            }
        }
    }
    cases
        .into_iter()
        .map(|(boids, app, mut steps)| {
            steps.sort_unstable();
            let metrics = app.world().resource::<FlockMetrics>();
            LabRow {
                boids,
                tick: steps[steps.len() / 2],
                neighbours: metrics.mean_neighbours,
                polarisation: metrics.polarisation,
            }
        })
        .collect()
}

impl LabRow {
    /// Milliseconds of simulation per second of play at the plugin's 64 ticks a second.
    fn ms_per_second(&self) -> f64 {
        self.tick.as_secs_f64() * 1e3 * 64.0
    }

    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "lab {:>5} boids: tick {:.3} ms ({:.0} ms per second of play), {:.1} neighbours, polarisation {:.2}",
            self.boids,
            self.tick.as_secs_f64() * 1e3,
            self.ms_per_second(),
            self.neighbours,
            self.polarisation
        )
    }
}

/// The report's section on the lab.
pub fn section(rows: &[LabRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## The flocking lab's scene (plugin, 2D, 2 threads)\n\n\
         `examples/flocking_lab` without rendering: `FlockTuning::flocking_lab()` (vision \
         radius 50, 900 x 560 wrapping field), boids spawned as the lab does, run \
         {WARM_UP_TICKS} ticks (15 s) until they have flocked, then medians of {rounds} \
         interleaved rounds of {ticks} ticks. At 64 ticks a second the simulation takes the \
         share of each second shown; the rest is the game's and the renderer's.\n\n\
         | boids | tick ms | ms per second of play | share of wall time | neighbours each | polarisation |\n\
         |---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {:.3} | {:.0} | {:.0}% | {:.1} | {:.2} |",
            r.boids,
            r.tick.as_secs_f64() * 1e3,
            r.ms_per_second(),
            r.ms_per_second() / 10.0,
            r.neighbours,
            r.polarisation
        );
    }
    out
}
