//! Neighbour lookup: the grid, the agents copied into its cell order, and the scan that finds
//! each agent's neighbours and sums what the flocking rules need of them.
//!
//! The scan has two ways: eight candidates at a time on SIMD lanes ([`lanes`]), which answers
//! the common case, and an exact one, which answers the rest (a neighbour on top of the agent,
//! more neighbours than the cap). Both give the same [`Scan`].

pub(crate) mod grid;
pub(crate) mod lanes;
pub(crate) mod nearest;
pub(crate) mod wide;

use core::ops::{ControlFlow, Range};

use glam::Vec3;

use crate::agents::Gathered;
use crate::crowd::prefetch_mapped;
use crate::executor::for_each_chunk_mut;
use crate::forces::SlotAgent;
use crate::rules::{
    COINCIDENT_SQ, Collision, Prediction, coincident_direction, separation_divisor,
};
use crate::tuning::{Boundary, Prepared};
use crate::{Crowd, Space};
use grid::UniformGrid;
use lanes::{CollisionLanes, Collisions, LaneScan, Probe, SlotLanes};
use nearest::{KeepNearest, NearestBuffer, NearestKeys};
use wide::{Pair, SimdPath, Wide};

/// How many slots ahead the gather into slot order asks for the agents it will read (see
/// [`prefetch_mapped`]).
const GATHER_AHEAD: usize = 16;

/// With a neighbour cap of `k`, an agent stops scanning after `k` times this many candidates in
/// range, then keeps the nearest `k`: the work per agent stays bounded even if every agent
/// shares one cell.
const CANDIDATES_PER_NEIGHBOUR: usize = 4;
/// When more neighbours than the cap are in range, the lane scan takes in those within the
/// largest of these fractions of the radius that holds at most the cap (0.85 of the radius
/// holds 61% of its volume, 0.6 holds 22%); beyond them the exact scan picks the nearest.
const SHRUNK_RADII: [f32; 4] = [1.0, 0.85, 0.7, 0.6];
/// Up to this many candidates per allowed neighbour, the lane scan first tries the whole
/// radius; above it, it counts within [`SHRUNK_RADII`] first, since the cap would most likely
/// be exceeded.
const CANDIDATES_TO_TRY_PER_NEIGHBOUR: f32 = 4.0;
/// Above this many candidates per allowed neighbour, the crowd is too dense to count cheaply:
/// the exact scan, whose work is bounded, takes over.
const CANDIDATES_TO_COUNT_PER_NEIGHBOUR: f32 = 16.0;
/// Candidates scanned between checks of the scan budget.
pub(super) const SCAN_BLOCK: usize = 64;

/// The neighbour grid of the last [`Crowd::build_index`], and the agents in its cell order.
#[derive(Clone, Debug, Default)]
pub(crate) struct NeighbourIndex {
    pub(crate) grid: UniformGrid,
    /// By grid slot: each agent's state, gathered at the last build.
    pub(crate) gathered: Vec<Gathered>,
    /// By grid slot: positions, velocities and flocks as columns, for the lane scan.
    pub(crate) lanes: SlotLanes,
}

impl NeighbourIndex {
    /// Whether the index was built for `len` agents.
    #[inline]
    pub(crate) fn covers(&self, len: usize) -> bool {
        self.gathered.len() == len
    }
}

/// What one agent saw in its neighbourhood: the sums the flocking rules are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Scan {
    pub(crate) count: u32,
    pub(crate) nearest_sq: f32,
    /// Sum of each neighbour's push within the separation radius (see
    /// [`separation_divisor`]).
    pub(crate) separation: Vec3,
    pub(crate) mates: u32,
    pub(crate) velocity_sum: Vec3,
    /// Sum of offsets to flock-mates; over `mates` it is `centroid - p`, seams included.
    pub(crate) offset_sum: Vec3,
    /// The soonest predicted collision with a neighbour, when the agent predicts them.
    pub(crate) collision: Option<Collision>,
}

impl Scan {
    /// Nothing seen yet.
    pub(crate) fn new() -> Self {
        Self {
            nearest_sq: f32::INFINITY,
            ..Self::default()
        }
    }
}

