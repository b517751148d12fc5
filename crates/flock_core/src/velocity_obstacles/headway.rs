//! The time gap a pedestrian keeps to the body ahead: walking no faster than it could cover
//! the free distance to that body in the gap, as the collision-free speed model has it
//! (Tordeux, Chraibi and Seyfried 2016, "Collision-free speed model for pedestrian
//! dynamics"). A crowd then slows with its density as people do, where velocity obstacles
//! alone let a crowd walking one way slide along at full speed, however packed. A body ahead
//! that walks away faster than the agent is followed as people follow (Lemercier et al. 2012,
//! "Realistic following behaviors for crowd simulation"): the agent sets off as it sees the gap
//! open, not once it has; one crossing the agent's way holds it back only if it will still be
//! in the way a moment on; in a crowd heading many ways, only a body straight before it does.
//! A pedestrian held back by one who walks slower by nature steps into a free lane beside and
//! overtakes.

use glam::Vec3;

use crate::maths::{length, unit};
use crate::space::Space;

use super::encounters::Encounter;

/// A body is ahead when its centre lies within this share of the two bodies' summed radii of
/// the line the agent walks along: people in a queue stagger their shoulders past each other
/// (the zipper effect, Hoogendoorn and Daamen 2005), so one half beside the agent's own does not
/// hold it back. With the whole summed radii a door's flow fell by 10-30% (1.6 m wide: 1.31
/// against 1.44 people per metre per second); with half of them, a crowd of 3 per m² walked at
/// twice Weidmann's speed.
const STAGGERED: f32 = 0.7;
/// Beyond that, a body walking the agent's way (within [`SAME_WAY`]) holds it back in a lane
/// that widens by this much per metre ahead: people keep their distance to those they follow
/// a little to the side as well. Without it, a crowd started in no order sorted itself into
/// staggered files and walked at 1.31-1.34 m/s at 1 per m² (Weidmann 1.06) and 0.74-0.85 at
/// 2 (0.61), over three starts; only a crowd started on a lattice kept its rows and slowed.
/// With 0.4 it walked at 1.20 and 0.52 (the mean of the three); from the validation crate's
/// starts, at 1.27 and 0.57, where a crowd of spread speeds walks at 1.01 and 0.64 (wider
/// lanes did not slow the one-speed crowd at 1 per m²). Bodies crossing the agent's way count
/// only in the zipper's lane, so that a crowd converging on a door is not held back by its
/// own flanks.
const WIDENING: f32 = 0.4;
/// A body walks the agent's way when its velocity's direction is within about 18 degrees of
/// the agent's (this cosine).
const SAME_WAY: f32 = 0.95;
/// A body ahead that walks away from the agent faster than the agent walks counts as this many
/// seconds further off per metre a second of difference: the gap it opens within that time.
/// Where a crowd waits at a door, each follower then sets off as the one ahead does, not once
/// the distance has grown, and the speed each keeps inside the door rises. Measured on the
/// bottleneck of the validation crate (20 ticks a second, the mean over the scene turned 0, 1
/// and 45 degrees), the specific flow at 1.2/1.6/2.0/2.5 m rose from 1.15/1.42/1.38/1.16 to
/// 1.43/1.63/1.61/1.67 people per metre per second, and the spread over the turns at 0.9 m
/// from 43% to 26%. In a steady crowd the bodies ahead walk at about the agent's own speed, so
/// the fundamental diagram moved little: 0.64 to 0.71 m/s at 2 per m² and 0.35 to 0.42 at 3
/// (Weidmann 0.61 and 0.33). With half a second the doors passed 1.36-1.60; with one and a
/// half, the crowd at 2 per m² walked 0.14 m/s over Weidmann's speed.
const ANTICIPATION: f32 = 1.0;
/// A body crossing the agent's way (not walking within [`SAME_WAY`] of it) holds the agent
/// back where its centre will be this many seconds on, walking as it walks: one that will have
/// left the lane by then lets the agent walk on, and the velocity obstacles keep the two apart.
/// Without it, two streams crossing at right angles (the validation crate's, 100 people each at
/// about one per m²) locked into diagonal bands, each waiting for the one crossing in front of
/// it, who waited for the next: everyone was across in 33.6 s with up to 17 standing at 20
/// ticks a second (30.6 s, 4, at 64), where the same crowd without a time gap took 19.1 s.
/// With half a second, 22.5 s and none standing (28.2 s, 4). Bodies walking the agent's way
/// are taken where they are: predicted too, their sideways sway let one person of a queue
/// through RiMEA 12's corridor stall for 15 s, and a crowd of one speed at 5 per m² walk too
/// fast. A quarter of a second freed the crossing less (31.9 s, 12 standing).
const LEAVING: f32 = 0.5;
/// Where more than this share of an agent's neighbours with a target head more than about 18
/// degrees off its way (their targets' directions, within [`SAME_WAY`]), the crowd about it is
/// mixed (crossing, converging on a door, coming the other way), and the agent keeps its gap
/// only to bodies in the [`MIXED_LANE`] before it: the widened lane of a stream finds a body
/// ahead everywhere in such a crowd, and a crossing locked in a standing band. Agents without
/// targets (following a flow, as in the fundamental diagram) give no vote, so a stream keeps
/// its lane however packed: read from velocities, the slow, noisy steps of a crowd at 4-5 per
/// m² counted as mixed and it walked 0.15-0.20 m/s over Weidmann's speed.
const MIXED: f32 = 0.3;
/// The lane, as a share of the two bodies' summed radii, in which a body holds back an agent
/// in a mixed crowd ([`MIXED`]). Measured at 20 ticks a second against the stream's lane
/// everywhere: a copy of the `crowd_plaza` example's pedestrian mode, 341 people across in a
/// minute against 202 (389 with no time gap); the bottleneck's mean specific flow at 1.2 m
/// 1.51 against 1.24, 1.6-2.5 m unchanged or higher; the two-way corridor out in 81 s against
/// 190.
const MIXED_LANE: f32 = 0.3;
/// An agent held back by a body that walks slower by nature (a lower max speed: see
/// [`Crowd::set_speed_factor`](crate::Crowd::set_speed_factor)) aims aside, into the freer of
/// the lanes a body's breadth to either side, at this share of the difference in speed: it
/// overtakes where there is room, as faster pedestrians do, and the velocity obstacles keep the
/// move clear. Bodies slowed only by the crowd are followed, not passed.
const PASSING: f32 = 0.5;
/// A lane beside has room to overtake in when it is free for this many time gaps at the speed
/// the agent wants. With one, a crowd of spread speeds at 2 per m² kept changing lanes and
/// walked at 0.77 m/s (Weidmann 0.61); with three, at 0.62.
const ROOM: f32 = 3.0;

