//! The steering force that brings a velocity to a desired one (Reynolds 1999).

use glam::Vec3;

use crate::maths::limit_length;
use crate::tuning::SteeringLimits;

/// The force that steers velocity `v` toward `desired` (Reynolds 1999: steering = desired
/// velocity - velocity), as a change of velocity made within the response time, limited to
/// the max force.
#[inline]
pub(crate) fn respond(desired: Vec3, v: Vec3, limits: &SteeringLimits) -> Vec3 {
    limit_length((desired - v) / limits.response_time, limits.max_force)
}
