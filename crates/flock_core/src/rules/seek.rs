//! Seeking a point with arrival, the lead for pursuing and evading a moving one, and fleeing
//! (Reynolds 1999, "seek", "arrival", "pursuit and evasion", "flee").

use glam::Vec3;

use super::response::respond;
use crate::Space;
use crate::agents::SlotAgent;
use crate::maths::{length, unit};
use crate::roles::{Threat, lead_time};
use crate::tuning::SteeringLimits;

/// Seek with arrival: toward the target at full speed, slowing linearly inside the arrival
/// radius; the desired velocity is zero on the target itself.
#[inline]
pub(crate) fn seek(p: Vec3, v: Vec3, target: Vec3, limits: &SteeringLimits) -> Vec3 {
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

/// The force that runs `agent` from the `threats` within their radius (flee, or evade for a
/// moving one: away from where it will be when the agent could reach it): toward a velocity
/// straight away at max speed, the nearer threat counting more (by `1 - distance / radius`),
/// up to the max force.
#[inline]
pub(crate) fn flee(agent: &SlotAgent, threats: &[Threat], space: Space) -> Vec3 {
    let limits = agent.limits;
    let mut away = Vec3::ZERO;
    for threat in threats {
        // On the plane a threat is felt on its own floor only: the floors lie far apart.
        let distance = length(agent.position - threat.position);
        if distance >= threat.radius {
            continue;
        }
        let depth = 1.0 - distance / threat.radius;
        let ahead = threat.position + threat.velocity * lead_time(distance, limits.max_speed);
        let offset = space.flat(agent.position - ahead);
        let dir = unit(offset)
            .or_else(|| unit(space.flat(agent.heading)))
            .unwrap_or(Vec3::ZERO);
        away += dir * depth;
    }
    match unit(away) {
        Some(dir) => respond(dir * limits.max_speed, agent.velocity, &limits),
        None => Vec3::ZERO,
    }
}
