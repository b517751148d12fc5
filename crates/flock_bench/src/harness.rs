//! How cases are timed: warm-up, the headless apps, the compute pool the passes split over.

use std::time::{Duration, Instant};

use bevy::app::{App, TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use bevy::time::TimeUpdateStrategy;
use bevy_flock_plugin::prelude::*;
use flock_core::{ChunkExecutor, Space};

/// Ticks run before measuring.
pub(crate) const WARM_UP_TICKS: usize = 2;
/// How long the compute pool's threads are kept busy before a case's warm-up ticks. After a
/// stretch on one thread (a case measured on one, or the trees'), the first ticks on two pay
/// for waking the idle core: on the shared cloud machine, the plugin at 10,000 agents took
/// about 3.7 ms a tick for some 15 ticks, then 2.1.
pub(crate) const WARM_UP_TIME: Duration = Duration::from_millis(200);

/// Keeps the compute pool's threads waking and sleeping for [`WARM_UP_TIME`], as ticks do,
/// without running a tick (which would move the workload on).
pub(crate) fn wake_cores() {
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let started = Instant::now();
    while started.elapsed() < WARM_UP_TIME {
        pool.scope(|scope| {
            for _ in 0..pool.thread_num() * 4 {
                scope.spawn(async {
                    let spin = Instant::now();
                    while spin.elapsed() < Duration::from_micros(20) {
                        core::hint::spin_loop();
                    }
                });
            }
        });
    }
}

/// Runs `tick` after the cores are woken (see [`wake_cores`]) for a few warm-up ticks and then `ticks` measured ones,
/// each after `pause`; returns the times.
pub(crate) fn time_ticks(ticks: usize, pause: Duration, mut tick: impl FnMut()) -> Vec<Duration> {
    wake_cores();
    for _ in 0..WARM_UP_TICKS {
        tick();
    }
    (0..ticks)
        .map(|_| {
            std::thread::sleep(pause);
            let started = Instant::now();
            tick();
            started.elapsed()
        })
        .collect()
}

/// The median of `times` (the upper of the middle two for an even count; zero for none).
pub(crate) fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// Finishes `app` and times its updates (see [`time_ticks`]).
pub(crate) fn time_updates(app: &mut App, ticks: usize, pause: Duration) -> Vec<Duration> {
    app.finish();
    app.cleanup();
    time_ticks(ticks, pause, || app.update())
}

/// The plugins with their defaults, on the plane for a planar workload.
pub(crate) fn flocking_plugins(space: Space) -> FlockingPlugins {
    match space {
        Space::Volume => FlockingPlugins::default(),
        Space::Planar => FlockingPlugins::default().planar(),
    }
}

/// A headless app with the plugin, its compute pool given every core, and one fixed tick per
/// update.
pub(crate) fn plugin_app(space: Space, cores: usize) -> App {
    let mut app = headless_app(cores);
    app.add_plugins(flocking_plugins(space));
    app
}

/// A headless app, its compute pool given every core, and one fixed tick per update: the
/// plugin's app without the plugin.
pub(crate) fn headless_app(cores: usize) -> App {
    let mut app = App::new();
    // Bevy's default split of 2 cores leaves the compute pool 1 thread, on which the
    // systems themselves run; give it every core, as a game on a larger machine has.
    let one = |threads| TaskPoolThreadAssignmentPolicy {
        min_threads: threads,
        max_threads: threads,
        percent: 1.0,
        on_thread_spawn: None,
        on_thread_destroy: None,
    };
    let task_pool_options = TaskPoolOptions {
        io: one(1),
        async_compute: one(1),
        compute: one(cores),
        ..TaskPoolOptions::with_num_threads(cores + 2)
    };
    app.add_plugins(MinimalPlugins.set(TaskPoolPlugin { task_pool_options }))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

/// Splits each pass into one part per thread on Bevy's compute task pool, whose threads stay
/// up between passes (scoped threads would be spawned anew for each of a tick's three passes).
pub(crate) struct PoolParts(pub(crate) usize);

impl ChunkExecutor for PoolParts {
    fn chunk_len(&self, len: usize) -> usize {
        len.div_ceil(self.0.max(1))
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        ComputeTaskPool::get_or_init(TaskPool::default).scope(|scope| {
            for k in 0..tasks {
                scope.spawn(async move { task(k) });
            }
        });
    }
}
