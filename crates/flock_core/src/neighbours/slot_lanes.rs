//! [`SlotLanes`]: the agents in grid slot order as one array per coordinate, padded for the
//! lanes, which the lane scan reads eight candidates at a time.

use core::sync::atomic::{AtomicBool, Ordering};
use std::collections::HashMap;

use crate::agents::Gathered;
use crate::executor::{ChunkExecutor, for_each_part};
use glam::Vec3;

use crate::simd::{SimdPath, WIDTH};

/// Candidates tested at once.
pub(super) const LANES: usize = WIDTH;
/// Flock keys are stored as `f32`, exact below this many distinct flocks.
const EXACT_KEYS: usize = 1 << 24;

/// Positions, velocities, flocks and parameter sets of the agents in grid slot order, one
/// array per component, the lanes' each padded with `LANES - 1` zeros so that the last lanes
/// load in bounds.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotLanes {
    pub(super) x: Vec<f32>,
    pub(super) y: Vec<f32>,
    pub(super) z: Vec<f32>,
    pub(super) vx: Vec<f32>,
    pub(super) vy: Vec<f32>,
    pub(super) vz: Vec<f32>,
    /// The agent's flock as an `f32` (see [`SlotLanes::fill`]).
    pub(super) flock_key: Vec<f32>,
    /// Whether every flock got a distinct key (fewer than [`EXACT_KEYS`] flocks).
    pub(super) keys_exact: bool,
    /// The agent's parameter set: read for neighbours, a few slots from the agent's own, where
    /// the agents' column by index would miss the cache.
    pub(super) params: Vec<u32>,
    /// The form of the lanes scans run.
    pub(super) simd: SimdPath,
}

impl SlotLanes {
    /// Copies the `gathered` agents (in slot order) into columns, the work split on
    /// `executor`.
    ///
    /// A flock's key is its number, exact as an `f32` below 2^24 (and for `u32::MAX`, the
    /// number of agents whose flock is missing), so that every part can write its own; with
    /// larger numbers, flocks are numbered afresh in order of first appearance.
    pub(crate) fn fill(&mut self, gathered: &[Gathered], executor: &dyn ChunkExecutor) {
        let len = gathered.len();
        let padded = len + LANES - 1;
        // Every entry below `len` is written below: only the padding needs zeros.
        for column in self.columns_mut() {
            column.resize(padded, 0.0);
            column[len..].fill(0.0);
        }
        self.params.resize(len, 0);
        let chunk_len = executor.chunk_len(len).max(1);
        fn chunks(
            column: &mut [f32],
            len: usize,
            chunk_len: usize,
        ) -> core::slice::ChunksMut<'_, f32> {
            column[..len].chunks_mut(chunk_len)
        }
        let parts: Vec<_> = gathered
            .chunks(chunk_len)
            .zip(self.params.chunks_mut(chunk_len))
            .zip(chunks(&mut self.x, len, chunk_len))
            .zip(chunks(&mut self.y, len, chunk_len))
            .zip(chunks(&mut self.z, len, chunk_len))
            .zip(chunks(&mut self.vx, len, chunk_len))
            .zip(chunks(&mut self.vy, len, chunk_len))
            .zip(chunks(&mut self.vz, len, chunk_len))
            .zip(chunks(&mut self.flock_key, len, chunk_len))
            .collect();
        let numbered_keys = AtomicBool::new(true);
        for_each_part(executor, parts, |_, part| {
            let ((((((((agents, params), x), y), z), vx), vy), vz), keys) = part;
            let mut numbered = true;
            for (k, agent) in agents.iter().enumerate() {
                let (p, v, flock) = (agent.body.position, agent.body.velocity, agent.flock);
                params[k] = agent.params;
                (x[k], y[k], z[k]) = (p.x, p.y, p.z);
                (vx[k], vy[k], vz[k]) = (v.x, v.y, v.z);
                keys[k] = flock as f32;
                numbered &= (flock as usize) < EXACT_KEYS || flock == u32::MAX;
            }
            if !numbered {
                numbered_keys.store(false, Ordering::Relaxed);
            }
        });
        self.keys_exact = numbered_keys.into_inner() || self.renumber_flocks(gathered);
    }

    /// Keys each flock by its order of first appearance in `gathered`; returns whether the keys
    /// tell every flock apart (fewer than [`EXACT_KEYS`] flocks).
    #[cold]
    fn renumber_flocks(&mut self, gathered: &[Gathered]) -> bool {
        let mut keys: HashMap<u32, f32> = HashMap::new();
        for (key, agent) in self.flock_key.iter_mut().zip(gathered) {
            let next = keys.len() as f32;
            *key = *keys.entry(agent.flock).or_insert(next);
        }
        keys.len() < EXACT_KEYS
    }

    fn columns_mut(&mut self) -> [&mut Vec<f32>; 7] {
        [
            &mut self.x,
            &mut self.y,
            &mut self.z,
            &mut self.vx,
            &mut self.vy,
            &mut self.vz,
            &mut self.flock_key,
        ]
    }

    /// The position in `slot`.
    pub(crate) fn position(&self, slot: usize) -> Vec3 {
        Vec3::new(self.x[slot], self.y[slot], self.z[slot])
    }

    /// The velocity of the agent in `slot`.
    pub(crate) fn velocity(&self, slot: usize) -> Vec3 {
        Vec3::new(self.vx[slot], self.vy[slot], self.vz[slot])
    }

    /// The parameter set of the agent in `slot`.
    pub(crate) fn params(&self, slot: usize) -> u32 {
        self.params[slot]
    }

    /// Whether flock keys tell every flock apart, so that [`LaneScan`](super::lanes::LaneScan) may be used.
    pub(crate) fn keys_exact(&self) -> bool {
        self.keys_exact
    }

    /// The flock key in `slot`: equal keys mean the same flock while `keys_exact` holds.
    pub(crate) fn flock_key(&self, slot: usize) -> f32 {
        self.flock_key[slot]
    }

    /// The form of the lanes scans of these agents run.
    pub(crate) fn simd(&self) -> SimdPath {
        self.simd
    }

    /// Makes scans run on `simd`, if this processor runs it; returns whether it does.
    pub(crate) fn set_simd(&mut self, simd: SimdPath) -> bool {
        let supported = simd.is_supported();
        if supported {
            self.simd = simd;
        }
        supported
    }
}
