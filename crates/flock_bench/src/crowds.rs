//! Crowds that never overlap: the standard crowd scenarios (circle swaps, two crossing
//! streams, a bottleneck, a dense crowd to goals), each run with no avoidance between agents,
//! the predicted-collision sidestep, the velocity-obstacle step, and the `dodgy_2d` crate (ORCA
//! as the RVO2 library has it) driven directly; then what the velocity-obstacle step costs the
//! plugin's tick on the sweep's workload (the `crowd_cost` module).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::prelude::*;
use flock_core::{AgentInput, Crowd, FlockTuning, Serial, Shape, Space, VelocityObstacles};

use crate::crowd_cost::{COST_AGENTS, CostRow, cost_table, measure_costs, ms};
use crate::crowd_scenarios::{
    DENSE_SHIFT, DENSE_SHIFTS, DIAMETER, DOOR, DT, MOVED_BY, MOVED_STARTS, NEIGHBOUR_RADIUS,
    NEIGHBOURS, REACHED, SPEED, Scenario, bottleneck, circle, dense, moved, streams, waypoint,
};

/// How agents avoid each other.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    None,
    Sidestep,
    Reciprocal,
    /// `Reciprocal` keeping the pedestrian recipe's time gap to the body ahead.
    TimeGap,
    Solid,
    Dodgy,
}

impl Mode {
    const ALL: [Mode; 6] = [
        Mode::None,
        Mode::Sidestep,
        Mode::Reciprocal,
        Mode::TimeGap,
        Mode::Solid,
        Mode::Dodgy,
    ];

    fn name(self) -> &'static str {
        match self {
            Mode::None => "no avoidance",
            Mode::Sidestep => "sidestep (collision_avoidance 1)",
            Mode::Reciprocal => "VelocityObstacles::Reciprocal",
            Mode::TimeGap => "Reciprocal, the pedestrian recipe's time gap",
            Mode::Solid => "VelocityObstacles::Solid",
            Mode::Dodgy => "dodgy_2d directly",
        }
    }

    /// The kernel's setting for this mode.
    fn velocity_obstacles(self) -> VelocityObstacles {
        match self {
            Mode::Reciprocal | Mode::TimeGap => VelocityObstacles::Reciprocal,
            Mode::Solid => VelocityObstacles::Solid,
            _ => VelocityObstacles::Off,
        }
    }
}

/// One scenario run in one mode.
pub struct CrowdRow {
    scenario: &'static str,
    agents: usize,
    mode: Mode,
    /// The most pairs of bodies overlapping at once, and the deepest overlap as a share of
    /// the radius.
    most_overlapping: usize,
    deepest: f32,
    /// Seconds until every agent arrived, or how many had when time ran out.
    arrived: Result<f32, usize>,
    /// The longest an agent stayed within its body's radius of one spot short of its goal,
    /// in seconds: how near any came to freezing.
    longest_stay: f32,
    /// Mean over agents of the path walked over the straight line to the goal.
    detour: f32,
    tick: Duration,
}

/// The tuning of every kernel mode: seek the goal at [`SPEED`], reaching the desired velocity
/// in a quarter of a second, with bodies of [`DIAMETER`].
fn tuning(mode: Mode) -> FlockTuning {
    FlockTuning {
        weights: FlockWeights {
            separation: 0.0,
            alignment: 0.0,
            cohesion: 0.0,
            target: 1.0,
            collision_avoidance: if mode == Mode::Sidestep { 1.0 } else { 0.0 },
            style: RuleStyle::DesiredVelocity,
            ..default()
        },
        limits: SteeringLimits {
            max_speed: SPEED,
            max_force: 16.0,
            response_time: 0.25,
            arrival_radius: 1.0,
            reach_radius: REACHED,
            ..default()
        },
        perception: Perception {
            neighbour_radius: NEIGHBOUR_RADIUS,
            collision_distance: DIAMETER,
            velocity_obstacles: mode.velocity_obstacles(),
            time_gap: if mode == Mode::TimeGap {
                FlockTuning::pedestrian().perception.time_gap
            } else {
                0.0
            },
            ..default()
        },
        ..default()
    }
}

