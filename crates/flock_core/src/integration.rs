//! Integration, the last stage of a tick: the steering force limited, the velocity kept within
//! the speed limits (and turned at a limited rate), the agent moved, never into an obstacle,
//! and kept within its boundary.

use glam::Vec3;

use crate::Crowd;
use crate::agents::Body;
use crate::executor::for_each_chunk_mut;
use crate::maths::{length, limit_length, rotation, unit};
use crate::obstacles::{AvoidanceHold, Layered, ObstacleQuery};
use crate::prefetch::prefetch_mapped;
use crate::rules::boundary::keep_within;
use crate::tuning::{BlendMode, SteeringLimits};
use crate::velocity_obstacles::avoids_velocity_obstacles;

/// How many agents ahead integration asks for what it will read by grid slot (see
/// [`prefetch_mapped`]).
const PREFETCH_AHEAD: usize = 8;

impl Crowd {
    /// Integration, the last stage of a tick: advances every agent by `dt` seconds. The force
    /// is limited to max force, the velocity kept within [min speed, max speed], the position
    /// moved (never into the crowd's own [`obstacles`](Self::obstacles) or `colliders`, a
    /// physics backend's, if any), wrapped or kept inside walls. A non-finite or non-positive
    /// `dt` does nothing. An agent whose new state would not be finite keeps its old one.
    pub fn integrate(&mut self, dt: f32, colliders: Option<&dyn ObstacleQuery>) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        if avoids_velocity_obstacles(&self.params) {
            self.integrate_avoiding(dt, colliders);
        } else {
            let mut bodies = core::mem::take(&mut self.agents.bodies);
            let (this, slots) = (&*self, self.index.grid.slots());
            let obstacles = Layered::new(&self.avoidance.obstacles, colliders);
            for_each_chunk_mut(&*self.executor, &mut bodies, |first, chunk| {
                for (k, body) in chunk.iter_mut().enumerate() {
                    prefetch_mapped(slots, &this.forces.results, first + k + PREFETCH_AHEAD);
                    let v = this.preferred_velocity(first + k, body, dt);
                    this.move_agent(first + k, body, v, dt, &obstacles);
                }
            });
            self.agents.bodies = bodies;
            // The nearest were not kept: no ceilings for the next force pass.
            self.velocity_step.ceilings.clear();
        }
        if self.detail.is_some() {
            (self.forces).keep_last_forces(self.index.grid.slots(), &mut self.agents.extras);
        }
        let (params, agent_params) = (&self.params, &self.agents.params);
        self.draws().drift_wander_points(
            &mut self.agents.extras,
            |i| params[agent_params[i] as usize].params.weights,
            self.agents.bodies.len(),
            self.space,
            dt,
        );
        self.tick = self.tick.wrapping_add(1);
        self.count_down_holds(dt);
        self.agents.added.fill(Vec3::ZERO);
        self.forces.pending = false;
    }

    /// Integration with the velocity-obstacle step between the velocity the rules ask for and
    /// the move: every agent's preferred velocity first, since each agent's choice reads its
    /// neighbours' states from the start of the tick.
    fn integrate_avoiding(&mut self, dt: f32, colliders: Option<&dyn ObstacleQuery>) {
        if !self.index.covers(self.len()) {
            self.build_index();
        }
        let mut preferred = core::mem::take(&mut self.velocity_step.preferred);
        preferred.clear();
        preferred.resize(self.len(), Vec3::ZERO);
        let (this, slots) = (&*self, self.index.grid.slots());
        for_each_chunk_mut(&*self.executor, &mut preferred, |first, chunk| {
            for (k, v) in chunk.iter_mut().enumerate() {
                prefetch_mapped(slots, &this.forces.results, first + k + PREFETCH_AHEAD);
                *v = this.preferred_velocity(first + k, &this.agents.bodies[first + k], dt);
            }
        });
        self.velocity_step.preferred = preferred;
        let obstacles = Layered::new(&self.avoidance.obstacles, colliders);
        // The velocity-obstacle step, the fourth stage: each avoiding agent's velocity replaced
        // by the nearest that keeps clear of its neighbours.
        let mut choices = core::mem::take(&mut self.velocity_step.choices);
        (self.velocity_inputs()).choose_velocities(dt, &obstacles, &mut choices);
        let chosen = &choices.velocities;
        let mut bodies = core::mem::take(&mut self.agents.bodies);
        let this = &*self;
        let slots = self.index.grid.slots();
        for_each_chunk_mut(&*self.executor, &mut bodies, |first, chunk| {
            for (k, body) in chunk.iter_mut().enumerate() {
                prefetch_mapped(slots, chosen, first + k + PREFETCH_AHEAD);
                let v = chosen[slots[first + k] as usize];
                this.move_agent(first + k, body, v, dt, &obstacles);
            }
        });
        self.agents.bodies = bodies;
        self.velocity_step.choices = choices;
        let mut ceilings = core::mem::take(&mut self.velocity_step.ceilings);
        ceilings.resize(self.len(), f32::INFINITY);
        let nearest: &[_] = if self.forces.pending {
            &self.forces.nearest
        } else {
            &[]
        };
        (self.velocity_inputs()).nearest_ceilings(dt, nearest, &mut ceilings);
        self.velocity_step.ceilings = ceilings;
    }

    /// The velocity agent `i` (at `body`) asks for after `dt`: its force limited and applied
    /// (or its heading turned), the speed kept within the limits, the noise added.
    #[inline]
    fn preferred_velocity(&self, i: usize, body: &Body, dt: f32) -> Vec3 {
        let params = &self.prepared_of(i).params;
        let limits = params.limits;
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
            v = self
                .draws()
                .with_noise(self.space, i, v, params.weights.noise);
        }
        v
    }

    /// Moves agent `i`'s `body` at velocity `v` for `dt`, never into an obstacle, and keeps it
    /// within its boundary. A move that would not be finite leaves the body as it was.
    #[inline]
    fn move_agent(&self, i: usize, body: &mut Body, v: Vec3, dt: f32, obstacles: &Layered) {
        let params = &self.prepared_of(i).params;
        let mut v = v;
        let mut p = self.space.flat(body.position + v * dt);
        if !obstacles.is_empty() && p.is_finite() {
            (p, v) = self.stay_outside(body.position, p, v, obstacles);
        }
        // On the plane the box's z range does not count: z stays zero.
        (p, v) = keep_within(p, v, &params.boundary);
        (p, v) = (self.space.flat(p), self.space.flat(v));
        if p.is_finite() && v.is_finite() {
            body.position = p;
            body.velocity = v;
            if let Some(h) = unit(v) {
                body.heading = h;
            }
        }
    }

    /// The end of a move from `from` to `to` at velocity `v`, never into an obstacle: it stops
    /// at the first surface crossed, then spends the rest of the move sliding along it (a
    /// second surface stops the slide); the velocity loses what points into each surface.
    #[inline]
    fn stay_outside(&self, from: Vec3, to: Vec3, mut v: Vec3, obstacles: &Layered) -> (Vec3, Vec3) {
        let (allowed, surface) = obstacles.constrain(from, to);
        let mut p = allowed;
        if let Some(normal) = surface {
            v -= normal * v.dot(normal).min(0.0);
            let rest = to - allowed;
            let slide = rest - normal * rest.dot(normal).min(0.0);
            let (slid, second) = obstacles.constrain(allowed, allowed + slide);
            p = slid;
            if let Some(normal) = second {
                v -= normal * v.dot(normal).min(0.0);
            }
        }
        (self.space.flat(p), self.space.flat(v))
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
            Some(axis) if angle > 0.0 => flat(rotation(axis, angle) * heading),
            _ => heading,
        };
        turned * speed
    }

    /// Takes the holds the avoidance pass chose, less `dt`; without a pass, none is held.
    fn count_down_holds(&mut self, dt: f32) {
        if !self.agents.extras.holding {
            return;
        }
        let n = self.len();
        let out = &self.avoidance.out;
        let counted = self.avoidance.avoided && out.len() == n;
        let slots = self.index.grid.slots();
        let mut any = false;
        for (i, hold) in self.agents.extras.holds_mut(n).iter_mut().enumerate() {
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
        self.agents.extras.holding = any;
    }
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
