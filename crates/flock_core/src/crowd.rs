//! The agent buffers and one simulation tick: neighbour index, forces, integration.

use core::ops::{ControlFlow, Range};

use glam::Vec3;

use crate::executor::{ChunkExecutor, Serial, for_each_chunk_mut, for_each_chunk_mut2};
use crate::grid::UniformGrid;
use crate::lanes::{
    COINCIDENT_SQ, LaneScan, Prediction, Probe, SEPARATION_FLOOR_SQ, Scan, SlotLanes, Threat,
    ThreatLanes, Threats, separation_divisor,
};
use crate::obstacles::{
    Avoidance, AvoidanceHold, AvoidanceParams, CastHit, ObstacleQuery, ObstacleSet, Shape,
    avoidance_direction, rotation,
};
use crate::params::{
    AgentParams, Blending, Boundary, Checker, Correction, Limits, Prepared, SteeringStyle, Value,
};
use crate::{Metrics, Space};

/// With a neighbour cap of `k`, an agent stops scanning after `k` times this many candidates in
/// range, then keeps the nearest `k`: the work per agent stays bounded even if every agent
/// shares one cell.
const CANDIDATES_PER_NEIGHBOUR: usize = 4;
/// When more neighbours than the cap are in range, the lane scan takes in those within the
/// largest of these fractions of the radius that holds at most the cap (0.85 of the radius
/// holds 61% of its volume, 0.6 holds 22%); beyond them the exact scan picks the nearest.
const SHRUNK_RADII: [f32; 4] = [1.0, 0.85, 0.7, 0.6];
/// Up to this many candidates per allowed neighbour, the lane scan first tries the whole
/// radius; above it, it counts within [`SHRUNK_RADII`] first, since the cap would most likely
/// be exceeded.
const CANDIDATES_TO_TRY_PER_NEIGHBOUR: f32 = 4.0;
/// Above this many candidates per allowed neighbour, the crowd is too dense to count cheaply:
/// the exact scan, whose work is bounded, takes over.
const CANDIDATES_TO_COUNT_PER_NEIGHBOUR: f32 = 16.0;
/// Candidates scanned between checks of the scan budget.
const SCAN_BLOCK: usize = 64;

/// Index of a parameter set added with [`Crowd::add_params`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamsId(pub u32);

/// One agent's state as handed to [`Crowd::push`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentInput {
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Last direction of travel (unit length, or zero when unknown). Used for the field of view
    /// and the minimum speed while the velocity is zero.
    pub heading: Vec3,
    /// Flock number: agents align and cohere only with agents of the same flock.
    pub flock: u32,
    /// Parameter set.
    pub params: ParamsId,
    /// Point to seek, if any.
    pub target: Option<Vec3>,
}

impl AgentInput {
    /// Returns this input with non-finite values replaced, and what was replaced: a position
    /// with any non-finite component becomes `fallback_position` (or the origin), such a
    /// velocity becomes zero, such a heading is forgotten, and such a target is dropped.
    #[inline]
    pub fn sanitized(self, fallback_position: Vec3) -> (Self, Vec<Correction>) {
        if self.is_finite() {
            (self, Vec::new())
        } else {
            self.replace_non_finite(fallback_position)
        }
    }

    #[cold]
    fn replace_non_finite(mut self, fallback_position: Vec3) -> (Self, Vec<Correction>) {
        let mut check = Checker::default();
        let fallback = if fallback_position.is_finite() {
            fallback_position
        } else {
            Vec3::ZERO
        };
        check.finite_vec("position", &mut self.position, fallback);
        check.finite_vec("velocity", &mut self.velocity, Vec3::ZERO);
        if !self.heading.is_finite() {
            self.heading = Vec3::ZERO;
        }
        if let Some(target) = self.target
            && !target.is_finite()
        {
            check.record(
                "target",
                Value::Vector(target),
                Value::None,
                "must be finite; the target is ignored",
            );
            self.target = None;
        }
        (self, check.corrections)
    }

    /// Whether every value is finite (a missing target counts as finite).
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.heading.is_finite()
            && self.target.is_none_or(Vec3::is_finite)
    }
}

/// A crowd of agents in contiguous buffers, stepped one tick at a time.
///
/// Each tick: [`clear`](Self::clear), [`add_params`](Self::add_params) and
/// [`push`](Self::push) the agents, then [`build_index`](Self::build_index),
/// [`accumulate_forces`](Self::accumulate_forces), optionally [`add_force`](Self::add_force),
/// and [`integrate`](Self::integrate). [`step`](Self::step) does the last three at once.
/// Buffers keep their capacity between ticks, so a steady crowd allocates nothing.
///
/// The same inputs give bit-identical outputs: every loop runs in a fixed order.
#[derive(Clone, Debug, Default)]
pub struct Crowd {
    space: Space,
    params: Vec<Prepared>,
    /// By agent index: what integration changes.
    bodies: Vec<Body>,
    flocks: Vec<u32>,
    param_ids: Vec<u32>,
    targets: Vec<Option<Vec3>>,
    /// By agent index: avoidance directions being held (see [`AvoidanceParams::hold_seconds`]);
    /// empty until one is, so that crowds without holds pay nothing for them.
    holds: Vec<Option<AvoidanceHold>>,
    /// Whether any of `holds` may be set, so that crowds without holds skip them.
    holding: bool,
    /// By agent index: forces added with [`add_force`](Self::add_force) this tick.
    forces: Vec<Vec3>,
    grid: UniformGrid,
    /// By grid slot: each agent's state, gathered at the last index build.
    gathered: Vec<Gathered>,
    lanes: SlotLanes,
    /// By grid slot: the last force pass.
    results: Vec<SlotResult>,
    /// By grid slot: the last avoidance pass, valid while `avoided`.
    avoidance_out: Vec<SlotAvoidance>,
    /// Whether `avoidance_out` belongs to the forces pending.
    avoided: bool,
    /// Whether `results` hold forces not yet integrated.
    forces_pending: bool,
    obstacles: ObstacleSet,
    avoidance: AvoidanceParams,
    predators: Vec<Predator>,
    /// Seed of the noise (see [`set_seed`](Self::set_seed)).
    seed: u64,
    /// Integrations so far; with the seed and the agent's index it picks the noise.
    tick: u64,
    /// By agent index: the leader each agent follows this tick (see
    /// [`set_leader`](Self::set_leader)); empty until one is set.
    leaders: Vec<Option<Leader>>,
    /// By agent index: the flow fed to each agent this tick (see [`set_flow`](Self::set_flow));
    /// empty until one is set.
    flows: Vec<Vec3>,
    /// By agent index: where each agent's wander point is, as a unit direction (zero until
    /// first drawn); empty until an agent wanders.
    wanders: Vec<Vec3>,
    /// Level of detail, if on (see [`set_level_of_detail`](Self::set_level_of_detail)).
    detail: Option<LevelOfDetail>,
    /// By agent index: the steering force each agent last computed, kept while level of detail
    /// is on.
    last_forces: Vec<Option<Vec3>>,
}

/// An agent to follow (see [`Weights::leader`](crate::Weights::leader)), as one follower sees
/// it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leader {
    /// Where it is.
    pub position: Vec3,
    /// How it moves.
    pub velocity: Vec3,
    /// How far behind it the follower keeps station. Followers also keep out of the path
    /// ahead of it: a corridor half this wide either side, reaching this far plus one second
    /// of the leader's travel ahead.
    pub distance: f32,
}

impl Leader {
    /// Whether every value is finite and the distance not negative.
    pub fn is_valid(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.distance.is_finite()
            && self.distance >= 0.0
    }
}

/// How far ahead of a leader, in seconds of its travel beyond [`Leader::distance`], followers
/// keep out of its path.
const LEADER_PATH_SECONDS: f32 = 1.0;

/// Level of detail (seed 000's last step: agents far away update less often). Agents further
/// than `near_radius` from `focus` compute their steering only every `interval`-th tick,
/// staggered by agent index so that the work is spread evenly over the ticks; in between they
/// keep steering with the force they last computed, and still move every tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelOfDetail {
    /// The point detail is kept around (the camera).
    pub focus: Vec3,
    /// Agents within this distance of the focus update every tick.
    pub near_radius: f32,
    /// Far agents compute their steering once every this many ticks (1: every tick).
    pub interval: u32,
}

/// A threat agents flee (see [`Weights::flee`](crate::Weights::flee)): every agent within
/// `radius` of `position` runs from it; from where it will be, if it moves (Reynolds' evade).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predator {
    /// Where it is.
    pub position: Vec3,
    /// How it moves; agents run from where it will be by the time they could reach it at
    /// their max speed (at most [`LONGEST_LEAD`] seconds ahead). Zero for a still one.
    pub velocity: Vec3,
    /// How near it must be for agents to flee.
    pub radius: f32,
}

/// The furthest ahead, in seconds, that agents predict a moving predator's position.
pub const LONGEST_LEAD: f32 = 3.0;

impl Predator {
    /// Whether every value is finite and the radius positive and at most
    /// [`LARGEST_PARAMETER`](crate::LARGEST_PARAMETER).
    pub fn is_valid(&self) -> bool {
        self.position.is_finite()
            && self.position.abs().max_element() <= crate::LARGEST_PARAMETER
            && self.velocity.is_finite()
            && self.velocity.abs().max_element() <= crate::LARGEST_PARAMETER
            && self.radius > 0.0
            && self.radius <= crate::LARGEST_PARAMETER
    }
}

/// How far ahead of an agent, in units of the wander sphere's radius, the sphere is: the
/// wander point turns the agent up to 30 degrees off its way.
const WANDER_DISTANCE: f32 = 2.0;
/// Mixed into the seed for the wander draws, so that they are not the noise's.
const WANDER_STREAM: u64 = 0x5741_4E44_4552_0001;

