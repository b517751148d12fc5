//! [`Scan`]: what the neighbour scan saw of one agent's neighbourhood.

use glam::Vec3;

use crate::rules::prediction::Collision;

/// What one agent saw in its neighbourhood: the sums the flocking rules are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Scan {
    pub(crate) count: u32,
    pub(crate) nearest_sq: f32,
    /// Sum of each neighbour's push within the separation radius (see
    /// [`separation_divisor`](crate::rules::flocking::separation_divisor)).
    pub(crate) separation: Vec3,
    pub(crate) mates: u32,
    pub(crate) velocity_sum: Vec3,
    /// Sum of offsets to flock-mates; over `mates` it is `centroid - p`, seams included.
    pub(crate) offset_sum: Vec3,
    /// The soonest predicted collision with a neighbour, when the agent predicts them.
    pub(crate) collision: Option<Collision>,
}

impl Scan {
    /// Nothing seen yet.
    pub(crate) fn new() -> Self {
        Self {
            nearest_sq: f32::INFINITY,
            ..Self::default()
        }
    }
}
