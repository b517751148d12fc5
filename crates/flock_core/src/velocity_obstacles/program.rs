//! One batch's programs: encounters and bounds gathered, the half-spaces built and the
//! linear program solved, then the surfaces of obstacles and walls.

use glam::Vec3;

use crate::agents::Gathered;
use crate::maths::{NoiseDraw, length, limit_length, unit};
use crate::obstacles::{Layered, ObstacleQuery};
use crate::rules::boundary::room_for;
use crate::rules::flocking::coincident_direction;
use crate::space::Space;
use crate::tuning::{Boundary, Perception, Prepared, VelocityObstacles};

use super::contacts::{Round, contact};
use super::context::{Near, Pending, Scratch, Tick, VelocityInputs};
use super::encounters::Encounter;
use super::headway::Headway;
use super::shares::{as_programmed, avoids, manoeuvre_share};
use super::{planar, volume};

/// The most obstacle surfaces or walls a velocity is bounded by: a corner's three.
pub(super) const MOST_SURFACES: usize = 3;
/// The largest nudge of the velocity an agent aims for, per axis, as a share of its max speed.
pub(super) const NUDGE: f32 = 1e-3;
/// An agent moving along its preferred velocity at under this share of its speed is blocked.
pub(super) const BLOCKED: f32 = 0.5;
/// A blocked agent aims this many times its preferred speed to the right of it, besides the
/// preferred velocity (45 degrees to the right).
pub(super) const STEP_ASIDE: f32 = 1.0;

/// Keeps the nudges' draws apart from the other seeded draws.
pub(super) const NUDGE_STREAM: u64 = 0x4F52_4341_0000_0001;

/// An agent's program: its encounters' constraints `own` as they are where it has no
/// `bounds`, else the bounds first (which the program never relaxes) and then `own`, in
/// `program`.
#[inline]
pub(super) fn bounds_first<'a, T: Copy>(
    mut bounds: impl Iterator<Item = T>,
    own: &'a [T],
    program: &'a mut Vec<T>,
) -> &'a [T] {
    let Some(first) = bounds.next() else {
        return own;
    };
    program.clear();
    program.push(first);
    program.extend(bounds);
    program.extend_from_slice(own);
    program
}

