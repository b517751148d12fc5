//! [`Crowd`]: the agent buffers, their parameter sets and what each agent carries, and the
//! crowd's API: admitting agents ([`admission`]), running the stages of a tick (`stages`),
//! spatial queries (`queries`) and the metrics ([`metrics`]). The stages themselves are types
//! of their own modules, which never name `Crowd`.

pub(crate) mod admission;
mod checksum;
pub(crate) mod metrics;
mod queries;
mod stages;

use std::sync::Arc;

use glam::Vec3;

use crate::Space;
use crate::agents::{AgentMemory, Agents, ParamsId};
use crate::avoidance::AvoidancePass;
use crate::detail::Detail;
use crate::executor::{ChunkExecutor, Serial};
use crate::forces::ForcePass;
use crate::maths::{length, limit_length, unit};
use crate::neighbours::NeighbourIndex;
use crate::roles::{Leader, Standoff, Threat};
use crate::rules::wander::Draws;
use crate::tuning::{FlockTuning, Prepared, SteeringLimits};
use crate::velocity_obstacles::{VelocityInputs, VelocityStep};

/// A crowd of agents in contiguous buffers, stepped one tick at a time.
///
/// Each tick: [`clear`](Self::clear), [`add_params`](Self::add_params) and
/// [`push`](Self::push) the agents, then run the stages in order:
/// [`build_index`](Self::build_index) (neighbour lookup),
/// [`accumulate_forces`](Self::accumulate_forces) (the steering rules; add forces of your own
/// with [`add_force`](Self::add_force) after it), [`avoid_obstacles`](Self::avoid_obstacles)
/// and [`integrate`](Self::integrate) (the velocity-obstacle step, where agents take it, then
/// the move). [`step`](Self::step) runs them all. Buffers keep their capacity between ticks,
/// so a steady crowd allocates nothing.
///
/// The same inputs give bit-identical outputs, whatever [`ChunkExecutor`] runs the passes:
/// every loop runs in a fixed order.
#[derive(Clone, Debug, Default)]
pub struct Crowd {
    pub(crate) space: Space,
    pub(crate) params: Vec<Prepared>,
    /// By agent index: their state, in the order pushed.
    pub(crate) agents: Agents,
    /// The neighbour grid and the agents in its cell order.
    pub(crate) index: NeighbourIndex,
    /// The force pass's results, by grid slot.
    pub(crate) forces: ForcePass,
    /// The obstacles, how agents look ahead for them, and the avoidance pass's results.
    pub(crate) avoidance: AvoidancePass,
    /// The velocity-obstacle step's buffers.
    pub(crate) velocity_step: VelocityStep,
    /// What agents flee this tick (see [`set_threats`](Self::set_threats)).
    pub(crate) threats: Vec<Threat>,
    /// Seed of the noise and wander draws (see [`set_seed`](Self::set_seed)).
    pub(crate) seed: u64,
    /// Integrations so far; with the seed and the agent's index it picks the draws.
    pub(crate) tick: u64,
    /// Level of detail, if on (see [`set_level_of_detail`](Self::set_level_of_detail)).
    pub(crate) detail: Option<Detail>,
    pub(crate) executor: Executor,
}

/// The executor the passes run on: [`Serial`] until one is set.
#[derive(Clone)]
pub(crate) struct Executor(Arc<dyn ChunkExecutor + Send + Sync>);

impl Default for Executor {
    fn default() -> Self {
        Self(Arc::new(Serial))
    }
}

impl core::fmt::Debug for Executor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Executor")
    }
}

