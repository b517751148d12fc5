//! Leader following (Reynolds 1999): keep station behind a leader, matching its velocity, and
//! out of the path ahead of it.

use glam::Vec3;

use super::response::respond;
use crate::Space;
use crate::agents::SlotAgent;
use crate::maths::{length, limit_length, unit};
use crate::roles::Leader;

/// How far ahead of a leader, in seconds of its travel beyond [`Leader::distance`], followers
/// keep out of its path.
const LEADER_PATH_SECONDS: f32 = 1.0;

/// The forces that make `agent` follow `leader`: one that steps it sideways out of the
/// corridor ahead of a moving leader (the stronger the nearer its middle), and one that
/// brings it to the station `leader.distance` behind, matching the leader's velocity and
/// slowing inside the arrival radius as it nears the station: desired velocity = leader
/// velocity + arrival toward the station, at most max speed.
#[inline]
pub(crate) fn follow(agent: &SlotAgent, leader: &Leader, space: Space) -> (Vec3, Vec3) {
    let limits = agent.limits;
    let (p, v) = (agent.position, agent.velocity);
    let offset = space.flat(p - leader.position);
    let (clear_path, behind) = match unit(leader.velocity) {
        Some(ahead) => {
            let along = offset.dot(ahead);
            let across = offset - ahead * along;
            let half_width = leader.distance * 0.5;
            let reach = leader.distance + length(leader.velocity) * LEADER_PATH_SECONDS;
            let in_path = along > 0.0 && along < reach && length(across) < half_width;
            let clear_path = if in_path {
                let aside = unit(across).unwrap_or_else(|| space.right_of(ahead));
                aside * limits.max_force * (1.0 - length(across) / half_width)
            } else {
                Vec3::ZERO
            };
            (clear_path, ahead * -leader.distance)
        }
        // A leader at rest: keep the distance, on whichever side the follower is.
        None => (
            Vec3::ZERO,
            unit(offset).unwrap_or(Vec3::ZERO) * leader.distance,
        ),
    };
    let to_station = space.flat(leader.position + behind - p);
    let distance = length(to_station);
    let approach = if distance < limits.arrival_radius {
        limits.max_speed * distance / limits.arrival_radius
    } else {
        limits.max_speed
    };
    let desired = limit_length(
        leader.velocity + unit(to_station).unwrap_or(Vec3::ZERO) * approach,
        limits.max_speed,
    );
    (clear_path, respond(desired, v, &limits))
}
