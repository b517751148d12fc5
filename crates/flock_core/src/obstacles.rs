//! Solid shapes agents steer around and never enter: a sphere cast along each agent's heading,
//! a fan search for the nearest clear direction, and a hard boundary in integration.
//!
//! [`ObstacleQuery`] is what avoidance and integration ask of obstacles. [`ObstacleSet`] answers
//! it from built-in [`Shape`]s; a physics backend answers it from its colliders.
//!
//! The built-in casts march along signed distance fields (sphere tracing), one exact field per
//! shape, so every shape is cast the same way, with a fixed budget of steps.

use glam::{IVec3, Quat, Vec3};
use std::collections::HashMap;

use crate::Space;
use crate::params::{Checker, Correction};

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
    fn normalized(self) -> Self {
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

    /// The shape's axis-aligned bounds grown by `margin`, or `None` when unbounded.
    fn bounds(&self, margin: f32) -> Option<(Vec3, Vec3)> {
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
fn box_local(p: Vec3, centre: Vec3, half_extents: Vec3, rotation: Quat) -> (Vec3, Vec3) {
    let local = rotation.inverse() * (p - centre);
    (local, local.abs() - half_extents)
}

/// The rotation by `angle` radians about unit `axis`, with libm's sine and cosine so that it is
/// the same on every platform.
pub(crate) fn rotation(axis: Vec3, angle: f32) -> Quat {
    let (sin, cos) = (libm::sinf(angle * 0.5), libm::cosf(angle * 0.5));
    Quat::from_xyzw(axis.x * sin, axis.y * sin, axis.z * sin, cos)
}

fn closest_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq <= f32::EPSILON {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len_sq).clamp(0.0, 1.0)
}

/// How agents look ahead for obstacles (seed 000's values by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceParams {
    /// Radius of the ball cast ahead of each agent.
    pub cast_radius: f32,
    /// Look-ahead at rest; it grows linearly with speed...
    pub min_look_ahead: f32,
    /// ...to this at max speed.
    pub max_look_ahead: f32,
    /// Half the angle of the fan searched for a clear direction, in degrees.
    pub fan_degrees: f32,
    /// Seconds an agent keeps a chosen avoidance direction while it stays clear, even once
    /// straight ahead is clear again, so that it commits to a detour instead of wavering
    /// between the obstacle and its target; the hold starts again for as long as the way to
    /// its target stays blocked, so that it follows a wall to its end. Zero: no hold.
    pub hold_seconds: f32,
}

/// An avoidance direction an agent keeps for a while (see [`AvoidanceParams::hold_seconds`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceHold {
    /// The unit direction kept.
    pub direction: Vec3,
    /// Seconds it is still kept.
    pub seconds_left: f32,
}

impl Default for AvoidanceParams {
    /// Cast radius 0.35, look-ahead 1.5 to 5, a fan of up to 150 degrees either side, and
    /// seed 004's hold of 0.5 s.
    fn default() -> Self {
        Self {
            cast_radius: 0.35,
            min_look_ahead: 1.5,
            max_look_ahead: 5.0,
            fan_degrees: 150.0,
            hold_seconds: 0.5,
        }
    }
}

impl AvoidanceParams {
    /// Returns these parameters made safe, with one [`Correction`] per value that had to
    /// change, as [`AgentParams::sanitized`](crate::AgentParams::sanitized) does: non-finite or
    /// negative values become the defaults, magnitudes are capped at
    /// [`LARGEST_PARAMETER`](crate::LARGEST_PARAMETER), the look-ahead at max speed is at least
    /// the one at rest, and the fan is at most 180 degrees wide on each side.
    pub fn sanitized(mut self) -> (Self, Vec<Correction>) {
        let mut check = Checker::default();
        let d = Self::default();
        check.non_negative(
            "avoidance.cast_radius",
            &mut self.cast_radius,
            d.cast_radius,
        );
        check.non_negative(
            "avoidance.min_look_ahead",
            &mut self.min_look_ahead,
            d.min_look_ahead,
        );
        check.non_negative(
            "avoidance.max_look_ahead",
            &mut self.max_look_ahead,
            d.max_look_ahead,
        );
        if self.max_look_ahead < self.min_look_ahead {
            let min = self.min_look_ahead;
            check.fix(
                "avoidance.max_look_ahead",
                &mut self.max_look_ahead,
                min,
                "must not be below avoidance.min_look_ahead",
            );
        }
        check.non_negative(
            "avoidance.hold_seconds",
            &mut self.hold_seconds,
            d.hold_seconds,
        );
        check.non_negative(
            "avoidance.fan_degrees",
            &mut self.fan_degrees,
            d.fan_degrees,
        );
        if self.fan_degrees > 180.0 {
            check.fix(
                "avoidance.fan_degrees",
                &mut self.fan_degrees,
                180.0,
                "must be at most 180 degrees",
            );
        }
        (self, check.corrections)
    }
}

