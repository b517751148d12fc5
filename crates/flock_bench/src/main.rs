//! Benchmark runner for bevy_flock: one workload, several ways of finding neighbours, side by
//! side in the same run.
//!
//! The workload: N agents uniform in a cube (a square in 2D) sized so that each has about 25
//! neighbours within radius 4, moving in random directions at speed 3, the default rules on.
//! Every method starts from the same seeded positions; the measured window is short (under a
//! third of a second of simulated time), so the density barely changes, and the neighbours
//! found at its end are reported beside the times.
//!
//! Methods, per tick:
//! - `plugin`: the full `FlockingPlugins` tick in a headless Bevy app (copy in, grid, forces,
//!   integration, writes of `Velocity` and `Transform`, Bevy's scheduling);
//! - `kernel`: `flock_core::Crowd::step` alone (grid build, forces, integration);
//! - `kd-tree`: kd-tree 0.6 (what bevy_spatial wraps): rebuild, then one within-radius query
//!   per agent;
//! - `kiddo`: kiddo's immutable tree, the same;
//! - `brute`: every pair (up to 10k agents).
//!
//! "1 thread" runs everything on the calling thread; "2 threads" splits the per-agent work in
//! two (the plugin and the kernel on Bevy's compute task pool, the trees and brute force on
//! scoped threads, spawned once per tick).
//!
//! Run in release: `cargo run --release -p flock_bench` (add `-- --quick` for a short run).
//! It prints a table and writes `BENCHMARKS.md` and `benchmarks.svg` in the current directory.
//! `-- --only kernel --agents 100000 --space 3d` runs one case, without writing the report
//! (`--threads 1` or `2` narrows it to one thread count, e.g. for a profile);
//! `-- --only avoidance` runs the obstacle avoidance cases alone (see the `avoidance` module).
//! `-- --only lab` runs the flocking lab's scene alone (see the `lab` module).
//! `-- --only detail` runs the level-of-detail cases alone (see the `detail` module).
//! `-- --only clumped` runs 50,000 agents packed into a unit cube against the same spread out,
//! and prints its section of the report (see the `clumped` module).
//! `-- --only plugin-default-pool` runs the plugin with Bevy's default task pools alone; in a
//! full run that row comes from a child process of the benchmark, since the pools are global.
//! `-- --only squads` runs the squads' flocking against potential fields alone, and prints
//! its section of the report (see the `squads` module); with `--agents N`, only the cases of
//! N units (64, 256 or 1024).
//! `-- --only planning` runs path planning on big maps alone, and prints its section of the
//! report (see the `planning` module); `-- --only planning-queue` only the planner's queue of
//! waiting units (see the `planning_queue` module); `-- --only banded` only the 5,000 orders on
//! the banded map (see the `banded` module).
//! `-- --only crowds` runs the crowd scenarios (circle swaps, crossing streams, a bottleneck, a
//! dense crowd) in every avoidance mode and what the velocity-obstacle step costs, and prints
//! its section of the report (see the `crowds` module); `-- --only crowd-cost` runs only what
//! the step costs (with `--agents N`, at N agents only).
//! `-- --only lockstep` measures what lockstep costs the plugin (the checksum, agents named by
//! id) and what snapshots cost (taking, writing, reading and restoring them; see the
//! `lockstep` and `snapshots` modules), with `--agents N` at N agents only; `-- --only
//! snapshots` measures the snapshots alone.
//! `-- --only pedestrians` walks the pedestrian recipe and three variants of its avoidance
//! through the validation scenes (RiMEA's tests, bottlenecks, a two-way corridor), writes
//! `fundamental-diagram.svg` and `bottleneck-flow.svg`, and prints its section of the report
//! (see the `pedestrians` module).
//! `-- --only plugin --pause-ms 14` sleeps 14 ms before each timed plugin tick (with Bevy's
//! default pools too, `--only plugin-default-pool`), as a game's frame at 60 Hz leaves the cores
//! idle between ticks.
//! `-- --soak` runs the soak test instead (see the `soak` module) and writes `SOAK.md`.

mod avoidance;
mod banded;
mod clumped;
mod crowd_cost;
mod crowd_scenarios;
mod crowds;
mod detail;
mod harness;
mod kernel_cases;
mod lab;
mod lockstep;
mod navmesh;
mod options;
mod pedestrian_plots;
mod pedestrians;
mod planning;
mod planning_queue;
mod plugin_cases;
mod report;
mod rows;
mod snapshots;
mod soak;
mod squads;
mod workload;

/// How many times each step of a snapshot is timed, at each crowd size.
const SNAPSHOT_REPEATS: usize = 15;

use flock_core::{SimdPath, Space};

