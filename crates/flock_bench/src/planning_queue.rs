//! The planner's queue: what units waiting for their paths cost a tick when the planner, given
//! no budget, answers none of them, so that only their questions to it are timed.

use std::fmt::Write as _;
use std::time::Duration;

use bevy::prelude::*;
use bevy_flock_plugin::PathPlanner;
use bevy_flock_plugin::prelude::*;
use flock_core::Space;

use crate::harness::plugin_app;
use crate::planning::{PrepareClock, ms, time_prepare};

/// Units waiting, in each row.
const WAITING: [usize; 3] = [500, 1_000, 5_000];
/// The open map's side in tiles.
const SIDE: u32 = 1_024;
/// Ticks before measuring: the units are asked for and queued.
const WARM_UP_TICKS: usize = 4;

/// One row: the units waiting and the planning systems' median time a tick.
pub struct WaitingRow {
    units: usize,
    median: Duration,
}

/// A planar app on an open [`SIDE`] x [`SIDE`] map with `units` units each sent to the far
/// corner, the planner given no budget, and the `Prepare` set timed.
fn waiting_app(units: usize, cores: usize) -> App {
    let mut app = plugin_app(Space::Planar, cores);
    app.add_plugins((SquadsPlugin, TerrainPlugin));
    time_prepare(&mut app);
    app.insert_resource(Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(SIDE)));
    app.world_mut().resource_mut::<PathPlanner>().tiles_per_tick = 0;
    let far = Vec3::new(SIDE as f32 - 0.5, SIDE as f32 - 0.5, 0.0);
    for k in 0..units {
        let at = Vec3::new(
            (k % 500) as f32 * 2.0 + 0.5,
            (k / 500) as f32 * 2.0 + 0.5,
            0.0,
        );
        app.world_mut()
            .spawn((Agent, Transform::from_translation(at), Destination(far)));
    }
    app.finish();
    app.cleanup();
    app
}

/// The rows: each of [`WAITING`], the median of `ticks` ticks after the warm-up.
pub fn measure(ticks: usize) -> Vec<WaitingRow> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    WAITING
        .iter()
        .map(|&units| {
            let mut app = waiting_app(units, cores);
            for _ in 0..WARM_UP_TICKS {
                app.update();
            }
            assert_eq!(app.world().resource::<PathPlanner>().waiting(), units);
            let mut times: Vec<Duration> = (0..ticks)
                .map(|_| {
                    app.update();
                    app.world().resource::<PrepareClock>().took
                })
                .collect();
            times.sort_unstable();
            let row = WaitingRow {
                units,
                median: times[ticks / 2],
            };
            println!("{}", row.line());
            row
        })
        .collect()
}

impl WaitingRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "planner queue: {} units waiting, planning {:.3} ms a tick",
            self.units,
            ms(self.median)
        )
    }
}

/// The section's table, with what it measured: medians of `ticks` ticks.
pub fn section(rows: &[WaitingRow], ticks: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nUnits waiting for paths that the planner, given no budget (`tiles_per_tick` 0), never \
         answers, on an open {SIDE} x {SIDE} map, each sent to the far corner: what their \
         questions to the planner cost the `Prepare` set a tick, with nothing planned; medians \
         of {ticks} ticks.\n\n| units waiting | planning ms a tick |\n|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(out, "| {} | {:.3} |", r.units, ms(r.median));
    }
    out
}
