//! How agents enter the crowd: one at a time ([`Crowd::push`]), or all of a tick's at once, made
//! in parallel by the caller ([`Crowd::push_all`]), as an ECS copies its tables.

use core::mem::MaybeUninit;
use core::ops::Range;

use glam::Vec3;

use super::Crowd;
use crate::Space;
use crate::agents::{AgentInput, AgentMemory, Body, ParamsId};
use crate::executor::for_each_part;
use crate::maths::{length, unit};
use crate::roles::lead_time;
use crate::tuning::{FlockTuning, Prepared};

/// An agent for [`Crowd::push_all`] or [`Crowd::set_agent`]: what [`Crowd::push`],
/// [`Crowd::pursue`], [`Crowd::set_memory`] and [`Crowd::set_target_in_sight`] take for it one
/// at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NewAgent {
    /// Its state and tuning.
    pub input: AgentInput,
    /// The velocity of the quarry it pursues, if its target is one (see [`Crowd::pursue`]).
    pub quarry_velocity: Option<Vec3>,
    /// What it carries from the last tick (see [`Crowd::set_memory`]).
    pub memory: AgentMemory,
    /// Whether its target is in sight along a way kept clear (see
    /// [`Crowd::set_target_in_sight`]).
    pub target_in_sight: bool,
}

/// How many agents [`Crowd::push_all`] asks its caller for at a time: a batch small enough to
/// stay in the first-level cache between the caller writing it and the crowd reading it.
const FILL_BATCH: usize = 64;

/// An agent as the crowd keeps it: non-finite values replaced (see [`AgentInput::sanitized`]),
/// flattened into `space` (on the plane, on the floor nearest its z, its target on the same
/// floor), its heading the direction of its velocity (else of the heading given, else zero).
/// Returns its body and target.
#[inline]
fn admitted(space: Space, agent: &AgentInput) -> (Body, Option<Vec3>) {
    let (agent, _) = agent.sanitized(Vec3::ZERO);
    let flat = |v: Vec3| space.flat(v);
    let velocity = flat(agent.velocity);
    let heading = unit(velocity)
        .or_else(|| unit(flat(agent.heading)))
        .unwrap_or(Vec3::ZERO);
    let position = space.point(agent.position);
    let body = Body {
        position,
        velocity,
        heading,
    };
    (body, agent.target.map(|t| space.level_with(t, position)))
}

/// Where an agent at `position` that can move at `max_speed` aims to catch a quarry at `target`
/// moving at `velocity` (see [`Crowd::pursue`]); `None` if that is not finite.
#[inline]
fn lead_aim(
    space: Space,
    position: Vec3,
    target: Vec3,
    velocity: Vec3,
    max_speed: f32,
) -> Option<Vec3> {
    let lead = lead_time(length(target - position), max_speed);
    let aim = space.level_with(target + space.flat(velocity) * lead, position);
    aim.is_finite().then_some(aim)
}

/// One task's share of [`Crowd::push_all`]: the new agents' columns to write, and what it
/// found that the crowd must settle after all tasks ran.
struct FillPart<'a> {
    bodies: &'a mut [MaybeUninit<Body>],
    flocks: &'a mut [MaybeUninit<u32>],
    params: &'a mut [MaybeUninit<u32>],
    targets: &'a mut [MaybeUninit<Option<Vec3>>],
    in_sight: &'a mut [MaybeUninit<bool>],
    added: &'a mut [MaybeUninit<Vec3>],
    found: &'a mut FillFound,
}

/// How [`Crowd::push_all`] admits each agent: in the crowd's space, with its parameter sets, and
/// the set an agent naming an unknown one gets (added after the fill).
struct Admission<'a> {
    space: Space,
    params: &'a [Prepared],
    fallback: ParamsId,
    fallback_speed: f32,
}

impl FillPart<'_> {
    /// Writes `agent`, the crowd's agent `index`, into `slot` of this part: made finite and
    /// flat (see [`admitted`]), aiming ahead of a moving quarry, its parameter set known or
    /// the fallback, and its memory, if any, kept for the crowd to restore.
    #[inline]
    fn admit(&mut self, slot: usize, index: usize, agent: &NewAgent, rules: &Admission) {
        let space = rules.space;
        let known = (agent.input.params.0 as usize) < rules.params.len();
        self.found.unknown_params |= !known;
        let id = if known {
            agent.input.params
        } else {
            rules.fallback
        };
        let (body, mut target) = admitted(space, &agent.input);
        if let (Some(aim), Some(velocity)) = (target, agent.quarry_velocity) {
            let max_speed = (rules.params.get(id.0 as usize))
                .map_or(rules.fallback_speed, |p| p.params.limits.max_speed);
            target = lead_aim(space, body.position, aim, velocity, max_speed).or(target);
        }
        // Most agents carry nothing: making nothing usable would cost two roots.
        if agent.memory != AgentMemory::default() {
            let memory = agent.memory.usable(|v| space.flat(v));
            if memory != AgentMemory::default() {
                self.found.memories.push((index, memory));
            }
        }
        self.bodies[slot].write(body);
        self.flocks[slot].write(agent.input.flock);
        self.params[slot].write(id.0);
        self.targets[slot].write(target);
        self.in_sight[slot].write(agent.target_in_sight && target.is_some());
        self.added[slot].write(Vec3::ZERO);
    }
}

