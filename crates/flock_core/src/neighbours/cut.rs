//! The nearest `max_neighbours` of an agent where more are in range: the candidates a scan
//! took in ([`TakenIn`]) and the [`NearestCut`] found among their distances, which a scan then
//! takes in up to.

use crate::simd::{WIDTH, Wide};

/// Appends the candidates `keep` selects of the group starting at slot `first`, at squared
/// distances `dist_sq`, to the `len` already in `distances` and `slots`, with no branch on which
/// lanes they are: both need room for [`WIDTH`] more.
#[inline(always)]
pub(super) fn append_group<V: Wide>(
    keep: V::Mask,
    first: usize,
    dist_sq: V,
    distances: &mut [f32],
    slots: &mut [u32],
    len: &mut usize,
) {
    let (bits, at) = (V::bitmask(keep), *len);
    dist_sq.compress_store(
        bits,
        first as u32,
        (&mut distances[at..at + WIDTH]).try_into().unwrap(),
        (&mut slots[at..at + WIDTH]).try_into().unwrap(),
    );
    *len += bits.count_ones() as usize;
}

/// Buckets of squared distance that [`NearestCut::of_rank`] counts the candidates in: one for
/// each value of a `u8`.
const CUT_BUCKETS: usize = 256;
/// 2^23: a number from 0 to 2^23 added to it is rounded to a whole one, held in the low bits.
const ROUNDING: f32 = 8_388_608.0;

/// Where an agent's nearest neighbours end: a neighbour is among them when its key, its
/// squared distance and then its slot, is no greater than the cut's. Slots break ties, so the
/// neighbours taken in do not depend on the order a scan visits them in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NearestCut {
    dist_sq: f32,
    slot: u32,
}

/// The squared distances and slots of the candidates a scan took in, in the order it took
/// them in, for a [`NearestCut`] among them.
#[derive(Default)]
pub(crate) struct TakenIn {
    dist_sq: Vec<f32>,
    slots: Vec<u32>,
    len: usize,
}

impl TakenIn {
    /// Empties it, with room for `most` candidates (and the lanes written past them).
    pub(crate) fn clear_for(&mut self, most: usize) {
        self.len = 0;
        let room = most + WIDTH;
        if self.dist_sq.len() < room {
            self.dist_sq.resize(room, 0.0);
            self.slots.resize(room, 0);
        }
    }

    /// How many it holds.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The squared distances and slots held, each followed by the room that loads of whole
    /// groups of lanes read past the last.
    #[inline(always)]
    pub(super) fn columns(&self) -> (&[f32], &[u32]) {
        (&self.dist_sq, &self.slots)
    }

    /// Appends the candidates `keep` selects of the group starting at slot `first`, at
    /// squared distances `dist_sq`, with no branch on which lanes they are.
    #[inline(always)]
    pub(crate) fn push_group<V: Wide>(&mut self, first: usize, keep: V::Mask, dist_sq: V) {
        append_group(
            keep,
            first,
            dist_sq,
            &mut self.dist_sq,
            &mut self.slots,
            &mut self.len,
        );
    }

    /// Appends one at `dist_sq` in `slot`.
    pub(crate) fn push(&mut self, dist_sq: f32, slot: u32) {
        self.dist_sq[self.len] = dist_sq;
        self.slots[self.len] = slot;
        self.len += 1;
    }
}

/// What [`NearestCut::of_rank`] reuses from one agent to the next.
#[derive(Default)]
pub(crate) struct CutScratch {
    /// By candidate, [`ROUNDING`] plus its bucket.
    buckets: Vec<f32>,
    keys: Vec<u64>,
}

impl NearestCut {
    /// The cut that takes in every neighbour.
    pub(crate) const ALL: Self = Self {
        dist_sq: f32::INFINITY,
        slot: u32::MAX,
    };

