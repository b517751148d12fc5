//! Moves swept through an [`ObstacleSet`]: a sphere trace along the shapes' distance fields, so
//! that a fast body cannot tunnel through a thin wall, then a push out of whatever still
//! overlaps. A body near a wall asks for the nearest shape several times a move; the shapes
//! that can be the nearest are listed once, from the move's start.

use glam::Vec3;

use super::clearance::Clearance;
use super::set::{HULL_SLACK, March, ObstacleSet, march};
use super::shape::Shape;

/// Agents are kept this far outside every shape.
const SKIN: f32 = 1e-3;
/// A movement sweep stops this close to a surface: nearer than the skin, so that an agent
/// resting on a surface can still slide along it.
const SWEEP_HIT: f32 = 1e-4;
/// The most shapes a sweep lists near its start; with more near, it asks the set.
const MAX_NEARBY: usize = 32;

impl ObstacleSet {
    /// Whether every shape near `p` is farther from it than `bound` (when none is near, whether
    /// the reach is): whether [`nearest`](Self::nearest)'s distance (or the reach) exceeds
    /// `bound`, measuring only the shapes whose hulls are within `bound` (by
    /// [`HULL_SLACK`]), most often none. A NaN is never clear.
    pub(crate) fn is_clear_round(&self, p: Vec3, bound: f32) -> bool {
        let (mut near, mut clear) = (false, true);
        self.for_each_near(p, |id| {
            near = true;
            // False for a NaN: such a shape is measured, and is not clear.
            let beyond = self.hulls[id].is_beyond(p, bound + HULL_SLACK);
            if clear && !beyond {
                clear = self.shapes[id].distance(p) > bound;
            }
        });
        if near { clear } else { self.reach() > bound }
    }

    /// [`sweep`](Self::sweep), skipped for a move that `known` vouches for: one that stays
    /// farther from every shape than the body's radius, which the sweep would leave as it is.
    pub(super) fn sweep_known(
        &self,
        from: Vec3,
        to: Vec3,
        radius: f32,
        known: &Clearance,
    ) -> (Vec3, Option<Vec3>) {
        // The sweep's own first question, from the start, with a radius no narrower than its.
        if known.vouches(from, from.distance(to) + radius.max(0.0) + SKIN) {
            return (to, None);
        }
        self.sweep(from, to, radius)
    }

    /// [`ObstacleQuery::constrain`](super::ObstacleQuery::constrain) for the set (see there).
    pub(super) fn sweep(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>) {
        if self.is_empty() {
            return (to, None);
        }
        let radius = if radius > 0.0 {
            radius.min(self.reach() - SKIN).max(0.0)
        } else {
            0.0
        };
        let mut stopped = None;
        let mut end = to;
        let travel = to - from;
        let length = travel.length();
        // A move shorter than the gap to every shape near its start (the reach when none is
        // near), less the radius, is free.
        let bound = length + radius + SKIN;
        if self.is_clear_round(from, bound) {
            return (to, None);
        }
        // The nearest shape to the start is within `bound`, so to any point of the way within
        // `bound` and the way's length: the list holds every shape that near (and twice that,
        // for the push out at the end).
        let nearby = Nearby::gather(self, from, 2.0 * (bound + length));
        // A sweep that runs out of steps is grazing a surface: it stops there too (going on
        // could cross a thin wall), and integration slides the rest of the way along it.
        if let Some(dir) = travel.try_normalize() {
            let gap_at = |p| self.gap(nearby.nearest(p), radius);
            if let March::Hit(t) | March::Exhausted(t) =
                march(gap_at, from, dir, length, SWEEP_HIT, 0.0)
            {
                end = from + dir * t;
                stopped = nearby.nearest(end).map(|(_, shape)| shape.normal(end));
            }
        }
        // Whatever still overlaps (a start inside a shape or too near one, overlapping shapes)
        // is pushed out.
        for _ in 0..4 {
            match nearby.nearest(end) {
                Some((d, shape)) if d < radius + SKIN => {
                    let n = shape.normal(end);
                    end += n * (radius + SKIN - d);
                    stopped = Some(n);
                }
                _ => break,
            }
        }
        (end, stopped)
    }
}

/// The shapes of an [`ObstacleSet`] that may be the nearest to a point within `cover` of
/// `origin` (less the point's distance from it), listed once for the several
/// [`nearest`](Nearby::nearest) questions of one sweep. Its answers are the set's, bit for
/// bit: the listed shapes are measured in the set's order, and an answer the list cannot vouch
/// for (nearer shapes may be left out) is asked of the set.
struct Nearby<'a> {
    set: &'a ObstacleSet,
    origin: Vec3,
    cover: f32,
    ids: [u32; MAX_NEARBY],
    /// How many of `ids` are listed, or `None` when more were near (the set answers).
    listed: Option<usize>,
}

impl<'a> Nearby<'a> {
    /// The shapes near `origin` whose hulls are within `cover` of it (and the rounding of
    /// that); `cover` is held to the set's reach, within which the set finds every shape.
    fn gather(set: &'a ObstacleSet, origin: Vec3, cover: f32) -> Self {
        let cover = cover.min(set.reach());
        let mut nearby = Nearby {
            set,
            origin,
            cover,
            ids: [0; MAX_NEARBY],
            listed: None,
        };
        if !(origin.is_finite() && cover.is_finite()) {
            return nearby;
        }
        // A shape left out lies farther than `cover` from `origin`, beyond the rounding of a
        // distance to its hull (which grows with the coordinates).
        let beyond = cover + 2.0 * HULL_SLACK + (origin.abs().max_element() + cover) * 1e-5;
        nearby.listed = set.list_near(origin, beyond, &mut nearby.ids);
        nearby
    }

    /// [`ObstacleSet::nearest`]`(p)`: among the listed shapes when the nearest of them is
    /// nearer than any shape left out can be, else the set's answer.
    fn nearest(&self, p: Vec3) -> Option<(f32, Shape)> {
        if let Some(count) = self.listed {
            let left = self.cover - p.distance(self.origin);
            if let Some((d, shape)) = self.set.nearest_among(p, Some(&self.ids[..count]))
                && d < left
            {
                return Some((d, shape));
            }
        }
        self.set.nearest(p)
    }
}
