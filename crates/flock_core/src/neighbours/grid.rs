//! A uniform grid over unbounded space, rebuilt every tick by counting sort.

use core::ops::{ControlFlow, Range};

use glam::{IVec3, Vec3};

use crate::executor::{ChunkExecutor, for_each_chunk_mut, for_each_part};
use crate::maths::floor_cell;
use crate::space::{FLOOR_SPACING, Space};

/// The box `(lo, hi)` widened to take in `p`.
#[inline]
fn widen((lo, hi): (Vec3, Vec3), p: Vec3) -> (Vec3, Vec3) {
    (lo.min(p), hi.max(p))
}

/// Uniform grid of box-shaped cells, rebuilt by counting sort, with agents stored cell by cell
/// so that each cell's agents are a contiguous range of slots.
///
/// Where the agents' bounding box needs at most 32 cells per agent, cells are half the radius
/// long along x and one radius along y and z, numbered row by row over the box (dense layout):
/// a scan reads 9 runs of 5 adjacent cells (3 on the plane), a sixth fewer candidates than 27
/// cubic cells of a radius. Cubes of half a radius would cut candidates by two fifths but need
/// 25 shorter runs, which measured slower: each run costs a lookup and a partly filled SIMD
/// step. Neighbouring cells are adjacent in memory. Otherwise (an outlier far away, or non-finite
/// positions) radius-sized cells are hashed into a power-of-two table of about two buckets
/// per agent, so the world needs no bounds and memory stays proportional to the agent count;
/// two distant cells can then share a bucket, which only adds candidates that callers filter
/// by distance.
#[derive(Clone, Debug, Default)]
pub struct UniformGrid {
    inv_cell_size: Vec3,
    /// How many cells a scan reaches out from the agent's cell on each axis.
    reach: IVec3,
    /// The radius the grid was last built for.
    radius: f32,
    /// Box around the positions of the last rebuild.
    bounds: (Vec3, Vec3),
    layout: Layout,
    /// `bucket_start[b]..bucket_start[b + 1]` is bucket `b`'s range in `order`.
    bucket_start: Vec<u32>,
    /// Agent indices sorted by bucket (stable: equal buckets keep index order).
    order: Vec<u32>,
    /// The slot of each agent: the inverse of `order`.
    slots: Vec<u32>,
    agent_bucket: Vec<u32>,
}

/// How cells map to buckets.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// Cell `c` is bucket `(c - origin)` numbered row by row; cells outside `dims` map to
    /// the always-empty bucket `empty`.
    Dense {
        origin: IVec3,
        dims: IVec3,
        empty: u32,
    },
    /// Cells hash into `2^(64 - shift)` buckets.
    Hashed { shift: u32 },
}

impl Default for Layout {
    fn default() -> Self {
        Layout::Hashed { shift: 58 }
    }
}

/// The dense layout is used while it needs at most this many cells per agent.
const DENSE_CELLS_PER_AGENT: i64 = 32;
/// Cells per query radius along x in the dense layout.
const DENSE_SUBDIVISION: i32 = 2;

