//! The built-in obstacles of a tick, binned in a coarse grid: exact ball casts against them,
//! and the sphere tracing that sweeps moves.

use core::sync::atomic::{AtomicU64, Ordering};

use glam::Vec3;

use super::bins::Bins;
use super::hull::Hull;
use super::query::{CastHit, LEAVING_CONTACT, ObstacleQuery};
use super::shape::Shape;

/// Steps of a sphere trace (a move's sweep) before it gives up and stops where it stands
/// (conservative).
const CAST_STEPS: usize = 24;
/// A cast has hit when it comes this close to the grown surface: casts are of the ball grown
/// by this.
pub(crate) const HIT_DISTANCE: f32 = 1e-3;

/// How a sphere trace ended.
pub(super) enum March {
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
    pub(super) shapes: Vec<Shape>,
    /// By shape: a capsule holding it, whose distance bounds the shape's from below, so that
    /// queries skip shapes they cannot touch or beat.
    pub(super) hulls: Vec<Hull>,
    /// Shapes without bounds (half-spaces), checked by everyone.
    unbounded: Vec<u32>,
    /// The bounded shapes binned: every one within the reach of a point is found from its
    /// cell.
    bins: Bins,
    /// The shapes and reach of the last rebuild as given, and how many of them were skipped:
    /// a rebuild with the same keeps the bins (a terrain's thousands of walls stand still).
    input: Vec<Shape>,
    input_reach: Option<u32>,
    skipped: usize,
    /// Where a rebuild's shapes are gathered to compare with the last.
    staging: Vec<Shape>,
    /// Unique to the shapes as last binned, in this process (see [`generation`](Self::generation)).
    generation: u64,
}

/// The last [`ObstacleSet::generation`] given.
static GENERATIONS: AtomicU64 = AtomicU64::new(0);

/// Cells hold the shapes within the reach and this much more, so that a cast as long as the
/// reach (less its radius), of a ball grown by [`HIT_DISTANCE`], still reads one cell.
pub(super) const BIN_SLACK: f32 = 2.0 * HIT_DISTANCE;

/// How much farther than the nearest shape so far a shape's hull must be for the shape to be
/// skipped: far more than the rounding of a distance, so that skipping never changes the answer.
pub(super) const HULL_SLACK: f32 = 1e-3;

/// A cast longer than the reach whose way spans more cells than this tests every shape.
const MAX_CELLS_PER_CAST: i64 = 512;

impl ObstacleSet {
    /// Bins `shapes` so that every shape within `reach` of a point is found from that point's
    /// cell (a sweep steps `reach` at a time where none is, and a cast within the reach of its
    /// start reads that one cell), in cubes as wide as the reach. Invalid shapes are skipped;
    /// returns how many.
    pub fn rebuild(&mut self, shapes: impl IntoIterator<Item = Shape>, reach: f32) -> usize {
        self.rebuild_binned(shapes, reach, false)
    }

    /// [`rebuild`](Self::rebuild) for queries from a plane (a crowd in
    /// [`Space::Planar`](crate::Space::Planar)): cells are columns that span every height, half
    /// the reach wide, so that a cell holds the shapes within the reach of a narrower patch of
    /// the plane (about two thirds as many as a cube's as wide as the reach), while a shape is
    /// binned in no more cells. Queries from anywhere get the same answers as from
    /// [`rebuild`](Self::rebuild)'s cells.
    pub fn rebuild_on_plane(
        &mut self,
        shapes: impl IntoIterator<Item = Shape>,
        reach: f32,
    ) -> usize {
        self.rebuild_binned(shapes, reach, true)
    }

    /// Bins `shapes` in columns or cubes; skips the binning when they, `reach` and the cells'
    /// kind are as last time.
    fn rebuild_binned(
        &mut self,
        shapes: impl IntoIterator<Item = Shape>,
        reach: f32,
        columns: bool,
    ) -> usize {
        let mut staging = core::mem::take(&mut self.staging);
        staging.clear();
        staging.extend(shapes);
        // Unchanged obstacles keep their bins: the same result without the binning. (A NaN in
        // a shape makes it unequal to itself, so such a set is simply binned again.)
        if self.input_reach == Some(reach.to_bits())
            && self.bins.is_in_columns() == columns
            && staging == self.input
        {
            self.staging = staging;
            return self.skipped;
        }
        self.staging = core::mem::replace(&mut self.input, staging);
        self.input_reach = Some(reach.to_bits());
        self.skipped = self.bin_input(reach, columns);
        self.generation = GENERATIONS.fetch_add(1, Ordering::Relaxed) + 1;
        self.skipped
    }

