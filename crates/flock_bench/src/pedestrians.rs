//! Pedestrians against the tests crowd simulators are validated with: every scene of the
//! `flock_validation` crate, walked in each velocity-obstacle mode at 20 ticks a second, with
//! the fundamental diagram and the bottleneck's flow plotted against the references (the
//! `pedestrian_plots` module).

use std::fmt::Write as _;
use std::time::Instant;

use flock_core::{FlockTuning, Perception, VelocityObstacles};
use flock_validation::bottleneck::{self, TURNS, WIDTHS};
use flock_validation::corridors;
use flock_validation::fundamental_diagram::{
    DENSITIES, mean_speed_at_density, tolerance, weidmann_speed,
};
use flock_validation::people::Model;
use flock_validation::rimea::{self, Run, Standing};
use flock_validation::streams;

use crate::pedestrian_plots::{Curve, plot_bottleneck, plot_fundamental_diagram};

/// The tick rate every scene is walked at here (the validation tests add 64).
pub(crate) const TICKS_PER_SECOND: f32 = 20.0;

/// A way of moving the crowd.
#[derive(Clone, Copy)]
struct Mode {
    name: &'static str,
    model: Model,
}

impl Mode {
    /// The recipe, and the recipe with its avoidance changed: without the time gap, `Solid`,
    /// and no velocity obstacles at all; and ORCA driven directly.
    fn all() -> [Mode; 5] {
        let recipe = FlockTuning::pedestrian();
        let with = |mode: VelocityObstacles, time_gap: f32| FlockTuning {
            perception: Perception {
                velocity_obstacles: mode,
                time_gap,
                ..recipe.perception
            },
            ..recipe
        };
        let gap = recipe.perception.time_gap;
        [
            Mode {
                name: "pedestrian recipe (Reciprocal, time gap 0.6 s)",
                model: Model::Kernel(recipe),
            },
            Mode {
                name: "Reciprocal, no time gap",
                model: Model::Kernel(with(VelocityObstacles::Reciprocal, 0.0)),
            },
            Mode {
                name: "Solid, time gap 0.6 s",
                model: Model::Kernel(with(VelocityObstacles::Solid, gap)),
            },
            Mode {
                name: "no avoidance between people",
                model: Model::Kernel(with(VelocityObstacles::Off, gap)),
            },
            Mode {
                name: "dodgy_2d (ORCA) directly",
                model: Model::Orca,
            },
        ]
    }
}

/// What one mode measured.
pub(crate) struct ModeReport {
    mode: Mode,
    rimea_1: Option<f32>,
    /// By density: the spread crowd's and the one-speed crowd's mean speed; none for ORCA,
    /// which has no periodic corridor.
    speeds: Vec<(f32, f32)>,
    /// By width: the median over the turns of the flow (people a second), and the spread of
    /// the turns' flows about it (largest share off the median).
    flows: Vec<(f32, f32)>,
    /// Whether everyone got through every door, and the deepest body in a wall.
    doors: (bool, f32),
    /// The two-way corridor: when everyone was out, its lane order and that of the same
    /// places in no lanes.
    two_way: (Option<f32>, f32, f32),
    /// Two streams crossing: when everyone was across, the same crowd's time walking through
    /// each other, and the most standing at once.
    streams: (Option<f32>, f32, usize),
    rimea_6: (Option<f32>, f32),
    rimea_12: (Option<f32>, usize, usize),
    rimea_9: (Option<f32>, Option<f32>),
    seconds: f32,
}

/// Walks every scene in every mode.
pub(crate) fn measure() -> Vec<ModeReport> {
    Mode::all()
        .into_iter()
        .map(|mode| {
            let started = Instant::now();
            let report = measure_mode(mode);
            println!("{}: {:.0} s", mode.name, started.elapsed().as_secs_f32());
            ModeReport {
                seconds: started.elapsed().as_secs_f32(),
                ..report
            }
        })
        .collect()
}

/// The mean speeds of the fundamental diagram, by density (the crowd of spread speeds and of
/// one speed), where `model` is the kernel's; none for ORCA, which has no periodic corridor.
fn fundamental_diagram(model: Model, rate: f32) -> Vec<(f32, f32)> {
    let Model::Kernel(tuning) = model else {
        return Vec::new();
    };
    (DENSITIES.iter())
        .map(|&d| {
            let spread = mean_speed_at_density(&tuning, d, rate, true);
            (spread, mean_speed_at_density(&tuning, d, rate, false))
        })
        .collect()
}

