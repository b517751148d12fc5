//! Shape-cast obstacle avoidance, the third stage of a tick: each agent casts a ball ahead and,
//! when it hits, turns toward the nearest clear direction, before its other steering.

use glam::Vec3;

use crate::agents::{Extras, SlotAgent};
use crate::executor::{ChunkExecutor, for_each_chunk_mut2};
use crate::forces::{ForcePass, SlotResult};
use crate::maths::{length, limit_length, unit};
use crate::neighbours::NeighbourIndex;
use crate::obstacles::{
    Avoidance, AvoidanceHold, Clearances, Layered, ObstacleAvoidance, ObstacleQuery, ObstacleSet,
    way_round,
};
use crate::space::Space;
use crate::tuning::Prepared;

/// The ball an agent casts ahead is at least its body grown by this share of its radius: with
/// a ball as wide as the body, an agent turns only as its body touches, slides along the
/// surfaces it meets and wavers (among pillars, no better kept off them than with no avoidance
/// at all, and a hold of its detour no longer steadies it).
const CLEARANCE: f32 = 0.25;

/// A target this far off straight through a surface (the sine of the angle) is at a slant: an
/// agent pressed against the surface slides along it toward the target.
const SLANT: f32 = 0.05;

/// A held avoidance direction starts its time again only while the agent moves along it at
/// this share of its max speed or more (see `Avoider::hold`).
const MAKING_WAY: f32 = 0.1;

/// The crowd's own obstacles, how agents look ahead for them, and the last avoidance pass.
#[derive(Clone, Debug, Default)]
pub(crate) struct AvoidancePass {
    pub(crate) params: ObstacleAvoidance,
    pub(crate) obstacles: ObstacleSet,
    /// By agent index, how far each agent stood from `obstacles` when last measured.
    pub(crate) clearances: Clearances,
    /// By grid slot: the last pass's outcome, valid while `avoided`.
    pub(crate) out: Vec<SlotAvoidance>,
    /// Whether `out` belongs to the forces pending.
    pub(crate) avoided: bool,
}

/// One agent's outcome of the avoidance pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlotAvoidance {
    /// Whether obstacle avoidance steered the agent.
    pub(crate) avoiding: bool,
    /// The direction it holds after this tick's avoidance, before the countdown.
    pub(crate) hold: Option<AvoidanceHold>,
}

/// The ball an agent of `body_radius` casts ahead with `settings`: their `cast_radius`, or its
/// body grown by [`CLEARANCE`] where that is wider.
fn cast_radius(settings: &ObstacleAvoidance, body_radius: f32) -> f32 {
    settings.cast_radius.max((1.0 + CLEARANCE) * body_radius)
}

impl AvoidancePass {
    /// How far from a point the obstacle set must find every shape for the casts of agents of
    /// `params`: the longest look-ahead and the widest ball any of them casts, so that each
    /// cast reads the one cell of its start (a cast reaching farther reads every cell round
    /// its way, gathered and sorted for each cast).
    pub(crate) fn reach(&self, params: &[Prepared]) -> f32 {
        let widest = (params.iter()).fold(self.params.cast_radius, |widest, p| {
            widest.max(cast_radius(&self.params, p.body_radius))
        });
        self.params.max_look_ahead + widest
    }

    /// Obstacle avoidance, the third stage of a tick, against the crowd's own obstacles and
    /// `colliders` (a physics backend's, if any): changes the pending `forces` of the agents
    /// that must turn; returns how many are avoiding, or `None` when there is nothing to avoid
    /// or no forces are pending. See
    /// [`Crowd::avoid_obstacles`](crate::Crowd::avoid_obstacles).
    pub(crate) fn run(
        &mut self,
        forces: &mut ForcePass,
        colliders: Option<&dyn ObstacleQuery>,
        crowd: AvoidanceInputs,
    ) -> Option<usize> {
        let obstacles = Layered::new(&self.obstacles, colliders);
        if obstacles.is_empty() || !forces.pending {
            return None;
        }
        let mut results = core::mem::take(&mut forces.results);
        let mut out = core::mem::take(&mut self.out);
        out.clear();
        out.resize(results.len(), SlotAvoidance::default());
        let avoider = Avoider {
            crowd: &crowd,
            settings: &self.params,
        };
        for_each_chunk_mut2(
            crowd.executor,
            &mut results,
            &mut out,
            |first, results, out| {
                for (k, (result, out)) in results.iter_mut().zip(out).enumerate() {
                    avoider.avoid_slot(first + k, result, out, &obstacles);
                }
            },
        );
        forces.results = results;
        self.out = out;
        self.avoided = true;
        Some(self.out.iter().filter(|a| a.avoiding).count())
    }
}

