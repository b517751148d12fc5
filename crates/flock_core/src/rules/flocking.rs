//! Reynolds' (1987) three flocking rules: separation, alignment and cohesion.
//!
//! The neighbour scan sums, over an agent's neighbours in view (see
//! [`Scan`](crate::neighbours::Scan)): each neighbour's push within the separation radius,
//! `(p - p_j) / separation_divisor(d_j^2)`, and over its flock-mates their velocities and their
//! offsets `p_j - p`. [`forces`] turns the sums into the three forces, in the agent's
//! [`RuleStyle`]; the style's doc has the table of formulas.

use glam::Vec3;

use super::response::respond;
use crate::Space;
use crate::maths::{limit_length, unit};
use crate::simd::Wide;
use crate::tuning::{FlockTuning, RuleStyle, SteeringLimits};

/// Squared-distance floor of the separation term, so it stays finite (at most 100 per neighbour).
pub(crate) const SEPARATION_FLOOR_SQ: f32 = 1e-4;

/// A squared distance, one at a time or four at once on SIMD lanes, as the separation divisor
/// reads it.
pub(crate) trait SquaredDistance: Copy + core::ops::Mul<Output = Self> {
    /// The larger of this and `floor`.
    fn at_least(self, floor: f32) -> Self;
    /// The square root.
    fn root(self) -> Self;
}

impl SquaredDistance for f32 {
    #[inline(always)]
    fn at_least(self, floor: f32) -> Self {
        self.max(floor)
    }

    #[inline(always)]
    fn root(self) -> Self {
        self.sqrt()
    }
}

impl<V: Wide> SquaredDistance for V {
    #[inline(always)]
    fn at_least(self, floor: f32) -> Self {
        self.max(V::splat(floor))
    }

    #[inline(always)]
    fn root(self) -> Self {
        self.sqrt()
    }
}

/// What a neighbour's offset is divided by in the separation sum, from its squared distance
/// `d^2` (floored at [`SEPARATION_FLOOR_SQ`]): `d^2`, so that the term is the unit vector over
/// `d` (the vector style), or `d^3`, the unit vector over `d^2` (the desired-velocity style's
/// inverse square, `unit_over_square`). The lane scan divides by it on all its lanes at once.
#[inline(always)]
pub(crate) fn separation_divisor<D: SquaredDistance>(dist_sq: D, unit_over_square: bool) -> D {
    let floored = dist_sq.at_least(SEPARATION_FLOOR_SQ);
    if unit_over_square {
        floored * floored.root()
    } else {
        floored
    }
}

/// Separation, alignment and cohesion, each limited to the max force and not yet weighted, in
/// `params`' [`RuleStyle`] (whose doc has the formulas) within the agent's `limits`, from its
/// neighbour sums and its velocity `v`. Zero where a rule has no neighbour to act on.
///
/// - Separation is the sum of pushes itself (vector style), or the direction to flee along.
/// - Alignment is `mean(v_j) - v` (vector style), or the desired heading `mean(v_j)`.
/// - Cohesion is `mean(p_j) - p`, the mean offset to the flock-mates, in both styles.
///
/// With [`Perception::counts_itself`](crate::Perception::counts_itself) the agent is one of
/// its own flock-mates, as in Vicsek et al. (1995): one more in the count and its own velocity
/// in the sum (its offset from itself is zero).
#[inline]
pub(crate) fn forces(
    scan: &crate::neighbours::Scan,
    params: &FlockTuning,
    limits: &SteeringLimits,
    v: Vec3,
) -> [Vec3; 3] {
    let (mut mates, mut velocity_sum) = (scan.mates, scan.velocity_sum);
    if params.perception.counts_itself {
        mates += 1;
        velocity_sum += v;
    }
    let (alignment, cohesion) = if mates > 0 {
        let inv = 1.0 / mates as f32;
        let mean_velocity = velocity_sum * inv;
        let alignment = match params.weights.style {
            RuleStyle::Vector => mean_velocity - v,
            RuleStyle::DesiredVelocity => mean_velocity,
        };
        (alignment, scan.offset_sum * inv)
    } else {
        (Vec3::ZERO, Vec3::ZERO)
    };
    [scan.separation, alignment, cohesion].map(|raw| match params.weights.style {
        RuleStyle::Vector => limit_length(raw, limits.max_force),
        RuleStyle::DesiredVelocity => match unit(raw) {
            Some(dir) => respond(dir * limits.max_speed, v, limits),
            None => Vec3::ZERO,
        },
    })
}

/// A fixed unit direction for the pair `(i, j)`, opposite for `(j, i)`, so coincident agents
/// separate deterministically.
#[inline]
pub(crate) fn coincident_direction(i: usize, j: usize, space: Space) -> Vec3 {
    let (lo, hi) = (i.min(j) as u32, i.max(j) as u32);
    let mut h = lo.wrapping_mul(0x9E37_79B1) ^ hi.wrapping_mul(0x85EB_CA77);
    let mut unit = || {
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^= h >> 12;
        (h as f32 / u32::MAX as f32) * 2.0 - 1.0
    };
    let raw = space.flat(Vec3::new(unit(), unit(), unit()));
    let dir = raw.try_normalize().unwrap_or(Vec3::X);
    if i < j { dir } else { -dir }
}
