//! Agents in cell order, one array per coordinate, and the neighbour scan that reads them four
//! candidates at a time.
//!
//! The scan tests every candidate of a range with SIMD lanes and adds the ones in range into
//! per-lane sums under a mask, so it neither branches on the data nor stores candidates. It
//! answers only the common case; [`LaneScan::finish`] declines (and the caller runs the exact
//! scan) when a neighbour sits on top of the agent or more neighbours are found than the cap.

use core::ops::Range;
use std::collections::HashMap;

use glam::{BVec4A, Vec3, Vec4};

use super::Scan;
use crate::agents::Gathered;
use crate::rules::{COINCIDENT_SQ, Collision, Prediction, separation_divisor};

/// Candidates tested at once.
const LANES: usize = 4;
/// Lane numbers, to mask lanes past the end of a range.
const LANE_INDEX: Vec4 = Vec4::new(0.0, 1.0, 2.0, 3.0);
/// Flock keys are stored as `f32`, exact below this many distinct flocks.
const EXACT_KEYS: usize = 1 << 24;

/// Positions, velocities and flocks of the agents in grid slot order, one array per
/// component, each padded with `LANES - 1` zeros so that the last lanes load in bounds.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotLanes {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    vz: Vec<f32>,
    /// Dense number of the agent's flock, in order of first appearance.
    flock_key: Vec<f32>,
    /// Whether every flock got a distinct key (fewer than [`EXACT_KEYS`] flocks).
    keys_exact: bool,
    flock_keys: HashMap<u32, f32>,
}

impl SlotLanes {
    /// Copies the `gathered` agents (in slot order) into columns.
    pub(crate) fn fill(&mut self, gathered: &[Gathered]) {
        self.flock_keys.clear();
        let mut last: Option<(u32, f32)> = None;
        let padded = gathered.len() + LANES - 1;
        for column in self.columns_mut() {
            column.clear();
            column.reserve(padded);
        }
        for agent in gathered {
            let (p, v, flock) = (agent.body.position, agent.body.velocity, agent.flock);
            let key = match last {
                Some((f, key)) if f == flock => key,
                _ => {
                    let next = self.flock_keys.len() as f32;
                    let key = *self.flock_keys.entry(flock).or_insert(next);
                    last = Some((flock, key));
                    key
                }
            };
            self.x.push(p.x);
            self.y.push(p.y);
            self.z.push(p.z);
            self.vx.push(v.x);
            self.vy.push(v.y);
            self.vz.push(v.z);
            self.flock_key.push(key);
        }
        for column in self.columns_mut() {
            column.resize(padded, 0.0);
        }
        self.keys_exact = self.flock_keys.len() < EXACT_KEYS;
    }

    fn columns_mut(&mut self) -> [&mut Vec<f32>; 7] {
        [
            &mut self.x,
            &mut self.y,
            &mut self.z,
            &mut self.vx,
            &mut self.vy,
            &mut self.vz,
            &mut self.flock_key,
        ]
    }

    /// The position in `slot`.
    pub(crate) fn position(&self, slot: usize) -> Vec3 {
        Vec3::new(self.x[slot], self.y[slot], self.z[slot])
    }

    /// Whether flock keys tell every flock apart, so that [`LaneScan`] may be used.
    pub(crate) fn keys_exact(&self) -> bool {
        self.keys_exact
    }

    /// The flock key in `slot`: equal keys mean the same flock while `keys_exact` holds.
    pub(crate) fn flock_key(&self, slot: usize) -> f32 {
        self.flock_key[slot]
    }

    fn load(column: &[f32], slot: usize) -> Vec4 {
        Vec4::from_slice(&column[slot..slot + LANES])
    }

    /// Calls `take(slot, dist_sq, offset)` for each candidate of `ranges` (never `own`) whose
    /// squared distance from `centre` is at most `radius_sq`, testing four at a time.
    #[inline]
    pub(crate) fn for_each_near(
        &self,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        radius_sq: f32,
        mut take: impl FnMut(usize, f32, Vec3),
    ) {
        let probe = Probe::new(radius_sq, Vec3::ZERO, None);
        probe.for_each_group(self, ranges, centre, own, |s, x, y, z, dist_sq, keep| {
            let mut bits = keep.bitmask();
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                take(s + k, dist_sq[k], Vec3::new(x[k], y[k], z[k]));
            }
            true
        });
    }
}

