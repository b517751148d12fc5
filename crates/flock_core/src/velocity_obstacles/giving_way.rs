//! Agents resting at their targets stepping aside for a neighbour whose way runs through
//! them, as people standing in a crowd make room for one who wants to pass, and as the sliding
//! of parked units lets an RTS squad through. Without it, a crowd whose goals lie inside it
//! jams at the end: the last to arrive are wedged between those already home, which stand
//! closer than a body's breadth apart and hold their places.

use glam::Vec3;

use crate::agents::Gathered;
use crate::maths::{length, limit_length, unit};
use crate::tuning::Prepared;

use super::context::{Near, VelocityInputs};

/// An agent within its arrival radius (or reach radius, if larger) of its target, whose
/// preferred speed and speed are both under this share of its max speed, rests there.
/// Counting every agent that prefers to stand and stands, wherever it is, got the dense crowd
/// below home sooner, all in 102-145 s; but then one of RiMEA 12's people took 18 s to walk
/// its corridor at 64 ticks a second, against 11 s, and before the exception for a shared
/// target (see [`IN_THE_WAY`]), the validation crate's 1.2 m door passed 1.34 people per metre
/// per second instead of 1.54.
const RESTING: f32 = 0.15;
/// A resting agent is in a moving neighbour's way where it lies ahead of it along the
/// neighbour's preferred direction, at most this many of their summed radii ahead, and less
/// than the summed radii to either side of that line; unless the neighbour's target is within
/// the summed radii of the agent's own (people converging on one point, as on RiMEA 12's exit,
/// where stepping aside for each other let one stand 20 s in the corridor at 64 ticks a
/// second).
const IN_THE_WAY: f32 = 3.0;
/// A resting agent in a neighbour's way steps aside, away from the neighbour's line, at this
/// share of the neighbour's preferred speed; once it has passed, the agent's own seek takes it
/// back. Measured on the crowd table's dense crowd (400 people on a lattice 1 m apart, each
/// sent to another's place, bodies 0.7 m across, 64 ticks a second, six assignments of
/// places): without giving way, 331 of the table's assignment home after its 120 s, and all
/// home in three of the six, in 207-230 s, with 395-399 after 240 s in the others; with 0.85
/// and 3 summed radii ahead, 398 home after 120 s, all home in five of the six, in 116-158 s,
/// and 396 in the sixth. Stepping aside at the mover's whole speed, or looking 4 summed radii
/// ahead, spread the times further (79-212 s, 105-185 s).
const GIVING_WAY: f32 = 0.85;

impl VelocityInputs<'_> {
    /// `preferred`, the velocity `agent` (tuned as `prepared`, with `max_speed`) prefers,
    /// with a step aside for each of its `near` neighbours whose way runs through it, where it
    /// rests at its target ([`RESTING`], [`IN_THE_WAY`], [`GIVING_WAY`]), at most `max_speed`;
    /// unchanged where it does not.
    #[inline]
    pub(super) fn given_way(
        &self,
        agent: &Gathered,
        prepared: &Prepared,
        (preferred, max_speed): (Vec3, f32),
        near: &[Near],
    ) -> Vec3 {
        let limits = &prepared.params.limits;
        let at_target = agent.target.is_some_and(|target| {
            target.distance(agent.body.position) <= limits.arrival_radius.max(limits.reach_radius)
        });
        let still = |v: Vec3| length(v) < RESTING * max_speed;
        if !at_target || !still(preferred) || !still(agent.body.velocity) {
            return preferred;
        }
        let own = &prepared.params.perception;
        let mut stepped = preferred;
        for near in near {
            let theirs = self.preferred[self.index.grid.order()[near.slot] as usize];
            let Some(way) = unit(theirs) else {
                continue;
            };
            let their_speed = length(theirs);
            if their_speed < RESTING * self.max_speed_in(near.slot) {
                continue;
            }
            let their_params = &self.params[self.index.lanes.params(near.slot) as usize];
            let touching =
                0.5 * (own.collision_distance + their_params.params.perception.collision_distance);
            let from_them = -near.offset;
            let ahead = from_them.dot(way);
            let aside = from_them - way * ahead;
            if ahead <= 0.0
                || ahead > IN_THE_WAY * touching
                || aside.length_squared() >= touching * touching
            {
                continue;
            }
            // One heading for the agent's own place needs it, not room beside it.
            let their_target = self.index.gathered[near.slot].target;
            let same_place = their_target.zip(agent.target);
            if same_place.is_some_and(|(theirs, own)| theirs.distance(own) <= touching) {
                continue;
            }
            let side = unit(aside).unwrap_or_else(|| self.space.right_of(way));
            stepped += side * (GIVING_WAY * their_speed);
        }
        // Within its own max speed: a neighbour may be faster, and several may pass at once.
        limit_length(stepped, max_speed)
    }
}