use kernel_cases::{bench_brute, bench_kd_tree, bench_kernel, bench_kiddo};
use options::Options;
use plugin_cases::{
    CHILD_FLAG, bench_bare_app, bench_plugin, bench_plugin_default_pool, run_default_pool_child,
};
use report::{plot, report, targets_section};
use rows::{Method, Row};
use workload::Workload;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", options::HELP);
        return;
    }
    if args.iter().any(|a| a == "--soak") {
        soak::run(&args);
        return;
    }
    if args.iter().any(|a| a == CHILD_FLAG) {
        run_default_pool_child(&args);
        return;
    }
    let options = Options::parse(&args);
    if run_section_alone(&options) {
        return;
    }
    let rows = sweep(&options);
    if !options.narrowed() {
        write_report(&rows, &options);
    }
}

/// Runs the one section `--only` names, if it names one outside the sweep; returns whether it
/// did.
fn run_section_alone(options: &Options) -> bool {
    let (ticks, rounds) = (options.ticks, options.rounds);
    match options.only.as_deref() {
        Some("lab") => print_lines(lab::measure(ticks, rounds).iter().map(|r| r.line())),
        Some("squads") => {
            let rows = squads::measure(ticks, rounds, options.agents);
            print_lines(rows.iter().map(|r| r.line()));
            println!("\n{}", squads::section(&rows, ticks, rounds));
        }
        Some("planning") => {
            let (rows, serpentines) = planning::measure(rounds);
            let queue = planning_queue::measure(ticks);
            println!("\n{}", planning::section(&rows, &serpentines));
            println!("{}", planning_queue::section(&queue, ticks));
            println!("{}", banded::section(&banded::measure()));
        }
        Some("banded") => {
            let row = banded::measure();
            println!("{}", banded::section(&row));
        }
        Some("navmesh") => {
            let (sent, following) = navmesh::measure(ticks);
            println!("\n{}", navmesh::section(&sent, &following, ticks));
        }
        Some("planning-queue") => {
            let queue = planning_queue::measure(ticks);
            println!("{}", planning_queue::section(&queue, ticks));
        }
        Some("crowds") => {
            let report = crowds::measure(ticks, rounds);
            println!("\n{}", crowds::section(&report, ticks, rounds));
        }
        Some("pedestrians") => {
            let reports = pedestrians::measure();
            println!("\n{}", pedestrians::section(&reports));
        }
        Some("crowd-cost") => {
            let agents = options
                .agents
                .map_or(crowd_cost::COST_AGENTS.to_vec(), |n| vec![n]);
            let costs = crowd_cost::measure_costs(ticks, rounds, &agents);
            println!("{}", crowd_cost::cost_table(&costs, ticks, rounds));
        }
        Some("lockstep") => {
            let sizes = (options.agents).map_or(lockstep::LOCKSTEP_AGENTS.to_vec(), |n| vec![n]);
            let rows = lockstep::measure(ticks, rounds, &sizes);
            let snapshots = snapshots::measure(SNAPSHOT_REPEATS, &sizes);
            println!("\n{}", lockstep::section(&rows, ticks, rounds));
            println!("{}", snapshots::table(&snapshots, SNAPSHOT_REPEATS));
        }
        Some("snapshots") => {
            let sizes = (options.agents).map_or(lockstep::LOCKSTEP_AGENTS.to_vec(), |n| vec![n]);
            let rows = snapshots::measure(SNAPSHOT_REPEATS, &sizes);
            println!("\n{}", snapshots::table(&rows, SNAPSHOT_REPEATS));
        }
        Some("clumped") => {
            let rows = clumped::measure(ticks, rounds);
            print_lines(rows.iter().map(|r| r.line()));
            println!("\n{}", clumped::section(&rows, ticks, rounds));
        }
        Some("detail") => print_lines(detail::measure(ticks, rounds).iter().map(|r| r.line())),
        Some("avoidance") => {
            print_lines(avoidance::measure(ticks, rounds).iter().map(|r| r.line()));
        }
        _ => return false,
    }
    true
}

fn print_lines(lines: impl Iterator<Item = String>) {
    for line in lines {
        println!("{line}");
    }
}

/// The sweep: every method, space, size and thread count the options leave in, `rounds`
/// times, each case's ticks pooled across rounds (a slow spell of a shared machine then lands
/// on every method instead of one).
fn sweep(options: &Options) -> Vec<Row> {
    // One compute pool for the whole run, with one thread per core here (2 on the CI box).
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut rows: Vec<Row> = Vec::new();
    for _ in 0..options.rounds {
        for &space in &options.spaces {
            for &n in &options.sizes {
                let workload = Workload::new(n, space);
                for &threads in &options.thread_counts {
                    measure_case(options, &workload, threads, cores, &mut |method, row| {
                        pool_row(&mut rows, method, &workload, row);
                    });
                }
            }
        }
    }
    rows
}

/// Prints `row` and pools it with the rows of the same case, or says the case was skipped.
fn pool_row(rows: &mut Vec<Row>, method: Method, workload: &Workload, row: Option<Row>) {
    let Some(row) = row else {
        let (n, space) = (workload.len(), workload.space);
        println!("{:>8} {:>7} {:?} skipped", method.name(), n, space);
        return;
    };
    println!("{}", row.line());
    match rows.iter_mut().find(|r| r.same_case(&row)) {
        Some(pooled) => pooled.pool(row),
        None => rows.push(row),
    }
}