    /// The key of the candidate of `rank` (0 for the nearest) among those `taken` holds (whose
    /// squared distances are never negative nor NaN), on lanes of form `V`; `rank` must be
    /// less than their number. Every form gives the same cut.
    ///
    /// The candidates are counted in buckets of squared distance first, so that only the few
    /// in the bucket where `rank` falls are selected among: a selection over every candidate
    /// cost as much as the rest of a capped scan. Call it inside [`Wide::enter`].
    #[inline(always)]
    pub(crate) fn of_rank<V: Wide>(
        taken: &mut TakenIn,
        rank: usize,
        scratch: &mut CutScratch,
    ) -> Self {
        let len = taken.len;
        let groups = len.div_ceil(WIDTH);
        // The lanes past the last candidate read zeros, which change no maximum.
        taken.dist_sq[len..len + WIDTH].fill(0.0);
        let dist_sq = taken.dist_sq.as_slice();
        let mut farthest = V::splat(0.0);
        for g in 0..groups {
            farthest = farthest.max(V::load(dist_sq, g * WIDTH));
        }
        let farthest = farthest.to_array().into_iter().fold(0.0, f32::max);
        // Buckets from zero to the farthest (whose product may round to `CUT_BUCKETS`, which
        // the clamp puts in the last bucket).
        let scale = CUT_BUCKETS as f32 / farthest;
        let scale = V::splat(if scale.is_finite() { scale } else { 0.0 });
        let (zero, last) = (V::splat(0.0), V::splat((CUT_BUCKETS - 1) as f32));
        let CutScratch { buckets, keys } = scratch;
        buckets.resize(groups * WIDTH, 0.0);
        for g in 0..groups {
            // The product clamped to [0, 255], plus 2^23: rounded to a whole number held in
            // the low bits, without a conversion. Rounding and the clamp are monotonic, so
            // buckets keep the order of the distances.
            let at = g * WIDTH;
            let bucket = (V::load(dist_sq, at) * scale).max(zero).min(last) + V::splat(ROUNDING);
            buckets[at..at + WIDTH].copy_from_slice(&bucket.to_array());
        }
        let mut counts = [0_u32; CUT_BUCKETS];
        for &bucket in &buckets[..len] {
            counts[(bucket.to_bits() & 0xFF) as usize] += 1;
        }
        let mut below = 0;
        let mut at = CUT_BUCKETS - 1;
        for (b, &count) in counts.iter().enumerate() {
            if below + count as usize > rank {
                at = b;
                break;
            }
            below += count as usize;
        }
        // The keys of the bucket's candidates, found a group at a time: few are in it.
        let inside = V::splat(ROUNDING + at as f32);
        keys.clear();
        for g in 0..groups {
            let mut bits = V::bitmask(V::load(buckets, g * WIDTH).cmpeq(inside));
            while bits != 0 {
                let k = g * WIDTH + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if k < len {
                    keys.push(u64::from(dist_sq[k].to_bits()) << 32 | u64::from(taken.slots[k]));
                }
            }
        }
        // Distances are never negative, so their bits order like the numbers.
        let (_, &mut key, _) = keys.select_nth_unstable(rank - below);
        Self {
            dist_sq: f32::from_bits((key >> 32) as u32),
            slot: key as u32,
        }
    }

    /// Whether the neighbour in `slot` at `dist_sq` is within the cut.
    #[inline(always)]
    pub(crate) fn admits(self, dist_sq: f32, slot: u32) -> bool {
        dist_sq < self.dist_sq || (dist_sq == self.dist_sq && slot <= self.slot)
    }

