//! Figures that describe a crowd: order, neighbours, spacing.

use glam::Vec3;

use super::Crowd;
use crate::executor::for_each_part;

/// Figures that describe the state of a crowd.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Number of agents.
    pub agents: usize,
    /// Order parameter: the length of the sum of unit headings divided by the agent count.
    /// 1 when all agents head the same way, about `1 / sqrt(N)` for random headings.
    pub polarisation: f32,
    /// Mean number of agents within each agent's neighbour radius and field of view.
    pub mean_neighbours: f32,
    /// Mean distance to the nearest neighbour, over agents that have one.
    pub mean_nearest_distance: Option<f32>,
    /// Smallest distance between an agent and its nearest neighbour.
    pub min_nearest_distance: Option<f32>,
}

/// Agents per block of the metrics' sums: the blocks are summed in parallel, then in order,
/// so that the figures are the same bits on any thread count.
const BLOCK: usize = 4096;

/// A block's sums.
#[derive(Clone, Copy)]
struct Sums {
    heading: Vec3,
    neighbours: u64,
    scanned: usize,
    nearest: f64,
    nearest_min: f32,
    with_neighbour: usize,
}

impl Default for Sums {
    fn default() -> Self {
        Self {
            heading: Vec3::ZERO,
            neighbours: 0,
            scanned: 0,
            nearest: 0.0,
            nearest_min: f32::INFINITY,
            with_neighbour: 0,
        }
    }
}

impl Crowd {
    /// Measures the crowd: polarisation from the current headings, neighbour figures from the
    /// last [`accumulate_forces`](Self::accumulate_forces) (over the agents that scanned, under
    /// level of detail). Blocks of agents are summed on the crowd's executor.
    pub fn metrics(&self) -> Metrics {
        let n = self.len();
        if n == 0 {
            return Metrics::default();
        }
        let results = &self.forces.results;
        let counted = results.len() == n;
        let mut blocks = vec![Sums::default(); n.div_ceil(BLOCK)];
        let parts: Vec<&mut Sums> = blocks.iter_mut().collect();
        for_each_part(&*self.executor, parts, |k, sums| {
            let agents = k * BLOCK..((k + 1) * BLOCK).min(n);
            sums.heading = self.agents.bodies[agents.clone()]
                .iter()
                .map(|b| b.heading)
                .sum();
            if !counted {
                sums.scanned = agents.len();
                return;
            }
            for r in &results[agents] {
                if !r.reused {
                    sums.neighbours += u64::from(r.neighbours);
                    sums.scanned += 1;
                }
                if r.nearest_sq.is_finite() {
                    let d = r.nearest_sq.sqrt();
                    sums.nearest += f64::from(d);
                    sums.nearest_min = sums.nearest_min.min(d);
                    sums.with_neighbour += 1;
                }
            }
        });
        let all = blocks.into_iter().fold(Sums::default(), |all, b| Sums {
            heading: all.heading + b.heading,
            neighbours: all.neighbours + b.neighbours,
            scanned: all.scanned + b.scanned,
            nearest: all.nearest + b.nearest,
            nearest_min: all.nearest_min.min(b.nearest_min),
            with_neighbour: all.with_neighbour + b.with_neighbour,
        });
        Metrics {
            agents: n,
            polarisation: all.heading.length() / n as f32,
            mean_neighbours: all.neighbours as f32 / all.scanned.max(1) as f32,
            mean_nearest_distance: (all.with_neighbour > 0)
                .then(|| (all.nearest / all.with_neighbour as f64) as f32),
            min_nearest_distance: (all.with_neighbour > 0).then_some(all.nearest_min),
        }
    }
}
