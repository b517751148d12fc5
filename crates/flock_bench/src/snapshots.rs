//! What a `FlockSnapshot` costs: taking it, its bytes, reading them back and restoring them,
//! at the lockstep section's crowd sizes, for a crowd of plain flockers and for one where every
//! agent carries the optional parts (a target, a wander point, a kept force); and for the
//! banded map's units sent each to its own point, with their paths being planned.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use bevy_flock_plugin::{FlockSnapshot, PathPlanner};
use flock_core::Space;

use crate::banded::{SIDE, UNITS, banded, open_point};
use crate::crowd_cost::ms;
use crate::harness::{median, plugin_app, wake_cores};
use crate::workload::{Workload, unit_generator};

/// Ticks run before the snapshots, so that the agents carry what a running game's do.
const SETTLE_TICKS: usize = 10;

/// What the agents of a measured crowd do.
#[derive(Clone, Copy)]
enum Activity {
    /// The sweep's flockers: no target, no wander, level of detail off.
    Flocking,
    /// Each agent seeks a point and wanders, with level of detail on (every agent far from
    /// the focus keeps its last force).
    Busy,
    /// The banded map's units, each sent to its own point across it, with the planner part
    /// way through their paths: planned paths, requests waiting, a search half done, clusters
    /// worked out.
    Sent,
}

/// The medians at one crowd size and activity.
pub struct SnapshotRow {
    agents: usize,
    activity: Activity,
    bytes: usize,
    take: Duration,
    into_bytes: Duration,
    from_vec: Duration,
    restore: Duration,
}

/// The banded map's [`UNITS`] units on 2 threads, named in spawn order, each sent to its own
/// point, after [`SETTLE_TICKS`] ticks.
fn sent_app() -> App {
    let mut app = plugin_app(Space::Planar, 2);
    app.add_plugins((SquadsPlugin, TerrainPlugin));
    let terrain = banded();
    let mut unit = unit_generator(48);
    for k in 0..UNITS {
        let (from, to) = (
            open_point(&terrain, &mut unit),
            open_point(&terrain, &mut unit),
        );
        let unit = (Agent, AgentId(k as u64), Transform::from_translation(from));
        app.world_mut().spawn((unit, Destination(to)));
    }
    app.insert_resource(terrain);
    app.finish();
    app.cleanup();
    for _ in 0..SETTLE_TICKS {
        app.update();
    }
    let waiting = app.world().resource::<PathPlanner>().waiting();
    assert!(waiting > 0, "every path planned: nothing in flight to save");
    println!("the banded map after {SETTLE_TICKS} ticks: {waiting} paths still to plan");
    app
}

/// An app of `workload`'s agents on 2 threads, named in spawn order, doing `activity`, after
/// [`SETTLE_TICKS`] ticks.
fn settled_app(workload: &Workload, activity: Activity) -> App {
    let mut app = plugin_app(Space::Volume, 2);
    let agents = workload.spawn_agents(&mut app);
    for (k, &agent) in agents.iter().enumerate() {
        let mut agent = app.world_mut().entity_mut(agent);
        agent.insert(AgentId(k as u64));
        if let Activity::Busy = activity {
            agent.insert(Target::Point(Vec3::new(k as f32 % 50.0, 0.0, 0.0)));
        }
    }
    if let Activity::Busy = activity {
        let flock = **app.world().resource::<DefaultFlock>();
        let weights = FlockWeights {
            wander: 0.5,
            ..default()
        };
        app.world_mut().entity_mut(flock).insert(weights);
        let mut config = app.world_mut().resource_mut::<FlockingConfig>();
        config.level_of_detail = Some(LevelOfDetail {
            near_radius: 0.0,
            interval: 4,
        });
        app.world_mut().spawn(DetailFocus);
    }
    app.finish();
    app.cleanup();
    for _ in 0..SETTLE_TICKS {
        app.update();
    }
    app
}