/// The bottleneck's flows by width (the median over the turns, and their spread), and whether
/// everyone got through every door, with the deepest body in a wall.
fn doors(model: Model, rate: f32) -> (Vec<(f32, f32)>, (bool, f32)) {
    let mut doors = (true, 0.0_f32);
    let flows = (WIDTHS.iter())
        .map(|&width| {
            let mut flows: Vec<f32> = (TURNS.iter())
                .map(|&turned| {
                    let run = bottleneck::crossing(model, width, rate, turned);
                    doors.0 &= run.times.len() == bottleneck::PEOPLE;
                    doors.1 = doors.1.max(run.deepest);
                    // Too few through for a flow: none.
                    run.flow().unwrap_or(0.0)
                })
                .collect();
            flows.sort_by(f32::total_cmp);
            let median = flows[1];
            let off = (flows.iter())
                .map(|f| (f - median).abs() / median.max(f32::MIN_POSITIVE))
                .fold(0.0, f32::max);
            (median, off)
        })
        .collect();
    (flows, doors)
}

/// Walks every scene as `mode` moves the people.
fn measure_mode(mode: Mode) -> ModeReport {
    let model = mode.model;
    let rate = TICKS_PER_SECOND;
    let speeds = fundamental_diagram(model, rate);
    let (flows, doors) = doors(model, rate);
    let two_way = corridors::two_way(model, 50, rate);
    let crossing = streams::crossing_streams(model, rate);
    let tuning = match model {
        Model::Kernel(tuning) => tuning,
        Model::Orca => FlockTuning::pedestrian(),
    };
    let through_each_other = FlockTuning {
        perception: Perception {
            velocity_obstacles: VelocityObstacles::Off,
            ..tuning.perception
        },
        ..tuning
    };
    let free = streams::crossing_streams(through_each_other, rate).across;
    let run = |seconds: f32| Run {
        model,
        threads: 2,
        ..Run::pedestrians(rate, seconds)
    };
    let corner = rimea::walk(&rimea::corner(), &run(120.0), &mut |_| {});
    let mut exit = Standing {
        zone: 4.0..6.0,
        most: 0,
    };
    let mut entrance = Standing {
        zone: -3.0..0.0,
        most: 0,
    };
    let series = rimea::walk(&rimea::bottlenecks_in_series(), &run(600.0), &mut |c| {
        entrance.count(c);
        exit.count(c);
    });
    let hall = |both: bool| rimea::walk(&rimea::hall(both), &run(1800.0), &mut |_| {}).out;
    ModeReport {
        mode,
        rimea_1: corridors::rimea_1(model, rate),
        speeds,
        flows,
        doors,
        two_way: (two_way.out, two_way.lanes, two_way.mixed),
        streams: (
            crossing.across,
            free.unwrap_or(f32::NAN),
            crossing.most_standing,
        ),
        rimea_6: (corner.out, corner.deepest),
        rimea_12: (series.out, entrance.most, exit.most),
        rimea_9: (hall(true), hall(false)),
        seconds: 0.0,
    }
}

/// "yes" or "**no**".
fn pass(ok: bool) -> &'static str {
    if ok { "yes" } else { "**no**" }
}

/// `seconds` as a time, or that not everyone made it.
fn time(seconds: Option<f32>) -> String {
    seconds.map_or("not all".to_string(), |s| format!("{s:.1} s"))
}

/// The cells of one test's row, a cell per mode.
fn row(
    out: &mut String,
    test: &str,
    reference: &str,
    reports: &[ModeReport],
    cell: impl Fn(&ModeReport) -> String,
) {
    let cells: Vec<String> = reports.iter().map(cell).collect();
    let _ = writeln!(out, "| {test} | {reference} | {} |", cells.join(" | "));
}

