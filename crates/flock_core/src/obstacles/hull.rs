//! [`Hull`]: a capsule round each shape, whose distance bounds the shape's from below, so that
//! queries skip the shapes they cannot touch before measuring them exactly.

use glam::Vec3;

use super::shape::Shape;

/// A capsule holding a shape: every point of the shape lies within `radius` of the segment
/// from `start`, `length` along unit `axis` (a ball where the length is 0). A wall's hull is
/// the wall itself, where a ball round it would be as wide as the wall is long: a query along
/// a street passes within the ball of every wall beside it, and so measured each exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Hull {
    start: Vec3,
    radius: f32,
    axis: Vec3,
    length: f32,
}

impl Hull {
    /// The hull of `shape`: a ball's and a capsule's own; a box's core along its longest side,
    /// as wide as its cross-section's half diagonal; a half-space's, infinitely wide.
    pub(super) fn of(shape: &Shape) -> Self {
        let ball = |centre: Vec3, radius: f32| Hull {
            start: centre,
            radius,
            axis: Vec3::ZERO,
            length: 0.0,
        };
        match *shape {
            Shape::Sphere { centre, radius } => ball(centre, radius),
            Shape::HalfSpace { point, .. } => ball(point, f32::INFINITY),
            Shape::Capsule { a, b, radius } => {
                let length = a.distance(b);
                match (b - a).try_normalize() {
                    Some(axis) if length.is_finite() => Hull {
                        start: a,
                        radius,
                        axis,
                        length,
                    },
                    _ => ball((a + b) * 0.5, length * 0.5 + radius),
                }
            }
            Shape::Box {
                centre,
                half_extents: h,
                rotation,
            } => {
                // The longest half extent first: the core runs along it.
                let (long, across) = if h.x >= h.y && h.x >= h.z {
                    (Vec3::X * h.x, Vec3::new(h.y, h.z, 0.0))
                } else if h.y >= h.z {
                    (Vec3::Y * h.y, Vec3::new(h.x, h.z, 0.0))
                } else {
                    (Vec3::Z * h.z, Vec3::new(h.x, h.y, 0.0))
                };
                let half = crate::maths::rotated(rotation, long);
                match half.try_normalize() {
                    Some(axis) => Hull {
                        start: centre - half,
                        radius: across.length(),
                        axis,
                        length: 2.0 * long.length(),
                    },
                    None => ball(centre, h.length()),
                }
            }
        }
    }

    /// Whether the shape's signed distance from `p` surely exceeds `bound`: the hull's does
    /// (as rounded; queries allow for that). Never for a half-space, nor for a NaN.
    #[inline]
    pub(super) fn is_beyond(&self, p: Vec3, bound: f32) -> bool {
        let w = p - self.start;
        let along = w.dot(self.axis).clamp(0.0, self.length);
        exceeds(
            (w - self.axis * along).length_squared(),
            bound + self.radius,
        )
    }

    /// Whether the shape lies surely farther than `bound` from every point of the way from
    /// `origin` along unit `dir` no farther than `length`: the way stays beyond the core's
    /// ends along its line, or off the line by more (the way projected onto the plane square
    /// to the axis, for a ball the way itself, measured at its point nearest the line).
    #[inline]
    pub(super) fn is_off_way(&self, origin: Vec3, dir: Vec3, length: f32, bound: f32) -> bool {
        let reach = bound + self.radius;
        let w = origin - self.start;
        let (s0, ds) = (w.dot(self.axis), dir.dot(self.axis) * length);
        let (low, high) = (s0 + ds.min(0.0), s0 + ds.max(0.0));
        if low - self.length > reach || -high > reach {
            return true;
        }
        let (m, v) = (w - self.axis * s0, dir - self.axis * dir.dot(self.axis));
        let vv = v.length_squared();
        let t = if vv > 0.0 {
            (-m.dot(v) / vv).clamp(0.0, length)
        } else {
            0.0
        };
        exceeds((m + v * t).length_squared(), reach)
    }
}

