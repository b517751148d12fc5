//! Path planning on big maps: what the planning systems cost a tick when 256 units on a
//! 4,096 x 4,096 map are sent at once and when walls rise across their paths, with the
//! planner's default budget, twice it, and no budget (every search finished in the tick it
//! is asked for, as before the planner), and `Terrain::find_path` through one-tile serpentines.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use bevy_flock_plugin::{PathPlanner, PathStatus, PlannedPath};
use flock_core::Space;

use crate::harness::plugin_app;
use crate::workload::unit_generator;

/// The big map's side in tiles.
const SIDE: u32 = 4_096;
/// Units sent at once, each to its own point.
const UNITS: usize = 256;
/// Units whose destination is walled in.
const WALLED_IN: usize = 16;
/// Buildings on the big map, and the longest side of one in tiles.
const BUILDINGS: usize = 4_000;
const LARGEST_BUILDING: f32 = 40.0;
/// Serpentine sides measured.
const SERPENTINES: [u32; 3] = [128, 256, 512];
/// Ticks after which a phase gives up waiting for its paths.
const MOST_TICKS: usize = 20_000;

/// The big map: [`BUILDINGS`] seeded rectangular blocks, 2 to [`LARGEST_BUILDING`] tiles a
/// side, scattered over open ground (about a tenth of the map).
fn town() -> Terrain {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(SIDE));
    let mut unit = unit_generator(7);
    for _ in 0..BUILDINGS {
        let corner = (Vec2::new(unit(), unit()) * SIDE as f32).as_uvec2();
        let size = (Vec2::new(unit(), unit()) * (LARGEST_BUILDING - 2.0) + 2.0).as_uvec2();
        for y in corner.y..(corner.y + size.y).min(SIDE) {
            for x in corner.x..(corner.x + size.x).min(SIDE) {
                terrain.set_walkable(UVec2::new(x, y), false);
            }
        }
    }
    terrain
}

/// A random walkable tile's centre, with walkable tiles all round it.
fn open_point(terrain: &Terrain, unit: &mut impl FnMut() -> f32) -> Vec3 {
    loop {
        let tile = (Vec2::new(unit(), unit()) * (SIDE - 4) as f32).as_uvec2() + UVec2::splat(2);
        let clear = (-2..=2).all(|dy| {
            (-2..=2).all(|dx| terrain.is_walkable(tile.saturating_add_signed(IVec2::new(dx, dy))))
        });
        if clear {
            return terrain.centre(tile);
        }
    }
}

/// Walls in the tile at `point` with a ring of walls round it.
fn wall_in(terrain: &mut Terrain, point: Vec3) {
    let Some(centre) = terrain.tile_at(point) else {
        return;
    };
    for dy in -2..=2i32 {
        for dx in -2..=2i32 {
            if dx.abs() == 2 || dy.abs() == 2 {
                terrain.set_walkable(centre.saturating_add_signed(IVec2::new(dx, dy)), false);
            }
        }
    }
}

/// What one phase of the big map cost.
pub struct PhaseRow {
    /// The planner's budget in tiles a tick; `None` for no budget.
    budget: Option<u32>,
    phase: &'static str,
    /// Ticks until every unit's path was answered.
    ticks: usize,
    /// The planning systems' time in the phase's first tick, its median, 99th percentile and
    /// worst.
    first: Duration,
    median: Duration,
    p99: Duration,
    worst: Duration,
    /// The whole update's worst tick in the phase.
    worst_update: Duration,
    /// The planner's budget spent in the phase, in tiles.
    spent: u64,
    /// Units answered with a path, and with none.
    found: usize,
    no_path: usize,
}

/// When the planning systems (the `Prepare` set) started this tick, and how long they took.
#[derive(Resource, Default)]
pub(crate) struct PrepareClock {
    started: Option<Instant>,
    pub(crate) took: Duration,
}

/// Times `app`'s `Prepare` set (formations, path following, the planner) each tick, in its
/// [`PrepareClock`].
pub(crate) fn time_prepare(app: &mut App) {
    app.init_resource::<PrepareClock>().add_systems(
        FixedUpdate,
        (
            (|mut clock: ResMut<PrepareClock>| clock.started = Some(Instant::now()))
                .after(FlockingSystems::First)
                .before(FlockingSystems::Prepare),
            (|mut clock: ResMut<PrepareClock>| {
                clock.took = clock.started.take().map_or(Duration::ZERO, |s| s.elapsed());
            })
            .after(FlockingSystems::Prepare)
            .before(FlockingSystems::NeighbourLookup),
        ),
    );
}