/// The most pairs overlapping at once, and the deepest overlap over the radius, of bodies at
/// `positions` (found through `crowd`'s grid, built on them).
fn overlaps(crowd: &Crowd, positions: &[Vec3]) -> (usize, f32) {
    let (mut pairs, mut deepest) = (0, 0.0_f32);
    for (i, &p) in positions.iter().enumerate() {
        crowd.for_each_within(p, DIAMETER, |j, distance| {
            if j > i && distance < DIAMETER * (1.0 - 1e-4) {
                pairs += 1;
                deepest = deepest.max((DIAMETER - distance) / (DIAMETER / 2.0));
            }
        });
    }
    (pairs, deepest)
}

/// Refills `crowd` (kept between ticks, as the plugin keeps its own) with the agents at
/// `positions` with `velocities`, aiming at their waypoints.
fn refill(
    crowd: &mut Crowd,
    scenario: &Scenario,
    mode: Mode,
    positions: &[Vec3],
    velocities: &[Vec3],
) {
    crowd.clear();
    let params = crowd.add_params(tuning(mode));
    for (i, (&position, &velocity)) in positions.iter().zip(velocities).enumerate() {
        crowd.push(AgentInput {
            position,
            velocity,
            heading: Vec3::ZERO,
            flock: 0,
            params,
            target: Some(waypoint(scenario, position, scenario.goals[i])),
        });
    }
}

/// An empty crowd on the plane, on one thread, with the scenario's walls.
fn new_crowd(scenario: &Scenario) -> Crowd {
    let mut crowd = Crowd::new(Space::Planar);
    crowd.set_executor(Serial);
    crowd.set_obstacles(scenario.walls.iter().copied());
    crowd
}

