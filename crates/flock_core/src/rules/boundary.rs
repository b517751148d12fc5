//! The edge of the world: walls that push agents back in and stop them at their faces, or a box
//! that wraps round.

use glam::Vec3;

use crate::Space;
use crate::tuning::{Boundary, SteeringLimits};

/// The box within which a body of `radius` keeps its centre, for walls round `min..max`: each
/// face moved in by the radius, so that the whole body stays inside. An axis narrower than the
/// body holds it at its middle; a flat one (the plane's) is left as it is.
#[inline]
pub(crate) fn room_for(min: Vec3, max: Vec3, radius: f32) -> (Vec3, Vec3) {
    let (middle, radius) = (0.5 * (min + max), Vec3::splat(radius.max(0.0)));
    ((min + radius).min(middle), (max - radius).max(middle))
}

/// The force of [`Boundary::Walls`] on an agent at `p` with a body of `radius`: within
/// `margin` of the place where the body would touch a face, inward, growing linearly with the
/// depth into the band to `weight` times the max force there; `None` for other boundaries or a
/// zero margin.
#[inline]
pub(crate) fn walls(
    (p, radius): (Vec3, f32),
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
    let (min, max) = room_for(min, max, radius);
    // A NaN margin (never after sanitising) pushes nothing, like a zero one.
    (margin > 0.0).then(|| {
        let inward =
            ((min + margin - p).max(Vec3::ZERO) - (p - (max - margin)).max(Vec3::ZERO)) / margin;
        let inward = inward.clamp(Vec3::NEG_ONE, Vec3::ONE);
        space.flat(inward) * limits.max_force * weight
    })
}

/// Where a move to `p` of a body of `radius` ends under `boundary`, with the velocity `v` it
/// leaves with: wrapped round the box (by its centre), or stopped where the body touches a
/// wall with the velocity reflected off it.
#[inline]
pub(crate) fn keep_within(p: Vec3, v: Vec3, radius: f32, boundary: &Boundary) -> (Vec3, Vec3) {
    match *boundary {
        Boundary::None => (p, v),
        Boundary::Wrap { min, max } => (wrap(p, min, max), v),
        Boundary::Walls { min, max, .. } => {
            let (min, max) = room_for(min, max, radius);
            keep_inside(p, v, min, max)
        }
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
