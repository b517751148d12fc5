//! Where the per-agent passes run: on the calling thread, on scoped threads, or on an engine's
//! task pool.

use std::sync::{Mutex, PoisonError};

/// Runs independent tasks of a per-agent pass, on whatever threads it likes.
///
/// The crowd splits each pass (gathering agents into cell order, the force pass, integration)
/// into chunks of [`chunk_len`](Self::chunk_len) agents and asks [`run`](Self::run) to call
/// each chunk's task once. Every agent's result depends only on the tick's inputs, so the
/// outcome is bit-identical whatever the executor and thread count.
pub trait ChunkExecutor {
    /// How many agents one task covers when a pass over `len` agents is split.
    fn chunk_len(&self, len: usize) -> usize;

    /// Calls `task(k)` exactly once for every `k` in `0..tasks`, on any threads, returning
    /// when all have finished.
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync));
}

/// Runs every pass on the calling thread, as one chunk.
#[derive(Clone, Copy, Debug, Default)]
pub struct Serial;

impl ChunkExecutor for Serial {
    fn chunk_len(&self, len: usize) -> usize {
        len
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..tasks).for_each(task);
    }
}

/// Splits each pass into one contiguous part per thread, on scoped std threads.
#[derive(Clone, Copy, Debug)]
pub struct ScopedThreads(pub usize);

impl ChunkExecutor for ScopedThreads {
    fn chunk_len(&self, len: usize) -> usize {
        len.div_ceil(self.0.max(1))
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        std::thread::scope(|scope| {
            for k in 0..tasks {
                scope.spawn(move || task(k));
            }
        });
    }
}

/// Calls `work(k, part)` once for each of `parts`, `k` its place in the list, on the executor's
/// threads. Parts the executor did not run (it should run them all) are run on this thread.
pub fn for_each_part<P: Send>(
    executor: &dyn ChunkExecutor,
    parts: Vec<P>,
    work: impl Fn(usize, P) + Sync,
) {
    if parts.len() <= 1 {
        parts
            .into_iter()
            .enumerate()
            .for_each(|(k, part)| work(k, part));
        return;
    }
    // Each task takes its own part; the locks are never contended.
    let parts: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let take = |k: usize| {
        parts[k]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    };
    executor.run(parts.len(), &|k| {
        if let Some(part) = take(k) {
            work(k, part);
        }
    });
    for k in 0..parts.len() {
        if let Some(part) = take(k) {
            work(k, part);
        }
    }
}

/// Calls `work(first, chunk)` for consecutive chunks of `items` (of the executor's chunk
/// length; `first` is the chunk's offset), on the executor's threads.
pub(crate) fn for_each_chunk_mut<T: Send>(
    executor: &dyn ChunkExecutor,
    items: &mut [T],
    work: impl Fn(usize, &mut [T]) + Sync,
) {
    let chunk_len = executor.chunk_len(items.len()).max(1);
    let chunks: Vec<&mut [T]> = items.chunks_mut(chunk_len).collect();
    for_each_part(executor, chunks, |k, chunk| work(k * chunk_len, chunk));
}

/// [`for_each_chunk_mut`] over two slices of the same length, chunked alike.
pub(crate) fn for_each_chunk_mut2<A: Send, B: Send>(
    executor: &dyn ChunkExecutor,
    a: &mut [A],
    b: &mut [B],
    work: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    debug_assert_eq!(a.len(), b.len());
    let chunk_len = executor.chunk_len(a.len()).max(1);
    let pairs: Vec<(&mut [A], &mut [B])> = a
        .chunks_mut(chunk_len)
        .zip(b.chunks_mut(chunk_len))
        .collect();
    for_each_part(executor, pairs, |k, (a, b)| work(k * chunk_len, a, b));
}
