//! The agent buffers, and one tick as its stages in order.

use std::sync::Arc;

use glam::Vec3;

use crate::Space;
use crate::agents::{AgentMemory, Agents, ParamsId};
use crate::avoidance::{AvoidanceInputs, AvoidancePass};
use crate::detail::{Detail, LevelOfDetail};
use crate::executor::{ChunkExecutor, Serial};
use crate::forces::{ForceInputs, ForcePass};
use crate::maths::{length, limit_length, unit};
use crate::neighbours::NeighbourIndex;
use crate::obstacles::{ObstacleAvoidance, ObstacleQuery, ObstacleSet, Shape};
use crate::roles::{Leader, Standoff, Threat};
use crate::rules::steering::Steering;
use crate::rules::wander::Draws;
use crate::simd::SimdPath;
use crate::tuning::{FlockTuning, Prepared};
use crate::velocity_obstacles::{VelocityInputs, VelocityStep, keeps_nearest};

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

    /// Agent `i`'s accumulated steering force so far this tick: the force pass's (once it ran)
    /// plus what [`add_force`](Self::add_force) added.
    pub fn force(&self, i: usize) -> Vec3 {
        self.total_force(i, self.params_of(i).limits.max_force)
    }

    /// The force pass's force plus the added ones. Should the sum overflow (forces near
    /// `f32::MAX`), each part is first limited to `max_force`.
    #[inline]
    pub(crate) fn total_force(&self, i: usize, max_force: f32) -> Vec3 {
        let computed = if self.forces.pending {
            self.forces.results[self.index.grid.slots()[i] as usize].force
        } else {
            Vec3::ZERO
        };
        let added = self.agents.added[i];
        let total = computed + added;
        if total.is_finite() {
            total
        } else {
            limit_length(computed, max_force) + limit_length(added, max_force)
        }
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
                    position: self.space.flat(threat.position),
                    velocity: self.space.flat(threat.velocity),
                    ..threat
                });
            } else {
                skipped += 1;
            }
        }
        skipped
    }

    /// Neighbour lookup, the first stage of a tick: rebuilds the uniform grid for the largest
    /// neighbour radius (see [`UniformGrid`](crate::UniformGrid)) and copies the agents in
    /// cell order, so that each neighbourhood is read from a few contiguous ranges.
    pub fn build_index(&mut self) {
        self.index
            .build(&self.agents, &self.params, &*self.executor);
        self.forces.pending = false;
    }

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
        let (draws, keep_nearest) = (self.draws(), keeps_nearest(&self.params));
        let inputs = ForceInputs {
            space: self.space,
            params: &self.params,
            index: &self.index,
            steering: Steering {
                space: self.space,
                threats: &self.threats,
                extras: &self.agents.extras,
                draws,
            },
            detail: self.detail,
            ceilings: &self.velocity_step.ceilings,
            keep_nearest,
            executor: &*self.executor,
        };
        self.forces.run(&inputs);
        self.avoidance.avoided = false;
    }

    /// Replaces the obstacles that agents steer around (see
    /// [`avoid_obstacles`](Self::avoid_obstacles)) and never enter (see
    /// [`integrate`](Self::integrate)). Invalid shapes (see [`Shape::is_valid`]) are skipped;
    /// returns how many were.
    pub fn set_obstacles(&mut self, shapes: impl IntoIterator<Item = Shape>) -> usize {
        let a = &self.avoidance.params;
        let reach = a.max_look_ahead + a.cast_radius;
        let obstacles = &mut self.avoidance.obstacles;
        match self.space {
            Space::Planar => obstacles.rebuild_on_plane(shapes, reach),
            Space::Volume => obstacles.rebuild(shapes, reach),
        }
    }

    /// The obstacles of [`set_obstacles`](Self::set_obstacles).
    pub fn obstacles(&self) -> &ObstacleSet {
        &self.avoidance.obstacles
    }

    /// Sets how agents look ahead for obstacles, sanitised with
    /// [`ObstacleAvoidance::sanitized`] (call that yourself to learn what was corrected). Takes
    /// effect from the next [`set_obstacles`](Self::set_obstacles).
    pub fn set_avoidance(&mut self, params: ObstacleAvoidance) {
        self.avoidance.params = params.sanitized().0;
    }

    /// Obstacle avoidance, the third stage of a tick, against the crowd's own
    /// [`obstacles`](Self::obstacles) and `colliders` (a physics backend's, if any): each agent
    /// casts a ball ahead along its heading, as far as its look-ahead (which grows with speed);
    /// when that hits, it turns toward the nearest clear direction of a fan (or along the
    /// obstacle's normal if none is clear). Avoidance comes first: it takes what it needs of
    /// the max force, and the steering force gets the rest. An agent with a target looks no
    /// further ahead than the target, and inside its arrival radius turns at the speed arriving
    /// asks for, so that one settling by a wall stays. Call after
    /// [`accumulate_forces`](Self::accumulate_forces). Returns how many agents are avoiding.
    pub fn avoid_obstacles(&mut self, colliders: Option<&dyn ObstacleQuery>) -> usize {
        let crowd = AvoidanceInputs {
            space: self.space,
            params: &self.params,
            index: &self.index,
            extras: &self.agents.extras,
            executor: &*self.executor,
        };
        let Some(avoiding) = self.avoidance.run(&mut self.forces, colliders, crowd) else {
            return 0;
        };
        self.agents.extras.holding |= self.avoidance.params.hold_seconds > 0.0;
        avoiding
    }

    /// Switches level of detail around `focus` on, or off with `None`. An interval of 0 counts
    /// as 1; a non-finite focus or radius switches it off.
    pub fn set_level_of_detail(&mut self, detail: Option<LevelOfDetail>, focus: Vec3) {
        self.detail = Detail::new(detail, focus);
        if self.detail.is_none() {
            self.agents.extras.forget_last_forces();
        }
    }

    /// How many agents kept their last force instead of computing one in the last force pass
    /// (level of detail).
    pub fn reused_forces(&self) -> usize {
        self.forces.results.iter().filter(|r| r.reused).count()
    }

    /// Makes the neighbour scan run on `path` (see [`SimdPath`]), if this processor runs it;
    /// returns whether it does (the crowd keeps its path otherwise). Every path gives the same
    /// results; this is for comparing their speed, or checking that they agree.
    pub fn set_simd_path(&mut self, path: SimdPath) -> bool {
        self.index.lanes.set_simd(path)
    }

    /// The path the neighbour scan runs on: [`SimdPath::detect`]'s choice unless
    /// [`set_simd_path`](Self::set_simd_path) forced another.
    pub fn simd_path(&self) -> SimdPath {
        self.index.lanes.simd()
    }

    /// One whole tick, the five stages in order: neighbour lookup, the steering forces, obstacle
    /// avoidance (of the crowd's own [`obstacles`](Self::obstacles)), then, in
    /// [`integrate`](Self::integrate), the velocity-obstacle step and the move.
    pub fn step(&mut self, dt: f32) {
        self.build_index();
        self.accumulate_forces();
        self.avoid_obstacles(None);
        self.integrate(dt, None);
    }
}
