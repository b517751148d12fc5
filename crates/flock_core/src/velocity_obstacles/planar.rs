//! Optimal reciprocal collision avoidance on the plane: each neighbour turns into a half-plane
//! of the velocities that keep clear of it, and a linear program picks the allowed velocity
//! nearest the preferred one (van den Berg, Guy, Lin and Manocha 2011, sections 5.2 and 5.3).

use glam::Vec2;

#[cfg(test)]
use super::encounters::Encounter;
use super::encounters::Field::*;
use super::encounters::{EncounterColumns, PARALLEL, recip_length_where_normal};
use super::linear::{self, Constraint};
use crate::SimdPath;
#[cfg(target_arch = "x86_64")]
use crate::simd::Avx;
use crate::simd::{Pair, WIDTH, Wide};

/// The velocities on the left of a directed line: `v` is allowed when
/// `det(direction, point - v) <= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HalfPlane {
    pub(crate) point: Vec2,
    /// Unit direction of the line.
    pub(crate) direction: Vec2,
}

/// The 2D cross product `a.x * b.y - a.y * b.x`.
#[inline]
fn det(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// One encounter's half-plane, as [`half_planes`] computes them eight at a time: the same
/// arithmetic, easier to read, which the lane version is tested against bit for bit.
#[cfg(test)]
pub(crate) fn half_plane(e: &Encounter<Vec2>, velocity: Vec2, dt: f32) -> HalfPlane {
    let (offset, relative) = (e.offset, velocity - e.velocity);
    let dist_sq = offset.length_squared();
    let (r, r_sq) = (e.radius, e.radius * e.radius);
    // Leaving a disc of radius `reach` round the end of `relative - w`, along `w`.
    let leave_disc = |w: Vec2, reach: f32| {
        let w_len = w.length();
        let unit_w = if w_len > 0.0 {
            w / w_len
        } else if offset.length_squared().is_normal() {
            (-offset).normalize()
        } else {
            e.fixed_apart.truncate()
        };
        (Vec2::new(unit_w.y, -unit_w.x), unit_w * (reach - w_len))
    };
    let (direction, u);
    if dist_sq > r_sq {
        // From the cut-off centre to the relative velocity.
        let w = relative - offset / e.horizon;
        let w_len_sq = w.length_squared();
        let along = w.dot(offset);
        if along < 0.0 && along * along > r_sq * w_len_sq {
            // Nearest the cut-off circle.
            (direction, u) = leave_disc(w, r / e.horizon);
        } else {
            // Nearest a leg: the tangent from the origin on the side the velocity leans to.
            let leg = (dist_sq - r_sq).sqrt();
            direction = if det(offset, w) > 0.0 {
                Vec2::new(offset.x * leg - offset.y * r, offset.x * r + offset.y * leg) / dist_sq
            } else {
                -Vec2::new(
                    offset.x * leg + offset.y * r,
                    -offset.x * r + offset.y * leg,
                ) / dist_sq
            };
            u = direction * relative.dot(direction) - relative;
        }
    } else {
        // Overlapping: leave the disc of the positions one tick ahead.
        (direction, u) = leave_disc(relative - offset / dt, r / dt);
    }
    HalfPlane {
        point: velocity + u * e.share,
        direction,
    }
}

/// The half-plane of velocities that keeps an agent clear of the neighbour of each of
/// `encounters` (whose coordinates on the plane are read) for its horizon, the agent moving at
/// the velocity beside it in `movers` (on the plane; see
/// [`half_spaces`](super::volume::half_spaces)), appended to
/// `out` in turn, with the agent taking `encounter.share` of the manoeuvre (ORCA:
/// the smallest change `u` of the relative velocity that leaves the velocity obstacle, of
/// which the agent makes `share`).
///
/// The velocity obstacle is the disc of radius `r / horizon` round `offset / horizon` (the
/// cut-off), extended by the cone from the origin tangent to it (the legs). Agents already
/// overlapping aim to part within one tick of `dt`. Eight encounters at a time on the lanes of
/// `simd`, which give the same bits.
pub(crate) fn half_planes(
    simd: SimdPath,
    encounters: &EncounterColumns,
    dt: f32,
    out: &mut Vec<HalfPlane>,
) {
    match simd {
        SimdPath::Portable => half_planes_on::<Pair>(encounters, dt, out),
        #[cfg(target_arch = "x86_64")]
        SimdPath::Avx2 => Avx::enter(
            #[inline(always)]
            || half_planes_on::<Avx>(encounters, dt, out),
        ),
    }
}

/// [`half_planes`] on lanes of form `V`, one encounter in each lane. Call it inside
/// [`Wide::enter`].
#[inline(always)]
fn half_planes_on<V: Wide>(encounters: &EncounterColumns, dt: f32, out: &mut Vec<HalfPlane>) {
    for at in (0..encounters.len()).step_by(WIDTH) {
        // Lanes past the end hold zeros, whose results (infinities and NaNs among them) are
        // never read.
        let lanes = |field| encounters.lanes::<V>(field, at);
        let live = (encounters.len() - at).min(WIDTH);
        let lanes = group_half_planes::<V>(
            [lanes(OffsetX), lanes(OffsetY)],
            [lanes(VelocityX), lanes(VelocityY)],
            [lanes(Radius), lanes(Horizon), lanes(Share)],
            [lanes(FixedApartX), lanes(FixedApartY)],
            (1 << live) - 1,
            [lanes(MoverX), lanes(MoverY)],
            dt,
        );
        let [px, py, dx, dy] = [
            lanes[0].to_array(),
            lanes[1].to_array(),
            lanes[2].to_array(),
            lanes[3].to_array(),
        ];
        out.extend((0..live).map(|k| HalfPlane {
            point: Vec2::new(px[k], py[k]),
            direction: Vec2::new(dx[k], dy[k]),
        }));
    }
}

/// The half-planes of one group of encounters, given by coordinates on lanes: each lane's case
/// (nearest the cut-off disc, nearest a leg, overlapping) decided first, and the inputs of the
/// divisions and roots picked by case before they run, once rather than once per case (they
/// are most of the work). `live` has a bit set for each lane that holds an encounter, `[vx, vy]`
/// is the velocity of the agent each lane's belongs to. Returns the points' and directions'
/// coordinates.
#[inline(always)]
fn group_half_planes<V: Wide>(
    [ox, oy]: [V; 2],
    [ex, ey]: [V; 2],
    [r, horizon, share]: [V; 3],
    [fx, fy]: [V; 2],
    live: u32,
    [vx, vy]: [V; 2],
    dt: f32,
) -> [V; 4] {
    let zero = V::splat(0.0);
    let (rx, ry) = (vx - ex, vy - ey);
    let dist_sq = ox * ox + oy * oy;
    let r_sq = r * r;
    let outside = dist_sq.cmpgt(r_sq);

    // From the centre of the cut-off disc (outside) or of the disc one tick ahead
    // (overlapping) to the relative velocity.
    let ahead = V::select(outside, horizon, V::splat(dt));
    let (wx, wy) = (rx - ox / ahead, ry - oy / ahead);
    let w_len_sq = wx * wx + wy * wy;
    let along = wx * ox + wy * oy;
    let cut_off = outside & along.cmplt(zero) & (along * along).cmpgt(r_sq * w_len_sq);

    // Nearest the cut-off disc, or overlapping: leave the disc along `w`, or where it has no
    // direction, away from the neighbour (see `Encounter::apart`).
    let w_len = w_len_sq.sqrt();
    let some = w_len.cmpgt(zero);
    let (mut unit_x, mut unit_y) = (wx / w_len, wy / w_len);
    if V::bitmask(some) & live != live {
        let (normal, recip) = recip_length_where_normal(dist_sq);
        let (ax, ay) = (
            V::select(normal, -ox * recip, fx),
            V::select(normal, -oy * recip, fy),
        );
        unit_x = V::select(some, unit_x, ax);
        unit_y = V::select(some, unit_y, ay);
    }
    let disc_direction = [unit_y, -unit_x];
    let scale = r / ahead - w_len;
    let disc_u = [unit_x * scale, unit_y * scale];

    // Nearest a leg: the tangent from the origin on the side the velocity leans to.
    let leg = (dist_sq - r_sq).sqrt();
    let left = (ox * wy - oy * wx).cmpgt(zero);
    let leg_direction = [
        V::select(left, ox * leg - oy * r, -(ox * leg + oy * r)) / dist_sq,
        V::select(left, ox * r + oy * leg, -(-ox * r + oy * leg)) / dist_sq,
    ];
    let along_leg = rx * leg_direction[0] + ry * leg_direction[1];
    let leg_u = [
        leg_direction[0] * along_leg - rx,
        leg_direction[1] * along_leg - ry,
    ];

    let mut direction = [zero; 2];
    let mut u = [zero; 2];
    for i in 0..2 {
        // The leg's where outside and not nearest the cut-off disc.
        direction[i] = V::select(
            cut_off,
            disc_direction[i],
            V::select(outside, leg_direction[i], disc_direction[i]),
        );
        u[i] = V::select(cut_off, disc_u[i], V::select(outside, leg_u[i], disc_u[i]));
    }
    [
        vx + u[0] * share,
        vy + u[1] * share,
        direction[0],
        direction[1],
    ]
}

impl HalfPlane {
    /// The velocities `v` with `normal . v <= bound`.
    pub(crate) fn at_most(normal: Vec2, bound: f32) -> Self {
        Self {
            point: normal * bound,
            direction: normal.perp(),
        }
    }
}

/// The velocity nearest `preferred` within `max_speed` that every half-plane allows, by the
/// program the plane shares with space (see [`linear::solve`]); also whether the half-planes
/// could not all be met. `projected` is scratch space.
pub(crate) fn solve(
    planes: &[HalfPlane],
    fixed: usize,
    max_speed: f32,
    preferred: Vec2,
    projected: &mut Vec<HalfPlane>,
) -> (Vec2, bool) {
    linear::solve(planes, fixed, max_speed, preferred, projected)
}

impl Constraint for HalfPlane {
    type V = Vec2;

    #[inline]
    fn violation(&self, v: Vec2) -> f32 {
        det(self.direction, self.point - v)
    }

    #[inline]
    fn on_boundary(
        planes: &[Self],
        k: usize,
        radius: f32,
        target: Vec2,
        along_target: bool,
    ) -> Option<Vec2> {
        program_1(planes, k, radius, target, along_target)
    }

    fn equal_violation(&self, other: &Self) -> Option<Self> {
        let determinant = det(self.direction, other.direction);
        let point = if determinant.abs() <= PARALLEL {
            if self.direction.dot(other.direction) > 0.0 {
                // Same direction: `other` adds nothing.
                return None;
            }
            (self.point + other.point) * 0.5
        } else {
            self.point
                + self.direction * (det(other.direction, self.point - other.point) / determinant)
        };
        Some(HalfPlane {
            point,
            direction: (other.direction - self.direction).normalize_or_zero(),
        })
    }

    #[inline]
    fn outward(&self) -> Vec2 {
        Vec2::new(-self.direction.y, self.direction.x)
    }
}

/// The point of half-plane `k`'s line, within the disc of `radius`, allowed by every earlier
/// half-plane and nearest `target` (or, with `along_target`, furthest along the unit direction
/// `target`). `None` when no point of the line is allowed.
fn program_1(
    planes: &[HalfPlane],
    k: usize,
    radius: f32,
    target: Vec2,
    along_target: bool,
) -> Option<Vec2> {
    let line = planes[k];
    let dot = line.point.dot(line.direction);
    let discriminant = dot * dot + radius * radius - line.point.length_squared();
    if discriminant < 0.0 {
        // The line misses the disc.
        return None;
    }
    let root = discriminant.sqrt();
    let (mut t_left, mut t_right) = (-dot - root, -dot + root);
    for earlier in &planes[..k] {
        let denominator = det(line.direction, earlier.direction);
        let numerator = det(earlier.direction, line.point - earlier.point);
        if denominator.abs() <= PARALLEL {
            // Parallel lines: either the earlier allows all of this one or none of it.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
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
