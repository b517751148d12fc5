//! Paths on a navigation mesh: a thousand units sent at once across a town (a grid of streets,
//! and the `zombie_town` example's), answered within the planner's budget, and what following
//! the mesh's paths costs a crowd's tick against the same crowd on open ground.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use bevy_flock_plugin::{NavMeshPlanner, PathStatus, PlannedPath};
use flock_core::{FlockTuning, Space, VelocityObstacles};

use crate::crowd_cost::ms;
use crate::harness::{median, plugin_app};

/// The `zombie_town` example's ground plan, the file the example has, so that the bench plans
/// on the same town.
#[path = "../../../examples/zombie_town/ground_plan.rs"]
#[allow(
    dead_code,
    reason = "the example draws the buildings' heights; the bench plans on their footprints"
)]
mod zombie_town;

/// The town's blocks along each side, the side of a block and the width of a street, in metres.
const BLOCKS: u32 = 10;
const BLOCK: f32 = 16.0;
const STREET: f32 = 8.0;
/// Units sent at once, and the crowd that follows its paths.
const SENT_AT_ONCE: usize = 1_000;
const CROWD: usize = 10_000;
/// The units' body radius (`FlockTuning::squad`'s collision distance of 0.7 m, halved): the
/// clearance their paths keep from the buildings.
const BODY_RADIUS: f32 = 0.35;

/// The town: [`BLOCKS`] x [`BLOCKS`] blocks with streets between and round them; every third
/// block is two buildings with a 2 m alley between (the alleys alternate in direction).
fn town() -> NavMesh {
    let pitch = BLOCK + STREET;
    let side = pitch * BLOCKS as f32 + STREET;
    let rectangle = |x0: f32, y0: f32, x1: f32, y1: f32| {
        vec![
            Vec2::new(x0, y0),
            Vec2::new(x1, y0),
            Vec2::new(x1, y1),
            Vec2::new(x0, y1),
        ]
    };
    let mut buildings = Vec::new();
    for k in 0..BLOCKS * BLOCKS {
        let (x0, y0) = (
            STREET + pitch * (k % BLOCKS) as f32,
            STREET + pitch * (k / BLOCKS) as f32,
        );
        let (x1, y1, half) = (x0 + BLOCK, y0 + BLOCK, BLOCK / 2.0);
        match k % 6 {
            0 => {
                buildings.push(rectangle(x0, y0, x0 + half - 1.0, y1));
                buildings.push(rectangle(x0 + half + 1.0, y0, x1, y1));
            }
            3 => {
                buildings.push(rectangle(x0, y0, x1, y0 + half - 1.0));
                buildings.push(rectangle(x0, y0 + half + 1.0, x1, y1));
            }
            _ => buildings.push(rectangle(x0, y0, x1, y1)),
        }
    }
    NavMesh::from_outline(&rectangle(0.0, 0.0, side, side), buildings, BODY_RADIUS)
        .expect("the town's mesh")
}

/// A point on the town's streets: along the street running north at `street` (of
/// `BLOCKS + 1`), `along` of the way up.
fn on_street(street: usize, along: f32) -> Vec3 {
    let pitch = BLOCK + STREET;
    let x = pitch * street as f32 + STREET / 2.0;
    Vec3::new(x, along * (pitch * BLOCKS as f32 + STREET), 0.0)
}

/// `units` units, each from a street point of the grid to another across it.
fn across_the_grid(units: usize) -> Vec<(Vec3, Vec3)> {
    let streets = BLOCKS as usize + 1;
    (0..units)
        .map(|k| {
            let share = (k as f32 + 0.5) / units as f32;
            let from = on_street(k % streets, share);
            (from, on_street((k + streets / 2) % streets, 1.0 - share))
        })
        .collect()
}

