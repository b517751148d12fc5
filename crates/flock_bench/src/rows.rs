//! One measured case of the sweep, and the methods it compares.

use std::time::Duration;

use bevy::prelude::*;
use flock_core::Space;

use crate::workload::Workload;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Method {
    Plugin,
    /// The plugin's app without the plugin: Bevy's own update.
    BareApp,
    /// The plugin in an app with Bevy's default task pools (run in a child process, since the
    /// pools are global and the first app of a process sets them).
    PluginDefaultPool,
    Kernel,
    /// The kernel with its neighbour scan forced onto the portable SIMD path.
    KernelPortable,
    KdTree,
    Kiddo,
    Brute,
}

impl Method {
    pub(crate) const ALL: [Method; 8] = [
        Method::Plugin,
        Method::BareApp,
        Method::PluginDefaultPool,
        Method::Kernel,
        Method::KernelPortable,
        Method::KdTree,
        Method::Kiddo,
        Method::Brute,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::Plugin => "plugin",
            Method::BareApp => "bevy-update",
            Method::PluginDefaultPool => "plugin-default-pool",
            Method::Kernel => "kernel",
            Method::KernelPortable => "kernel-portable",
            Method::KdTree => "kd-tree",
            Method::Kiddo => "kiddo",
            Method::Brute => "brute",
        }
    }
}

/// One measured case.
pub(crate) struct Row {
    pub(crate) method: Method,
    pub(crate) space: Space,
    pub(crate) agents: usize,
    pub(crate) threads: usize,
    /// Every measured tick time, sorted.
    pub(crate) times: Vec<Duration>,
    /// Median, 10th and 90th percentile of the tick time.
    pub(crate) median: Duration,
    pub(crate) p10: Duration,
    pub(crate) p90: Duration,
    /// Mean neighbours found per agent over the measured ticks.
    pub(crate) neighbours: f32,
    /// Mean candidates (distance tests) per agent, where the method exposes it.
    pub(crate) candidates: Option<f32>,
}

impl Row {
    pub(crate) fn same_case(&self, other: &Row) -> bool {
        (self.method, self.space, self.agents, self.threads)
            == (other.method, other.space, other.agents, other.threads)
    }

    /// Adds the ticks of another run of the same case.
    pub(crate) fn pool(&mut self, other: Row) {
        self.times.extend(other.times);
        self.times.sort_unstable();
        self.set_quantiles();
    }

    pub(crate) fn set_quantiles(&mut self) {
        let at = |q: f64| self.times[((self.times.len() - 1) as f64 * q).round() as usize];
        (self.median, self.p10, self.p90) = (at(0.5), at(0.1), at(0.9));
    }

    pub(crate) fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    pub(crate) fn line(&self) -> String {
        let (per_agent, neighbours) = self.per_agent();
        format!(
            "{:>8} {:>2}D {:>7} agents {} thr: median {:8.3} ms (p10 {:.3}, p90 {:.3}), {per_agent:>5} ns/agent, {neighbours:>5} neighbours, {} candidates per agent",
            self.method.name(),
            dims(self.space),
            self.agents,
            self.threads,
            Self::ms(self.median),
            Self::ms(self.p10),
            Self::ms(self.p90),
            self.candidates
                .map_or("n/a".to_owned(), |c| format!("{c:.1}")),
        )
    }

    /// Nanoseconds of the median tick per agent, and neighbours per agent, as printed: `n/a`
    /// for Bevy's update alone, which has no agents.
    pub(crate) fn per_agent(&self) -> (String, String) {
        if self.method == Method::BareApp {
            return ("n/a".to_owned(), "n/a".to_owned());
        }
        (
            format!(
                "{:.0}",
                self.median.as_secs_f64() * 1e9 / self.agents as f64
            ),
            format!("{:.1}", self.neighbours),
        )
    }
}

pub(crate) fn dims(space: Space) -> u8 {
    match space {
        Space::Volume => 3,
        Space::Planar => 2,
    }
}

pub(crate) fn row(
    method: Method,
    workload: &Workload,
    threads: usize,
    mut times: Vec<Duration>,
    neighbours: f32,
    candidates: Option<f32>,
) -> Row {
    times.sort_unstable();
    let mut row = Row {
        method,
        space: workload.space,
        agents: workload.len(),
        threads,
        times,
        median: Duration::ZERO,
        p10: Duration::ZERO,
        p90: Duration::ZERO,
        neighbours,
        candidates,
    };
    row.set_quantiles();
    row
}
