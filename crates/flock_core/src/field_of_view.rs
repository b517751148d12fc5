//! [`FieldOfView`]: whether a neighbour is in view, without a square root.

use crate::maths::COINCIDENT_SQ;
use crate::simd::Wide;

/// The field of view as a test on `d = offset · heading` and the squared distance `r²`,
/// without a square root: `d >= cos(half angle) · r`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FieldOfView {
    cos_half: f32,
    cos_half_sq: f32,
}

impl FieldOfView {
    /// The view `degrees` wide, or `None` for a full view.
    pub(crate) fn new(degrees: f32) -> Option<Self> {
        (degrees < 360.0).then(|| {
            let cos_half = libm::cosf((degrees * 0.5).to_radians());
            Self {
                cos_half,
                cos_half_sq: cos_half * cos_half,
            }
        })
    }

    /// Whether an offset with `dot` along the heading and squared length `dist_sq` is seen.
    /// Coincident agents are always seen.
    pub(crate) fn sees(self, dot: f32, dist_sq: f32) -> bool {
        let ahead = dot >= 0.0;
        let by_angle = if self.cos_half >= 0.0 {
            ahead && dot * dot >= self.cos_half_sq * dist_sq
        } else {
            ahead || dot * dot <= self.cos_half_sq * dist_sq
        };
        by_angle || dist_sq <= COINCIDENT_SQ
    }

    /// [`sees`](Self::sees) on lanes, with the same arithmetic.
    #[inline(always)]
    pub(crate) fn sees_lanes<V: Wide>(self, dot: V, dist_sq: V) -> V::Mask {
        let ahead = dot.cmpge(V::splat(0.0));
        let dot_sq = dot * dot;
        let limit = V::splat(self.cos_half_sq) * dist_sq;
        let by_angle = if self.cos_half >= 0.0 {
            ahead & dot_sq.cmpge(limit)
        } else {
            ahead | dot_sq.cmple(limit)
        };
        by_angle | dist_sq.cmple(V::splat(COINCIDENT_SQ))
    }
}
