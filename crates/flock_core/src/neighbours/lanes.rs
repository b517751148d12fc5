//! Agents in cell order, one array per coordinate, and the neighbour scan that reads them eight
//! candidates at a time.
//!
//! The scan tests every candidate of a range with SIMD lanes and adds the ones in range into
//! per-lane sums under a mask, so it neither branches on the data nor stores candidates. Where
//! more neighbours are in range than the cap, a first pass stores their distances
//! ([`Probe::take_in_blocks`]) and a second adds those within the cut of the nearest
//! ([`Admit`]). [`LaneScan::finish`] declines (and the caller runs the exact scan) when a
//! neighbour sits on top of the agent.
//!
//! The code is generic over the form of the lanes ([`Wide`]): the crowd's [`SimdPath`] picks
//! one per scan and runs the whole scan inside [`Wide::enter`]. Candidate `s + k` of a range
//! always lands in lane `k`, and lanes are summed in one fixed order, so every path gives the
//! same bits.

use core::ops::Range;

use glam::Vec3;

use super::cut::{NearestCut, TakenIn};
use super::nearest::{KeepNearest, NearestKeys};
use super::scan::Scan;
use super::slot_lanes::{LANES, SlotLanes};
use crate::field_of_view::FieldOfView;
use crate::maths::COINCIDENT_SQ;
use crate::rules::flocking::separation_divisor;
use crate::rules::prediction::{Collision, Prediction};
use crate::simd::{Pair, SimdPath, Wide, any, count, lane_sum};

/// Candidates scanned between checks of the scan budget.
pub(super) const SCAN_BLOCK: usize = 64;

impl SlotLanes {
    /// Offers the nearest kept, `wanted.0`, each candidate of `ranges` (never `own`) within
    /// `radius_sq` of `centre` that `taken(slot)` accepts (see
    /// [`NearestKeys::offer_group_where`]), counting the budget `wanted.1` down by the
    /// candidates within the radius, and stopping after the group that spends it.
    #[inline]
    pub(crate) fn offer_nearest(
        &self,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        radius_sq: f32,
        wanted: (&mut NearestKeys, &mut usize),
        taken: impl Fn(usize) -> bool,
    ) {
        match self.simd {
            SimdPath::Portable => {
                self.offer_nearest_on::<Pair>(ranges, centre, own, radius_sq, wanted, taken)
            }
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => self.offer_nearest_on::<crate::simd::Avx>(
                ranges, centre, own, radius_sq, wanted, taken,
            ),
        }
    }

    /// [`offer_nearest`](Self::offer_nearest) on lanes of form `V`.
    #[inline(always)]
    fn offer_nearest_on<V: Wide>(
        &self,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        radius_sq: f32,
        (nearest, budget): (&mut NearestKeys, &mut usize),
        taken: impl Fn(usize) -> bool,
    ) {
        V::enter(
            #[inline(always)]
            || {
                let probe = Probe::new(radius_sq, Vec3::ZERO, None);
                probe.for_each_group::<V>(
                    self,
                    ranges,
                    centre,
                    own,
                    #[inline(always)]
                    |s, _, _, _, dist_sq, keep| {
                        nearest.offer_group_where(s, keep, dist_sq, &taken);
                        *budget = budget.saturating_sub(V::bitmask(keep).count_ones() as usize);
                        *budget > 0
                    },
                );
            },
        );
    }
}

/// Three coordinates on lanes.
#[derive(Clone, Copy)]
struct Lanes3<V> {
    x: V,
    y: V,
    z: V,
}

impl<V: Wide> Lanes3<V> {
    #[inline(always)]
    fn zero() -> Self {
        Self {
            x: V::splat(0.0),
            y: V::splat(0.0),
            z: V::splat(0.0),
        }
    }

    #[inline(always)]
    fn add_where(&mut self, mask: V::Mask, x: V, y: V, z: V) {
        let zero = V::splat(0.0);
        self.x = self.x + V::select(mask, x, zero);
        self.y = self.y + V::select(mask, y, zero);
        self.z = self.z + V::select(mask, z, zero);
    }

    #[inline(always)]
    fn sum(self) -> Vec3 {
        Vec3::new(lane_sum(self.x), lane_sum(self.y), lane_sum(self.z))
    }
}

/// Which candidates an agent takes in: those within `radius_sq` of the scan's centre and in
/// its field of view.
#[derive(Clone, Copy)]
pub(crate) struct Probe {
    radius_sq: f32,
    heading: Vec3,
    view: Option<FieldOfView>,
}

