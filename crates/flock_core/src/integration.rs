//! Integration, the last stage of a tick: the steering force limited, the velocity kept within
//! the speed limits (and turned at a limited rate), the agent moved, never into an obstacle,
//! and kept within its boundary.

use glam::Vec3;

use crate::agents::{Body, Extras, SpeedFactors};
use crate::avoidance::AvoidancePass;
use crate::executor::{ChunkExecutor, for_each_chunk_mut};
use crate::forces::ForcePass;
use crate::maths::{length, limit_length, rotated, rotation, unit};
use crate::obstacles::{AvoidanceHold, Clearances, Layered, ObstacleQuery, ObstacleSet};
use crate::prefetch::prefetch_mapped;
use crate::rules::boundary::keep_within;
use crate::rules::wander::Draws;
use crate::space::Space;
use crate::tuning::{BlendMode, Prepared, SteeringLimits};

/// How many agents ahead integration asks for what it will read by grid slot (see
/// [`prefetch_mapped`]).
const PREFETCH_AHEAD: usize = 8;

/// What integration reads: each agent's parameter set and force, the space, this tick's draws.
pub(crate) struct Mover<'a> {
    pub(crate) space: Space,
    pub(crate) params: &'a [Prepared],
    /// By agent index: its parameter set.
    pub(crate) agent_params: &'a [u32],
    pub(crate) forces: &'a ForcePass,
    /// By agent index: the forces added this tick.
    pub(crate) added: &'a [Vec3],
    /// By agent index: its grid slot.
    pub(crate) slots: &'a [u32],
    pub(crate) speed_factors: SpeedFactors<'a>,
    pub(crate) draws: Draws,
    pub(crate) executor: &'a (dyn ChunkExecutor + Send + Sync),
}