/// Steps of a cast before it gives up and reports a hit where it stands (conservative).
const CAST_STEPS: usize = 24;
/// A cast has hit when it comes this close to the grown surface.
const HIT_DISTANCE: f32 = 1e-3;
/// Directions tried on each side of the heading in the fan search.
const FAN_STEPS: usize = 10;
/// Agents are kept this far outside every shape.
const SKIN: f32 = 1e-3;
/// A movement sweep stops this close to a surface: nearer than the skin, so that an agent
/// resting on a surface can still slide along it.
const SWEEP_HIT: f32 = 1e-4;

/// How a sphere trace ended.
enum March {
    /// Within the hit distance of a surface, after travelling this far.
    Hit(f32),
    /// Past the length, or away from every shape.
    Clear,
    /// Out of steps after travelling this far.
    Exhausted(f32),
}

/// Where a cast first touched an obstacle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit {
    /// How far the cast travelled before touching.
    pub distance: f32,
    /// Unit normal of the surface touched, pointing out of the obstacle.
    pub normal: Vec3,
}

/// What obstacle avoidance and integration ask of a set of obstacles: a ball cast ahead, and a
/// move that never ends inside one. [`ObstacleSet`] implements it for built-in shapes; physics
/// backends implement it over their colliders.
pub trait ObstacleQuery: Sync {
    /// Whether there is nothing to avoid: the avoidance pass and the integration sweep skip
    /// their work then.
    fn is_empty(&self) -> bool;

    /// Casts a ball of `radius` from `origin` along unit `dir` for `length`: the first contact,
    /// or `None` when the way is clear. A ball that starts touching an obstacle hits at 0.
    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit>;

    /// Whether the way is clear for a ball, as for [`cast`](Self::cast) finding nothing,
    /// except that a ball that starts in contact with a surface is not stopped by it while it
    /// leaves it at least [`LEAVING_CONTACT`] steeply: the fan search and a held direction ask
    /// for ways out, where the cast ahead asks whether the agent is too close.
    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool;

    /// Moves `from -> to` but never into an obstacle: the motion stops just outside the first
    /// surface it crosses (so a fast agent cannot tunnel through a thin wall), and a point
    /// already inside is pushed out. Returns the allowed point and the outward normal of the
    /// surface it was stopped by, if any.
    fn constrain(&self, from: Vec3, to: Vec3) -> (Vec3, Option<Vec3>);
}

/// How steeply (the sine of the angle to the surface) a ball that starts in contact must
/// leave it for [`ObstacleQuery::is_clear`] to let it go.
pub const LEAVING_CONTACT: f32 = 0.5;

/// Which way an agent blocked ahead should go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Avoidance {
    /// The clear direction of the fan nearest to the heading.
    Clear(Vec3),
    /// No direction of the fan is clear: away from the obstacle ahead, along its normal.
    Back(Vec3),
}

impl Avoidance {
    /// The unit direction to steer along.
    pub fn direction(self) -> Vec3 {
        match self {
            Avoidance::Clear(dir) | Avoidance::Back(dir) => dir,
        }
    }
}

