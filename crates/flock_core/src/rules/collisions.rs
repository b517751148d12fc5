//! Collisions predicted between agents and the sidestep that avoids the soonest (Reynolds'
//! 1999 unaligned collision avoidance, with the time of closest approach solved exactly rather
//! than sampled).

use glam::Vec3;

use crate::Space;
use crate::agents::SlotAgent;
use crate::maths::{length, unit};
use crate::rules::prediction::Collision;

/// A predicted collision counts as head on when the other agent's offset leans off the
/// heading by less than this fraction of its length: the agent then turns right.
const SIDESTEP_ALIGNED: f32 = 0.05;

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
    away * agent.limits.max_force * urgency.clamp(0.0, 1.0)
}
