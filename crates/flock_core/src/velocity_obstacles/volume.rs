//! Optimal reciprocal collision avoidance in 3D: each neighbour turns into a half-space of the
//! velocities that keep clear of it, and a linear program picks the allowed velocity nearest
//! the preferred one (van den Berg, Guy, Lin and Manocha 2011, as their RVO2-3D library
//! extends it from half-planes to half-spaces).

use glam::Vec3;

#[cfg(test)]
use super::encounters::Encounter;
use super::encounters::Field::*;
use super::encounters::{EncounterColumns, PARALLEL, recip_length_where_normal};
use super::linear::{self, Constraint};
use crate::SimdPath;
#[cfg(target_arch = "x86_64")]
use crate::simd::Avx;
use crate::simd::{Pair, WIDTH, Wide};

/// The velocities on the side of a plane its normal points to: `v` is allowed when
/// `(v - point) . normal >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HalfSpace {
    pub(crate) point: Vec3,
    /// Unit normal, into the allowed side.
    pub(crate) normal: Vec3,
}

/// A line through `point` along unit `direction`.
#[derive(Clone, Copy, Debug)]
struct Line {
    point: Vec3,
    direction: Vec3,
}

/// One encounter's half-space, as [`half_spaces`] computes them eight at a time: the same
/// arithmetic, easier to read, which the lane version is tested against bit for bit.
#[cfg(test)]
pub(crate) fn half_space(e: &Encounter<Vec3>, velocity: Vec3, dt: f32) -> HalfSpace {
    let (offset, relative) = (e.offset, velocity - e.velocity);
    let dist_sq = offset.length_squared();
    let (r, r_sq) = (e.radius, e.radius * e.radius);
    // The change of relative velocity that leaves the velocity obstacle, `w` scaled to reach
    // `reach` from its centre.
    let (w, reach);
    if dist_sq > r_sq {
        let cut_off_w = relative - offset / e.horizon;
        let along = cut_off_w.dot(offset);
        if along < 0.0 && along * along > r_sq * cut_off_w.length_squared() {
            // Nearest the cut-off sphere.
            w = cut_off_w;
            reach = r / e.horizon;
        } else {
            // Nearest the cone: the point of it nearest the relative velocity lies on the ray
            // through the tangent circle's point in the plane of the offset and the velocity;
            // `t` scales the offset to the sphere the tangent touches.
            let a = dist_sq;
            let b = offset.dot(relative);
            let c = relative.length_squared()
                - offset.cross(relative).length_squared() / (dist_sq - r_sq);
            let t = (b + (b * b - a * c).max(0.0).sqrt()) / a;
            w = relative - offset * t;
            reach = r * t;
        }
    } else {
        // Overlapping: leave the sphere of the positions one tick ahead.
        w = relative - offset / dt;
        reach = r / dt;
    }
    let w_len = w.length();
    let normal = if w_len > 0.0 { w / w_len } else { e.apart() };
    HalfSpace {
        point: velocity + normal * (reach - w_len) * e.share,
        normal,
    }
}

/// The half-space of velocities that keeps an agent clear of the neighbour of each of
/// `encounters` for its horizon, the agent moving at the velocity beside it in `movers` (the
/// encounters of several agents can be computed together: more lanes then hold one, and the
/// groups' long chains of divisions and roots overlap), appended to `out` in turn: the agent
/// takes `encounter.share` of the smallest change of relative velocity that leaves the velocity
/// obstacle (a sphere of radius `r / horizon` round `offset / horizon`, extended by the cone
/// from the origin tangent to it), and agents already overlapping aim to part within one tick
/// of `dt`. Eight encounters at a time on the lanes of `simd`, which give the same bits.
pub(crate) fn half_spaces(
    simd: SimdPath,
    encounters: &EncounterColumns,
    dt: f32,
    out: &mut Vec<HalfSpace>,
) {
    match simd {
        SimdPath::Portable => half_spaces_on::<Pair>(encounters, dt, out),
        #[cfg(target_arch = "x86_64")]
        SimdPath::Avx2 => Avx::enter(
            #[inline(always)]
            || half_spaces_on::<Avx>(encounters, dt, out),
        ),
    }
}

