//! How far each agent stood from every obstacle when last measured: a move that stays within
//! that gap (less how far the agent has come since) touches nothing, and its sweep is skipped.
//! Most agents stand well clear of every wall, and each sweeps its moves three or four times a
//! tick (the velocity-obstacle step's choices, the move, a slide); measured once, the gap
//! vouches for them for many ticks.

use glam::Vec3;

use super::set::{HULL_SLACK, ObstacleSet};
use crate::executor::{ChunkExecutor, for_each_chunk_mut};

/// How far a point stood from every shape of a set: no shape is nearer `at` than `gap`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Clearance {
    at: Vec3,
    gap: f32,
}

impl Default for Clearance {
    /// Vouches for nothing.
    fn default() -> Self {
        Self {
            at: Vec3::NAN,
            gap: f32::NEG_INFINITY,
        }
    }
}

impl Clearance {
    /// Whether every shape is farther than `bound` from `p`: the gap, less how far `p` is from
    /// where it was measured, exceeds `bound` by more than a distance's rounding (which grows
    /// with the coordinates). Never for a NaN.
    #[inline]
    pub(crate) fn vouches(&self, p: Vec3, bound: f32) -> bool {
        let rounding = 2.0 * HULL_SLACK + (p.abs().max_element() + self.gap) * 1e-5;
        let room = self.gap - bound - rounding;
        room > 0.0 && p.distance_squared(self.at) < room * room
    }
}

impl ObstacleSet {
    /// How far `p` stands from every shape: the nearest shape's distance, or the reach where
    /// none is that near (the set finds every shape within it).
    pub(crate) fn clearance(&self, p: Vec3) -> Clearance {
        let reach = self.reach();
        let gap = self.nearest(p).map_or(reach, |(d, _)| d.min(reach));
        Clearance { at: p, gap }
    }
}

/// By agent index, how far each agent stood from every shape of the crowd's own obstacles when
/// last measured, for the set as binned then (its generation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Clearances {
    generation: Option<u64>,
    by_agent: Vec<Clearance>,
    /// Whether nothing is known (every move swept), for the tests that compare.
    #[cfg(test)]
    pub(crate) unknown: bool,
}

impl Clearances {
    /// The clearances of `agents` agents, measured again for those whose own does not vouch
    /// for the moves they may make (within `reach(i)` of agent `i`) from `position(i)`, and for
    /// every agent once `set` was binned anew; the work split by `executor`.
    pub(crate) fn refresh(
        &mut self,
        set: &ObstacleSet,
        agents: usize,
        executor: &(dyn ChunkExecutor + Send + Sync),
        position: impl Fn(usize) -> Vec3 + Sync,
        reach: impl Fn(usize) -> f32 + Sync,
    ) {
        if self.generation != Some(set.generation()) {
            self.generation = Some(set.generation());
            self.by_agent.clear();
        }
        self.by_agent.resize(agents, Clearance::default());
        #[cfg(test)]
        if self.unknown {
            self.by_agent.clear();
        }
        if set.is_empty() || self.by_agent.is_empty() {
            return;
        }
        for_each_chunk_mut(executor, &mut self.by_agent, |first, chunk| {
            for (k, clearance) in chunk.iter_mut().enumerate() {
                let p = position(first + k);
                if !clearance.vouches(p, reach(first + k)) {
                    *clearance = set.clearance(p);
                }
            }
        });
    }

    /// By agent index.
    pub(crate) fn by_agent(&self) -> &[Clearance] {
        &self.by_agent
    }
}
