//! The compute pool's threads kept polling for tasks while the flocking systems run (see
//! [`KeepAwake`]).

use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::tasks::TaskPool;
use bevy::tasks::futures_lite::future::yield_now;

/// How long pollers wait for the next pass before they give up, where the systems' end is not
/// signalled (a system of the chain that did not run): longer than the serial work between
/// two passes, even at 100,000 agents.
const IDLE_LIMIT: Duration = Duration::from_millis(2);

/// Keeps the compute pool's threads polling for tasks from the start of the flocking systems to
/// their end, so that each parallel pass starts on every thread at once.
///
/// A pool thread with nothing to do parks, and a parked thread takes a while to wake: on a
/// machine that idles between frames, about as long as a pass takes at 10,000 agents, and a
/// tick runs a dozen passes. So the systems' first set (and each pass) spawns a poller per pool
/// thread, at most one fewer than the machine's cores (the thread that runs the systems needs
/// one): a task that yields to any other task of the pool, over and over, until
/// [`release`](Self::release) at the end of the systems, or until nothing has held the pool for
/// [`IDLE_LIMIT`].
#[derive(Clone)]
pub(crate) struct KeepAwake(Arc<Pollers>);

/// What the pollers and the passes share.
struct Pollers {
    /// The time `deadline` counts from.
    epoch: Instant,
    /// Nanoseconds after `epoch` at which the pollers stop; zero stops them at once.
    deadline: AtomicU64,
    /// Pollers running.
    running: AtomicUsize,
    /// The machine's cores.
    cores: usize,
}

impl KeepAwake {
    /// No pollers yet, on a machine of `cores` cores.
    pub(crate) fn new(cores: usize) -> Self {
        Self(Arc::new(Pollers {
            epoch: Instant::now(),
            deadline: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            cores,
        }))
    }

    /// Keeps `pool`'s threads polling for [`IDLE_LIMIT`] more, and spawns the pollers that are
    /// missing: called as the flocking systems and each pass start.
    pub(crate) fn hold(&self, pool: &TaskPool) {
        let pollers = &self.0;
        let deadline = pollers.now() + IDLE_LIMIT.as_nanos() as u64;
        pollers.deadline.store(deadline, Ordering::Relaxed);
        let wanted = pool.thread_num().min(pollers.cores.saturating_sub(1));
        while pollers.running.load(Ordering::Relaxed) < wanted {
            pollers.running.fetch_add(1, Ordering::Relaxed);
            let pollers = Arc::clone(pollers);
            pool.spawn(async move {
                while pollers.now() < pollers.deadline.load(Ordering::Relaxed) {
                    yield_now().await;
                }
                pollers.running.fetch_sub(1, Ordering::Relaxed);
            })
            .detach();
        }
    }

    /// Stops the pollers: the systems that run passes are done for this tick.
    pub(crate) fn release(&self) {
        self.0.deadline.store(0, Ordering::Relaxed);
    }

    /// Whether the pool was held and not released since (whether or not the pollers have
    /// given up waiting).
    #[cfg(test)]
    pub(super) fn is_held(&self) -> bool {
        self.0.deadline.load(Ordering::Relaxed) != 0
    }

    /// Pollers running.
    #[cfg(test)]
    fn running(&self) -> usize {
        self.0.running.load(Ordering::Relaxed)
    }
}

impl Pollers {
    /// Nanoseconds since `epoch`.
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

#[cfg(test)]
mod tests {
    use bevy::tasks::TaskPoolBuilder;

    use super::*;

    /// Waits up to a second for `awake` to have `count` pollers running; returns how many run.
    fn wait_for(awake: &KeepAwake, count: usize) -> usize {
        let started = Instant::now();
        while awake.running() != count && started.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_micros(100));
        }
        awake.running()
    }

    #[test]
    fn a_poller_per_pool_thread_but_one_core_until_released() {
        let pool = TaskPoolBuilder::new().num_threads(3).build();
        let awake = KeepAwake::new(3);
        awake.hold(&pool);
        assert_eq!(awake.running(), 2, "3 threads on 3 cores: a poller on two");
        awake.hold(&pool);
        assert_eq!(awake.running(), 2, "a second pass spawns no more");
        awake.release();
        assert_eq!(wait_for(&awake, 0), 0, "released, every poller stops");
    }

    #[test]
    fn pollers_stop_when_no_pass_comes() {
        let pool = TaskPoolBuilder::new().num_threads(2).build();
        let awake = KeepAwake::new(8);
        awake.hold(&pool);
        assert_eq!(awake.running(), 2, "2 threads on 8 cores: a poller on each");
        assert_eq!(wait_for(&awake, 0), 0, "still polling long after the limit");
    }

    #[test]
    fn one_core_gets_no_poller() {
        let pool = TaskPoolBuilder::new().num_threads(1).build();
        let awake = KeepAwake::new(1);
        awake.hold(&pool);
        assert_eq!(awake.running(), 0);
    }
}
