//! The nearest neighbours of an agent.
//!
//! The nearest few, kept while a scan visits its candidates: the velocity-obstacle step avoids
//! only these (see [`MOST_AGENTS_AVOIDED`]). The force pass's scan offers only candidates
//! within a ceiling, from the tick before (see [`NearestBuffer`]), and says where that may have
//! left out one of the nearest. (The nearest `max_neighbours`, where more are in range, are
//! found in the `cut` module.)

use super::cut::{TakenIn, append_group};
use crate::simd::{WIDTH, Wide};

/// Each agent avoids at most this many neighbours, the nearest (as in the RVO2 library's
/// examples): further ones sit behind them, and the linear program's work grows with the count.
pub const MOST_AGENTS_AVOIDED: usize = 10;

/// The keys of the nearest neighbours found so far, nearest first: each the squared distance's
/// bits above the slot, so that integer order is nearest first and ties by slot (distances
/// are never negative, nor NaN, so every key is a positive `i64`, which AVX2 compares in one
/// instruction), and where none is yet, an empty key: the ceiling's bits above [`NO_SLOT`], so
/// that only neighbours within the ceiling go in (see [`NearestKeys::within`]). Which
/// neighbours are kept does not depend on the order they are offered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NearestKeys([i64; MOST_AGENTS_AVOIDED]);

/// The slot of an empty key, which no agent has.
const NO_SLOT: i64 = u32::MAX as i64;

/// `ceiling_sq`, or where it is negative or NaN, none (an infinite one).
#[inline(always)]
fn sanitised(ceiling_sq: f32) -> f32 {
    if ceiling_sq >= 0.0 {
        ceiling_sq
    } else {
        f32::INFINITY
    }
}

impl Default for NearestKeys {
    /// None kept, and no ceiling.
    fn default() -> Self {
        Self::within(f32::INFINITY)
    }
}

impl NearestKeys {
    /// None kept, and only neighbours within `ceiling_sq` (a squared distance) to be taken in:
    /// where the ceiling leaves fewer than [`MOST_AGENTS_AVOIDED`], the list is not known to
    /// hold the nearest within a larger radius (see [`complete`](KeepNearest::complete)). A
    /// ceiling that is negative or NaN counts as none.
    #[inline(always)]
    pub(crate) fn within(ceiling_sq: f32) -> Self {
        let empty = i64::from(sanitised(ceiling_sq).to_bits()) << 32 | NO_SLOT;
        Self([empty; MOST_AGENTS_AVOIDED])
    }

    /// Whether as many are kept as the list holds.
    #[inline(always)]
    fn is_full(&self) -> bool {
        self.0[MOST_AGENTS_AVOIDED - 1] & NO_SLOT != NO_SLOT
    }

    /// Takes in the neighbour in `slot` at `dist_sq` if it is among the nearest. Whether a
    /// neighbour is nearer than those kept is as good as random, so there is no branch: each
    /// place takes the key before it where the neighbour goes in ahead of it, the nearer of its
    /// own and the neighbour's otherwise. Each place reads only the old list, so the places are
    /// computed side by side rather than one after another.
    #[inline(always)]
    fn offer(&mut self, dist_sq: f32, slot: usize) {
        let key = i64::from(dist_sq.to_bits()) << 32 | slot as i64;
        let old = self.0;
        self.0[0] = old[0].min(key);
        for k in 1..MOST_AGENTS_AVOIDED {
            self.0[k] = if key < old[k - 1] {
                old[k - 1]
            } else {
                old[k].min(key)
            };
        }
    }

    /// Takes in the candidates `keep` selects of the group starting at slot `first`, at
    /// squared distances `dist_sq`, that `taken(slot)` accepts, where they are among the
    /// nearest. Lanes beyond the farthest kept are skipped: once the list is full, most are.
    #[inline(always)]
    pub(crate) fn offer_group_where<V: Wide>(
        &mut self,
        first: usize,
        keep: V::Mask,
        dist_sq: V,
        taken: impl Fn(usize) -> bool,
    ) {
        let mut bits = V::bitmask(keep & dist_sq.cmple(V::splat(self.farthest_kept())));
        if bits != 0 {
            let dist_sq = dist_sq.to_array();
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if taken(first + k) {
                    self.offer(dist_sq[k], first + k);
                }
            }
        }
    }

    /// The squared distance of the farthest neighbour kept, the ceiling until the list is full:
    /// one further away cannot be taken in.
    #[inline(always)]
    pub(crate) fn farthest_kept(&self) -> f32 {
        f32::from_bits((self.0[MOST_AGENTS_AVOIDED - 1] >> 32) as u32)
    }

    /// The slots kept, nearest first.
    pub(crate) fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        let taken = self.0.iter().take_while(|&&key| key & NO_SLOT != NO_SLOT);
        taken.map(|&key| (key & i64::from(u32::MAX)) as usize)
    }
}

/// What a lane scan keeps of the nearest neighbours it takes in, group by group: nothing
/// (`()`, which compiles to nothing), or a [`NearestBuffer`].
pub(crate) trait KeepNearest {
    /// Takes in the candidates `keep` selects of the group starting at slot `first`, at
    /// squared distances `dist_sq`.
    fn offer_group<V: Wide>(&mut self, first: usize, keep: V::Mask, dist_sq: V);

