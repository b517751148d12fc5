//! Neighbours across the seams of a wrapping box: the images of an agent one box size away,
//! and the slot ranges each image scans.

use core::ops::Range;

use glam::Vec3;

use super::index::NeighbourIndex;
use crate::space::Space;
use crate::tuning::{Boundary, Prepared};

/// Up to 8 shifts of a query point, see [`seam_images`].
pub(crate) struct Images {
    pub(super) shifts: [Vec3; 8],
    pub(super) len: usize,
}

impl Images {
    /// Whether the only shift is zero: the point is near no wrap seam.
    pub(crate) fn only_zero(&self) -> bool {
        self.len == 1
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.shifts[..self.len].iter().copied()
    }
}

/// The shifts under which an agent at `p` looks for neighbours: zero, plus, in a wrapping box,
/// one box size across each face it is within a neighbour radius of (up to 8 in a corner), so
/// that agents see each other across the seam. Axes where the box is no wider than two radii
/// get no seam search, since an agent could then be counted twice.
#[inline]
pub(crate) fn seam_images(p: Vec3, prepared: &Prepared, space: Space) -> Images {
    let mut images = Images {
        shifts: [Vec3::ZERO; 8],
        len: 1,
    };
    let Boundary::Wrap { min, max } = prepared.params.boundary else {
        return images;
    };
    let radius = prepared.params.perception.neighbour_radius;
    let axes = match space {
        Space::Volume => 3,
        Space::Planar => 2,
    };
    for axis in 0..axes {
        let size = max[axis] - min[axis];
        if size <= 2.0 * radius {
            continue;
        }
        let across = if p[axis] - min[axis] < radius {
            size
        } else if max[axis] - p[axis] < radius {
            -size
        } else {
            continue;
        };
        for k in 0..images.len {
            let mut shifted = images.shifts[k];
            shifted[axis] += across;
            images.shifts[images.len + k] = shifted;
        }
        images.len *= 2;
    }
    images
}

/// The slot ranges to scan around `centre`, an agent's image shifted by `shift`: the agent's
/// own `stencil` when unshifted, else the stencil of the image's cell, written to
/// `seam_stencil`.
#[inline]
pub(crate) fn image_ranges<'b>(
    index: &NeighbourIndex,
    space: Space,
    centre: Vec3,
    shift: Vec3,
    stencil: &'b [Range<usize>],
    seam_stencil: &'b mut Vec<Range<usize>>,
) -> &'b [Range<usize>] {
    if shift == Vec3::ZERO {
        stencil
    } else {
        index
            .grid
            .stencil(index.grid.cell_of(centre), space, seam_stencil);
        seam_stencil.as_slice()
    }
}
