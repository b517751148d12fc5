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

use crate::SimdPath;
use crate::maths::{length, unit};
use crate::neighbours::nearest::MOST_AGENTS_AVOIDED;
#[cfg(target_arch = "x86_64")]
use crate::simd::Avx;
use crate::simd::{Pair, WIDTH, Wide};
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

/// The most encounters a headway takes: an agent's, in whole groups of lanes.
const SEEN: usize = MOST_AGENTS_AVOIDED.next_multiple_of(WIDTH);

/// The free distance ahead of an agent that prefers `preferred` and keeps a `time_gap`
/// ([`Perception::time_gap`](crate::Perception::time_gap)), in its own lane and in the lanes
/// beside, measured over the encounters the step builds anyway (with the bodies' true radii),
/// eight at a time on the crowd's lanes; then the preferred velocity cut to it.
pub(super) struct Headway<'a> {
    /// The unit direction preferred, where a gap is kept and there is one.
    ahead: Option<Vec3>,
    /// Unit, across `ahead`, toward the right (zero unless overtaking).
    right: Vec3,
    time_gap: f32,
    /// Whether the lanes beside are measured too.
    overtaking: bool,
    /// The agent's position, and its own speed along `ahead`.
    position: Vec3,
    walking: f32,
    /// Neighbours seen with a target, and those of them heading elsewhere.
    headed: u32,
    elsewhere: u32,
    /// The encounters seen, where a gap is kept (untouched elsewhere, as most agents keep
    /// none).
    seen: Option<&'a mut Seen>,
}

/// An agent's encounters, a column per coordinate: kept in the step's scratch space and
/// reused from agent to agent, since only the first `len` are ever read (lanes past them in
/// the last group of a measure are masked off), rather than made, zeroed and moved with the
/// headway for every agent in every mode.
pub(super) struct Seen {
    len: usize,
    offsets: [[f32; SEEN]; 3],
    velocities: [[f32; SEEN]; 3],
    radii: [f32; SEEN],
}

impl Default for Seen {
    fn default() -> Self {
        Self {
            len: 0,
            offsets: [[0.0; SEEN]; 3],
            velocities: [[0.0; SEEN]; 3],
            radii: [0.0; SEEN],
        }
    }
}

/// What a headway measured of its encounters.
struct Measured {
    /// The least free distance in each of the [`LANES`].
    free: [f32; 3],
    /// The encounter (in the order seen) that holds the agent's own lane back.
    leader: usize,
    /// The least free distance in the [`MIXED_LANE`], and the encounter of that body.
    mixed_free: f32,
    mixed_leader: usize,
}

impl<'a> Headway<'a> {
    /// Nothing ahead yet of an agent at `position` moving at `velocity`, its encounters to be
    /// kept in `seen`; without a time gap (or a preferred direction), nothing ever is. The
    /// lanes beside are measured only where the crowd's speeds differ (`overtaking`); else they
    /// count as full, so that no one aims into them.
    #[inline]
    pub(super) fn new(
        preferred: Vec3,
        (position, velocity): (Vec3, Vec3),
        (time_gap, overtaking): (f32, bool),
        space: Space,
        seen: &'a mut Seen,
    ) -> Self {
        let ahead = unit(preferred).filter(|_| time_gap > 0.0);
        let right = ahead
            .filter(|_| overtaking)
            .and_then(|a| unit(space.right_of(a)));
        Self {
            ahead,
            right: right.unwrap_or(Vec3::ZERO),
            time_gap,
            overtaking,
            position,
            walking: ahead.map_or(0.0, |a| a.dot(velocity)),
            headed: 0,
            elsewhere: 0,
            seen: ahead.map(|_| {
                seen.len = 0;
                seen
            }),
        }
    }

    /// Takes in the neighbour of `encounter`, with its target (if it has one, looked up by
    /// `their_target` only where a gap is kept), which counts toward whether the crowd about
    /// the agent is mixed ([`MIXED`]). The agent sees at most [`MOST_AGENTS_AVOIDED`].
    #[inline]
    pub(super) fn see(
        &mut self,
        encounter: &Encounter<Vec3>,
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
        let Some(seen) = self.seen.as_deref_mut() else {
            return;
        };
        let k = seen.len;
        if k == SEEN {
            return;
        }
        for axis in 0..3 {
            seen.offsets[axis][k] = encounter.offset[axis];
            seen.velocities[axis][k] = encounter.velocity[axis];
        }
        seen.radii[k] = encounter.radius;
        seen.len = k + 1;
    }

