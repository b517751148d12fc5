//! What an agent steers by besides its neighbours: a leader to follow, threats to flee,
//! enemies to back off from.

use glam::Vec3;

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

/// An agent to follow (see [`FlockWeights::leader`](crate::FlockWeights::leader)), as one follower sees
/// it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leader {
    /// Where it is.
    pub position: Vec3,
    /// How it moves.
    pub velocity: Vec3,
    /// How far behind it the follower keeps station. Followers also keep out of the path
    /// ahead of it: a corridor half this wide either side, reaching this far plus one second
    /// of the leader's travel ahead.
    pub distance: f32,
}

impl Leader {
    /// Whether every value is finite and the distance not negative.
    pub fn is_valid(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.distance.is_finite()
            && self.distance >= 0.0
    }
}

/// Which way an agent backs off this tick, and how urgently (see
/// [`Crowd::set_standoff`](crate::Crowd::set_standoff)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Standoff {
    /// Unit direction away from the enemies.
    pub(crate) away: Vec3,
    /// The fraction of max speed to back off at, 0 to 1.
    pub(crate) urgency: f32,
}
