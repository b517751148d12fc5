//! The nearest few neighbours of an agent, kept while a scan visits its candidates: the
//! velocity-obstacle step avoids only these (see [`MOST_AGENTS_AVOIDED`]).

use super::wide::Wide;
use crate::velocity_obstacles::MOST_AGENTS_AVOIDED;

/// The keys of the nearest neighbours found so far, nearest first: each the squared distance's
/// bits above the slot, so that integer order is nearest first and ties by slot (distances
/// are never negative, nor NaN, so every key is a positive `i64`, which AVX2 compares in one
/// instruction), and [`NearestKeys::EMPTY`] where none is yet. Which neighbours are kept does
/// not depend on the order they are offered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NearestKeys([i64; MOST_AGENTS_AVOIDED]);

impl Default for NearestKeys {
    fn default() -> Self {
        Self([Self::EMPTY; MOST_AGENTS_AVOIDED])
    }
}

impl NearestKeys {
    /// An infinite distance, which sorts after every neighbour.
    const EMPTY: i64 = (f32::INFINITY.to_bits() as i64) << 32 | u32::MAX as i64;

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

    /// The squared distance of the farthest neighbour kept, infinite until the list is full:
    /// one further away cannot be taken in.
    #[inline(always)]
    pub(crate) fn farthest_kept(&self) -> f32 {
        f32::from_bits((self.0[MOST_AGENTS_AVOIDED - 1] >> 32) as u32)
    }

    /// The slots kept, nearest first.
    pub(crate) fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        let taken = self.0.iter().take_while(|&&key| key != Self::EMPTY);
        taken.map(|&key| (key & i64::from(u32::MAX)) as usize)
    }
}

/// What a lane scan keeps of the nearest neighbours it takes in, group by group: nothing
/// (`()`, which compiles to nothing), or [`NearestKeys`].
pub(crate) trait KeepNearest: Copy + Default {
    /// Takes in the candidates `keep` selects of the group starting at slot `first`, at
    /// squared distances `dist_sq`.
    fn offer_group<V: Wide>(&mut self, first: usize, keep: V::Mask, dist_sq: V);
}

impl KeepNearest for () {
    #[inline(always)]
    fn offer_group<V: Wide>(&mut self, _: usize, _: V::Mask, _: V) {}
}

impl KeepNearest for NearestKeys {
    #[inline(always)]
    fn offer_group<V: Wide>(&mut self, first: usize, keep: V::Mask, dist_sq: V) {
        self.offer_group_where(first, keep, dist_sq, |_| true);
    }
}
