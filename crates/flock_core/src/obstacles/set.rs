//! The built-in obstacles of a tick, binned in a coarse grid, and the sphere tracing that casts
//! and sweeps against them.

use glam::{IVec3, Vec3, Vec4};
use std::collections::HashMap;

use super::{CastHit, LEAVING_CONTACT, ObstacleQuery, Shape};

/// Steps of a cast before it gives up and reports a hit where it stands (conservative).
const CAST_STEPS: usize = 24;
/// A cast has hit when it comes this close to the grown surface.
const HIT_DISTANCE: f32 = 1e-3;
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

/// The obstacles of a tick, binned in a coarse grid so that an agent checks only those near it.
#[derive(Clone, Debug, Default)]
pub struct ObstacleSet {
    shapes: Vec<Shape>,
    /// By shape: a ball holding it (`w` its radius, infinite for a half-space), whose distance
    /// bounds the shape's from below, so that [`nearest`](Self::nearest) skips shapes it
    /// cannot beat.
    balls: Vec<Vec4>,
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
    /// The shapes and reach of the last rebuild as given, and how many of them were skipped:
    /// a rebuild with the same keeps the bins (a terrain's thousands of walls stand still).
    input: Vec<Shape>,
    input_reach: Option<u32>,
    skipped: usize,
    /// Where a rebuild's shapes are gathered to compare with the last.
    staging: Vec<Shape>,
}

/// How much farther than the nearest shape so far a shape's ball must be for the shape to be
/// skipped: far more than the rounding of a distance, so that skipping never changes the answer.
const BALL_SLACK: f32 = 1e-3;

/// Bounded shapes spanning more cells than this are checked by every agent in the bounds.
const MAX_CELLS_PER_SHAPE: i64 = 512;

impl ObstacleSet {
    /// Bins `shapes` so that every shape within `reach` of a point is found from that point's
    /// cell (casts step `reach` at a time where none is). Invalid shapes are skipped; returns
    /// how many.
    pub fn rebuild(&mut self, shapes: impl IntoIterator<Item = Shape>, reach: f32) -> usize {
        let mut staging = core::mem::take(&mut self.staging);
        staging.clear();
        staging.extend(shapes);
        // Unchanged obstacles keep their bins: the same result without the binning. (A NaN in
        // a shape makes it unequal to itself, so such a set is simply binned again.)
        if self.input_reach == Some(reach.to_bits()) && staging == self.input {
            self.staging = staging;
            return self.skipped;
        }
        self.staging = core::mem::replace(&mut self.input, staging);
        self.input_reach = Some(reach.to_bits());
        self.skipped = self.bin_input(reach);
        self.skipped
    }

    /// Bins the shapes of `self.input`; returns how many were invalid.
    fn bin_input(&mut self, reach: f32) -> usize {
        self.shapes.clear();
        self.balls.clear();
        self.unbounded.clear();
        // Cells keep their (emptied) lists for this rebuild: a terrain's walls fill the same
        // cells again without a storm of allocations and frees.
        for ids in self.cells.values_mut() {
            ids.clear();
        }
        self.large.clear();
        self.bounds = None;
        self.reach = if reach.is_finite() && reach > 0.0 {
            reach
        } else {
            1.0
        };
        self.cell_size = self.reach.max(1.0);
        let mut skipped = 0;
        for k in 0..self.input.len() {
            let shape = self.input[k];
            if !shape.is_valid() {
                skipped += 1;
                continue;
            }
            let shape = shape.normalized();
            let id = self.shapes.len() as u32;
            self.shapes.push(shape);
            self.balls.push(shape.ball());
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
        // Cells left empty are dropped once they outnumber those in use, so that obstacles
        // moving across a large world do not pile up cells.
        let in_use = self.cells.values().filter(|ids| !ids.is_empty()).count();
        if self.cells.len() > 2 * in_use + 1024 {
            self.cells.retain(|_, ids| !ids.is_empty());
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

    /// How many grid cells the set keeps lists for, empty ones included.
    #[cfg(test)]
    pub(crate) fn cell_count(&self) -> usize {
        self.cells.len()
    }

    fn cell_of(&self, p: Vec3) -> IVec3 {
        (p / self.cell_size).floor().as_ivec3()
    }

    /// Calls `visit` with the index of every shape that may lie within the reach of `p`.
    #[inline]
    fn for_each_near(&self, p: Vec3, mut visit: impl FnMut(usize)) {
        for &id in &self.unbounded {
            visit(id as usize);
        }
        let Some((lo, hi)) = self.bounds else {
            return;
        };
        if p.cmplt(lo).any() || p.cmpgt(hi).any() {
            return;
        }
        for &id in &self.large {
            visit(id as usize);
        }
        if let Some(ids) = self.cells.get(&self.cell_of(p)) {
            for &id in ids {
                visit(id as usize);
            }
        }
    }

    /// Signed distance from `p` to the nearest obstacle within reach of it (negative inside
    /// one), or `None` when none is that near.
    pub fn distance(&self, p: Vec3) -> Option<f32> {
        self.nearest(p).map(|(d, _)| d)
    }

    /// Signed distance from `p` to the nearest shape near it, and that shape (the first of
    /// equals, in the order of [`for_each_near`](Self::for_each_near)). A shape whose ball is
    /// farther than the nearest so far (by more than [`BALL_SLACK`], for rounding) cannot be
    /// nearer, and is not measured: among a terrain's walls, most are not.
    fn nearest(&self, p: Vec3) -> Option<(f32, Shape)> {
        let mut best: Option<(f32, Shape)> = None;
        self.for_each_near(p, |id| {
            let ball = self.balls[id];
            if let Some((b, _)) = best
                && p.distance(ball.truncate()) - ball.w > b + BALL_SLACK
            {
                return;
            }
            let shape = &self.shapes[id];
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
