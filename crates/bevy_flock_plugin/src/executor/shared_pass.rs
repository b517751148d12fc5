//! A pass shared with the main thread (see [`TaskPoolExecutor`](super::TaskPoolExecutor)).

use core::any::Any;
use core::future::{Future, poll_fn};
use core::sync::atomic::{AtomicUsize, Ordering};
use core::task::{Poll, Waker};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use bevy::tasks::{TaskPool, ThreadExecutor};

/// A pass whose tasks are claimed one at a time by the pool's threads and the main thread.
///
/// The main thread's share runs in a task detached on its executor, which outlives the pass if
/// that thread is busy: so it holds the pass's work as a pointer, and calls it only for a task
/// it claimed, which [`run`](Self::run) waits for before it returns; once every task is
/// claimed, the pointer is never read again. A main thread that never looks claims nothing, and
/// delays nothing.
pub(super) struct SharedPass {
    /// The next task to claim; `tasks` and beyond claim nothing.
    next: AtomicUsize,
    /// Tasks done.
    done: AtomicUsize,
    tasks: usize,
    /// The pass's work, valid until `done == tasks`.
    work: *const (dyn Fn(usize) + Sync),
    /// The first panic of a task, resumed by the pass.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The pass's wait for its last tasks, woken by the thread that finishes them.
    waiting: Mutex<Option<Waker>>,
}

// SAFETY: `work` points to a `Sync` closure, called only for claimed tasks while the pass that
// owns it waits (see `SharedPass`); the rest is atomics and mutexes.
unsafe impl Send for SharedPass {}
// SAFETY: as above.
unsafe impl Sync for SharedPass {}

impl SharedPass {
    /// Runs tasks `0..tasks` of `work` on `pool`'s threads, the calling thread and `main`'s.
    pub(super) fn run(
        pool: &TaskPool,
        main: &ThreadExecutor<'static>,
        tasks: usize,
        work: &(dyn Fn(usize) + Sync),
    ) {
        // SAFETY: only the lifetime is erased; the pointer is read only for claimed tasks, and
        // this function returns only once every task is done.
        let work = unsafe {
            core::mem::transmute::<
                *const (dyn Fn(usize) + Sync + '_),
                *const (dyn Fn(usize) + Sync + 'static),
            >(work)
        };
        let pass = Arc::new(Self {
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            tasks,
            work,
            panic: Mutex::new(None),
            waiting: Mutex::new(None),
        });
        let helper = Arc::clone(&pass);
        main.spawn(async move { helper.claim_tasks() }).detach();
        pool.scope(|scope| {
            for _ in 0..pool.thread_num().max(1) {
                scope.spawn(async { pass.claim_tasks() });
            }
            // The tasks the main thread claimed: waited for as a task, so that this thread runs
            // the pool's other tasks meanwhile.
            scope.spawn(pass.all_done());
        });
        let panic = pass
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
    }

    /// Runs tasks until none is left to claim; a panic is kept for the pass to resume.
    fn claim_tasks(&self) {
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if k >= self.tasks {
                return;
            }
            // SAFETY: task `k` is claimed and not done, so the pass that owns `work` is still
            // waiting (see `SharedPass::run`).
            let work = unsafe { &*self.work };
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| work(k))) {
                let mut panic = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
                panic.get_or_insert(payload);
            }
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.tasks {
                let waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(waker) = waiting.as_ref() {
                    waker.wake_by_ref();
                }
            }
        }
    }

    /// Completes once every task is done.
    fn all_done(&self) -> impl Future<Output = ()> + '_ {
        poll_fn(|context| {
            if self.done.load(Ordering::Acquire) == self.tasks {
                return Poll::Ready(());
            }
            let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
            *waiting = Some(context.waker().clone());
            // Checked again under the lock: the last task, finished since, found no waker.
            if self.done.load(Ordering::Acquire) == self.tasks {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::thread::{self, ThreadId};
    use std::time::{Duration, Instant};

    use bevy::tasks::TaskPoolBuilder;

    use super::*;

    /// Runs a pass of `tasks` tasks on a thread standing in for a pool thread (with a pool of one
    /// thread beside it) while this thread, standing in for the main thread, runs what is
    /// spawned on its executor; returns the thread each task ran on, by task.
    fn pass_beside_this_thread(tasks: usize, each: Duration) -> Vec<Vec<ThreadId>> {
        let pool = TaskPoolBuilder::new().num_threads(1).build();
        let main = TaskPool::get_thread_executor();
        let ran = Mutex::new(vec![Vec::new(); tasks]);
        let work = |k: usize| {
            let started = Instant::now();
            while started.elapsed() < each {
                std::hint::spin_loop();
            }
            ran.lock().unwrap()[k].push(thread::current().id());
        };
        thread::scope(|scope| {
            let pass = scope.spawn(|| SharedPass::run(&pool, &main, tasks, &work));
            let ticker = main.ticker().expect("this thread's executor");
            while !pass.is_finished() {
                ticker.try_tick();
            }
            pass.join().expect("the pass returns");
        });
        ran.into_inner().unwrap()
    }

    #[test]
    fn the_main_thread_takes_a_share_of_a_pass() {
        let here = thread::current().id();
        let ran = pass_beside_this_thread(24, Duration::from_millis(2));
        assert!(
            ran.iter().all(|threads| threads.len() == 1),
            "every task runs once: {ran:?}"
        );
        let on_main = ran.iter().filter(|threads| threads[0] == here).count();
        assert!(
            (1..24).contains(&on_main),
            "the main thread ran {on_main} of 24 tasks of 2 ms, the pool the rest"
        );
    }

    #[test]
    fn a_main_thread_that_never_looks_delays_nothing() {
        // An executor nobody ticks: its share of the pass never starts.
        let idle = ThreadExecutor::new();
        let pool = TaskPoolBuilder::new().num_threads(1).build();
        let ran: Vec<AtomicUsize> = (0..40).map(|_| AtomicUsize::new(0)).collect();
        SharedPass::run(&pool, &idle, ran.len(), &|k| {
            ran[k].fetch_add(1, Ordering::Relaxed);
        });
        let counts: Vec<usize> = ran.iter().map(|r| r.load(Ordering::Relaxed)).collect();
        assert_eq!(counts, vec![1; 40], "every task runs once without it");
    }

    #[test]
    fn a_panic_in_a_task_reaches_the_pass() {
        let idle = ThreadExecutor::new();
        let pool = TaskPoolBuilder::new().num_threads(1).build();
        let done = AtomicUsize::new(0);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            SharedPass::run(&pool, &idle, 8, &|k| {
                assert_ne!(k, 5, "task 5 fails");
                done.fetch_add(1, Ordering::Relaxed);
            });
        }));
        let payload = outcome.expect_err("the pass resumes the task's panic");
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or_default();
        assert!(message.contains("task 5 fails"), "{message:?}");
        assert_eq!(done.into_inner(), 7, "the other tasks still run");
    }
}
