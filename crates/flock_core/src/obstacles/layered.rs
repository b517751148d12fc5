//! [`Layered`]: the crowd's own obstacles and a backend's, asked as one.

use glam::Vec3;

use super::clearance::Clearance;
use super::query::{CastHit, ObstacleQuery};
use super::set::ObstacleSet;

/// The crowd's own obstacles (the set, or the part of it [`around`](Layered::around) one
/// agent) and, if any, a backend's: a cast hits the nearer of the two, and a move is
/// constrained by each in turn.
pub(crate) struct Layered<'a, Own = &'a ObstacleSet> {
    own: Option<Own>,
    other: Option<&'a dyn ObstacleQuery>,
    /// By agent index, how far each agent stood from the own shapes (see
    /// [`constrain_for`](Layered::constrain_for)); none when empty.
    known: &'a [Clearance],
}

impl<'a> Layered<'a> {
    pub(crate) fn new(own: &'a ObstacleSet, other: Option<&'a dyn ObstacleQuery>) -> Self {
        Self {
            own: (!own.is_empty()).then_some(own),
            other: other.filter(|other| !other.is_empty()),
            known: &[],
        }
    }

    /// The same, knowing how far each agent stood from the own shapes: `known`, by agent
    /// index, measured of the own set as it is.
    pub(crate) fn knowing(self, known: &'a [Clearance]) -> Self {
        Self { known, ..self }
    }

    /// [`constrain`](ObstacleQuery::constrain) for a move of agent `i`: the own set's sweep is
    /// skipped where what is known of the agent vouches for the move.
    pub(crate) fn constrain_for(
        &self,
        i: usize,
        from: Vec3,
        to: Vec3,
        radius: f32,
    ) -> (Vec3, Option<Vec3>) {
        let own = self.own.map(|own| match self.known.get(i) {
            Some(known) => own.sweep_known(from, to, radius, known),
            None => own.constrain(from, to, radius),
        });
        self.then_other(from, own.unwrap_or((to, None)), radius)
    }

    /// The same obstacles for the casts of a ball of up to `radius` from `origin`, no farther
    /// than `length`: the own set's shapes that such a cast may touch are gathered once (see
    /// [`ObstacleSet::around`]), with the same answers.
    pub(crate) fn around(
        &self,
        origin: Vec3,
        length: f32,
        radius: f32,
    ) -> Layered<'a, super::around::Around<'a>> {
        Layered {
            own: self.own.map(|own| own.around(origin, length, radius)),
            other: self.other,
            known: &[],
        }
    }
}

impl<Own> Layered<'_, Own> {
    /// The move from `from` to the end the own obstacles allowed (and the normal they stopped
    /// it with), constrained by the other's too.
    fn then_other(
        &self,
        from: Vec3,
        (end, normal): (Vec3, Option<Vec3>),
        radius: f32,
    ) -> (Vec3, Option<Vec3>) {
        match self.other {
            Some(other) => {
                let (allowed, stopped) = other.constrain(from, end, radius);
                (allowed, stopped.or(normal))
            }
            None => (end, normal),
        }
    }
}

impl<Own: ObstacleQuery> ObstacleQuery for Layered<'_, Own> {
    fn is_empty(&self) -> bool {
        self.own.is_none() && self.other.is_none()
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        let own = self
            .own
            .as_ref()
            .and_then(|o| o.cast(origin, dir, length, radius));
        // Past the own hit nothing matters: cast the other only that far.
        let length = own.map_or(length, |hit| hit.distance);
        let other = self.other.and_then(|o| o.cast(origin, dir, length, radius));
        match (own, other) {
            (Some(a), Some(b)) => Some(if b.distance < a.distance { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        self.own
            .as_ref()
            .is_none_or(|o| o.is_clear(origin, dir, length, radius))
            && self
                .other
                .is_none_or(|o| o.is_clear(origin, dir, length, radius))
    }

    fn constrain(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>) {
        let own = self.own.as_ref().map(|own| own.constrain(from, to, radius));
        self.then_other(from, own.unwrap_or((to, None)), radius)
    }
}