/// What a task of [`Crowd::push_all`] leaves for the crowd to settle in order.
#[derive(Default)]
struct FillFound {
    /// The memories that are not empty, by agent index, made usable.
    memories: Vec<(usize, AgentMemory)>,
    /// Whether an agent named a parameter set the crowd does not have.
    unknown_params: bool,
    /// Whether the task wrote its whole part.
    complete: bool,
}

impl Crowd {
    /// Adds an agent and returns its index. Non-finite values are replaced as in
    /// [`AgentInput::sanitized`] (position falls back to the origin); an unknown parameter set
    /// falls back to the defaults. On the plane, z components are dropped.
    #[inline]
    pub fn push(&mut self, agent: AgentInput) -> usize {
        let params = self.known_params_or_defaults(agent.params);
        let (body, target) = admitted(self.space, &agent);
        let agents = &mut self.agents;
        agents.bodies.push(body);
        agents.flocks.push(agent.flock);
        agents.params.push(params.0);
        agents.targets.push(target);
        agents.targets_in_sight.push(false);
        agents.added.push(Vec3::ZERO);
        agents.bodies.len() - 1
    }

    /// Adds `count` agents at once, the work split on the crowd's executor, and returns their
    /// indices. `fill(first, agents)` describes agents `first..first + agents.len()`, counted
    /// from the first new one, by overwriting `agents` (a few dozen at a time, each starting as
    /// [`NewAgent::default`]); it is called from several threads, for any part in any order.
    ///
    /// The outcome is the one of [`push`](Self::push), [`pursue`](Self::pursue),
    /// [`set_memory`](Self::set_memory) and [`set_target_in_sight`](Self::set_target_in_sight)
    /// called for each agent in order, except that agents
    /// naming a parameter set the crowd lacks share one set of defaults.
    pub fn push_all(
        &mut self,
        count: usize,
        fill: impl Fn(usize, &mut [NewAgent]) + Sync,
    ) -> Range<usize> {
        let start = self.len();
        let end = start + count;
        let chunk_len = self.executor.chunk_len(count).max(1);
        let mut found: Vec<FillFound> = (0..count.div_ceil(chunk_len))
            .map(|_| FillFound::default())
            .collect();
        let rules = Admission {
            space: self.space,
            params: &self.params,
            fallback: ParamsId(self.params.len() as u32),
            fallback_speed: FlockTuning::default().limits.max_speed,
        };
        let agents = &mut self.agents;
        agents.reserve(count);
        let parts: Vec<FillPart> = agents.bodies.spare_capacity_mut()[..count]
            .chunks_mut(chunk_len)
            .zip(agents.flocks.spare_capacity_mut()[..count].chunks_mut(chunk_len))
            .zip(agents.params.spare_capacity_mut()[..count].chunks_mut(chunk_len))
            .zip(agents.targets.spare_capacity_mut()[..count].chunks_mut(chunk_len))
            .zip(agents.targets_in_sight.spare_capacity_mut()[..count].chunks_mut(chunk_len))
            .zip(agents.added.spare_capacity_mut()[..count].chunks_mut(chunk_len))
            .zip(found.iter_mut())
            .map(
                |((((((bodies, flocks), params), targets), in_sight), added), found)| FillPart {
                    bodies,
                    flocks,
                    params,
                    targets,
                    in_sight,
                    added,
                    found,
                },
            )
            .collect();
        for_each_part(&*self.executor, parts, |k, mut part| {
            let first = k * chunk_len;
            let mut batch = [NewAgent::default(); FILL_BATCH];
            for at in (0..part.bodies.len()).step_by(FILL_BATCH) {
                let batch = &mut batch[..FILL_BATCH.min(part.bodies.len() - at)];
                batch.fill(NewAgent::default());
                fill(first + at, batch);
                for (slot, agent) in (at..).zip(batch.iter()) {
                    part.admit(slot, start + first + slot, agent, &rules);
                }
            }
            part.found.complete = true;
        });
        // A task that did not finish can only have been stopped by a panic in `fill` that the
        // executor swallowed; its columns are not written.
        assert!(
            found.iter().all(|f| f.complete),
            "Crowd::push_all: a task of the fill did not finish"
        );
        // SAFETY: each column reserved room for `count` more entries, and every task finished
        // (checked above), writing each slot of its part; the parts cover all `count`.
        unsafe {
            agents.bodies.set_len(end);
            agents.flocks.set_len(end);
            agents.params.set_len(end);
            agents.targets.set_len(end);
            agents.targets_in_sight.set_len(end);
            agents.added.set_len(end);
        }
        if found.iter().any(|f| f.unknown_params) {
            self.add_params(FlockTuning::default());
        }
        for &(i, memory) in found.iter().flat_map(|f| &f.memories) {
            self.agents.extras.set_memory(i, end, memory);
        }
        start..end
    }