/// The steering behaviours, in the order [`Blending::Prioritised`] serves them.
#[derive(Clone, Copy)]
enum Behaviour {
    Flee,
    Sidestep,
    Separation,
    Walls,
    LeaderPath,
    Leader,
    Target,
    Flow,
    Alignment,
    Cohesion,
    Wander,
}

impl Behaviour {
    const COUNT: usize = 11;
    /// Served first under either blending.
    const URGENT: [Self; 2] = [Self::Flee, Self::Sidestep];
    /// The order the weighted sum adds the rest in.
    const SUMMED: [Self; 9] = [
        Self::Separation,
        Self::Alignment,
        Self::Cohesion,
        Self::Target,
        Self::Walls,
        Self::LeaderPath,
        Self::Leader,
        Self::Flow,
        Self::Wander,
    ];
}

/// [`Blending::WeightedSum`] of the weighted `forces`: the urgent ones first, up to
/// `max_force`; the sum of the rest gets what they leave.
fn weighted_sum(forces: &[Vec3; Behaviour::COUNT], max_force: f32) -> Vec3 {
    let mut total = Vec3::ZERO;
    for behaviour in Behaviour::SUMMED {
        total += forces[behaviour as usize];
    }
    let mut urgent = Vec3::ZERO;
    for behaviour in Behaviour::URGENT {
        urgent += forces[behaviour as usize];
    }
    if urgent == Vec3::ZERO {
        return total;
    }
    let urgent = limit_length(urgent, max_force);
    let remaining = (max_force - length(urgent)).max(0.0);
    urgent + limit_length(total, remaining)
}

/// [`Blending::Prioritised`] allocation of the weighted `forces`: each in priority order takes
/// what it needs of what is left of `max_force`; the first that does not fit gets the rest.
fn prioritised(forces: &[Vec3; Behaviour::COUNT], max_force: f32) -> Vec3 {
    let mut total = Vec3::ZERO;
    let mut left = max_force;
    for &force in forces {
        if force == Vec3::ZERO {
            continue;
        }
        let needed = length(force);
        if needed <= left {
            total += force;
            left -= needed;
        } else {
            return total + force * (left / needed);
        }
    }
    total
}

