//! Shape-cast obstacle avoidance, the third stage of a tick: each agent casts a ball ahead and,
//! when it hits, turns toward the nearest clear direction, before its other steering.

use glam::Vec3;

use crate::executor::for_each_chunk_mut2;
use crate::forces::{SlotAgent, SlotResult};
use crate::maths::{length, limit_length, unit};
use crate::obstacles::{
    Avoidance, AvoidanceHold, Layered, ObstacleAvoidance, ObstacleQuery, ObstacleSet, Shape,
    way_round,
};
use crate::{Crowd, Space};

/// The crowd's own obstacles, how agents look ahead for them, and the last avoidance pass.
#[derive(Clone, Debug, Default)]
pub(crate) struct AvoidancePass {
    pub(crate) params: ObstacleAvoidance,
    pub(crate) obstacles: ObstacleSet,
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

impl Crowd {
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
        let obstacles = Layered::new(&self.avoidance.obstacles, colliders);
        if obstacles.is_empty() || !self.forces.pending {
            return 0;
        }
        let mut results = core::mem::take(&mut self.forces.results);
        let mut out = core::mem::take(&mut self.avoidance.out);
        out.clear();
        out.resize(results.len(), SlotAvoidance::default());
        let this = &*self;
        for_each_chunk_mut2(
            &*self.executor,
            &mut results,
            &mut out,
            |first, results, out| {
                for (k, (result, out)) in results.iter_mut().zip(out).enumerate() {
                    this.avoid(first + k, result, out, &obstacles);
                }
            },
        );
        self.forces.results = results;
        self.avoidance.out = out;
        self.avoidance.avoided = true;
        self.agents.extras.holding |= self.avoidance.params.hold_seconds > 0.0;
        self.avoidance.out.iter().filter(|a| a.avoiding).count()
    }

    /// Steers the agent in `slot` round `obstacles`, changing its `result`'s force.
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
            out.hold = self.agents.extras.hold(agent.index);
            return;
        }
        if agent.heading == Vec3::ZERO {
            return;
        }
        let a = &self.avoidance.params;
        let look_ahead = self.look_ahead(&agent);
        let (p, heading, r) = (agent.position, agent.heading, a.cast_radius);
        // Every cast below is from where the agent stands, no farther and no wider: an agent
        // that casts more than once (one holding a direction checks it and the way it wants to
        // go; one blocked ahead casts a fan of up to twenty) gathers the shapes they may touch
        // first, and reads those few instead of every shape binned near it.
        let mut near = None;
        // A held direction is kept while it stays clear.
        let held = self.agents.extras.hold(agent.index).filter(|hold| {
            a.hold_seconds > 0.0
                && near
                    .get_or_insert_with(|| obstacles.around(p, look_ahead, r))
                    .is_clear(p, hold.direction, look_ahead, r)
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
                match way_round(near, p, heading, hit, look_ahead, a, self.space) {
                    Avoidance::Clear(dir) => (dir, true),
                    // Backing away is for this tick only: nothing to hold.
                    Avoidance::Back(dir) => (dir, false),
                }
            }
        };
        if a.hold_seconds > 0.0
            && holdable
            && let Some(near) = &near
        {
            out.hold = Some(self.hold(&agent, result.force, dir, held, look_ahead, near));
        }
        let limits = agent.params.params.limits;
        let desired = self.space.flat(dir) * self.turning_speed(&agent);
        let avoid = limit_length(desired - agent.velocity, limits.max_force);
        let remaining = (limits.max_force - length(avoid)).max(0.0);
        let force = avoid + limit_length(result.force, remaining);
        if force.is_finite() {
            result.force = force;
            out.avoiding = true;
        }
    }

    /// How far ahead `agent` casts: from the look-ahead at rest to the one at max speed, in
    /// proportion to its speed, and no further than its target (one that stops short of a
    /// wall need not turn from it).
    fn look_ahead(&self, agent: &SlotAgent) -> f32 {
        let limits = agent.params.params.limits;
        let a = &self.avoidance.params;
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

    /// The hold `agent` keeps after turning to `dir`: it runs its time, and starts again for as
    /// long as the way the agent wants to go (to its target, or where its `force` steers) is
    /// blocked, so that it follows a wall round to its end instead of turning back into it.
    fn hold(
        &self,
        agent: &SlotAgent,
        force: Vec3,
        dir: Vec3,
        held: Option<AvoidanceHold>,
        look_ahead: f32,
        obstacles: &dyn ObstacleQuery,
    ) -> AvoidanceHold {
        let a = &self.avoidance.params;
        let wanted = agent
            .target
            .and_then(|t| unit(self.space.flat(t - agent.position)))
            .or_else(|| unit(self.space.flat(agent.velocity + force)));
        let blocked = wanted
            .is_some_and(|w| !obstacles.is_clear(agent.position, w, look_ahead, a.cast_radius));
        AvoidanceHold {
            direction: dir,
            seconds_left: match held {
                Some(hold) if !blocked => hold.seconds_left,
                _ => a.hold_seconds,
            },
        }
    }

    /// The speed `agent` turns away at: full speed, or, inside the arrival radius of a target,
    /// the speed seeking it asks for, so that an agent settling beside a wall is not sent off
    /// again.
    fn turning_speed(&self, agent: &SlotAgent) -> f32 {
        let limits = agent.params.params.limits;
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
