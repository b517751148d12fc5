//! Force accumulation, the second stage of a tick: each agent's neighbours scanned and its
//! steering behaviours blended into one force, in parallel chunks of grid slots.

use glam::Vec3;

use crate::Crowd;
use crate::executor::{for_each_chunk_mut, for_each_chunk_mut2};
use crate::neighbours::nearest::NearestKeys;
use crate::neighbours::{Neighbourhood, ScanBuffers};
use crate::rules::Prediction;
use crate::tuning::{Prepared, VelocityObstacles};

/// The results of the last force pass, by grid slot.
#[derive(Clone, Debug, Default)]
pub(crate) struct ForcePass {
    pub(crate) results: Vec<SlotResult>,
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

/// One agent as the force and avoidance passes read it: its own state, gathered by slot.
pub(crate) struct SlotAgent<'a> {
    pub(crate) index: usize,
    pub(crate) slot: usize,
    pub(crate) position: Vec3,
    pub(crate) velocity: Vec3,
    pub(crate) heading: Vec3,
    pub(crate) params: &'a Prepared,
    pub(crate) target: Option<Vec3>,
}

impl SlotAgent<'_> {
    /// How the agent predicts collisions, if it does.
    #[inline]
    pub(crate) fn prediction(&self) -> Option<Prediction> {
        let p = &self.params.params.perception;
        self.params.predicts.then_some(Prediction {
            velocity: self.velocity,
            distance_sq: p.collision_distance * p.collision_distance,
            horizon: p.collision_horizon,
        })
    }
}

impl Crowd {
    /// Force accumulation, the second stage of a tick: every agent's steering force from its
    /// neighbours (separation, alignment, cohesion) and its other behaviours (target, walls,
    /// predators, leader, flow, wander), each limited to the agent's max force, weighted and
    /// blended (see [`BlendMode`](crate::BlendMode)). Builds the index first if it is not built.
    pub fn accumulate_forces(&mut self) {
        let n = self.len();
        if !self.index.covers(n) {
            self.build_index();
        }
        if self.params.iter().any(|p| p.params.weights.wander != 0.0) {
            self.agents.extras.wanders_mut(n);
        }
        // Every slot's result (and nearest, where kept) is written by the pass, in parallel:
        // only the length is set here, not every entry (a serial fill of the whole buffer).
        let mut results = core::mem::take(&mut self.forces.results);
        results.resize(n, SlotResult::default());
        // Where the velocity-obstacle step follows, the scan keeps each agent's nearest
        // neighbours for it too, which saves the step a scan of its own.
        let mut nearest = core::mem::take(&mut self.velocity_step.nearest);
        let this = &*self;
        if self.keeps_nearest() {
            nearest.resize(n, None);
            for_each_chunk_mut2(
                &*self.executor,
                &mut results,
                &mut nearest,
                |first, a, b| {
                    this.compute_slots(first, a, Some(b));
                },
            );
        } else {
            for_each_chunk_mut(&*self.executor, &mut results, |first_slot, chunk| {
                this.compute_slots(first_slot, chunk, None);
            });
            nearest.clear();
        }
        self.forces.results = results;
        self.velocity_step.nearest = nearest;
        self.forces.pending = true;
        self.avoidance.avoided = false;
    }

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
            let agent = self.slot_agent(first_slot + k);
            if let Some(nearest) = nearest.as_deref_mut() {
                // None unless the scan below keeps them: not last tick's, whose slots are
                // those of the index before.
                nearest[k] = None;
            }
            if let Some(force) = self.reused_force(&agent) {
                *result = SlotResult {
                    force,
                    neighbours: 0,
                    nearest_sq: f32::INFINITY,
                    reused: true,
                };
                continue;
            }
            let mut around = Neighbourhood::new(&self.index, self.space, &agent, &mut buffers);
            let scan = match nearest.as_deref_mut() {
                Some(nearest) if agent.params.velocity_obstacles != VelocityObstacles::Off => {
                    let ceiling_sq = (self.velocity_step.ceilings.get(agent.index))
                        .map_or(f32::INFINITY, |&c| c);
                    around.scan_keeping_nearest(ceiling_sq, &mut nearest[k])
                }
                _ => around.scan(),
            };
            *result = SlotResult {
                force: self.steering(&agent, &scan),
                neighbours: scan.count,
                nearest_sq: scan.nearest_sq,
                reused: false,
            };
        }
    }

    /// The agent in sorted `slot`, as the force pass reads it.
    #[inline]
    pub(crate) fn slot_agent(&self, slot: usize) -> SlotAgent<'_> {
        let gathered = &self.index.gathered[slot];
        SlotAgent {
            index: gathered.index as usize,
            slot,
            position: gathered.body.position,
            velocity: gathered.body.velocity,
            heading: gathered.body.heading,
            params: &self.params[gathered.params as usize],
            target: gathered.target,
        }
    }
}