/// What the avoidance pass reads of the crowd.
pub(crate) struct AvoidanceInputs<'a> {
    pub(crate) space: Space,
    pub(crate) params: &'a [Prepared],
    pub(crate) index: &'a NeighbourIndex,
    pub(crate) extras: &'a Extras,
    /// By agent index, whether its target is in sight along a way kept clear.
    pub(crate) targets_in_sight: &'a [bool],
    pub(crate) executor: &'a (dyn ChunkExecutor + Send + Sync),
}

/// One chunk's view of the avoidance pass: the crowd and how agents look ahead.
struct Avoider<'a> {
    crowd: &'a AvoidanceInputs<'a>,
    settings: &'a ObstacleAvoidance,
}

impl<'a> core::ops::Deref for Avoider<'a> {
    type Target = AvoidanceInputs<'a>;

    fn deref(&self) -> &Self::Target {
        self.crowd
    }
}

impl Avoider<'_> {
    /// Steers the agent in `slot` round `obstacles`, changing its `result`'s force.
    fn avoid_slot(
        &self,
        slot: usize,
        result: &mut SlotResult,
        out: &mut SlotAvoidance,
        obstacles: &Layered,
    ) {
        let agent = (self.index).slot_agent(self.params, self.extras.speed_factors(), slot);
        if result.reused {
            // Its kept force already holds its avoidance; so does its hold.
            out.hold = self.extras.hold(agent.index);
            return;
        }
        if agent.heading == Vec3::ZERO {
            return;
        }
        // A ball wider than the agent's body, so that it never heads for a gap its body cannot
        // pass, and turns before its body touches.
        let a = &ObstacleAvoidance {
            cast_radius: cast_radius(self.settings, agent.params.body_radius),
            ..*self.settings
        };
        let look_ahead = self.look_ahead(&agent);
        let (p, heading, r) = (agent.position, self.looking(&agent), a.cast_radius);
        // Every cast below is from where the agent stands, no farther and no wider: an agent
        // that casts more than once (one holding a direction and making way along it checks it
        // and the way it wants to go; one blocked ahead casts a fan of up to twenty) gathers
        // the shapes they may touch first, and reads those few instead of every shape binned
        // near it.
        let hold = (self.extras.hold(agent.index)).filter(|_| a.hold_seconds > 0.0);
        let mut near = hold
            .filter(|hold| self.is_making_way(&agent, agent.velocity.dot(hold.direction)))
            .map(|_| obstacles.around(p, look_ahead, r));
        // A held direction is kept while it stays clear.
        let held = hold.filter(|hold| match &near {
            Some(near) => near.is_clear(p, hold.direction, look_ahead, r),
            None => obstacles.is_clear(p, hold.direction, look_ahead, r),
        });
        let (dir, holdable) = match held {
            Some(hold) => (hold.direction, true),
            None => {
                // Most agents' way ahead is clear: they gather nothing.
                let ahead = match &near {
                    Some(near) => near.cast(p, heading, look_ahead, r),
                    None => obstacles.cast(p, heading, look_ahead, r),
                };
                let Some(hit) = ahead else {
                    return;
                };
                let near = near.get_or_insert_with(|| obstacles.around(p, look_ahead, r));
                let stuck =
                    hit.distance <= 0.0 && !self.is_making_way(&agent, length(agent.velocity));
                // Sliding toward the target, like backing away, is for this tick only: nothing
                // to hold.
                match stuck.then(|| self.slide_toward_target(&agent, hit.normal)) {
                    Some(Some(dir)) => (dir, false),
                    _ => match way_round(near, p, heading, hit, look_ahead, a, self.space) {
                        Avoidance::Clear(dir) => (dir, true),
                        Avoidance::Back(dir) => (dir, false),
                    },
                }
            }
        };
        if a.hold_seconds > 0.0 && holdable {
            let view: &dyn ObstacleQuery = match &near {
                Some(near) => near,
                None => obstacles,
            };
            out.hold = Some(self.hold(&agent, result.force, dir, (held, a), look_ahead, view));
        }
        let limits = agent.limits;
        let desired = self.space.flat(dir) * self.turning_speed(&agent);
        let avoid = limit_length(desired - agent.velocity, limits.max_force);
        let remaining = (limits.max_force - length(avoid)).max(0.0);
        let force = avoid + limit_length(result.force, remaining);
        if force.is_finite() {
            result.force = force;
            out.avoiding = true;
        }
    }

    /// Where `agent` looks ahead: along the way to its target where that is in sight along a
    /// way kept clear (see [`Crowd::set_target_in_sight`](crate::Crowd::set_target_in_sight)),
    /// else along its heading.
    #[inline]
    fn looking(&self, agent: &SlotAgent) -> Vec3 {
        let in_sight = self.targets_in_sight.get(agent.index) == Some(&true);
        (agent.target.filter(|_| in_sight))
            .and_then(|target| unit(self.space.flat(target - agent.position)))
            .unwrap_or(agent.heading)
    }

    /// Whether `agent` moves at `speed` (along the way that matters) at [`MAKING_WAY`] of its
    /// max speed or more.
    fn is_making_way(&self, agent: &SlotAgent, speed: f32) -> bool {
        speed >= MAKING_WAY * agent.limits.max_speed
    }

    /// For `agent` standing pressed against a surface of outward `normal`, the way along it
    /// toward its target, for this tick only: where the target lies through the surface at a
    /// slant (a door beside the wall it stands at), the fan, searching from its heading, may
    /// as well send it along the wall away from the door. `None` without a target, or with
    /// one that lies away from the surface or straight through it (the fan chooses then).
    fn slide_toward_target(&self, agent: &SlotAgent, normal: Vec3) -> Option<Vec3> {
        let wanted = unit(self.space.flat(agent.target? - agent.position))?;
        let normal = unit(self.space.flat(normal))?;
        let into = wanted.dot(normal);
        if into >= 0.0 {
            return None;
        }
        let along = wanted - normal * into;
        (along.length_squared() >= SLANT * SLANT)
            .then(|| unit(along))
            .flatten()
    }

    /// How far ahead `agent` casts: from the look-ahead at rest to the one at max speed, in
    /// proportion to its speed, and no further than its target (one that stops short of a
    /// wall need not turn from it).
    fn look_ahead(&self, agent: &SlotAgent) -> f32 {
        let limits = agent.limits;
        let a = &self.settings;
        let fraction = if limits.max_speed > 0.0 {
            (length(agent.velocity) / limits.max_speed).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let look_ahead = a.min_look_ahead + (a.max_look_ahead - a.min_look_ahead) * fraction;
        match agent.target {
            Some(target) => look_ahead.min(length(self.space.flat(target - agent.position))),
            None => look_ahead,
        }
    }

    /// The hold `agent` keeps after turning to `dir`, given the one it `held` and how it looks
    /// ahead (`a`): it runs its time, and starts again for as long as the way the agent wants
    /// to go (to its target, or where its `force` steers) is blocked and the agent makes way
    /// along it, so that it follows a wall round to its end instead of turning back into it.
    /// An agent that the crowd keeps from going the held way (at under [`MAKING_WAY`] of its
    /// max speed) lets the hold run out, and looks for a way again: else it would stand
    /// pressed against a wall for good, wanting to go along it, away from the door beside it.
    /// Casts (whether the wanted way is blocked) only where the answer matters: for a hold
    /// kept and made way along.
    fn hold(
        &self,
        agent: &SlotAgent,
        force: Vec3,
        dir: Vec3,
        (held, a): (Option<AvoidanceHold>, &ObstacleAvoidance),
        look_ahead: f32,
        obstacles: &dyn ObstacleQuery,
    ) -> AvoidanceHold {
        let blocked = || {
            let wanted = agent
                .target
                .and_then(|t| unit(self.space.flat(t - agent.position)))
                .or_else(|| unit(self.space.flat(agent.velocity + force)));
            wanted
                .is_some_and(|w| !obstacles.is_clear(agent.position, w, look_ahead, a.cast_radius))
        };
        let making_way = self.is_making_way(agent, agent.velocity.dot(dir));
        AvoidanceHold {
            direction: dir,
            seconds_left: match held {
                Some(hold) if !making_way || !blocked() => hold.seconds_left,
                _ => a.hold_seconds,
            },
        }
    }

    /// The speed `agent` turns away at: full speed, or, inside the arrival radius of a target,
    /// the speed seeking it asks for, so that an agent settling beside a wall is not sent off
    /// again.
    fn turning_speed(&self, agent: &SlotAgent) -> f32 {
        let limits = agent.limits;
        match agent.target {
            Some(target) if limits.arrival_radius > 0.0 => {
                let distance = length(self.space.flat(target - agent.position));
                (limits.max_speed * (distance / limits.arrival_radius).min(1.0))
                    .max(limits.min_speed)
            }
            _ => limits.max_speed,
        }
    }
}
