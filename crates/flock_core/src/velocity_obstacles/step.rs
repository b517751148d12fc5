//! The step itself: every agent's velocity chosen, in parallel batches, and the ceilings the
//! next force pass keeps the nearest under.

use glam::Vec3;

use crate::executor::{for_each_chunk_mut, for_each_chunk_mut2};
use crate::neighbours::nearest::NearestKeys;
use crate::obstacles::Layered;
use crate::space::Space;

use super::contacts::{Choices, Round};
use super::context::{Scratch, Tick, VelocityInputs};
use super::encounters::BATCH;
use super::{planar, volume};
#[cfg(test)]
use crate::obstacles::ObstacleSet;

/// The buffers of the velocity-obstacle step, kept between ticks.
#[derive(Clone, Debug, Default)]
pub(crate) struct VelocityStep {
    /// By agent index: the velocity the rules and limits ask for.
    pub(crate) preferred: Vec<Vec3>,
    /// By grid slot: the velocity chosen, and what the contact rounds need.
    pub(crate) choices: Choices,
    /// By agent index: the squared distance within which the next force pass offers the
    /// agent's neighbours to its nearest (see [`VelocityInputs::nearest_ceilings`]), where the last
    /// tick kept them; infinite, or missing, elsewhere.
    pub(crate) ceilings: Vec<f32>,
}

impl VelocityInputs<'_> {
    /// Fills `ceilings`, by agent index, with the squared distance within which the next
    /// force pass offers each agent's neighbours to its nearest: the farthest of those kept
    /// this tick, by slot in `nearest`, plus how much nearer a move of `dt` can bring two
    /// agents. A neighbour beyond it was beyond the farthest kept too, so the nearest are most
    /// likely the same agents, and the scan skips the rest of the candidates; where the
    /// ceiling leaves too few (an agent moved by game code, say), the step scans again.
    /// Infinite where this tick kept fewer than [`MOST_AGENTS_AVOIDED`], or none.
    pub(crate) fn nearest_ceilings(
        &self,
        dt: f32,
        nearest: &[Option<NearestKeys>],
        ceilings: &mut [f32],
    ) {
        let closing = 2.0 * self.fastest() * dt;
        let slots = self.index.grid.slots();
        for_each_chunk_mut(self.executor, ceilings, |first, chunk| {
            for (k, ceiling) in chunk.iter_mut().enumerate() {
                let kept = nearest.get(slots[first + k] as usize).copied().flatten();
                *ceiling = kept.map_or(f32::INFINITY, |kept| {
                    let reach = kept.farthest_kept().sqrt() + closing;
                    reach * reach
                });
            }
        });
    }

    /// Fills `choices.velocities`, by grid slot, with each agent's velocity: its `preferred`
    /// one, or for agents that avoid velocity obstacles, the nearest that keeps clear of their
    /// neighbours and does not cross `obstacles` or walls within `dt`; then runs the contact
    /// rounds (see [`contacts`]). Reads the positions and velocities of the last
    /// [`build_index`](Self::build_index), the state at the start of the tick.
    pub(crate) fn choose_velocities(&self, dt: f32, obstacles: &Layered, choices: &mut Choices) {
        let tick = self.tick(dt, obstacles);
        let Choices {
            velocities,
            may_overlap,
            ..
        } = choices;
        // Every slot's entries are written by the pass, in parallel: only the lengths are set
        // here.
        velocities.resize(self.len(), Vec3::ZERO);
        may_overlap.resize(self.len(), false);
        for_each_chunk_mut2(
            self.executor,
            velocities,
            may_overlap,
            |first_slot, velocities, may_overlap| {
                let mut scratch = Scratch::default();
                let slots = first_slot..first_slot + velocities.len();
                self.choose_each(slots, &tick, None, &mut scratch, |k, choice| {
                    (velocities[k], may_overlap[k]) = choice;
                });
            },
        );
        self.resolve_contacts(&tick, choices);
    }

    /// Chooses for the agents in `slots`, [`BATCH`] at a time, and hands `chosen` each one's
    /// place among them and its choice (see [`prepare`](Self::prepare)). In a contact `round`,
    /// with contact bounds.
    pub(super) fn choose_each(
        &self,
        slots: impl Iterator<Item = usize>,
        tick: &Tick,
        round: Option<&Round>,
        scratch: &mut Scratch,
        mut chosen: impl FnMut(usize, (Vec3, bool)),
    ) {
        let mut batch = [0; BATCH];
        let (mut len, mut done) = (0, 0);
        for slot in slots {
            batch[len] = slot;
            len += 1;
            if len == BATCH {
                let choices = self.choose_batch(&batch, tick, round, scratch);
                (0..len).for_each(|k| chosen(done + k, choices[k]));
                (done, len) = (done + len, 0);
            }
        }
        let choices = self.choose_batch(&batch[..len], tick, round, scratch);
        (0..len).for_each(|k| chosen(done + k, choices[k]));
    }

    /// The choices of the agents in `slots` (at most [`BATCH`]): each one's encounters built,
    /// then the half-spaces of all of them computed together, then each one's program solved.
    #[inline]
    pub(super) fn choose_batch(
        &self,
        slots: &[usize],
        tick: &Tick,
        round: Option<&Round>,
        scratch: &mut Scratch,
    ) -> [(Vec3, bool); BATCH] {
        let mut choices = [(Vec3::ZERO, false); BATCH];
        scratch.pending.clear();
        scratch.encounters.clear();
        scratch.bounds.clear();
        for (at, &slot) in slots.iter().enumerate() {
            choices[at] = self.prepare(at, slot, tick, round, scratch);
        }
        if scratch.pending.is_empty() {
            return choices;
        }
        let simd = self.index.lanes.simd();
        let encounters = &mut scratch.encounters;
        encounters.pad();
        match self.space {
            Space::Planar => {
                scratch.lines.clear();
                planar::half_planes(simd, encounters, tick.dt, &mut scratch.lines);
            }
            Space::Volume => {
                scratch.spaces.clear();
                volume::half_spaces(simd, encounters, tick.dt, &mut scratch.spaces);
            }
        }
        let pending = core::mem::take(&mut scratch.pending);
        for agent in &pending {
            choices[agent.at] = self.finish(agent, tick, scratch);
        }
        scratch.pending = pending;
        choices
    }
}

