//! How two agents share a manoeuvre: by priority, by a fixed ranking between equals, and
//! the margin a reciprocal program keeps.

use glam::Vec3;

use crate::tuning::Perception;

use super::encounters::Encounter;

/// How much further apart than their summed radii the program keeps two bodies, as a share of
/// those radii: room for what an infeasible program or a neighbour that does not reciprocate
/// gives away. (The contact bounds of `Solid` agents keep to the bodies themselves.)
pub(super) const MARGIN: f32 = 0.05;
/// How many times its share of a manoeuvre an agent takes in the program (at most all of it),
/// in case its neighbour does not take its own.
pub(super) const SHARE_TAKEN: f32 = 2.0;

/// How far from a half the shares of two agents that both avoid are moved (see
/// [`yielding_share`]).
pub(super) const YIELD: f32 = 0.3;

/// The encounter `e` as the linear program takes it: bodies [`MARGIN`] larger, and
/// [`SHARE_TAKEN`] times the agent's share of the manoeuvre, at most all of it.
#[inline]
pub(crate) fn as_programmed(e: &Encounter<Vec3>) -> Encounter<Vec3> {
    Encounter {
        radius: e.radius * (1.0 + MARGIN),
        share: (e.share * SHARE_TAKEN).min(1.0),
        ..*e
    }
}

/// Whether an agent perceiving as `own` avoids one perceiving as `theirs`: its avoidance mask
/// has one of the other's avoidance layers.
#[inline]
pub(crate) fn avoids(own: &Perception, theirs: &Perception) -> bool {
    own.avoidance_mask & theirs.avoidance_layers != 0
}

/// The share of a manoeuvre agent `i` of priority `p_i` takes when it meets agent `j` of
/// priority `p_j` and each avoids the other, given as `(i, p_i)` and `(j, p_j)`: `p_j / (p_i +
/// p_j)`, so the agent of lower priority takes the larger share, or between equal priorities
/// [`yielding_share`]. The two shares add up to one (to rounding), so together the two just
/// clear each other.
#[inline]
pub(crate) fn manoeuvre_share((i, p_i): (u32, f32), (j, p_j): (u32, f32)) -> f32 {
    if p_i == p_j {
        yielding_share(i, j)
    } else {
        p_j / (p_i + p_j)
    }
}

/// The share of a manoeuvre agent `i` takes when it meets agent `j`, both of the same priority:
/// a half each, moved by [`YIELD`] toward the one that ranks lower by a fixed hash of their
/// indices.
/// The two shares still add up to one, so together the two just clear each other, but in a
/// symmetric jam (agents pressing into a ring of others round a circle) some yield and the rest
/// go through, where equal shares would leave them standing.
#[inline]
pub(crate) fn yielding_share(i: u32, j: u32) -> f32 {
    let rank = |k: u32| {
        let mut h = k.wrapping_mul(0x9E37_79B1);
        h ^= h >> 15;
        h.wrapping_mul(0x2C1B_3C6D)
    };
    // Which ranks lower is as good as random: a sign rather than a branch.
    let (own, theirs) = ((rank(i), i), (rank(j), j));
    let sign = i8::from(own < theirs) - i8::from(own > theirs);
    0.5 + YIELD * f32::from(sign)
}
