//! The plugin's rows: its tick on the benchmark's pool and on Bevy's default pools, and Bevy's
//! update without it.

use std::time::Duration;

use bevy::app::App;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy::time::TimeUpdateStrategy;
use bevy_flock_plugin::prelude::*;
use flock_core::Space;

use crate::harness::{flocking_plugins, headless_app, plugin_app, time_updates};
use crate::options::pause_of;
use crate::rows::{Method, Row, dims, row};
use crate::workload::Workload;

/// The update of [`bench_plugin`]'s app without the plugin and its agents: Bevy's own part of
/// every plugin tick.
pub(crate) fn bench_bare_app(
    workload: &Workload,
    threads: usize,
    cores: usize,
    ticks: usize,
    pause: Duration,
) -> Row {
    let times = time_updates(&mut headless_app(cores), ticks, pause);
    row(Method::BareApp, workload, threads, times, 0.0, None)
}

/// The plugin tick, on `threads` of the compute pool's `cores` threads, each tick after
/// `pause` (untimed).
pub(crate) fn bench_plugin(
    workload: &Workload,
    threads: usize,
    cores: usize,
    ticks: usize,
    pause: Duration,
) -> Row {
    let mut app = plugin_app(workload.space, cores);
    if threads == 1 {
        // Otherwise the plugin's default split, as a game gets it.
        app.world_mut()
            .resource_mut::<FlockingConfig>()
            .parallel_chunk_size = Some(usize::MAX);
    }
    workload.spawn_agents(&mut app);
    let times = time_updates(&mut app, ticks, pause);
    let neighbours = app.world().resource::<FlockMetrics>().mean_neighbours;
    let candidates = app
        .world()
        .resource::<FlockSimulation>()
        .crowd()
        .candidates_per_agent();
    row(
        Method::Plugin,
        workload,
        threads,
        times,
        neighbours,
        Some(candidates),
    )
}

/// The flag that makes the benchmark measure the plugin with Bevy's default task pools and
/// print the row for its parent process (see [`bench_plugin_default_pool`]).
pub(crate) const CHILD_FLAG: &str = "--default-pool-child";

/// The plugin tick in an app with Bevy's default task pools, as a game gets them, each after
/// `pause`: measured in a child process (`in_process` when this already is one, or the run
/// narrowed to it), whose compute pool Bevy sizes from the machine's cores. `None` if the child
/// failed.
pub(crate) fn bench_plugin_default_pool(
    workload: &Workload,
    ticks: usize,
    pause: Duration,
    in_process: bool,
) -> Option<Row> {
    if in_process {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .add_plugins(flocking_plugins(workload.space))
            .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
        workload.spawn_agents(&mut app);
        let times = time_updates(&mut app, ticks, pause);
        let threads = ComputeTaskPool::get().thread_num();
        let neighbours = app.world().resource::<FlockMetrics>().mean_neighbours;
        let candidates = app
            .world()
            .resource::<FlockSimulation>()
            .crowd()
            .candidates_per_agent();
        return Some(row(
            Method::PluginDefaultPool,
            workload,
            threads,
            times,
            neighbours,
            Some(candidates),
        ));
    }
    let output = std::process::Command::new(std::env::current_exe().ok()?)
        .args([
            CHILD_FLAG,
            "--agents",
            &workload.len().to_string(),
            "--space",
            &format!("{}d", dims(workload.space)),
            "--ticks",
            &ticks.to_string(),
            "--pause-ms",
            &pause.as_millis().to_string(),
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().find_map(|l| l.strip_prefix("ROW "))?;
    let fields: Vec<&str> = line.split(' ').collect();
    let [threads, neighbours, candidates, times] = fields[..] else {
        return None;
    };
    let times = times
        .split(',')
        .map(|ns| ns.parse().map(Duration::from_nanos))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    Some(row(
        Method::PluginDefaultPool,
        workload,
        threads.parse().ok()?,
        times,
        neighbours.parse().ok()?,
        candidates.parse().ok(),
    ))
}

/// The child's side of [`bench_plugin_default_pool`]: measures and prints one `ROW` line.
pub(crate) fn run_default_pool_child(args: &[String]) {
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let agents = value_of("--agents")
        .and_then(|n| n.parse().ok())
        .expect("--agents N");
    let space = match value_of("--space").as_deref() {
        Some("2d") => Space::Planar,
        _ => Space::Volume,
    };
    let ticks = value_of("--ticks")
        .and_then(|n| n.parse().ok())
        .expect("--ticks N");
    let pause = pause_of(args);
    let row = bench_plugin_default_pool(&Workload::new(agents, space), ticks, pause, true)
        .expect("measured in this process");
    let times: Vec<String> = row.times.iter().map(|t| t.as_nanos().to_string()).collect();
    println!(
        "ROW {} {} {} {}",
        row.threads,
        row.neighbours,
        row.candidates.unwrap_or(f32::NAN),
        times.join(",")
    );
}