/// A predicted collision counts as head on when the other agent's offset leans off the
/// heading by less than this fraction of its length: the agent then turns right.
const SIDESTEP_ALIGNED: f32 = 0.05;

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

    /// Removes every agent and parameter set, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.params.clear();
        self.bodies.clear();
        self.flocks.clear();
        self.param_ids.clear();
        self.targets.clear();
        self.holds.clear();
        self.holding = false;
        self.forces.clear();
        self.forces_pending = false;
        self.leaders.clear();
        self.flows.clear();
        self.wanders.clear();
        self.last_forces.clear();
    }

    /// Sets the leader agent `i` follows this tick (see
    /// [`Weights::leader`](crate::Weights::leader)), or none. An invalid one (see
    /// [`Leader::is_valid`]) is dropped; returns whether the leader was kept.
    pub fn set_leader(&mut self, i: usize, leader: Option<Leader>) -> bool {
        let leader = leader.filter(Leader::is_valid).map(|l| Leader {
            position: self.flat(l.position),
            velocity: self.flat(l.velocity),
            ..l
        });
        if i < self.len() && (leader.is_some() || i < self.leaders.len()) {
            self.leaders.resize(self.len(), None);
            self.leaders[i] = leader;
        }
        leader.is_some()
    }

    /// Feeds agent `i` the flow at its position this tick (see
    /// [`Weights::flow`](crate::Weights::flow)): the way to go, as a vector whose length
    /// (cut to 1) is the fraction of max speed asked for. A game samples its flow field or
    /// path there. A non-finite vector is ignored; returns whether it was kept.
    pub fn set_flow(&mut self, i: usize, flow: Vec3) -> bool {
        if i >= self.len() || !flow.is_finite() {
            return false;
        }
        self.flows.resize(self.len(), Vec3::ZERO);
        self.flows[i] = limit_length(self.flat(flow), 1.0);
        true
    }

    /// Where agent `i`'s wander point is, as a unit direction, or zero before it first
    /// wandered.
    pub fn wander_direction(&self, i: usize) -> Vec3 {
        self.wanders.get(i).copied().unwrap_or(Vec3::ZERO)
    }

    /// Restores agent `i`'s wander point (for a crowd rebuilt every tick, as the plugin's is);
    /// a zero or non-finite direction starts afresh.
    pub fn set_wander_direction(&mut self, i: usize, direction: Vec3) {
        if i < self.len() {
            self.wanders.resize(self.len(), Vec3::ZERO);
            self.wanders[i] = unit(self.flat(direction)).unwrap_or(Vec3::ZERO);
        }
    }

    /// Switches level of detail on or off. An interval of 0 counts as 1; a non-finite focus or
    /// radius switches it off.
    pub fn set_level_of_detail(&mut self, detail: Option<LevelOfDetail>) {
        self.detail = detail
            .filter(|d| d.focus.is_finite() && d.near_radius.is_finite())
            .map(|d| LevelOfDetail {
                interval: d.interval.max(1),
                ..d
            });
        if self.detail.is_none() {
            self.last_forces.clear();
        }
    }

    /// The steering force agent `i` last computed, kept while level of detail is on.
    pub fn last_force(&self, i: usize) -> Option<Vec3> {
        self.last_forces.get(i).copied().flatten()
    }

    /// Restores the steering force agent `i` last computed (for a crowd rebuilt every tick):
    /// under level of detail, a far agent steers with it until its next update. A non-finite
    /// force is dropped (the agent then updates this tick).
    pub fn set_last_force(&mut self, i: usize, force: Option<Vec3>) {
        let force = force.filter(|f| f.is_finite());
        if i < self.len() && (force.is_some() || i < self.last_forces.len()) {
            self.last_forces.resize(self.len(), None);
            self.last_forces[i] = force;
        }
    }

    /// How many agents kept their last force instead of computing one in the last force pass
    /// (level of detail).
    pub fn reused_forces(&self) -> usize {
        self.results.iter().filter(|r| r.reused).count()
    }

    /// Agent `i`'s target, if it has one.
    pub fn target(&self, i: usize) -> Option<Vec3> {
        self.targets[i]
    }

    /// Whether agent `i` has a target within its [`Limits::reach_radius`](crate::Limits).
    pub fn has_reached_target(&self, i: usize) -> bool {
        let reach = self.params_of(i).limits.reach_radius;
        self.targets[i].is_some_and(|t| length(self.bodies[i].position - t) <= reach)
    }

    /// Adds a parameter set for agents to use. Values are sanitised first (see
    /// [`AgentParams::sanitized`]); call that yourself to learn what was corrected.
    pub fn add_params(&mut self, params: AgentParams) -> ParamsId {
        self.params.push(Prepared::new(params));
        ParamsId(self.params.len() as u32 - 1)
    }

    /// The sanitised parameter set `id`.
    pub fn params(&self, id: ParamsId) -> Option<&AgentParams> {
        self.params.get(id.0 as usize).map(|p| &p.params)
    }

    /// Adds an agent and returns its index. Non-finite values are replaced as in
    /// [`AgentInput::sanitized`] (position falls back to the origin); an unknown parameter set
    /// falls back to the defaults. On the plane, z components are dropped.
    pub fn push(&mut self, agent: AgentInput) -> usize {
        let (mut agent, _) = agent.sanitized(Vec3::ZERO);
        if agent.params.0 as usize >= self.params.len() {
            agent.params = self.add_params(AgentParams::default());
        }
        let flat = |v: Vec3| match self.space {
            Space::Volume => v,
            Space::Planar => v.with_z(0.0),
        };
        let velocity = flat(agent.velocity);
        let heading = unit(velocity)
            .or_else(|| unit(flat(agent.heading)))
            .unwrap_or(Vec3::ZERO);
        self.bodies.push(Body {
            position: flat(agent.position),
            velocity,
            heading,
        });
        self.flocks.push(agent.flock);
        self.param_ids.push(agent.params.0);
        self.targets.push(agent.target.map(flat));
        self.forces.push(Vec3::ZERO);
        self.bodies.len() - 1
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether the crowd has no agents.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// The sanitised parameters agent `i` uses.
    pub fn params_of(&self, i: usize) -> &AgentParams {
        &self.params[self.param_ids[i] as usize].params
    }

    /// Agent `i`'s position.
    pub fn position(&self, i: usize) -> Vec3 {
        self.bodies[i].position
    }

    /// Agent `i`'s velocity.
    pub fn velocity(&self, i: usize) -> Vec3 {
        self.bodies[i].velocity
    }

    /// Agent `i`'s unit heading (zero if it never moved and none was given).
    pub fn heading(&self, i: usize) -> Vec3 {
        self.bodies[i].heading
    }

    /// The avoidance direction agent `i` is holding, if any: set by obstacle avoidance when
    /// [`AvoidanceParams::hold_seconds`] is positive, counted down by integration.
    pub fn avoidance_hold(&self, i: usize) -> Option<AvoidanceHold> {
        self.holds.get(i).copied().flatten()
    }

    /// Restores agent `i`'s held avoidance direction (for a crowd rebuilt every tick, as the
    /// plugin's is). One with a non-finite or zero direction, or no time left, is dropped.
    pub fn set_avoidance_hold(&mut self, i: usize, hold: Option<AvoidanceHold>) {
        let hold = hold.and_then(|h| {
            let direction = unit(self.flat(h.direction))?;
            (h.seconds_left > 0.0 && h.seconds_left.is_finite()).then_some(AvoidanceHold {
                direction,
                seconds_left: h.seconds_left,
            })
        });
        if i < self.len() && (hold.is_some() || i < self.holds.len()) {
            self.holds.resize(self.len(), None);
            self.holding |= hold.is_some();
            self.holds[i] = hold;
        }
    }

    /// Agent `i`'s accumulated steering force so far this tick: the force pass's (once it ran)
    /// plus what [`add_force`](Self::add_force) added.
    pub fn force(&self, i: usize) -> Vec3 {
        self.total_force(i, self.params_of(i).limits.max_force)
    }

    /// The force pass's force plus the added ones. Should the sum overflow (forces near
    /// `f32::MAX`), each part is first limited to `max_force`.
    fn total_force(&self, i: usize, max_force: f32) -> Vec3 {
        let computed = if self.forces_pending {
            self.results[self.grid.slots()[i] as usize].force
        } else {
            Vec3::ZERO
        };
        let total = computed + self.forces[i];
        if total.is_finite() {
            total
        } else {
            limit_length(computed, max_force) + limit_length(self.forces[i], max_force)
        }
    }

    /// Adds `force` to agent `i`'s steering before integration; a force that is not finite, or
    /// would make the sum overflow, is ignored. Returns whether the agent exists.
    pub fn add_force(&mut self, i: usize, force: Vec3) -> bool {
        match self.forces.get_mut(i) {
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

    /// Rebuilds the neighbour index: a uniform grid sized for the largest neighbour radius
    /// (see [`UniformGrid`]), and copies of the agents in cell order so that each
    /// neighbourhood is read from a few contiguous ranges. Runs on the calling thread; see
    /// [`build_index_on`](Self::build_index_on).
    pub fn build_index(&mut self) {
        self.build_index_on(&Serial);
    }

    /// [`build_index`](Self::build_index), with the copying into cell order split into chunks
    /// that `executor` may run on any threads.
    pub fn build_index_on(&mut self, executor: &dyn ChunkExecutor) {
        let radius = self
            .params
            .iter()
            .map(|p| p.params.perception.neighbour_radius)
            .fold(0.0_f32, f32::max);
        self.grid
            .rebuild(self.bodies.iter().map(|b| b.position), radius);
        self.forces_pending = false;
        let mut gathered = core::mem::take(&mut self.gathered);
        gathered.clear();
        gathered.resize(self.len(), Gathered::default());
        // Read by agent index, these loads miss the cache: in parallel, and in a loop of
        // independent loads whose misses overlap.
        let this = &*self;
        for_each_chunk_mut(executor, &mut gathered, |first, chunk| {
            let order = &this.grid.order()[first..first + chunk.len()];
            for (out, &i) in chunk.iter_mut().zip(order) {
                let i = i as usize;
                *out = Gathered {
                    body: this.bodies[i],
                    target: this.targets[i],
                    index: i as u32,
                    flock: this.flocks[i],
                    params: this.param_ids[i],
                };
            }
        });
        self.lanes.fill(&gathered);
        self.gathered = gathered;
    }

    /// Computes every agent's steering force: separation, alignment, cohesion, target seeking
    /// and walls, each clamped to the agent's max force, then weighted and summed.
    /// Call after [`build_index`](Self::build_index). Runs on the calling thread; see
    /// [`accumulate_forces_on`](Self::accumulate_forces_on) for parallel execution.
    pub fn accumulate_forces(&mut self) {
        self.accumulate_forces_on(&Serial);
    }

    /// [`accumulate_forces`](Self::accumulate_forces), with the per-agent work split into
    /// chunks that `executor` may run on any threads. Each agent's result depends only on this
    /// tick's buffers, so the outcome is bit-identical whatever the executor and thread count.
    pub fn accumulate_forces_on(&mut self, executor: &dyn ChunkExecutor) {
        let n = self.len();
        if self.gathered.len() != n {
            self.build_index_on(executor);
        }
        if self.wanders.len() != n && self.params.iter().any(|p| p.params.weights.wander != 0.0) {
            self.wanders.resize(n, Vec3::ZERO);
        }
        let mut results = core::mem::take(&mut self.results);
        results.clear();
        results.resize(n, SlotResult::default());
        let this = &*self;
        for_each_chunk_mut(executor, &mut results, |first_slot, chunk| {
            this.compute_slots(first_slot, chunk);
        });
        self.results = results;
        self.forces_pending = true;
        self.avoided = false;
    }

    /// Fills `out` with the results of the agents in sorted slots `first_slot..`.
    fn compute_slots(&self, first_slot: usize, out: &mut [SlotResult]) {
        let mut scratch = Scratch::default();
        // Agents of one cell sit in consecutive slots and share their stencil.
        let mut stencil_cell = None;
        let mut stencil = Vec::new();
        let mut seam_stencil = Vec::new();
        for (k, result) in out.iter_mut().enumerate() {
            let agent = self.slot_agent(first_slot + k);
            if let Some(force) = self.reused_force(&agent) {
                *result = SlotResult {
                    force,
                    neighbours: 0,
                    nearest_sq: f32::INFINITY,
                    reused: true,
                };
                continue;
            }
            let cell = self.grid.cell_of(agent.position);
            if stencil_cell != Some(cell) {
                self.grid.stencil(cell, self.space, &mut stencil);
                stencil_cell = Some(cell);
            }
            let scan = self.scan_neighbours(&agent, &stencil, &mut seam_stencil, &mut scratch);
            *result = SlotResult {
                force: self.steering(&agent, &scan),
                neighbours: scan.count,
                nearest_sq: scan.nearest_sq,
                reused: false,
            };
        }
    }

    /// The force `agent` keeps this tick instead of computing one, under level of detail: far
    /// from the focus, off its turn, and with a force from before.
    fn reused_force(&self, agent: &SlotAgent) -> Option<Vec3> {
        let detail = self.detail?;
        let on_turn =
            (self.tick.wrapping_add(agent.index as u64)).is_multiple_of(u64::from(detail.interval));
        let near_sq = detail.near_radius * detail.near_radius;
        if on_turn || agent.position.distance_squared(detail.focus) <= near_sq {
            return None;
        }
        self.last_forces.get(agent.index).copied().flatten()
    }

    /// The agent in sorted `slot`, as the force pass reads it.
    fn slot_agent(&self, slot: usize) -> SlotAgent<'_> {
        let gathered = &self.gathered[slot];
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

    /// Scans the neighbours of `agent` over the slot ranges of its cell's `stencil`, and over
    /// those of its images across wrap seams: with SIMD lanes when they can answer, else
    /// exactly.
    fn scan_neighbours(
        &self,
        agent: &SlotAgent,
        stencil: &[Range<usize>],
        seam_stencil: &mut Vec<Range<usize>>,
        scratch: &mut Scratch,
    ) -> Scan {
        let images = self.seam_images(agent.position, agent.params);
        self.scan_lanes(agent, &images, stencil, seam_stencil)
            .unwrap_or_else(|| self.scan_exact(agent, &images, stencil, seam_stencil, scratch))
    }

    /// The slot ranges to scan around `p + shift`: the agent's own `stencil` when unshifted,
    /// else the stencil of the image's cell, written to `seam_stencil`.
    fn image_ranges<'a>(
        &self,
        centre: Vec3,
        shift: Vec3,
        stencil: &'a [Range<usize>],
        seam_stencil: &'a mut Vec<Range<usize>>,
    ) -> &'a [Range<usize>] {
        if shift == Vec3::ZERO {
            stencil
        } else {
            self.grid
                .stencil(self.grid.cell_of(centre), self.space, seam_stencil);
            seam_stencil.as_slice()
        }
    }

    /// The scan on SIMD lanes, or `None` where it cannot answer: a coincident neighbour, more
    /// flocks than keys tell apart, or more neighbours than the cap even within the smallest
    /// of [`SHRUNK_RADII`] (or a crowd too dense to count them cheaply).
    fn scan_lanes(
        &self,
        agent: &SlotAgent,
        images: &Images,
        stencil: &[Range<usize>],
        seam_stencil: &mut Vec<Range<usize>>,
    ) -> Option<Scan> {
        if !self.lanes.keys_exact() {
            return None;
        }
        // Agents that predict no collisions run a scan without that work compiled in.
        match agent.prediction() {
            Some(prediction) => self.scan_lanes_with(
                agent,
                images,
                stencil,
                seam_stencil,
                ThreatLanes::new(prediction),
            ),
            None => self.scan_lanes_with(agent, images, stencil, seam_stencil, ()),
        }
    }

    /// [`scan_lanes`](Self::scan_lanes), observing collisions with `threats`.
    fn scan_lanes_with<T: Threats + Copy>(
        &self,
        agent: &SlotAgent,
        images: &Images,
        stencil: &[Range<usize>],
        seam_stencil: &mut Vec<Range<usize>>,
        threats: T,
    ) -> Option<Scan> {
        let prepared = agent.params;
        let probe = Probe::new(prepared.neighbour_radius_sq, agent.heading, prepared.view);
        let Some(cap) = prepared.params.perception.max_neighbours else {
            return self
                .lane_sums(
                    agent,
                    probe,
                    f32::INFINITY,
                    images,
                    stencil,
                    seam_stencil,
                    threats,
                )?
                .finish();
        };
        let cap = cap as f32;
        let mut candidates = 0;
        for shift in images.iter() {
            let centre = agent.position + shift;
            candidates += self
                .image_ranges(centre, shift, stencil, seam_stencil)
                .iter()
                .map(|r| r.len())
                .sum::<usize>();
        }
        // Few candidates: most likely under the cap, so try the whole radius first.
        if candidates as f32 <= cap * CANDIDATES_TO_TRY_PER_NEIGHBOUR
            && let Some(scan) =
                self.lane_sums(agent, probe, cap, images, stencil, seam_stencil, threats)
        {
            return scan.finish();
        }
        if candidates as f32 > cap * CANDIDATES_TO_COUNT_PER_NEIGHBOUR {
            return None;
        }
        // Count the neighbours within each step of the radius, and take in those within the
        // largest step that holds at most `cap`.
        let radii_sq = SHRUNK_RADII.map(|f| f * f * prepared.neighbour_radius_sq);
        let mut counts = [0.0; 4];
        for shift in images.iter() {
            let centre = agent.position + shift;
            let ranges = self.image_ranges(centre, shift, stencil, seam_stencil);
            let found = probe.count_within(&self.lanes, ranges, centre, agent.slot, radii_sq);
            for (total, found) in counts.iter_mut().zip(found) {
                *total += found;
            }
        }
        let (radius_sq, _) = radii_sq
            .into_iter()
            .zip(counts)
            .find(|&(_, count)| count <= cap)?;
        let probe = probe.with_radius_sq(radius_sq);
        self.lane_sums(agent, probe, cap, images, stencil, seam_stencil, threats)?
            .finish()
    }

    /// The lane sums of what `probe` takes in around `agent`, or `None` as soon as they hold
    /// more than `cap` neighbours.
    #[expect(
        clippy::too_many_arguments,
        reason = "the scan state of scan_lanes_with, passed down"
    )]
    fn lane_sums<T: Threats>(
        &self,
        agent: &SlotAgent,
        probe: Probe,
        cap: f32,
        images: &Images,
        stencil: &[Range<usize>],
        seam_stencil: &mut Vec<Range<usize>>,
        threats: T,
    ) -> Option<LaneScan<T>> {
        let mut scan = LaneScan::new(
            probe,
            agent.params.separation_radius_sq,
            agent.params.unit_separation,
            self.lanes.flock_key(agent.slot),
            threats,
        );
        for shift in images.iter() {
            let centre = agent.position + shift;
            let ranges = self.image_ranges(centre, shift, stencil, seam_stencil);
            if !scan.add(&self.lanes, ranges, centre, agent.slot, cap, SCAN_BLOCK) {
                return None;
            }
        }
        (scan.count() <= cap).then_some(scan)
    }

    /// The exact scan: candidates in range are collected, filtered by the field of view, cut to
    /// the nearest `max_neighbours`, and coincident neighbours get their fixed direction.
    fn scan_exact(
        &self,
        agent: &SlotAgent,
        images: &Images,
        stencil: &[Range<usize>],
        seam_stencil: &mut Vec<Range<usize>>,
        scratch: &mut Scratch,
    ) -> Scan {
        let (prepared, p, heading) = (agent.params, agent.position, agent.heading);
        let cap = prepared
            .params
            .perception
            .max_neighbours
            .map(|k| k as usize);
        let budget = cap.map_or(usize::MAX, |k| {
            k.saturating_mul(CANDIDATES_PER_NEIGHBOUR).max(64)
        });
        // Pass 1, without branches on the data: every candidate is written to `scratch` and
        // kept (by advancing `found`) only if it is in range, so the unpredictable radius
        // test costs no mispredicted jumps.
        let mut found = 0;
        'images: for shift in images.iter() {
            let centre = p + shift;
            for range in self.image_ranges(centre, shift, stencil, seam_stencil) {
                // In blocks, so that the scan budget holds even when one cell holds everyone.
                for block in range.clone().step_by(SCAN_BLOCK) {
                    let block = block..(block + SCAN_BLOCK).min(range.end);
                    let needed = found + block.len();
                    if scratch.candidates.len() < needed {
                        scratch.candidates.resize(needed, Candidate::default());
                    }
                    for slot in block {
                        let offset = self.lanes.position(slot) - centre;
                        let dist_sq = offset.length_squared();
                        scratch.candidates[found] = Candidate {
                            dist_sq,
                            slot: slot as u32,
                            offset,
                        };
                        let in_range = dist_sq <= prepared.neighbour_radius_sq;
                        found += usize::from(in_range & (slot != agent.slot));
                    }
                    if found >= budget {
                        break 'images;
                    }
                }
            }
        }
        // Pass 2: the field of view, then the cap, then the rules.
        if let Some(view) = prepared.view
            && heading != Vec3::ZERO
        {
            let mut visible = 0;
            for k in 0..found {
                let c = scratch.candidates[k];
                if view.sees(c.offset.dot(heading), c.dist_sq) {
                    scratch.candidates[visible] = c;
                    visible += 1;
                }
            }
            found = visible;
        }
        let mut scan = Scan::new();
        let prediction = agent.prediction();
        match cap {
            Some(cap) if cap < found => {
                // Over the cap: the nearest. Each key packs the squared distance (never
                // negative, so its bits order like the number) over the candidate's place in
                // the scan, which breaks ties: the set is canonical, and selecting integers is
                // fast. Selection is deterministic, so the sums need no sorted order.
                let keys = &mut scratch.keys;
                keys.clear();
                keys.extend(
                    scratch.candidates[..found]
                        .iter()
                        .enumerate()
                        .map(|(k, c)| (u64::from(c.dist_sq.to_bits()) << 32) | k as u64),
                );
                keys.select_nth_unstable(cap);
                for &key in &keys[..cap] {
                    let candidate = &scratch.candidates[key as u32 as usize];
                    self.take_neighbour(agent, candidate, prediction, &mut scan);
                }
            }
            _ => {
                for candidate in &scratch.candidates[..found] {
                    self.take_neighbour(agent, candidate, prediction, &mut scan);
                }
            }
        }
        scan
    }

    /// Adds one neighbour of `agent` to its scan.
    fn take_neighbour(
        &self,
        agent: &SlotAgent,
        c: &Candidate,
        prediction: Option<Prediction>,
        scan: &mut Scan,
    ) {
        let slot = c.slot as usize;
        let other = &self.gathered[slot];
        scan.count += 1;
        scan.nearest_sq = scan.nearest_sq.min(c.dist_sq);
        if let Some(threat) =
            prediction.and_then(|p| p.threat(c.offset, c.dist_sq, other.body.velocity))
            && scan.threat.is_none_or(|t| threat.time < t.time)
        {
            scan.threat = Some(threat);
        }
        if c.dist_sq < agent.params.separation_radius_sq {
            let away = if c.dist_sq > COINCIDENT_SQ {
                -c.offset
            } else {
                coincident_direction(agent.index, other.index as usize, self.space)
                    * SEPARATION_FLOOR_SQ.sqrt()
            };
            scan.separation += away / separation_divisor(c.dist_sq, agent.params.unit_separation);
        }
        if other.flock == self.gathered[agent.slot].flock {
            scan.mates += 1;
            scan.velocity_sum += other.body.velocity;
            scan.offset_sum += c.offset;
        }
    }

    /// The shifts under which agent `p` looks for neighbours: zero, plus, in a wrapping box,
    /// one box size across each face it is within a neighbour radius of (up to 8 in a corner),
    /// so that agents see each other across the seam. Axes where the box is no wider than two
    /// radii get no seam search, since an agent could then be counted twice.
    fn seam_images(&self, p: Vec3, prepared: &Prepared) -> Images {
        let mut images = Images {
            shifts: [Vec3::ZERO; 8],
            len: 1,
        };
        let Boundary::Wrap { min, max } = prepared.params.boundary else {
            return images;
        };
        let radius = prepared.params.perception.neighbour_radius;
        let axes = match self.space {
            Space::Volume => 3,
            Space::Planar => 2,
        };
        for axis in 0..axes {
            let size = max[axis] - min[axis];
            if size <= 2.0 * radius {
                continue;
            }
            let across = if p[axis] - min[axis] < radius {
                size
            } else if max[axis] - p[axis] < radius {
                -size
            } else {
                continue;
            };
            for k in 0..images.len {
                let mut shifted = images.shifts[k];
                shifted[axis] += across;
                images.shifts[images.len + k] = shifted;
            }
            images.len *= 2;
        }
        images
    }

    /// The agent's steering force: each behaviour's force, weighted, then blended as its
    /// [`Blending`] says.
    fn steering(&self, agent: &SlotAgent, scan: &Scan) -> Vec3 {
        let params = &agent.params.params;
        let (w, limits) = (params.weights, params.limits);
        let (p, v) = (agent.position, agent.velocity);

        let mut forces = [Vec3::ZERO; Behaviour::COUNT];
        let mut set = |behaviour: Behaviour, force: Vec3| forces[behaviour as usize] = force;
        let [separation, alignment, cohesion] = flocking_rules(scan, params, v);
        set(Behaviour::Separation, separation * w.separation);
        set(Behaviour::Alignment, alignment * w.alignment);
        set(Behaviour::Cohesion, cohesion * w.cohesion);
        if let Some(target) = agent.target {
            set(Behaviour::Target, seek(p, v, target, &limits) * w.target);
        }
        if let Boundary::Walls {
            min,
            max,
            margin,
            weight,
        } = params.boundary
            && margin > 0.0
        {
            let inward = ((min + margin - p).max(Vec3::ZERO)
                - (p - (max - margin)).max(Vec3::ZERO))
                / margin;
            let inward = inward.clamp(Vec3::NEG_ONE, Vec3::ONE);
            set(
                Behaviour::Walls,
                self.flat(inward) * limits.max_force * weight,
            );
        }
        if w.flee != 0.0 && !self.predators.is_empty() {
            set(Behaviour::Flee, self.flee(agent) * w.flee);
        }
        if let Some(threat) = scan.threat {
            set(
                Behaviour::Sidestep,
                self.sidestep(agent, threat) * w.collision_avoidance,
            );
        }
        if w.leader != 0.0
            && let Some(leader) = self.leaders.get(agent.index).copied().flatten()
        {
            let (clear_path, keep_station) = self.follow(agent, &leader);
            set(Behaviour::LeaderPath, clear_path * w.leader);
            set(Behaviour::Leader, keep_station * w.leader);
        }
        if w.flow != 0.0
            && let Some(&flow) = self.flows.get(agent.index)
            && flow != Vec3::ZERO
        {
            set(
                Behaviour::Flow,
                respond(flow * limits.max_speed, v, &limits) * w.flow,
            );
        }
        if w.wander != 0.0 {
            set(Behaviour::Wander, self.wander(agent) * w.wander);
        }

        let total = match w.blending {
            Blending::WeightedSum => weighted_sum(&forces, limits.max_force),
            Blending::Prioritised => prioritised(&forces, limits.max_force),
            Blending::RuleLimitsOnly => forces.iter().sum(),
        };
        if total.is_finite() { total } else { Vec3::ZERO }
    }

    /// The forces that make `agent` follow `leader`: one that steps it sideways out of the
    /// corridor ahead of a moving leader (the stronger the nearer its middle), and one that
    /// brings it to the station `leader.distance` behind, matching the leader's velocity and
    /// slowing inside the arrival radius as it nears the station.
    fn follow(&self, agent: &SlotAgent, leader: &Leader) -> (Vec3, Vec3) {
        let limits = agent.params.params.limits;
        let (p, v) = (agent.position, agent.velocity);
        let offset = self.flat(p - leader.position);
        let (clear_path, behind) = match unit(leader.velocity) {
            Some(ahead) => {
                let along = offset.dot(ahead);
                let across = offset - ahead * along;
                let half_width = leader.distance * 0.5;
                let reach = leader.distance + length(leader.velocity) * LEADER_PATH_SECONDS;
                let in_path = along > 0.0 && along < reach && length(across) < half_width;
                let clear_path = if in_path {
                    let aside = unit(across).unwrap_or_else(|| self.right_of(ahead));
                    aside * limits.max_force * (1.0 - length(across) / half_width)
                } else {
                    Vec3::ZERO
                };
                (clear_path, ahead * -leader.distance)
            }
            // A leader at rest: keep the distance, on whichever side the follower is.
            None => (
                Vec3::ZERO,
                unit(offset).unwrap_or(Vec3::ZERO) * leader.distance,
            ),
        };
        let to_station = self.flat(leader.position + behind - p);
        let distance = length(to_station);
        let approach = if distance < limits.arrival_radius {
            limits.max_speed * distance / limits.arrival_radius
        } else {
            limits.max_speed
        };
        let desired = limit_length(
            leader.velocity + unit(to_station).unwrap_or(Vec3::ZERO) * approach,
            limits.max_speed,
        );
        (clear_path, respond(desired, v, &limits))
    }

    /// The force toward `agent`'s wander point: on a unit sphere two units ahead of it, at
    /// the agent's wander direction (which integration moves at random).
    fn wander(&self, agent: &SlotAgent) -> Vec3 {
        let limits = agent.params.params.limits;
        let around = self.wander_point(agent.index);
        let ahead = unit(self.flat(agent.velocity))
            .or_else(|| unit(agent.heading))
            .unwrap_or(Vec3::ZERO);
        match unit(self.flat(ahead * WANDER_DISTANCE + around)) {
            Some(dir) => respond(dir * limits.max_speed, agent.velocity, &limits),
            None => Vec3::ZERO,
        }
    }

    /// Agent `i`'s wander direction, drawn at random (from the seed and its index) before it
    /// has one.
    fn wander_point(&self, i: usize) -> Vec3 {
        match self.wanders.get(i) {
            Some(&w) if w != Vec3::ZERO => w,
            _ => {
                let mut draw = NoiseDraw::new(self.seed ^ WANDER_STREAM, u64::MAX, i);
                unit(self.flat(draw.in_cube())).unwrap_or(Vec3::X)
            }
        }
    }

    /// Moves every wandering agent's wander point one random step, of `rate * sqrt(dt)` at
    /// most along each axis, back onto the sphere.
    fn drift_wander_points(&mut self, dt: f32) {
        if self.wanders.is_empty() {
            return;
        }
        for i in 0..self.len() {
            let w = self.params_of(i).weights;
            if w.wander == 0.0 {
                continue;
            }
            let mut draw = NoiseDraw::new(self.seed ^ WANDER_STREAM, self.tick, i);
            let step = draw.in_cube() * w.wander_rate * dt.sqrt();
            let current = self.wander_point(i);
            self.wanders[i] = unit(self.flat(current + step)).unwrap_or(current);
        }
    }

    /// The force that runs `agent` from the predators within their radius (Reynolds' flee,
    /// or evade for a moving one: away from where it will be when the agent could reach it):
    /// toward a velocity straight away at max speed (the nearer predator counting more), up
    /// to the max force.
    fn flee(&self, agent: &SlotAgent) -> Vec3 {
        let limits = agent.params.params.limits;
        let mut away = Vec3::ZERO;
        for predator in &self.predators {
            let distance = length(self.flat(agent.position - predator.position));
            if distance >= predator.radius {
                continue;
            }
            let depth = 1.0 - distance / predator.radius;
            let ahead =
                predator.position + predator.velocity * lead_time(distance, limits.max_speed);
            let offset = self.flat(agent.position - ahead);
            let dir = unit(offset)
                .or_else(|| unit(self.flat(agent.heading)))
                .unwrap_or(Vec3::ZERO);
            away += dir * depth;
        }
        match unit(away) {
            Some(dir) => respond(dir * limits.max_speed, agent.velocity, &limits),
            None => Vec3::ZERO,
        }
    }

    /// The force that turns `agent` away from a predicted collision: across its heading, away
    /// from where the other agent will be, stronger the sooner the collision (the agent's max
    /// force for one that is happening now). When the other will be straight ahead (a head-on
    /// meeting), the agent turns right (on the plane, clockwise; in 3D, about the Y axis), so
    /// that two agents meeting head on both keep right and pass.
    fn sidestep(&self, agent: &SlotAgent, threat: Threat) -> Vec3 {
        let params = &agent.params.params;
        let heading = unit(self.flat(agent.velocity))
            .or_else(|| unit(self.flat(agent.heading)))
            .unwrap_or(Vec3::ZERO);
        let offset = self.flat(threat.offset);
        let across = heading * offset.dot(heading) - offset;
        let away = match unit(across) {
            Some(away) if length(across) > SIDESTEP_ALIGNED * length(offset) => away,
            _ if heading != Vec3::ZERO => self.right_of(heading),
            _ => unit(-offset).unwrap_or(Vec3::ZERO),
        };
        let urgency = 1.0 - threat.time / params.perception.collision_horizon;
        away * params.limits.max_force * urgency.clamp(0.0, 1.0)
    }

    /// Advances every agent by `dt` seconds: the force is limited to max force, the velocity
    /// kept within [min speed, max speed], the position moved, wrapped or kept inside walls.
    /// A non-finite or non-positive `dt` does nothing. An agent whose new state would not be
    /// finite keeps its old one. Runs on the calling thread; see
    /// [`integrate_on`](Self::integrate_on).
    pub fn integrate(&mut self, dt: f32) {
        self.integrate_on(dt, &Serial);
    }

    /// [`integrate`](Self::integrate), split into chunks that `executor` may run on any
    /// threads.
    pub fn integrate_on(&mut self, dt: f32, executor: &dyn ChunkExecutor) {
        self.integrate_with(dt, executor, None);
    }

    /// [`integrate_on`](Self::integrate_on), keeping agents out of `colliders` (a physics
    /// backend's obstacles) as well as out of the crowd's own [`obstacles`](Self::obstacles).
    pub fn integrate_with(
        &mut self,
        dt: f32,
        executor: &dyn ChunkExecutor,
        colliders: Option<&dyn ObstacleQuery>,
    ) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let mut bodies = core::mem::take(&mut self.bodies);
        let this = &*self;
        let obstacles = Layered::new(&self.obstacles, colliders);
        for_each_chunk_mut(executor, &mut bodies, |first, chunk| {
            for (k, body) in chunk.iter_mut().enumerate() {
                this.integrate_agent(first + k, body, dt, &obstacles);
            }
        });
        self.bodies = bodies;
        self.keep_last_forces();
        self.drift_wander_points(dt);
        self.tick = self.tick.wrapping_add(1);
        self.count_down_holds(dt);
        self.forces.fill(Vec3::ZERO);
        self.forces_pending = false;
    }

    /// The velocity after `dt` of an agent whose heading drives its motion, turning at most
    /// `rate` degrees per second: the force along the heading changes its speed, the force
    /// across it turns the heading (as it would turn a velocity, `|across| / speed` radians per
    /// second) up to the rate. A force pointing backwards turns the agent at the full rate,
    /// to the side it leans to (right when straight back: clockwise on the plane, about the Y
    /// axis in 3D), while it brakes, so that a creature turns round rather than reverses.
    fn heading_driven(&self, body: &Body, force: Vec3, dt: f32, rate: f32) -> Vec3 {
        let velocity = self.flat(body.velocity);
        let Some(heading) = unit(self.flat(body.heading)).or_else(|| unit(velocity)) else {
            // No heading yet: the first push gives one.
            return self.flat(velocity + force * dt);
        };
        let along = force.dot(heading);
        let across = self.flat(force - heading * along);
        let speed = (length(velocity) + along * dt).max(0.0);
        let max_angle = (rate * dt).to_radians();
        let angle = if along < 0.0 {
            max_angle
        } else {
            (length(across) / speed.max(f32::MIN_POSITIVE) * dt).min(max_angle)
        };
        let side = unit(across).unwrap_or_else(|| self.right_of(heading));
        let turned = match unit(heading.cross(side)) {
            Some(axis) if angle > 0.0 => self.flat(rotation(axis, angle) * heading),
            _ => heading,
        };
        turned * speed
    }

    /// `v` turned by this tick's random angle for agent `i`, up to `noise / 2` either way (in
    /// 3D about a random axis across `v`).
    fn with_noise(&self, i: usize, v: Vec3, noise: f32) -> Vec3 {
        let Some(dir) = unit(v) else {
            return v;
        };
        let mut draw = NoiseDraw::new(self.seed, self.tick, i);
        let angle = (draw.unit() - 0.5) * noise;
        let axis = match self.space {
            Space::Planar => Vec3::Z,
            Space::Volume => {
                let (a, b) = dir.any_orthonormal_pair();
                let around = draw.unit() * core::f32::consts::TAU;
                a * libm::cosf(around) + b * libm::sinf(around)
            }
        };
        self.flat(rotation(axis, angle) * v)
    }

    /// Sets the seed of the noise (see [`Weights::noise`](crate::Weights::noise)): the same
    /// seed, agents and ticks give the same noise. 0 until set.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// The direction to the right of unit `heading`: clockwise on the plane; in 3D, across it
    /// and the Y axis (across any axis when heading straight up or down).
    fn right_of(&self, heading: Vec3) -> Vec3 {
        match self.space {
            Space::Planar => Vec3::new(heading.y, -heading.x, 0.0),
            Space::Volume => unit(heading.cross(Vec3::Y))
                .or_else(|| unit(heading.any_orthonormal_vector()))
                .unwrap_or(Vec3::X),
        }
    }

    /// Under level of detail, keeps each agent's force of this tick's pass for the ticks it
    /// skips.
    fn keep_last_forces(&mut self) {
        if self.detail.is_none() || !self.forces_pending {
            return;
        }
        self.last_forces.resize(self.len(), None);
        for (i, kept) in self.last_forces.iter_mut().enumerate() {
            *kept = Some(self.results[self.grid.slots()[i] as usize].force);
        }
    }

    /// Takes the holds the avoidance pass chose, less `dt`; without a pass, none is held.
    fn count_down_holds(&mut self, dt: f32) {
        if !self.holding {
            return;
        }
        self.holds.resize(self.len(), None);
        let counted = self.avoided && self.avoidance_out.len() == self.holds.len();
        let mut any = false;
        for (i, hold) in self.holds.iter_mut().enumerate() {
            *hold = if counted {
                self.avoidance_out[self.grid.slots()[i] as usize]
                    .hold
                    .map(|h| AvoidanceHold {
                        seconds_left: h.seconds_left - dt,
                        ..h
                    })
                    .filter(|h| h.seconds_left > 0.0)
            } else {
                None
            };
            any |= hold.is_some();
        }
        self.holding = any;
    }

    fn integrate_agent(&self, i: usize, body: &mut Body, dt: f32, obstacles: &Layered) {
        let params = &self.params[self.param_ids[i] as usize].params;
        let limits = params.limits;
        let force = match params.weights.blending {
            Blending::RuleLimitsOnly => self.total_force(i, limits.max_force),
            Blending::WeightedSum | Blending::Prioritised => {
                limit_length(self.total_force(i, limits.max_force), limits.max_force)
            }
        };
        let mut v = match limits.max_turn_rate {
            Some(rate) => self.heading_driven(body, force, dt, rate),
            None => self.flat(body.velocity + force * dt),
        };
        let speed = length(v);
        if speed > limits.max_speed {
            let ratio = limits.max_speed / speed;
            // A subnormal ratio has lost precision: go through the unit vector instead.
            v = if ratio.is_normal() || ratio == 0.0 {
                v * ratio
            } else {
                v / speed * limits.max_speed
            };
        } else if speed < limits.min_speed {
            let dir = unit(v).or_else(|| unit(body.heading)).unwrap_or(Vec3::ZERO);
            v = dir * limits.min_speed;
        }
        if params.weights.noise > 0.0 {
            v = self.with_noise(i, v, params.weights.noise);
        }
        let mut p = self.flat(body.position + v * dt);
        // Never into an obstacle: stop at the first surface crossed, then spend the rest of
        // the move sliding along it (a second surface stops the slide).
        if !obstacles.is_empty() && p.is_finite() {
            let target = p;
            let (allowed, surface) = obstacles.constrain(body.position, target);
            p = allowed;
            if let Some(normal) = surface {
                v -= normal * v.dot(normal).min(0.0);
                let rest = target - allowed;
                let slide = rest - normal * rest.dot(normal).min(0.0);
                let (slid, second) = obstacles.constrain(allowed, allowed + slide);
                p = slid;
                if let Some(normal) = second {
                    v -= normal * v.dot(normal).min(0.0);
                }
            }
            p = self.flat(p);
            v = self.flat(v);
        }
        match params.boundary {
            Boundary::None => {}
            Boundary::Wrap { min, max } => p = wrap(p, min, max),
            Boundary::Walls { min, max, .. } => (p, v) = keep_inside(p, v, min, max),
        }
        if p.is_finite() && v.is_finite() {
            body.position = p;
            body.velocity = v;
            if let Some(h) = unit(v) {
                body.heading = h;
            }
        }
    }

    /// Mean number of candidates the neighbour scan checks per agent (distance tests, seams
    /// included), for the last [`build_index`](Self::build_index): the work behind the
    /// neighbours found. Not part of a tick; benchmarks report it beside their times.
    pub fn candidates_per_agent(&self) -> f32 {
        if self.is_empty() || self.gathered.len() != self.len() {
            return 0.0;
        }
        let mut total = 0_u64;
        for i in 0..self.len() {
            let prepared = &self.params[self.param_ids[i] as usize];
            let p = self.bodies[i].position;
            for shift in self.seam_images(p, prepared).iter() {
                let _ = self.grid.for_each_candidate(p + shift, self.space, |_| {
                    total += 1;
                    ControlFlow::Continue(())
                });
            }
        }
        total as f32 / self.len() as f32
    }

    /// Agent `i`'s flock number.
    pub fn flock(&self, i: usize) -> u32 {
        self.flocks[i]
    }

    /// Calls `visit(i, distance)` for every agent `i` within `radius` of `point`, using the
    /// positions of the last [`build_index`](Self::build_index). Any radius works: the grid
    /// visits the cells the sphere touches (the disc, on the plane). A non-finite point or a
    /// negative radius finds nothing.
    pub fn for_each_within(&self, point: Vec3, radius: f32, mut visit: impl FnMut(usize, f32)) {
        if !point.is_finite()
            || radius.is_nan()
            || radius < 0.0
            || self.gathered.len() != self.len()
        {
            return;
        }
        let radius_sq = radius * radius;
        self.grid
            .for_each_in_reach(point, radius, self.space, |slot| {
                let offset = self.gathered[slot].body.position - point;
                let dist_sq = offset.length_squared();
                if dist_sq <= radius_sq {
                    let distance = length(offset);
                    if distance <= radius {
                        visit(self.grid.order()[slot] as usize, distance);
                    }
                }
            });
    }

    /// The `k` agents nearest to `point` for which `filter` holds, as `(index, distance)`
    /// nearest first (ties by index), using the positions of the last
    /// [`build_index`](Self::build_index). Searches outward from the point's cell, doubling the
    /// radius until `k` are found or the whole crowd is covered.
    pub fn k_nearest(
        &self,
        point: Vec3,
        k: usize,
        mut filter: impl FnMut(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let mut found = Vec::new();
        if k == 0 || self.is_empty() || !point.is_finite() {
            return found;
        }
        let (lo, hi) = self.grid.bounds();
        let covers_all = point
            .distance(lo.min(point))
            .max(point.distance(hi.max(point)))
            + (hi - lo).length();
        let mut radius = self.grid.radius();
        loop {
            found.clear();
            self.for_each_within(point, radius, |i, d| {
                if filter(i) {
                    found.push((i, d));
                }
            });
            if found.len() >= k || radius >= covers_all || !radius.is_finite() {
                break;
            }
            radius *= 2.0;
        }
        found.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        found.truncate(k);
        found
    }

    /// Replaces the obstacles that agents steer around (see
    /// [`avoid_obstacles`](Self::avoid_obstacles)) and never enter (see
    /// [`integrate`](Self::integrate)). Invalid shapes (see [`Shape::is_valid`]) are skipped;
    /// returns how many were.
    pub fn set_obstacles(&mut self, shapes: impl IntoIterator<Item = Shape>) -> usize {
        let reach = self.avoidance.max_look_ahead + self.avoidance.cast_radius;
        self.obstacles.rebuild(shapes, reach)
    }

    /// The obstacles of [`set_obstacles`](Self::set_obstacles).
    pub fn obstacles(&self) -> &ObstacleSet {
        &self.obstacles
    }

    /// Replaces the predators agents flee (see [`Weights::flee`](crate::Weights::flee)), from
    /// the next force pass. Invalid ones (see [`Predator::is_valid`]) are skipped; returns how
    /// many were.
    pub fn set_predators(&mut self, predators: impl IntoIterator<Item = Predator>) -> usize {
        self.predators.clear();
        let mut skipped = 0;
        for predator in predators {
            if predator.is_valid() {
                self.predators.push(Predator {
                    position: self.flat(predator.position),
                    velocity: self.flat(predator.velocity),
                    ..predator
                });
            } else {
                skipped += 1;
            }
        }
        skipped
    }

    /// Sets how agents look ahead for obstacles, sanitised with
    /// [`AvoidanceParams::sanitized`] (call that yourself to learn what was corrected). Takes
    /// effect from the next [`set_obstacles`](Self::set_obstacles).
    pub fn set_avoidance(&mut self, params: AvoidanceParams) {
        self.avoidance = params.sanitized().0;
    }

    /// Steers agents around obstacles: each casts a ball ahead along its heading, as far as its
    /// look-ahead (which grows with speed); when that hits, it turns toward the nearest clear
    /// direction of a fan (or along the obstacle's normal if none is clear). Avoidance comes
    /// first: it takes what it needs of the max force, and the flocking force gets the rest.
    /// An agent with a target looks no further ahead than the target, and inside its arrival
    /// radius turns at the speed arriving asks for, so that one settling by a wall stays.
    /// Call after [`accumulate_forces`](Self::accumulate_forces); runs on the calling thread.
    pub fn avoid_obstacles(&mut self) {
        self.avoid_obstacles_on(&Serial);
    }

    /// [`avoid_obstacles`](Self::avoid_obstacles), split into chunks that `executor` may run
    /// on any threads. Returns how many agents are avoiding.
    pub fn avoid_obstacles_on(&mut self, executor: &dyn ChunkExecutor) -> usize {
        self.avoid_obstacles_with(executor, None)
    }

    /// [`avoid_obstacles_on`](Self::avoid_obstacles_on), steering around `colliders` (a
    /// physics backend's obstacles) as well as the crowd's own [`obstacles`](Self::obstacles).
    pub fn avoid_obstacles_with(
        &mut self,
        executor: &dyn ChunkExecutor,
        colliders: Option<&dyn ObstacleQuery>,
    ) -> usize {
        let obstacles = Layered::new(&self.obstacles, colliders);
        if obstacles.is_empty() || !self.forces_pending {
            return 0;
        }
        let mut results = core::mem::take(&mut self.results);
        let mut out = core::mem::take(&mut self.avoidance_out);
        out.clear();
        out.resize(results.len(), SlotAvoidance::default());
        let this = &*self;
        for_each_chunk_mut2(executor, &mut results, &mut out, |first, results, out| {
            for (k, (result, out)) in results.iter_mut().zip(out).enumerate() {
                this.avoid(first + k, result, out, &obstacles);
            }
        });
        self.results = results;
        self.avoidance_out = out;
        self.avoided = true;
        self.holding |= self.avoidance.hold_seconds > 0.0;
        self.avoidance_out.iter().filter(|a| a.avoiding).count()
    }

    fn avoid(
        &self,
        slot: usize,
        result: &mut SlotResult,
        out: &mut SlotAvoidance,
        obstacles: &Layered,
    ) {
        let agent = self.slot_agent(slot);
        if result.reused {
            // Its kept force already holds its avoidance; so does its hold.
            out.hold = self.holds.get(agent.index).copied().flatten();
            return;
        }
        if agent.heading == Vec3::ZERO {
            return;
        }
        let limits = agent.params.params.limits;
        let a = &self.avoidance;
        let fraction = if limits.max_speed > 0.0 {
            (length(agent.velocity) / limits.max_speed).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let mut look_ahead = a.min_look_ahead + (a.max_look_ahead - a.min_look_ahead) * fraction;
        // No further than the target: one that stops short of a wall need not turn from it.
        if let Some(target) = agent.target {
            look_ahead = look_ahead.min(length(self.flat(target - agent.position)));
        }
        // A held direction is kept while it stays clear.
        let held = self
            .holds
            .get(agent.index)
            .copied()
            .flatten()
            .filter(|hold| {
                a.hold_seconds > 0.0
                    && obstacles.is_clear(agent.position, hold.direction, look_ahead, a.cast_radius)
            });
        let (dir, holdable) = match held {
            Some(hold) => (hold.direction, true),
            None => match avoidance_direction(
                obstacles,
                agent.position,
                agent.heading,
                look_ahead,
                a,
                self.space,
            ) {
                Some(Avoidance::Clear(dir)) => (dir, true),
                // Backing away is for this tick only: nothing to hold.
                Some(Avoidance::Back(dir)) => (dir, false),
                None => return,
            },
        };
        if a.hold_seconds > 0.0 && holdable {
            // The hold runs its time, and starts again for as long as the way the agent
            // wants to go (to its target, or where its rules steer) is blocked: it follows a
            // wall round to its end instead of turning back into it.
            let wanted = agent
                .target
                .and_then(|t| unit(self.flat(t - agent.position)))
                .or_else(|| unit(self.flat(agent.velocity + result.force)));
            let blocked = wanted
                .is_some_and(|w| !obstacles.is_clear(agent.position, w, look_ahead, a.cast_radius));
            out.hold = Some(AvoidanceHold {
                direction: dir,
                seconds_left: match held {
                    Some(hold) if !blocked => hold.seconds_left,
                    _ => a.hold_seconds,
                },
            });
        }
        // Turn away at full speed, or, inside the arrival radius of a target, at the speed
        // seeking it asks for: an agent settling beside a wall is not sent off again.
        let speed = match agent.target {
            Some(target) if limits.arrival_radius > 0.0 => {
                let distance = length(self.flat(target - agent.position));
                (limits.max_speed * (distance / limits.arrival_radius).min(1.0))
                    .max(limits.min_speed)
            }
            _ => limits.max_speed,
        };
        let desired = self.flat(dir) * speed;
        let avoid = limit_length(desired - agent.velocity, limits.max_force);
        let remaining = (limits.max_force - length(avoid)).max(0.0);
        let force = avoid + limit_length(result.force, remaining);
        if force.is_finite() {
            result.force = force;
            out.avoiding = true;
        }
    }

    /// One whole tick: index, forces, obstacle avoidance, integration.
    pub fn step(&mut self, dt: f32) {
        self.step_on(dt, &Serial);
    }

    /// [`step`](Self::step), with each pass split into chunks that `executor` may run on any
    /// threads.
    pub fn step_on(&mut self, dt: f32, executor: &dyn ChunkExecutor) {
        self.build_index_on(executor);
        self.accumulate_forces_on(executor);
        self.avoid_obstacles_on(executor);
        self.integrate_on(dt, executor);
    }

    /// Measures the crowd: polarisation from the current headings, neighbour figures from the
    /// last [`accumulate_forces`](Self::accumulate_forces) (over the agents that scanned, under
    /// level of detail).
    pub fn metrics(&self) -> Metrics {
        let n = self.len();
        if n == 0 {
            return Metrics::default();
        }
        let heading_sum: Vec3 = self.bodies.iter().map(|b| b.heading).sum();
        let counted = self.results.len() == n;
        let (neighbours, scanned) = if counted {
            self.results
                .iter()
                .filter(|r| !r.reused)
                .fold((0_u64, 0_usize), |(sum, count), r| {
                    (sum + u64::from(r.neighbours), count + 1)
                })
        } else {
            (0, n)
        };
        let mut nearest_sum = 0.0_f64;
        let mut nearest_min = f32::INFINITY;
        let mut with_neighbour = 0_usize;
        if counted {
            for d in self
                .results
                .iter()
                .map(|r| r.nearest_sq)
                .filter(|d| d.is_finite())
            {
                let d = d.sqrt();
                nearest_sum += f64::from(d);
                nearest_min = nearest_min.min(d);
                with_neighbour += 1;
            }
        }
        Metrics {
            agents: n,
            polarisation: heading_sum.length() / n as f32,
            mean_neighbours: neighbours as f32 / scanned.max(1) as f32,
            mean_nearest_distance: (with_neighbour > 0)
                .then(|| (nearest_sum / with_neighbour as f64) as f32),
            min_nearest_distance: (with_neighbour > 0).then_some(nearest_min),
        }
    }

    fn flat(&self, v: Vec3) -> Vec3 {
        match self.space {
            Space::Volume => v,
            Space::Planar => v.with_z(0.0),
        }
    }
}

#[cfg(test)]
impl Crowd {
    /// For every agent, the SIMD scan (where it answers) and the exact scan, after
    /// [`build_index`](Self::build_index).
    pub(crate) fn both_scans(&self) -> Vec<(Option<Scan>, Scan)> {
        let (mut stencil, mut seam_stencil) = (Vec::new(), Vec::new());
        let mut scratch = Scratch::default();
        (0..self.len())
            .map(|i| {
                let agent = self.slot_agent(self.grid.slots()[i] as usize);
                self.grid
                    .stencil(self.grid.cell_of(agent.position), self.space, &mut stencil);
                let images = self.seam_images(agent.position, agent.params);
                let lanes = self.scan_lanes(&agent, &images, &stencil, &mut seam_stencil);
                let exact =
                    self.scan_exact(&agent, &images, &stencil, &mut seam_stencil, &mut scratch);
                (lanes, exact)
            })
            .collect()
    }
}

/// One agent's result of the force pass, in sorted-slot order.
#[derive(Clone, Copy, Debug, Default)]
struct SlotResult {
    force: Vec3,
    neighbours: u32,
    nearest_sq: f32,
    /// Whether the agent kept its last force (level of detail) rather than compute one.
    reused: bool,
}

/// One agent's outcome of the avoidance pass, in sorted-slot order.
#[derive(Clone, Copy, Debug, Default)]
struct SlotAvoidance {
    /// Whether obstacle avoidance steered the agent.
    avoiding: bool,
    /// The direction it holds after this tick's avoidance, before the countdown.
    hold: Option<AvoidanceHold>,
}

/// What integration changes of an agent.
#[derive(Clone, Copy, Debug, Default)]
struct Body {
    position: Vec3,
    velocity: Vec3,
    heading: Vec3,
}

/// An agent copied into its grid slot, with everything the force pass reads of it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Gathered {
    body: Body,
    target: Option<Vec3>,
    index: u32,
    flock: u32,
    params: u32,
}

