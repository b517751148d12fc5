//! Collisions predicted between agents and the sidestep that avoids the soonest (Reynolds'
//! 1999 unaligned collision avoidance, with the time of closest approach solved exactly rather
//! than sampled).

use glam::Vec3;

use crate::Space;
use crate::forces::SlotAgent;
use crate::maths::{length, unit};

/// A predicted collision counts as head on when the other agent's offset leans off the
/// heading by less than this fraction of its length: the agent then turns right.
const SIDESTEP_ALIGNED: f32 = 0.05;

/// How an agent predicts collisions with its neighbours: two agents collide when their centres
/// come within `distance`, and the agent looks `horizon` seconds ahead, each assuming the other
/// keeps its velocity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prediction {
    /// The agent's own velocity.
    pub(crate) velocity: Vec3,
    pub(crate) distance_sq: f32,
    pub(crate) horizon: f32,
}

/// The most imminent collision an agent predicted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Collision {
    /// Seconds until it.
    pub(crate) time: f32,
    /// Where the other agent will be then, relative to this one.
    pub(crate) offset: Vec3,
}

impl Prediction {
    /// The collision with a neighbour at `offset` moving at `velocity`, if the two are apart,
    /// closing, and come within the distance inside the horizon (two that already overlap are
    /// left to separation). The time solves `|offset + t * relative velocity| = distance` for
    /// its first root. The lane scan repeats this arithmetic on all its lanes at once.
    #[inline]
    pub(crate) fn collision(
        &self,
        offset: Vec3,
        dist_sq: f32,
        velocity: Vec3,
    ) -> Option<Collision> {
        let dv = velocity - self.velocity;
        let closing = -(offset.x * dv.x + offset.y * dv.y + offset.z * dv.z);
        let a = dv.x * dv.x + dv.y * dv.y + dv.z * dv.z;
        let disc = closing * closing - a * (dist_sq - self.distance_sq);
        if !(dist_sq > self.distance_sq && closing > 0.0 && disc >= 0.0) {
            return None;
        }
        let time = ((closing - disc.sqrt()) / a).max(0.0);
        (time < self.horizon).then(|| Collision {
            time,
            offset: offset + dv * time,
        })
    }
}

/// The force that turns `agent` away from a predicted `collision`: across its heading, away
/// from where the other agent will be, stronger the sooner the collision (the agent's max
/// force for one that is happening now). When the other will be straight ahead (a head-on
/// meeting), the agent turns right (on the plane, clockwise; in 3D, about the Y axis), so
/// that two agents meeting head on both keep right and pass.
#[inline]
pub(crate) fn sidestep(agent: &SlotAgent, collision: Collision, space: Space) -> Vec3 {
    let params = &agent.params.params;
    let heading = unit(space.flat(agent.velocity))
        .or_else(|| unit(space.flat(agent.heading)))
        .unwrap_or(Vec3::ZERO);
    let offset = space.flat(collision.offset);
    let across = heading * offset.dot(heading) - offset;
    let away = match unit(across) {
        Some(away) if length(across) > SIDESTEP_ALIGNED * length(offset) => away,
        _ if heading != Vec3::ZERO => space.right_of(heading),
        _ => unit(-offset).unwrap_or(Vec3::ZERO),
    };
    let urgency = 1.0 - collision.time / params.perception.collision_horizon;
    away * params.limits.max_force * urgency.clamp(0.0, 1.0)
}
