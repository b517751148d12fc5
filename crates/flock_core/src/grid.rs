//! A uniform grid over unbounded space, rebuilt every tick by counting sort.

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
    mask: u32,
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
        self.mask = (buckets - 1) as u32;

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

    fn bucket(&self, cell: IVec3) -> u32 {
        let h = (cell.x as u32).wrapping_mul(0x9E37_79B1)
            ^ (cell.y as u32).wrapping_mul(0x85EB_CA77)
            ^ (cell.z as u32).wrapping_mul(0xC2B2_AE3D);
        (h ^ (h >> 15)) & self.mask
    }

    /// Calls `visit` with the sorted slots of every agent in the cell of `p` and its adjacent
    /// cells (27 in 3D, 9 on the plane), each slot once. Callers filter by distance.
    pub fn for_each_candidate(&self, p: Vec3, space: Space, mut visit: impl FnMut(usize)) {
        if self.order.is_empty() {
            return;
        }
        let centre = self.cell_of(p);
        let z_range = match space {
            Space::Volume => -1..=1,
            Space::Planar => 0..=0,
        };
        let mut seen = [0u32; 27];
        let mut seen_len = 0;
        for dz in z_range {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let cell = centre.saturating_add(IVec3::new(dx, dy, dz));
                    let b = self.bucket(cell);
                    if seen[..seen_len].contains(&b) {
                        continue;
                    }
                    seen[seen_len] = b;
                    seen_len += 1;
                    let start = self.bucket_start[b as usize] as usize;
                    let end = self.bucket_start[b as usize + 1] as usize;
                    (start..end).for_each(&mut visit);
                }
            }
        }
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
            grid.for_each_candidate(p, Space::Volume, |slot| {
                let j = grid.order()[slot] as usize;
                if positions[j].distance(p) <= radius {
                    found.push(j);
                }
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