/// Whether a distance whose square is `squared` exceeds `reach`: always for a negative reach,
/// never for a NaN or an infinite one.
#[inline]
fn exceeds(squared: f32, reach: f32) -> bool {
    if reach < 0.0 {
        !squared.is_nan()
    } else {
        squared > reach * reach
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};
    use proptest::prelude::*;

    use super::Hull;
    use crate::obstacles::Shape;

    /// How far a hull's answers may stray from the shape's by rounding, at these sizes.
    const ROUNDING: f32 = 1e-4;

    fn vec3(range: f32) -> impl Strategy<Value = Vec3> {
        (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    fn shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            (vec3(10.0), 0.1_f32..3.0)
                .prop_map(|(centre, radius)| Shape::Sphere { centre, radius }),
            (vec3(10.0), vec3(10.0), 0.0_f32..1.0).prop_map(|(a, b, radius)| Shape::Capsule {
                a,
                b,
                radius
            }),
            (
                vec3(10.0),
                (0.0_f32..8.0, 0.0_f32..8.0, 0.01_f32..8.0),
                vec3(1.0)
            )
                .prop_map(|(centre, (x, y, z), turn)| Shape::Box {
                    centre,
                    half_extents: Vec3::new(x, y, z),
                    rotation: Quat::from_scaled_axis(turn * 3.0),
                }),
        ]
    }

    proptest! {
        /// A shape said to be farther than a bound from a point is.
        #[test]
        fn a_point_beyond_the_hull_is_beyond_the_shape(
            shape in shape(),
            p in vec3(20.0),
            bound in -2.0_f32..6.0,
        ) {
            if Hull::of(&shape).is_beyond(p, bound) {
                prop_assert!(shape.distance(p) > bound - ROUNDING);
            }
        }

        /// A ball cast along a way the hull is off never touches the shape.
        #[test]
        fn a_way_off_the_hull_never_touches_the_shape(
            shape in shape(),
            origin in vec3(20.0),
            dir in vec3(1.0),
            length in 0.0_f32..12.0,
            radius in 0.0_f32..3.0,
        ) {
            let Some(dir) = dir.try_normalize() else {
                return Ok(());
            };
            if Hull::of(&shape).is_off_way(origin, dir, length, radius) {
                prop_assert_eq!(shape.cast(origin, dir, length, radius - ROUNDING), None);
            }
        }
    }

    /// A long wall's hull is the wall: a point or a way beside it, well inside a ball round it,
    /// is known to be clear of it without measuring.
    #[test]
    fn a_long_wall_is_bounded_by_itself_not_by_a_ball() {
        let wall = Shape::Capsule {
            a: Vec3::new(-20.0, 0.0, 0.0),
            b: Vec3::new(20.0, 0.0, 0.0),
            radius: 0.1,
        };
        let hull = Hull::of(&wall);
        assert!(hull.is_beyond(Vec3::new(3.0, 2.0, 0.0), 1.5));
        assert!(!hull.is_beyond(Vec3::new(3.0, 2.0, 0.0), 2.0));
        assert!(hull.is_beyond(Vec3::new(22.0, 0.0, 0.0), 1.5));
        // Along the wall, 2 m off it, and past its end.
        assert!(hull.is_off_way(Vec3::new(-5.0, 2.0, 0.0), Vec3::X, 10.0, 1.0));
        assert!(hull.is_off_way(Vec3::new(22.0, 0.0, 0.0), Vec3::X, 10.0, 1.0));
        // Toward it, and along it too near.
        assert!(!hull.is_off_way(Vec3::new(0.0, 3.0, 0.0), -Vec3::Y, 2.5, 0.5));
        assert!(!hull.is_off_way(Vec3::new(-5.0, 1.0, 0.0), Vec3::X, 10.0, 1.0));
        // A box as long as the wall: its hull runs along its longest side.
        let slab = Shape::Box {
            centre: Vec3::ZERO,
            half_extents: Vec3::new(0.2, 20.0, 1.0),
            rotation: Quat::IDENTITY,
        };
        assert!(Hull::of(&slab).is_beyond(Vec3::new(3.0, 5.0, 0.0), 1.5));
    }
}
