//! A uniform grid over unbounded space, rebuilt every tick by counting sort.

use core::ops::{ControlFlow, Range};

use glam::{IVec3, Vec3};

use crate::Space;

/// Uniform grid of cubic cells, hashed into a power-of-two bucket table so that the world needs
/// no bounds and memory stays proportional to the agent count.
///
/// Agents are stored in bucket order, so the agents of one cell are a contiguous range. Two
/// distant cells can share a bucket; that only adds candidates, which callers filter by distance.
#[derive(Clone, Debug, Default)]
pub struct UniformGrid {
    inv_cell_size: f32,
    /// 64 minus the number of bucket bits.
    shift: u32,
    /// `bucket_start[b]..bucket_start[b + 1]` is bucket `b`'s range in `order`.
    bucket_start: Vec<u32>,
    /// Agent indices sorted by bucket (stable: equal buckets keep index order).
    order: Vec<u32>,
    agent_bucket: Vec<u32>,
}

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
        let buckets = (positions.len() * 2).max(64).next_power_of_two();
        self.shift = 64 - buckets.trailing_zeros();

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

    /// Fibonacci hashing of the packed cell coordinates: the top bits of a 64-bit product,
    /// which spread neighbouring cells evenly over the table.
    fn bucket(&self, cell: IVec3) -> u32 {
        let key = u64::from(cell.x as u32 & 0x1F_FFFF)
            | u64::from(cell.y as u32 & 0x1F_FFFF) << 21
            | u64::from(cell.z as u32 & 0x1F_FFFF) << 42;
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as u32
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
            if !range.is_empty() {
                ranges.push(range);
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
        let positions = scatter(2_000, 40.0);
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