impl Gathered {
    /// Position, velocity and flock number.
    pub(crate) fn kinematics(&self) -> (Vec3, Vec3, u32) {
        (self.body.position, self.body.velocity, self.flock)
    }
}

/// One agent as the force pass reads it: its own state, gathered by agent index.
struct SlotAgent<'a> {
    index: usize,
    slot: usize,
    position: Vec3,
    velocity: Vec3,
    heading: Vec3,
    params: &'a Prepared,
    target: Option<Vec3>,
}

impl SlotAgent<'_> {
    /// How the agent predicts collisions, if it does.
    fn prediction(&self) -> Option<Prediction> {
        let p = &self.params.params.perception;
        self.params.predicts.then_some(Prediction {
            velocity: self.velocity,
            distance_sq: p.collision_distance * p.collision_distance,
            horizon: p.collision_horizon,
        })
    }
}

/// Buffers of the exact scan, kept between agents.
#[derive(Default)]
struct Scratch {
    candidates: Vec<Candidate>,
    /// Selection keys when the cap binds.
    keys: Vec<u64>,
}

/// A neighbour found in the scan, before the cap picks the nearest.
#[derive(Clone, Copy, Default)]
struct Candidate {
    dist_sq: f32,
    slot: u32,
    offset: Vec3,
}