impl Crowd {
    /// Neighbour lookup, the first stage of a tick: rebuilds the uniform grid for the largest
    /// neighbour radius (see [`UniformGrid`]) and copies the agents in cell order, so that each
    /// neighbourhood is read from a few contiguous ranges.
    pub fn build_index(&mut self) {
        let radius = self
            .params
            .iter()
            .map(|p| p.params.perception.neighbour_radius)
            .fold(0.0_f32, f32::max);
        let bodies = &self.agents.bodies;
        self.index.grid.rebuild_on(
            &*self.executor,
            bodies.len(),
            |i| bodies[i].position,
            radius,
        );
        self.forces.pending = false;
        let mut gathered = core::mem::take(&mut self.index.gathered);
        // Every entry is written below: a steady crowd's buffer is not cleared first.
        gathered.resize(self.len(), Gathered::default());
        // Read by agent index, these loads miss the cache: in parallel, and in a loop of
        // independent loads whose misses overlap.
        let (agents, order) = (&self.agents, self.index.grid.order());
        for_each_chunk_mut(&*self.executor, &mut gathered, |first, chunk| {
            for (out, slot) in chunk.iter_mut().zip(first..) {
                prefetch_mapped(order, &agents.bodies, slot + GATHER_AHEAD);
                prefetch_mapped(order, &agents.targets, slot + GATHER_AHEAD);
                let i = order[slot] as usize;
                *out = Gathered {
                    body: agents.bodies[i],
                    target: agents.targets[i],
                    index: i as u32,
                    flock: agents.flocks[i],
                    params: agents.params[i],
                };
            }
        });
        self.index.lanes.fill(&gathered, &*self.executor);
        self.index.gathered = gathered;
    }

    /// Makes the neighbour scan run on `path` (see [`SimdPath`]), if this processor runs it;
    /// returns whether it does (the crowd keeps its path otherwise). Every path gives the same
    /// results; this is for comparing their speed, or checking that they agree.
    pub fn set_simd_path(&mut self, path: SimdPath) -> bool {
        self.index.lanes.set_simd(path)
    }

    /// The path the neighbour scan runs on: [`SimdPath::detect`]'s choice unless
    /// [`set_simd_path`](Self::set_simd_path) forced another.
    pub fn simd_path(&self) -> SimdPath {
        self.index.lanes.simd()
    }

    /// Mean number of candidates the neighbour scan checks per agent (distance tests, seams
    /// included), for the last [`build_index`](Self::build_index): the work behind the
    /// neighbours found. Not part of a tick; benchmarks report it beside their times.
    pub fn candidates_per_agent(&self) -> f32 {
        if self.is_empty() || !self.index.covers(self.len()) {
            return 0.0;
        }
        let mut total = 0_u64;
        for i in 0..self.len() {
            let p = self.agents.bodies[i].position;
            for shift in seam_images(p, self.prepared_of(i), self.space).iter() {
                let _ = self
                    .index
                    .grid
                    .for_each_candidate(p + shift, self.space, |_| {
                        total += 1;
                        ControlFlow::Continue(())
                    });
            }
        }
        total as f32 / self.len() as f32
    }
}

/// Buffers a chunk of the force pass reuses from agent to agent: the stencil of the cell being
/// scanned, and the exact scan's candidates.
#[derive(Default)]
pub(crate) struct ScanBuffers {
    /// The cell whose stencil `stencil` holds.
    stencil_cell: Option<glam::IVec3>,
    stencil: Vec<Range<usize>>,
    seam_stencil: Vec<Range<usize>>,
    candidates: Vec<Candidate>,
    /// Selection keys when the cap binds.
    keys: Vec<u64>,
}

/// A neighbour found in the exact scan, before the cap picks the nearest.
#[derive(Clone, Copy, Default)]
struct Candidate {
    dist_sq: f32,
    slot: u32,
    offset: Vec3,
}

/// Up to 8 shifts of a query point, see [`seam_images`].
pub(crate) struct Images {
    shifts: [Vec3; 8],
    len: usize,
}

