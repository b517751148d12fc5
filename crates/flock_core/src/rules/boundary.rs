//! The edge of the world: walls that push agents back in and stop them at their faces, or a box
//! that wraps round.

use glam::Vec3;

use crate::Space;
use crate::tuning::{Boundary, SteeringLimits};

/// The force of [`Boundary::Walls`] on an agent at `p`: within `margin` of a face, inward,
/// growing linearly with the depth into the band to `weight` times the max force at the face;
/// `None` for other boundaries or a zero margin.
#[inline]
pub(crate) fn walls(
    p: Vec3,
    boundary: &Boundary,
    limits: &SteeringLimits,
    space: Space,
) -> Option<Vec3> {
    let Boundary::Walls {
        min,
        max,
        margin,
        weight,
    } = *boundary
    else {
        return None;
    };
    // A NaN margin (never after sanitising) pushes nothing, like a zero one.
    (margin > 0.0).then(|| {
        let inward =
            ((min + margin - p).max(Vec3::ZERO) - (p - (max - margin)).max(Vec3::ZERO)) / margin;
        let inward = inward.clamp(Vec3::NEG_ONE, Vec3::ONE);
        space.flat(inward) * limits.max_force * weight
    })
}

/// Where a move to `p` ends under `boundary`, with the velocity `v` it leaves with: wrapped
/// round the box, or stopped at a wall with the velocity reflected off it.
#[inline]
pub(crate) fn keep_within(p: Vec3, v: Vec3, boundary: &Boundary) -> (Vec3, Vec3) {
    match *boundary {
        Boundary::None => (p, v),
        Boundary::Wrap { min, max } => (wrap(p, min, max), v),
        Boundary::Walls { min, max, .. } => keep_inside(p, v, min, max),
    }
}

#[inline]
fn wrap(p: Vec3, min: Vec3, max: Vec3) -> Vec3 {
    let size = max - min;
    let mut out = p.to_array();
    for axis in 0..3 {
        if size[axis] > 0.0 {
            out[axis] = min[axis] + (p[axis] - min[axis]).rem_euclid(size[axis]);
            // rem_euclid can round up to exactly `size`.
            if out[axis] >= max[axis] {
                out[axis] = min[axis];
            }
        }
    }
    Vec3::from_array(out)
}

#[inline]
fn keep_inside(p: Vec3, v: Vec3, min: Vec3, max: Vec3) -> (Vec3, Vec3) {
    let (mut p, mut v) = (p.to_array(), v.to_array());
    for axis in 0..3 {
        if p[axis] < min[axis] {
            p[axis] = min[axis];
            v[axis] = v[axis].abs();
        } else if p[axis] > max[axis] {
            p[axis] = max[axis];
            v[axis] = -v[axis].abs();
        }
    }
    (Vec3::from_array(p), Vec3::from_array(v))
}