    /// Called where every candidate within `radius_sq` was offered: hands on what was kept,
    /// where it is known to be the nearest within that radius.
    fn complete(&mut self, radius_sq: f32);

    /// Called instead of [`complete`](Self::complete) where more neighbours were in range than
    /// the agent's cap and the scan took in only the candidates its budget allows (`taken`):
    /// hands on the nearest of those, whatever the ceiling. Those are the neighbours the force
    /// pass chose among, and in a clump the step avoids them rather than scan everyone.
    fn complete_among<V: Wide>(&mut self, taken: &TakenIn);
}

impl KeepNearest for () {
    #[inline(always)]
    fn offer_group<V: Wide>(&mut self, _: usize, _: V::Mask, _: V) {}

    #[inline(always)]
    fn complete(&mut self, _: f32) {}

    #[inline(always)]
    fn complete_among<V: Wide>(&mut self, _: &TakenIn) {}
}

/// Room for this many candidates in a [`NearestBuffer`] before it keeps only the nearest.
const BUFFERED: usize = 32;

/// The candidates a lane scan takes in for the nearest neighbours, those within a ceiling:
/// each group's are appended with no branch on which lanes they are, and the nearest are
/// picked out of them only at the end (or when the buffer fills, which lowers the ceiling to
/// the farthest of the nearest so far). Keeping a sorted list as the scan went branched on
/// every group and chained each candidate on the one before: that cost more than the rest of
/// the scan.
pub(crate) struct NearestBuffer<'a> {
    /// Only candidates within this squared distance are taken in.
    ceiling_sq: f32,
    /// Where [`complete`](KeepNearest::complete) writes the nearest, where they are known;
    /// left as it was elsewhere. Written in place: the scan's result, passed back through its
    /// layers, cost a copy at each.
    kept: &'a mut Option<NearestKeys>,
    len: usize,
    dist_sq: [f32; BUFFERED + WIDTH],
    slots: [u32; BUFFERED + WIDTH],
}

impl<'a> NearestBuffer<'a> {
    /// Empty, taking in only candidates within `ceiling_sq` (see [`NearestKeys::within`]),
    /// and writing the nearest to `kept` where they are known (see
    /// [`complete`](KeepNearest::complete)).
    #[inline(always)]
    pub(crate) fn within(ceiling_sq: f32, kept: &'a mut Option<NearestKeys>) -> Self {
        Self {
            ceiling_sq: sanitised(ceiling_sq),
            kept,
            len: 0,
            dist_sq: [0.0; BUFFERED + WIDTH],
            slots: [0; BUFFERED + WIDTH],
        }
    }

    /// The nearest of the candidates taken in.
    #[inline(always)]
    fn nearest(&self) -> NearestKeys {
        let mut nearest = NearestKeys::within(self.ceiling_sq);
        for (&dist_sq, &slot) in self.dist_sq[..self.len].iter().zip(&self.slots) {
            nearest.offer(dist_sq, slot as usize);
        }
        nearest
    }

    /// Keeps only the nearest so far, and takes in no candidate further than the farthest.
    #[cold]
    #[inline(never)]
    fn keep_nearest(&mut self) {
        let nearest = self.nearest();
        // More than the list holds were taken in, so it is full.
        self.ceiling_sq = nearest.farthest_kept();
        for (k, &key) in nearest.0.iter().enumerate() {
            self.dist_sq[k] = f32::from_bits((key >> 32) as u32);
            self.slots[k] = key as u32;
        }
        self.len = MOST_AGENTS_AVOIDED;
    }
}

impl KeepNearest for NearestBuffer<'_> {
    #[inline(always)]
    fn offer_group<V: Wide>(&mut self, first: usize, keep: V::Mask, dist_sq: V) {
        let keep = keep & dist_sq.cmple(V::splat(self.ceiling_sq));
        append_group(
            keep,
            first,
            dist_sq,
            &mut self.dist_sq,
            &mut self.slots,
            &mut self.len,
        );
        if self.len > BUFFERED {
            self.keep_nearest();
        }
    }

    /// Known where the list is full (every candidate left out was further than the farthest
    /// kept) or the ceiling is no lower than the radius (none within it was left out).
    #[inline(always)]
    fn complete(&mut self, radius_sq: f32) {
        let nearest = self.nearest();
        if nearest.is_full() || nearest.farthest_kept() >= radius_sq {
            *self.kept = Some(nearest);
        }
    }

    #[inline(always)]
    fn complete_among<V: Wide>(&mut self, taken: &TakenIn) {
        let mut nearest = NearestKeys::default();
        // Eight at a time, offering only those within the farthest kept: once the list is
        // full, most are not (offering every one cost a quarter of a clumped tick).
        let (distances, slots) = taken.columns();
        for at in (0..taken.len()).step_by(WIDTH) {
            let live = (taken.len() - at).min(WIDTH);
            let dist_sq = V::load(distances, at);
            let within = dist_sq.cmple(V::splat(nearest.farthest_kept()));
            let mut bits = V::bitmask(within) & ((1 << live) - 1);
            if bits != 0 {
                let dist_sq = dist_sq.to_array();
                while bits != 0 {
                    let k = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    nearest.offer(dist_sq[k], slots[at + k] as usize);
                }
            }
        }
        *self.kept = Some(nearest);
    }
}
