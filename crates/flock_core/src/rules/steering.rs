//! One agent's steering force: each behaviour's force, weighted, then blended.

use glam::Vec3;

use super::blending::{Behaviour, prioritised, weighted_sum};
use super::response::respond;
use super::wander::Draws;
use super::{boundary, collisions, flocking, leader, seek, standoff, wander};
use crate::agents::{Extras, SlotAgent};
use crate::neighbours::scan::Scan;
use crate::roles::Threat;
use crate::space::Space;
use crate::tuning::BlendMode;

/// What the steering behaviours read besides the agent and its neighbourhood: the space, the
/// threats, each agent's leader, flow, standoff and wander point, and this tick's draws.
#[derive(Clone, Copy)]
pub(crate) struct Steering<'a> {
    pub(crate) space: Space,
    pub(crate) threats: &'a [Threat],
    pub(crate) extras: &'a Extras,
    pub(crate) draws: Draws,
}

impl Steering<'_> {
    /// `agent`'s steering force from what its neighbourhood `scan` saw: each behaviour's
    /// force, weighted, then blended as its [`BlendMode`] says.
    #[inline]
    pub(crate) fn force(&self, agent: &SlotAgent, scan: &Scan) -> Vec3 {
        let params = &agent.params.params;
        let (w, limits) = (params.weights, agent.limits);
        let (p, v) = (agent.position, agent.velocity);
        let extras = self.extras;

        let mut forces = [Vec3::ZERO; Behaviour::COUNT];
        let mut set = |behaviour: Behaviour, force: Vec3| forces[behaviour as usize] = force;
        let [separation, alignment, cohesion] = flocking::forces(scan, params, &limits, v);
        set(Behaviour::Separation, separation * w.separation);
        set(Behaviour::Alignment, alignment * w.alignment);
        set(Behaviour::Cohesion, cohesion * w.cohesion);
        if let Some(target) = agent.target {
            set(
                Behaviour::Target,
                seek::seek(p, v, target, &limits) * w.target,
            );
        }
        let body = (p, agent.params.body_radius);
        if let Some(walls) = boundary::walls(body, &params.boundary, &limits, self.space) {
            set(Behaviour::Walls, walls);
        }
        if w.flee != 0.0 && !self.threats.is_empty() {
            let flee = seek::flee(agent, self.threats, self.space);
            set(Behaviour::Flee, flee * w.flee);
        }
        if let Some(collision) = scan.collision {
            let sidestep = collisions::sidestep(agent, collision, self.space);
            set(Behaviour::Sidestep, sidestep * w.collision_avoidance);
        }
        if w.leader != 0.0
            && let Some(leader) = extras.leader(agent.index)
        {
            let (clear_path, keep_station) = leader::follow(agent, &leader, self.space);
            set(Behaviour::LeaderPath, clear_path * w.leader);
            set(Behaviour::Leader, keep_station * w.leader);
        }
        let flow = extras.flow(agent.index);
        if w.flow != 0.0 && flow != Vec3::ZERO {
            let flow = respond(flow * limits.max_speed, v, &limits);
            set(Behaviour::Flow, flow * w.flow);
        }
        if w.standoff != 0.0
            && let Some(away) = extras.standoff(agent.index)
        {
            set(
                Behaviour::Standoff,
                standoff::standoff(agent, away) * w.standoff,
            );
        }
        if w.wander != 0.0 {
            let point = self.draws.wander_point(extras, self.space, agent.index);
            set(
                Behaviour::Wander,
                wander::wander(agent, point, self.space) * w.wander,
            );
        }

        let total = match w.blending {
            BlendMode::WeightedSum => weighted_sum(&forces, limits.max_force),
            BlendMode::Prioritised => prioritised(&forces, limits.max_force),
            BlendMode::RuleLimitsOnly => forces.iter().sum(),
        };
        if total.is_finite() { total } else { Vec3::ZERO }
    }
}
