//! The report: the speed targets, the sweep's tables, the plot.

use std::fmt::Write as _;

use bevy::prelude::*;
use flock_core::{SimdPath, Space};

use crate::harness::{WARM_UP_TICKS, WARM_UP_TIME};
use crate::rows::{Method, Row, dims};
use crate::workload::{NEIGHBOURS, RADIUS, SPEED};
use crate::{clumped, squads};

/// The speed issue's targets (must, target, stretch): the plugin tick in ms at 10k and 100k
/// agents (3D, 2 threads).
pub(crate) const TICK_TARGETS: [(usize, [f64; 3]); 2] =
    [(10_000, [2.0, 1.5, 1.0]), (100_000, [20.0, 15.0, 10.0])];
/// kd-tree time over the plugin tick at 50k agents: at least these.
pub(crate) const KD_TREE_TARGETS: [f64; 3] = [6.0, 8.0, 10.0];
/// The ECS share of the plugin tick at 100k agents, in percent: at most these.
pub(crate) const ECS_SHARE_TARGETS: [f64; 3] = [20.0, 15.0, 10.0];
/// The whole update of 1,024 flocking squad units on the 128 x 128 map, ms: at most these.
pub(crate) const SQUADS_TARGETS: [f64; 3] = [6.0, 4.0, 3.0];
/// The clumped plugin tick over the spread one at 50k agents: at most these.
pub(crate) const CLUMPED_TARGETS: [f64; 3] = [4.0, 3.0, 2.0];

pub(crate) fn find(
    rows: &[Row],
    method: Method,
    space: Space,
    agents: usize,
    threads: usize,
) -> Option<&Row> {
    rows.iter().find(|r| {
        r.method == method && r.space == space && r.agents == agents && r.threads == threads
    })
}

/// Which of a case's three limits (must, target, stretch) `value` meets: at most the limit, or
/// at least it where `higher_is_better`.
pub(crate) fn met(value: f64, limits: [f64; 3], higher_is_better: bool) -> String {
    let met: Vec<&str> = ["must", "target", "stretch"]
        .into_iter()
        .zip(limits)
        .filter(|&(_, limit)| {
            if higher_is_better {
                value >= limit
            } else {
                value <= limit
            }
        })
        .map(|(name, _)| name)
        .collect();
    if met.is_empty() {
        "none".to_owned()
    } else {
        met.join(", ")
    }
}

/// The table of the speed issue's targets, from the sweep's `rows`, the squads' and the
/// clumped crowds'.
pub(crate) fn targets_section(
    rows: &[Row],
    squads_rows: &[squads::SquadsRow],
    clumped_rows: &[clumped::ClumpedRow],
) -> String {
    let mut out = String::from(
        "## Targets\n\nThe speed issue's targets, from the sections below (3D, 2 threads \
         unless said).\n\n| case | must | target | stretch | measured | meets |\n\
         |---|---:|---:|---:|---:|---|\n",
    );
    let mut line = |case: String, limits: [f64; 3], value: Option<f64>, unit: &str, higher| {
        let [must, target, stretch] = limits;
        let measured = value.map_or("n/a".to_owned(), |v| format!("{v:.3}{unit}"));
        let meets = value.map_or("n/a".to_owned(), |v| met(v, limits, higher));
        let _ = writeln!(
            out,
            "| {case} | {must}{unit} | {target}{unit} | {stretch}{unit} | {measured} | {meets} |"
        );
    };
    let plugin = |n| find(rows, Method::Plugin, Space::Volume, n, 2).map(|r| r.median);
    for (n, limits) in TICK_TARGETS {
        let ms = plugin(n).map(Row::ms);
        line(format!("plugin tick, {n} agents"), limits, ms, " ms", false);
    }
    let kd_ratio = find(rows, Method::KdTree, Space::Volume, 50_000, 2)
        .zip(plugin(50_000))
        .map(|(t, p)| t.median.as_secs_f64() / p.as_secs_f64());
    line(
        "kd-tree over plugin, 50000 agents".to_owned(),
        KD_TREE_TARGETS,
        kd_ratio,
        "x",
        true,
    );
    let ecs_share = find(rows, Method::Kernel, Space::Volume, 100_000, 2)
        .zip(plugin(100_000))
        .map(|(k, p)| 100.0 * (1.0 - k.median.as_secs_f64() / p.as_secs_f64()));
    line(
        "ECS share of the plugin tick, 100000 agents".to_owned(),
        ECS_SHARE_TARGETS,
        ecs_share,
        "%",
        false,
    );
    let squads_ms = squads::flocking_time(squads_rows, 128, 1_024).map(Row::ms);
    line(
        "squads: 1024 units on the 128 x 128 map, whole update (2D)".to_owned(),
        SQUADS_TARGETS,
        squads_ms,
        " ms",
        false,
    );
    line(
        "50000 agents in a unit cube over spread, plugin tick".to_owned(),
        CLUMPED_TARGETS,
        clumped::plugin_ratio(clumped_rows),
        "x",
        false,
    );
    out
}

