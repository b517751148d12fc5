//! [`Around`]: the shapes near one agent, gathered once for the several casts it makes.

use glam::Vec3;

use super::query::{CastHit, ObstacleQuery};
use super::set::{BIN_SLACK, HIT_DISTANCE, HULL_SLACK, ObstacleSet};

/// The most shapes an [`Around`] lists; with more near, it reads the set.
const MAX_AROUND: usize = 48;

/// The shapes of an [`ObstacleSet`] that a ball of up to a radius, cast from one point no
/// farther than a length, may touch: gathered once for the several casts an agent makes from
/// where it stands (the cast ahead, a held direction, up to twenty of a fan), which then read
/// these few instead of every shape binned near the point. A query from elsewhere, or reaching
/// farther, reads the set. The answers are the set's, bit for bit: the listed shapes are visited
/// in the set's order, and those left out lie beyond any way the view answers for.
pub(crate) struct Around<'a> {
    set: &'a ObstacleSet,
    origin: Vec3,
    length: f32,
    radius: f32,
    ids: [u32; MAX_AROUND],
    /// How many of `ids` are listed, or `None` when more were near (the set answers).
    listed: Option<usize>,
}

impl ObstacleSet {
    /// The view of the shapes a ball of up to `radius` plus the hit distance, cast from
    /// `origin` no farther than `length`, may touch (see [`Around`]).
    pub(crate) fn around(&self, origin: Vec3, length: f32, radius: f32) -> Around<'_> {
        let mut view = Around {
            set: self,
            origin,
            length,
            radius,
            ids: [0; MAX_AROUND],
            listed: None,
        };
        if !(origin.is_finite() && length.is_finite() && radius.is_finite())
            || length + radius + HIT_DISTANCE > self.reach() + BIN_SLACK
        {
            return view;
        }
        // A shape whose hull is farther from `origin` than this is farther than `radius` from
        // every point of every way the view answers for, by more than the casts' own slack
        // (and their rounding, which grows with the coordinates).
        let scale = origin.abs().max_element() + length + radius;
        let beyond = length + radius + HIT_DISTANCE + 2.0 * HULL_SLACK + scale * 1e-5;
        view.listed = self.list_near(origin, beyond, &mut view.ids);
        view
    }

    /// Lists in `ids`, in the order [`for_each_near`](Self::for_each_near) visits them, the
    /// shapes near `origin` whose hulls are within `beyond` of it; how many, or `None` when
    /// more than `ids` holds are.
    pub(super) fn list_near(&self, origin: Vec3, beyond: f32, ids: &mut [u32]) -> Option<usize> {
        let (mut count, mut overflow) = (0, false);
        self.for_each_near(origin, |id| {
            if overflow || self.hulls[id].is_beyond(origin, beyond) {
                return;
            }
            if count == ids.len() {
                overflow = true;
                return;
            }
            ids[count] = id as u32;
            count += 1;
        });
        (!overflow).then_some(count)
    }
}

impl Around<'_> {
    /// How many shapes are listed, or `None` when the set answers.
    #[cfg(test)]
    pub(crate) fn listed_count(&self) -> Option<usize> {
        self.listed
    }

    /// The listed shapes, if they hold every one a query from `origin` of `length` and `radius`
    /// (the hit distance included) may touch.
    fn listed_for(&self, origin: Vec3, length: f32, radius: f32) -> Option<&[u32]> {
        let count = self.listed?;
        (origin == self.origin && length <= self.length && radius <= self.radius + HIT_DISTANCE)
            .then(|| &self.ids[..count])
    }
}

impl ObstacleQuery for Around<'_> {
    fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        let listed = self.listed_for(origin, length, radius + HIT_DISTANCE);
        self.set.cast_among(origin, dir, length, radius, listed)
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        let listed = self.listed_for(origin, length, radius + HIT_DISTANCE);
        self.set.is_clear_among(origin, dir, length, radius, listed)
    }

    fn constrain(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>) {
        self.set.constrain(from, to, radius)
    }
}
