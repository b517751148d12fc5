//! [`NeighbourIndex`]: the grid, and the agents copied into its cell order.

use crate::Space;
use crate::agents::{Agents, Gathered, SlotAgent, SpeedFactors};
use crate::executor::{ChunkExecutor, for_each_chunk_mut};
use crate::prefetch::prefetch_mapped;
use crate::tuning::Prepared;

use super::grid::UniformGrid;
use super::slot_lanes::SlotLanes;

/// How many slots ahead the gather into slot order asks for the agents it will read (see
/// [`prefetch_mapped`]).
const GATHER_AHEAD: usize = 16;

/// The neighbour grid of the last [`build`](Self::build), and the agents in its cell order.
#[derive(Clone, Debug, Default)]
pub(crate) struct NeighbourIndex {
    pub(crate) grid: UniformGrid,
    /// By grid slot: each agent's state, gathered at the last build.
    pub(crate) gathered: Vec<Gathered>,
    /// By grid slot: positions, velocities and flocks as columns, for the lane scan.
    pub(crate) lanes: SlotLanes,
}

impl NeighbourIndex {
    /// Whether the index was built for `len` agents.
    #[inline]
    pub(crate) fn covers(&self, len: usize) -> bool {
        self.gathered.len() == len
    }
}

impl NeighbourIndex {
    /// Neighbour lookup, the first stage of a tick: rebuilds the uniform grid for the largest
    /// neighbour radius of `params` (see [`UniformGrid`]) and copies the `agents` in cell
    /// order, so that each neighbourhood is read from a few contiguous ranges.
    pub(crate) fn build(
        &mut self,
        agents: &Agents,
        params: &[Prepared],
        executor: &(dyn ChunkExecutor + Send + Sync),
        space: Space,
    ) {
        let radius = params
            .iter()
            .map(|p| p.params.perception.neighbour_radius)
            .fold(0.0_f32, f32::max);
        let bodies = &agents.bodies;
        self.grid.rebuild_on(
            executor,
            bodies.len(),
            |i| bodies[i].position,
            (radius, space),
        );
        let mut gathered = core::mem::take(&mut self.gathered);
        // Every entry is written below: a steady crowd's buffer is not cleared first.
        gathered.resize(bodies.len(), Gathered::default());
        // Read by agent index, these loads miss the cache: in parallel, and in a loop of
        // independent loads whose misses overlap.
        let order = self.grid.order();
        for_each_chunk_mut(executor, &mut gathered, |first, chunk| {
            for (out, slot) in chunk.iter_mut().zip(first..) {
                prefetch_mapped(order, &agents.bodies, slot + GATHER_AHEAD);
                prefetch_mapped(order, &agents.targets, slot + GATHER_AHEAD);
                let i = order[slot] as usize;
                *out = Gathered {
                    body: agents.bodies[i],
                    target: agents.targets[i],
                    index: i as u32,
                    flock: agents.flocks[i],
                    params: agents.params[i],
                };
            }
        });
        self.lanes.fill(&gathered, executor);
        self.gathered = gathered;
    }

    /// The agent in sorted `slot`, as the force and avoidance passes read it, with its
    /// parameter set from `params` and its limits scaled by its speed factor.
    #[inline]
    pub(crate) fn slot_agent<'a>(
        &self,
        params: &'a [Prepared],
        factors: SpeedFactors,
        slot: usize,
    ) -> SlotAgent<'a> {
        let gathered = &self.gathered[slot];
        let index = gathered.index as usize;
        let params = &params[gathered.params as usize];
        SlotAgent {
            index,
            slot,
            position: gathered.body.position,
            velocity: gathered.body.velocity,
            heading: gathered.body.heading,
            params,
            limits: factors.limits(index, &params.params.limits),
            target: gathered.target,
        }
    }
}