/// The validation table: a row per test, a column per mode.
fn table(reports: &[ModeReport]) -> String {
    let mut out = String::new();
    let names: Vec<&str> = reports.iter().map(|r| r.mode.name).collect();
    let _ = writeln!(out, "| test | reference | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(reports.len()));
    row(
        &mut out,
        "RiMEA 1: one person, 40 m corridor",
        "26-34 s",
        reports,
        |r| {
            let ok = r.rimea_1.is_some_and(|s| (26.0..=34.0).contains(&s));
            format!("{} ({})", time(r.rimea_1), pass(ok))
        },
    );
    speed_rows(&mut out, reports);
    flow_rows(&mut out, reports);
    scene_rows(&mut out, reports);
    out
}

/// RiMEA 4's rows: a row per density, for the crowd of spread speeds and of one speed.
fn speed_rows(out: &mut String, reports: &[ModeReport]) {
    for (label, spread) in [("spread speeds", true), ("one speed", false)] {
        for (k, &density) in DENSITIES.iter().enumerate() {
            let test = format!("RiMEA 4, {label}: m/s at {density} per m²");
            let (expected, within) = (weidmann_speed(density), tolerance(density));
            let reference = format!("Weidmann {expected:.2} ± {within:.2}");
            row(out, &test, &reference, reports, |r| {
                let Some(&(with_spread, one)) = r.speeds.get(k) else {
                    return "not walked".to_string();
                };
                let speed = if spread { with_spread } else { one };
                let ok = (speed - expected).abs() <= within;
                format!("{speed:.2} ({})", pass(ok))
            });
        }
    }
}

/// The bottleneck's rows: a row per width, and one for bodies in the walls.
fn flow_rows(out: &mut String, reports: &[ModeReport]) {
    for (k, &width) in WIDTHS.iter().enumerate() {
        let test = format!("bottleneck {width} m: specific flow, per m per s (turns' spread)");
        let in_range = width >= 1.2;
        let reference = if in_range {
            "1.5-2.2, turns within 10%"
        } else {
            "rising with the width"
        };
        row(out, &test, reference, reports, |r| {
            let (flow, off) = r.flows[k];
            if flow == 0.0 {
                return format!("too few through ({})", pass(false));
            }
            let specific = flow / width;
            let rising = k == 0 || flow > r.flows[k - 1].0;
            let within = (1.5..=2.2).contains(&specific) && off <= 0.1;
            let ok = rising && (!in_range || within);
            format!("{specific:.2} (±{:.0}%) ({})", 100.0 * off, pass(ok))
        });
    }
    let test = "bottleneck: all through, deepest in a wall / radius";
    row(out, test, "all, ≤ 0.05", reports, |r| {
        let (all, deepest) = r.doors;
        let through = if all { "all" } else { "not all" };
        format!("{through}, {deepest:.3} ({})", pass(all && deepest <= 0.05))
    });
}

/// The rows of the scenes with a route: the two-way corridor, the crossing streams and RiMEA
/// 6, 12 and 9.
fn scene_rows(out: &mut String, reports: &[ModeReport]) {
    let test = "two-way corridor, 50 + 50: out; lane order";
    row(
        out,
        test,
        "all out; lanes above the same places in no lanes + 0.1",
        reports,
        |r| {
            let (out, lanes, mixed) = r.two_way;
            let ok = out.is_some() && lanes >= mixed + 0.1;
            format!("{}; {lanes:.2} / {mixed:.2} ({})", time(out), pass(ok))
        },
    );
    let test = "two streams of 100 crossing at right angles: across; most standing";
    row(
        out,
        test,
        "within 1.75x walking through each other; ≤ 5 standing",
        reports,
        |r| {
            let (across, free, standing) = r.streams;
            let ok = across.is_some_and(|t| t <= 1.75 * free) && standing <= 5;
            format!("{}; {standing} ({})", time(across), pass(ok))
        },
    );
    let test = "RiMEA 6: 20 round a corner; deepest in a wall / radius";
    row(out, test, "all round, ≤ 0.05", reports, |r| {
        let (out, deepest) = r.rimea_6;
        let ok = out.is_some() && deepest <= 0.05;
        format!("{}, {deepest:.3} ({})", time(out), pass(ok))
    });
    let test =
        "RiMEA 12: 150 through two bottlenecks; most standing before the first / at the second";
    row(
        out,
        test,
        "a queue at the first, none at the second",
        reports,
        |r| {
            let (out, first, second) = r.rimea_12;
            let ok = out.is_some() && first >= 10 && second == 0;
            format!("{}; {first} / {second} ({})", time(out), pass(ok))
        },
    );
    let test = "RiMEA 9: 1,000 out of a hall by four exits / by two";
    row(out, test, "about twice as long by two", reports, |r| {
        let (four, two) = r.rimea_9;
        let ratio = four.zip(two).map(|(a, b)| b / a);
        let ok = ratio.is_some_and(|x| (1.6..=2.4).contains(&x));
        let ratio = ratio.map_or("-".to_string(), |x| format!("{x:.2}x"));
        format!("{} / {}, {ratio} ({})", time(four), time(two), pass(ok))
    });
}

/// The fundamental diagram's curves: each mode's crowd of spread speeds, and the recipe's of
/// one speed.
fn speed_curves(reports: &[ModeReport]) -> (Vec<Curve>, Curve) {
    let curve = |r: &ModeReport, spread: bool, name: String| Curve {
        name,
        points: (DENSITIES.iter().zip(&r.speeds))
            .map(|(&d, &(with_spread, one))| {
                let speed = if spread { with_spread } else { one };
                (d as f64, speed as f64)
            })
            .collect(),
    };
    let modes = (reports.iter())
        .filter(|r| !r.speeds.is_empty())
        .map(|r| curve(r, true, format!("{}, spread speeds", r.mode.name)))
        .collect();
    let recipe = &reports[0];
    let one_speed = curve(recipe, false, format!("{}, one speed", recipe.mode.name));
    (modes, one_speed)
}

/// The bottleneck plot's curves: each mode's median specific flow, but for people who walk
/// through each other, whose flows are off the plot and mean nothing.
fn flow_curves(reports: &[ModeReport]) -> Vec<Curve> {
    (reports.iter())
        .filter(|r| {
            !matches!(r.mode.model, Model::Kernel(tuning)
                if tuning.perception.velocity_obstacles == VelocityObstacles::Off)
        })
        .map(|r| Curve {
            name: r.mode.name.to_string(),
            points: (WIDTHS.iter().zip(&r.flows))
                .map(|(&w, &(flow, _))| (w as f64, (flow / w) as f64))
                .collect(),
        })
        .collect()
}

/// The section of the report, and its two plots written beside it.
pub(crate) fn section(reports: &[ModeReport]) -> String {
    let (modes, recipe) = speed_curves(reports);
    plot_fundamental_diagram(modes, recipe, "fundamental-diagram.svg");
    plot_bottleneck(flow_curves(reports), "bottleneck-flow.svg");
    let mut out = String::from(
        "## Pedestrians against the validation tests (kernel, 2D, 20 ticks a second)\n\n",
    );
    out.push_str(
        "`FlockTuning::pedestrian()` and three variants of its avoidance, walked through the scenes crowd simulators are validated with (the `flock_validation` crate, whose tests hold the recipe to them at 20 and 64 ticks a second): RiMEA 3.0's tests 1, 4 (the fundamental diagram, in a periodic corridor 10 m by 4 m, the mean of three starts in no order; \"spread speeds\" draws each person's free speed from Weidmann's 1.34 ± 0.26 m/s with `walking_speed_factor`), 6, 9 and 12; a bottleneck of 0.9 to 2.5 m with 120 people (Seyfried et al. 2009, Liao et al. 2014), as built, turned 1° and turned 45°, the median of the three; a two-way corridor; and two streams of 100 crossing at right angles. People are driven as a game would drive them: each heads for the nearest point of the next way through, a body's breadth from its posts. A cell is what was measured and whether it meets the reference. The last column drives the `dodgy_2d` crate (ORCA as the RVO2 library has it, van den Berg et al. 2011) through the same scenes, as crowd libraries built on RVO2 drive it: the recipe's body (0.4 m), free speed (1.34 m/s, one speed), neighbour radius and ten nearest neighbours, two seconds' horizon for people and walls, each aiming at its target at its free speed (slowing within the recipe's 0.5 m arrival radius), the chosen velocity reached at once (`flock_validation::orca`); it walks no periodic corridor, so it has no fundamental diagram.\n\n",
    );
    out.push_str(&table(reports));
    let seconds: Vec<String> = (reports.iter())
        .map(|r| format!("{:.0} s", r.seconds))
        .collect();
    let _ = writeln!(
        out,
        "\nThe release build walked each mode's scenes in {} (two threads for the RiMEA scenes, one elsewhere).\n\n![mean speed against density, each mode against Weidmann's curve](fundamental-diagram.svg)\n\n![specific flow against the bottleneck's width, each mode against the experiments' range](bottleneck-flow.svg)\n\nCommand: `flock_bench --only pedestrians` (writes the two plots; prints this section).",
        seconds.join(", ")
    );
    out
}