impl Mover<'_> {
    /// Moves every one of `bodies` at the velocity it asks for, for `dt`, among `obstacles`:
    /// integration where no agent avoids velocity obstacles.
    pub(crate) fn move_all(&self, bodies: &mut [Body], dt: f32, obstacles: &Layered) {
        for_each_chunk_mut(self.executor, bodies, |first, chunk| {
            for (k, body) in chunk.iter_mut().enumerate() {
                prefetch_mapped(self.slots, &self.forces.results, first + k + PREFETCH_AHEAD);
                let v = self.preferred_velocity(first + k, body, dt);
                self.move_agent(first + k, body, v, dt, obstacles);
            }
        });
    }

    /// Fills `preferred`, by agent index, with the velocity each of `bodies` asks for after
    /// `dt`: what the velocity-obstacle step chooses from.
    pub(crate) fn preferred_velocities(&self, bodies: &[Body], dt: f32, preferred: &mut [Vec3]) {
        for_each_chunk_mut(self.executor, preferred, |first, chunk| {
            for (k, v) in chunk.iter_mut().enumerate() {
                prefetch_mapped(self.slots, &self.forces.results, first + k + PREFETCH_AHEAD);
                *v = self.preferred_velocity(first + k, &bodies[first + k], dt);
            }
        });
    }

    /// Moves every one of `bodies` at the velocity `chosen` for it (by grid slot), for `dt`,
    /// among `obstacles`.
    pub(crate) fn move_chosen(
        &self,
        bodies: &mut [Body],
        chosen: &[Vec3],
        dt: f32,
        obstacles: &Layered,
    ) {
        for_each_chunk_mut(self.executor, bodies, |first, chunk| {
            for (k, body) in chunk.iter_mut().enumerate() {
                prefetch_mapped(self.slots, chosen, first + k + PREFETCH_AHEAD);
                let v = chosen[self.slots[first + k] as usize];
                self.move_agent(first + k, body, v, dt, obstacles);
            }
        });
    }

    /// Measures again how far from `set`'s shapes each of `bodies` stands where what is known
    /// does not vouch for its moves in a tick of `dt` (its body and its max speed's way).
    pub(crate) fn refresh_clearances(
        &self,
        clearances: &mut Clearances,
        set: &ObstacleSet,
        bodies: &[Body],
        dt: f32,
    ) {
        let reach = |i: usize| {
            let prepared = self.prepared_of(i);
            let limits = (self.speed_factors).limits(i, &prepared.params.limits);
            prepared.body_radius + limits.max_speed * dt
        };
        let position = |i: usize| bodies[i].position;
        clearances.refresh(set, bodies.len(), self.executor, position, reach);
    }

    /// The parameters agent `i` uses.
    #[inline]
    fn prepared_of(&self, i: usize) -> &Prepared {
        &self.params[self.agent_params[i] as usize]
    }

    /// Agent `i`'s force: the force pass's plus the added ones (see
    /// [`ForcePass::total_force`]).
    #[inline]
    fn total_force(&self, i: usize, max_force: f32) -> Vec3 {
        (self.forces).total_force(self.slots, self.added, i, max_force)
    }

    /// The velocity agent `i` (at `body`) asks for after `dt`: its force limited and applied
    /// (or its heading turned), the speed kept within the limits, the noise added.
    #[inline]
    pub(crate) fn preferred_velocity(&self, i: usize, body: &Body, dt: f32) -> Vec3 {
        let params = &self.prepared_of(i).params;
        let limits = self.speed_factors.limits(i, &params.limits);
        let force = match params.weights.blending {
            BlendMode::RuleLimitsOnly => self.total_force(i, limits.max_force),
            BlendMode::WeightedSum | BlendMode::Prioritised => {
                limit_length(self.total_force(i, limits.max_force), limits.max_force)
            }
        };
        let mut v = match limits.max_turn_rate {
            Some(rate) => self.heading_driven(body, force, dt, rate),
            None => self.space.flat(body.velocity + force * dt),
        };
        v = within_speed_limits(v, body.heading, &limits);
        if params.weights.noise > 0.0 {
            v = (self.draws).with_noise(self.space, i, v, params.weights.noise);
        }
        v
    }

    /// Moves agent `i`'s `body` at velocity `v` for `dt`, never into an obstacle, and keeps it
    /// within its boundary. A move that would not be finite leaves the body as it was.
    #[inline]
    pub(crate) fn move_agent(
        &self,
        i: usize,
        body: &mut Body,
        v: Vec3,
        dt: f32,
        obstacles: &Layered,
    ) {
        let prepared = self.prepared_of(i);
        let params = &prepared.params;
        let mut v = v;
        let mut p = self.space.level_with(body.position + v * dt, body.position);
        if !obstacles.is_empty() && p.is_finite() {
            let outside = (body.position, prepared.body_radius);
            (p, v) = self.stay_outside(i, outside, p, v, obstacles);
        }
        // On the plane the box's z range does not count: the body stays on its floor.
        (p, v) = keep_within(p, v, prepared.body_radius, &params.boundary);
        (p, v) = (self.space.level_with(p, body.position), self.space.flat(v));
        if p.is_finite() && v.is_finite() {
            body.position = p;
            body.velocity = v;
            if let Some(h) = unit(v) {
                body.heading = h;
            }
        }
    }

    /// The end of a move of agent `i`'s body (its centre and radius) `from` its place to `to`
    /// at velocity `v`, never into an obstacle: it stops where the body first touches a
    /// surface, then spends the rest of the move sliding along it (a second surface stops the
    /// slide); the velocity loses what points into each surface.
    #[inline]
    fn stay_outside(
        &self,
        i: usize,
        (from, radius): (Vec3, f32),
        to: Vec3,
        mut v: Vec3,
        obstacles: &Layered,
    ) -> (Vec3, Vec3) {
        let (allowed, surface) = obstacles.constrain_for(i, from, to, radius);
        let mut p = allowed;
        if let Some(normal) = surface {
            v -= normal * v.dot(normal).min(0.0);
            let rest = to - allowed;
            let slide = rest - normal * rest.dot(normal).min(0.0);
            let (slid, second) = obstacles.constrain_for(i, allowed, allowed + slide, radius);
            p = slid;
            if let Some(normal) = second {
                v -= normal * v.dot(normal).min(0.0);
            }
        }
        (self.space.level_with(p, from), self.space.flat(v))
    }

    /// The velocity after `dt` of an agent whose heading drives its motion, turning at most
    /// `rate` degrees per second: the force along the heading changes its speed, the force
    /// across it turns the heading (as it would turn a velocity, `|across| / speed` radians per
    /// second) up to the rate. A force pointing backwards turns the agent at the full rate,
    /// to the side it leans to (right when straight back: clockwise on the plane, about the Y
    /// axis in 3D), while it brakes, so that a creature turns round rather than reverses.
    #[inline]
    fn heading_driven(&self, body: &Body, force: Vec3, dt: f32, rate: f32) -> Vec3 {
        let flat = |v: Vec3| self.space.flat(v);
        let velocity = flat(body.velocity);
        let Some(heading) = unit(flat(body.heading)).or_else(|| unit(velocity)) else {
            // No heading yet: the first push gives one.
            return flat(velocity + force * dt);
        };
        let along = force.dot(heading);
        let across = flat(force - heading * along);
        let speed = (length(velocity) + along * dt).max(0.0);
        let max_angle = (rate * dt).to_radians();
        let angle = if along < 0.0 {
            max_angle
        } else {
            (length(across) / speed.max(f32::MIN_POSITIVE) * dt).min(max_angle)
        };
        let side = unit(across).unwrap_or_else(|| self.space.right_of(heading));
        let turned = match unit(heading.cross(side)) {
            Some(axis) if angle > 0.0 => flat(rotated(rotation(axis, angle), heading)),
            _ => heading,
        };
        turned * speed
    }
}

/// Takes the holds the `avoidance` pass chose for the `n` agents into `extras`, less `dt`;
/// without a pass, none is held. `slots` are the agents' grid slots.
pub(crate) fn count_down_holds(
    extras: &mut Extras,
    avoidance: &AvoidancePass,
    slots: &[u32],
    n: usize,
    dt: f32,
) {
    if !extras.holding {
        return;
    }
    let out = &avoidance.out;
    let counted = avoidance.avoided && out.len() == n;
    let mut any = false;
    for (i, hold) in extras.holds_mut(n).iter_mut().enumerate() {
        *hold = if counted {
            out[slots[i] as usize]
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
    extras.holding = any;
}

/// `v` with its speed kept within the limits: cut to the max speed, or raised to the min speed
/// along itself (or along `heading` when it is zero).
#[inline]
fn within_speed_limits(v: Vec3, heading: Vec3, limits: &SteeringLimits) -> Vec3 {
    let speed = length(v);
    if speed > limits.max_speed {
        let ratio = limits.max_speed / speed;
        // A subnormal ratio has lost precision: go through the unit vector instead.
        if ratio.is_normal() || ratio == 0.0 {
            v * ratio
        } else {
            v / speed * limits.max_speed
        }
    } else if speed < limits.min_speed {
        let dir = unit(v).or_else(|| unit(heading)).unwrap_or(Vec3::ZERO);
        dir * limits.min_speed
    } else {
        v
    }
}