/// The `zombie_town` example's town: its navmesh (the streets and the roof terrace over one,
/// two floors), and `units` units each on a point of the ground sent to another, half the
/// town's points further on (row by row, so mostly across it).
fn example_town(units: usize) -> (NavMesh, Vec<(Vec3, Vec3)>) {
    use zombie_town::{CLEARANCE, HALF_TOWN, buildings, navmesh};
    let mesh = navmesh(&buildings());
    // Points 2 m apart where a body of the clearance's radius stands on the ground.
    let around = [Vec2::ZERO, Vec2::X, Vec2::Y, -Vec2::X, -Vec2::Y].map(|d| d * CLEARANCE);
    let mut points = Vec::new();
    for y in (0..).map(|j| 2.0 * j as f32 + 1.0 - HALF_TOWN.y) {
        if y >= HALF_TOWN.y {
            break;
        }
        for x in (0..).map(|i| 2.0 * i as f32 + 1.0 - HALF_TOWN.x) {
            if x >= HALF_TOWN.x {
                break;
            }
            let p = Vec2::new(x, y);
            if around
                .iter()
                .all(|&d| mesh.is_walkable_at((p + d).extend(0.0)))
            {
                points.push(p.extend(0.0));
            }
        }
    }
    let n = points.len();
    let orders = (0..units)
        .map(|k| {
            let from = k * n / units;
            (points[from], points[(from + n / 2) % n])
        })
        .collect();
    (mesh, orders)
}

/// A planar app of units sent from and to the points of `orders`, on `mesh` (or on open
/// ground), tuned as `tuning`.
fn town_app(
    orders: &[(Vec3, Vec3)],
    mesh: Option<NavMesh>,
    tuning: FlockTuning,
    cores: usize,
) -> App {
    let mut app = plugin_app(Space::Planar, cores);
    app.add_plugins((SquadsPlugin, TerrainPlugin, NavMeshPlugin));
    if let Some(mesh) = mesh {
        app.insert_resource(mesh);
    }
    for &(from, to) in orders {
        app.world_mut()
            .spawn((Agent, Transform::from_translation(from), Destination(to)));
    }
    app.finish();
    app.cleanup();
    let flock = **app.world().resource::<DefaultFlock>();
    app.world_mut().entity_mut(flock).insert(tuning);
    app
}

/// The thousand sent at once across a town: ticks until every path is answered, the planner's
/// most paths a tick, and the slowest tick, whole and the planner's share of it.
pub struct SentAtOnce {
    /// Which town.
    town: &'static str,
    /// The planner's budget, its default.
    budget: u32,
    ticks: u32,
    most_paths: u32,
    slowest_tick: Duration,
    slowest_planning: Duration,
    most_planning: Duration,
}

/// A crowd following paths: its tick on the town's navmesh and on open ground.
pub struct Following {
    on_mesh: Duration,
    on_open_ground: Duration,
}

/// The rows: the thousand sent at once across the grid of streets and across the example's
/// town, and the crowd's ticks, medians of `ticks` ticks each, the two apps taking turns.
pub fn measure(ticks: usize) -> ([SentAtOnce; 2], Following) {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // Units that stay where they are: only their planning is timed.
    let mut still = FlockTuning::squad();
    still.weights.target = 0.0;
    let grid = town_app(&across_the_grid(SENT_AT_ONCE), Some(town()), still, cores);
    let (example_mesh, example_orders) = example_town(SENT_AT_ONCE);
    let example = town_app(&example_orders, Some(example_mesh), still, cores);
    let sent = [
        (grid, "the grid of streets"),
        (example, "the `zombie_town` example's town"),
    ]
    .map(|(mut app, town)| answer_all(&mut app, town));

    let mut crowd = FlockTuning::squad();
    crowd.perception.velocity_obstacles = VelocityObstacles::Reciprocal;
    let orders = across_the_grid(CROWD);
    let mut apps = [Some(town()), None].map(|mesh| town_app(&orders, mesh, crowd, cores));
    // Every path planned before the ticks are timed.
    apps[0]
        .world_mut()
        .resource_mut::<NavMeshPlanner>()
        .paths_per_tick = u32::MAX;
    for app in &mut apps {
        app.update();
        app.update();
    }
    let mut times: [Vec<Duration>; 2] = Default::default();
    for _ in 0..ticks {
        for (app, times) in apps.iter_mut().zip(&mut times) {
            let started = Instant::now();
            app.update();
            times.push(started.elapsed());
        }
    }
    let [on_mesh, on_open_ground] = times.map(median);
    let following = Following {
        on_mesh,
        on_open_ground,
    };
    println!("{}", following.line());
    (sent, following)
}