/// Up to 8 shifts of a query point, see [`Crowd::seam_images`].
struct Images {
    shifts: [Vec3; 8],
    len: usize,
}

impl Images {
    fn iter(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.shifts[..self.len].iter().copied()
    }
}

/// `v`'s length, also where its square overflows `f32` (beyond about 1.8e19) or underflows to
/// imprecise subnormals (below about 1e-19): the vector is then scaled first.
pub(crate) fn length(v: Vec3) -> f32 {
    let length_sq = v.length_squared();
    if length_sq.is_normal() || length_sq == 0.0 || !v.is_finite() {
        length_sq.sqrt()
    } else {
        let scale = v.abs().max_element();
        (v / scale).length() * scale
    }
}

/// `v` scaled to unit length, or `None` for a zero or non-finite vector: bit for bit glam's
/// `try_normalize` where the squared length is a normal number, and still of unit length where
/// it overflows or underflows (glam's then gives `None` or a vector of the wrong length).
fn unit(v: Vec3) -> Option<Vec3> {
    let length_sq = v.length_squared();
    if length_sq.is_normal() || length_sq == 0.0 || !v.is_finite() {
        v.try_normalize()
    } else {
        (v / v.abs().max_element()).try_normalize()
    }
}

/// `v` shortened to at most `max`: bit for bit glam's `clamp_length_max` where the squares are
/// normal numbers, and still correct where they overflow (glam's version then returns zero) or
/// underflow.
fn limit_length(v: Vec3, max: f32) -> Vec3 {
    let (length_sq, max_sq) = (v.length_squared(), max * max);
    if length_sq.is_normal() && max_sq.is_normal() {
        if length_sq > max_sq {
            max * (v / length_sq.sqrt())
        } else {
            v
        }
    } else if v == Vec3::ZERO || !v.is_finite() {
        v
    } else {
        let length = length(v);
        if length > max { v * (max / length) } else { v }
    }
}