impl Images {
    /// Whether the only shift is zero: the point is near no wrap seam.
    pub(crate) fn only_zero(&self) -> bool {
        self.len == 1
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.shifts[..self.len].iter().copied()
    }
}

/// The shifts under which an agent at `p` looks for neighbours: zero, plus, in a wrapping box,
/// one box size across each face it is within a neighbour radius of (up to 8 in a corner), so
/// that agents see each other across the seam. Axes where the box is no wider than two radii
/// get no seam search, since an agent could then be counted twice.
#[inline]
pub(crate) fn seam_images(p: Vec3, prepared: &Prepared, space: Space) -> Images {
    let mut images = Images {
        shifts: [Vec3::ZERO; 8],
        len: 1,
    };
    let Boundary::Wrap { min, max } = prepared.params.boundary else {
        return images;
    };
    let radius = prepared.params.perception.neighbour_radius;
    let axes = match space {
        Space::Volume => 3,
        Space::Planar => 2,
    };
    for axis in 0..axes {
        let size = max[axis] - min[axis];
        if size <= 2.0 * radius {
            continue;
        }
        let across = if p[axis] - min[axis] < radius {
            size
        } else if max[axis] - p[axis] < radius {
            -size
        } else {
            continue;
        };
        for k in 0..images.len {
            let mut shifted = images.shifts[k];
            shifted[axis] += across;
            images.shifts[images.len + k] = shifted;
        }
        images.len *= 2;
    }
    images
}

/// Where one agent looks for neighbours: the slot ranges of its cell's stencil, and those of
/// its images across wrap seams.
pub(crate) struct Neighbourhood<'a> {
    index: &'a NeighbourIndex,
    space: Space,
    agent: &'a SlotAgent<'a>,
    images: Images,
    buffers: &'a mut ScanBuffers,
}

impl<'a> Neighbourhood<'a> {
    /// `agent`'s neighbourhood in `index`, with the stencil of its cell in `buffers` (kept
    /// from the agent before when it is in the same cell).
    #[inline]
    pub(crate) fn new(
        index: &'a NeighbourIndex,
        space: Space,
        agent: &'a SlotAgent<'a>,
        buffers: &'a mut ScanBuffers,
    ) -> Self {
        let cell = index.grid.cell_of(agent.position);
        if buffers.stencil_cell != Some(cell) {
            index.grid.stencil(cell, space, &mut buffers.stencil);
            buffers.stencil_cell = Some(cell);
        }
        Self {
            index,
            space,
            agent,
            images: seam_images(agent.position, agent.params, space),
            buffers,
        }
    }

    /// Scans the neighbours: with SIMD lanes when they can answer, else exactly.
    #[inline]
    pub(crate) fn scan(&mut self) -> Scan {
        match self.scan_lanes() {
            Some(scan) => scan,
            None => self.scan_exact(),
        }
    }

    /// [`scan`](Self::scan), keeping the nearest neighbours within the radius as the
    /// velocity-obstacle step takes them, where the lanes take in every one of them: for an
    /// agent with a full field of view whose neighbours stay within its cap. Only those within
    /// `ceiling_sq` (a squared distance) are offered, which saves most of the work where the
    /// ceiling is near the farthest kept. `None` where they are not known: also where fewer
    /// than [`MOST_AGENTS_AVOIDED`](crate::velocity_obstacles::MOST_AGENTS_AVOIDED) are within
    /// a ceiling lower than the radius.
    #[inline]
    pub(crate) fn scan_keeping_nearest(&mut self, ceiling_sq: f32) -> (Scan, Option<NearestKeys>) {
        if self.agent.params.view.is_some() {
            return (self.scan(), None);
        }
        self.scan_lanes_keeping(&mut NearestBuffer::within(ceiling_sq))
            .unwrap_or_else(|| (self.scan_exact(), None))
    }