/// A planar app with the long-walls map and [`UNITS`] idle units, the planner given `budget`
/// tiles a tick, and the `Prepare` set timed.
fn planning_app(budget: Option<u32>, cores: usize) -> (App, Vec<Entity>, Vec<Vec3>) {
    let mut app = plugin_app(Space::Planar, cores);
    app.add_plugins((SquadsPlugin, TerrainPlugin));
    time_prepare(&mut app);
    let mut terrain = town();
    let mut unit = unit_generator(4_096);
    let mut units = Vec::with_capacity(UNITS);
    let mut goals = Vec::with_capacity(UNITS);
    for k in 0..UNITS {
        let (at, goal) = (
            open_point(&terrain, &mut unit),
            open_point(&terrain, &mut unit),
        );
        if k < WALLED_IN {
            wall_in(&mut terrain, goal);
        }
        units.push(
            app.world_mut()
                .spawn((Agent, Transform::from_translation(at)))
                .id(),
        );
        goals.push(goal);
    }
    app.insert_resource(terrain);
    app.world_mut().resource_mut::<PathPlanner>().tiles_per_tick = budget.unwrap_or(u32::MAX);
    app.finish();
    app.cleanup();
    // The first ticks bin the terrain's walls as obstacles.
    for _ in 0..2 {
        app.update();
    }
    (app, units, goals)
}

/// Runs ticks until every unit's path is answered and the planner idle; returns the phase's
/// row.
fn run_phase(
    app: &mut App,
    units: &[Entity],
    budget: Option<u32>,
    phase: &'static str,
) -> PhaseRow {
    let mut times = Vec::new();
    let mut worst_update = Duration::ZERO;
    let mut spent = 0;
    for _ in 0..MOST_TICKS {
        let started = Instant::now();
        app.update();
        worst_update = worst_update.max(started.elapsed());
        times.push(app.world().resource::<PrepareClock>().took);
        spent += u64::from(app.world().resource::<PathPlanner>().spent_last_tick());
        let planning = units.iter().any(|&u| {
            app.world()
                .get::<PlannedPath>(u)
                .is_none_or(|p| p.status == PathStatus::Planning)
        });
        if !planning && app.world().resource::<PathPlanner>().waiting() == 0 {
            break;
        }
        if times.len() % 500 == 0 {
            eprintln!(
                "  {phase}: tick {}, planning {:.3} ms, whole tick {:.3} ms, {} waiting",
                times.len(),
                ms(times[times.len() - 1]),
                ms(started.elapsed()),
                app.world().resource::<PathPlanner>().waiting()
            );
        }
    }
    let status = |wanted| {
        units
            .iter()
            .filter(|&&u| app.world().get::<PlannedPath>(u).map(|p| p.status) == Some(wanted))
            .count()
    };
    let ticks = times.len();
    let first = times[0];
    times.sort_unstable();
    PhaseRow {
        budget,
        phase,
        ticks,
        first,
        median: times[ticks / 2],
        p99: times[(ticks * 99 / 100).min(ticks - 1)],
        worst: times[ticks - 1],
        worst_update,
        spent,
        found: status(PathStatus::Found),
        no_path: status(PathStatus::NoPath),
    }
}

/// Sends the units, then raises walls across the map: a wall down the middle with a gap
/// every 1,024 tiles, and rings round four more of the units' destinations.
fn big_map(budget: Option<u32>, cores: usize) -> [PhaseRow; 2] {
    let (mut app, units, goals) = planning_app(budget, cores);
    for (&unit, &goal) in units.iter().zip(&goals) {
        app.world_mut().entity_mut(unit).insert(Destination(goal));
    }
    let sent = run_phase(&mut app, &units, budget, "256 units sent at once");
    {
        let mut terrain = app.world_mut().resource_mut::<Terrain>();
        for y in 0..SIDE {
            terrain.set_walkable(UVec2::new(SIDE / 2, y), y % 1_024 < 1_020);
        }
        for &goal in &goals[WALLED_IN..WALLED_IN + 4] {
            wall_in(&mut terrain, goal);
        }
    }
    let changed = run_phase(&mut app, &units, budget, "walls raised across their paths");
    [sent, changed]
}

/// A one-tile corridor winding across a `side` x `side` map: walls on every odd row, each
/// with one gap, at alternate ends. Returns the map and the corridor's ends.
fn serpentine(side: u32) -> (Terrain, Vec3, Vec3) {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(side));
    for y in (1..side).step_by(2) {
        let gap = if (y / 2) % 2 == 0 { side - 1 } else { 0 };
        for x in 0..side {
            terrain.set_walkable(UVec2::new(x, y), x == gap);
        }
    }
    let goal = terrain.centre(UVec2::new(0, side - 1));
    (terrain, Vec3::new(0.5, 0.5, 0.0), goal)
}

