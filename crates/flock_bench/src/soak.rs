//! Soak: a long run of the full plugin with agents spawned and despawned every tick, to show
//! that memory stays flat and the tick time does not creep.
//!
//! `cargo run --release -p flock_bench -- --soak [--ticks N] [--agents N]` (defaults: 100,000
//! ticks, 2,000 agents, 1% of them replaced every tick; every other replacement carries one
//! bad value, which the plugin must report once and forget with the agent; `--clean` leaves
//! them all good) prints the figures
//! and writes `SOAK.md`, and exits with an error if resident memory grew by more than 10%. Agents live in a walled box sized for about 25 neighbours each at the start;
//! the flock packs tighter within the first few hundred ticks and then holds that density,
//! so the work per tick stays steady from the first measured window on.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use bevy_flock_plugin::{InputCorrected, ReportedInput};
use flock_core::Space;

use crate::workload::Workload;

/// Ticks in each window whose median tick time is reported.
const WINDOW: usize = 1_000;

/// Resident and peak resident memory of this process, in KiB (Linux only).
fn memory_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// One line of the report: after `tick` ticks, the memory and the median tick time of the
/// window just before.
struct Sample {
    tick: usize,
    rss_kib: u64,
    peak_kib: u64,
    median: Duration,
    agents: usize,
}

pub fn run(args: &[String]) {
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let ticks = value_of("--ticks").unwrap_or(100_000).max(WINDOW);
    let agents = value_of("--agents").unwrap_or(2_000).max(100);
    let churn = agents / 100;
    let clean = args.iter().any(|a| a == "--clean");
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());

    let workload = Workload::new(agents, Space::Volume);
    let half = workload
        .positions
        .iter()
        .fold(Vec3::ZERO, |m, p| m.max(p.abs()));
    let mut app = crate::harness::plugin_app(Space::Volume, cores);
    let flock = **app.world().resource::<DefaultFlock>();
    app.world_mut()
        .entity_mut(flock)
        .insert(Boundary::walls(-half, half, 2.0));
    app.finish();
    app.cleanup();
    let mut alive = workload.spawn_agents(&mut app);

    // Replacements come from the workload's positions, in turn, so runs repeat.
    let mut next = 0;
    let mut window = Vec::with_capacity(WINDOW);
    let mut samples = Vec::new();
    let mut corrected = 0;
    let started = Instant::now();
    for tick in 1..=ticks {
        for k in 0..churn {
            let victim = (tick * 7919 + k * 104_729) % alive.len();
            app.world_mut().despawn(alive.swap_remove(victim));
            alive.push(spawn_replacement(&mut app, &workload, next, clean));
            next += 1;
        }
        let t = Instant::now();
        app.update();
        window.push(t.elapsed());
        corrected += app
            .world_mut()
            .resource_mut::<Messages<InputCorrected>>()
            .drain()
            .count();
        if window.len() == WINDOW {
            samples.push(sample(&app, tick, &mut window));
            window.clear();
            let s = samples.last().expect("just pushed");
            if samples.len() == 1 || tick % (ticks / 10).max(WINDOW) == 0 {
                print_sample(s);
            }
        }
    }
    let wall = started.elapsed();
    let (bad_input, settled) = closing_notes(&app, clean, churn * ticks / 2, corrected);
    let report =
        report(&samples, ticks, agents, churn, wall) + &bad_input + "\n\n" + &settled + "\n";
    std::fs::write("SOAK.md", &report).expect("write SOAK.md");
    println!("\n{report}\nwrote SOAK.md");
    let (first, last) = (&samples[0], &samples[samples.len() - 1]);
    if last.rss_kib * 10 > first.rss_kib * 11 {
        eprintln!(
            "soak: resident memory grew from {} to {} KiB",
            first.rss_kib, last.rss_kib
        );
        std::process::exit(1);
    }
}

/// The sample after `tick`: the memory now and the median of the `window`'s tick times.
fn sample(app: &App, tick: usize, window: &mut [Duration]) -> Sample {
    let (rss_kib, peak_kib) = memory_kib().unwrap_or((0, 0));
    Sample {
        tick,
        rss_kib,
        peak_kib,
        median: median(window),
        agents: app.world().resource::<FlockMetrics>().agents,
    }
}

fn print_sample(s: &Sample) {
    println!(
        "tick {:>7}: {} agents, median tick {:.3} ms, resident {} KiB (peak {} KiB)",
        s.tick,
        s.agents,
        s.median.as_secs_f64() * 1e3,
        s.rss_kib,
        s.peak_kib
    );
}

