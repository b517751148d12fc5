//! What lockstep costs the plugin's tick: the checksum, and agents named by `AgentId`, whether
//! the ids run in the order Bevy stores the agents or not.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::Space;

use crate::crowd_cost::ms;
use crate::harness::{WARM_UP_TICKS, median, plugin_app, wake_cores};
use crate::workload::Workload;

/// The crowd sizes measured.
pub const LOCKSTEP_AGENTS: [usize; 2] = [10_000, 100_000];

/// How the agents of an app are named.
#[derive(Clone, Copy)]
enum Naming {
    /// No ids: the agents go into the kernel in the order Bevy stores them.
    None,
    /// `AgentId(k)` for the `k`th agent spawned: the ids run in the order they are stored.
    InOrder,
    /// The ids a fixed shuffle of that: the kernel takes the agents in another order than the
    /// one they are stored in, every tick.
    Shuffled,
}

const NAMINGS: [Naming; 3] = [Naming::None, Naming::InOrder, Naming::Shuffled];

/// The medians at one crowd size: the tick with each naming, and the checksum read after the
/// tick of the app whose ids are in order.
pub struct LockstepRow {
    agents: usize,
    ticks: [Duration; 3],
    checksum: Duration,
}

/// An app of `workload`'s agents on 2 threads, named as `naming` says.
fn named_app(workload: &Workload, naming: Naming) -> App {
    let mut app = plugin_app(Space::Volume, 2);
    let agents = workload.spawn_agents(&mut app);
    let n = agents.len() as u64;
    for (k, &agent) in (0..n).zip(&agents) {
        let id = match naming {
            Naming::None => continue,
            Naming::InOrder => k,
            // 7,919 is prime and divides neither size, so this is a permutation of 0..n.
            Naming::Shuffled => k * 7_919 % n,
        };
        app.world_mut().entity_mut(agent).insert(AgentId(id));
    }
    app.finish();
    app.cleanup();
    app
}

/// `rounds` rounds of `ticks` ticks at each of `sizes`, the three namings taking turns tick by
/// tick (one app each), so that a slow spell of the machine lands on each alike.
pub fn measure(ticks: usize, rounds: usize, sizes: &[usize]) -> Vec<LockstepRow> {
    let mut rows = Vec::new();
    for &agents in sizes {
        let workload = Workload::new(agents, Space::Volume);
        let mut times: [Vec<Duration>; 3] = Default::default();
        let mut checksums = Vec::new();
        for _ in 0..rounds {
            let mut apps = NAMINGS.map(|naming| named_app(&workload, naming));
            wake_cores();
            for tick in 0..WARM_UP_TICKS + ticks {
                for ((naming, app), times) in NAMINGS.iter().zip(&mut apps).zip(&mut times) {
                    let started = Instant::now();
                    app.update();
                    let took = started.elapsed();
                    if tick < WARM_UP_TICKS {
                        continue;
                    }
                    times.push(took);
                    if matches!(naming, Naming::InOrder) {
                        let started = Instant::now();
                        let checksum = app.world().resource::<FlockSimulation>().checksum();
                        checksums.push(started.elapsed());
                        std::hint::black_box(checksum);
                    }
                }
            }
        }
        let row = LockstepRow {
            agents,
            ticks: times.map(median),
            checksum: median(checksums),
        };
        println!("lockstep {} agents: {}", row.agents, row.cells());
        rows.push(row);
    }
    rows
}

impl LockstepRow {
    /// The row's cells after the agents.
    fn cells(&self) -> String {
        let [none, in_order, shuffled] = self.ticks.map(ms);
        let checksum = ms(self.checksum);
        format!(
            "{none:.3} | {in_order:.3} ({:.2}) | {shuffled:.3} ({:.2}) | {checksum:.3} | {:.1}%",
            in_order / none,
            shuffled / none,
            100.0 * checksum / in_order,
        )
    }
}

/// The section, with what it measured: `rows` of `rounds` rounds of `ticks` ticks.
pub fn section(rows: &[LockstepRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Lockstep: the checksum and agents named by id (plugin, 3D, 2 threads)\n\n\
         The sweep's 3D workload (the default rules, about 25 neighbours each) in three apps \
         taking turns tick by tick: agents without `AgentId`; named in the order they were \
         spawned, which is the order Bevy stores them in, so the kernel takes them as stored; \
         and named by a fixed shuffle of that, so the kernel takes them in id order, not as \
         stored, every tick (they are sorted, their rows read out of order, and each written \
         back where the entity map finds it). `FlockSimulation::checksum` is read after each tick of the app named in \
         order. Medians of {rounds} rounds of {ticks} ticks; in brackets, over the tick without \
         ids.\n\n\
         | agents | tick ms, no ids | ids as stored | ids shuffled | checksum ms | checksum / tick |\n\
         |---:|---:|---:|---:|---:|---:|"
    );
    for row in rows {
        let _ = writeln!(out, "| {} | {} |", row.agents, row.cells());
    }
    out
}