    /// The slot ranges to scan around the agent's image shifted by `shift` (see
    /// [`image_ranges`]).
    #[inline]
    fn ranges(&mut self, shift: Vec3) -> &[Range<usize>] {
        let buffers = &mut *self.buffers;
        image_ranges(
            self.index,
            self.space,
            self.agent.position + shift,
            shift,
            &buffers.stencil,
            &mut buffers.seam_stencil,
        )
    }

    /// The scan on SIMD lanes, or `None` where it cannot answer: a coincident neighbour, more
    /// flocks than keys tell apart, or more neighbours than the cap even within the smallest
    /// of [`SHRUNK_RADII`] (or a crowd too dense to count them cheaply).
    #[inline]
    pub(crate) fn scan_lanes(&mut self) -> Option<Scan> {
        self.scan_lanes_keeping(&mut ()).map(|(scan, _)| scan)
    }

    /// [`scan_lanes`](Self::scan_lanes), with what `nearest` kept of the nearest neighbours
    /// where the scan took in every candidate within the whole radius.
    #[inline]
    fn scan_lanes_keeping<K: KeepNearest>(
        &mut self,
        nearest: &mut K,
    ) -> Option<(Scan, Option<K::Kept>)> {
        if !self.index.lanes.keys_exact() {
            return None;
        }
        match self.index.lanes.simd() {
            SimdPath::Portable => self.scan_lanes_on::<Pair, K>(nearest),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => self.scan_lanes_on::<wide::Avx, K>(nearest),
        }
    }

    /// [`scan_lanes_keeping`](Self::scan_lanes_keeping) on lanes of form `V`.
    #[inline(always)]
    fn scan_lanes_on<V: Wide, K: KeepNearest>(
        &mut self,
        nearest: &mut K,
    ) -> Option<(Scan, Option<K::Kept>)> {
        // Agents that predict no collisions run a scan without that work compiled in.
        V::enter(
            #[inline(always)]
            || match self.agent.prediction() {
                Some(prediction) => {
                    self.scan_lanes_with::<V, _, K>(CollisionLanes::new(prediction), nearest)
                }
                None => self.scan_lanes_with::<V, _, K>((), nearest),
            },
        )
    }

