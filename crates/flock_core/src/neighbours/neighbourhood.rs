//! [`Neighbourhood`]: one agent's neighbour scan, on SIMD lanes where they answer and exact
//! where they decline, with the nearest taken in where more than the cap are in range.

use core::ops::Range;

use glam::Vec3;

use super::cut::{CutScratch, NearestCut, TakenIn};
use super::index::NeighbourIndex;
use super::lanes::{CollisionLanes, Collisions, LaneScan, Probe, SCAN_BLOCK};
use super::nearest::{KeepNearest, NearestBuffer, NearestKeys};
use super::scan::Scan;
use super::seams::{Images, image_ranges, seam_images};
use crate::agents::SlotAgent;
use crate::maths::COINCIDENT_SQ;
use crate::rules::flocking::{SEPARATION_FLOOR_SQ, coincident_direction, separation_divisor};
use crate::rules::prediction::Prediction;
use crate::simd::{Pair, SimdPath, Wide};
use crate::space::Space;

/// With a neighbour cap of `k`, an agent stops scanning after `k` times this many candidates in
/// range (and in view), then keeps the nearest `k`: the work per agent stays bounded even if
/// every agent shares one cell (see [`scan_budget`]).
const CANDIDATES_PER_NEIGHBOUR: usize = 4;
/// When more neighbours than the cap are in range, the lane scan takes in those within the
/// largest of these fractions of the radius that holds at most the cap (0.85 of the radius
/// holds 61% of its volume, 0.6 holds 22%); where none does, it takes in the nearest (see
/// [`Neighbourhood::nearest_lane_sums`]).
const SHRUNK_RADII: [f32; 4] = [1.0, 0.85, 0.7, 0.6];
/// Up to this many candidates per allowed neighbour, the lane scan first tries the whole
/// radius; above it, it counts within [`SHRUNK_RADII`] first, since the cap would most likely
/// be exceeded.
const CANDIDATES_TO_TRY_PER_NEIGHBOUR: f32 = 4.0;
/// Above this many candidates per allowed neighbour, the crowd is too dense to count cheaply:
/// the lane scan takes in the nearest within the scan budget instead (see
/// [`Neighbourhood::nearest_lane_sums`]).
const CANDIDATES_TO_COUNT_PER_NEIGHBOUR: f32 = 16.0;
/// Buffers a chunk of the force pass reuses from agent to agent: the stencil of the cell being
/// scanned, the exact scan's candidates, and what the cap's cut is found among.
#[derive(Default)]
pub(crate) struct ScanBuffers {
    /// The cell whose stencil `stencil` holds.
    stencil_cell: Option<glam::IVec3>,
    stencil: Vec<Range<usize>>,
    seam_stencil: Vec<Range<usize>>,
    candidates: Vec<Candidate>,
    /// The neighbours taken in when the cap binds, and the cut among them.
    taken: TakenIn,
    selection: CutScratch,
}

/// How many candidates in range an agent with neighbour cap `cap` scans before it stops:
/// scans go on to the end of the block of [`SCAN_BLOCK`] candidates in which they reach it.
pub(crate) fn scan_budget(cap: usize) -> usize {
    cap.saturating_mul(CANDIDATES_PER_NEIGHBOUR).max(64)
}

/// A neighbour found in the exact scan, before the cap picks the nearest.
#[derive(Clone, Copy, Default)]
struct Candidate {
    dist_sq: f32,
    slot: u32,
    offset: Vec3,
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