/// The force that steers velocity `v` toward `desired` (Reynolds 1999: steering = desired
/// velocity - velocity), as a change of velocity made within the response time, limited to
/// the max force.
fn respond(desired: Vec3, v: Vec3, limits: &Limits) -> Vec3 {
    limit_length((desired - v) / limits.response_time, limits.max_force)
}

/// Separation, alignment and cohesion, each limited to the max force and not yet weighted, in
/// `params`' [`SteeringStyle`] (whose doc has the formulas), from an agent's neighbour sums.
/// Zero where a rule has no neighbour to act on.
fn flocking_rules(scan: &Scan, params: &AgentParams, v: Vec3) -> [Vec3; 3] {
    let limits = &params.limits;
    let (mut mates, mut velocity_sum) = (scan.mates, scan.velocity_sum);
    if params.perception.counts_itself {
        // Its own offset from itself is zero: only the count and the velocity change.
        mates += 1;
        velocity_sum += v;
    }
    let (alignment, cohesion) = if mates > 0 {
        let inv = 1.0 / mates as f32;
        let mean_velocity = velocity_sum * inv;
        let alignment = match params.weights.style {
            SteeringStyle::Vector => mean_velocity - v,
            SteeringStyle::DesiredVelocity => mean_velocity,
        };
        (alignment, scan.offset_sum * inv)
    } else {
        (Vec3::ZERO, Vec3::ZERO)
    };
    [scan.separation, alignment, cohesion].map(|raw| match params.weights.style {
        SteeringStyle::Vector => limit_length(raw, limits.max_force),
        SteeringStyle::DesiredVelocity => match unit(raw) {
            Some(dir) => respond(dir * limits.max_speed, v, limits),
            None => Vec3::ZERO,
        },
    })
}

