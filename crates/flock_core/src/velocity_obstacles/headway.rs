//! The time gap a pedestrian keeps to the body ahead: walking no faster than it could cover
//! the free distance to that body in the gap, as the collision-free speed model has it
//! (Tordeux, Chraibi and Seyfried 2016, "Collision-free speed model for pedestrian
//! dynamics"). A crowd then slows with its density as people do, where velocity obstacles
//! alone let a crowd walking one way slide along at full speed, however packed.

use glam::Vec3;

use crate::maths::unit;

use super::encounters::Encounter;

/// A body is ahead when its centre lies within this share of the two bodies' summed radii of
/// the line the agent walks along: people in a queue stagger their shoulders past each other
/// (the zipper effect, Hoogendoorn and Daamen 2005), so one half beside the agent's own does not
/// hold it back. With the whole summed radii a door's flow fell by 10-30% (1.6 m wide: 1.31
/// against 1.44 people per metre per second); with half of them, a crowd of 3 per m² walked at
/// twice Weidmann's speed.
const STAGGERED: f32 = 0.7;

/// The free distance ahead of an agent that prefers `preferred` and keeps a `time_gap`
/// ([`Perception::time_gap`](crate::Perception::time_gap)), taken in one encounter at a time
/// (the ones the step builds anyway, with the bodies' true radii), then the preferred velocity
/// cut to it.
pub(super) struct Headway {
    /// The unit direction preferred, where a gap is kept and there is one.
    ahead: Option<Vec3>,
    time_gap: f32,
    /// The least free distance so far.
    free: f32,
}

impl Headway {
    /// Nothing ahead yet; without a time gap (or a preferred direction), nothing ever is.
    #[inline]
    pub(super) fn new(preferred: Vec3, time_gap: f32) -> Self {
        Self {
            ahead: unit(preferred).filter(|_| time_gap > 0.0),
            time_gap,
            free: f32::INFINITY,
        }
    }

    /// Takes in the neighbour of `encounter`: the distance the agent could walk along its
    /// preferred direction before its body touched the neighbour's, where the neighbour is
    /// ahead ([`STAGGERED`]) and not walking toward the agent (one coming the other way is
    /// passed by the velocity obstacles, not followed).
    #[inline]
    pub(super) fn see(&mut self, encounter: &Encounter<Vec3>) {
        let Some(ahead) = self.ahead else {
            return;
        };
        let along = encounter.offset.dot(ahead);
        if along <= 0.0 || encounter.velocity.dot(ahead) < 0.0 {
            return;
        }
        let touching = encounter.radius;
        let across_sq = encounter.offset.length_squared() - along * along;
        let lane = STAGGERED * touching;
        if across_sq < lane * lane {
            let free = along - (touching * touching - across_sq).max(0.0).sqrt();
            self.free = self.free.min(free);
        }
    }

    /// `preferred` with its speed cut to the free distance ahead over the time gap; unchanged
    /// without a time gap or a body ahead.
    #[inline]
    pub(super) fn kept(&self, preferred: Vec3) -> Vec3 {
        let Some(ahead) = self.ahead else {
            return preferred;
        };
        let speed = self.free.max(0.0) / self.time_gap;
        if speed * speed < preferred.length_squared() {
            ahead * speed
        } else {
            preferred
        }
    }
}