    /// `preferred` with its speed cut to the free distance ahead over the time gap; unchanged
    /// without a time gap or a body ahead. An agent that could walk at `max_speed` behind a
    /// body that can walk no faster than `leader_max_speed(k)` (given the order in which it
    /// was seen) aims aside as well, to pass it, where a lane beside has [`ROOM`]
    /// ([`PASSING`]). Measured on the lanes of `simd`, which give the same bits.
    #[inline]
    pub(super) fn kept(
        &self,
        simd: SimdPath,
        preferred: Vec3,
        max_speed: f32,
        leader_max_speed: impl FnOnce(usize) -> f32,
    ) -> Vec3 {
        let (Some(ahead), Some(seen)) = (self.ahead, self.seen.as_deref()) else {
            return preferred;
        };
        let measured = match simd {
            SimdPath::Portable => self.measure::<Pair>(ahead, seen),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => Avx::enter(
                #[inline(always)]
                || self.measure::<Avx>(ahead, seen),
            ),
        };
        let (mut free, mut leader) = (measured.free, measured.leader);
        if self.elsewhere as f32 > MIXED * self.headed as f32 {
            (free[0], leader) = (measured.mixed_free, measured.mixed_leader);
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

    /// The free distances the encounters `seen` leave along `ahead`, eight encounters at a time
    /// on lanes of form `V` (call it inside [`Wide::enter`]). In each lane, the distance the
    /// agent could walk along its preferred direction before its body touched a neighbour's,
    /// where the neighbour is ahead in that lane ([`STAGGERED`], [`WIDENING`]; one crossing the
    /// way, a moment on: [`LEAVING`]; in a mixed crowd, [`MIXED_LANE`]) and not walking toward
    /// the agent (one coming the other way is passed by the velocity obstacles, not followed);
    /// in its own lane, with the gap a neighbour walking away opens ([`ANTICIPATION`]).
    #[inline(always)]
    fn measure<V: Wide>(&self, ahead: Vec3, seen: &Seen) -> Measured {
        let beside = if self.overtaking { f32::INFINITY } else { 0.0 };
        let mut measured = Measured {
            free: [f32::INFINITY, beside, beside],
            leader: 0,
            mixed_free: f32::INFINITY,
            mixed_leader: 0,
        };
        let splat3 = |v: Vec3| [V::splat(v.x), V::splat(v.y), V::splat(v.z)];
        let (a, right) = (splat3(ahead), splat3(self.right));
        let (zero, far) = (V::splat(0.0), V::splat(f32::INFINITY));
        for at in (0..seen.len).step_by(WIDTH) {
            let live = (seen.len - at).min(WIDTH);
            let load3 =
                |c: &[[f32; SEEN]; 3]| [V::load(&c[0], at), V::load(&c[1], at), V::load(&c[2], at)];
            let (offset, velocity) = (load3(&seen.offsets), load3(&seen.velocities));
            let touching = V::load(&seen.radii, at);
            let along = dot(offset, a);
            let their_along = dot(velocity, a);
            let ahead_of_agent = along.cmpgt(zero) & their_along.cmpge(zero);
            let same_way = their_along.cmpgt(zero)
                & (their_along * their_along)
                    .cmpgt(V::splat(SAME_WAY * SAME_WAY) * dot(velocity, velocity));
            let own_lane = V::splat(STAGGERED) * touching
                + V::select(same_way, V::splat(WIDENING) * along, zero);
            let across_sq = dot(offset, offset) - along * along;
            let perpendicular: [V; 3] = core::array::from_fn(|i| offset[i] - a[i] * along);
            // Where the body will be across the way, for one crossing it.
            let leaving: [V; 3] = core::array::from_fn(|i| {
                let moved = (velocity[i] - a[i] * their_along) * V::splat(LEAVING);
                perpendicular[i] + V::select(same_way, zero, moved)
            });
            let lane_sq = dot(leaving, leaving);
            let in_lane = ahead_of_agent & lane_sq.cmplt(own_lane * own_lane);
            let opening = V::splat(ANTICIPATION) * (their_along - V::splat(self.walking)).max(zero);
            let blocked = along - (touching * touching - across_sq).max(zero).sqrt() + opening;
            let mixed_lane = V::splat(MIXED_LANE) * touching;
            let in_mixed = in_lane & lane_sq.cmplt(mixed_lane * mixed_lane);
            let live_bits = (1 << live) - 1;
            let in_lane = V::bitmask(in_lane) & live_bits;
            if in_lane != 0 {
                let blocked = blocked.to_array();
                for k in set_bits(in_lane) {
                    if blocked[k] < measured.free[0] {
                        (measured.free[0], measured.leader) = (blocked[k], at + k);
                    }
                }
                for k in set_bits(V::bitmask(in_mixed) & live_bits) {
                    if blocked[k] < measured.mixed_free {
                        (measured.mixed_free, measured.mixed_leader) = (blocked[k], at + k);
                    }
                }
            }
            if !self.overtaking {
                continue;
            }
            // Beside: across the way, toward the right, and the rest (up or down, in a
            // volume); the whole body must fit.
            let rightward = dot(perpendicular, right);
            let rest: [V; 3] = core::array::from_fn(|i| perpendicular[i] - right[i] * rightward);
            let rest_sq = dot(rest, rest);
            for (free, shift) in measured.free.iter_mut().zip(LANES).skip(1) {
                let across = rightward - V::splat(shift) * touching;
                let across_sq = across * across + rest_sq;
                let near = ahead_of_agent & across_sq.cmplt(touching * touching);
                let blocked = along - (touching * touching - across_sq).max(zero).sqrt();
                let blocked = V::select(near, blocked, far).to_array();
                *free = blocked[..live].iter().fold(*free, |free, &b| free.min(b));
            }
        }
        measured
    }
}

/// The lanes `bits` selects (bit `k` for lane `k`), lowest first.
#[inline(always)]
fn set_bits(mut bits: u32) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        let k = bits.trailing_zeros() as usize;
        bits &= bits.wrapping_sub(1);
        (k < WIDTH).then_some(k)
    })
}

/// `a . b` on lanes, in glam's order of sums.
#[inline(always)]
fn dot<V: Wide>(a: [V; 3], b: [V; 3]) -> V {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
