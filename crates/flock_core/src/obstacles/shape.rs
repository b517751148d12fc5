//! The built-in obstacle shapes and their signed distance fields.

use glam::{Quat, Vec3, Vec4};

/// A solid shape in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A ball (a disc on the plane).
    Sphere {
        /// Centre.
        centre: Vec3,
        /// Radius.
        radius: f32,
    },
    /// A box, rotated.
    Box {
        /// Centre.
        centre: Vec3,
        /// Half the size along each of its own axes.
        half_extents: Vec3,
        /// Its orientation.
        rotation: Quat,
    },
    /// Everything behind the plane through `point` with outward unit `normal`.
    HalfSpace {
        /// A point on the plane.
        point: Vec3,
        /// Unit normal, pointing out of the solid side.
        normal: Vec3,
    },
    /// Every point within `radius` of the segment `a..b` (a wall, on the plane).
    Capsule {
        /// One end of the core segment.
        a: Vec3,
        /// The other end.
        b: Vec3,
        /// Radius around the segment.
        radius: f32,
    },
}

impl Shape {
    /// Whether every value is finite and at most [`LARGEST_PARAMETER`](crate::LARGEST_PARAMETER)
    /// in size, every size positive (or zero, for a box's extents and a capsule's radius, as
    /// long as something is left), and a box's rotation and a half-space's normal of about unit
    /// length (they are normalised).
    pub fn is_valid(&self) -> bool {
        let sane = |v: f32| v.is_finite() && v.abs() <= crate::LARGEST_PARAMETER;
        let sane3 = |v: Vec3| v.to_array().into_iter().all(sane);
        let near_unit = |length_sq: f32| (0.5..=2.0).contains(&length_sq);
        match *self {
            Shape::Sphere { centre, radius } => sane3(centre) && sane(radius) && radius > 0.0,
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                sane3(centre)
                    && sane3(half_extents)
                    && half_extents.min_element() >= 0.0
                    && half_extents.max_element() > 0.0
                    && rotation.is_finite()
                    && near_unit(rotation.length_squared())
            }
            Shape::HalfSpace { point, normal } => {
                sane3(point) && sane3(normal) && near_unit(normal.length_squared())
            }
            Shape::Capsule { a, b, radius } => {
                sane3(a) && sane3(b) && sane(radius) && radius >= 0.0
            }
        }
    }

    /// The shape with its rotation or normal of exactly unit length.
    pub(crate) fn normalized(self) -> Self {
        match self {
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => Shape::Box {
                centre,
                half_extents,
                rotation: rotation.normalize(),
            },
            Shape::HalfSpace { point, normal } => Shape::HalfSpace {
                point,
                normal: normal.normalize(),
            },
            other => other,
        }
    }

    /// Signed distance from `p` to the surface: negative inside.
    #[inline]
    pub fn distance(&self, p: Vec3) -> f32 {
        match *self {
            Shape::Sphere { centre, radius } => (p - centre).length() - radius,
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                let (_, q) = box_local(p, centre, half_extents, rotation);
                q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
            }
            Shape::HalfSpace { point, normal } => (p - point).dot(normal),
            Shape::Capsule { a, b, radius } => (p - closest_on_segment(p, a, b)).length() - radius,
        }
    }

    /// The outward unit normal of the surface nearest to `p`.
    #[inline]
    pub fn normal(&self, p: Vec3) -> Vec3 {
        let fallback = Vec3::Y;
        match *self {
            Shape::Sphere { centre, .. } => (p - centre).try_normalize().unwrap_or(fallback),
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                let (local, q) = box_local(p, centre, half_extents, rotation);
                let outward = if q.max_element() > 0.0 {
                    q.max(Vec3::ZERO) * local.signum()
                } else {
                    // Inside: out through the nearest face.
                    let axis = if q.x >= q.y && q.x >= q.z {
                        Vec3::X
                    } else if q.y >= q.z {
                        Vec3::Y
                    } else {
                        Vec3::Z
                    };
                    axis * local.signum()
                };
                (rotation * outward).try_normalize().unwrap_or(fallback)
            }
            Shape::HalfSpace { normal, .. } => normal,
            Shape::Capsule { a, b, .. } => (p - closest_on_segment(p, a, b))
                .try_normalize()
                .unwrap_or(fallback),
        }
    }

    /// A ball that holds the shape: centre and radius (infinite for a half-space). Outside
    /// it, the distance to the ball's surface never exceeds the distance to the shape.
    pub(crate) fn ball(&self) -> Vec4 {
        match *self {
            Shape::Sphere { centre, radius } => centre.extend(radius),
            Shape::Box {
                centre,
                half_extents,
                ..
            } => centre.extend(half_extents.length()),
            Shape::HalfSpace { point, .. } => point.extend(f32::INFINITY),
            Shape::Capsule { a, b, radius } => {
                ((a + b) * 0.5).extend((b - a).length() * 0.5 + radius)
            }
        }
    }

    /// The shape's axis-aligned bounds grown by `margin`, or `None` when unbounded.
    pub(crate) fn bounds(&self, margin: f32) -> Option<(Vec3, Vec3)> {
        let (lo, hi) = match *self {
            Shape::Sphere { centre, radius } => (centre - radius, centre + radius),
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                let m = glam::Mat3::from_quat(rotation);
                let reach = m.x_axis.abs() * half_extents.x
                    + m.y_axis.abs() * half_extents.y
                    + m.z_axis.abs() * half_extents.z;
                (centre - reach, centre + reach)
            }
            Shape::HalfSpace { .. } => return None,
            Shape::Capsule { a, b, radius } => (a.min(b) - radius, a.max(b) + radius),
        };
        Some((lo - margin, hi + margin))
    }
}

/// `p` in a box's own frame, and how far outside each pair of its faces it is (negative inside).
#[inline]
fn box_local(p: Vec3, centre: Vec3, half_extents: Vec3, rotation: Quat) -> (Vec3, Vec3) {
    let local = rotation.inverse() * (p - centre);
    (local, local.abs() - half_extents)
}

#[inline]
fn closest_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq <= f32::EPSILON {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0)
}
