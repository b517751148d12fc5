//! [`Space`]: full 3D or the XY plane.

use glam::Vec3;

use crate::maths::unit;

/// How far apart along z the floors of a [`Space::Planar`] crowd lie: floor `k` is the plane
/// `z = k * FLOOR_SPACING` (2^20, about a thousand kilometres, so that no neighbour radius,
/// obstacle or look-ahead a game uses reaches from one floor to the next).
pub const FLOOR_SPACING: f32 = 1_048_576.0;

/// The space agents move in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Space {
    /// Full 3D.
    #[default]
    Volume,
    /// The XY plane, or planes stacked as floors (a street and a bridge over it, the storeys
    /// of a building): z of velocities and forces is kept at zero, and each agent stays on the
    /// floor its position's z is nearest to (see [`Space::floor_of`]), where it meets only
    /// the agents and obstacles of that floor. A crowd on one plane, positions at any z within
    /// half of [`FLOOR_SPACING`] of zero, is on floor 0 (z 0). A target is sought on the
    /// agent's own floor; a game moves an agent between floors by giving it the z of another.
    /// The grid scans one layer of cells instead of a block.
    Planar,
}

impl Space {
    /// The floor nearest height `z` (see [`Space::Planar`]), saturating at `i32`'s ends; 0 for
    /// NaN.
    #[inline]
    pub fn floor_of(z: f32) -> i32 {
        // A float-to-int cast saturates (NaN gives 0); rounding halves away from zero.
        let scaled = z / FLOOR_SPACING;
        (scaled + 0.5_f32.copysign(scaled)) as i32
    }

    /// The height of floor `floor`: `floor * FLOOR_SPACING` (see [`Space::Planar`]).
    #[inline]
    pub fn floor_height(floor: i32) -> f32 {
        floor as f32 * FLOOR_SPACING
    }

    /// `v` in this space: on the plane, with z dropped (for velocities, forces, directions and
    /// offsets between points of one floor).
    #[inline]
    pub(crate) fn flat(self, v: Vec3) -> Vec3 {
        match self {
            Space::Volume => v,
            Space::Planar => v.with_z(0.0),
        }
    }

    /// Position `p` in this space: on the plane, on the floor nearest its z.
    #[inline]
    pub(crate) fn point(self, p: Vec3) -> Vec3 {
        match self {
            Space::Volume => p,
            Space::Planar => p.with_z(Self::floor_height(Self::floor_of(p.z))),
        }
    }

    /// Point `p` on the floor of position `at`: on the plane, with `at`'s z.
    #[inline]
    pub(crate) fn level_with(self, p: Vec3, at: Vec3) -> Vec3 {
        match self {
            Space::Volume => p,
            Space::Planar => p.with_z(at.z),
        }
    }

    /// The direction to the right of unit `heading`: clockwise on the plane; in 3D, across it
    /// and the Y axis (across any axis when heading straight up or down).
    #[inline]
    pub(crate) fn right_of(self, heading: Vec3) -> Vec3 {
        match self {
            Space::Planar => Vec3::new(heading.y, -heading.x, 0.0),
            Space::Volume => unit(heading.cross(Vec3::Y))
                .or_else(|| unit(heading.any_orthonormal_vector()))
                .unwrap_or(Vec3::X),
        }
    }
}