impl core::ops::Deref for Executor {
    type Target = dyn ChunkExecutor + Send + Sync;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl Crowd {
    /// An empty crowd simulated in `space`.
    pub fn new(space: Space) -> Self {
        Self {
            space,
            ..Default::default()
        }
    }

    /// The space agents move in.
    pub fn space(&self) -> Space {
        self.space
    }

    /// Changes the space; takes effect from the next [`push`](Self::push).
    pub fn set_space(&mut self, space: Space) {
        self.space = space;
    }

    /// Runs the per-agent passes (gathering into cell order, forces, avoidance, integration)
    /// on `executor` from now on. Each agent's result depends only on the tick's inputs, so the
    /// outcome is bit-identical whatever the executor and its thread count.
    pub fn set_executor(&mut self, executor: impl ChunkExecutor + Send + Sync + 'static) {
        self.executor = Executor(Arc::new(executor));
    }

    /// Sets the seed of the noise and wander draws (see
    /// [`FlockWeights::noise`](crate::FlockWeights::noise)): the same seed, agents and ticks give the
    /// same draws. 0 until set.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Ticks integrated so far (wrapping): with the seed and each agent's index, it picks the
    /// agents' noise and wander draws, and with level of detail on, which far agents update.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Sets the count of ticks integrated so far, for a crowd restored from a save: the next
    /// tick then draws what the saved crowd's next tick would have drawn. A crowd rebuilt
    /// every tick carries nothing else: save each agent's input and [`memory`](Self::memory)
    /// (read after a tick) and the tick count; to restore, set the seed, the tuning and the
    /// obstacles as before, set the tick count and push those agents (with
    /// [`set_memory`](Self::set_memory)) for the next tick. It then steps bit for bit as the
    /// saved crowd would have.
    pub fn set_tick(&mut self, tick: u64) {
        self.tick = tick;
    }

    /// This tick's random draws (see [`set_seed`](Self::set_seed)).
    #[inline]
    pub(crate) fn draws(&self) -> Draws {
        Draws {
            seed: self.seed,
            tick: self.tick,
        }
    }

    /// The crowd as the velocity-obstacle step reads it, with the preferred velocities of its
    /// buffers.
    pub(crate) fn velocity_inputs(&self) -> VelocityInputs<'_> {
        VelocityInputs {
            space: self.space,
            params: &self.params,
            index: &self.index,
            seed: self.seed,
            tick: self.tick,
            forces: &self.forces,
            preferred: &self.velocity_step.preferred,
            speed_factors: self.agents.extras.speed_factors(),
            executor: &*self.executor,
        }
    }