impl Probe {
    /// An agent heading along unit `heading` (or zero, which disables `view`).
    pub(crate) fn new(radius_sq: f32, heading: Vec3, view: Option<FieldOfView>) -> Self {
        Self {
            radius_sq,
            heading,
            view: view.filter(|_| heading != Vec3::ZERO),
        }
    }

    /// The squared radius it takes candidates in within.
    pub(crate) fn radius_sq(&self) -> f32 {
        self.radius_sq
    }

    /// The same probe with a smaller radius.
    pub(crate) fn with_radius_sq(self, radius_sq: f32) -> Self {
        Self { radius_sq, ..self }
    }

    /// Calls `visit(slot, x, y, z, dist_sq, keep)` for each group of [`LANES`] candidates of
    /// `ranges`: their offsets from `centre`, squared distances, and which of them are taken in
    /// (never `own`, nor lanes past a range's end). Stops when `visit` returns `false`, and
    /// returns whether it ran to the end.
    #[inline(always)]
    fn for_each_group<V: Wide>(
        &self,
        lanes: &SlotLanes,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        mut visit: impl FnMut(usize, V, V, V, V, V::Mask) -> bool,
    ) -> bool {
        let (cx, cy, cz) = (V::splat(centre.x), V::splat(centre.y), V::splat(centre.z));
        let (hx, hy, hz) = (
            V::splat(self.heading.x),
            V::splat(self.heading.y),
            V::splat(self.heading.z),
        );
        let radius_sq = V::splat(self.radius_sq);
        let lane_index = V::lane_index();
        // The columns as local slices: their pointers and lengths then stay in registers
        // instead of being read again from `lanes` for every group.
        let (xs, ys, zs) = (lanes.x.as_slice(), lanes.y.as_slice(), lanes.z.as_slice());
        for range in ranges {
            let mut s = range.start;
            while s < range.end {
                let x = V::load(xs, s) - cx;
                let y = V::load(ys, s) - cy;
                let z = V::load(zs, s) - cz;
                let dist_sq = x * x + y * y + z * z;
                let mut keep = dist_sq.cmple(radius_sq);
                // Lanes past the range's end (without a branch: short ranges are common).
                let left = (range.end - s).min(LANES);
                keep &= lane_index.cmplt(V::splat(left as f32));
                if own.wrapping_sub(s) < LANES {
                    keep &= lane_index.cmpne(V::splat((own - s) as u32 as f32));
                }
                if let Some(view) = self.view {
                    keep &= view.sees_lanes(x * hx + y * hy + z * hz, dist_sq);
                }
                if !visit(s, x, y, z, dist_sq, keep) {
                    return false;
                }
                s += LANES;
            }
        }
        true
    }

    /// Appends to `taken` each candidate of `range` it takes in (never `own`), and stops at
    /// the end of the first block of [`SCAN_BLOCK`] candidates (counted from the range's start)
    /// after which `taken` holds at least `budget`: returns the slot it stopped before, or
    /// `None` where it reached the range's end with fewer. `taken` needs room for
    /// [`WIDTH`] entries past those it holds at the end. Call it inside [`Wide::enter`].
    #[inline(always)]
    pub(crate) fn take_in_blocks<V: Wide>(
        &self,
        lanes: &SlotLanes,
        range: &Range<usize>,
        centre: Vec3,
        own: usize,
        budget: usize,
        taken: &mut TakenIn,
    ) -> Option<usize> {
        let mut stopped = None;
        self.for_each_group::<V>(
            lanes,
            core::slice::from_ref(range),
            centre,
            own,
            #[inline(always)]
            |s, _, _, _, dist_sq, keep| {
                taken.push_group(s, keep, dist_sq);
                let end = (s + LANES).min(range.end);
                let block_ends = (end - range.start).is_multiple_of(SCAN_BLOCK) || end == range.end;
                if taken.len() >= budget && block_ends {
                    stopped = Some(end);
                    return false;
                }
                true
            },
        );
        stopped
    }

    /// How many candidates of `ranges` it takes in within each of the squared radii in
    /// `radii_sq`. Call it inside [`Wide::enter`].
    #[inline(always)]
    pub(crate) fn count_within<V: Wide>(
        &self,
        lanes: &SlotLanes,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        radii_sq: [f32; 4],
    ) -> [u32; 4] {
        let limits = radii_sq.map(V::splat);
        let mut counts = [0; 4];
        self.for_each_group::<V>(
            lanes,
            ranges,
            centre,
            own,
            #[inline(always)]
            |_, _, _, _, dist_sq, keep| {
                for (total, &limit) in counts.iter_mut().zip(&limits) {
                    *total += count::<V>(keep & dist_sq.cmple(limit));
                }
                true
            },
        );
        counts
    }
}

