//! [`Space`]: full 3D or the XY plane.

use glam::Vec3;

use crate::maths::unit;

/// The space agents move in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Space {
    /// Full 3D.
    #[default]
    Volume,
    /// The XY plane: z of positions, velocities and forces is kept at zero, and the grid scans
    /// one layer of cells instead of a block.
    Planar,
}

impl Space {
    /// `v` in this space: on the plane, with z dropped.
    #[inline]
    pub(crate) fn flat(self, v: Vec3) -> Vec3 {
        match self {
            Space::Volume => v,
            Space::Planar => v.with_z(0.0),
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