/// [`half_spaces`] on lanes of form `V`, one encounter in each lane. Call it inside
/// [`Wide::enter`].
#[inline(always)]
fn half_spaces_on<V: Wide>(encounters: &EncounterColumns, dt: f32, out: &mut Vec<HalfSpace>) {
    for at in (0..encounters.len()).step_by(WIDTH) {
        // Lanes past the end hold zeros, whose results (infinities and NaNs among them) are
        // never read.
        let lanes = |field| encounters.lanes::<V>(field, at);
        let live = (encounters.len() - at).min(WIDTH);
        let lanes = group_half_spaces(
            [lanes(OffsetX), lanes(OffsetY), lanes(OffsetZ)],
            [lanes(VelocityX), lanes(VelocityY), lanes(VelocityZ)],
            [lanes(Radius), lanes(Horizon), lanes(Share)],
            [lanes(FixedApartX), lanes(FixedApartY), lanes(FixedApartZ)],
            (1 << live) - 1,
            [lanes(MoverX), lanes(MoverY), lanes(MoverZ)],
            dt,
        );
        let [px, py, pz, nx, ny, nz] = [
            lanes[0].to_array(),
            lanes[1].to_array(),
            lanes[2].to_array(),
            lanes[3].to_array(),
            lanes[4].to_array(),
            lanes[5].to_array(),
        ];
        out.extend((0..live).map(|k| HalfSpace {
            point: Vec3::new(px[k], py[k], pz[k]),
            normal: Vec3::new(nx[k], ny[k], nz[k]),
        }));
    }
}

/// Three coordinates on lanes.
type Lanes3<V> = [V; 3];