/// Ticks `app` until every unit's path is answered, with what it took.
fn answer_all(app: &mut App, town: &'static str) -> SentAtOnce {
    let mut sent = SentAtOnce {
        town,
        budget: app.world().resource::<NavMeshPlanner>().paths_per_tick,
        ticks: 0,
        most_paths: 0,
        slowest_tick: Duration::ZERO,
        slowest_planning: Duration::ZERO,
        most_planning: Duration::ZERO,
    };
    let mut paths = app.world_mut().query::<&PlannedPath>();
    while paths
        .iter(app.world())
        .any(|p| p.status == PathStatus::Planning)
    {
        let started = Instant::now();
        app.update();
        let took = started.elapsed();
        let planner = app.world().resource::<NavMeshPlanner>();
        sent.ticks += 1;
        sent.most_paths = sent.most_paths.max(planner.spent_last_tick());
        sent.most_planning = sent.most_planning.max(planner.time_last_tick());
        if took > sent.slowest_tick {
            sent.slowest_tick = took;
            sent.slowest_planning = planner.time_last_tick();
        }
    }
    println!("{}", sent.line());
    sent
}

impl SentAtOnce {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "navmesh: {SENT_AT_ONCE} sent at once across {} answered in {} ticks, at most {} paths and {:.2} ms planning a tick; slowest tick {:.2} ms, of which planning {:.2} ms",
            self.town,
            self.ticks,
            self.most_paths,
            ms(self.most_planning),
            ms(self.slowest_tick),
            ms(self.slowest_planning)
        )
    }
}

impl Following {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "navmesh: {CROWD} following paths, tick {:.2} ms on the mesh, {:.2} ms on open ground ({:.2}x)",
            ms(self.on_mesh),
            ms(self.on_open_ground),
            ms(self.on_mesh) / ms(self.on_open_ground)
        )
    }
}

/// The section, with what it measured: medians of `ticks` ticks.
pub fn section(sent: &[SentAtOnce], following: &Following, ticks: usize) -> String {
    let side = (BLOCK + STREET) * BLOCKS as f32 + STREET;
    let example = zombie_town::HALF_TOWN * 2.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nPaths on a navigation mesh (`NavMesh`, the `navmesh` feature), on two towns: a grid \
         of streets {side} m across, {BLOCKS} x {BLOCKS} blocks of {BLOCK} m with {STREET} m \
         streets, every third block split by a 2 m alley, its paths kept {BODY_RADIUS} m from \
         the buildings; and the `zombie_town` example's town ({} x {} m, paths kept {} m from \
         its buildings and river, two floors: the streets, and a ramp up to a roof terrace \
         over one). Units stand on the streets, each sent to a street point across the town \
         (on the example's, to points of a 2 m lattice on the ground, half the lattice \
         further on); planar, 2 threads. The planner answers at most `paths_per_tick` a tick \
         ({} by default). The crowd (`FlockTuning::squad`, `Reciprocal` velocity obstacles) \
         follows its paths on the grid of streets, its bodies held off the mesh's walls; the \
         same crowd on open ground walks straight to the same points; medians of {ticks} \
         ticks, the two apps taking turns.\n\n\
         | workload | measured |\n|---|---|",
        example.x,
        example.y,
        zombie_town::CLEARANCE,
        sent.first().map_or(0, |s| s.budget)
    );
    for sent in sent {
        let _ = writeln!(
            out,
            "| {SENT_AT_ONCE} units sent at once across {} | all answered in {} ticks, at most \
             {} paths and {:.2} ms of planning a tick; slowest tick {:.2} ms, planning {:.2} ms \
             of it |",
            sent.town,
            sent.ticks,
            sent.most_paths,
            ms(sent.most_planning),
            ms(sent.slowest_tick),
            ms(sent.slowest_planning)
        );
    }
    let _ = writeln!(
        out,
        "| {CROWD} units following their paths | tick {:.2} ms on the navmesh, {:.2} ms on \
         open ground: {:.2}x |",
        ms(following.on_mesh),
        ms(following.on_open_ground),
        ms(following.on_mesh) / ms(following.on_open_ground)
    );
    out
}
