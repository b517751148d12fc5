//! The time gap a pedestrian keeps to the body ahead: walking no faster than it could cover
//! the free distance to that body in the gap, as the collision-free speed model has it
//! (Tordeux, Chraibi and Seyfried 2016, "Collision-free speed model for pedestrian
//! dynamics"). A crowd then slows with its density as people do, where velocity obstacles
//! alone let a crowd walking one way slide along at full speed, however packed.

use glam::Vec3;

use crate::maths::unit;
use crate::tuning::Perception;

use super::context::{Near, VelocityInputs};

/// A body is ahead when its centre lies within this share of the two bodies' summed radii of
/// the line the agent walks along: people in a queue stagger their shoulders past each other
/// (the zipper effect, Hoogendoorn and Daamen 2005), so one half beside the agent's own does not
/// hold it back. With the whole summed radii a door's flow fell by 10-30% (1.6 m wide: 1.31
/// against 1.44 people per metre per second); with half of them, a crowd of 3 per m² walked at
/// twice Weidmann's speed.
const STAGGERED: f32 = 0.7;

impl VelocityInputs<'_> {
    /// `preferred` with its speed cut to the free distance ahead over
    /// [`Perception::time_gap`], for an agent perceiving as `own` among its `near`
    /// neighbours: the distance it could walk along `preferred` before its body touched a
    /// neighbour's ahead ([`STAGGERED`]) that is not walking toward it (one coming the other
    /// way is passed by the velocity obstacles, not followed). Unchanged without a time gap or
    /// a body ahead.
    #[inline]
    pub(super) fn keeping_time_gap(
        &self,
        preferred: Vec3,
        own: &Perception,
        near: &[Near],
    ) -> Vec3 {
        let Some(ahead) = unit(preferred).filter(|_| own.time_gap > 0.0) else {
            return preferred;
        };
        let mut free = f32::INFINITY;
        for near in near {
            let along = near.offset.dot(ahead);
            if along <= 0.0 || self.index.lanes.velocity(near.slot).dot(ahead) < 0.0 {
                continue;
            }
            let theirs = &self.params[self.index.lanes.params(near.slot) as usize];
            let touching =
                0.5 * (own.collision_distance + theirs.params.perception.collision_distance);
            let across_sq = near.offset.length_squared() - along * along;
            let lane = STAGGERED * touching;
            if across_sq < lane * lane {
                free = free.min(along - (touching * touching - across_sq).sqrt());
            }
        }
        let speed = free.max(0.0) / own.time_gap;
        if speed * speed < preferred.length_squared() {
            ahead * speed
        } else {
            preferred
        }
    }
}
