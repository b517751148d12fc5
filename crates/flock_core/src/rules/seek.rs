//! Seeking a point with arrival, the lead for pursuing and evading a moving one, and fleeing
//! (Reynolds 1999, "seek", "arrival", "pursuit and evasion", "flee").

use glam::Vec3;

use super::respond;
use crate::Space;
use crate::forces::SlotAgent;
use crate::maths::{length, unit};
use crate::tuning::SteeringLimits;

/// The furthest ahead, in seconds, that agents predict a moving quarry's position.
pub const LONGEST_LEAD: f32 = 3.0;

/// Reynolds' (1999) estimate of how many seconds ahead to predict a moving quarry, for pursuit
/// and evasion: the time to cover `distance` at `max_speed`, at most [`LONGEST_LEAD`]. Zero
/// for an agent that cannot move.
#[inline]
pub fn lead_time(distance: f32, max_speed: f32) -> f32 {
    if max_speed > 0.0 && max_speed.is_finite() {
        (distance / max_speed).min(LONGEST_LEAD)
    } else {
        0.0
    }
}

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

/// Something agents flee, as the crowd sees it this tick (see
/// [`FlockWeights::flee`](crate::FlockWeights::flee); the plugin makes one of each `Predator`
/// entity): every agent within `radius` of `position` runs from it; from where it will be, if it
/// moves (Reynolds' evade).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threat {
    /// Where it is.
    pub position: Vec3,
    /// How it moves; agents run from where it will be by the time they could reach it at
    /// their max speed (at most [`LONGEST_LEAD`] seconds ahead). Zero for a still one.
    pub velocity: Vec3,
    /// How near it must be for agents to flee.
    pub radius: f32,
}

impl Threat {
    /// Whether every value is finite and the radius positive and at most
    /// [`LARGEST_PARAMETER`](crate::LARGEST_PARAMETER).
    pub fn is_valid(&self) -> bool {
        self.position.is_finite()
            && self.position.abs().max_element() <= crate::LARGEST_PARAMETER
            && self.velocity.is_finite()
            && self.velocity.abs().max_element() <= crate::LARGEST_PARAMETER
            && self.radius > 0.0
            && self.radius <= crate::LARGEST_PARAMETER
    }
}

/// The force that runs `agent` from the `threats` within their radius (flee, or evade for a
/// moving one: away from where it will be when the agent could reach it): toward a velocity
/// straight away at max speed, the nearer threat counting more (by `1 - distance / radius`),
/// up to the max force.
#[inline]
pub(crate) fn flee(agent: &SlotAgent, threats: &[Threat], space: Space) -> Vec3 {
    let limits = agent.params.params.limits;
    let mut away = Vec3::ZERO;
    for threat in threats {
        let distance = length(space.flat(agent.position - threat.position));
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

impl crate::Crowd {
    /// Replaces the threats agents flee (see [`FlockWeights::flee`](crate::FlockWeights::flee)),
    /// from the next force pass. Invalid ones (see [`Threat::is_valid`]) are skipped; returns how
    /// many were.
    pub fn set_threats(&mut self, threats: impl IntoIterator<Item = Threat>) -> usize {
        self.threats.clear();
        let mut skipped = 0;
        for threat in threats {
            if threat.is_valid() {
                self.threats.push(Threat {
                    position: self.space.flat(threat.position),
                    velocity: self.space.flat(threat.velocity),
                    ..threat
                });
            } else {
                skipped += 1;
            }
        }
        skipped
    }
}
