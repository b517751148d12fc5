//! Many orders at once on a banded map: [`UNITS`] units on a [`SIDE`] x [`SIDE`] map whose
//! walls cross it every [`BAND`] rows, each wall with [`GAPS`] gaps, every unit sent to its own
//! point. How many paths the planner answers within a minute of game time at its default
//! budget, what its ticks cost, how long it takes to answer all of them with no budget, and
//! what an A* search across the whole map costs a path.

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
pub(crate) const SIDE: u32 = 1_024;
/// Rows between walls.
const BAND: u32 = 64;
/// Gaps in each wall, and their width in tiles.
const GAPS: u32 = 4;
const GAP_WIDTH: u32 = 2;
/// Units, each sent to its own point.
pub(crate) const UNITS: usize = 5_000;
/// Game time the planner is given.
const SECONDS: f32 = 60.0;
/// Paths searched one after another with no budget, to time a search.
const SEARCHED: usize = 50;

/// What the banded map measured.
pub struct BandedRow {
    ticks: usize,
    answered: usize,
    /// The tick by which every unit had its first answer, if within the run.
    all_by: Option<usize>,
    /// The `Prepare` set's time a tick (the planner, and 5,000 units following their paths).
    median: Duration,
    p99: Duration,
    worst: Duration,
    /// The `Prepare` set's median once every unit had its first answer: the units following
    /// their paths, with little left to plan.
    following: Option<Duration>,
    /// The planner's own time a tick ([`PathPlanner::time_last_tick`]).
    planner_median: Duration,
    planner_p99: Duration,
    planner_worst: Duration,
    /// With no budget: the time the planner took to answer every unit, in one tick.
    unbudgeted: Duration,
    /// The mean time of `Terrain::find_path` over [`SEARCHED`] of the units' paths.
    search: Duration,
}

/// The banded map: a wall across every [`BAND`]th row, with [`GAPS`] gaps at seeded places,
/// one in each quarter of the row.
pub(crate) fn banded() -> Terrain {
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
pub(crate) fn open_point(terrain: &Terrain, unit: &mut impl FnMut() -> f32) -> Vec3 {
    loop {
        let tile = (Vec2::new(unit(), unit()) * SIDE as f32).as_uvec2();
        if terrain.is_walkable(tile) {
            return terrain.centre(tile);
        }
    }
}

/// A planar app with the terrain, its units sent on their `orders`, the `Prepare` set timed.
fn banded_app(terrain: &Terrain, orders: &[(Vec3, Vec3)], cores: usize) -> (App, Vec<Entity>) {
    let mut app = plugin_app(Space::Planar, cores);
    app.add_plugins((SquadsPlugin, TerrainPlugin));
    time_prepare(&mut app);
    app.insert_resource(terrain.clone());
    let units: Vec<Entity> = (orders.iter())
        .map(|&(from, to)| {
            let unit = (Agent, Transform::from_translation(from), Destination(to));
            app.world_mut().spawn(unit).id()
        })
        .collect();
    app.finish();
    app.cleanup();
    (app, units)
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
    let (mut app, units) = banded_app(&terrain, &orders, cores);
    let tick = app
        .world()
        .resource::<Time<Fixed>>()
        .timestep()
        .as_secs_f32();
    let ticks = (SECONDS / tick) as usize;
    let planned = |app: &App, unit: Entity| {
        (app.world().get::<PlannedPath>(unit)).is_some_and(|p| p.status != PathStatus::Planning)
    };
    let mut all_by = None;
    let (mut times, mut planner_times) = (Vec::new(), Vec::new());
    for t in 1..=ticks {
        app.update();
        times.push(app.world().resource::<PrepareClock>().took);
        planner_times.push(app.world().resource::<PathPlanner>().time_last_tick());
        if all_by.is_none() && units.iter().all(|&u| planned(&app, u)) {
            all_by = Some(t);
        }
    }
    let following = all_by.filter(|&t| t < ticks).map(|t| {
        let mut after = times[t..].to_vec();
        after.sort_unstable();
        after[after.len() / 2]
    });
    times.sort_unstable();
    planner_times.sort_unstable();
    let answered = units.iter().filter(|&&u| planned(&app, u)).count();
    let (mut unbudgeted_app, _) = banded_app(&terrain, &orders, cores);
    unbudgeted_app
        .world_mut()
        .resource_mut::<PathPlanner>()
        .tiles_per_tick = u32::MAX;
    let mut unbudgeted = Duration::ZERO;
    // The first update runs no fixed tick; the second answers every unit.
    for _ in 0..3 {
        unbudgeted_app.update();
        let planner = unbudgeted_app.world().resource::<PathPlanner>();
        unbudgeted = unbudgeted.max(planner.time_last_tick());
    }
    let row = BandedRow {
        ticks,
        answered,
        all_by,
        median: times[ticks / 2],
        p99: times[ticks * 99 / 100],
        worst: times[ticks - 1],
        following,
        planner_median: planner_times[ticks / 2],
        planner_p99: planner_times[ticks * 99 / 100],
        planner_worst: planner_times[ticks - 1],
        unbudgeted,
        search,
    };
    println!("{}", row.line());
    row
}

impl BandedRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "banded map: {} of {UNITS} answered in {} ticks (all by tick {}), planning median \
             {:.3} ms, p99 {:.3} ms, worst {:.3} ms, median once all answered {:.3} ms; the \
             planner alone {:.3} / {:.3} / {:.3} ms; all with no budget {:.0} ms; find_path \
             {:.1} ms a path",
            self.answered,
            self.ticks,
            self.all_by.map_or("-".to_string(), |t| t.to_string()),
            ms(self.median),
            ms(self.p99),
            ms(self.worst),
            ms(self.following.unwrap_or_default()),
            ms(self.planner_median),
            ms(self.planner_p99),
            ms(self.planner_worst),
            ms(self.unbudgeted),
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
         {SECONDS} s of game time ({} ticks). \"Planning\" is the `Prepare` set per tick: the \
         planner, and the units following the paths they have (once all are answered, its \
         median is mostly that); \"the planner\" is its own time \
         (`PathPlanner::time_last_tick`). \"No budget\" is the planner's time to answer all \
         {UNITS} in one tick. `find_path` is the mean of A* across the whole map for {SEARCHED} \
         of the units' orders.\n\n\
         | answered after {SECONDS} s | all answered by tick | planning median ms | 99th \
         percentile ms | worst ms | once all answered, median ms | the planner: median ms | \
         99th percentile ms | worst ms | all {UNITS}, no budget (s) | find_path ms a path |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n\
         | {} of {UNITS} | {} | {:.3} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.2} | \
         {:.1} |",
        row.ticks,
        row.answered,
        row.all_by.map_or("-".to_string(), |t| t.to_string()),
        ms(row.median),
        ms(row.p99),
        ms(row.worst),
        row.following
            .map_or("-".to_string(), |t| format!("{:.3}", ms(t))),
        ms(row.planner_median),
        ms(row.planner_p99),
        ms(row.planner_worst),
        row.unbudgeted.as_secs_f64(),
        ms(row.search),
    );
    out
}
