//! Figures that describe a crowd: order, neighbours, spacing.

use glam::Vec3;

use crate::Crowd;

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

impl Crowd {
    /// Measures the crowd: polarisation from the current headings, neighbour figures from the
    /// last [`accumulate_forces`](Self::accumulate_forces) (over the agents that scanned, under
    /// level of detail).
    pub fn metrics(&self) -> Metrics {
        let n = self.len();
        if n == 0 {
            return Metrics::default();
        }
        let heading_sum: Vec3 = self.agents.bodies.iter().map(|b| b.heading).sum();
        let results = &self.forces.results;
        let counted = results.len() == n;
        let (neighbours, scanned) = if counted {
            results
                .iter()
                .filter(|r| !r.reused)
                .fold((0_u64, 0_usize), |(sum, count), r| {
                    (sum + u64::from(r.neighbours), count + 1)
                })
        } else {
            (0, n)
        };
        let mut nearest_sum = 0.0_f64;
        let mut nearest_min = f32::INFINITY;
        let mut with_neighbour = 0_usize;
        if counted {
            for d in results
                .iter()
                .map(|r| r.nearest_sq)
                .filter(|d| d.is_finite())
            {
                let d = d.sqrt();
                nearest_sum += f64::from(d);
                nearest_min = nearest_min.min(d);
                with_neighbour += 1;
            }
        }
        Metrics {
            agents: n,
            polarisation: heading_sum.length() / n as f32,
            mean_neighbours: neighbours as f32 / scanned.max(1) as f32,
            mean_nearest_distance: (with_neighbour > 0)
                .then(|| (nearest_sum / with_neighbour as f64) as f32),
            min_nearest_distance: (with_neighbour > 0).then_some(nearest_min),
        }
    }
}
