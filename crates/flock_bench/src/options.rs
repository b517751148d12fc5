//! The command line: what to run, and `--help`.

use std::time::Duration;

use flock_core::Space;

/// What `--help` prints.
pub(crate) const HELP: &str = "\
flock_bench: bevy_flock's benchmarks, each method side by side with its reference in one run.

Run in release from the repository root:
    scripts/cargo run --release -p flock_bench -- [OPTIONS]

With no options it runs every section (the sweep five times over; about an hour and a half on
two cores) and writes BENCHMARKS.md, benchmarks.svg and the pedestrian plots in the current
directory. Any narrowing option prints the rows instead and writes nothing (the pedestrian
section still writes its two plots).

Options:
    --quick               1,000 and 10,000 agents, 5 ticks, one round
    --rounds N            rounds of the sweep, each case's ticks pooled (default 5)
    --ticks N             measured ticks per case and round (default 31): more for a steadier
                          median on a noisy machine
    --only METHOD         one method of the sweep: plugin, plugin-default-pool, bevy-update,
                          kernel, kernel-portable, kd-tree, kiddo, brute
    --only SECTION        one section alone, printed: avoidance, lab, detail, clumped,
                          squads, planning, planning-queue, banded, navmesh, crowds,
                          crowd-cost, pedestrians, lockstep, snapshots
    --agents N            one crowd size (the sweep; squads: 64, 256 or 1024 units;
                          crowd-cost, lockstep, snapshots: N agents)
    --space 3d|2d         one space
    --threads 1|2         one thread count
    --pause-ms N          sleep N ms before each timed plugin tick, as a game's frame leaves
                          the cores idle between ticks
    --soak                the soak test instead; writes SOAK.md
    -h, --help            this text
";

/// The options of a run of the sweep and its sections.
pub(crate) struct Options {
    /// `--only`: one method of the sweep, or one section.
    pub(crate) only: Option<String>,
    /// `--agents`.
    pub(crate) agents: Option<usize>,
    pub(crate) sizes: Vec<usize>,
    pub(crate) spaces: Vec<Space>,
    pub(crate) thread_counts: Vec<usize>,
    /// Measured ticks per case and round.
    pub(crate) ticks: usize,
    pub(crate) rounds: usize,
    /// Sleep before each timed plugin tick.
    pub(crate) pause: Duration,
    narrowed_by_space_or_threads: bool,
}

impl Options {
    /// Reads the options from the command line `args`.
    ///
    /// # Panics
    ///
    /// On a `--threads` other than 1 or 2.
    pub(crate) fn parse(args: &[String]) -> Self {
        let quick = args.iter().any(|a| a == "--quick");
        let value_of = |flag: &str| {
            let at = args.iter().position(|a| a == flag)?;
            args.get(at + 1).cloned()
        };
        let agents: Option<usize> = value_of("--agents").and_then(|n| n.parse().ok());
        let only_space = value_of("--space");
        let only_threads: Option<usize> = value_of("--threads").map(|n| match n.as_str() {
            "1" => 1,
            "2" => 2,
            other => panic!("--threads takes 1 or 2, not {other}"),
        });
        Self {
            only: value_of("--only"),
            agents,
            sizes: match agents {
                Some(n) => vec![n],
                None if quick => vec![1_000, 10_000],
                None => vec![1_000, 10_000, 50_000, 100_000],
            },
            spaces: match only_space.as_deref() {
                Some("3d") => vec![Space::Volume],
                Some("2d") => vec![Space::Planar],
                _ => vec![Space::Volume, Space::Planar],
            },
            thread_counts: only_threads.map_or(vec![1, 2], |n| vec![n]),
            ticks: value_of("--ticks")
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0)
                .unwrap_or(if quick { 5 } else { 31 }),
            rounds: value_of("--rounds")
                .and_then(|n| n.parse().ok())
                .unwrap_or(if quick { 1 } else { 5 }),
            pause: pause_of(args),
            narrowed_by_space_or_threads: only_space.is_some() || only_threads.is_some(),
        }
    }

    /// Whether the run is narrowed to part of the sweep, so that no report is written.
    pub(crate) fn narrowed(&self) -> bool {
        self.only.is_some() || self.agents.is_some() || self.narrowed_by_space_or_threads
    }
}

/// `--pause-ms N` in `args`: the sleep before each timed plugin tick, as a game's frame leaves
/// the cores idle between ticks (none without the flag or a number after it).
pub(crate) fn pause_of(args: &[String]) -> Duration {
    let ms = args
        .iter()
        .position(|a| a == "--pause-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|ms| ms.parse().ok());
    Duration::from_millis(ms.unwrap_or(0))
}