/// The report's opening: the machine, how the cases were timed, and the workload.
fn preamble(ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let simd = SimdPath::detect();
    let warm_up_ms = WARM_UP_TIME.as_millis();
    let _ = writeln!(
        out,
        "# Benchmarks\n\nWritten by `cargo run --release -p flock_bench` on {cpu}, {cores} cores, \
         default compile target; the neighbour scan ran on the `{simd:?}` path, chosen at run \
         time (`kernel-portable` forces the portable one). Median tick time (with the 10th and 90th percentiles) over \
         {rounds} rounds of {ticks} ticks after {WARM_UP_TICKS} warm-up ticks, the compute \
         pool's threads first kept waking for {warm_up_ms} ms (a core left idle is slow to wake \
         for the first ticks); the rounds sweep every case in turn, so that a slow spell of the \
         shared machine lands on every method.\n\n\
         **Workload**: N agents uniform in a cube (square in 2D) sized for about {NEIGHBOURS} \
         neighbours within radius {RADIUS}, random headings at speed {SPEED}, the default rules; \
         every method starts from the same seeded positions. `plugin` is the \
         whole `FlockingPlugins` tick in a headless Bevy app whose compute pool has a thread per \
         core (its 1-thread rows run each pass as one task, `parallel_chunk_size: \
         Some(usize::MAX)`, on the calling thread); `bevy-update` the same app without the plugin or its agents (its `agents` \
         column the size it stands beside), Bevy's own part of each plugin tick; \
         `plugin-default-pool` the plugin with Bevy's default task pools, as a game gets them \
         (its threads column is the compute pool's size); `kernel` is `Crowd` alone (grid, \
         forces, integration); `kd-tree` (0.6, what bevy_spatial wraps) and `kiddo` rebuild a \
         tree and run one within-radius query per agent; `brute` tests every pair. \
         *neighbours* is found per agent, *candidates* the distance tests per agent.\n"
    );
    out
}

/// The table of figures derived from the sweep's 3D rows on 2 threads: Bevy's share, the
/// kd-tree's ratio, the ECS share, the default pools, the portable scan.
fn derived_figures(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Derived figures (3D, 2 threads)\n\n| agents | plugin ms | of which Bevy's update ms | kd-tree ms | kd-tree / plugin | ECS share of the plugin tick | plugin, default pools ms | kernel, portable scan / detected |\n|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let sizes: Vec<usize> = {
        let mut s: Vec<usize> = rows.iter().map(|r| r.agents).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    for &n in &sizes {
        let get = |m| find(rows, m, Space::Volume, n, 2);
        if let (Some(p), Some(k), Some(t)) = (
            get(Method::Plugin),
            get(Method::Kernel),
            get(Method::KdTree),
        ) {
            let default_pool = rows
                .iter()
                .find(|r| {
                    r.method == Method::PluginDefaultPool
                        && r.space == Space::Volume
                        && r.agents == n
                })
                .map_or("n/a".to_owned(), |r| {
                    format!("{:.3} ({} thr)", Row::ms(r.median), r.threads)
                });
            let portable = get(Method::KernelPortable).map_or("n/a".to_owned(), |r| {
                format!("{:.2}x", r.median.as_secs_f64() / k.median.as_secs_f64())
            });
            let bare = get(Method::BareApp)
                .map_or("n/a".to_owned(), |r| format!("{:.3}", Row::ms(r.median)));
            let _ = writeln!(
                out,
                "| {n} | {:.3} | {bare} | {:.3} | {:.1}x | {:.0}% | {default_pool} | {portable} |",
                Row::ms(p.median),
                Row::ms(t.median),
                t.median.as_secs_f64() / p.median.as_secs_f64(),
                100.0 * (1.0 - k.median.as_secs_f64() / p.median.as_secs_f64()),
            );
        }
    }
    out
}