    /// [`scan_lanes_keeping`](Self::scan_lanes_keeping), observing collisions with
    /// `collisions`.
    #[inline(always)]
    fn scan_lanes_with<V: Wide, T: Collisions<V> + Copy, K: KeepNearest>(
        &mut self,
        collisions: T,
        nearest: &mut K,
    ) -> Option<(Scan, Option<K::Kept>)> {
        let prepared = self.agent.params;
        let probe = Probe::new(
            prepared.neighbour_radius_sq,
            self.agent.heading,
            prepared.view,
        );
        let radius_sq = prepared.neighbour_radius_sq;
        let Some(cap) = prepared.params.perception.max_neighbours else {
            let scan = self
                .lane_sums(probe, f32::INFINITY, collisions, nearest)?
                .finish()?;
            return Some((scan, nearest.complete(radius_sq)));
        };
        let cap = cap as f32;
        let mut candidates = 0;
        for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            candidates += self.ranges(shift).iter().map(|r| r.len()).sum::<usize>();
        }
        // Few candidates: most likely under the cap, so try the whole radius first.
        if candidates as f32 <= cap * CANDIDATES_TO_TRY_PER_NEIGHBOUR
            && let Some(sums) = self.lane_sums(probe, cap, collisions, nearest)
        {
            return Some((sums.finish()?, nearest.complete(radius_sq)));
        }
        if candidates as f32 > cap * CANDIDATES_TO_COUNT_PER_NEIGHBOUR {
            return None;
        }
        // Count the neighbours within each step of the radius, and take in those within the
        // largest step that holds at most `cap`.
        let radii_sq = SHRUNK_RADII.map(|f| f * f * prepared.neighbour_radius_sq);
        let mut counts = [0; 4];
        let (index, position, slot) = (self.index, self.agent.position, self.agent.slot);
        let lanes = &index.lanes;
        for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            let ranges = self.ranges(shift);
            let found = probe.count_within::<V>(lanes, ranges, position + shift, slot, radii_sq);
            for (total, found) in counts.iter_mut().zip(found) {
                *total += found;
            }
        }
        let (shrunk_sq, _) = radii_sq
            .into_iter()
            .zip(counts)
            .find(|&(_, count)| count as f32 <= cap)?;
        // Within a shrunk radius, the nearest kept would not be those of the whole one.
        let scan = self
            .lane_sums(probe.with_radius_sq(shrunk_sq), cap, collisions, &mut ())?
            .finish()?;
        Some((scan, None))
    }

    /// The lane sums of what `probe` takes in, offering the neighbours to `nearest`, or `None`
    /// as soon as they hold more than `cap` neighbours.
    #[inline(always)]
    fn lane_sums<V: Wide, T: Collisions<V>>(
        &mut self,
        probe: Probe,
        cap: f32,
        collisions: T,
        nearest: &mut impl KeepNearest,
    ) -> Option<LaneScan<V, T>> {
        let (index, agent) = (self.index, self.agent);
        let lanes = &index.lanes;
        let mut scan = LaneScan::new(
            probe,
            agent.params.separation_radius_sq,
            agent.params.unit_separation,
            lanes.flock_key(agent.slot),
            collisions,
        );
        for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            let ranges = self.ranges(shift);
            let centre = agent.position + shift;
            if !scan.add(lanes, ranges, centre, agent.slot, cap, nearest) {
                return None;
            }
        }
        (scan.count() <= cap).then_some(scan)
    }

    /// The exact scan: candidates in range are collected, filtered by the field of view, cut to
    /// the nearest `max_neighbours`, and coincident neighbours get their fixed direction.
    pub(crate) fn scan_exact(&mut self) -> Scan {
        let prepared = self.agent.params;
        let cap = prepared
            .params
            .perception
            .max_neighbours
            .map(|k| k as usize);
        let found = self.collect_in_range(cap);
        let found = self.keep_in_view(found);
        let mut scan = Scan::new();
        let (index, space, agent) = (self.index, self.space, self.agent);
        let prediction = agent.prediction();
        let buffers = &mut *self.buffers;
        match cap {
            Some(cap) if cap < found => {
                // Over the cap: the nearest. Each key packs the squared distance (never
                // negative, so its bits order like the number) over the candidate's place in
                // the scan, which breaks ties: the set is canonical, and selecting integers is
                // fast. Selection is deterministic, so the sums need no sorted order.
                let keys = &mut buffers.keys;
                keys.clear();
                keys.extend(
                    buffers.candidates[..found]
                        .iter()
                        .enumerate()
                        .map(|(k, c)| (u64::from(c.dist_sq.to_bits()) << 32) | k as u64),
                );
                keys.select_nth_unstable(cap);
                for &key in &keys[..cap] {
                    let candidate = &buffers.candidates[key as u32 as usize];
                    take_neighbour(index, space, agent, candidate, prediction, &mut scan);
                }
            }
            _ => {
                for candidate in &buffers.candidates[..found] {
                    take_neighbour(index, space, agent, candidate, prediction, &mut scan);
                }
            }
        }
        scan
    }

    /// The exact scan's first pass, without branches on the data: every candidate is written
    /// to the buffer and kept (by advancing the count) only if it is in range, so the
    /// unpredictable radius test costs no mispredicted jumps. In blocks, so that the scan stops
    /// soon after `cap` allows no more (see [`CANDIDATES_PER_NEIGHBOUR`]) even when one cell
    /// holds everyone. Returns how many were kept.
    fn collect_in_range(&mut self, cap: Option<usize>) -> usize {
        let budget = cap.map_or(usize::MAX, |k| {
            k.saturating_mul(CANDIDATES_PER_NEIGHBOUR).max(64)
        });
        let (radius_sq, own) = (self.agent.params.neighbour_radius_sq, self.agent.slot);
        let ScanBuffers {
            stencil,
            seam_stencil,
            candidates,
            ..
        } = &mut *self.buffers;
        let mut found = 0;
        for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            let centre = self.agent.position + shift;
            let ranges = image_ranges(self.index, self.space, centre, shift, stencil, seam_stencil);
            for range in ranges {
                for block in range.clone().step_by(SCAN_BLOCK) {
                    let block = block..(block + SCAN_BLOCK).min(range.end);
                    let needed = found + block.len();
                    if candidates.len() < needed {
                        candidates.resize(needed, Candidate::default());
                    }
                    for slot in block {
                        let offset = self.index.lanes.position(slot) - centre;
                        let dist_sq = offset.length_squared();
                        candidates[found] = Candidate {
                            dist_sq,
                            slot: slot as u32,
                            offset,
                        };
                        let in_range = dist_sq <= radius_sq;
                        found += usize::from(in_range & (slot != own));
                    }
                    if found >= budget {
                        return found;
                    }
                }
            }
        }
        found
    }

    /// The first `found` candidates less those outside the field of view; returns how many are
    /// left.
    fn keep_in_view(&mut self, found: usize) -> usize {
        let (view, heading) = (self.agent.params.view, self.agent.heading);
        let Some(view) = view.filter(|_| heading != Vec3::ZERO) else {
            return found;
        };
        let candidates = &mut self.buffers.candidates;
        let mut visible = 0;
        for k in 0..found {
            let c = candidates[k];
            if view.sees(c.offset.dot(heading), c.dist_sq) {
                candidates[visible] = c;
                visible += 1;
            }
        }
        visible
    }
}

