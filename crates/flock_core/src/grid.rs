//! A uniform grid over unbounded space, rebuilt every tick by counting sort.

use core::ops::{ControlFlow, Range};

use glam::{IVec3, Vec3};

use crate::Space;

/// Uniform grid of cubic cells, rebuilt by counting sort, with agents stored cell by cell so
/// that each cell's agents are a contiguous range of slots.
///
/// Where the agents' bounding box holds at most a few cells per agent, cells are numbered
/// row by row over the box (dense layout): neighbouring cells along x are adjacent in memory,
/// so a stencil reads 9 runs of slots rather than 27 scattered ones. Otherwise (an outlier
/// far away, or non-finite positions) cells are hashed into a power-of-two table of about two
/// buckets per agent, so the world needs no bounds and memory stays proportional to the agent
/// count; two distant cells can then share a bucket, which only adds candidates that callers
/// filter by distance.
#[derive(Clone, Debug, Default)]
pub struct UniformGrid {
    inv_cell_size: f32,
    layout: Layout,
    /// `bucket_start[b]..bucket_start[b + 1]` is bucket `b`'s range in `order`.
    bucket_start: Vec<u32>,
    /// Agent indices sorted by bucket (stable: equal buckets keep index order).
    order: Vec<u32>,
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
const DENSE_CELLS_PER_AGENT: i64 = 4;

impl UniformGrid {
    /// Rebuilds the grid over `positions` with cells of `cell_size` (at least the largest query
    /// radius). Non-positive or non-finite cell sizes fall back to 1.
    pub fn rebuild(&mut self, positions: &[Vec3], cell_size: f32) {
        let cell_size = if cell_size.is_finite() && cell_size > 0.0 {
            cell_size
        } else {
            1.0
        };
        self.inv_cell_size = 1.0 / cell_size;
        self.layout = self.choose_layout(positions);
        let buckets = match self.layout {
            Layout::Dense { empty, .. } => empty as usize + 1,
            Layout::Hashed { shift } => 1 << (64 - shift),
        };

        let mut agent_bucket = core::mem::take(&mut self.agent_bucket);
        agent_bucket.clear();
        agent_bucket.extend(positions.iter().map(|&p| self.bucket(self.cell_of(p))));
        self.agent_bucket = agent_bucket;

        self.bucket_start.clear();
        self.bucket_start.resize(buckets + 1, 0);
        for &b in &self.agent_bucket {
            self.bucket_start[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            self.bucket_start[b + 1] += self.bucket_start[b];
        }

        self.order.clear();
        self.order.resize(positions.len(), 0);
        let mut next = self.bucket_start[..buckets].to_vec();
        for (agent, &b) in self.agent_bucket.iter().enumerate() {
            let slot = &mut next[b as usize];
            self.order[*slot as usize] = agent as u32;
            *slot += 1;
        }
    }

    fn choose_layout(&self, positions: &[Vec3]) -> Layout {
        let hashed = Layout::Hashed {
            shift: 64
                - (positions.len() * 2)
                    .max(64)
                    .next_power_of_two()
                    .trailing_zeros(),
        };
        let (lo, hi) = positions
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            });
        if !(lo.is_finite() && hi.is_finite()) {
            return hashed;
        }
        let (origin, last) = (self.cell_of(lo), self.cell_of(hi));
        let dims = (last.as_i64vec3() - origin.as_i64vec3()) + 1;
        let cells = dims.x.saturating_mul(dims.y).saturating_mul(dims.z);
        let budget = (positions.len() as i64).max(16) * DENSE_CELLS_PER_AGENT;
        if cells > budget {
            return hashed;
        }
        Layout::Dense {
            origin,
            dims: dims.as_ivec3(),
            empty: cells as u32,
        }
    }

    /// Agent indices in bucket order: slot `k` of the sorted buffers holds agent `order()[k]`.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// The cell that contains `p`. Coordinates beyond `i32` saturate, so far-away agents share
    /// edge cells instead of overflowing.
    pub fn cell_of(&self, p: Vec3) -> IVec3 {
        let c = (p * self.inv_cell_size).floor();
        IVec3::new(c.x as i32, c.y as i32, c.z as i32)
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

    /// Calls `visit` with the sorted slots of every agent in the cell of `p` and its adjacent
    /// cells (27 in 3D, 9 on the plane), each slot once, until `visit` breaks. Callers filter
    /// by distance.
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

    /// Fills `ranges` with the sorted-slot ranges of the agents in `cell` and its adjacent
    /// cells (27 in 3D, 9 on the plane), each bucket once and empty ones left out, in bucket
    /// order. All agents of a cell share this stencil.
    pub fn stencil(&self, cell: IVec3, space: Space, ranges: &mut Vec<Range<usize>>) {
        ranges.clear();
        if self.order.is_empty() {
            return;
        }
        let z_range = match space {
            Space::Volume => -1..=1,
            Space::Planar => 0..=0,
        };
        let mut buckets = [0u32; 27];
        let mut len = 0;
        for dz in z_range {
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
            if previous == Some(b) {
                continue;
            }
            previous = Some(b);
            let range = self.bucket_slots(b);
            if range.is_empty() {
                continue;
            }
            // Adjacent buckets (a row of cells in the dense layout) form one run.
            match ranges.last_mut() {
                Some(last) if last.end == range.start => last.end = range.end,
                _ => ranges.push(range),
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
        let span = (hi - lo).as_i64vec3() + 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator so the kernel's tests need no dependency.
    fn scatter(n: usize, extent: f32) -> Vec<Vec3> {
        let mut state = 0x2545_F491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32
        };
        (0..n)
            .map(|_| Vec3::new(next(), next(), next()) * extent - extent * 0.5)
            .collect()
    }

    #[test]
    fn candidates_cover_every_agent_within_one_cell() {
        // Compact: the dense layout.
        check_candidates(scatter(2_000, 40.0));
        // One agent far away makes the box too large for dense cells: the hashed layout.
        let mut far = scatter(2_000, 40.0);
        far.push(Vec3::splat(1e6));
        check_candidates(far);
    }

    fn check_candidates(positions: Vec<Vec3>) {
        let radius = 3.0;
        let mut grid = UniformGrid::default();
        grid.rebuild(&positions, radius);
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

    #[test]
    fn order_is_a_permutation_even_for_extreme_positions() {
        let positions = vec![
            Vec3::splat(1e30),
            Vec3::splat(-1e30),
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::new(3.0, -2.0, 9.0),
        ];
        let mut grid = UniformGrid::default();
        grid.rebuild(&positions, 0.0);
        let mut order = grid.order().to_vec();
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }
}
