//! The built-in obstacle shapes and their signed distance fields.

use glam::{Quat, Vec3, Vec3Swizzles};

use crate::maths::rotated;

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
    /// The shape moved by `offset`: with `Vec3::Z * Space::floor_height(k)`, from floor 0 to
    /// floor `k` of a crowd on stacked planes (see [`Space::Planar`](crate::Space::Planar);
    /// a half-space whose normal lies in the plane reaches every floor wherever it is).
    pub fn translated(self, offset: Vec3) -> Self {
        match self {
            Shape::Sphere { centre, radius } => Shape::Sphere {
                centre: centre + offset,
                radius,
            },
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => Shape::Box {
                centre: centre + offset,
                half_extents,
                rotation,
            },
            Shape::HalfSpace { point, normal } => Shape::HalfSpace {
                point: point + offset,
                normal,
            },
            Shape::Capsule { a, b, radius } => Shape::Capsule {
                a: a + offset,
                b: b + offset,
                radius,
            },
        }
    }

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
                rotated(rotation, outward)
                    .try_normalize()
                    .unwrap_or(fallback)
            }
            Shape::HalfSpace { normal, .. } => normal,
            Shape::Capsule { a, b, .. } => (p - closest_on_segment(p, a, b))
                .try_normalize()
                .unwrap_or(fallback),
        }
    }

    /// How far a ball of `radius` moving from `origin` along unit `dir` goes before it first
    /// touches the shape (its signed distance reaches `radius`): 0 when it starts touching or
    /// inside, `None` when it does not touch within `length`. Exact: the ball meets the shape
    /// grown by `radius`, a ray meeting a ball, a half-space, a capsule or a rounded box.
    pub(crate) fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<f32> {
        if self.distance(origin) <= radius {
            return Some(0.0);
        }
        let t = match *self {
            Shape::Sphere { centre, radius: r } => ray_ball(origin - centre, dir, r + radius),
            Shape::Box {
                centre,
                half_extents,
                rotation,
            } => {
                let inverse = rotation.inverse();
                let (o, d) = (rotated(inverse, origin - centre), rotated(inverse, dir));
                ray_rounded_box(o, d, half_extents, radius)
            }
            Shape::HalfSpace { point, normal } => {
                // Outside by `above`, closing at `-normal . dir` a unit of travel.
                let above = (origin - point).dot(normal) - radius;
                let closing = -dir.dot(normal);
                (closing > 0.0).then(|| above / closing)
            }
            Shape::Capsule { a, b, radius: r } => ray_capsule(origin, dir, a, b, r + radius),
        }?;
        (t <= length).then_some(t.max(0.0))
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
    let local = rotated(rotation.inverse(), p - centre);
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

/// The sooner of two touches, either of which may not happen.
#[inline]
fn sooner(a: Option<f32>, b: Option<f32>) -> Option<f32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The first `t >= 0` at which `m + d t` (an offset from a ball's centre) comes within `r` of
/// it, for an `m` outside the ball.
#[inline]
fn ray_ball(m: Vec3, d: Vec3, r: f32) -> Option<f32> {
    // |m + d t|^2 = r^2: a t^2 + 2 b t + c = 0, entered at the smaller root, written as
    // c / (sqrt(b^2 - a c) - b) so that it keeps its digits when the ball is far.
    let (a, b, c) = (d.length_squared(), m.dot(d), m.length_squared() - r * r);
    if b >= 0.0 {
        return None;
    }
    let discriminant = b * b - a * c;
    (discriminant >= 0.0).then(|| c / (discriminant.sqrt() - b))
}

/// The first `t >= 0` at which `o + d t` comes within `r` of the segment `a..b`, for an `o`
/// farther than `r` from it: the nearer of the side of the cylinder round the segment (where
/// its foot lies on the segment) and the balls at its ends.
#[inline]
fn ray_capsule(o: Vec3, d: Vec3, a: Vec3, b: Vec3, r: f32) -> Option<f32> {
    let mut first = sooner(ray_ball(o - a, d, r), ray_ball(o - b, d, r));
    let axis = b - a;
    let axis_len_sq = axis.length_squared();
    if axis_len_sq > f32::EPSILON {
        let unit = axis / axis_len_sq.sqrt();
        // Across the axis only: the ray meets the infinite cylinder as its projection meets
        // a ball. A start inside the cylinder (beyond an end) enters through an end's ball.
        let across = |v: Vec3| v - unit * v.dot(unit);
        let (m, v) = (across(o - a), across(d));
        if m.length_squared() > r * r
            && let Some(t) = ray_ball(m, v, r)
        {
            let along = (o + d * t - a).dot(unit);
            if (0.0..=axis_len_sq.sqrt()).contains(&along) {
                first = sooner(first, Some(t));
            }
        }
    }
    first
}

/// Where a ray from `o` along `d` enters the box of half extents `e` round the origin
/// (`t >= 0`), or `None` if it misses it.
#[inline]
fn ray_aabb(o: Vec3, d: Vec3, e: Vec3) -> Option<f32> {
    let (mut near, mut far) = (f32::NEG_INFINITY, f32::INFINITY);
    for axis in 0..3 {
        let (o, d, e) = (o[axis], d[axis], e[axis]);
        if d == 0.0 {
            if o.abs() > e {
                return None;
            }
            continue;
        }
        let (t1, t2) = ((-e - o) / d, (e - o) / d);
        near = near.max(t1.min(t2));
        far = far.min(t1.max(t2));
    }
    (near <= far && far >= 0.0).then_some(near.max(0.0))
}

/// The first `t >= 0` at which `o + d t` comes within `r` of the box of half extents `h`
/// round the origin, for an `o` farther than `r` from it. The box grown by `r` is the union of
/// the box grown along each axis alone and the capsules of radius `r` round its 12 edges.
#[inline]
fn ray_rounded_box(o: Vec3, d: Vec3, h: Vec3, r: f32) -> Option<f32> {
    // The grown box lies inside the box of half extents h + r: a ray that enters that one
    // by a face (not over an edge or a corner) enters the grown box there.
    let enter = ray_aabb(o, d, h + r)?;
    let at = o + d * enter;
    let outside = at.abs().cmpgt(h).bitmask().count_ones();
    if r <= 0.0 || outside <= 1 {
        return Some(enter);
    }
    let mut first = None;
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        first = sooner(first, ray_aabb(o, d, h + axis * r));
        // The four edges along `axis`: at the corners of the other two half extents.
        let (u, v) = (axis.yzx(), axis.zxy());
        for (su, sv) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            let foot = u * h * su + v * h * sv;
            let half = axis * h;
            first = sooner(first, ray_capsule(o, d, foot - half, foot + half, r));
        }
    }
    first
}