/// Spawns the replacement agent number `next`, from the workload's positions in turn (so runs
/// repeat), with one bad value unless `clean`.
fn spawn_replacement(app: &mut App, workload: &Workload, next: usize, clean: bool) -> Entity {
    let n = workload.positions.len();
    let (p, v) = (workload.positions[next % n], workload.velocities[next % n]);
    let mut agent = (app.world_mut()).spawn((Agent, Transform::from_translation(p), Velocity(v)));
    if !clean {
        spoil(&mut agent, next);
    }
    agent.id()
}

/// The report's closing paragraphs: what the bad input did (`spoiled` agents carried a bad
/// value; `corrected` messages came of them), and how the flock settled.
fn closing_notes(app: &App, clean: bool, spoiled: usize, corrected: usize) -> (String, String) {
    let metrics = *app.world().resource::<FlockMetrics>();
    let candidates = app
        .world()
        .resource::<FlockSimulation>()
        .crowd()
        .candidates_per_agent();
    let settled = format!(
        "At the end the flock had packed to {:.1} neighbours and {candidates:.0} candidates per \
         agent (polarisation {:.2}).",
        metrics.mean_neighbours, metrics.polarisation
    );
    let remembered = app.world().resource::<ReportedInput>().len();
    let bad_input = if clean {
        "No spawned agent carried a bad value (`--clean`).".to_string()
    } else {
        format!(
            "{} of the spawned agents carried one bad value each (a NaN velocity, an infinite \
             position, a rotation of length 2, or itself as its target, in turn): {corrected} \
             `InputCorrected` messages, one per bad agent that lived to a tick (a few are \
             despawned in the same batch that spawned them); at the end the plugin remembered \
             {remembered} reports (the rest were forgotten with their agents).",
            spoiled
        )
    };
    (bad_input, settled)
}

/// Gives every other new agent one bad value, cycling through the kinds a game might send:
/// the `n`-th replacement.
fn spoil(agent: &mut EntityWorldMut, n: usize) {
    if n % 2 == 1 {
        return;
    }
    let id = agent.id();
    match (n / 2) % 4 {
        0 => {
            agent.insert(Velocity(Vec3::new(f32::NAN, 0.0, 0.0)));
        }
        1 => {
            agent
                .get_mut::<Transform>()
                .expect("spawned with one")
                .translation
                .x = f32::INFINITY;
        }
        2 => {
            agent
                .get_mut::<Transform>()
                .expect("spawned with one")
                .rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
        }
        _ => {
            agent.insert(Target::Pursue(id));
        }
    }
}

fn report(samples: &[Sample], ticks: usize, agents: usize, churn: usize, wall: Duration) -> String {
    let mut out = String::new();
    let (first, last) = (&samples[0], &samples[samples.len() - 1]);
    let _ = writeln!(
        out,
        "# Soak\n\nWritten by `cargo run --release -p flock_bench -- --soak`: {ticks} ticks of the \
         full plugin, {agents} agents in a walled box (sized for about 25 neighbours each at the \
         start), {churn} \
         despawned and {churn} spawned before every tick ({} in all), in {:.0} s of wall time.\n",
        churn * ticks,
        wall.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "| | after tick | resident memory | peak resident | median tick ({WINDOW} ticks before) |\n|---|---:|---:|---:|---:|"
    );
    for (label, s) in [("start", first), ("end", last)] {
        let _ = writeln!(
            out,
            "| {label} | {} | {:.1} MiB | {:.1} MiB | {:.3} ms |",
            s.tick,
            s.rss_kib as f64 / 1024.0,
            s.peak_kib as f64 / 1024.0,
            s.median.as_secs_f64() * 1e3
        );
    }
    let medians: Vec<f64> = samples.iter().map(|s| s.median.as_secs_f64()).collect();
    let (lo, hi) = medians
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &m| {
            (lo.min(m), hi.max(m))
        });
    let _ = writeln!(
        out,
        "\nEnd over start: resident memory {:.3}x, median tick {:.2}x. Over all {} windows the \
         median tick ranged {:.3} to {:.3} ms.\n",
        last.rss_kib as f64 / first.rss_kib.max(1) as f64,
        last.median.as_secs_f64() / first.median.as_secs_f64(),
        samples.len(),
        lo * 1e3,
        hi * 1e3
    );
    out
}