pub(crate) fn report(rows: &[Row], targets: &str, ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    out.push_str(&preamble(ticks, rounds));
    out.push_str(targets);
    out.push('\n');
    for space in [Space::Volume, Space::Planar] {
        let _ = writeln!(
            out,
            "## {}D\n\n| method | agents | threads | median ms | p10 ms | p90 ms | ns / agent | neighbours | candidates |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            dims(space)
        );
        for method in Method::ALL {
            for r in rows
                .iter()
                .filter(|r| r.method == method && r.space == space)
            {
                let (per_agent, neighbours) = r.per_agent();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {per_agent} | {neighbours} | {} |",
                    method.name(),
                    r.agents,
                    r.threads,
                    Row::ms(r.median),
                    Row::ms(r.p10),
                    Row::ms(r.p90),
                    r.candidates.map_or("n/a".to_owned(), |c| format!("{c:.1}"))
                );
            }
        }
        out.push('\n');
    }

    out.push_str(&derived_figures(rows));
    let _ = writeln!(
        out,
        "\nThe ECS share is 1 - kernel / plugin, from medians of separate runs on a shared \
         machine whose tick times spread by up to ±20% (see p10 and p90 above); \
         near zero or below it, the difference is inside that noise."
    );
    let per_agent = |n| {
        find(rows, Method::Plugin, Space::Volume, n, 2).map(|r| r.median.as_secs_f64() / n as f64)
    };
    if let (Some(small), Some(large)) = (per_agent(10_000), per_agent(100_000)) {
        let _ = writeln!(
            out,
            "\nPlugin cost per agent at 100k over that at 10k: {:.2}x (flat scaling is 1).",
            large / small
        );
    }
    let _ = writeln!(out, "\n![ms per tick against agents](benchmarks.svg)");
    out
}

pub(crate) fn plot(rows: &[Row], path: &str) {
    use plotters::prelude::*;

    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).expect("fill");
    let max_n = rows.iter().map(|r| r.agents).max().unwrap_or(1) as f64;
    let times = rows.iter().map(|r| Row::ms(r.median));
    let max_ms = times.clone().fold(0.01, f64::max);
    let min_ms = times.fold(f64::INFINITY, f64::min).min(max_ms);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Tick time against agents (3D, ~25 neighbours)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (500.0..max_n * 1.5).log_scale(),
            (min_ms * 0.5..max_ms * 2.0).log_scale(),
        )
        .expect("chart");
    chart
        .configure_mesh()
        .x_desc("agents")
        .x_label_formatter(&|n| format!("{n:.0}"))
        .y_desc("ms per tick (median)")
        .draw()
        .expect("mesh");
    let colours = [
        RED,
        RGBColor(128, 128, 128),
        RGBColor(230, 120, 0),
        BLUE,
        CYAN,
        GREEN,
        MAGENTA,
        BLACK,
    ];
    for (method, colour) in Method::ALL.into_iter().zip(colours) {
        for threads in [1, 2] {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.method == method && r.space == Space::Volume && r.threads == threads)
                .map(|r| (r.agents as f64, Row::ms(r.median)))
                .collect();
            if points.is_empty() {
                continue;
            }
            let style = if threads == 1 {
                colour.stroke_width(1)
            } else {
                colour.stroke_width(3)
            };
            chart
                .draw_series(LineSeries::new(points.clone(), style))
                .expect("series")
                .label(format!("{} ({} thr)", method.name(), threads))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 3, colour.filled())),
                )
                .expect("points");
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .expect("legend");
    root.present().expect("write svg");
}