/// The field of view as a test on `d = offset · heading` and the squared distance `r²`,
/// without a square root: `d >= cos(half angle) · r`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FieldOfView {
    cos_half: f32,
    cos_half_sq: f32,
}

impl FieldOfView {
    /// The view `degrees` wide, or `None` for a full view.
    pub(crate) fn new(degrees: f32) -> Option<Self> {
        (degrees < 360.0).then(|| {
            let cos_half = libm::cosf((degrees * 0.5).to_radians());
            Self {
                cos_half,
                cos_half_sq: cos_half * cos_half,
            }
        })
    }

    /// Whether an offset with `dot` along the heading and squared length `dist_sq` is seen.
    /// Coincident agents are always seen.
    pub(crate) fn sees(self, dot: f32, dist_sq: f32) -> bool {
        let ahead = dot >= 0.0;
        let by_angle = if self.cos_half >= 0.0 {
            ahead && dot * dot >= self.cos_half_sq * dist_sq
        } else {
            ahead || dot * dot <= self.cos_half_sq * dist_sq
        };
        by_angle || dist_sq <= COINCIDENT_SQ
    }

    /// [`sees`](Self::sees) on four lanes, with the same arithmetic.
    fn sees_lanes(self, dot: Vec4, dist_sq: Vec4) -> BVec4A {
        let ahead = dot.cmpge(Vec4::ZERO);
        let dot_sq = dot * dot;
        let limit = Vec4::splat(self.cos_half_sq) * dist_sq;
        let by_angle = if self.cos_half >= 0.0 {
            ahead & dot_sq.cmpge(limit)
        } else {
            ahead | dot_sq.cmple(limit)
        };
        by_angle | dist_sq.cmple(Vec4::splat(COINCIDENT_SQ))
    }
}

/// Three coordinates of four lanes.
#[derive(Clone, Copy)]
struct Lanes3 {
    x: Vec4,
    y: Vec4,
    z: Vec4,
}

impl Lanes3 {
    const ZERO: Self = Self {
        x: Vec4::ZERO,
        y: Vec4::ZERO,
        z: Vec4::ZERO,
    };

    fn add_where(&mut self, mask: BVec4A, x: Vec4, y: Vec4, z: Vec4) {
        self.x += Vec4::select(mask, x, Vec4::ZERO);
        self.y += Vec4::select(mask, y, Vec4::ZERO);
        self.z += Vec4::select(mask, z, Vec4::ZERO);
    }

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

    /// The same probe with a smaller radius.
    pub(crate) fn with_radius_sq(self, radius_sq: f32) -> Self {
        Self { radius_sq, ..self }
    }