/// One serpentine: its side, the path's length and waypoints, and the median time of
/// `Terrain::find_path` along it.
pub struct SerpentineRow {
    side: u32,
    length: f32,
    waypoints: usize,
    time: Duration,
}

/// Times `Terrain::find_path` through each serpentine, the median of `rounds` runs.
fn serpentines(rounds: usize) -> Vec<SerpentineRow> {
    SERPENTINES
        .iter()
        .map(|&side| {
            let (terrain, start, goal) = serpentine(side);
            let mut times = Vec::new();
            let mut path = Vec::new();
            for _ in 0..rounds.max(3) {
                let started = Instant::now();
                path = terrain
                    .find_path(start, goal)
                    .expect("the corridor joins its ends");
                times.push(started.elapsed());
            }
            times.sort_unstable();
            let mut at = start;
            let length = path
                .iter()
                .map(|&waypoint| {
                    let leg = at.distance(waypoint);
                    at = waypoint;
                    leg
                })
                .sum();
            SerpentineRow {
                side,
                length,
                waypoints: path.len(),
                time: times[times.len() / 2],
            }
        })
        .collect()
}

/// The measured rows: the big map with the default budget, twice it and none, then the
/// serpentines.
pub fn measure(rounds: usize) -> (Vec<PhaseRow>, Vec<SerpentineRow>) {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let default_budget = PathPlanner::default().tiles_per_tick;
    let mut rows = Vec::new();
    for budget in [Some(default_budget), Some(default_budget * 2), None] {
        for row in big_map(budget, cores) {
            println!("{}", row.line());
            rows.push(row);
        }
    }
    (rows, serpentines(rounds))
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl PhaseRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "planning, budget {}: {}: {} ticks, first {:.3} ms, median {:.3} ms, p99 {:.3} ms, worst {:.3} ms, whole tick worst {:.3} ms, {} tiles' worth spent, {} found, {} no path",
            self.budget.map_or("none".to_string(), |b| b.to_string()),
            self.phase,
            self.ticks,
            ms(self.first),
            ms(self.median),
            ms(self.p99),
            ms(self.worst),
            ms(self.worst_update),
            self.spent,
            self.found,
            self.no_path
        )
    }
}

impl SerpentineRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "serpentine {0}x{0}: path {1:.0} tiles long, {2} waypoints, find_path {3:.3} ms",
            self.side,
            self.length,
            self.waypoints,
            ms(self.time)
        )
    }
}

/// The report's section on path planning.
pub fn section(rows: &[PhaseRow], serpentines: &[SerpentineRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Path planning on big maps (plugin, 2D)\n\n\
         A {SIDE} x {SIDE} map with {BUILDINGS} seeded rectangular buildings, 2 to \
         {LARGEST_BUILDING} tiles a side (about a tenth of the map). {UNITS} units are sent at once, \
         each to its own random point, {WALLED_IN} of them walled in; once every path is \
         answered, a wall rises down the middle of the map (a gap every 1,024 tiles) and four \
         more destinations are walled in. \"Planning\" is the plugin's `Prepare` set (formations, \
         path following, the planner), timed per tick; the whole tick adds the flocking of the \
         units and the terrain's walls as obstacles. With no budget every search finishes in the \
         tick it is asked for, as before the planner. The budget spent counts tiles expanded, and \
         the regions' work and dropped stale entries at their worth in tiles.\n\n\
         | budget (tiles a tick) | phase | ticks to answer all | planning, first tick ms | planning, median ms | planning, 99th percentile ms | planning, worst tick ms | whole tick, worst ms | budget spent (tiles) | found | no path |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {} |",
            r.budget.map_or("none".to_string(), |b| b.to_string()),
            r.phase,
            r.ticks,
            ms(r.first),
            ms(r.median),
            ms(r.p99),
            ms(r.worst),
            ms(r.worst_update),
            r.spent,
            r.found,
            r.no_path
        );
    }
    let _ = writeln!(
        out,
        "\n`Terrain::find_path` along a one-tile corridor winding across the map (walls on every \
         odd row, one gap each, at alternate ends), median of the runs:\n\n\
         | map | path length (tiles) | waypoints | find_path ms |\n|---|---:|---:|---:|"
    );
    for s in serpentines {
        let _ = writeln!(
            out,
            "| {0} x {0} | {1:.0} | {2} | {3:.3} |",
            s.side,
            s.length,
            s.waypoints,
            ms(s.time)
        );
    }
    out
}