/// The lanes a headway measures: the agent's own, and the ones a body's breadth to its left
/// and to its right.
const LANES: [f32; 3] = [0.0, -1.0, 1.0];

/// The free distance ahead of an agent that prefers `preferred` and keeps a `time_gap`
/// ([`Perception::time_gap`](crate::Perception::time_gap)), in its own lane and in the lanes
/// beside, taken in one encounter at a time (the ones the step builds anyway, with the bodies'
/// true radii), then the preferred velocity cut to it.
pub(super) struct Headway {
    /// The unit direction preferred, where a gap is kept and there is one.
    ahead: Option<Vec3>,
    /// Unit, across `ahead`, toward the right (zero unless overtaking).
    right: Vec3,
    time_gap: f32,
    /// The least free distance so far in each of the [`LANES`].
    free: [f32; 3],
    /// Whether the lanes beside are measured too.
    overtaking: bool,
    /// The agent's position, and its own speed along `ahead`.
    position: Vec3,
    walking: f32,
    /// The grid slot of the body that holds the agent's own lane back.
    leader: usize,
    /// The least free distance so far in the [`MIXED_LANE`], and the slot of that body.
    mixed_free: f32,
    mixed_leader: usize,
    /// Neighbours seen with a target, and those of them heading elsewhere.
    headed: u32,
    elsewhere: u32,
}

impl Headway {
    /// Nothing ahead yet of an agent at `position` moving at `velocity`; without a time gap (or
    /// a preferred direction), nothing ever is. The lanes beside are measured only where the crowd's speeds
    /// differ (`overtaking`); else they count as full, so that no one aims into them.
    #[inline]
    pub(super) fn new(
        preferred: Vec3,
        (position, velocity): (Vec3, Vec3),
        time_gap: f32,
        space: Space,
        overtaking: bool,
    ) -> Self {
        let ahead = unit(preferred).filter(|_| time_gap > 0.0);
        let beside = if overtaking { f32::INFINITY } else { 0.0 };
        let right = ahead
            .filter(|_| overtaking)
            .and_then(|a| unit(space.right_of(a)));
        Self {
            ahead,
            right: right.unwrap_or(Vec3::ZERO),
            time_gap,
            free: [f32::INFINITY, beside, beside],
            overtaking,
            position,
            walking: ahead.map_or(0.0, |a| a.dot(velocity)),
            leader: 0,
            mixed_free: f32::INFINITY,
            mixed_leader: 0,
            headed: 0,
            elsewhere: 0,
        }
    }