    /// Bins the shapes of `self.input` in columns or cubes; returns how many were invalid.
    fn bin_input(&mut self, reach: f32, columns: bool) -> usize {
        self.shapes.clear();
        self.hulls.clear();
        self.unbounded.clear();
        let reach = if reach.is_finite() && reach > 0.0 {
            reach
        } else {
            1.0
        };
        let mut skipped = 0;
        for k in 0..self.input.len() {
            let shape = self.input[k];
            if !shape.is_valid() {
                skipped += 1;
                continue;
            }
            let shape = shape.normalized();
            if shape.bounds(0.0).is_none() {
                self.unbounded.push(self.shapes.len() as u32);
            }
            self.shapes.push(shape);
            self.hulls.push(Hull::of(&shape));
        }
        self.bins.fill(&self.shapes, (reach, BIN_SLACK), columns);
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

    /// How far from a point the bins find every shape (see [`rebuild`](Self::rebuild)).
    pub(super) fn reach(&self) -> f32 {
        self.bins.reach()
    }

    /// A number unique to the shapes as last binned in this process (a copy of the set keeps
    /// it), and 0 before any were: what was measured of a set holds while its generation is
    /// the same.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// How many cells the bins' grid has.
    #[cfg(test)]
    pub(crate) fn cell_count(&self) -> usize {
        self.bins.cell_count()
    }

    /// Whether the last rebuild binned the shapes in columns.
    #[cfg(test)]
    pub(crate) fn is_binned_in_columns(&self) -> bool {
        self.bins.is_in_columns()
    }

    /// Calls `visit` with the index of every shape that may lie within the reach of `p`: the
    /// unbounded ones, then those the bins find.
    #[inline]
    pub(super) fn for_each_near(&self, p: Vec3, mut visit: impl FnMut(usize)) {
        for &id in &self.unbounded {
            visit(id as usize);
        }
        self.bins.for_each_near(p, visit);
    }

    /// Calls `each` with the index of each of the `listed` shapes if given, else of every
    /// shape [`for_each_near`](Self::for_each_near) visits.
    #[inline]
    pub(super) fn visit(&self, p: Vec3, listed: Option<&[u32]>, mut each: impl FnMut(usize)) {
        match listed {
            Some(ids) => ids.iter().for_each(|&id| each(id as usize)),
            None => self.for_each_near(p, each),
        }
    }

    /// Signed distance from `p` to the nearest obstacle within reach of it (negative inside
    /// one), or `None` when none is that near.
    pub fn distance(&self, p: Vec3) -> Option<f32> {
        self.nearest(p).map(|(d, _)| d)
    }

    /// Signed distance from `p` to the nearest shape near it, and that shape (the first of
    /// equals, in the order of [`for_each_near`](Self::for_each_near)). A shape whose hull is
    /// farther than the nearest so far (by more than [`HULL_SLACK`], for rounding) cannot be
    /// nearer, and is not measured: among a terrain's walls, most are not.
    pub(super) fn nearest(&self, p: Vec3) -> Option<(f32, Shape)> {
        self.nearest_among(p, None)
    }

    /// [`nearest`](Self::nearest), among the `listed` shapes (in their order) when given: every
    /// one that may be the nearest must be among them.
    pub(super) fn nearest_among(&self, p: Vec3, listed: Option<&[u32]>) -> Option<(f32, Shape)> {
        let mut best: Option<(f32, Shape)> = None;
        self.visit(p, listed, |id| {
            if let Some((b, _)) = best
                && self.hulls[id].is_beyond(p, b + HULL_SLACK)
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

    /// The first shape a ball of `radius` moving from `origin` along unit `dir` touches within
    /// `length`, and how far it went (0 if it starts touching), the first of equals in the
    /// order shapes are visited. A shape whose hull lies farther from the way than `radius` (by
    /// more than [`HULL_SLACK`]) cannot be touched and is not measured. A way
    /// and ball within the reach of `origin` (every cast of the crowd's avoidance) read one
    /// cell; a longer one reads every cell round the way, or every shape once those would
    /// outnumber [`MAX_CELLS_PER_CAST`]. With `listed`, only those shapes are visited, in
    /// their order: every one the ball may touch must be among them.
    fn first_touch(
        &self,
        origin: Vec3,
        dir: Vec3,
        length: f32,
        radius: f32,
        listed: Option<&[u32]>,
    ) -> Option<(f32, usize)> {
        let mut best: Option<(f32, usize)> = None;
        let mut touch = |id: usize| {
            let limit = best.map_or(length, |(t, _)| t);
            if self.hulls[id].is_off_way(origin, dir, limit, radius + HULL_SLACK) {
                return;
            }
            if let Some(t) = self.shapes[id].cast(origin, dir, limit, radius)
                && best.is_none_or(|(b, _)| t < b)
            {
                best = Some((t, id));
            }
        };
        if listed.is_some() || length + radius <= self.reach() + BIN_SLACK {
            self.visit(origin, listed, touch);
            return best;
        }
        // Every point within `radius` of the way lies within the reach of a cell the way's
        // bounds, grown by what the radius exceeds the reach by, overlap.
        let grow = (radius - self.reach() - BIN_SLACK).max(0.0);
        let end = origin + dir * length;
        let (lo, hi) = (origin.min(end) - grow, origin.max(end) + grow);
        let (c0, c1) = (self.bins.cell_of(lo), self.bins.cell_of(hi));
        let span = c1.as_i64vec3() - c0.as_i64vec3() + 1;
        let ids: Vec<u32> =
            if span.x.saturating_mul(span.y).saturating_mul(span.z) > MAX_CELLS_PER_CAST {
                (0..self.shapes.len() as u32).collect()
            } else {
                let mut ids = self.unbounded.clone();
                self.bins.extend_from_cells(c0, c1, &mut ids);
                ids.sort_unstable();
                ids.dedup();
                ids
            };
        for id in ids {
            touch(id as usize);
        }
        best
    }

    /// [`ObstacleQuery::cast`], among the `listed` shapes when given (see
    /// [`first_touch`](Self::first_touch)).
    pub(super) fn cast_among(
        &self,
        origin: Vec3,
        dir: Vec3,
        length: f32,
        radius: f32,
        listed: Option<&[u32]>,
    ) -> Option<CastHit> {
        let (t, id) = self.first_touch(origin, dir, length, radius + HIT_DISTANCE, listed)?;
        let contact = origin + dir * t;
        Some(CastHit {
            distance: t,
            normal: self.shapes[id].normal(contact),
        })
    }

    /// [`ObstacleQuery::is_clear`], among the `listed` shapes when given (see
    /// [`first_touch`](Self::first_touch)); a centre on a surface traces the way
    /// among every shape.
    pub(super) fn is_clear_among(
        &self,
        origin: Vec3,
        dir: Vec3,
        length: f32,
        radius: f32,
        listed: Option<&[u32]>,
    ) -> bool {
        match self.first_touch(origin, dir, length, radius + HIT_DISTANCE, listed) {
            None => return true,
            Some((t, _)) if t > 0.0 => return false,
            Some(_) => {}
        }
        let Some((d, shape)) = self.nearest_among(origin, listed) else {
            return true;
        };
        if dir.dot(shape.normal(origin)) < LEAVING_CONTACT {
            return false;
        }
        let shrunk = d - HIT_DISTANCE;
        if shrunk > 0.0 {
            self.first_touch(origin, dir, length, shrunk, listed)
                .is_none()
        } else {
            let hit = d - radius - HIT_DISTANCE;
            let gap_at = |q| self.gap(self.nearest(q), radius);
            let march = march(gap_at, origin, dir, length, hit, self.reach() * 0.1);
            matches!(march, March::Clear)
        }
    }

    /// The gap between a ball of `radius` and the `nearest` shape (as
    /// [`nearest`](Self::nearest) answers), or the reach's when none is near: no shape is
    /// nearer than that.
    pub(super) fn gap(&self, nearest: Option<(f32, Shape)>, radius: f32) -> f32 {
        match nearest {
            Some((d, _)) => d - radius,
            None if self.reach() > radius => self.reach() - radius,
            None => self.reach(),
        }
    }
}

/// Sphere tracing: steps along `dir` by the gap `gap_at` a point (see [`ObstacleSet::gap`]),
/// and at least `min_step`, until within `hit` of a surface, past `length`, or out of steps.
pub(super) fn march(
    gap_at: impl Fn(Vec3) -> f32,
    p: Vec3,
    dir: Vec3,
    length: f32,
    hit: f32,
    min_step: f32,
) -> March {
    let mut t = 0.0;
    for _ in 0..CAST_STEPS {
        let gap = gap_at(p + dir * t);
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

impl ObstacleQuery for ObstacleSet {
    fn is_empty(&self) -> bool {
        ObstacleSet::is_empty(self)
    }

    /// Exact: the first touch of the ball grown by a thousandth, against every shape binned
    /// within reach of the way (one cell for a cast within the set's reach).
    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        self.cast_among(origin, dir, length, radius, None)
    }

    /// A ball that starts in contact and leaves steeply enough hits only where it comes
    /// a thousandth nearer to a surface than it started: it is cast with its radius shrunk
    /// to that. A centre on or inside a surface (nothing to shrink to) is traced instead,
    /// stepping at least a tenth of the reach at a time. Only a ball in contact (one that
    /// touches at once) measures its distance to the nearest shape.
    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        self.is_clear_among(origin, dir, length, radius, None)
    }

    /// Swept along the shapes' distance fields, the ball's radius taken off each step. Shapes
    /// are found within the set's reach, so a ball wider than the reach is moved as one of
    /// the reach (less the skin); a negative or NaN radius as a point.
    fn constrain(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>) {
        self.sweep(from, to, radius)
    }
}
