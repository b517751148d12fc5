//! Obstacle avoidance cost: the kernel's tick with 0, 10 and 100 obstacles among the agents,
//! and the avoidance pass alone.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use flock_core::{Shape, Space};

use crate::{PoolParts, Workload, unit_generator};

/// Agents in the avoidance workload.
pub const AGENTS: usize = 10_000;
/// Radius of each spherical obstacle.
const OBSTACLE_RADIUS: f32 = 2.0;

/// One measured obstacle count.
pub struct AvoidanceRow {
    obstacles: usize,
    tick: Duration,
    pass: Duration,
    avoiding: f32,
}

/// Measures `ticks` ticks for each obstacle count, on `threads` threads.
pub fn measure(ticks: usize, threads: usize) -> Vec<AvoidanceRow> {
    let workload = Workload::new(AGENTS, Space::Volume);
    let half = workload
        .positions
        .iter()
        .fold(Vec3::ZERO, |m, p| m.max(p.abs()));
    [0, 10, 100]
        .into_iter()
        .map(|obstacles| {
            // Obstacles at seeded places among the agents (agents inside one are pushed out
            // in the first tick, before the measured ones).
            let mut unit = unit_generator(0x2545_F491_4F6C_DD1D);
            let shapes: Vec<Shape> = (0..obstacles)
                .map(|_| Shape::Sphere {
                    centre: (Vec3::new(unit(), unit(), unit()) * 2.0 - 1.0) * half,
                    radius: OBSTACLE_RADIUS,
                })
                .collect();
            let mut crowd = workload.crowd();
            crowd.set_obstacles(shapes);
            let executor = PoolParts(threads);
            let (mut tick_times, mut pass_times, mut avoiding) = (Vec::new(), Vec::new(), 0);
            for k in 0..ticks + 2 {
                let started = Instant::now();
                crowd.build_index_on(&executor);
                crowd.accumulate_forces_on(&executor);
                let pass_started = Instant::now();
                let now_avoiding = crowd.avoid_obstacles_on(&executor);
                let pass = pass_started.elapsed();
                crowd.integrate_on(crate::DT, &executor);
                if k >= 2 {
                    tick_times.push(started.elapsed());
                    pass_times.push(pass);
                    avoiding += now_avoiding;
                }
            }
            tick_times.sort_unstable();
            pass_times.sort_unstable();
            AvoidanceRow {
                obstacles,
                tick: tick_times[ticks / 2],
                pass: pass_times[ticks / 2],
                avoiding: avoiding as f32 / ticks as f32,
            }
        })
        .collect()
}

impl AvoidanceRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "avoidance {:>3} obstacles: tick {:.3} ms, avoidance pass {:.3} ms ({:.0} ns/agent), {:.0} agents avoiding",
            self.obstacles,
            ms(self.tick),
            ms(self.pass),
            self.pass.as_secs_f64() * 1e9 / AGENTS as f64,
            self.avoiding
        )
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The report's section on avoidance.
pub fn section(rows: &[AvoidanceRow], ticks: usize, threads: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Obstacle avoidance (kernel, 3D, {AGENTS} agents, {threads} threads)\n\n\
         The workload above at {AGENTS} agents, with spheres of radius {OBSTACLE_RADIUS} at \
         seeded places among them; median of {ticks} ticks. The avoidance pass casts ahead for \
         every agent near an obstacle (far ones cost a bounds test); integration also keeps \
         every agent out of the obstacles.\n\n\
         | obstacles | tick ms | avoidance pass ms | pass ns / agent | agents avoiding |\n\
         |---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {:.3} | {:.3} | {:.0} | {:.0} |",
            r.obstacles,
            ms(r.tick),
            ms(r.pass),
            r.pass.as_secs_f64() * 1e9 / AGENTS as f64,
            r.avoiding
        );
    }
    out
}