/// `a . b`, with glam's order of sums.
#[inline(always)]
fn dot<V: Wide>(a: Lanes3<V>, b: Lanes3<V>) -> V {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a - b * s`, or with `divide`, `a - b / s`.
#[inline(always)]
fn minus_scaled<V: Wide>(a: Lanes3<V>, b: Lanes3<V>, s: V, divide: bool) -> Lanes3<V> {
    if divide {
        [a[0] - b[0] / s, a[1] - b[1] / s, a[2] - b[2] / s]
    } else {
        [a[0] - b[0] * s, a[1] - b[1] * s, a[2] - b[2] * s]
    }
}

/// `w` over its length, and that length; where it has none, [`Encounter::apart`] (the unit
/// direction opposite `offset`, or `fixed_apart` where the offset's squared length is not a
/// normal number), computed only where one of the `live` lanes (a bit each) needs it, which
/// is rare.
#[inline(always)]
fn unit_or<V: Wide>(
    w: Lanes3<V>,
    offset: Lanes3<V>,
    fixed_apart: Lanes3<V>,
    live: u32,
) -> (Lanes3<V>, V) {
    let w_len = dot(w, w).sqrt();
    let some = w_len.cmpgt(V::splat(0.0));
    let unit = [w[0] / w_len, w[1] / w_len, w[2] / w_len];
    if !V::bitmask(some) & live == 0 {
        return (unit, w_len);
    }
    let (normal, recip) = recip_length_where_normal(dot(offset, offset));
    let apart = [
        V::select(normal, -offset[0] * recip, fixed_apart[0]),
        V::select(normal, -offset[1] * recip, fixed_apart[1]),
        V::select(normal, -offset[2] * recip, fixed_apart[2]),
    ];
    let unit = [
        V::select(some, unit[0], apart[0]),
        V::select(some, unit[1], apart[1]),
        V::select(some, unit[2], apart[2]),
    ];
    (unit, w_len)
}

/// The half-spaces of one group of encounters, given by coordinates on lanes: each lane's case
/// (nearest the cut-off sphere, nearest the cone, overlapping) decided first, then the change
/// of relative velocity `w` that case leaves it by picked before the divisions and the root
/// that turn it into a unit normal, which run once rather than once per case (they are most of
/// the work). `live` has a bit set for each lane that holds an encounter, `v` is the velocity
/// of the agent each lane's belongs to. Returns the points' and normals' coordinates.
#[inline(always)]
fn group_half_spaces<V: Wide>(
    offset: Lanes3<V>,
    other_velocity: Lanes3<V>,
    [r, horizon, share]: [V; 3],
    fixed_apart: Lanes3<V>,
    live: u32,
    v: Lanes3<V>,
    dt: f32,
) -> [V; 6] {
    let zero = V::splat(0.0);
    let relative = [
        v[0] - other_velocity[0],
        v[1] - other_velocity[1],
        v[2] - other_velocity[2],
    ];
    let dist_sq = dot(offset, offset);
    let r_sq = r * r;
    let outside = dist_sq.cmpgt(r_sq);

    // From the centre of the cut-off sphere (outside) or of the sphere one tick ahead
    // (overlapping) to the relative velocity.
    let ahead = V::select(outside, horizon, V::splat(dt));
    let w = minus_scaled(relative, offset, ahead, true);
    let along = dot(w, offset);
    let cut_off = outside & along.cmplt(zero) & (along * along).cmpgt(r_sq * dot(w, w));

    // Nearest the cone: the point of it nearest the relative velocity lies on the ray through
    // the tangent circle's point in the plane of the offset and the velocity; `t` scales the
    // offset to the sphere the tangent touches.
    let (a, b) = (dist_sq, dot(offset, relative));
    let [ox, oy, oz] = offset;
    let [rx, ry, rz] = relative;
    let cross = [oy * rz - ry * oz, oz * rx - rz * ox, ox * ry - rx * oy];
    let c = dot(relative, relative) - dot(cross, cross) / (dist_sq - r_sq);
    let t = (b + (b * b - a * c).max(zero).sqrt()) / a;
    let cone_w = minus_scaled(relative, offset, t, false);
    // The cone's where outside and not nearest the cut-off sphere.
    let pick = |cone: V, other: V| V::select(cut_off, other, V::select(outside, cone, other));
    let w = [
        pick(cone_w[0], w[0]),
        pick(cone_w[1], w[1]),
        pick(cone_w[2], w[2]),
    ];

    let (normal, w_len) = unit_or(w, offset, fixed_apart, live);
    let reach = pick(r * t, r / ahead);
    let scale = reach - w_len;
    let mut lanes = [zero; 6];
    for i in 0..3 {
        lanes[i] = v[i] + normal[i] * scale * share;
        lanes[3 + i] = normal[i];
    }
    lanes
}

impl HalfSpace {
    /// The velocities `v` with `normal . v <= bound`.
    pub(crate) fn at_most(normal: Vec3, bound: f32) -> Self {
        Self {
            point: normal * bound,
            normal: -normal,
        }
    }
}

/// The velocity nearest `preferred` within `max_speed` that every half-space allows, by the
/// program space shares with the plane (see [`linear::solve`]); also whether the half-spaces
/// could not all be met. `projected` is scratch space.
pub(crate) fn solve(
    spaces: &[HalfSpace],
    fixed: usize,
    max_speed: f32,
    preferred: Vec3,
    projected: &mut Vec<HalfSpace>,
) -> (Vec3, bool) {
    linear::solve(spaces, fixed, max_speed, preferred, projected)
}

impl Constraint for HalfSpace {
    type V = Vec3;

    #[inline]
    fn violation(&self, v: Vec3) -> f32 {
        self.normal.dot(self.point - v)
    }

    #[inline]
    fn on_boundary(
        spaces: &[Self],
        k: usize,
        radius: f32,
        target: Vec3,
        along_target: bool,
    ) -> Option<Vec3> {
        program_2(spaces, k, radius, target, along_target)
    }

    fn equal_violation(&self, other: &Self) -> Option<Self> {
        let cross = other.normal.cross(self.normal);
        let point = if cross.length_squared() <= PARALLEL {
            if self.normal.dot(other.normal) > 0.0 {
                return None;
            }
            (self.point + other.point) * 0.5
        } else {
            let line_normal = cross.cross(self.normal);
            self.point
                + line_normal
                    * ((other.point - self.point).dot(other.normal) / line_normal.dot(other.normal))
        };
        Some(HalfSpace {
            point,
            normal: (other.normal - self.normal).normalize_or_zero(),
        })
    }

    #[inline]
    fn outward(&self) -> Vec3 {
        self.normal
    }
}

/// The point of `line` within the ball of `radius` that the half-spaces before `k` allow,
/// nearest `target` (or furthest along the unit direction `target`, with `along_target`).
fn program_1(
    spaces: &[HalfSpace],
    k: usize,
    line: Line,
    radius: f32,
    target: Vec3,
    along_target: bool,
) -> Option<Vec3> {
    let dot = line.point.dot(line.direction);
    let discriminant = dot * dot + radius * radius - line.point.length_squared();
    if discriminant < 0.0 {
        return None;
    }
    let root = discriminant.sqrt();
    let (mut t_left, mut t_right) = (-dot - root, -dot + root);
    for earlier in &spaces[..k] {
        let numerator = (earlier.point - line.point).dot(earlier.normal);
        let denominator = line.direction.dot(earlier.normal);
        if denominator * denominator <= PARALLEL {
            if numerator > 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_left = t_left.max(t);
        } else {
            t_right = t_right.min(t);
        }
        if t_left > t_right {
            return None;
        }
    }
    let t = if along_target {
        if target.dot(line.direction) > 0.0 {
            t_right
        } else {
            t_left
        }
    } else {
        // Not `clamp`, which panics on the NaN that hostile input can bring.
        line.direction
            .dot(target - line.point)
            .max(t_left)
            .min(t_right)
    };
    Some(line.point + line.direction * t)
}

/// The point of half-space `k`'s plane within the ball of `radius` that the half-spaces before
/// `k` allow, nearest `target` (or furthest along it, with `along_target`).
fn program_2(
    spaces: &[HalfSpace],
    k: usize,
    radius: f32,
    target: Vec3,
    along_target: bool,
) -> Option<Vec3> {
    let plane = spaces[k];
    let plane_dist = plane.point.dot(plane.normal);
    let plane_dist_sq = plane_dist * plane_dist;
    let radius_sq = radius * radius;
    if plane_dist_sq > radius_sq {
        // The plane misses the ball.
        return None;
    }
    let plane_radius_sq = radius_sq - plane_dist_sq;
    let centre = plane.normal * plane_dist;
    let mut result = if along_target {
        let in_plane = target - plane.normal * target.dot(plane.normal);
        let len_sq = in_plane.length_squared();
        if len_sq <= PARALLEL {
            centre
        } else {
            centre + in_plane * (plane_radius_sq / len_sq).sqrt()
        }
    } else {
        let on_plane = target + plane.normal * (plane.point - target).dot(plane.normal);
        if on_plane.length_squared() > radius_sq {
            let from_centre = on_plane - centre;
            centre + from_centre * (plane_radius_sq / from_centre.length_squared()).sqrt()
        } else {
            on_plane
        }
    };
    for i in 0..k {
        if spaces[i].violation(result) <= 0.0 {
            continue;
        }
        let cross = spaces[i].normal.cross(plane.normal);
        if cross.length_squared() <= PARALLEL {
            // Parallel planes, and half-space i rules out all of plane k.
            return None;
        }
        let direction = cross.normalize();
        let line_normal = direction.cross(plane.normal);
        let point = plane.point
            + line_normal
                * ((spaces[i].point - plane.point).dot(spaces[i].normal)
                    / line_normal.dot(spaces[i].normal));
        result = program_1(
            spaces,
            i,
            Line { point, direction },
            radius,
            target,
            along_target,
        )?;
    }
    Some(result)
}