    /// [`admits`](Self::admits) for the group of candidates starting at slot `first`, at
    /// squared distances `dist_sq`.
    #[inline(always)]
    pub(crate) fn admits_group<V: Wide>(self, first: usize, dist_sq: V) -> V::Mask {
        let cut = V::splat(self.dist_sq);
        let (nearer, level) = (dist_sq.cmplt(cut), dist_sq.cmpeq(cut));
        // A candidate at the cut's own distance is rare: only then are slots compared.
        if V::bitmask(level) == 0 {
            return nearer;
        }
        // Lanes up to the cut's slot; `first + k` is lane `k`'s slot.
        let last_lane = (i64::from(self.slot) - first as i64).clamp(-1, WIDTH as i64) as f32;
        nearer | (level & V::lane_index().cmple(V::splat(last_lane)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Pair;

    /// The cut of `rank` among `dist_sq` (in slots 0, 1, ...) on lanes of form `V`.
    fn cut_on<V: Wide>(dist_sq: &[f32], rank: usize) -> NearestCut {
        let mut taken = TakenIn::default();
        taken.clear_for(dist_sq.len());
        for (slot, &d) in dist_sq.iter().enumerate() {
            taken.push(d, slot as u32);
        }
        V::enter(|| NearestCut::of_rank::<V>(&mut taken, rank, &mut CutScratch::default()))
    }

    /// The same, written out: sort by distance, then slot, and take the one at `rank`.
    fn cut_by_sorting(dist_sq: &[f32], rank: usize) -> NearestCut {
        let mut keyed: Vec<(f32, u32)> = (0..dist_sq.len() as u32)
            .map(|slot| (dist_sq[slot as usize], slot))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (dist_sq, slot) = keyed[rank];
        NearestCut { dist_sq, slot }
    }

    #[test]
    fn the_cut_is_the_key_of_its_rank_among_the_candidates() {
        let mut state = 0x9E37_79B9_u32;
        let mut unit = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32
        };
        let spread: Vec<f32> = (0..300).map(|_| unit() * 16.0).collect();
        // Most near zero and one far off: nearly all share the first bucket.
        let mut outlier: Vec<f32> = (0..200).map(|_| unit() * 1e-3).collect();
        outlier[77] = 15.0;
        // Ties in distance, broken by slot; all at zero; a few, not a multiple of the lanes.
        let tied: Vec<f32> = (0..90).map(|k| (k % 3) as f32).collect();
        let zeros = vec![0.0; 40];
        let few = [3.0, 1.0, 2.0, 1.0, 5.0];
        let subnormal: Vec<f32> = (0..70).map(|k| f32::from_bits(k * 7 + 1)).collect();
        let cases: [&[f32]; 6] = [&spread, &outlier, &tied, &zeros, &few, &subnormal];
        for dist_sq in cases {
            for rank in [
                0,
                1,
                dist_sq.len() / 3,
                dist_sq.len() - 2,
                dist_sq.len() - 1,
            ] {
                let expected = cut_by_sorting(dist_sq, rank);
                let label = format!("rank {rank} of {}", dist_sq.len());
                assert_eq!(cut_on::<Pair>(dist_sq, rank), expected, "{label}");
                #[cfg(target_arch = "x86_64")]
                if crate::SimdPath::Avx2.is_supported() {
                    let on_avx = cut_on::<crate::simd::Avx>(dist_sq, rank);
                    assert_eq!(on_avx, expected, "{label} on AVX2");
                }
                // The cut admits exactly the candidates up to its rank.
                let admitted = (0..dist_sq.len())
                    .filter(|&slot| expected.admits(dist_sq[slot], slot as u32))
                    .count();
                assert_eq!(admitted, rank + 1, "{label}");
            }
        }
    }

    #[test]
    fn a_group_admits_what_each_candidate_does() {
        let cut = NearestCut {
            dist_sq: 2.0,
            slot: 13,
        };
        for first in [0, 6, 8, 10, 13, 14, 20] {
            let dist_sq = [2.0, 1.0, 3.0, 2.0, 0.0, 2.0, 2.5, 2.0];
            let lanes = Pair::load(&dist_sq, 0);
            let bits = Pair::bitmask(cut.admits_group::<Pair>(first, lanes));
            for (k, &d) in dist_sq.iter().enumerate() {
                let slot = (first + k) as u32;
                assert_eq!(bits >> k & 1 == 1, cut.admits(d, slot), "slot {slot}");
            }
        }
    }
}
