//! Collisions predicted between two agents that keep their velocities (Reynolds 1999), the
//! arithmetic the neighbour scan runs on every neighbour.

use glam::Vec3;

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