/// The slot ranges to scan around `centre`, an agent's image shifted by `shift`: the agent's
/// own `stencil` when unshifted, else the stencil of the image's cell, written to
/// `seam_stencil`.
#[inline]
pub(crate) fn image_ranges<'b>(
    index: &NeighbourIndex,
    space: Space,
    centre: Vec3,
    shift: Vec3,
    stencil: &'b [Range<usize>],
    seam_stencil: &'b mut Vec<Range<usize>>,
) -> &'b [Range<usize>] {
    if shift == Vec3::ZERO {
        stencil
    } else {
        index
            .grid
            .stencil(index.grid.cell_of(centre), space, seam_stencil);
        seam_stencil.as_slice()
    }
}

/// Adds one neighbour `c` of `agent` to its scan.
#[inline]
fn take_neighbour(
    index: &NeighbourIndex,
    space: Space,
    agent: &SlotAgent,
    c: &Candidate,
    prediction: Option<Prediction>,
    scan: &mut Scan,
) {
    let other = &index.gathered[c.slot as usize];
    scan.count += 1;
    scan.nearest_sq = scan.nearest_sq.min(c.dist_sq);
    if let Some(collision) =
        prediction.and_then(|p| p.collision(c.offset, c.dist_sq, other.body.velocity))
        && scan.collision.is_none_or(|t| collision.time < t.time)
    {
        scan.collision = Some(collision);
    }
    if c.dist_sq < agent.params.separation_radius_sq {
        let away = if c.dist_sq > COINCIDENT_SQ {
            -c.offset
        } else {
            coincident_direction(agent.index, other.index as usize, space)
                * crate::rules::SEPARATION_FLOOR_SQ.sqrt()
        };
        scan.separation += away / separation_divisor(c.dist_sq, agent.params.unit_separation);
    }
    if other.flock == index.gathered[agent.slot].flock {
        scan.mates += 1;
        scan.velocity_sum += other.body.velocity;
        scan.offset_sum += c.offset;
    }
}

#[cfg(test)]
impl Crowd {
    /// For every agent, the SIMD scan (where it answers) and the exact scan, after
    /// [`build_index`](Self::build_index).
    pub(crate) fn both_scans(&self) -> Vec<(Option<Scan>, Scan)> {
        let mut buffers = ScanBuffers::default();
        (0..self.len())
            .map(|i| {
                let agent = self.slot_agent(self.index.grid.slots()[i] as usize);
                let mut around = Neighbourhood::new(&self.index, self.space, &agent, &mut buffers);
                let lanes = around.scan_lanes();
                let exact = around.scan_exact();
                (lanes, exact)
            })
            .collect()
    }
}
