//! Many orders at once on a banded map: [`UNITS`] units on a [`SIDE`] x [`SIDE`] map whose
//! walls cross it every [`BAND`] rows, each wall with [`GAPS`] gaps, every unit sent to its own
//! point. How many paths the planner answers within a minute of game time at its default
//! budget, what its ticks cost, and what an A* search costs a path with no budget.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use bevy_flock_plugin::{PathPlanner, PathStatus, PlannedPath};
use flock_core::Space;

use crate::harness::plugin_app;
use crate::planning::{PrepareClock, ms, time_prepare};
use crate::workload::unit_generator;

/// The map's side in tiles.
const SIDE: u32 = 1_024;
/// Rows between walls.
const BAND: u32 = 64;
/// Gaps in each wall, and their width in tiles.
const GAPS: u32 = 4;
const GAP_WIDTH: u32 = 2;
/// Units, each sent to its own point.
const UNITS: usize = 5_000;
/// Game time the planner is given.
const SECONDS: f32 = 60.0;
/// Paths searched one after another with no budget, to time a search.
const SEARCHED: usize = 50;

/// What the banded map measured.
pub struct BandedRow {
    ticks: usize,
    answered: usize,
    median: Duration,
    p99: Duration,
    worst: Duration,
    /// The mean time of `Terrain::find_path` over [`SEARCHED`] of the units' paths.
    search: Duration,
}

/// The banded map: a wall across every [`BAND`]th row, with [`GAPS`] gaps at seeded places,
/// one in each quarter of the row.
fn banded() -> Terrain {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(SIDE));
    let mut unit = unit_generator(64);
    let quarter = SIDE / GAPS;
    for y in (BAND..SIDE).step_by(BAND as usize) {
        let gaps: Vec<u32> = (0..GAPS)
            .map(|k| k * quarter + (unit() * (quarter - GAP_WIDTH) as f32) as u32)
            .collect();
        for x in 0..SIDE {
            let in_gap = gaps.iter().any(|&g| (g..g + GAP_WIDTH).contains(&x));
            terrain.set_walkable(UVec2::new(x, y), in_gap);
        }
    }
    terrain
}

/// A random walkable tile's centre.
fn open_point(terrain: &Terrain, unit: &mut impl FnMut() -> f32) -> Vec3 {
    loop {
        let tile = (Vec2::new(unit(), unit()) * SIDE as f32).as_uvec2();
        if terrain.is_walkable(tile) {
            return terrain.centre(tile);
        }
    }
}

/// Sends the units across the banded map and runs [`SECONDS`] of game time.
pub fn measure() -> BandedRow {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let terrain = banded();
    let mut unit = unit_generator(1_024);
    let orders: Vec<(Vec3, Vec3)> = (0..UNITS)
        .map(|_| {
            let from = open_point(&terrain, &mut unit);
            (from, open_point(&terrain, &mut unit))
        })
        .collect();
    let search = {
        let started = Instant::now();
        for &(from, to) in &orders[..SEARCHED] {
            std::hint::black_box(terrain.find_path(from, to));
        }
        started.elapsed() / SEARCHED as u32
    };
    let mut app = plugin_app(Space::Planar, cores);
    app.add_plugins((SquadsPlugin, TerrainPlugin));
    time_prepare(&mut app);
    app.insert_resource(terrain);
    let units: Vec<Entity> = (orders.iter())
        .map(|&(from, to)| {
            let unit = (Agent, Transform::from_translation(from), Destination(to));
            app.world_mut().spawn(unit).id()
        })
        .collect();
    app.finish();
    app.cleanup();
    let tick = app
        .world()
        .resource::<Time<Fixed>>()
        .timestep()
        .as_secs_f32();
    let ticks = (SECONDS / tick) as usize;
    let mut times: Vec<Duration> = (0..ticks)
        .map(|_| {
            app.update();
            app.world().resource::<PrepareClock>().took
        })
        .collect();
    times.sort_unstable();
    let answered = (units.iter())
        .filter(|&&u| {
            (app.world().get::<PlannedPath>(u)).is_some_and(|p| p.status != PathStatus::Planning)
        })
        .count();
    let row = BandedRow {
        ticks,
        answered,
        median: times[ticks / 2],
        p99: times[ticks * 99 / 100],
        worst: times[ticks - 1],
        search,
    };
    println!("{}", row.line());
    row
}

impl BandedRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "banded map: {} of {UNITS} answered in {} ticks, planning median {:.3} ms, p99 {:.3} \
             ms, worst {:.3} ms; find_path {:.1} ms a path",
            self.answered,
            self.ticks,
            ms(self.median),
            ms(self.p99),
            ms(self.worst),
            ms(self.search)
        )
    }
}

/// The section's table, with what it measured.
pub fn section(row: &BandedRow) -> String {
    let mut out = String::new();
    let budget = PathPlanner::default().tiles_per_tick;
    let _ = writeln!(
        out,
        "\nMany orders at once: {UNITS} units on a {SIDE} x {SIDE} map whose walls cross it \
         every {BAND} rows, each with {GAPS} gaps {GAP_WIDTH} tiles wide, every unit sent to its \
         own random point, the planner at its default budget ({budget} tiles a tick) for \
         {SECONDS} s of game time ({} ticks); \"planning\" is the `Prepare` set, per tick. \
         `find_path` is the mean of A* across the map for {SEARCHED} of the units' orders, \
         with no budget.\n\n\
         | answered after {SECONDS} s | planning median ms | 99th percentile ms | worst ms \
         | find_path ms a path | all {UNITS} by find_path (s) |\n\
         |---:|---:|---:|---:|---:|---:|\n\
         | {} of {UNITS} | {:.3} | {:.3} | {:.3} | {:.1} | {:.0} |",
        row.ticks,
        row.answered,
        ms(row.median),
        ms(row.p99),
        ms(row.worst),
        ms(row.search),
        row.search.as_secs_f64() * UNITS as f64
    );
    out
}
