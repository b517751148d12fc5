//! Spatial queries for game code, answered from the neighbour grid: every agent within a
//! radius, and the k nearest.

use core::ops::ControlFlow;

use glam::Vec3;

use super::Crowd;
use crate::maths::length;
use crate::neighbours::seam_images;

impl Crowd {
    /// Calls `visit(i, distance)` for every agent `i` within `radius` of `point`, using the
    /// positions of the last [`build_index`](Self::build_index). Any radius works: the grid
    /// visits the cells the sphere touches (the disc, on the plane, of the floor nearest the
    /// point's z: see [`Space::Planar`](crate::Space::Planar)). A non-finite point or a
    /// negative radius finds nothing.
    pub fn for_each_within(&self, point: Vec3, radius: f32, mut visit: impl FnMut(usize, f32)) {
        if !point.is_finite() || radius.is_nan() || radius < 0.0 || !self.index.covers(self.len()) {
            return;
        }
        let point = self.space.point(point);
        let (grid, gathered) = (&self.index.grid, &self.index.gathered);
        let radius_sq = radius * radius;
        grid.for_each_in_reach(point, radius, self.space, |slot| {
            let offset = gathered[slot].body.position - point;
            let dist_sq = offset.length_squared();
            if dist_sq <= radius_sq {
                let distance = length(offset);
                if distance <= radius {
                    visit(grid.order()[slot] as usize, distance);
                }
            }
        });
    }

    /// The `k` agents nearest to `point` for which `filter` holds, as `(index, distance)`
    /// nearest first (ties by index), using the positions of the last
    /// [`build_index`](Self::build_index). Searches outward from the point's cell, doubling the
    /// radius until `k` are found or the whole crowd is covered.
    pub fn k_nearest(
        &self,
        point: Vec3,
        k: usize,
        mut filter: impl FnMut(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let mut found = Vec::new();
        if k == 0 || self.is_empty() || !point.is_finite() {
            return found;
        }
        let point = self.space.point(point);
        let grid = &self.index.grid;
        let (lo, hi) = grid.bounds();
        let covers_all = point
            .distance(lo.min(point))
            .max(point.distance(hi.max(point)))
            + (hi - lo).length();
        let mut radius = grid.radius();
        loop {
            found.clear();
            self.for_each_within(point, radius, |i, d| {
                if filter(i) {
                    found.push((i, d));
                }
            });
            if found.len() >= k || radius >= covers_all || !radius.is_finite() {
                break;
            }
            radius *= 2.0;
        }
        found.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        found.truncate(k);
        found
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