    /// Takes in the neighbour of `encounter`, in grid `slot`, with its target (if it has one,
    /// looked up by `their_target` only where a gap is kept): in each lane, the distance the agent could walk along
    /// its preferred direction before its body touched the neighbour's, where the neighbour is
    /// ahead in that lane ([`STAGGERED`], [`WIDENING`]; one crossing the way, a moment on:
    /// [`LEAVING`]; in a mixed crowd, [`MIXED_LANE`]) and not walking toward the agent (one
    /// coming the other way is passed by the velocity obstacles, not followed); in its own lane,
    /// with the gap a neighbour walking away opens ([`ANTICIPATION`]).
    #[inline]
    pub(super) fn see(
        &mut self,
        encounter: &Encounter<Vec3>,
        slot: usize,
        their_target: impl FnOnce() -> Option<Vec3>,
    ) {
        let Some(ahead) = self.ahead else {
            return;
        };
        if let Some(target) = their_target() {
            let heading = (target - self.position) - encounter.offset;
            let along = heading.dot(ahead);
            let same_way =
                along > 0.0 && along * along > SAME_WAY * SAME_WAY * heading.length_squared();
            self.headed += 1;
            self.elsewhere += u32::from(!same_way);
        }
        let along = encounter.offset.dot(ahead);
        if along <= 0.0 || encounter.velocity.dot(ahead) < 0.0 {
            return;
        }
        let touching = encounter.radius;
        let their_along = encounter.velocity.dot(ahead);
        let same_way = their_along > 0.0
            && their_along * their_along
                > SAME_WAY * SAME_WAY * encounter.velocity.length_squared();
        let own_lane = STAGGERED * touching + if same_way { WIDENING * along } else { 0.0 };
        let across_sq = encounter.offset.length_squared() - along * along;
        // Where the body will be across the way, for one crossing it.
        let mut leaving = encounter.offset - ahead * along;
        if !same_way {
            leaving += (encounter.velocity - ahead * their_along) * LEAVING;
        }
        let lane_sq = leaving.length_squared();
        if lane_sq < own_lane * own_lane {
            let opening = ANTICIPATION * (their_along - self.walking).max(0.0);
            let blocked = along - (touching * touching - across_sq).max(0.0).sqrt() + opening;
            if blocked < self.free[0] {
                self.free[0] = blocked;
                self.leader = slot;
            }
            let mixed_lane = MIXED_LANE * touching;
            if lane_sq < mixed_lane * mixed_lane && blocked < self.mixed_free {
                self.mixed_free = blocked;
                self.mixed_leader = slot;
            }
        }
        if self.overtaking {
            self.see_beside(encounter.offset - ahead * along, along, touching);
        }
    }

    /// Takes in a neighbour `along` ahead and `perpendicular` to the way, its body and the
    /// agent's `touching` at that distance, in the lanes beside (where the whole body must fit).
    #[inline]
    fn see_beside(&mut self, perpendicular: Vec3, along: f32, touching: f32) {
        // Across the way: toward the right, and the rest (up or down, in a volume).
        let right = perpendicular.dot(self.right);
        let rest_sq = (perpendicular - self.right * right).length_squared();
        for (free, shift) in self.free.iter_mut().zip(LANES).skip(1) {
            let across = right - shift * touching;
            let across_sq = across * across + rest_sq;
            if across_sq < touching * touching {
                let blocked = along - (touching * touching - across_sq).max(0.0).sqrt();
                *free = free.min(blocked);
            }
        }
    }

    /// `preferred` with its speed cut to the free distance ahead over the time gap; unchanged
    /// without a time gap or a body ahead. An agent that could walk at `max_speed` behind a
    /// body that can walk no faster than `leader_max_speed(slot)` (given its grid slot) aims
    /// aside as well, to pass it, where a lane beside has [`ROOM`] ([`PASSING`]).
    #[inline]
    pub(super) fn kept(
        &self,
        preferred: Vec3,
        max_speed: f32,
        leader_max_speed: impl FnOnce(usize) -> f32,
    ) -> Vec3 {
        let Some(ahead) = self.ahead else {
            return preferred;
        };
        let (mut free, mut leader) = (self.free, self.leader);
        if self.elsewhere as f32 > MIXED * self.headed as f32 {
            (free[0], leader) = (self.mixed_free, self.mixed_leader);
        }
        let [own, left, right] = free.map(|free| free.max(0.0) / self.time_gap);
        let wanted = length(preferred);
        if own >= wanted {
            return preferred;
        }
        let kept = ahead * own;
        let (side, beside) = if right > left {
            (self.right, right)
        } else {
            (-self.right, left)
        };
        if beside < ROOM * wanted {
            return kept;
        }
        let faster = (max_speed - leader_max_speed(leader)).min(wanted - own);
        if faster <= 0.0 {
            return kept;
        }
        kept + side * (PASSING * faster)
    }
}