impl VelocityInputs<'_> {
    /// The velocity of the agent in grid `slot`, and whether it may end the tick overlapping a
    /// neighbour (see [`finish`](Self::finish)), where it needs no program: the velocity it
    /// prefers, where it avoids no neighbour. Else its encounters and bounds are added to the
    /// batch in `scratch`, and it waits, at place `at`, for their half-spaces; what it returns
    /// then (the velocity it prefers) stands in until [`finish`](Self::finish) replaces it. In
    /// a contact `round`, with contact bounds.
    #[inline(always)]
    pub(super) fn prepare(
        &self,
        at: usize,
        slot: usize,
        tick: &Tick,
        round: Option<&Round>,
        scratch: &mut Scratch,
    ) -> (Vec3, bool) {
        let agent = &self.index.gathered[slot];
        let preferred = self.preferred[agent.index as usize];
        let prepared = &self.params[agent.params as usize];
        let solid = match prepared.velocity_obstacles {
            VelocityObstacles::Off => return (preferred, false),
            VelocityObstacles::Reciprocal => false,
            VelocityObstacles::Solid => true,
        };
        self.nearest_neighbours(slot, prepared, tick.layered, scratch);
        if scratch.near.is_empty() {
            return (preferred, false);
        }
        let own = prepared.params.perception;
        let velocity = agent.body.velocity;
        let index = agent.index as usize;
        let max_speed = (self.speed_factors)
            .limits(index, &prepared.params.limits)
            .max_speed;
        let preferred = self.given_way(agent, prepared, (preferred, max_speed), &scratch.near);
        let dt = tick.dt;
        let Scratch {
            near,
            encounters,
            bounds,
            seen,
            ..
        } = scratch;
        let body = (agent.body.position, agent.body.velocity);
        let gap = (own.time_gap, tick.overtaking);
        let mut headway = Headway::new(preferred, body, gap, self.space, seen);
        let first_bound = bounds.len();
        if let Some(round) = round {
            bounds.extend(near.iter().filter_map(|near| {
                let (encounter, bounded) = self.encounter(agent.index, &own, near);
                let bounded = bounded.is_some_and(|mode| {
                    mode == VelocityObstacles::Solid || round.in_contact[near.slot]
                });
                round.contact(&encounter, near.slot, bounded, dt, max_speed)
            }));
        }
        // Reciprocal agents' encounters go to the program as it takes them; those of solid
        // agents keep the true radii and shares, which their contact bounds need.
        let first_encounter = encounters.len();
        for near in near.iter() {
            let (encounter, _) = self.encounter(agent.index, &own, near);
            headway.see(&encounter, || self.index.gathered[near.slot].target);
            if solid {
                if let Some(bound) = contact(&encounter, dt, max_speed) {
                    bounds.push(bound);
                }
                encounters.push(&encounter, velocity);
            } else {
                encounters.push(&as_programmed(&encounter), velocity);
            }
        }
        let leader_max_speed = |k: usize| self.max_speed_in(near[k].slot);
        let simd = self.index.lanes.simd();
        let preferred = headway.kept(simd, preferred, max_speed, leader_max_speed);
        let preferred = self.slid_along_surface(agent, prepared, preferred, tick);
        scratch.pending.push(Pending {
            at,
            slot,
            preferred,
            goal: self.goal(agent.index as usize, preferred, velocity, max_speed),
            max_speed,
            solid,
            encounters: first_encounter..scratch.encounters.len(),
            bounds: first_bound..scratch.bounds.len(),
        });
        (preferred, false)
    }

    /// The velocity of the `pending` agent, its half-spaces computed, and whether it may end
    /// the tick overlapping a neighbour: a reciprocal agent whose body is within reach of a
    /// neighbour's (near enough that the two could touch by the tick's end), where its program
    /// was relaxed or some agents do not avoid back.
    #[inline(always)]
    pub(super) fn finish(
        &self,
        pending: &Pending,
        tick: &Tick,
        scratch: &mut Scratch,
    ) -> (Vec3, bool) {
        let agent = &self.index.gathered[pending.slot];
        let prepared = &self.params[agent.params as usize];
        let boundary = &prepared.params.boundary;
        let (mut chosen, mut relaxed) = self.solve(pending, &[], scratch);
        // A velocity into an obstacle or a wall would be cut short there and slide along it,
        // off the course the program chose and perhaps into a neighbour: bound it too, and
        // choose again (up to a corner's three surfaces).
        let mut surfaces = [(Vec3::ZERO, 0.0); MOST_SURFACES];
        for k in 0..MOST_SURFACES {
            let Some(bound) = self.surface_bound(
                (agent.index, agent.body.position, prepared.body_radius),
                chosen,
                tick.dt,
                tick.obstacles,
                boundary,
            ) else {
                break;
            };
            surfaces[k] = bound;
            (chosen, relaxed) = self.solve(pending, &surfaces[..=k], scratch);
        }
        // Whether the choice might end the tick inside a neighbour: where the program held and
        // every neighbour avoids back, the paper's guarantee holds for the tick. Else, where a
        // neighbour is within reach by the program's radii, which are at least the bodies'.
        let max_speed = pending.max_speed;
        let reach = tick.dt * (max_speed + tick.fastest);
        let may_overlap = !pending.solid
            && (relaxed || !tick.all_avoid)
            && pending.encounters.clone().any(|k| {
                let touching = scratch.encounters.radius(k) + reach;
                scratch.encounters.offset(k).length_squared() < touching * touching
            });
        // The program keeps within the max speed; rounding at extreme values may not.
        let chosen = if chosen.is_finite() {
            limit_length(chosen, max_speed)
        } else {
            pending.preferred
        };
        (chosen, may_overlap)
    }

    /// The max speed of the agent in grid `slot`, its speed factor taken in.
    pub(super) fn max_speed_in(&self, slot: usize) -> f32 {
        let params = &self.params[self.index.lanes.params(slot) as usize].params;
        let index = self.index.grid.order()[slot] as usize;
        self.speed_factors.limits(index, &params.limits).max_speed
    }

    /// The encounter of agent `index` (perceiving as `own`) with its neighbour `near`, with
    /// the bodies' true radii and the agent's true share; and where the neighbour avoids the
    /// agent back, how (so that the two share each manoeuvre).
    #[inline(always)]
    pub(super) fn encounter(
        &self,
        index: u32,
        own: &Perception,
        near: &Near,
    ) -> (Encounter<Vec3>, Option<VelocityObstacles>) {
        // From the compact columns rather than the neighbour's whole gathered entry, a cache
        // line apart from the agent's own and rarely in cache.
        let other_index = self.index.grid.order()[near.slot];
        let other_params = &self.params[self.index.lanes.params(near.slot) as usize];
        let theirs = &other_params.params.perception;
        let avoided_back = (other_params.velocity_obstacles != VelocityObstacles::Off
            && avoids(theirs, own))
        .then_some(other_params.velocity_obstacles);
        let encounter = Encounter {
            offset: near.offset,
            velocity: self.index.lanes.velocity(near.slot),
            radius: 0.5 * (own.collision_distance + theirs.collision_distance),
            horizon: own.collision_horizon,
            share: if avoided_back.is_some() {
                manoeuvre_share(
                    (index, own.avoidance_priority),
                    (other_index, theirs.avoidance_priority),
                )
            } else {
                1.0
            },
            fixed_apart: if near.offset.length_squared().is_normal() {
                Vec3::ZERO
            } else {
                unit(-near.offset).unwrap_or_else(|| {
                    coincident_direction(index as usize, other_index as usize, self.space)
                })
            },
        };
        (encounter, avoided_back)
    }

    /// The velocity nearest the `pending` agent's goal, within its max speed, that keeps to its
    /// bounds and the `surfaces` bounds and as well as it can to its encounters' half-spaces
    /// (computed in `scratch`); and whether the program relaxed them (not all could be met).
    #[inline]
    pub(super) fn solve(
        &self,
        pending: &Pending,
        surfaces: &[(Vec3, f32)],
        scratch: &mut Scratch,
    ) -> (Vec3, bool) {
        let bounds = scratch.bounds[pending.bounds.clone()]
            .iter()
            .chain(surfaces);
        let fixed = pending.bounds.len() + surfaces.len();
        let (max_speed, goal) = (pending.max_speed, pending.goal);
        match self.space {
            Space::Planar => {
                let flat = |v: Vec3| v.truncate();
                let lines = bounds_first(
                    bounds.map(|&(n, b)| planar::HalfPlane::at_most(flat(n), b)),
                    &scratch.lines[pending.encounters.clone()],
                    &mut scratch.program_lines,
                );
                let projected = &mut scratch.projected_lines;
                let (chosen, relaxed) =
                    planar::solve(lines, fixed, max_speed, flat(goal), projected);
                (chosen.extend(0.0), relaxed)
            }
            Space::Volume => {
                let spaces = bounds_first(
                    bounds.map(|&(n, b)| volume::HalfSpace::at_most(n, b)),
                    &scratch.spaces[pending.encounters.clone()],
                    &mut scratch.program_spaces,
                );
                volume::solve(
                    spaces,
                    fixed,
                    max_speed,
                    goal,
                    &mut scratch.projected_spaces,
                )
            }
        }
    }

    /// The bound `n . v <= bound` that keeps an agent's body (its index, centre and radius) moving
    /// at `v` for `dt` from crossing the first obstacle surface or hard wall of `boundary` it
    /// would touch: `n` points into the surface (the obstacle's outward
    /// normal reversed), and the bound is the gap to its tangent plane over `dt`, which keeps
    /// the agent out of a convex shape. `None` when the move crosses nothing.
    #[inline]
    pub(super) fn surface_bound(
        &self,
        (index, position, radius): (u32, Vec3, f32),
        v: Vec3,
        dt: f32,
        obstacles: &Layered,
        boundary: &Boundary,
    ) -> Option<(Vec3, f32)> {
        let to = self.space.level_with(position + v * dt, position);
        if !obstacles.is_empty()
            && let (stop, Some(normal)) =
                obstacles.constrain_for(index as usize, position, to, radius)
        {
            return Some((-normal, (position - stop).dot(normal).max(0.0) / dt));
        }
        let Boundary::Walls { min, max, .. } = *boundary else {
            return None;
        };
        let axes = match self.space {
            Space::Planar => 0..2,
            Space::Volume => 0..3,
        };
        let flat = |axis: usize| min[axis] >= max[axis];
        let (min, max) = room_for(min, max, radius);
        // An axis on which the box is flat has no walls: it holds every agent on the plane.
        axes.filter(|&axis| !flat(axis)).find_map(|axis| {
            let across = Vec3::AXES[axis];
            if to[axis] > max[axis] {
                Some((across, (max[axis] - position[axis]).max(0.0) / dt))
            } else if to[axis] < min[axis] {
                Some((-across, (position[axis] - min[axis]).max(0.0) / dt))
            } else {
                None
            }
        })
    }

    /// `preferred`, the velocity of `agent` (tuned as `prepared`), less what of it would carry
    /// the body into the first obstacle surface or hard wall it would meet within the tick:
    /// slid along it, as integration would move it. A velocity into a wall is not one the
    /// agent can keep, and measured against it, an agent pressed against a wall beside a door
    /// counts as blocked and steps aside (see [`goal`](Self::goal)), along the wall to its
    /// right, which for one side of the door is away from it.
    #[inline]
    fn slid_along_surface(
        &self,
        agent: &Gathered,
        prepared: &Prepared,
        preferred: Vec3,
        tick: &Tick,
    ) -> Vec3 {
        let body = (agent.index, agent.body.position, prepared.body_radius);
        let boundary = &prepared.params.boundary;
        match self.surface_bound(body, preferred, tick.dt, tick.obstacles, boundary) {
            Some((into, bound)) if into.dot(preferred) > bound => {
                preferred - into * (into.dot(preferred) - bound)
            }
            _ => preferred,
        }
    }

    /// The velocity agent `i`, moving at `velocity`, aims for: its preferred one, moved by a
    /// tiny seeded draw (up to [`NUDGE`] of its max speed along each axis), since symmetric
    /// crowds (agents round a circle heading for the opposite points) otherwise settle into an
    /// equilibrium where each blocks the next, as the RVO2 library's examples perturb the
    /// preferred velocity; and for a blocked agent (moving along its preferred velocity at
    /// under [`BLOCKED`] of that speed), turned to the right of it by [`STEP_ASIDE`] times its
    /// speed, so that a jam of agents pressing into one another turns round and unwinds
    /// instead of standing still.
    #[inline]
    pub(super) fn goal(&self, i: usize, preferred: Vec3, velocity: Vec3, max_speed: f32) -> Vec3 {
        let mut draw = NoiseDraw::new(self.seed ^ NUDGE_STREAM, self.tick, i);
        let mut goal = preferred + self.space.flat(draw.in_cube()) * (NUDGE * max_speed);
        let speed = length(preferred);
        if let Some(along) = unit(preferred)
            && velocity.dot(along) < BLOCKED * speed
        {
            goal += self.space.right_of(along) * (STEP_ASIDE * speed);
        }
        goal
    }
}