/// Reynolds' (1999) estimate of how many seconds ahead to predict a moving quarry, for pursuit
/// and evasion: the time to cover `distance` at `max_speed`, at most [`LONGEST_LEAD`]. Zero
/// for an agent that cannot move.
pub fn lead_time(distance: f32, max_speed: f32) -> f32 {
    if max_speed > 0.0 && max_speed.is_finite() {
        (distance / max_speed).min(LONGEST_LEAD)
    } else {
        0.0
    }
}

/// Seek with arrival (Reynolds 1999): toward the target at full speed, slowing linearly inside
/// the arrival radius; the desired velocity is zero on the target itself.
fn seek(p: Vec3, v: Vec3, target: Vec3, limits: &Limits) -> Vec3 {
    let to_target = target - p;
    let distance = length(to_target);
    if distance <= f32::EPSILON {
        return respond(Vec3::ZERO, v, limits);
    }
    let speed = if distance < limits.arrival_radius {
        limits.max_speed * distance / limits.arrival_radius
    } else {
        limits.max_speed
    };
    respond(to_target / distance * speed, v, limits)
}

/// A fixed unit direction for the pair `(i, j)`, opposite for `(j, i)`, so coincident agents
/// separate deterministically.
fn coincident_direction(i: usize, j: usize, space: Space) -> Vec3 {
    let (lo, hi) = (i.min(j) as u32, i.max(j) as u32);
    let mut h = lo.wrapping_mul(0x9E37_79B1) ^ hi.wrapping_mul(0x85EB_CA77);
    let mut unit = || {
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^= h >> 12;
        (h as f32 / u32::MAX as f32) * 2.0 - 1.0
    };
    let raw = Vec3::new(unit(), unit(), unit());
    let raw = match space {
        Space::Volume => raw,
        Space::Planar => raw.with_z(0.0),
    };
    let dir = raw.try_normalize().unwrap_or(Vec3::X);
    if i < j { dir } else { -dir }
}