    /// Replaces agent `i` with `agent`, as if it had been pushed (with [`pursue`](Self::pursue),
    /// [`set_memory`](Self::set_memory) and
    /// [`set_target_in_sight`](Self::set_target_in_sight)) in its place: for the few agents a caller of
    /// [`push_all`](Self::push_all) settles afterwards, one at a time. Returns whether agent `i`
    /// exists.
    pub fn set_agent(&mut self, i: usize, agent: NewAgent) -> bool {
        if i >= self.len() {
            return false;
        }
        let params = self.known_params_or_defaults(agent.input.params);
        let (body, target) = admitted(self.space, &agent.input);
        let agents = &mut self.agents;
        agents.bodies[i] = body;
        agents.flocks[i] = agent.input.flock;
        agents.params[i] = params.0;
        agents.targets[i] = target;
        agents.targets_in_sight[i] = agent.target_in_sight && target.is_some();
        agents.added[i] = Vec3::ZERO;
        if let Some(velocity) = agent.quarry_velocity {
            self.pursue(i, velocity);
        }
        self.set_memory(i, agent.memory);
        true
    }

    /// `id` if the crowd has that parameter set, else a new set of defaults.
    fn known_params_or_defaults(&mut self, id: ParamsId) -> ParamsId {
        if (id.0 as usize) < self.params.len() {
            id
        } else {
            self.add_params(FlockTuning::default())
        }
    }

    /// Tells whether agent `i`'s target is in sight along a way kept clear of the obstacles
    /// (as the next waypoint of a planned path is, seen from where the agent stands): its
    /// obstacle avoidance then looks ahead along the way to the target rather than along its
    /// heading, which in a crowd jostles toward the walls beside its way at every turn (a
    /// crowd following paths down a street held a detour from the houses three agents in four,
    /// every tick). Obstacles on that way are still seen and avoided. It holds
    /// until set again or the crowd is [cleared](Self::clear); an agent without a target is never in
    /// sight of it. Returns whether agent `i` exists.
    pub fn set_target_in_sight(&mut self, i: usize, in_sight: bool) -> bool {
        let agents = &mut self.agents;
        let Some(target) = agents.targets.get(i) else {
            return false;
        };
        agents.targets_in_sight[i] = in_sight && target.is_some();
        true
    }

    /// Whether agent `i`'s target is in sight (see
    /// [`set_target_in_sight`](Self::set_target_in_sight)); false for one that does not exist.
    pub fn target_in_sight(&self, i: usize) -> bool {
        self.agents
            .targets_in_sight
            .get(i)
            .copied()
            .unwrap_or(false)
    }

    /// Makes agent `i` pursue its target as a quarry moving at `velocity` (Reynolds 1999): it
    /// aims where the quarry will be by the time it could get there at its max speed (see
    /// [`lead_time`]), at most [`LONGEST_LEAD`](crate::LONGEST_LEAD) seconds ahead. Call
    /// after [`push`](Self::push) and before [`build_index`](Self::build_index). Returns whether
    /// the aim moved: nothing happens without a target or with a non-finite velocity.
    pub fn pursue(&mut self, i: usize, velocity: Vec3) -> bool {
        let Some(target) = self.agents.targets.get(i).copied().flatten() else {
            return false;
        };
        let max_speed = self.limits_of(i).max_speed;
        let position = self.agents.bodies[i].position;
        match lead_aim(self.space, position, target, velocity, max_speed) {
            Some(aim) => {
                self.agents.targets[i] = Some(aim);
                true
            }
            None => false,
        }
    }
}