    /// Removes every agent and parameter set, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.params.clear();
        let agents = &mut self.agents;
        agents.bodies.clear();
        agents.flocks.clear();
        agents.params.clear();
        agents.targets.clear();
        agents.targets_in_sight.clear();
        agents.added.clear();
        agents.extras.clear();
        self.forces.pending = false;
    }

    /// Adds a parameter set for agents to use. Values are sanitised first (see
    /// [`FlockTuning::sanitized`]); call that yourself to learn what was corrected.
    pub fn add_params(&mut self, params: FlockTuning) -> ParamsId {
        self.params.push(Prepared::new(params));
        ParamsId(self.params.len() as u32 - 1)
    }

    /// The sanitised parameter set `id`.
    pub fn params(&self, id: ParamsId) -> Option<&FlockTuning> {
        self.params.get(id.0 as usize).map(|p| &p.params)
    }

    /// Number of agents.
    #[inline]
    pub fn len(&self) -> usize {
        self.agents.bodies.len()
    }

    /// Whether the crowd has no agents.
    pub fn is_empty(&self) -> bool {
        self.agents.bodies.is_empty()
    }

    /// The sanitised parameters agent `i` uses.
    #[inline]
    pub fn params_of(&self, i: usize) -> &FlockTuning {
        &self.prepared_of(i).params
    }

    /// Agent `i`'s limits: its parameter set's, with the speeds and the force limit scaled by
    /// its [speed factor](Self::set_speed_factor).
    pub fn limits_of(&self, i: usize) -> SteeringLimits {
        let limits = &self.params_of(i).limits;
        self.agents.extras.speed_factors().limits(i, limits)
    }

    /// The parameters agent `i` uses, with what the passes derive from them.
    #[inline]
    pub(crate) fn prepared_of(&self, i: usize) -> &Prepared {
        &self.params[self.agents.params[i] as usize]
    }

    /// Agent `i`'s position.
    #[inline]
    pub fn position(&self, i: usize) -> Vec3 {
        self.agents.bodies[i].position
    }

    /// Agent `i`'s velocity.
    #[inline]
    pub fn velocity(&self, i: usize) -> Vec3 {
        self.agents.bodies[i].velocity
    }

    /// Agent `i`'s unit heading (zero if it never moved and none was given).
    #[inline]
    pub fn heading(&self, i: usize) -> Vec3 {
        self.agents.bodies[i].heading
    }

    /// Agent `i`'s flock number.
    #[inline]
    pub fn flock(&self, i: usize) -> u32 {
        self.agents.flocks[i]
    }

    /// Agent `i`'s target, if it has one.
    #[inline]
    pub fn target(&self, i: usize) -> Option<Vec3> {
        self.agents.targets[i]
    }

    /// Whether agent `i` has a target within its [`SteeringLimits::reach_radius`](crate::SteeringLimits).
    #[inline]
    pub fn has_reached_target(&self, i: usize) -> bool {
        let reach = self.params_of(i).limits.reach_radius;
        self.agents.targets[i].is_some_and(|t| length(self.agents.bodies[i].position - t) <= reach)
    }

    /// What agent `i` carries to the next tick (see [`AgentMemory`]).
    #[inline]
    pub fn memory(&self, i: usize) -> AgentMemory {
        self.agents.extras.memory(i)
    }

    /// Restores what agent `i` carried from the last tick, for a crowd rebuilt every tick (as
    /// the plugin's is). Unusable parts are dropped: a hold with a zero or non-finite direction
    /// or no time left, a zero or non-finite wander direction (it starts afresh), a non-finite
    /// force (the agent then updates this tick).
    #[inline]
    pub fn set_memory(&mut self, i: usize, memory: AgentMemory) {
        let memory = memory.usable(|v| self.space.flat(v));
        if i < self.len() {
            self.agents.extras.set_memory(i, self.len(), memory);
        }
    }

    /// Sets the leader agent `i` follows this tick (see
    /// [`FlockWeights::leader`](crate::FlockWeights::leader)), or none. An invalid one (see
    /// [`Leader::is_valid`]) is dropped; returns whether the leader was kept.
    pub fn set_leader(&mut self, i: usize, leader: Option<Leader>) -> bool {
        let leader = leader.filter(Leader::is_valid).map(|l| Leader {
            position: self.space.flat(l.position),
            velocity: self.space.flat(l.velocity),
            ..l
        });
        if i < self.len() {
            self.agents.extras.set_leader(i, self.len(), leader);
        }
        leader.is_some()
    }

    /// Feeds agent `i` the flow at its position this tick (see
    /// [`FlockWeights::flow`](crate::FlockWeights::flow)): the way to go, as a vector whose length
    /// (cut to 1) is the fraction of max speed asked for. A game samples its flow field or
    /// path there. A non-finite vector is ignored; returns whether it was kept.
    pub fn set_flow(&mut self, i: usize, flow: Vec3) -> bool {
        if i >= self.len() || !flow.is_finite() {
            return false;
        }
        let flow = limit_length(self.space.flat(flow), 1.0);
        self.agents.extras.set_flow(i, self.len(), flow);
        true
    }

    /// Makes agent `i` back off from enemies this tick (see
    /// [`FlockWeights::standoff`](crate::FlockWeights::standoff)): toward a velocity along
    /// `away` (made unit length) at `urgency` (cut to 0..1) of its max speed. Nothing happens
    /// for a zero or non-finite direction or a non-finite urgency; returns whether it was kept.
    pub fn set_standoff(&mut self, i: usize, away: Vec3, urgency: f32) -> bool {
        let Some(away) = unit(self.space.flat(away)).filter(|_| urgency.is_finite()) else {
            return false;
        };
        if i >= self.len() {
            return false;
        }
        let urgency = urgency.clamp(0.0, 1.0);
        let standoff = Some(Standoff { away, urgency });
        self.agents.extras.set_standoff(i, self.len(), standoff);
        true
    }

    /// Makes agent `i` `factor` times as fast as its parameter set: its max and min speeds
    /// and its max force are scaled, so that one parameter set serves a crowd with a spread of
    /// walking speeds (see [`walking_speed_factor`](crate::walking_speed_factor)). It holds
    /// until set again or the crowd is [cleared](Self::clear). A factor that is not finite and
    /// positive is ignored; returns whether it was kept.
    pub fn set_speed_factor(&mut self, i: usize, factor: f32) -> bool {
        if i >= self.len() || !(factor.is_finite() && factor > 0.0) {
            return false;
        }
        self.agents.extras.set_speed_factor(i, self.len(), factor);
        true
    }

    /// Agent `i`'s speed factor (see [`set_speed_factor`](Self::set_speed_factor)); 1 unless
    /// set.
    pub fn speed_factor(&self, i: usize) -> f32 {
        self.agents.extras.speed_factors().of(i)
    }

    /// Agent `i`'s accumulated steering force so far this tick: the force pass's (once it ran)
    /// plus what [`add_force`](Self::add_force) added.
    pub fn force(&self, i: usize) -> Vec3 {
        self.total_force(i, self.limits_of(i).max_force)
    }

    /// The force pass's force plus the added ones. Should the sum overflow (forces near
    /// `f32::MAX`), each part is first limited to `max_force`.
    #[inline]
    pub(crate) fn total_force(&self, i: usize, max_force: f32) -> Vec3 {
        (self.forces).total_force(self.index.grid.slots(), &self.agents.added, i, max_force)
    }

    /// Adds `force` to agent `i`'s steering before integration; a force that is not finite, or
    /// would make the sum overflow, is ignored. Returns whether the agent exists.
    pub fn add_force(&mut self, i: usize, force: Vec3) -> bool {
        match self.agents.added.get_mut(i) {
            Some(f) => {
                let sum = *f + force;
                if sum.is_finite() {
                    *f = sum;
                }
                true
            }
            None => false,
        }
    }

    /// Replaces agent `i`'s steering force for this tick with `force`: what the force pass
    /// gave it and what [`add_force`](Self::add_force) added are dropped, and `force` counts
    /// as added (after obstacle avoidance, like an added force). For an agent steered some
    /// other way this tick. Call after [`accumulate_forces`](Self::accumulate_forces). A
    /// non-finite force is ignored. Returns whether it was replaced: the agent exists, the force
    /// pass has run and the force is finite.
    pub fn replace_force(&mut self, i: usize, force: Vec3) -> bool {
        if i >= self.len() || !self.forces.pending || !force.is_finite() {
            return false;
        }
        let slot = self.index.grid.slots()[i] as usize;
        self.forces.results[slot].force = Vec3::ZERO;
        self.agents.added[i] = force;
        true
    }

    /// Replaces the threats agents flee (see [`FlockWeights::flee`](crate::FlockWeights::flee)),
    /// from the next force pass. Invalid ones (see [`Threat::is_valid`]) are skipped; returns how
    /// many were.
    pub fn set_threats(&mut self, threats: impl IntoIterator<Item = Threat>) -> usize {
        self.threats.clear();
        let mut skipped = 0;
        for threat in threats {
            if threat.is_valid() {
                self.threats.push(Threat {
                    position: self.space.point(threat.position),
                    velocity: self.space.flat(threat.velocity),
                    ..threat
                });
            } else {
                skipped += 1;
            }
        }
        skipped
    }
}