/// Which of the candidates its probe takes in a [`LaneScan`] adds: every one (`()`, which
/// compiles to nothing), or those within a [`NearestCut`].
pub(crate) trait Admit<V: Wide> {
    /// Of the group starting at slot `first`, at squared distances `dist_sq`, those of `keep`
    /// to add.
    fn admit(&self, first: usize, dist_sq: V, keep: V::Mask) -> V::Mask;
}

impl<V: Wide> Admit<V> for () {
    #[inline(always)]
    fn admit(&self, _: usize, _: V, keep: V::Mask) -> V::Mask {
        keep
    }
}

impl<V: Wide> Admit<V> for NearestCut {
    #[inline(always)]
    fn admit(&self, first: usize, dist_sq: V, keep: V::Mask) -> V::Mask {
        keep & self.admits_group(first, dist_sq)
    }
}

/// One agent's neighbour sums on lanes of form `V`, and what `T` predicts of collisions.
pub(crate) struct LaneScan<V: Wide, T> {
    probe: Probe,
    /// The agent's own slot, never its own neighbour.
    own: usize,
    separation_sq: V,
    /// Whether separation falls off as the inverse square of the distance (see
    /// [`separation_divisor`]).
    unit_separation: bool,
    flock_key: V,
    /// Neighbours taken in so far (an integer: lane masks are counted, not summed on lanes, which
    /// leaves the lanes' registers to the sums).
    count: u32,
    nearest_sq: V,
    separation: Lanes3<V>,
    mates: u32,
    velocity_sum: Lanes3<V>,
    offset_sum: Lanes3<V>,
    collisions: T,
}

/// What a lane scan predicts of collisions, per group of candidates: nothing (`()`, which
/// compiles to nothing), or [`CollisionLanes`].
pub(crate) trait Collisions<V: Wide> {
    /// Takes in the candidates `keep` selects: their offsets, squared distances, velocities.
    fn observe(&mut self, keep: V::Mask, offset: [V; 3], dist_sq: V, velocity: [V; 3]);

    /// The soonest collision observed.
    fn soonest(&self) -> Option<Collision>;
}

impl<V: Wide> Collisions<V> for () {
    #[inline(always)]
    fn observe(&mut self, _: V::Mask, _: [V; 3], _: V, _: [V; 3]) {}

    fn soonest(&self) -> Option<Collision> {
        None
    }
}

/// [`Prediction::collision`] on lanes, keeping each lane's soonest.
#[derive(Clone, Copy)]
pub(crate) struct CollisionLanes<V> {
    prediction: Prediction,
    time: V,
    /// The other agent's offset at `time`.
    offset: Lanes3<V>,
}

impl<V: Wide> CollisionLanes<V> {
    /// None seen yet.
    #[inline(always)]
    pub(crate) fn new(prediction: Prediction) -> Self {
        Self {
            prediction,
            time: V::splat(f32::INFINITY),
            offset: Lanes3::zero(),
        }
    }
}

impl<V: Wide> Collisions<V> for CollisionLanes<V> {
    /// The arithmetic of [`Prediction::collision`], lane by lane.
    #[inline(always)]
    fn observe(&mut self, keep: V::Mask, [x, y, z]: [V; 3], dist_sq: V, [vx, vy, vz]: [V; 3]) {
        let own = self.prediction.velocity;
        let (dx, dy, dz) = (
            vx - V::splat(own.x),
            vy - V::splat(own.y),
            vz - V::splat(own.z),
        );
        let closing = -(x * dx + y * dy + z * dz);
        let a = dx * dx + dy * dy + dz * dz;
        let gap = dist_sq - V::splat(self.prediction.distance_sq);
        let disc = closing * closing - a * gap;
        let zero = V::splat(0.0);
        let hit = keep & gap.cmpgt(zero) & closing.cmpgt(zero) & disc.cmpge(zero);
        // Most neighbours are not on a collision course: skip the root when none is.
        if !any::<V>(hit) {
            return;
        }
        let time = ((closing - disc.max(zero).sqrt()) / a).max(zero);
        let sooner = hit & time.cmplt(V::splat(self.prediction.horizon)) & time.cmplt(self.time);
        self.time = V::select(sooner, time, self.time);
        let o = &mut self.offset;
        o.x = V::select(sooner, x + dx * time, o.x);
        o.y = V::select(sooner, y + dy * time, o.y);
        o.z = V::select(sooner, z + dz * time, o.z);
    }