fn wrap(p: Vec3, min: Vec3, max: Vec3) -> Vec3 {
    let size = max - min;
    let mut out = p.to_array();
    for axis in 0..3 {
        if size[axis] > 0.0 {
            out[axis] = min[axis] + (p[axis] - min[axis]).rem_euclid(size[axis]);
            // rem_euclid can round up to exactly `size`.
            if out[axis] >= max[axis] {
                out[axis] = min[axis];
            }
        }
    }
    Vec3::from_array(out)
}

fn keep_inside(p: Vec3, v: Vec3, min: Vec3, max: Vec3) -> (Vec3, Vec3) {
    let (mut p, mut v) = (p.to_array(), v.to_array());
    for axis in 0..3 {
        if p[axis] < min[axis] {
            p[axis] = min[axis];
            v[axis] = v[axis].abs();
        } else if p[axis] > max[axis] {
            p[axis] = max[axis];
            v[axis] = -v[axis].abs();
        }
    }
    (Vec3::from_array(p), Vec3::from_array(v))
}

/// The crowd's own obstacles and, if any, a backend's: a cast hits the nearer of the two, and a
/// move is constrained by each in turn.
struct Layered<'a> {
    own: Option<&'a ObstacleSet>,
    other: Option<&'a dyn ObstacleQuery>,
}

impl<'a> Layered<'a> {
    fn new(own: &'a ObstacleSet, other: Option<&'a dyn ObstacleQuery>) -> Self {
        Self {
            own: (!own.is_empty()).then_some(own),
            other: other.filter(|other| !other.is_empty()),
        }
    }
}

impl ObstacleQuery for Layered<'_> {
    fn is_empty(&self) -> bool {
        self.own.is_none() && self.other.is_none()
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        let own = self.own.and_then(|o| o.cast(origin, dir, length, radius));
        // Past the own hit nothing matters: cast the other only that far.
        let length = own.map_or(length, |hit| hit.distance);
        let other = self.other.and_then(|o| o.cast(origin, dir, length, radius));
        match (own, other) {
            (Some(a), Some(b)) => Some(if b.distance < a.distance { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        self.own
            .is_none_or(|o| o.is_clear(origin, dir, length, radius))
            && self
                .other
                .is_none_or(|o| o.is_clear(origin, dir, length, radius))
    }

    fn constrain(&self, from: Vec3, to: Vec3) -> (Vec3, Option<Vec3>) {
        let (mut end, mut normal) = (to, None);
        if let Some(own) = self.own {
            (end, normal) = own.constrain(from, end);
        }
        if let Some(other) = self.other {
            let (allowed, stopped) = other.constrain(from, end);
            end = allowed;
            normal = stopped.or(normal);
        }
        (end, normal)
    }
}

/// Random numbers for one agent's noise in one tick, from the seed, the tick and the agent's
/// index (splitmix64), so that the noise does not depend on how the pass is split.
struct NoiseDraw(u64);

impl NoiseDraw {
    fn new(seed: u64, tick: u64, index: usize) -> Self {
        Self(seed ^ tick.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (index as u64).rotate_left(32))
    }

    /// Uniform in the cube from -1 to 1 on each axis.
    fn in_cube(&mut self) -> Vec3 {
        Vec3::new(self.unit(), self.unit(), self.unit()) * 2.0 - 1.0
    }

    /// Uniform in `0..1`.
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
}