impl UniformGrid {
    /// Rebuilds the grid over `positions` (agent `i` at the `i`-th) for neighbour scans of up
    /// to `radius` (the largest query radius). Non-positive or non-finite radii fall back to 1.
    pub fn rebuild(&mut self, positions: impl ExactSizeIterator<Item = Vec3> + Clone, radius: f32) {
        let bounds = positions
            .clone()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), widen);
        let buckets = self.lay_out(positions.len(), bounds, radius, Space::Volume);
        let mut agent_bucket = core::mem::take(&mut self.agent_bucket);
        agent_bucket.clear();
        agent_bucket.extend(positions.map(|p| self.bucket(self.cell_of(p))));
        self.agent_bucket = agent_bucket;
        self.sort_into_buckets(buckets);
    }

    /// [`rebuild`](Self::rebuild) over `len` agents, agent `i` at `position(i)`, with the
    /// bounds and each agent's bucket found in parallel on `executor`: the same grid in 3D. On
    /// the plane, a layer of cells is a floor (see [`Space::Planar`]), so that a crowd on
    /// several floors keeps the dense layout and its floors' cells never share a bucket.
    pub(crate) fn rebuild_on(
        &mut self,
        executor: &dyn ChunkExecutor,
        len: usize,
        position: impl Fn(usize) -> Vec3 + Sync,
        (radius, space): (f32, Space),
    ) {
        let chunk_len = executor.chunk_len(len).max(1);
        let mut part_bounds = vec![(Vec3::INFINITY, Vec3::NEG_INFINITY); len.div_ceil(chunk_len)];
        let parts: Vec<&mut (Vec3, Vec3)> = part_bounds.iter_mut().collect();
        for_each_part(executor, parts, |k, bounds| {
            let agents = k * chunk_len..((k + 1) * chunk_len).min(len);
            *bounds = agents.map(&position).fold(*bounds, widen);
        });
        let bounds = part_bounds
            .into_iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |a, b| {
                (a.0.min(b.0), a.1.max(b.1))
            });
        let buckets = self.lay_out(len, bounds, radius, space);
        let mut agent_bucket = core::mem::take(&mut self.agent_bucket);
        agent_bucket.resize(len, 0);
        let grid = &*self;
        for_each_chunk_mut(executor, &mut agent_bucket, |first, chunk| {
            for (i, bucket) in (first..).zip(chunk.iter_mut()) {
                *bucket = grid.bucket(grid.cell_of(position(i)));
            }
        });
        self.agent_bucket = agent_bucket;
        self.sort_into_buckets(buckets);
    }

    /// Sets the radius (non-positive or non-finite ones fall back to 1), the bounds and the
    /// layout for `agents` agents within `bounds`; returns the number of buckets.
    fn lay_out(&mut self, agents: usize, bounds: (Vec3, Vec3), radius: f32, space: Space) -> usize {
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            1.0
        };
        self.radius = radius;
        self.bounds = bounds;
        self.layout = self.choose_layout(agents, radius, space);
        match self.layout {
            Layout::Dense { empty, .. } => empty as usize + 1,
            Layout::Hashed { shift } => 1 << (64 - shift),
        }
    }

    /// Sorts the agents by their bucket (counting sort, stable), from `agent_bucket`.
    fn sort_into_buckets(&mut self, buckets: usize) {
        let agents = self.agent_bucket.len();
        self.bucket_start.clear();
        self.bucket_start.resize(buckets + 1, 0);
        for &b in &self.agent_bucket {
            self.bucket_start[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            self.bucket_start[b + 1] += self.bucket_start[b];
        }

        self.order.clear();
        self.order.resize(agents, 0);
        self.slots.clear();
        let mut next = self.bucket_start[..buckets].to_vec();
        for (agent, &b) in self.agent_bucket.iter().enumerate() {
            let slot = &mut next[b as usize];
            self.order[*slot as usize] = agent as u32;
            self.slots.push(*slot);
            *slot += 1;
        }
    }

    /// Picks the layout and sets the cell size: half the radius along x and the radius along
    /// y and z in the dense layout, the radius on every axis when hashed; on the plane, a
    /// floor along z.
    fn choose_layout(&mut self, agents: usize, radius: f32, space: Space) -> Layout {
        let (lo, hi) = self.bounds;
        // Floor `k` lies at `k * FLOOR_SPACING`, a power of two: its cells' z is `k` exactly.
        let per_z = match space {
            Space::Planar => 1.0 / FLOOR_SPACING,
            Space::Volume => 1.0 / radius,
        };
        if lo.is_finite() && hi.is_finite() {
            self.inv_cell_size =
                (Vec3::new(DENSE_SUBDIVISION as f32, 1.0, 1.0) / radius).with_z(per_z);
            self.reach = IVec3::new(DENSE_SUBDIVISION, 1, 1);
            let (origin, last) = (self.cell_of(lo), self.cell_of(hi));
            let dims = (last.as_i64vec3() - origin.as_i64vec3()) + 1;
            let cells = dims.x.saturating_mul(dims.y).saturating_mul(dims.z);
            let budget = (agents as i64).max(16) * DENSE_CELLS_PER_AGENT;
            if cells <= budget {
                return Layout::Dense {
                    origin,
                    dims: dims.as_ivec3(),
                    empty: cells as u32,
                };
            }
        }
        self.inv_cell_size = Vec3::splat(1.0 / radius).with_z(per_z);
        self.reach = IVec3::ONE;
        Layout::Hashed {
            shift: 64 - (agents * 2).max(64).next_power_of_two().trailing_zeros(),
        }
    }

    /// The radius the grid was last built for: scans find every agent within it.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The box around the positions of the last rebuild (inverted, infinite, when there were
    /// none).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.bounds
    }

    /// Agent indices in bucket order: slot `k` of the sorted buffers holds agent `order()[k]`.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Each agent's sorted slot: `slots()[i]` is where agent `i` sits in [`order`](Self::order).
    pub fn slots(&self) -> &[u32] {
        &self.slots
    }

    /// The cell that contains `p`. Coordinates beyond `i32` saturate, so far-away agents share
    /// edge cells instead of overflowing.
    pub fn cell_of(&self, p: Vec3) -> IVec3 {
        floor_cell(p * self.inv_cell_size)
    }

    fn bucket(&self, cell: IVec3) -> u32 {
        match self.layout {
            Layout::Dense {
                origin,
                dims,
                empty,
            } => {
                let c = cell.saturating_sub(origin);
                if c.cmplt(IVec3::ZERO).any() || c.cmpge(dims).any() {
                    empty
                } else {
                    (c.x + dims.x * (c.y + dims.y * c.z)) as u32
                }
            }
            Layout::Hashed { shift } => {
                // Pack the coordinates, mix all bits (the 64-bit finaliser of MurmurHash3),
                // and take the top bits.
                let mut key = u64::from(cell.x as u32 & 0x1F_FFFF)
                    | u64::from(cell.y as u32 & 0x1F_FFFF) << 21
                    | u64::from(cell.z as u32 & 0x1F_FFFF) << 42;
                key ^= key >> 33;
                key = key.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
                key ^= key >> 33;
                key = key.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
                key ^= key >> 33;
                (key >> shift) as u32
            }
        }
    }

    /// Calls `visit` with the sorted slots of every agent in the cells a scan around `p`
    /// reaches (every agent within the grid's radius is among them), each slot once, until
    /// `visit` breaks. Callers filter by distance.
    pub fn for_each_candidate(
        &self,
        p: Vec3,
        space: Space,
        mut visit: impl FnMut(usize) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut ranges = Vec::new();
        self.stencil(self.cell_of(p), space, &mut ranges);
        ranges.into_iter().flatten().try_for_each(&mut visit)
    }

    /// Fills `ranges` with the sorted-slot ranges of the agents in the cells within reach of
    /// `cell` (on the plane, only its z layer), each slot once and in increasing order. All
    /// agents of a cell share this stencil.
    pub fn stencil(&self, cell: IVec3, space: Space, ranges: &mut Vec<Range<usize>>) {
        ranges.clear();
        if self.order.is_empty() {
            return;
        }
        let mut reach = self.reach;
        if space == Space::Planar {
            reach.z = 0;
        }
        match self.layout {
            Layout::Dense { origin, dims, .. } => {
                // One run of slots per row of cells along x.
                let c = cell.as_i64vec3() - origin.as_i64vec3();
                let dims = dims.as_i64vec3();
                let reach = reach.as_i64vec3();
                let (x0, x1) = ((c.x - reach.x).max(0), (c.x + reach.x).min(dims.x - 1));
                if x0 > x1 {
                    return;
                }
                for z in (c.z - reach.z).max(0)..=(c.z + reach.z).min(dims.z - 1) {
                    for y in (c.y - reach.y).max(0)..=(c.y + reach.y).min(dims.y - 1) {
                        let row = dims.x * (y + dims.y * z);
                        let start = self.bucket_start[(row + x0) as usize] as usize;
                        let end = self.bucket_start[(row + x1 + 1) as usize] as usize;
                        push_run(ranges, start..end);
                    }
                }
            }
            Layout::Hashed { .. } => {
                let mut buckets = [0u32; 27];
                let mut len = 0;
                for dz in -reach.z..=reach.z {
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            buckets[len] = self.bucket(cell.saturating_add(IVec3::new(dx, dy, dz)));
                            len += 1;
                        }
                    }
                }
                let buckets = &mut buckets[..len];
                buckets.sort_unstable();
                let mut previous = None;
                for &b in buckets.iter() {
                    if previous != Some(b) {
                        previous = Some(b);
                        push_run(ranges, self.bucket_slots(b));
                    }
                }
            }
        }
    }

    /// Calls `visit` once with the sorted slot of every agent that may lie within `radius` of
    /// `p`: the agents of every cell the sphere (disc on the plane) touches, or every agent
    /// when that would visit more cells than the table has buckets. Callers filter by distance.
    pub fn for_each_in_reach(
        &self,
        p: Vec3,
        radius: f32,
        space: Space,
        mut visit: impl FnMut(usize),
    ) {
        if self.order.is_empty() || radius.is_nan() || radius < 0.0 {
            return;
        }
        let (mut lo, mut hi) = (self.cell_of(p - radius), self.cell_of(p + radius));
        if space == Space::Planar {
            let z = self.cell_of(p).z;
            (lo.z, hi.z) = (z, z);
        }
        let span = hi.as_i64vec3() - lo.as_i64vec3() + 1;
        let cells = span.x.saturating_mul(span.y).saturating_mul(span.z);
        if !radius.is_finite() || cells > self.bucket_count() as i64 {
            (0..self.order.len()).for_each(visit);
            return;
        }
        let mut buckets = Vec::with_capacity(cells as usize);
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    buckets.push(self.bucket(IVec3::new(x, y, z)));
                }
            }
        }
        buckets.sort_unstable();
        buckets.dedup();
        for b in buckets {
            self.bucket_slots(b).for_each(&mut visit);
        }
    }

    fn bucket_count(&self) -> usize {
        self.bucket_start.len().saturating_sub(1)
    }

    fn bucket_slots(&self, b: u32) -> Range<usize> {
        let start = self.bucket_start[b as usize] as usize;
        let end = self.bucket_start[b as usize + 1] as usize;
        start..end
    }
}