    /// The first lane on a tie.
    #[inline(always)]
    fn soonest(&self) -> Option<Collision> {
        let times = self.time.to_array();
        let (lane, &time) = times
            .iter()
            .enumerate()
            .reduce(|best, next| if next.1 < best.1 { next } else { best })?;
        let o = &self.offset;
        let (x, y, z) = (o.x.to_array(), o.y.to_array(), o.z.to_array());
        time.is_finite().then(|| Collision {
            time,
            offset: Vec3::new(x[lane], y[lane], z[lane]),
        })
    }
}

impl<V: Wide, T: Collisions<V>> LaneScan<V, T> {
    /// An empty scan for the agent in slot `own`, of flock `flock_key`, taking in what `probe`
    /// does, separating within `separation_sq` (by the inverse square when `unit_separation`),
    /// predicting collisions with `collisions`. Make it, and use it, inside [`Wide::enter`].
    #[inline(always)]
    pub(crate) fn new(
        probe: Probe,
        own: usize,
        separation_sq: f32,
        unit_separation: bool,
        flock_key: f32,
        collisions: T,
    ) -> Self {
        Self {
            probe,
            own,
            separation_sq: V::splat(separation_sq),
            unit_separation,
            flock_key: V::splat(flock_key),
            count: 0,
            nearest_sq: V::splat(f32::INFINITY),
            separation: Lanes3::zero(),
            mates: 0,
            velocity_sum: Lanes3::zero(),
            offset_sum: Lanes3::zero(),
            collisions,
        }
    }

    /// Adds the neighbours of `centre` in the slot `ranges` that `admit` lets in, and offers
    /// them to `nearest`. Returns `false`, leaving the sums partial, as soon as more than `cap`
    /// neighbours are found (checked every [`SCAN_BLOCK`] candidates, so that the work stays
    /// bounded when one cell holds everyone).
    #[inline(always)]
    pub(crate) fn add(
        &mut self,
        lanes: &SlotLanes,
        ranges: &[Range<usize>],
        centre: Vec3,
        cap: f32,
        nearest: &mut impl KeepNearest,
        admit: &impl Admit<V>,
    ) -> bool {
        let mut unchecked = 0;
        let (probe, own) = (self.probe, self.own);
        // Local slices, as in `Probe::for_each_group`.
        let (vxs, vys, vzs) = (
            lanes.vx.as_slice(),
            lanes.vy.as_slice(),
            lanes.vz.as_slice(),
        );
        let keys = lanes.flock_key.as_slice();
        probe.for_each_group::<V>(
            lanes,
            ranges,
            centre,
            own,
            #[inline(always)]
            |s, x, y, z, dist_sq, keep| {
                let keep = admit.admit(s, dist_sq, keep);
                self.count += count::<V>(keep);
                nearest.offer_group(s, keep, dist_sq);
                self.nearest_sq =
                    self.nearest_sq
                        .min(V::select(keep, dist_sq, V::splat(f32::INFINITY)));
                let near = keep & dist_sq.cmplt(self.separation_sq);
                // Few candidates are this close: skip the division when none is.
                if any::<V>(near) {
                    let inv = V::splat(1.0) / separation_divisor(dist_sq, self.unit_separation);
                    self.separation
                        .add_where(near, -x * inv, -y * inv, -z * inv);
                }
                let (vx, vy, vz) = (V::load(vxs, s), V::load(vys, s), V::load(vzs, s));
                self.collisions
                    .observe(keep, [x, y, z], dist_sq, [vx, vy, vz]);
                let mate = keep & V::load(keys, s).cmpeq(self.flock_key);
                self.mates += count::<V>(mate);
                self.velocity_sum.add_where(mate, vx, vy, vz);
                self.offset_sum.add_where(mate, x, y, z);
                unchecked += LANES;
                if unchecked >= SCAN_BLOCK {
                    unchecked = 0;
                    return self.count() <= cap;
                }
                true
            },
        )
    }

    /// Neighbours found so far.
    pub(crate) fn count(&self) -> f32 {
        self.count as f32
    }

    /// The sums, or `None` when a neighbour is coincident with the agent (its separation needs
    /// the exact scan).
    #[inline(always)]
    pub(crate) fn finish(self) -> Option<Scan> {
        let nearest_sq = self
            .nearest_sq
            .to_array()
            .into_iter()
            .fold(f32::INFINITY, f32::min);
        if nearest_sq <= COINCIDENT_SQ {
            return None;
        }
        Some(Scan {
            count: self.count,
            nearest_sq,
            separation: self.separation.sum(),
            mates: self.mates,
            velocity_sum: self.velocity_sum.sum(),
            offset_sum: self.offset_sum.sum(),
            collision: self.collisions.soonest(),
        })
    }
}