/// `repeats` of each step at each of `sizes`, for the flockers and the busy crowd, then for the
/// banded map's units.
pub fn measure(repeats: usize, sizes: &[usize]) -> Vec<SnapshotRow> {
    let mut rows = Vec::new();
    let crowds = (sizes.iter()).flat_map(|&n| [(n, Activity::Flocking), (n, Activity::Busy)]);
    for (agents, activity) in crowds.chain([(UNITS, Activity::Sent)]) {
        let mut app = match activity {
            Activity::Sent => sent_app(),
            _ => settled_app(&Workload::new(agents, Space::Volume), activity),
        };
        let mut times: [Vec<Duration>; 4] = Default::default();
        let mut bytes = 0;
        wake_cores();
        for _ in 0..repeats {
            let time = |times: &mut Vec<Duration>, started: Instant| {
                times.push(started.elapsed());
            };
            let started = Instant::now();
            let snapshot = FlockSnapshot::take(app.world_mut()).expect("every agent named");
            time(&mut times[0], started);
            let started = Instant::now();
            let written = snapshot.into_bytes();
            time(&mut times[1], started);
            bytes = written.len();
            let started = Instant::now();
            let read = FlockSnapshot::from_vec(written).expect("its own bytes");
            time(&mut times[2], started);
            let started = Instant::now();
            read.restore(app.world_mut()).expect("the same agents");
            time(&mut times[3], started);
        }
        let [take, into_bytes, from_vec, restore] = times.map(median);
        let row = SnapshotRow {
            agents,
            activity,
            bytes,
            take,
            into_bytes,
            from_vec,
            restore,
        };
        println!("snapshot {agents} agents: {}", row.cells());
        rows.push(row);
    }
    rows
}

impl SnapshotRow {
    /// The row's cells after the agents.
    fn cells(&self) -> String {
        let activity = match self.activity {
            Activity::Flocking => "flocking",
            Activity::Busy => "seeking, wandering, far",
            Activity::Sent => "sent across the banded map, paths being planned",
        };
        let per_agent = self.bytes as f64 / self.agents as f64;
        let save = ms(self.take) + ms(self.into_bytes);
        let load = ms(self.from_vec) + ms(self.restore);
        format!(
            "{activity} | {:.2} MB ({per_agent:.1}) | {:.3} + {:.3} = {save:.3} | {:.3} + {:.3} = {load:.3}",
            self.bytes as f64 / 1e6,
            ms(self.take),
            ms(self.into_bytes),
            ms(self.from_vec),
            ms(self.restore),
        )
    }
}

/// The rows' table, with what it measured: medians of `repeats` of each step.
pub fn table(rows: &[SnapshotRow], repeats: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Snapshots of the same apps' crowds (named in spawn order), after {SETTLE_TICKS} ticks: \
         the flockers as above, and the same crowd with every agent seeking a point and \
         wandering, with level of detail on and every agent far from its focus (so each carries \
         a target, a wander point and a kept force); and the banded map's {UNITS} units (above, \
         {SIDE} x {SIDE} tiles, planned hierarchically), each sent to its own point, after \
         {SETTLE_TICKS} ticks at the planner's default budget (the snapshot holds their paths, \
         the requests waiting, the search being run and the clusters worked out, and the \
         terrain). Taken (`FlockSnapshot::take`), written \
         (`into_bytes`, in the snapshot's own memory, as for a file), read back (`from_vec`, \
         which checks every agent in the read bytes' memory) and restored into the same app \
         (`restore`); \
         medians of {repeats} of each, in ms; in brackets, bytes an agent.\n\n\
         | agents | crowd | bytes | save: take + into_bytes ms | load: from_vec + restore ms |\n\
         |---:|---|---:|---:|---:|"
    );
    for row in rows {
        let _ = writeln!(out, "| {} | {} |", row.agents, row.cells());
    }
    out
}