/// `dodgy_2d`'s velocity for agent `i`: ORCA against its ten nearest neighbours (found with
/// `crowd`'s grid) and the walls, toward its waypoint at full speed, slowing within a unit of
/// it.
fn dodgy_velocity(
    crowd: &Crowd,
    scenario: &Scenario,
    walls: &[std::borrow::Cow<'_, dodgy_2d::Obstacle>],
    i: usize,
    positions: &[Vec3],
    velocities: &[Vec3],
) -> Vec3 {
    let g = |v: Vec3| dodgy_2d::Vec2::new(v.x, v.y);
    let agent = |k: usize| dodgy_2d::Agent {
        position: g(positions[k]),
        velocity: g(velocities[k]),
        radius: DIAMETER / 2.0,
        avoidance_responsibility: 1.0,
    };
    let near = crowd.k_nearest(positions[i], NEIGHBOURS + 1, |j| j != i);
    let neighbours: Vec<_> = near
        .iter()
        .filter(|(_, d)| *d <= NEIGHBOUR_RADIUS)
        .take(NEIGHBOURS)
        .map(|&(j, _)| std::borrow::Cow::Owned(agent(j)))
        .collect();
    let to = waypoint(scenario, positions[i], scenario.goals[i]) - positions[i];
    let preferred = to.normalize_or_zero() * SPEED * to.length().min(1.0);
    let v = agent(i).compute_avoiding_velocity(
        &neighbours,
        walls,
        g(preferred),
        SPEED,
        DT,
        &dodgy_2d::AvoidanceOptions {
            obstacle_margin: DIAMETER / 2.0,
            time_horizon: 1.5,
            obstacle_time_horizon: 1.5,
        },
    );
    Vec3::new(v.x, v.y, 0.0)
}

/// The walls as `dodgy_2d` obstacles: each box's corners, counter-clockwise.
fn dodgy_walls(scenario: &Scenario) -> Vec<dodgy_2d::Obstacle> {
    scenario
        .walls
        .iter()
        .filter_map(|shape| match *shape {
            Shape::Box {
                centre,
                half_extents: h,
                ..
            } => Some(dodgy_2d::Obstacle::Closed {
                vertices: [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .map(|(x, y)| dodgy_2d::Vec2::new(centre.x + x * h.x, centre.y + y * h.y))
                    .to_vec(),
            }),
            _ => None,
        })
        .collect()
}

/// Runs `scenario` in `mode` until every agent has arrived or `most_seconds` pass.
fn run(scenario: &Scenario, mode: Mode, most_seconds: f32) -> CrowdRow {
    let n = scenario.starts.len();
    let mut positions = scenario.starts.clone();
    let mut velocities = vec![Vec3::ZERO; n];
    let mut walked = vec![0.0_f32; n];
    let walls = dodgy_walls(scenario);
    let walls: Vec<_> = walls.iter().map(std::borrow::Cow::Borrowed).collect();
    let (mut most_overlapping, mut deepest) = (0, 0.0_f32);
    let mut times = Vec::new();
    let mut arrived = Err(0);
    let ticks = (most_seconds / DT) as usize;
    let (mut crowd, mut measured) = (new_crowd(scenario), new_crowd(scenario));
    let mut stays = Stays::new(&positions);
    for tick in 1..=ticks {
        let started = Instant::now();
        refill(&mut crowd, scenario, mode, &positions, &velocities);
        let next: Vec<(Vec3, Vec3)> = if mode == Mode::Dodgy {
            crowd.build_index();
            (0..n)
                .map(|i| {
                    let v = dodgy_velocity(&crowd, scenario, &walls, i, &positions, &velocities);
                    (positions[i] + v * DT, v)
                })
                .collect()
        } else {
            crowd.step(DT);
            (0..n)
                .map(|i| (crowd.position(i), crowd.velocity(i)))
                .collect()
        };
        times.push(started.elapsed());
        for (i, (p, v)) in next.into_iter().enumerate() {
            walked[i] += p.distance(positions[i]);
            (positions[i], velocities[i]) = (p, v);
        }
        refill(&mut measured, scenario, mode, &positions, &velocities);
        measured.build_index();
        let (pairs, depth) = overlaps(&measured, &positions);
        most_overlapping = most_overlapping.max(pairs);
        deepest = deepest.max(depth);
        let home = positions
            .iter()
            .zip(&scenario.goals)
            .filter(|(p, g)| p.distance(**g) <= REACHED)
            .count();
        stays.update(tick, &positions, &scenario.goals);
        arrived = Err(home);
        if home == n {
            arrived = Ok(tick as f32 * DT);
            break;
        }
    }
    times.sort_unstable();
    let straight: Vec<f32> = scenario
        .starts
        .iter()
        .zip(&scenario.goals)
        .map(|(s, g)| s.distance(*g))
        .collect();
    let detour = walked
        .iter()
        .zip(&straight)
        .map(|(w, s)| w / s)
        .sum::<f32>()
        / n as f32;
    CrowdRow {
        scenario: scenario.name,
        agents: n,
        mode,
        most_overlapping,
        deepest,
        arrived,
        longest_stay: stays.longest as f32 * DT,
        detour,
        tick: times[times.len() / 2],
    }
}

/// Where each agent last moved off to, and when: an agent that has not gone a body's radius
/// from that spot has stayed there since (one at its goal is moving on, not staying).
struct Stays {
    spots: Vec<(Vec3, usize)>,
    /// The longest stay seen, in ticks.
    longest: usize,
}

impl Stays {
    fn new(starts: &[Vec3]) -> Self {
        Self {
            spots: starts.iter().map(|&start| (start, 0)).collect(),
            longest: 0,
        }
    }

    /// Takes in the agents at `positions` after `tick`, heading for `goals`.
    fn update(&mut self, tick: usize, positions: &[Vec3], goals: &[Vec3]) {
        for ((spot, since), (&p, &goal)) in self.spots.iter_mut().zip(positions.iter().zip(goals)) {
            if p.distance(goal) <= REACHED || p.distance(*spot) > DIAMETER / 2.0 {
                (*spot, *since) = (p, tick);
            } else {
                self.longest = self.longest.max(tick - *since);
            }
        }
    }
}

/// Every scenario in every mode, the big circle with its starts moved, the dense crowd with its
/// goals shifted, and the step's cost.
pub struct CrowdReport {
    rows: Vec<CrowdRow>,
    /// The 1,000-agent circle with `Reciprocal`, starts moved by seeds 1, 2, ...
    moved: Vec<CrowdRow>,
    /// The dense crowd with `Reciprocal` and with the time gap, goals shifted by each of
    /// [`DENSE_SHIFTS`].
    shifted: Vec<CrowdRow>,
    costs: Vec<CostRow>,
}

/// The seconds the dense crowd may take: long enough to tell a crowd that is slow to untie
/// its last knot from one that never does, and for the recipe's time gap, which walks this
/// crowd as slowly as people walk at its density, to bring it home.
const DENSE_SECONDS: f32 = 600.0;

/// Runs every scenario in every mode, the big circle with its starts moved, the dense crowd
/// with its goals shifted, and the cost rows.
pub fn measure(ticks: usize, rounds: usize) -> CrowdReport {
    let scenarios = [
        (circle(100, 20.0), 120.0),
        (circle(1_000, 150.0), 600.0),
        (streams(500), 180.0),
        (bottleneck(200), 240.0),
        (dense(20, DENSE_SHIFT), DENSE_SECONDS),
    ];
    let mut rows = Vec::new();
    for (scenario, most_seconds) in &scenarios {
        for mode in Mode::ALL {
            let row = run(scenario, mode, *most_seconds);
            println!("{}", row.line());
            rows.push(row);
        }
    }
    let big_circle = &scenarios[1].0;
    let moved = (1..=MOVED_STARTS)
        .map(|seed| {
            let row = run(&moved(big_circle, seed), Mode::Reciprocal, 600.0);
            println!("starts moved by seed {seed}: {}", row.line());
            row
        })
        .collect();
    let shifted = [Mode::Reciprocal, Mode::TimeGap]
        .into_iter()
        .flat_map(|mode| DENSE_SHIFTS.iter().map(move |&shift| (mode, shift)))
        .map(|(mode, shift)| {
            let row = run(&dense(20, shift), mode, DENSE_SECONDS);
            println!("dense crowd, goals shifted by {shift}: {}", row.line());
            row
        })
        .collect();
    CrowdReport {
        rows,
        moved,
        shifted,
        costs: measure_costs(ticks, rounds, &COST_AGENTS),
    }
}

impl CrowdRow {
    fn arrived_cell(&self) -> String {
        match self.arrived {
            Ok(seconds) => format!("{seconds:.1}"),
            Err(home) => format!("{home} of {} after the limit", self.agents),
        }
    }

    /// The row as the table prints it.
    pub fn line(&self) -> String {
        let (scenario, agents, mode) = (self.scenario, self.agents, self.mode.name());
        format!(
            "| {scenario} | {agents} | {mode} | {} |",
            self.outcome_cells()
        )
    }

    /// The cells after the scenario: overlaps, arrival, the longest stay, path and tick.
    fn outcome_cells(&self) -> String {
        format!(
            "{} | {:.3} | {} | {:.1} | {:.2} | {:.3}",
            self.most_overlapping,
            self.deepest,
            self.arrived_cell(),
            self.longest_stay,
            self.detour,
            ms(self.tick),
        )
    }
}

/// The report's section.
pub fn section(report: &CrowdReport, ticks: usize, rounds: usize) -> String {
    let CrowdReport {
        rows,
        moved,
        shifted,
        costs,
    } = report;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Crowds that never overlap (kernel, 2D, 1 thread)\n\n\
         The standard crowd scenarios: agents on a circle each sent to the opposite point (100 \
         on a circle of radius 20, 1,000 on one of radius 150); two blocks of 500 crossing at \
         right angles; 200 through a door {DOOR} wide in a wall; 400 on a lattice 1 apart each \
         sent to another's place. Bodies {DIAMETER} across, top speed {SPEED}, {} ticks a \
         second, the goal sought at full speed (a quarter of a second to reach it). Modes: no \
         avoidance between agents; the predicted-collision sidestep \
         (`FlockWeights::collision_avoidance` 1); `Perception::velocity_obstacles` `Reciprocal`, \
         `Reciprocal` keeping the pedestrian recipe's time gap to the body ahead \
         (`Perception::time_gap` {TIME_GAP} s), and `Solid`; and the \
         `dodgy_2d` crate (ORCA as the RVO2 library has it) driven directly, with the same ten \
         nearest neighbours, the walls as its obstacles, and the preferred velocity reached at \
         once. \"Overlapping\" is the most pairs of bodies overlapping at once and the deepest \
         overlap as a share of the radius; \"arrived\" the seconds until every agent was within \
         {REACHED} of its goal; \"longest in one spot\" the longest any agent stayed within \
         its body's radius of one spot short of its goal (how near any came to freezing); \
         \"path\" the mean walked path over the straight line; the tick the median of the \
         simulation's ticks (kernel step or dodgy's velocities and the moves).\n",
        (1.0 / DT) as u32,
        TIME_GAP = FlockTuning::pedestrian().perception.time_gap,
    );
    let _ = writeln!(
        out,
        "| scenario | agents | mode | most overlapping | deepest overlap / radius | arrived (s) | longest in one spot (s) | path / straight line | tick ms |\n|---|---:|---|---:|---:|---|---:|---:|---:|"
    );
    for row in rows {
        let _ = writeln!(out, "{}", row.line());
    }
    let _ = writeln!(
        out,
        "\nThe 1,000-agent circle swap with `Reciprocal` again, each start moved by a seeded \
         draw of up to {MOVED_BY} along each axis (seed 0: the table's run, unmoved), since in a \
         crowd this dense one run's deepest overlap hangs on the starts' last bits.\n\n\
         | starts moved by seed | most overlapping | deepest overlap / radius | arrived (s) | longest in one spot (s) | path / straight line | tick ms |\n\
         |---:|---:|---:|---|---:|---:|---:|"
    );
    let unmoved = rows
        .iter()
        .find(|r| r.agents == 1_000 && r.scenario == "circle swap" && r.mode == Mode::Reciprocal);
    for (seed, row) in unmoved.into_iter().chain(moved).enumerate() {
        let _ = writeln!(out, "| {seed} | {} |", row.outcome_cells());
    }
    let _ = writeln!(
        out,
        "\nThe dense crowd with `Reciprocal` and with the recipe's time gap again, each agent \
         sent to the place `200 + shift` along instead of `200 + {DENSE_SHIFT}` (the table's \
         run), since which of the last agents meet in a knot among those already home hangs on \
         the places.\n\n\
         | mode | goals shifted by | most overlapping | deepest overlap / radius | arrived (s) | longest in one spot (s) | path / straight line | tick ms |\n\
         |---|---:|---:|---:|---|---:|---:|---:|"
    );
    let mut shifted = shifted.iter();
    for mode in [Mode::Reciprocal, Mode::TimeGap] {
        let table_run = (rows.iter())
            .find(|r| r.scenario == "dense crowd to goals" && r.mode == mode)
            .into_iter();
        let shifts = std::iter::once(DENSE_SHIFT).chain(DENSE_SHIFTS);
        let runs = table_run.chain(shifted.by_ref().take(DENSE_SHIFTS.len()));
        for (shift, row) in shifts.zip(runs) {
            let _ = writeln!(
                out,
                "| {} | {shift} | {} |",
                mode.name(),
                row.outcome_cells()
            );
        }
    }
    out.push_str(&cost_table(costs, ticks, rounds));
    out
}
