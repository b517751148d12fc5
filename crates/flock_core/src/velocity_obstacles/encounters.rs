//! One neighbour as its velocity obstacle sees it, and the encounters of a batch laid out as
//! columns for the lanes.

use glam::Vec3;

use crate::neighbours::nearest::MOST_AGENTS_AVOIDED;
use crate::simd::{WIDTH, Wide};

/// Below this, a determinant or squared length counts as zero: the lines or planes are parallel.
pub(super) const PARALLEL: f32 = 1e-5;

/// One neighbour as its velocity obstacle sees it, relative to the agent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Encounter<V> {
    /// The neighbour's position minus the agent's.
    pub(crate) offset: V,
    /// The neighbour's velocity.
    pub(crate) velocity: V,
    /// The two bodies' radii summed: closer than this, their centres collide.
    pub(crate) radius: f32,
    /// Seconds ahead that the agent keeps clear of the neighbour.
    pub(crate) horizon: f32,
    /// The share of the manoeuvre the agent takes: by [`manoeuvre_share`] when the neighbour
    /// avoids it too, all of it when the neighbour keeps its velocity.
    pub(crate) share: f32,
    /// The unit direction from the neighbour to the agent where the offset's squared length
    /// is not a normal number (see [`Encounter::apart`]): `-offset` scaled to unit length
    /// where it can be, fixed per pair where they coincide. Zero, and never read, elsewhere.
    pub(crate) fixed_apart: Vec3,
}

/// Encounters as the half-spaces read them, eight lanes at a time: a column per field, and
/// beside each encounter the velocity of the agent it belongs to (so that the encounters of
/// several agents are computed together, see [`volume::half_spaces`]). Written field by field
/// as they are built, they need no reshuffle into lanes. Room for a batch's.
#[derive(Clone, Debug)]
pub(crate) struct EncounterColumns {
    pub(super) len: usize,
    /// By [`Field`]; the lanes of the last group past `len` zeros after
    /// [`pad`](Self::pad).
    pub(super) columns: [[f32; ENCOUNTERS]; FIELDS],
}

/// The most encounters an [`EncounterColumns`] holds: a batch's, in whole groups of lanes.
pub(super) const ENCOUNTERS: usize = (BATCH * MOST_AGENTS_AVOIDED).next_multiple_of(WIDTH);

impl Default for EncounterColumns {
    fn default() -> Self {
        Self {
            len: 0,
            columns: [[0.0; ENCOUNTERS]; FIELDS],
        }
    }
}

/// The columns of an [`EncounterColumns`].
#[derive(Clone, Copy)]
pub(crate) enum Field {
    OffsetX,
    OffsetY,
    OffsetZ,
    VelocityX,
    VelocityY,
    VelocityZ,
    Radius,
    Horizon,
    Share,
    FixedApartX,
    FixedApartY,
    FixedApartZ,
    MoverX,
    MoverY,
    MoverZ,
}

/// How many fields an [`EncounterColumns`] holds.
pub(super) const FIELDS: usize = 15;

impl EncounterColumns {
    /// Empty.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// How many encounters it holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds `e`, met by an agent moving at `mover`. There must be room (see [`ENCOUNTERS`]).
    #[inline(always)]
    pub(crate) fn push(&mut self, e: &Encounter<Vec3>, mover: Vec3) {
        let fields = [
            e.offset.x,
            e.offset.y,
            e.offset.z,
            e.velocity.x,
            e.velocity.y,
            e.velocity.z,
            e.radius,
            e.horizon,
            e.share,
            e.fixed_apart.x,
            e.fixed_apart.y,
            e.fixed_apart.z,
            mover.x,
            mover.y,
            mover.z,
        ];
        // The place in a local: the stores could otherwise overwrite `len`, for all the
        // compiler knows, which it would then read and check again before each.
        let at = self.len;
        for (column, value) in self.columns.iter_mut().zip(fields) {
            column[at] = value;
        }
        self.len = at + 1;
    }

    /// Zeros the lanes of the last group past the end, so that they hold no values from
    /// encounters before (whose results are never read, but could be slow to compute).
    pub(crate) fn pad(&mut self) {
        let padded = self.len.next_multiple_of(WIDTH);
        for column in &mut self.columns {
            column[self.len..padded].fill(0.0);
        }
    }

    /// Encounters `at..at + 8` of column `field`.
    #[inline(always)]
    pub(crate) fn lanes<V: Wide>(&self, field: Field, at: usize) -> V {
        V::load(&self.columns[field as usize], at)
    }

    /// Encounter `k`'s offset.
    #[inline]
    pub(super) fn offset(&self, k: usize) -> Vec3 {
        let column = |field: Field| self.columns[field as usize][k];
        Vec3::new(
            column(Field::OffsetX),
            column(Field::OffsetY),
            column(Field::OffsetZ),
        )
    }

    /// Encounter `k`'s summed radii.
    #[inline]
    pub(super) fn radius(&self, k: usize) -> f32 {
        self.columns[Field::Radius as usize][k]
    }
}

/// Where each lane of `length_sq`, a squared length, is a normal number (as
/// [`Encounter::apart`] asks), and there the reciprocal of the length, as glam normalises.
#[inline(always)]
pub(super) fn recip_length_where_normal<V: Wide>(length_sq: V) -> (V::Mask, V) {
    let normal =
        length_sq.cmpge(V::splat(f32::MIN_POSITIVE)) & length_sq.cmplt(V::splat(f32::INFINITY));
    (normal, V::splat(1.0) / length_sq.sqrt())
}

impl Encounter<Vec3> {
    /// The unit direction from the neighbour to the agent: `-offset` times the reciprocal of
    /// its length where its squared length is a normal number (as glam normalises; the
    /// half-spaces compute this on lanes, and the build of an encounter skips it), else
    /// [`fixed_apart`](Self::fixed_apart).
    #[inline]
    pub(crate) fn apart(&self) -> Vec3 {
        if self.offset.length_squared().is_normal() {
            (-self.offset).normalize()
        } else {
            self.fixed_apart
        }
    }
}

/// How many agents the step takes at once: their encounters' half-spaces are computed
/// together (see [`volume::half_spaces`]), which with ten neighbours each fills five groups of
/// lanes where one agent at a time filled eight, half of them with two lanes of eight.
pub(super) const BATCH: usize = 4;
