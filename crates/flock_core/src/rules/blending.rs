//! How one agent's behaviours share its max force (Reynolds 1999, "combining behaviours"): the
//! weighted sum, or prioritised acceleration allocation.

use glam::Vec3;

use crate::maths::{length, limit_length};

/// The steering behaviours, in the order [`BlendMode::Prioritised`](crate::BlendMode) serves
/// them.
#[derive(Clone, Copy)]
pub(crate) enum Behaviour {
    Flee,
    Sidestep,
    Separation,
    Standoff,
    Walls,
    LeaderPath,
    Leader,
    Target,
    Flow,
    Alignment,
    Cohesion,
    Wander,
}

impl Behaviour {
    pub(crate) const COUNT: usize = 12;
    /// Served first under either blending.
    const URGENT: [Self; 2] = [Self::Flee, Self::Sidestep];
    /// The order the weighted sum adds the rest in.
    const SUMMED: [Self; 10] = [
        Self::Separation,
        Self::Alignment,
        Self::Cohesion,
        Self::Target,
        Self::Walls,
        Self::LeaderPath,
        Self::Leader,
        Self::Flow,
        Self::Wander,
        Self::Standoff,
    ];
}

/// [`BlendMode::WeightedSum`](crate::BlendMode) of the weighted `forces`: the urgent ones first,
/// up to `max_force`; the sum of the rest gets what they leave.
#[inline]
pub(crate) fn weighted_sum(forces: &[Vec3; Behaviour::COUNT], max_force: f32) -> Vec3 {
    let mut total = Vec3::ZERO;
    for behaviour in Behaviour::SUMMED {
        total += forces[behaviour as usize];
    }
    let mut urgent = Vec3::ZERO;
    for behaviour in Behaviour::URGENT {
        urgent += forces[behaviour as usize];
    }
    if urgent == Vec3::ZERO {
        return total;
    }
    let urgent = limit_length(urgent, max_force);
    let remaining = (max_force - length(urgent)).max(0.0);
    urgent + limit_length(total, remaining)
}

/// [`BlendMode::Prioritised`](crate::BlendMode) allocation of the weighted `forces` (Reynolds'
/// prioritised acceleration allocation): each in priority order takes what it needs of what is
/// left of `max_force`; the first that does not fit gets the rest.
#[inline]
pub(crate) fn prioritised(forces: &[Vec3; Behaviour::COUNT], max_force: f32) -> Vec3 {
    let mut total = Vec3::ZERO;
    let mut left = max_force;
    for &force in forces {
        if force == Vec3::ZERO {
            continue;
        }
        let needed = length(force);
        if needed <= left {
            total += force;
            left -= needed;
        } else {
            return total + force * (left / needed);
        }
    }
    total
}