    /// Calls `visit(slot, x, y, z, dist_sq, keep)` for each group of four candidates of
    /// `ranges`: their offsets from `centre`, squared distances, and which of them are taken in
    /// (never `own`, nor lanes past a range's end). Stops when `visit` returns `false`, and
    /// returns whether it ran to the end.
    #[inline(always)]
    fn for_each_group(
        &self,
        lanes: &SlotLanes,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        mut visit: impl FnMut(usize, Vec4, Vec4, Vec4, Vec4, BVec4A) -> bool,
    ) -> bool {
        let (cx, cy, cz) = (
            Vec4::splat(centre.x),
            Vec4::splat(centre.y),
            Vec4::splat(centre.z),
        );
        let (hx, hy, hz) = (
            Vec4::splat(self.heading.x),
            Vec4::splat(self.heading.y),
            Vec4::splat(self.heading.z),
        );
        let radius_sq = Vec4::splat(self.radius_sq);
        // The columns as local slices: their pointers and lengths then stay in registers
        // instead of being read again from `lanes` for every group.
        let (xs, ys, zs) = (lanes.x.as_slice(), lanes.y.as_slice(), lanes.z.as_slice());
        for range in ranges {
            let mut s = range.start;
            while s < range.end {
                let x = SlotLanes::load(xs, s) - cx;
                let y = SlotLanes::load(ys, s) - cy;
                let z = SlotLanes::load(zs, s) - cz;
                let dist_sq = x * x + y * y + z * z;
                let mut keep = dist_sq.cmple(radius_sq);
                // Lanes past the range's end (without a branch: short ranges are common).
                let left = (range.end - s).min(LANES);
                keep &= LANE_INDEX.cmplt(Vec4::splat(left as f32));
                if own.wrapping_sub(s) < LANES {
                    keep &= LANE_INDEX.cmpne(Vec4::splat((own - s) as u32 as f32));
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

    /// How many candidates of `ranges` it takes in within each of the squared radii in
    /// `radii_sq`, four at once.
    pub(crate) fn count_within(
        &self,
        lanes: &SlotLanes,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        radii_sq: [f32; 4],
    ) -> [f32; 4] {
        let limits = radii_sq.map(Vec4::splat);
        let mut counts = [Vec4::ZERO; 4];
        self.for_each_group(lanes, ranges, centre, own, |_, _, _, _, dist_sq, keep| {
            for (count, &limit) in counts.iter_mut().zip(&limits) {
                *count += Vec4::select(keep & dist_sq.cmple(limit), Vec4::ONE, Vec4::ZERO);
            }
            true
        });
        counts.map(lane_sum)
    }
}

/// One agent's neighbour sums, four lanes wide, and what `T` predicts of collisions.
pub(crate) struct LaneScan<T> {
    probe: Probe,
    separation_sq: Vec4,
    /// Whether separation falls off as the inverse square of the distance (see
    /// [`separation_divisor`]).
    unit_separation: bool,
    flock_key: Vec4,
    /// Neighbours taken in so far (an integer: lane masks are counted, not summed on lanes, which
    /// leaves the lanes' registers to the sums).
    count: u32,
    nearest_sq: Vec4,
    separation: Lanes3,
    mates: u32,
    velocity_sum: Lanes3,
    offset_sum: Lanes3,
    collisions: T,
}

/// What a lane scan predicts of collisions, per group of candidates: nothing (`()`, which
/// compiles to nothing), or [`CollisionLanes`].
pub(crate) trait Collisions {
    /// Takes in the candidates `keep` selects: their offsets, squared distances, velocities.
    fn observe(&mut self, keep: BVec4A, offset: [Vec4; 3], dist_sq: Vec4, velocity: [Vec4; 3]);

    /// The soonest collision observed.
    fn soonest(&self) -> Option<Collision>;
}

impl Collisions for () {
    #[inline(always)]
    fn observe(&mut self, _: BVec4A, _: [Vec4; 3], _: Vec4, _: [Vec4; 3]) {}

    fn soonest(&self) -> Option<Collision> {
        None
    }
}

/// [`Prediction::collision`] on four lanes, keeping each lane's soonest.
#[derive(Clone, Copy)]
pub(crate) struct CollisionLanes {
    prediction: Prediction,
    time: Vec4,
    /// The other agent's offset at `time`.
    offset: Lanes3,
}

impl CollisionLanes {
    /// None seen yet.
    pub(crate) fn new(prediction: Prediction) -> Self {
        Self {
            prediction,
            time: Vec4::INFINITY,
            offset: Lanes3::ZERO,
        }
    }
}

impl Collisions for CollisionLanes {
    /// The arithmetic of [`Prediction::collision`], lane by lane.
    #[inline(always)]
    fn observe(
        &mut self,
        keep: BVec4A,
        [x, y, z]: [Vec4; 3],
        dist_sq: Vec4,
        [vx, vy, vz]: [Vec4; 3],
    ) {
        let own = self.prediction.velocity;
        let (dx, dy, dz) = (
            vx - Vec4::splat(own.x),
            vy - Vec4::splat(own.y),
            vz - Vec4::splat(own.z),
        );
        let closing = -(x * dx + y * dy + z * dz);
        let a = dx * dx + dy * dy + dz * dz;
        let gap = dist_sq - Vec4::splat(self.prediction.distance_sq);
        let disc = closing * closing - a * gap;
        let hit = keep & gap.cmpgt(Vec4::ZERO) & closing.cmpgt(Vec4::ZERO) & disc.cmpge(Vec4::ZERO);
        // Most neighbours are not on a collision course: skip the root when none is.
        if !hit.any() {
            return;
        }
        let time = ((closing - disc.max(Vec4::ZERO).sqrt()) / a).max(Vec4::ZERO);
        let sooner = hit & time.cmplt(Vec4::splat(self.prediction.horizon)) & time.cmplt(self.time);
        self.time = Vec4::select(sooner, time, self.time);
        let o = &mut self.offset;
        o.x = Vec4::select(sooner, x + dx * time, o.x);
        o.y = Vec4::select(sooner, y + dy * time, o.y);
        o.z = Vec4::select(sooner, z + dz * time, o.z);
    }

    /// The first lane on a tie.
    fn soonest(&self) -> Option<Collision> {
        let times = self.time.to_array();
        let (lane, &time) = times
            .iter()
            .enumerate()
            .reduce(|best, next| if next.1 < best.1 { next } else { best })?;
        let o = &self.offset;
        time.is_finite().then(|| Collision {
            time,
            offset: Vec3::new(o.x[lane], o.y[lane], o.z[lane]),
        })
    }
}

impl<T: Collisions> LaneScan<T> {
    /// An empty scan for an agent of flock `flock_key` taking in what `probe` does, separating
    /// within `separation_sq` (by the inverse square when `unit_separation`), predicting
    /// collisions with `collisions`.
    pub(crate) fn new(
        probe: Probe,
        separation_sq: f32,
        unit_separation: bool,
        flock_key: f32,
        collisions: T,
    ) -> Self {
        Self {
            probe,
            separation_sq: Vec4::splat(separation_sq),
            unit_separation,
            flock_key: Vec4::splat(flock_key),
            count: 0,
            nearest_sq: Vec4::INFINITY,
            separation: Lanes3::ZERO,
            mates: 0,
            velocity_sum: Lanes3::ZERO,
            offset_sum: Lanes3::ZERO,
            collisions,
        }
    }

    /// Adds the neighbours of `centre` in the slot `ranges`, skipping slot `own`. Returns
    /// `false`, leaving the sums partial, as soon as more than `cap` neighbours are found
    /// (checked every `block` candidates, so that the work stays bounded when one cell holds
    /// everyone).
    #[inline]
    pub(crate) fn add(
        &mut self,
        lanes: &SlotLanes,
        ranges: &[Range<usize>],
        centre: Vec3,
        own: usize,
        cap: f32,
        block: usize,
    ) -> bool {
        let mut unchecked = 0;
        let probe = self.probe;
        // Local slices, as in `Probe::for_each_group`.
        let (vxs, vys, vzs) = (
            lanes.vx.as_slice(),
            lanes.vy.as_slice(),
            lanes.vz.as_slice(),
        );
        let keys = lanes.flock_key.as_slice();
        probe.for_each_group(lanes, ranges, centre, own, |s, x, y, z, dist_sq, keep| {
            self.count += lanes_set(keep);
            self.nearest_sq = self
                .nearest_sq
                .min(Vec4::select(keep, dist_sq, Vec4::INFINITY));
            let near = keep & dist_sq.cmplt(self.separation_sq);
            // Few candidates are this close: skip the division when none is.
            if near.any() {
                let inv = Vec4::ONE / separation_divisor(dist_sq, self.unit_separation);
                self.separation
                    .add_where(near, -x * inv, -y * inv, -z * inv);
            }
            let (vx, vy, vz) = (
                SlotLanes::load(vxs, s),
                SlotLanes::load(vys, s),
                SlotLanes::load(vzs, s),
            );
            self.collisions
                .observe(keep, [x, y, z], dist_sq, [vx, vy, vz]);
            let mate = keep & SlotLanes::load(keys, s).cmpeq(self.flock_key);
            self.mates += lanes_set(mate);
            self.velocity_sum.add_where(mate, vx, vy, vz);
            self.offset_sum.add_where(mate, x, y, z);
            unchecked += LANES;
            if unchecked >= block {
                unchecked = 0;
                return self.count() <= cap;
            }
            true
        })
    }

    /// Neighbours found so far.
    pub(crate) fn count(&self) -> f32 {
        self.count as f32
    }

    /// The sums, or `None` when a neighbour is coincident with the agent (its separation needs
    /// the exact scan).
    pub(crate) fn finish(self) -> Option<Scan> {
        let nearest_sq = self.nearest_sq.min_element();
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

/// The sum of four lanes in one fixed order on every target (glam's `element_sum` adds them in
/// a different order with SSE2 than without), so that results repeat across platforms.
fn lane_sum(v: Vec4) -> f32 {
    let [a, b, c, d] = v.to_array();
    (a + b) + (c + d)
}

/// How many of the four lanes `mask` selects.
#[inline(always)]
fn lanes_set(mask: BVec4A) -> u32 {
    mask.bitmask().count_ones()
}
