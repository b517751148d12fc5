//! The steering behaviours, one family per file, each with its formula and source, and the
//! blend that turns them into one agent's steering force.
//!
//! | file | behaviours |
//! |---|---|
//! | [`flocking`] | separation, alignment, cohesion (Reynolds 1987) |
//! | [`seek`] | seek and arrive, pursuit's lead, flee and evade (Reynolds 1999) |
//! | [`collisions`] | predicted collisions between agents and the sidestep (Reynolds 1999) |
//! | [`leader`] | leader following (Reynolds 1999) |
//! | [`standoff`] | backing off from enemies to a standoff distance (RTS squads) |
//! | [`wander`] | wander (Reynolds 1999) and angular noise (Vicsek et al. 1995) |
//! | [`boundary`] | walls and wrap-around |
//! | [`blending`] | the weighted sum and prioritised allocation (Reynolds 1999) |

pub(crate) mod blending;
pub(crate) mod boundary;
pub(crate) mod collisions;
pub(crate) mod flocking;
pub(crate) mod leader;
pub(crate) mod seek;
pub(crate) mod standoff;
pub(crate) mod wander;

use glam::Vec3;

use crate::Crowd;
use crate::forces::SlotAgent;
use crate::maths::limit_length;
use crate::neighbours::Scan;
use crate::tuning::{BlendMode, SteeringLimits};
use blending::{Behaviour, prioritised, weighted_sum};

pub(crate) use collisions::{Collision, Prediction};
pub(crate) use flocking::{
    COINCIDENT_SQ, SEPARATION_FLOOR_SQ, coincident_direction, separation_divisor,
};
pub use leader::Leader;
pub use seek::{LONGEST_LEAD, Threat, lead_time};
pub(crate) use standoff::Standoff;

/// The force that steers velocity `v` toward `desired` (Reynolds 1999: steering = desired
/// velocity - velocity), as a change of velocity made within the response time, limited to
/// the max force.
#[inline]
pub(crate) fn respond(desired: Vec3, v: Vec3, limits: &SteeringLimits) -> Vec3 {
    limit_length((desired - v) / limits.response_time, limits.max_force)
}

impl Crowd {
    /// `agent`'s steering force from what its neighbourhood `scan` saw: each behaviour's
    /// force, weighted, then blended as its [`BlendMode`] says.
    #[inline]
    pub(crate) fn steering(&self, agent: &SlotAgent, scan: &Scan) -> Vec3 {
        let params = &agent.params.params;
        let (w, limits) = (params.weights, params.limits);
        let (p, v) = (agent.position, agent.velocity);
        let extras = &self.agents.extras;

        let mut forces = [Vec3::ZERO; Behaviour::COUNT];
        let mut set = |behaviour: Behaviour, force: Vec3| forces[behaviour as usize] = force;
        let [separation, alignment, cohesion] = flocking::forces(scan, params, v);
        set(Behaviour::Separation, separation * w.separation);
        set(Behaviour::Alignment, alignment * w.alignment);
        set(Behaviour::Cohesion, cohesion * w.cohesion);
        if let Some(target) = agent.target {
            set(
                Behaviour::Target,
                seek::seek(p, v, target, &limits) * w.target,
            );
        }
        if let Some(walls) = boundary::walls(p, &params.boundary, &limits, self.space) {
            set(Behaviour::Walls, walls);
        }
        if w.flee != 0.0 && !self.threats.is_empty() {
            let flee = seek::flee(agent, &self.threats, self.space);
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
            let point = self.wander_point(agent.index);
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
