//! The metrics the panel plots, kept for the last few seconds.

use std::collections::VecDeque;

use bevy::prelude::*;

/// One frame's [`FlockMetrics`](bevy_flock_plugin::FlockMetrics), stamped with the time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricsSample {
    /// Real time since start-up, in seconds.
    pub seconds: f64,
    /// Order parameter: 1 when all agents head the same way.
    pub polarisation: f32,
    /// Mean neighbours per agent.
    pub mean_neighbours: f32,
    /// Wall time of the flocking tick, in milliseconds.
    pub step_ms: f32,
}

/// The samples of the last [`window`](Self::window) seconds, oldest first.
#[derive(Resource, Debug)]
pub struct MetricsHistory {
    /// How many seconds of samples are kept.
    pub window: f64,
    samples: VecDeque<MetricsSample>,
}

impl Default for MetricsHistory {
    /// The last 10 seconds.
    fn default() -> Self {
        Self {
            window: 10.0,
            samples: VecDeque::new(),
        }
    }
}

impl MetricsHistory {
    /// Adds a sample and forgets those older than the window before it.
    pub fn record(&mut self, sample: MetricsSample) {
        self.samples.push_back(sample);
        while self
            .samples
            .front()
            .is_some_and(|oldest| oldest.seconds < sample.seconds - self.window)
        {
            self.samples.pop_front();
        }
    }

    /// The kept samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &MetricsSample> {
        self.samples.iter()
    }

    /// `(seconds before the newest sample, value)` points of one measure, for a plot.
    pub fn series(&self, measure: impl Fn(&MetricsSample) -> f32) -> Vec<[f64; 2]> {
        let newest = self.samples.back().map_or(0.0, |s| s.seconds);
        self.samples
            .iter()
            .map(|s| [s.seconds - newest, f64::from(measure(s))])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seconds: f64, polarisation: f32) -> MetricsSample {
        MetricsSample {
            seconds,
            polarisation,
            mean_neighbours: 0.0,
            step_ms: 0.0,
        }
    }

    #[test]
    fn keeps_the_last_window_of_samples_and_plots_them_against_the_newest() {
        let mut history = MetricsHistory::default();
        for i in 0..=300 {
            history.record(sample(f64::from(i) / 10.0, i as f32));
        }
        // 30 s recorded at 10 per second: the samples from 20 s on remain.
        assert_eq!(history.samples().len(), 101);
        assert_eq!(history.samples().next().unwrap().seconds, 20.0);
        let series = history.series(|s| s.polarisation);
        assert_eq!(series.first(), Some(&[-10.0, 200.0]));
        assert_eq!(series.last(), Some(&[0.0, 300.0]));
    }
}