/// Where an agent at `p` heading along unit `heading` should steer, or `None` when straight
/// ahead is clear for `look_ahead`. Searches a fan of directions turning away from the obstacle
/// ahead (on the plane: in the plane), nearest to the heading first, and takes the first clear
/// one; if none is, the obstacle's normal.
pub fn avoidance_direction(
    obstacles: &(impl ObstacleQuery + ?Sized),
    p: Vec3,
    heading: Vec3,
    look_ahead: f32,
    params: &AvoidanceParams,
    space: Space,
) -> Option<Avoidance> {
    let r = params.cast_radius;
    let hit = obstacles.cast(p, heading, look_ahead, r)?;
    let normal = match space {
        Space::Volume => hit.normal,
        Space::Planar => hit.normal.with_z(0.0),
    }
    .try_normalize()
    .unwrap_or(-heading);
    // Turn toward the side the normal leans to: the axis of rotation is heading x normal
    // (on the plane, z), with its sign chosen so that the first turn goes that way.
    let axis = match space {
        Space::Planar => Vec3::Z * heading.cross(normal).z.signum().max(-1.0),
        Space::Volume => heading
            .cross(normal)
            .try_normalize()
            .or_else(|| heading.any_orthonormal_vector().try_normalize())
            .unwrap_or(Vec3::Y),
    };
    let axis = if axis == Vec3::ZERO { Vec3::Z } else { axis };
    let step = params.fan_degrees.to_radians() / FAN_STEPS as f32;
    for k in 1..=FAN_STEPS {
        for side in [1.0, -1.0] {
            let dir = rotation(axis, side * step * k as f32) * heading;
            if obstacles.is_clear(p, dir, look_ahead, r) {
                return Some(Avoidance::Clear(dir));
            }
        }
    }
    Some(Avoidance::Back(normal))
}

/// The obstacles of a tick, binned in a coarse grid so that an agent checks only those near it.
#[derive(Clone, Debug, Default)]
pub struct ObstacleSet {
    shapes: Vec<Shape>,
    /// Shapes without bounds (half-spaces), checked by everyone.
    unbounded: Vec<u32>,
    /// Bounded shapes by cell, grown by the largest reach.
    cells: HashMap<IVec3, Vec<u32>>,
    /// Shapes too large to bin, checked by everyone inside `bounds`.
    large: Vec<u32>,
    cell_size: f32,
    /// How far from a point every shape is found (see [`ObstacleSet::rebuild`]).
    reach: f32,
    /// Box around every bounded shape, grown by the reach.
    bounds: Option<(Vec3, Vec3)>,
}

/// Bounded shapes spanning more cells than this are checked by every agent in the bounds.
const MAX_CELLS_PER_SHAPE: i64 = 512;

impl ObstacleSet {
    /// Bins `shapes` so that every shape within `reach` of a point is found from that point's
    /// cell (casts step `reach` at a time where none is). Invalid shapes are skipped; returns
    /// how many.
    pub fn rebuild(&mut self, shapes: impl IntoIterator<Item = Shape>, reach: f32) -> usize {
        self.shapes.clear();
        self.unbounded.clear();
        self.cells.clear();
        self.large.clear();
        self.bounds = None;
        self.reach = if reach.is_finite() && reach > 0.0 {
            reach
        } else {
            1.0
        };
        self.cell_size = self.reach.max(1.0);
        let mut skipped = 0;
        for shape in shapes {
            if !shape.is_valid() {
                skipped += 1;
                continue;
            }
            let shape = shape.normalized();
            let id = self.shapes.len() as u32;
            self.shapes.push(shape);
            let Some((lo, hi)) = shape.bounds(self.reach) else {
                self.unbounded.push(id);
                continue;
            };
            self.bounds = Some(match self.bounds {
                Some((a, b)) => (a.min(lo), b.max(hi)),
                None => (lo, hi),
            });
            let (c0, c1) = (self.cell_of(lo), self.cell_of(hi));
            let span = c1.as_i64vec3() - c0.as_i64vec3() + 1;
            if span.x.saturating_mul(span.y).saturating_mul(span.z) > MAX_CELLS_PER_SHAPE {
                self.large.push(id);
                continue;
            }
            for z in c0.z..=c1.z {
                for y in c0.y..=c1.y {
                    for x in c0.x..=c1.x {
                        self.cells.entry(IVec3::new(x, y, z)).or_default().push(id);
                    }
                }
            }
        }
        skipped
    }