/// Appends a non-empty run of slots, joined to the last run when they touch.
fn push_run(ranges: &mut Vec<Range<usize>>, run: Range<usize>) {
    if run.is_empty() {
        return;
    }
    match ranges.last_mut() {
        Some(last) if last.end == run.start => last.end = run.end,
        _ => ranges.push(run),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tests::random_positions;

    #[test]
    fn candidates_cover_every_agent_within_one_cell() {
        // Compact: the dense layout.
        check_candidates(random_positions(2_000, 20.0, 1));
        // One agent far away makes the box too large for dense cells: the hashed layout.
        let mut far = random_positions(2_000, 20.0, 1);
        far.push(Vec3::splat(1e6));
        check_candidates(far);
    }

    fn check_candidates(positions: Vec<Vec3>) {
        let radius = 3.0;
        let mut grid = UniformGrid::default();
        grid.rebuild(positions.iter().copied(), radius);
        for (i, &p) in positions.iter().enumerate().step_by(7) {
            let mut found = Vec::new();
            let _ = grid.for_each_candidate(p, Space::Volume, |slot| {
                let j = grid.order()[slot] as usize;
                if positions[j].distance(p) <= radius {
                    found.push(j);
                }
                ControlFlow::Continue(())
            });
            found.sort_unstable();
            let before = found.len();
            found.dedup();
            assert_eq!(before, found.len(), "agent {i}: a slot was visited twice");
            let brute: Vec<_> = (0..positions.len())
                .filter(|&j| positions[j].distance(p) <= radius)
                .collect();
            assert_eq!(found, brute, "agent {i}");
        }
    }

    /// Bounds and buckets found in parallel give the very grid `rebuild` gives: dense and
    /// hashed, with extreme positions, with none.
    #[test]
    fn rebuilt_in_parallel_is_the_same_grid() {
        let mut far = random_positions(3_000, 20.0, 5);
        far.extend([Vec3::splat(1e6), Vec3::new(-1e30, 2.0, 1e30)]);
        for positions in [random_positions(3_000, 20.0, 4), far, Vec::new()] {
            let mut one = UniformGrid::default();
            one.rebuild(positions.iter().copied(), 3.0);
            for threads in [1, 3, 8] {
                let mut split = UniformGrid::default();
                let executor = crate::ScopedThreads(threads);
                let radius = (3.0, Space::Volume);
                split.rebuild_on(&executor, positions.len(), |i| positions[i], radius);
                let why = format!("{} agents on {threads} threads", positions.len());
                assert_eq!(split.bounds, one.bounds, "{why}");
                assert_eq!(split.bucket_start, one.bucket_start, "{why}");
                assert_eq!(split.order, one.order, "{why}");
                assert_eq!(split.slots, one.slots, "{why}");
            }
        }
    }

    #[test]
    fn cells_floor_like_f32_floor() {
        let mut grid = UniformGrid::default();
        grid.rebuild(core::iter::empty::<Vec3>(), 1.0);
        for x in [
            -2.5, -2.0, -1.0, -0.5, -1e-7, 0.0, 1e-7, 0.5, 1.0, 2.5, 1e6, -1e6,
        ] {
            let cell = grid.cell_of(Vec3::new(x, -x, 0.0));
            assert_eq!(cell.x, x.floor() as i32, "{x}");
            assert_eq!(cell.y, (-x).floor() as i32, "{}", -x);
        }
        let far = grid.cell_of(Vec3::new(1e30, -1e30, f32::NAN));
        assert_eq!(far, IVec3::new(i32::MAX, i32::MIN, 0));
    }

    #[test]
    fn order_is_a_permutation_even_for_extreme_positions() {
        let positions = [
            Vec3::splat(1e30),
            Vec3::splat(-1e30),
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::new(3.0, -2.0, 9.0),
        ];
        let mut grid = UniformGrid::default();
        grid.rebuild(positions.iter().copied(), 0.0);
        let mut order = grid.order().to_vec();
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }
}
