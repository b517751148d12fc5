//! The crowd's per-agent passes on Bevy's compute task pool, and on the main thread where the
//! pool leaves that thread's core idle.

#[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
use std::sync::Arc;

use bevy::tasks::{ComputeTaskPool, TaskPool};
#[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
use bevy::tasks::{ThreadExecutor, available_parallelism};
use flock_core::ChunkExecutor;

use crate::FlockingConfig;

#[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
mod shared_pass;

/// The fewest agents a task is given when a pass is split a task per thread of the pool: for
/// fewer, waking a thread costs about what its share of the work saves.
const MIN_TASK_AGENTS: usize = 128;
/// The most agents a task is given when a pass is split a task per thread of the pool, the
/// fixed chunk size before the split adapted: at 10,000 and 100,000 agents on 2 threads, tasks
/// of this size measured the same as one per thread, and smaller ones (256) slower.
const MAX_TASK_AGENTS: usize = 1024;

/// The executor of the thread that built the app, the thread that runs its schedules: while a
/// multi-threaded schedule runs, that thread waits on it, running only the tasks spawned on this
/// executor. (Without Bevy's `multi_threaded` feature, or on the web, there is no pool to help.)
#[derive(Clone)]
pub(crate) struct MainThread {
    #[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
    executor: Arc<ThreadExecutor<'static>>,
    /// The machine's cores, read once: the count is read from the system (cgroup files on
    /// Linux), too slowly to read for every pass.
    #[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
    cores: usize,
}

impl MainThread {
    /// The executor of the calling thread.
    pub(crate) fn current() -> Self {
        Self {
            #[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
            executor: TaskPool::get_thread_executor(),
            #[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
            cores: available_parallelism(),
        }
    }
}

impl core::fmt::Debug for MainThread {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("MainThread")
    }
}

/// Runs the crowd's per-agent passes in chunks on Bevy's compute task pool.
///
/// Where the pool has fewer threads than the machine has cores (Bevy's default pools give
/// compute a thread per core left after its I/O and async pools: one on two cores), the main
/// thread, which only waits while the schedule's systems run on the pool, helps: the chunks are
/// then claimed one at a time by whichever thread is free, so a main thread busy elsewhere
/// leaves them to the pool and delays nothing.
pub(crate) struct TaskPoolExecutor {
    chunk_size: Option<usize>,
    #[cfg_attr(
        not(all(feature = "multi_threaded", not(target_arch = "wasm32"))),
        expect(dead_code, reason = "no pool to share with the main thread")
    )]
    main_thread: MainThread,
}

impl TaskPoolExecutor {
    /// Chunks of [`FlockingConfig::parallel_chunk_size`] agents, helped by `main_thread`.
    pub(crate) fn new(config: &FlockingConfig, main_thread: &MainThread) -> Self {
        Self {
            chunk_size: config.parallel_chunk_size,
            main_thread: main_thread.clone(),
        }
    }

    /// The main thread's executor, where that thread would otherwise wait idle on a core: the
    /// pool has fewer threads than the machine has cores, and the pass is not run on the main
    /// thread itself.
    #[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
    fn idle_main_thread(&self, pool: &TaskPool) -> Option<&ThreadExecutor<'static>> {
        let main = &self.main_thread;
        (pool.thread_num() < main.cores && main.executor.ticker().is_none())
            .then_some(&*main.executor)
    }
}

impl ChunkExecutor for TaskPoolExecutor {
    /// The chunk size if set; else a task per thread of the compute pool, of
    /// [`MIN_TASK_AGENTS`] to [`MAX_TASK_AGENTS`]: a crowd of 1,024 (RTS units, whose obstacle
    /// casts make each agent costly) is shared among the threads too.
    fn chunk_len(&self, len: usize) -> usize {
        let size = self.chunk_size.unwrap_or_else(|| {
            let threads = ComputeTaskPool::get_or_init(TaskPool::default).thread_num();
            len.div_ceil(threads.max(1))
                .clamp(MIN_TASK_AGENTS, MAX_TASK_AGENTS)
        });
        size.max(1)
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        if tasks <= 1 {
            (0..tasks).for_each(task);
            return;
        }
        let pool = ComputeTaskPool::get_or_init(TaskPool::default);
        #[cfg(all(feature = "multi_threaded", not(target_arch = "wasm32")))]
        if let Some(main) = self.idle_main_thread(pool) {
            shared_pass::SharedPass::run(pool, main, tasks, task);
            return;
        }
        pool.scope(|scope| {
            for k in 0..tasks {
                scope.spawn(async move { task(k) });
            }
        });
    }
}

#[cfg(all(test, feature = "multi_threaded", not(target_arch = "wasm32")))]
mod tests {
    use std::sync::Mutex;
    use std::thread;
    use std::time::{Duration, Instant};

    use bevy::tasks::TaskPoolBuilder;

    use super::*;

    /// A pass run from another thread, as a system's runs on a pool thread, while this thread
    /// (whose executor the simulation keeps, as it keeps the app's thread's) runs what is spawned
    /// on it: this thread takes tasks exactly where the pool leaves a core idle.
    #[test]
    fn the_app_thread_helps_only_where_the_pool_leaves_a_core_idle() {
        let pool = ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(1).build());
        let main = MainThread::current();
        let executor = TaskPoolExecutor::new(&FlockingConfig::default(), &main);
        let ran = Mutex::new(Vec::new());
        let work = |_| {
            let started = Instant::now();
            while started.elapsed() < Duration::from_millis(1) {
                std::hint::spin_loop();
            }
            ran.lock().unwrap().push(thread::current().id());
        };
        thread::scope(|scope| {
            let pass = scope.spawn(|| executor.run(16, &work));
            let ticker = main.executor.ticker().expect("this thread's executor");
            while !pass.is_finished() {
                ticker.try_tick();
            }
            pass.join().expect("the pass returns");
        });
        let ran = ran.into_inner().unwrap();
        assert_eq!(ran.len(), 16, "every task runs once");
        let here = thread::current().id();
        let on_this_thread = ran.iter().filter(|&&id| id == here).count();
        if pool.thread_num() < main.cores {
            assert!(
                on_this_thread > 0,
                "a pool of {} threads on {} cores: this thread took none of 16 tasks",
                pool.thread_num(),
                main.cores
            );
        } else {
            assert_eq!(
                on_this_thread, 0,
                "no core idle, yet this thread took tasks"
            );
        }
    }
}