#[cfg(test)]
impl VelocityInputs<'_> {
    /// Every agent's first choice (before the contact rounds) by grid slot, the agents taken
    /// `batch` at a time (at most [`BATCH`]) with one scratch space, as
    /// [`choose_velocities`](Self::choose_velocities) makes them after an
    /// [`integrate`](Self::integrate) of `dt` with no colliders: the velocity, and whether the
    /// agent may end the tick overlapping a neighbour.
    pub(crate) fn choices_in_batches_of_among(
        &self,
        batch: usize,
        dt: f32,
        obstacles: &ObstacleSet,
    ) -> Vec<(Vec3, bool)> {
        let obstacles = Layered::new(obstacles, None);
        let tick = self.tick(dt, &obstacles);
        let mut scratch = Scratch::default();
        let slots: Vec<usize> = (0..self.len()).collect();
        let batches = slots.chunks(batch).flat_map(|slots| {
            self.choose_batch(slots, &tick, None, &mut scratch)[..slots.len()].to_vec()
        });
        batches.collect()
    }

    /// The neighbours the agent in grid `slot` avoids, as
    /// [`choose_velocities`](Self::choose_velocities) finds them after
    /// [`build_index`](Self::build_index) (and, where it keeps them,
    /// [`accumulate_forces`](Self::accumulate_forces)): slots and offsets, nearest first.
    pub(crate) fn avoided_neighbours(&self, slot: usize) -> Vec<(usize, Vec3)> {
        let prepared = &self.params[self.index.gathered[slot].params as usize];
        let mut scratch = Scratch::default();
        self.nearest_neighbours(slot, prepared, true, &mut scratch);
        scratch.near.iter().map(|n| (n.slot, n.offset)).collect()
    }
}