    /// Number of shapes.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    fn cell_of(&self, p: Vec3) -> IVec3 {
        (p / self.cell_size).floor().as_ivec3()
    }

    /// Calls `visit` with every shape that may lie within the reach of `p`.
    fn for_each_near(&self, p: Vec3, mut visit: impl FnMut(&Shape)) {
        for &id in &self.unbounded {
            visit(&self.shapes[id as usize]);
        }
        let Some((lo, hi)) = self.bounds else {
            return;
        };
        if p.cmplt(lo).any() || p.cmpgt(hi).any() {
            return;
        }
        for &id in &self.large {
            visit(&self.shapes[id as usize]);
        }
        if let Some(ids) = self.cells.get(&self.cell_of(p)) {
            for &id in ids {
                visit(&self.shapes[id as usize]);
            }
        }
    }

    /// Signed distance from `p` to the nearest obstacle within reach of it (negative inside
    /// one), or `None` when none is that near.
    pub fn distance(&self, p: Vec3) -> Option<f32> {
        self.nearest(p).map(|(d, _)| d)
    }

    /// Signed distance from `p` to the nearest shape near it, and that shape.
    fn nearest(&self, p: Vec3) -> Option<(f32, Shape)> {
        let mut best: Option<(f32, Shape)> = None;
        self.for_each_near(p, |shape| {
            let d = shape.distance(p);
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, *shape));
            }
        });
        best
    }

    /// Sphere tracing: steps along `dir` by the distance to the nearest surface (less
    /// `radius`, and at least `min_step`) until within `hit` of it, past `length`, or out of
    /// steps.
    fn march(
        &self,
        p: Vec3,
        dir: Vec3,
        length: f32,
        radius: f32,
        hit: f32,
        min_step: f32,
    ) -> March {
        let mut t = 0.0;
        for _ in 0..CAST_STEPS {
            // No shape near the point means none within the reach: step that far.
            let gap = match self.nearest(p + dir * t) {
                Some((d, _)) => d - radius,
                None if self.reach > radius => self.reach - radius,
                None => self.reach,
            };
            if gap <= hit {
                return March::Hit(t);
            }
            t += gap.max(min_step);
            if t >= length {
                return March::Clear;
            }
        }
        March::Exhausted(t)
    }
}

impl ObstacleQuery for ObstacleSet {
    fn is_empty(&self) -> bool {
        ObstacleSet::is_empty(self)
    }

    /// A cast that runs out of steps (grazing a surface) counts as a hit where it stands.
    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        match self.march(origin, dir, length, radius, HIT_DISTANCE, 0.0) {
            March::Clear => None,
            March::Hit(t) | March::Exhausted(t) => {
                let contact = origin + dir * t;
                let normal = self
                    .nearest(contact)
                    .map_or(-dir, |(_, shape)| shape.normal(contact));
                Some(CastHit {
                    distance: t,
                    normal,
                })
            }
        }
    }

    /// A ball that starts in contact and leaves steeply enough hits only where it comes
    /// nearer to a surface than it started, stepping at least a tenth of the reach at a time
    /// (the distance it is given to step is about zero).
    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        let (hit, min_step) = match self.nearest(origin) {
            Some((d, shape)) if d - radius <= HIT_DISTANCE => {
                if dir.dot(shape.normal(origin)) < LEAVING_CONTACT {
                    return false;
                }
                (d - radius - HIT_DISTANCE, self.reach * 0.1)
            }
            _ => (HIT_DISTANCE, 0.0),
        };
        matches!(
            self.march(origin, dir, length, radius, hit, min_step),
            March::Clear
        )
    }

    fn constrain(&self, from: Vec3, to: Vec3) -> (Vec3, Option<Vec3>) {
        if self.shapes.is_empty() {
            return (to, None);
        }
        let mut stopped = None;
        let mut end = to;
        let travel = to - from;
        let length = travel.length();
        // Nothing is nearer than the clearance at the start (at least the reach when no shape
        // is near), so a shorter move is free.
        let clearance = self.nearest(from).map_or(self.reach, |(d, _)| d);
        if length + SKIN < clearance {
            return (to, None);
        }
        // A sweep that runs out of steps is grazing a surface: it stops there too (going on
        // could cross a thin wall), and integration slides the rest of the way along it.
        if let Some(dir) = travel.try_normalize()
            && let March::Hit(t) | March::Exhausted(t) =
                self.march(from, dir, length, 0.0, SWEEP_HIT, 0.0)
        {
            end = from + dir * t;
            stopped = self.nearest(end).map(|(_, shape)| shape.normal(end));
        }
        // Whatever is still inside (a start inside a shape, overlapping shapes) is pushed out.
        for _ in 0..4 {
            match self.nearest(end) {
                Some((d, shape)) if d < SKIN => {
                    let n = shape.normal(end);
                    end += n * (SKIN - d);
                    stopped = Some(n);
                }
                _ => break,
            }
        }
        (end, stopped)
    }
}