/// Every method the options leave in, on one workload and thread count.
fn measure_case(
    options: &Options,
    workload: &Workload,
    threads: usize,
    cores: usize,
    measure: &mut dyn FnMut(Method, Option<Row>),
) {
    let (ticks, pause, space) = (options.ticks, options.pause, workload.space);
    let wanted = |method: Method| options.only.as_deref().is_none_or(|o| o == method.name());
    if wanted(Method::Plugin) {
        let row = bench_plugin(workload, threads, cores, ticks, pause);
        measure(Method::Plugin, Some(row));
    }
    // The same app without the plugin, on the same pool: once per size.
    if wanted(Method::BareApp) && threads == 2 && space == Space::Volume {
        let row = bench_bare_app(workload, threads, cores, ticks, pause);
        measure(Method::BareApp, Some(row));
    }
    // Bevy's pools give the thread count; measured once per size.
    if wanted(Method::PluginDefaultPool) && threads == 2 {
        let row = bench_plugin_default_pool(workload, ticks, pause, options.only.is_some());
        measure(Method::PluginDefaultPool, row);
    }
    if wanted(Method::Kernel) {
        let row = bench_kernel(workload, threads, ticks, SimdPath::detect());
        measure(Method::Kernel, Some(row));
    }
    // Side by side with the path detected, where that is not the portable one.
    if wanted(Method::KernelPortable) && SimdPath::detect() != SimdPath::Portable {
        let row = bench_kernel(workload, threads, ticks, SimdPath::Portable);
        measure(Method::KernelPortable, Some(row));
    }
    if space == Space::Volume {
        if wanted(Method::KdTree) {
            measure(
                Method::KdTree,
                Some(bench_kd_tree(workload, threads, ticks)),
            );
        }
        if wanted(Method::Kiddo) {
            measure(Method::Kiddo, Some(bench_kiddo(workload, threads, ticks)));
        }
        if wanted(Method::Brute) {
            let brute = (workload.len() <= 10_000).then(|| bench_brute(workload, threads, ticks));
            measure(Method::Brute, brute);
        }
    }
}

/// Runs the other sections and writes `BENCHMARKS.md`, `benchmarks.svg` and the pedestrian
/// section's plots with the sweep's `rows`.
fn write_report(rows: &[Row], options: &Options) {
    let (ticks, rounds) = (options.ticks, options.rounds);
    let avoidance_rows = avoidance::measure(ticks, rounds);
    print_lines(avoidance_rows.iter().map(|r| r.line()));
    let lab_rows = lab::measure(ticks, rounds);
    print_lines(lab_rows.iter().map(|r| r.line()));
    let detail_rows = detail::measure(ticks, rounds);
    print_lines(detail_rows.iter().map(|r| r.line()));
    let clumped_rows = clumped::measure(ticks, rounds);
    print_lines(clumped_rows.iter().map(|r| r.line()));
    let squads_rows = squads::measure(ticks, rounds, None);
    print_lines(squads_rows.iter().map(|r| r.line()));
    let (planning_rows, serpentines) = planning::measure(rounds);
    print_lines(serpentines.iter().map(|r| r.line()));
    let queue_rows = planning_queue::measure(ticks);
    let banded_row = banded::measure();
    let (sent_at_once, following) = navmesh::measure(ticks);
    let crowd_report = crowds::measure(ticks, rounds);
    let pedestrian_reports = pedestrians::measure();
    let lockstep_rows = lockstep::measure(ticks, rounds, &lockstep::LOCKSTEP_AGENTS);
    let snapshot_rows = snapshots::measure(SNAPSHOT_REPEATS, &lockstep::LOCKSTEP_AGENTS);
    let targets = targets_section(rows, &squads_rows, &clumped_rows);
    let sections = [
        report(rows, &targets, ticks, rounds),
        avoidance::section(&avoidance_rows, ticks, rounds),
        lab::section(&lab_rows, ticks, rounds),
        detail::section(&detail_rows, ticks, rounds),
        clumped::section(&clumped_rows, ticks, rounds),
        squads::section(&squads_rows, ticks, rounds),
        planning::section(&planning_rows, &serpentines)
            + &planning_queue::section(&queue_rows, ticks)
            + &banded::section(&banded_row)
            + &navmesh::section(&sent_at_once, &following, ticks),
        crowds::section(&crowd_report, ticks, rounds),
        pedestrians::section(&pedestrian_reports),
        lockstep::section(&lockstep_rows, ticks, rounds)
            + "\n"
            + &snapshots::table(&snapshot_rows, SNAPSHOT_REPEATS),
    ];
    std::fs::write("BENCHMARKS.md", sections.join("\n")).expect("write BENCHMARKS.md");
    plot(rows, "benchmarks.svg");
    println!("\nwrote BENCHMARKS.md and benchmarks.svg");
}
