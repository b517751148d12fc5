//! Force accumulation, the second stage of a tick: each agent's neighbours scanned and its
//! steering behaviours blended into one force, in parallel chunks of grid slots.

use glam::Vec3;

use crate::agents::Extras;
use crate::detail::Detail;
use crate::executor::{ChunkExecutor, for_each_chunk_mut, for_each_chunk_mut2};
use crate::maths::limit_length;
use crate::neighbours::nearest::NearestKeys;
use crate::neighbours::{NeighbourIndex, Neighbourhood, ScanBuffers};
use crate::rules::steering::Steering;
use crate::tuning::{Prepared, VelocityObstacles};

/// The results of the last force pass, by grid slot.
#[derive(Clone, Debug, Default)]
pub(crate) struct ForcePass {
    pub(crate) results: Vec<SlotResult>,
    /// By grid slot: the nearest neighbours each agent avoids, as the scan kept them for the
    /// velocity-obstacle step, where it could; read while the forces are pending.
    pub(crate) nearest: Vec<Option<NearestKeys>>,
    /// Whether `results` hold forces not yet integrated.
    pub(crate) pending: bool,
}

/// One agent's result of the force pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlotResult {
    pub(crate) force: Vec3,
    pub(crate) neighbours: u32,
    pub(crate) nearest_sq: f32,
    /// Whether the agent kept its last force (level of detail) rather than compute one.
    pub(crate) reused: bool,
}

/// What the force pass reads.
pub(crate) struct ForceInputs<'a> {
    pub(crate) params: &'a [Prepared],
    pub(crate) index: &'a NeighbourIndex,
    /// What the behaviours read, the space the scan runs in included.
    pub(crate) steering: Steering<'a>,
    /// Level of detail, if on.
    pub(crate) detail: Option<Detail>,
    /// By agent index: the squared distance within which the scan offers an agent's
    /// neighbours to the nearest it keeps (from the last velocity-obstacle step); infinite, or
    /// missing, elsewhere.
    pub(crate) ceilings: &'a [f32],
    /// Whether the scan keeps each agent's nearest neighbours for the velocity-obstacle step,
    /// which saves the step a scan of its own.
    pub(crate) keep_nearest: bool,
    pub(crate) executor: &'a (dyn ChunkExecutor + Send + Sync),
}

impl ForcePass {
    /// Force accumulation, the second stage of a tick: every agent's steering force from its
    /// neighbours (separation, alignment, cohesion) and its other behaviours (target, walls,
    /// predators, leader, flow, wander), each limited to the agent's max force, weighted and
    /// blended (see [`BlendMode`](crate::BlendMode)), in parallel chunks of grid slots.
    pub(crate) fn run(&mut self, inputs: &ForceInputs) {
        let n = inputs.index.gathered.len();
        // Every slot's result (and nearest, where kept) is written by the pass, in parallel:
        // only the length is set here, not every entry (a serial fill of the whole buffer).
        let mut results = core::mem::take(&mut self.results);
        results.resize(n, SlotResult::default());
        let mut nearest = core::mem::take(&mut self.nearest);
        if inputs.keep_nearest {
            nearest.resize(n, None);
            for_each_chunk_mut2(
                inputs.executor,
                &mut results,
                &mut nearest,
                |first, a, b| {
                    inputs.compute_slots(first, a, Some(b));
                },
            );
        } else {
            for_each_chunk_mut(inputs.executor, &mut results, |first_slot, chunk| {
                inputs.compute_slots(first_slot, chunk, None);
            });
            nearest.clear();
        }
        self.results = results;
        self.nearest = nearest;
        self.pending = true;
    }

    /// Agent `i`'s force this tick: this pass's (while pending; `slots` are the agents' grid
    /// slots) plus what was `added` to it. Should the sum overflow (forces near `f32::MAX`),
    /// each part is first limited to `max_force`.
    #[inline]
    pub(crate) fn total_force(
        &self,
        slots: &[u32],
        added: &[Vec3],
        i: usize,
        max_force: f32,
    ) -> Vec3 {
        let computed = if self.pending {
            self.results[slots[i] as usize].force
        } else {
            Vec3::ZERO
        };
        let added = added[i];
        let total = computed + added;
        if total.is_finite() {
            total
        } else {
            limit_length(computed, max_force) + limit_length(added, max_force)
        }
    }

    /// Under level of detail, keeps the force of this pass of each of the `len` agents in
    /// `extras` for the ticks it skips; `slots` are the agents' grid slots.
    pub(crate) fn keep_last_forces(&self, slots: &[u32], extras: &mut Extras, len: usize) {
        if !self.pending {
            return;
        }
        let kept = extras.last_forces_mut(len);
        for (i, kept) in kept.iter_mut().enumerate() {
            *kept = Some(self.results[slots[i] as usize].force);
        }
    }
}

impl ForceInputs<'_> {
    /// Fills `out` with the results of the agents in sorted slots `first_slot..`, and
    /// `nearest`, when given, with the nearest neighbours of those that avoid velocity
    /// obstacles, where the scan keeps them.
    fn compute_slots(
        &self,
        first_slot: usize,
        out: &mut [SlotResult],
        mut nearest: Option<&mut [Option<NearestKeys>]>,
    ) {
        // Agents of one cell sit in consecutive slots and share their stencil.
        let mut buffers = ScanBuffers::default();
        for (k, result) in out.iter_mut().enumerate() {
            let factors = self.steering.extras.speed_factors();
            let agent = self.index.slot_agent(self.params, factors, first_slot + k);
            if let Some(nearest) = nearest.as_deref_mut() {
                // None unless the scan below keeps them: not last tick's, whose slots are
                // those of the index before.
                nearest[k] = None;
            }
            let steering = &self.steering;
            let reused = (self.detail.as_ref())
                .and_then(|d| d.reused_force(steering.draws.tick, steering.extras, &agent));
            if let Some(force) = reused {
                *result = SlotResult {
                    force,
                    neighbours: 0,
                    nearest_sq: f32::INFINITY,
                    reused: true,
                };
                continue;
            }
            let mut around =
                Neighbourhood::new(self.index, self.steering.space, &agent, &mut buffers);
            let scan = match nearest.as_deref_mut() {
                Some(nearest) if agent.params.velocity_obstacles != VelocityObstacles::Off => {
                    let ceiling_sq = (self.ceilings.get(agent.index)).map_or(f32::INFINITY, |&c| c);
                    around.scan_keeping_nearest(ceiling_sq, &mut nearest[k])
                }
                _ => around.scan(),
            };
            *result = SlotResult {
                force: self.steering.force(&agent, &scan),
                neighbours: scan.count,
                nearest_sq: scan.nearest_sq,
                reused: false,
            };
        }
    }
}