    /// [`scan`](Self::scan), writing to `kept` the nearest neighbours within the radius as the
    /// velocity-obstacle step takes them, where the lanes take in every one of them: for an
    /// agent with a full field of view whose neighbours stay within its cap; over the cap, the
    /// nearest of the candidates the cap's budget takes in. Only those within
    /// `ceiling_sq` (a squared distance) are offered, which saves most of the work where the
    /// ceiling is near the farthest kept. Where they are not known, `kept` is left as it is
    /// (the force pass sets it to `None` first): also where fewer than
    /// [`MOST_AGENTS_AVOIDED`](crate::velocity_obstacles::MOST_AGENTS_AVOIDED) are within a
    /// ceiling lower than the radius.
    #[inline]
    pub(crate) fn scan_keeping_nearest(
        &mut self,
        ceiling_sq: f32,
        kept: &mut Option<NearestKeys>,
    ) -> Scan {
        if self.agent.params.view.is_some() {
            return self.scan();
        }
        let scan = self.scan_lanes_keeping(&mut NearestBuffer::within(ceiling_sq, kept));
        scan.unwrap_or_else(|| self.scan_exact())
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

    /// The scan on SIMD lanes, or `None` where it cannot answer: a coincident neighbour, or
    /// more flocks than keys tell apart.
    #[inline]
    pub(crate) fn scan_lanes(&mut self) -> Option<Scan> {
        self.scan_lanes_keeping(&mut ())
    }

    /// [`scan_lanes`](Self::scan_lanes), offering the neighbours to `nearest`, and completing
    /// it where the scan took in every candidate within the whole radius.
    #[inline]
    fn scan_lanes_keeping<K: KeepNearest>(&mut self, nearest: &mut K) -> Option<Scan> {
        if !self.index.lanes.keys_exact() {
            return None;
        }
        match self.index.lanes.simd() {
            SimdPath::Portable => self.scan_lanes_on::<Pair, K>(nearest),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => self.scan_lanes_on::<crate::simd::Avx, K>(nearest),
        }
    }

    /// [`scan_lanes_keeping`](Self::scan_lanes_keeping) on lanes of form `V`.
    #[inline(always)]
    fn scan_lanes_on<V: Wide, K: KeepNearest>(&mut self, nearest: &mut K) -> Option<Scan> {
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
    ) -> Option<Scan> {
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
            nearest.complete(radius_sq);
            return Some(scan);
        };
        let (most, cap) = (cap as usize, cap as f32);
        let mut candidates = 0;
        for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            candidates += self.ranges(shift).iter().map(|r| r.len()).sum::<usize>();
        }
        // Few candidates: most likely under the cap, so try the whole radius first.
        if candidates as f32 <= cap * CANDIDATES_TO_TRY_PER_NEIGHBOUR
            && let Some(sums) = self.lane_sums(probe, cap, collisions, nearest)
        {
            let scan = sums.finish()?;
            nearest.complete(radius_sq);
            return Some(scan);
        }
        if candidates as f32 <= cap * CANDIDATES_TO_COUNT_PER_NEIGHBOUR
            && let Some(shrunk_sq) = self.shrunk_radius_sq::<V>(probe, cap)
        {
            // Within a shrunk radius, the nearest kept would not be those of the whole one.
            return self
                .lane_sums(probe.with_radius_sq(shrunk_sq), cap, collisions, &mut ())?
                .finish();
        }
        // Too dense to count cheaply, or no step holds few enough.
        self.nearest_lane_sums(probe, most, candidates, collisions, nearest)
    }

    /// The largest step of [`SHRUNK_RADII`] (squared) within which `probe` takes in at most
    /// `cap` neighbours, if one does.
    #[inline(always)]
    fn shrunk_radius_sq<V: Wide>(&mut self, probe: Probe, cap: f32) -> Option<f32> {
        let radii_sq = SHRUNK_RADII.map(|f| f * f * probe.radius_sq());
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
        let mut steps = radii_sq.into_iter().zip(counts);
        steps
            .find(|&(_, count)| count as f32 <= cap)
            .map(|(radius_sq, _)| radius_sq)
    }

    /// An empty lane scan for the agent, taking in what `probe` does.
    #[inline(always)]
    fn lane_scan<V: Wide, T: Collisions<V>>(&self, probe: Probe, collisions: T) -> LaneScan<V, T> {
        let (agent, lanes) = (self.agent, &self.index.lanes);
        LaneScan::new(
            probe,
            agent.slot,
            agent.params.separation_radius_sq,
            agent.params.unit_separation,
            lanes.flock_key(agent.slot),
            collisions,
        )
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
        let mut scan = self.lane_scan(probe, collisions);
        for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            let ranges = self.ranges(shift);
            let centre = agent.position + shift;
            if !scan.add(lanes, ranges, centre, cap, nearest, &()) {
                return None;
            }
        }
        (scan.count() <= cap).then_some(scan)
    }

    /// Over the cap where no smaller radius holds few enough: the nearest `cap` neighbours
    /// within the scan budget, on lanes, the same ones [`scan_exact`](Self::scan_exact) takes.
    /// A first pass stores the squared distance and slot of each neighbour, up to the budget;
    /// the cap-th nearest of them sets a [`NearestCut`]; a second pass over the same slots adds
    /// those within it. `candidates` bounds how many the first pass finds. The nearest of the
    /// first pass's go to `nearest` (see [`KeepNearest::complete_among`]). `None` where a
    /// neighbour is coincident with the agent.
    #[inline(always)]
    fn nearest_lane_sums<V: Wide, T: Collisions<V>>(
        &mut self,
        probe: Probe,
        cap: usize,
        candidates: usize,
        collisions: T,
        nearest: &mut impl KeepNearest,
    ) -> Option<Scan> {
        let (index, space, agent) = (self.index, self.space, self.agent);
        let lanes = &index.lanes;
        let budget = scan_budget(cap);
        let mut scan = self.lane_scan(probe, collisions);
        let ScanBuffers {
            stencil,
            seam_stencil,
            taken,
            selection,
            ..
        } = &mut *self.buffers;
        taken.clear_for((budget - 1 + SCAN_BLOCK).min(candidates));
        // Where the first pass stopped: the image, the range and the slot.
        let mut reach = None;
        'images: for k in 0..self.images.len {
            let shift = self.images.shifts[k];
            let centre = agent.position + shift;
            let ranges = image_ranges(index, space, centre, shift, stencil, seam_stencil);
            for (r, range) in ranges.iter().enumerate() {
                if let Some(end) =
                    probe.take_in_blocks::<V>(lanes, range, centre, agent.slot, budget, taken)
                {
                    reach = Some((k, r, end));
                    break 'images;
                }
            }
        }
        nearest.complete_among::<V>(taken);
        let cut = match cap {
            _ if taken.len() <= cap => NearestCut::ALL,
            0 => return Some(Scan::new()),
            _ => NearestCut::of_rank::<V>(taken, cap - 1, selection),
        };
        let images = reach.map_or(self.images.len, |(k, _, _)| k + 1);
        for k in 0..images {
            let shift = self.images.shifts[k];
            let centre = agent.position + shift;
            let ranges = image_ranges(index, space, centre, shift, stencil, seam_stencil);
            match reach {
                Some((last, r, end)) if last == k => {
                    scan.add(lanes, &ranges[..r], centre, f32::INFINITY, &mut (), &cut);
                    let stopped = ranges[r].start..end;
                    let stopped = core::slice::from_ref(&stopped);
                    scan.add(lanes, stopped, centre, f32::INFINITY, &mut (), &cut);
                }
                _ => {
                    scan.add(lanes, ranges, centre, f32::INFINITY, &mut (), &cut);
                }
            }
        }
        scan.finish()
    }

    /// The exact scan: candidates in range and in view are collected (up to the scan budget),
    /// cut to the nearest `max_neighbours`, and coincident neighbours get their fixed
    /// direction.
    pub(crate) fn scan_exact(&mut self) -> Scan {
        let prepared = self.agent.params;
        let cap = prepared
            .params
            .perception
            .max_neighbours
            .map(|k| k as usize);
        let found = self.collect_in_range(cap);
        let mut scan = Scan::new();
        let (index, space, agent) = (self.index, self.space, self.agent);
        let prediction = agent.prediction();
        let ScanBuffers {
            candidates,
            taken,
            selection,
            ..
        } = &mut *self.buffers;
        let candidates = &candidates[..found];
        let cut = match cap {
            Some(0) if found > 0 => return scan,
            // Over the cap: the nearest, taken in the order they were found, as the lanes do.
            Some(cap) if cap < found => {
                taken.clear_for(found);
                for c in candidates {
                    taken.push(c.dist_sq, c.slot);
                }
                NearestCut::of_rank::<Pair>(taken, cap - 1, selection)
            }
            _ => NearestCut::ALL,
        };
        for candidate in candidates {
            if cut.admits(candidate.dist_sq, candidate.slot) {
                take_neighbour(index, space, agent, candidate, prediction, &mut scan);
            }
        }
        scan
    }

    /// The exact scan's first pass, without branches on the data: every candidate is written
    /// to the buffer and kept (by advancing the count) only if it is in range and in view, so
    /// the unpredictable tests cost no mispredicted jumps. In blocks, so that the scan stops
    /// soon after `cap` allows no more (see [`scan_budget`]) even when one cell holds
    /// everyone. Returns how many were kept.
    fn collect_in_range(&mut self, cap: Option<usize>) -> usize {
        let budget = cap.map_or(usize::MAX, scan_budget);
        let (radius_sq, own) = (self.agent.params.neighbour_radius_sq, self.agent.slot);
        let heading = self.agent.heading;
        let view = self.agent.params.view.filter(|_| heading != Vec3::ZERO);
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
                        let seen = view.is_none_or(|view| view.sees(offset.dot(heading), dist_sq));
                        let in_range = dist_sq <= radius_sq;
                        found += usize::from(in_range & seen & (slot != own));
                    }
                    if found >= budget {
                        return found;
                    }
                }
            }
        }
        found
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
                * SEPARATION_FLOOR_SQ.sqrt()
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
impl crate::Crowd {
    /// For every agent, the SIMD scan (where it answers) and the exact scan, after
    /// [`build_index`](Self::build_index).
    pub(crate) fn both_scans(&self) -> Vec<(Option<Scan>, Scan)> {
        let mut buffers = ScanBuffers::default();
        let factors = self.agents.extras.speed_factors();
        (0..self.len())
            .map(|i| {
                let agent = self.index.slot_agent(
                    &self.params,
                    factors,
                    self.index.grid.slots()[i] as usize,
                );
                let mut around = Neighbourhood::new(&self.index, self.space, &agent, &mut buffers);
                let lanes = around.scan_lanes();
                let exact = around.scan_exact();
                (lanes, exact)
            })
            .collect()
    }
}
