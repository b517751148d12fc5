//! The stages of a tick as the crowd runs them: each stage's type given its view of the
//! buffers, in order.

use glam::Vec3;

use super::Crowd;
use crate::avoidance::AvoidanceInputs;
use crate::detail::{Detail, LevelOfDetail};
use crate::forces::ForceInputs;
use crate::integration::{Mover, count_down_holds};
use crate::obstacles::{Layered, ObstacleAvoidance, ObstacleQuery, ObstacleSet, Shape};
use crate::rules::steering::Steering;
use crate::simd::SimdPath;
use crate::space::Space;
use crate::velocity_obstacles::{avoids_velocity_obstacles, keeps_nearest};

impl Crowd {
    /// Neighbour lookup, the first stage of a tick: rebuilds the uniform grid for the largest
    /// neighbour radius (see [`UniformGrid`](crate::UniformGrid)) and copies the agents in
    /// cell order, so that each neighbourhood is read from a few contiguous ranges.
    pub fn build_index(&mut self) {
        self.index
            .build(&self.agents, &self.params, &*self.executor, self.space);
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
    /// returns how many were. The shapes are binned for the casts of the parameter sets added
    /// so far (the widest body sets how far a cell reaches): set them again after adding a
    /// set of wider bodies, or its casts read more cells than they need (the same answers).
    pub fn set_obstacles(&mut self, shapes: impl IntoIterator<Item = Shape>) -> usize {
        let reach = self.avoidance.reach(&self.params);
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
    /// casts a ball ahead along its heading (toward its target where that is
    /// [in sight](Self::set_target_in_sight)), as far as its look-ahead (which grows with speed);
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
            targets_in_sight: &self.agents.targets_in_sight,
            executor: &*self.executor,
        };
        let Some(avoiding) = self.avoidance.run(&mut self.forces, colliders, crowd) else {
            return 0;
        };
        self.agents.extras.holding |= self.avoidance.params.hold_seconds > 0.0;
        avoiding
    }

    /// Switches level of detail around `focus` on, or off with `None`. An interval of 0 counts
    /// as 1; a non-finite focus or radius switches it off. On the plane, the focus is on the
    /// floor nearest its z (see [`Space::Planar`]).
    pub fn set_level_of_detail(&mut self, detail: Option<LevelOfDetail>, focus: Vec3) {
        self.detail = Detail::new(detail, self.space.point(focus));
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

    /// Integration, the last stage of a tick: advances every agent by `dt` seconds. The force
    /// is limited to max force, the velocity kept within [min speed, max speed], the position
    /// moved (never into the crowd's own [`obstacles`](Self::obstacles) or `colliders`, a
    /// physics backend's, if any), wrapped or kept inside walls. Where agents avoid velocity
    /// obstacles, the velocity-obstacle step (the fourth stage) first replaces each one's
    /// velocity by the nearest that keeps clear of its neighbours. A non-finite or non-positive
    /// `dt` does nothing. An agent whose new state would not be finite keeps its old one.
    pub fn integrate(&mut self, dt: f32, colliders: Option<&dyn ObstacleQuery>) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let mut clearances = core::mem::take(&mut self.avoidance.clearances);
        let obstacles = &self.avoidance.obstacles;
        (self.mover()).refresh_clearances(&mut clearances, obstacles, &self.agents.bodies, dt);
        self.avoidance.clearances = clearances;
        if avoids_velocity_obstacles(&self.params) {
            self.integrate_avoiding(dt, colliders);
        } else {
            let mut bodies = core::mem::take(&mut self.agents.bodies);
            let obstacles = Layered::new(&self.avoidance.obstacles, colliders)
                .knowing(self.avoidance.clearances.by_agent());
            self.mover().move_all(&mut bodies, dt, &obstacles);
            self.agents.bodies = bodies;
            // The nearest were not kept: no ceilings for the next force pass.
            self.velocity_step.ceilings.clear();
        }
        if self.detail.is_some() {
            let (slots, n) = (self.index.grid.slots(), self.agents.bodies.len());
            (self.forces).keep_last_forces(slots, &mut self.agents.extras, n);
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
        let n = self.len();
        let slots = self.index.grid.slots();
        count_down_holds(&mut self.agents.extras, &self.avoidance, slots, n, dt);
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
        (self.mover()).preferred_velocities(&self.agents.bodies, dt, &mut preferred);
        self.velocity_step.preferred = preferred;
        let obstacles = Layered::new(&self.avoidance.obstacles, colliders)
            .knowing(self.avoidance.clearances.by_agent());
        // The velocity-obstacle step, the fourth stage: each avoiding agent's velocity replaced
        // by the nearest that keeps clear of its neighbours.
        let mut choices = core::mem::take(&mut self.velocity_step.choices);
        (self.velocity_inputs()).choose_velocities(dt, &obstacles, &mut choices);
        let mut bodies = core::mem::take(&mut self.agents.bodies);
        (self.mover()).move_chosen(&mut bodies, &choices.velocities, dt, &obstacles);
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

    /// The crowd as integration reads it.
    fn mover(&self) -> Mover<'_> {
        Mover {
            space: self.space,
            params: &self.params,
            agent_params: &self.agents.params,
            forces: &self.forces,
            added: &self.agents.added,
            slots: self.index.grid.slots(),
            speed_factors: self.agents.extras.speed_factors(),
            draws: self.draws(),
            executor: &*self.executor,
        }
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
