//! The velocity-obstacle step: its half-planes and linear program on cases worked by hand,
//! against the `dodgy` crates (an independent port of the RVO2 libraries) on random ones, and
//! the standard scenarios it exists for.

use glam::{Vec2, Vec3};

use super::random_positions;
use crate::simd::WIDTH;
use crate::velocity_obstacles::{
    Encounter, EncounterColumns, as_programmed, contact, manoeuvre_share, planar, volume,
    yielding_share,
};
use crate::*;

/// `encounters` as the half-spaces read them, each met by an agent moving at the velocity
/// beside it in `movers`.
fn columns(encounters: &[Encounter<Vec3>], movers: &[Vec3]) -> EncounterColumns {
    let mut columns = EncounterColumns::default();
    for (e, &mover) in encounters.iter().zip(movers) {
        columns.push(e, mover);
    }
    columns.pad();
    columns
}

/// A neighbour that does not avoid, so the agent takes the whole manoeuvre.
fn lone_encounter<V>(offset: V, velocity: V, radius: f32, horizon: f32) -> Encounter<V> {
    Encounter {
        offset,
        velocity,
        radius,
        horizon,
        share: 1.0,
        fixed_apart: Vec3::ZERO,
    }
}

fn assert_near(found: Vec3, expected: Vec3, what: &str) {
    assert!(
        found.distance(expected) < 1e-5,
        "{what}: {found} where {expected} was expected"
    );
}

fn near2(found: Vec2, expected: Vec2, what: &str) {
    assert_near(found.extend(0.0), expected.extend(0.0), what);
}

/// Bodies of radii summing to 1, the neighbour standing 2 ahead, the horizon 1 s: closing at
/// 1.5 the agent would touch it within 2/3 s. The cut-off disc is centred on `offset / horizon =
/// (2, 0)` with radius 1; the relative velocity (1.5, 0) is 0.5 inside it, nearest its left
/// end, so the agent must slow to 1 or less: the half-plane `v.x <= 1`, through (1, 0) along +y.
#[test]
fn a_neighbour_ahead_caps_the_closing_speed_at_the_cut_off() {
    let e = lone_encounter(Vec2::new(2.0, 0.0), Vec2::ZERO, 1.0, 1.0);
    let line = planar::half_plane(&e, Vec2::new(1.5, 0.0), 0.1);
    near2(line.point, Vec2::new(1.0, 0.0), "line point");
    near2(line.direction, Vec2::Y, "line direction");
    let (chosen, relaxed) = planar::solve(&[line], 0, 2.0, Vec2::new(1.5, 0.0), &mut Vec::new());
    assert!(!relaxed, "the lone half-plane is met");
    near2(chosen, Vec2::new(1.0, 0.0), "velocity");

    let e = lone_encounter(Vec3::new(2.0, 0.0, 0.0), Vec3::ZERO, 1.0, 1.0);
    let space = volume::half_space(&e, Vec3::new(1.5, 0.0, 0.0), 0.1);
    assert_near(space.point, Vec3::new(1.0, 0.0, 0.0), "plane point");
    assert_near(space.normal, -Vec3::X, "plane normal");
    let (chosen, relaxed) =
        volume::solve(&[space], 0, 2.0, Vec3::new(1.5, 0.0, 0.0), &mut Vec::new());
    assert!(!relaxed, "the lone half-space is met");
    assert_near(chosen, Vec3::new(1.0, 0.0, 0.0), "velocity in 3D");
}

/// A neighbour 2 ahead with radii summing to sqrt 2 hides a cone of half-angle 45 degrees; over
/// a long horizon the cut-off is negligible. Heading straight at it, the agent leaves by the
/// right leg (the side it takes when the velocity leans neither way): the nearest velocity to
/// (1, 0) on the line `y = -x` is (0.5, -0.5).
#[test]
fn a_neighbour_in_the_way_turns_the_velocity_onto_a_leg_of_the_cone() {
    let e = lone_encounter(Vec2::new(2.0, 0.0), Vec2::ZERO, 2f32.sqrt(), 1e4);
    let line = planar::half_plane(&e, Vec2::new(1.0, 0.0), 0.1);
    let (chosen, relaxed) = planar::solve(&[line], 0, 2.0, Vec2::new(1.0, 0.0), &mut Vec::new());
    assert!(!relaxed, "the lone half-plane is met");
    near2(chosen, Vec2::new(0.5, -0.5), "velocity");

    // In 3D, leaning up by 0.2: the nearest point of the cone lies on its ray at 45 degrees in
    // the plane of the offset and the velocity, the projection of (1, 0.2) on (1, 1) / sqrt 2.
    let e = lone_encounter(Vec3::new(2.0, 0.0, 0.0), Vec3::ZERO, 2f32.sqrt(), 1e4);
    let v = Vec3::new(1.0, 0.2, 0.0);
    let space = volume::half_space(&e, v, 0.1);
    assert_near(
        space.normal,
        Vec3::new(-1.0, 1.0, 0.0).normalize(),
        "normal",
    );
    let (chosen, relaxed) = volume::solve(&[space], 0, 2.0, v, &mut Vec::new());
    assert!(!relaxed, "the lone half-space is met");
    assert_near(chosen, Vec3::new(0.6, 0.6, 0.0), "velocity in 3D");
}

/// Two agents avoiding each other share the manoeuvre: each half-plane passes through the
/// agent's velocity plus its share of `u` (the -0.5 along x of the case above), and the two
/// shares add up to one, so that together they just clear.
#[test]
fn reciprocating_agents_split_the_change() {
    let mut e = lone_encounter(Vec2::new(2.0, 0.0), Vec2::ZERO, 1.0, 1.0);
    e.share = 0.8;
    let line = planar::half_plane(&e, Vec2::new(1.5, 0.0), 0.1);
    near2(line.point, Vec2::new(1.1, 0.0), "line point");
    for (i, j) in [(0, 1), (1, 0), (7, 3), (1_000, 999), (5, 5)] {
        let (mine, theirs) = (yielding_share(i, j), yielding_share(j, i));
        assert!(
            (mine + theirs - 1.0).abs() < 1e-6,
            "{i}, {j}: {mine} + {theirs}"
        );
        let expected: &[f32] = if i == j {
            &[0.5]
        } else {
            &[0.5 + 0.3, 0.5 - 0.3]
        };
        assert!(expected.contains(&mine), "{i}, {j}: {mine}");
    }
}

/// Half-planes that cannot all hold (neighbours closing from both sides) leave the velocity
/// that violates the worst of them least: with `v.x <= -1` and `v.x >= 1`, a speed of 0 along
/// x violates each by 1, the least possible.
#[test]
fn infeasible_half_planes_give_the_least_violating_velocity() {
    let lines = [
        planar::HalfPlane {
            point: Vec2::new(-1.0, 0.0),
            direction: Vec2::Y,
        },
        planar::HalfPlane {
            point: Vec2::new(1.0, 0.0),
            direction: -Vec2::Y,
        },
    ];
    let (chosen, relaxed) = planar::solve(&lines, 0, 5.0, Vec2::new(0.5, 0.3), &mut Vec::new());
    assert!(relaxed, "the half-planes conflict");
    assert!(chosen.x.abs() < 1e-5, "{chosen}");

    let spaces = [
        volume::HalfSpace {
            point: Vec3::new(-1.0, 0.0, 0.0),
            normal: -Vec3::X,
        },
        volume::HalfSpace {
            point: Vec3::new(1.0, 0.0, 0.0),
            normal: Vec3::X,
        },
    ];
    let (chosen, relaxed) =
        volume::solve(&spaces, 0, 5.0, Vec3::new(0.5, 0.3, 0.1), &mut Vec::new());
    assert!(relaxed, "the half-spaces conflict");
    assert!(chosen.x.abs() < 1e-5, "{chosen}");
}

/// The fixed half-planes (the contact bounds) hold where the program cannot meet the others:
/// `v.x <= 1` fixed, against `v.x >= 3` and `v.y >= 0.5` from neighbours, leaves `v.x = 1`, and
/// violates the others by no more than the 2 the first of them must be.
#[test]
fn fixed_half_planes_hold_when_the_others_cannot() {
    let lines = [
        planar::HalfPlane::at_most(Vec2::X, 1.0),
        planar::HalfPlane::at_most(-Vec2::X, -3.0),
        planar::HalfPlane::at_most(-Vec2::Y, -0.5),
    ];
    let (chosen, relaxed) = planar::solve(&lines, 1, 5.0, Vec2::new(4.0, 0.0), &mut Vec::new());
    assert!(relaxed, "the half-planes conflict");
    assert!(chosen.x <= 1.0 + 1e-5, "{chosen}");
    assert!(chosen.y >= 0.5 - 2.0 - 1e-5, "{chosen}");

    let spaces = [
        volume::HalfSpace::at_most(Vec3::X, 1.0),
        volume::HalfSpace::at_most(-Vec3::X, -3.0),
    ];
    let (chosen, relaxed) =
        volume::solve(&spaces, 1, 5.0, Vec3::new(4.0, 0.0, 0.0), &mut Vec::new());
    assert!(relaxed, "the half-spaces conflict");
    assert!(chosen.x <= 1.0 + 1e-5, "{chosen}");
}

/// Bodies 0.1 apart (centres 0.8 apart, radii summing to 0.7), a tick of 0.05 s: two that both
/// avoid may each close half the gap, at up to 0.5 * 0.1 / 0.05 = 1 toward the other; one that
/// does not avoid, moving away at 0.5, may be followed at 0.1 / 0.05 + 0.5 = 2.5, a bound that
/// a max speed of 2 never reaches.
#[test]
fn contact_bounds_split_the_gap_between_bodies() {
    let mut e = lone_encounter(Vec3::new(0.8, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), 0.7, 2.0);
    e.share = 0.5;
    let (n, bound) = contact(&e, 0.05, 2.0).expect("binds");
    assert_near(n, Vec3::X, "direction");
    assert!((bound - 1.0).abs() < 1e-5, "bound {bound}");
    e.share = 1.0;
    assert!(contact(&e, 0.05, 2.0).is_none());
    let (_, bound) = contact(&e, 0.05, 3.0).expect("binds under 3");
    assert!((bound - 2.5).abs() < 1e-5, "bound {bound}");
}

/// A small seeded generator for the random cases.
struct Draws(u64);

impl Draws {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn signed(&mut self, scale: f32) -> f32 {
        (self.unit() * 2.0 - 1.0) * scale
    }
}

/// Random encounters compared with the `dodgy` crates.
const CASES: usize = 2_000;

/// Whether our velocity and `dodgy`'s, each with the worst violation of the half-planes,
/// match; panics unless ours is at least as good: allowed wherever theirs is, and as near the
/// preferred velocity, or where none is allowed, violating no more.
fn judge(case: usize, preferred: Vec3, ours: (Vec3, f32), theirs: (Vec3, f32)) -> usize {
    const SLACK: f32 = 1e-4;
    if theirs.1 <= SLACK {
        assert!(
            ours.1 <= SLACK && ours.0.distance(preferred) <= theirs.0.distance(preferred) + SLACK,
            "case {case}: ours {ours:?}, dodgy's {theirs:?}, preferred {preferred}"
        );
    } else {
        assert!(
            ours.1 <= theirs.1 + SLACK,
            "case {case}: ours {ours:?} violates more than dodgy's {theirs:?}"
        );
    }
    usize::from(ours.0.distance(theirs.0) < 1e-3)
}

/// On random encounters (up to ten neighbours, some overlapping, none coincident), the chosen
/// velocity matches `dodgy_2d`'s when the neighbours do not reciprocate (`dodgy` gives an agent
/// all of a manoeuvre out of a velocity obstacle it is not yet inside, where the paper gives
/// half, so the reciprocal case differs by design).
#[test]
fn planar_choices_match_dodgy_2d() {
    let mut draws = Draws(7);
    let mut matches = 0;
    for case in 0..CASES {
        let velocity = Vec2::new(draws.signed(2.0), draws.signed(2.0));
        let preferred = Vec2::new(draws.signed(3.0), draws.signed(3.0));
        let (horizon, dt, max_speed) = (0.5 + draws.unit() * 3.0, 0.05, 2.5);
        let count = 1 + (draws.unit() * 10.0) as usize % 10;
        let neighbours: Vec<(Vec2, Vec2, f32)> = (0..count)
            .map(|_| {
                let offset = Vec2::new(draws.signed(4.0), draws.signed(4.0));
                let v = Vec2::new(draws.signed(2.0), draws.signed(2.0));
                (offset, v, 0.2 + draws.unit() * 0.5)
            })
            .filter(|(offset, ..)| offset.length() > 0.05)
            .collect();
        let own_radius = 0.3;
        let encounters: Vec<_> = neighbours
            .iter()
            .map(|&(offset, v, r)| {
                lone_encounter(offset.extend(0.0), v.extend(0.0), own_radius + r, horizon)
            })
            .collect();
        let mut lines = Vec::new();
        let movers = vec![velocity.extend(0.0); encounters.len()];
        let encounters = columns(&encounters, &movers);
        planar::half_planes(SimdPath::detect(), &encounters, dt, &mut lines);
        let (ours, _) = planar::solve(&lines, 0, max_speed, preferred, &mut Vec::new());

        let g = |v: Vec2| dodgy_2d::Vec2::new(v.x, v.y);
        let agent = dodgy_2d::Agent {
            position: dodgy_2d::Vec2::ZERO,
            velocity: g(velocity),
            radius: own_radius,
            avoidance_responsibility: 1.0,
        };
        let others: Vec<_> = neighbours
            .iter()
            .map(|&(offset, v, r)| {
                std::borrow::Cow::Owned(dodgy_2d::Agent {
                    position: g(offset),
                    velocity: g(v),
                    radius: r,
                    avoidance_responsibility: 0.0,
                })
            })
            .collect();
        let theirs = agent.compute_avoiding_velocity(
            &others,
            &[],
            g(preferred),
            max_speed,
            dt,
            &dodgy_2d::AvoidanceOptions {
                obstacle_margin: 0.0,
                time_horizon: horizon,
                obstacle_time_horizon: horizon,
            },
        );
        let theirs = Vec2::new(theirs.x, theirs.y);
        let worst = |v: Vec2| {
            lines
                .iter()
                .map(|l| l.direction.perp_dot(l.point - v))
                .fold(f32::MIN, f32::max)
        };
        matches += judge(
            case,
            preferred.extend(0.0),
            (ours.extend(0.0), worst(ours)),
            (theirs.extend(0.0), worst(theirs)),
        );
    }
    assert_eq!(matches, CASES, "ours and dodgy_2d's differ");
}

/// The same comparison in 3D, against `dodgy_3d`. Here a few answers differ: in those `dodgy_3d`
/// returns an allowed velocity further from the preferred one than ours, which is also allowed
/// (the program's optimum is unique, so ours is the optimum there).
#[test]
fn volume_choices_match_dodgy_3d() {
    let mut draws = Draws(11);
    let mut matches = 0;
    for case in 0..CASES {
        let mut vector = |scale: f32| {
            Vec3::new(
                draws.signed(scale),
                draws.signed(scale),
                draws.signed(scale),
            )
        };
        let velocity = vector(2.0);
        let preferred = vector(3.0);
        let (horizon, dt, max_speed) = (0.5 + draws.unit() * 3.0, 0.05, 2.5);
        let count = 1 + (draws.unit() * 10.0) as usize % 10;
        let neighbours: Vec<(Vec3, Vec3, f32)> = (0..count)
            .map(|_| {
                let offset = Vec3::new(draws.signed(4.0), draws.signed(4.0), draws.signed(4.0));
                let v = Vec3::new(draws.signed(2.0), draws.signed(2.0), draws.signed(2.0));
                (offset, v, 0.2 + draws.unit() * 0.5)
            })
            .filter(|(offset, ..)| offset.length() > 0.05)
            .collect();
        let own_radius = 0.3;
        let encounters: Vec<_> = neighbours
            .iter()
            .map(|&(offset, v, r)| lone_encounter(offset, v, own_radius + r, horizon))
            .collect();
        let mut spaces = Vec::new();
        let movers = vec![velocity; encounters.len()];
        let encounters = columns(&encounters, &movers);
        volume::half_spaces(SimdPath::detect(), &encounters, dt, &mut spaces);
        let (ours, _) = volume::solve(&spaces, 0, max_speed, preferred, &mut Vec::new());

        let g = |v: Vec3| dodgy_3d::Vec3::new(v.x, v.y, v.z);
        let agent = dodgy_3d::Agent {
            position: dodgy_3d::Vec3::ZERO,
            velocity: g(velocity),
            radius: own_radius,
            avoidance_responsibility: 1.0,
        };
        let others: Vec<_> = neighbours
            .iter()
            .map(|&(offset, v, r)| {
                std::borrow::Cow::Owned(dodgy_3d::Agent {
                    position: g(offset),
                    velocity: g(v),
                    radius: r,
                    avoidance_responsibility: 0.0,
                })
            })
            .collect();
        let theirs = agent.compute_avoiding_velocity(
            &others,
            g(preferred),
            max_speed,
            dt,
            &dodgy_3d::AvoidanceOptions {
                time_horizon: horizon,
            },
        );
        let theirs = Vec3::new(theirs.x, theirs.y, theirs.z);
        let worst = |v: Vec3| {
            spaces
                .iter()
                .map(|s| s.normal.dot(s.point - v))
                .fold(f32::MIN, f32::max)
        };
        matches += judge(
            case,
            preferred,
            (ours, worst(ours)),
            (theirs, worst(theirs)),
        );
    }
    assert!(
        matches >= CASES * 99 / 100,
        "only {matches} of {CASES} match"
    );
    println!("{matches} of {CASES} match dodgy_3d");
}

/// `e` with its vectors on the plane.
fn on_the_plane(e: &Encounter<Vec3>) -> Encounter<Vec2> {
    Encounter {
        offset: e.offset.truncate(),
        velocity: e.velocity.truncate(),
        radius: e.radius,
        horizon: e.horizon,
        share: e.share,
        fixed_apart: e.fixed_apart,
    }
}

/// The step's half-planes and half-spaces, eight at a time on lanes, are bit for bit those of
/// `planar::half_plane` and `volume::half_space` one at a time, on every path this processor
/// runs: in each of the three cases (nearest the cut-off, nearest the cone's legs,
/// overlapping), where the change has no direction (away from the neighbour then, or the fixed
/// direction where the two coincide), in groups of every length up to two full ones, and with
/// the encounters of one agent or of several (each lane with its own agent's velocity).
#[test]
fn half_spaces_on_lanes_match_one_at_a_time() {
    let mut draws = Draws(5);
    // For an agent moving at (1, 0, 0): overlapping, and closing at just the speed that
    // would bring the two together at the end of the tick of 0.1 s, so that the change has no
    // direction.
    let dt = 0.1;
    let still = Encounter {
        offset: Vec3::new(0.1, 0.0, 0.0),
        velocity: Vec3::ZERO,
        radius: 0.5,
        horizon: 2.0,
        share: 0.5,
        fixed_apart: Vec3::ZERO,
    };
    // On top of the agent, moving with it: the pair's fixed direction.
    let coincident = Encounter {
        offset: Vec3::ZERO,
        velocity: Vec3::X,
        fixed_apart: Vec3::new(0.0, 1.0, 0.0),
        ..still
    };
    let bits = |coordinates: &[f32]| coordinates.iter().map(|c| c.to_bits()).collect::<Vec<_>>();
    for space in [Space::Planar, Space::Volume] {
        let mut cases = [0; 3];
        let mut checked = 0;
        for count in 1..=2 * WIDTH {
            for _ in 0..40 {
                let vector = |draws: &mut Draws, scale: f32| {
                    let v = Vec3::new(
                        draws.signed(scale),
                        draws.signed(scale),
                        draws.signed(scale),
                    );
                    space.flat(v)
                };
                let mut encounters: Vec<_> = (0..count)
                    .map(|_| {
                        let offset = vector(&mut draws, 3.0);
                        Encounter {
                            offset,
                            velocity: vector(&mut draws, 2.0),
                            radius: 0.2 + draws.unit() * 1.3,
                            horizon: 0.5 + draws.unit() * 3.0,
                            share: 0.2 + draws.unit() * 0.8,
                            fixed_apart: Vec3::ZERO,
                        }
                    })
                    .collect();
                // One agent's encounters, or (as the step batches them) several agents'.
                let movers: Vec<Vec3> = if count % 3 == 0 {
                    encounters[count / 2] = still;
                    encounters[0] = coincident;
                    vec![Vec3::X; count]
                } else if count % 3 == 1 {
                    vec![vector(&mut draws, 2.0); count]
                } else {
                    (0..count).map(|_| vector(&mut draws, 2.0)).collect()
                };
                for (e, &velocity) in encounters.iter().zip(&movers) {
                    let (offset, relative) = (e.offset, velocity - e.velocity);
                    let w = relative - offset / e.horizon;
                    let along = w.dot(offset);
                    let r_sq = e.radius * e.radius;
                    cases[if offset.length_squared() <= r_sq {
                        2
                    } else if along < 0.0 && along * along > r_sq * w.length_squared() {
                        0
                    } else {
                        1
                    }] += 1;
                }
                let one_at_a_time: Vec<f32> = match space {
                    Space::Planar => encounters
                        .iter()
                        .zip(&movers)
                        .map(|(e, v)| planar::half_plane(&on_the_plane(e), v.truncate(), dt))
                        .flat_map(|l| [l.point.x, l.point.y, l.direction.x, l.direction.y])
                        .collect(),
                    Space::Volume => encounters
                        .iter()
                        .zip(&movers)
                        .map(|(e, &v)| volume::half_space(e, v, dt))
                        .flat_map(|h| [h.point.to_array(), h.normal.to_array()].concat())
                        .collect(),
                };
                let on_columns = columns(&encounters, &movers);
                for simd in SimdPath::supported() {
                    let on_lanes: Vec<f32> = match space {
                        Space::Planar => {
                            let mut lines = Vec::new();
                            planar::half_planes(simd, &on_columns, dt, &mut lines);
                            lines
                                .iter()
                                .flat_map(|l| [l.point.x, l.point.y, l.direction.x, l.direction.y])
                                .collect()
                        }
                        Space::Volume => {
                            let mut spaces = Vec::new();
                            volume::half_spaces(simd, &on_columns, dt, &mut spaces);
                            spaces
                                .iter()
                                .flat_map(|h| [h.point.to_array(), h.normal.to_array()].concat())
                                .collect()
                        }
                    };
                    assert_eq!(bits(&on_lanes), bits(&one_at_a_time), "{space:?} {simd:?}");
                    checked += count;
                }
            }
        }
        assert!(cases.iter().all(|&n| n > 250), "{space:?}: cases {cases:?}");
        assert!(checked >= 5_440, "{space:?}: {checked} checked");
    }
    for e in [still, coincident] {
        let apart = e.apart();
        assert_eq!(volume::half_space(&e, Vec3::X, dt).normal, apart);
        let line = planar::half_plane(&on_the_plane(&e), Vec2::X, dt);
        assert_eq!(line.direction, Vec2::new(apart.y, -apart.x));
    }
    assert_eq!(still.apart(), -Vec3::X);
    assert_eq!(coincident.apart(), Vec3::Y);
}

/// Agents that seek their targets at `speed` with bodies of `diameter`, avoiding each other
/// in `mode`: the preferred velocity is the target's desired velocity, reached in one tick of
/// `dt` (as the RVO2 library's examples set a preferred velocity).
fn swap_tuning(speed: f32, diameter: f32, dt: f32, mode: VelocityObstacles) -> FlockTuning {
    FlockTuning {
        weights: FlockWeights {
            separation: 0.0,
            alignment: 0.0,
            cohesion: 0.0,
            target: 1.0,
            style: RuleStyle::DesiredVelocity,
            ..Default::default()
        },
        limits: SteeringLimits {
            max_speed: speed,
            max_force: 1e6,
            response_time: dt,
            arrival_radius: 0.5,
            reach_radius: 0.2,
            ..Default::default()
        },
        perception: Perception {
            neighbour_radius: 4.0 * diameter.max(1.0),
            collision_distance: diameter,
            collision_horizon: 2.0,
            velocity_obstacles: mode,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// What a swap run measured.
#[derive(Debug)]
struct SwapRun {
    /// Deepest overlap of two bodies at any tick, as a share of the body radius.
    deepest_overlap: f32,
    /// Ticks until every agent was within its reach radius of its target, if all were.
    ticks_to_arrive: Option<usize>,
    /// Final positions and velocities, for determinism checks.
    state: Vec<(Vec3, Vec3)>,
}

/// Runs agents from `starts` to `targets` for at most `ticks`, re-pushing them each tick into
/// one crowd as the ECS layer does, on `executor`; measures overlaps by brute force.
fn run_swap(
    space: Space,
    starts: &[Vec3],
    targets: &[Vec3],
    tuning: FlockTuning,
    dt: f32,
    ticks: usize,
    executor: impl ChunkExecutor + Send + Sync + 'static,
) -> SwapRun {
    let diameter = tuning.perception.collision_distance;
    let mut state: Vec<(Vec3, Vec3)> = starts.iter().map(|&p| (p, Vec3::ZERO)).collect();
    let mut deepest = 0.0_f32;
    let mut arrived_at = None;
    let mut crowd = Crowd::new(space);
    crowd.set_executor(executor);
    for tick in 0..ticks {
        crowd.clear();
        let id = crowd.add_params(tuning);
        for (i, &(position, velocity)) in state.iter().enumerate() {
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: 0,
                params: id,
                target: Some(targets[i]),
            });
        }
        crowd.step(dt);
        for (i, s) in state.iter_mut().enumerate() {
            *s = (crowd.position(i), crowd.velocity(i));
        }
        for i in 0..state.len() {
            for j in i + 1..state.len() {
                let overlap = diameter - state[i].0.distance(state[j].0);
                deepest = deepest.max(overlap / (0.5 * diameter));
            }
        }
        let arrived = state
            .iter()
            .zip(targets)
            .all(|(s, t)| s.0.distance(*t) <= tuning.limits.reach_radius);
        if arrived {
            arrived_at = Some(tick + 1);
            break;
        }
    }
    SwapRun {
        deepest_overlap: deepest,
        ticks_to_arrive: arrived_at,
        state,
    }
}

/// `n` points on a circle of `radius` on the plane, and each one's opposite point.
fn circle(n: usize, radius: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let starts: Vec<Vec3> = (0..n)
        .map(|i| {
            let angle = i as f32 / n as f32 * core::f32::consts::TAU;
            Vec3::new(libm::cosf(angle), libm::sinf(angle), 0.0) * radius
        })
        .collect();
    let targets = starts.iter().map(|&p| -p).collect();
    (starts, targets)
}

/// `n` points spread over a sphere of `radius` (a Fibonacci lattice), and their antipodes.
fn sphere(n: usize, radius: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let golden = core::f32::consts::PI * (3.0 - 5f32.sqrt());
    let starts: Vec<Vec3> = (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
            let ring = (1.0 - y * y).sqrt();
            let angle = golden * i as f32;
            Vec3::new(libm::cosf(angle) * ring, y, libm::sinf(angle) * ring) * radius
        })
        .collect();
    let targets = starts.iter().map(|&p| -p).collect();
    (starts, targets)
}

/// The circle swap (100 agents to their opposite points, all crossing the centre at once):
/// solid agents never overlap by more than 1% of their radius and everyone arrives; without
/// the step, the same crowd piles through itself.
#[test]
fn the_circle_swap_passes_without_overlap() {
    let (starts, targets) = circle(100, 20.0);
    let dt = 0.05;
    let avoiding = run_swap(
        Space::Planar,
        &starts,
        &targets,
        swap_tuning(2.0, 0.7, dt, VelocityObstacles::Solid),
        dt,
        3_000,
        Serial,
    );
    assert!(
        avoiding.deepest_overlap <= 0.01,
        "overlap {:.4} of the radius",
        avoiding.deepest_overlap
    );
    assert!(avoiding.ticks_to_arrive.is_some(), "not all arrived");

    let ignoring = run_swap(
        Space::Planar,
        &starts,
        &targets,
        swap_tuning(2.0, 0.7, dt, VelocityObstacles::Off),
        dt,
        3_000,
        Serial,
    );
    assert!(
        ignoring.deepest_overlap > 1.0,
        "without the step, overlap only {:.4}",
        ignoring.deepest_overlap
    );
}

/// ORCA as the paper has it lets bodies overlap where the crowd leaves no room (in the circle
/// swap at the plugin's 64 ticks a second, by 0.13 of the radius when measured); with the
/// program's margin and the larger shares (see `as_programmed`) no two bodies overlap by more
/// than 1% of the radius (none at all when measured), and everyone arrives.
#[test]
fn reciprocal_agents_swap_without_overlap() {
    let (starts, targets) = circle(100, 20.0);
    let dt = 1.0 / 64.0;
    let run = run_swap(
        Space::Planar,
        &starts,
        &targets,
        swap_tuning(2.0, 0.7, dt, VelocityObstacles::Reciprocal),
        dt,
        8_000,
        Serial,
    );
    assert!(run.ticks_to_arrive.is_some(), "not all arrived");
    assert!(
        run.deepest_overlap <= 0.01,
        "overlap {:.4} of the radius",
        run.deepest_overlap
    );
}

/// The swap on a sphere in 3D, 100 agents to their antipodes.
#[test]
fn the_sphere_swap_passes_without_overlap() {
    let (starts, targets) = sphere(100, 10.0);
    let dt = 0.05;
    let run = run_swap(
        Space::Volume,
        &starts,
        &targets,
        swap_tuning(2.0, 0.7, dt, VelocityObstacles::Solid),
        dt,
        3_000,
        Serial,
    );
    assert!(
        run.deepest_overlap <= 0.01,
        "overlap {:.4} of the radius",
        run.deepest_overlap
    );
    assert!(run.ticks_to_arrive.is_some(), "not all arrived");
}

/// The step takes four agents at a time and computes their half-spaces together, eight lanes
/// holding the encounters of up to two agents: each agent's choice is bit for bit the one it
/// gets alone (and in batches of three, which fall differently), in crowds where a batch mixes
/// agents that avoid with `Reciprocal`, with `Solid` (whose contact bounds come first in their
/// program), not at all, and with no neighbour near, on the plane and in 3D, on every path.
#[test]
fn agents_chosen_together_choose_as_they_would_alone() {
    let dt = 0.05;
    for space in [Space::Planar, Space::Volume] {
        for simd in SimdPath::supported() {
            let mut crowd = Crowd::new(space);
            crowd.set_simd_path(simd);
            let modes = [
                VelocityObstacles::Reciprocal,
                VelocityObstacles::Solid,
                VelocityObstacles::Reciprocal,
                VelocityObstacles::Off,
            ];
            let params = modes.map(|mode| crowd.add_params(swap_tuning(2.0, 0.7, dt, mode)));
            // A dense blob (up to ten neighbours each), and stragglers far apart.
            let mut positions = random_positions(300, 6.0, 11);
            positions.extend((0..20).map(|k| Vec3::new(100.0 + 30.0 * k as f32, 0.0, 0.0)));
            let velocities = random_positions(positions.len(), 4.0, 12);
            for (k, &position) in positions.iter().enumerate() {
                crowd.push(AgentInput {
                    position: space.flat(position),
                    velocity: space.flat(velocities[k]),
                    heading: Vec3::ZERO,
                    flock: 0,
                    params: params[k % modes.len()],
                    target: Some(space.flat(-position)),
                });
            }
            crowd.build_index();
            crowd.accumulate_forces();
            crowd.integrate(dt, None);
            let alone =
                (crowd.velocity_inputs()).choices_in_batches_of_among(1, dt, crowd.obstacles());
            let bits = |(v, overlap): (Vec3, bool)| (v.to_array().map(f32::to_bits), overlap);
            for batch in [3, 4] {
                let together = (crowd.velocity_inputs()).choices_in_batches_of_among(
                    batch,
                    dt,
                    crowd.obstacles(),
                );
                let differs = (0..alone.len()).find(|&s| bits(together[s]) != bits(alone[s]));
                assert_eq!(differs, None, "{space:?} {simd:?}, {batch} at a time: slot");
            }
            // The crowd had all the kinds of agent a batch can mix.
            let moved = alone.iter().filter(|(v, _)| v.length() > 0.0).count();
            let preferred = &crowd.velocity_step.preferred;
            let changed = (0..crowd.len())
                .filter(|&slot| {
                    let index = crowd.index.gathered[slot].index as usize;
                    alone[slot].0 != preferred[index]
                })
                .count();
            assert!(
                moved > 300 && changed > 100,
                "{space:?}: {moved} moved, {changed} avoided"
            );
        }
    }
}

/// Each agent's choice reads only the tick's start (and each contact round only the last
/// round's choices), so any thread count gives the same bits.
#[test]
fn the_step_is_identical_on_any_thread_count() {
    let starts = random_positions(300, 12.0, 5);
    let targets: Vec<Vec3> = starts.iter().map(|&p| -p).collect();
    let dt = 0.05;
    for mode in [VelocityObstacles::Solid, VelocityObstacles::Reciprocal] {
        let tuning = swap_tuning(2.0, 0.7, dt, mode);
        let serial = run_swap(Space::Volume, &starts, &targets, tuning, dt, 60, Serial);
        for threads in [2, 3, 8] {
            let threaded = run_swap(
                Space::Volume,
                &starts,
                &targets,
                tuning,
                dt,
                60,
                ScopedThreads(threads),
            );
            assert!(
                threaded.state == serial.state,
                "{mode:?}: {threads} threads differ from one"
            );
        }
    }
}

/// An agent that avoids passes one that does not by making the whole manoeuvre itself: the
/// other's path stays straight, and the two never overlap.
#[test]
fn an_agent_avoids_one_that_does_not_on_its_own() {
    let dt = 0.05;
    let mut crowd_state = [
        (Vec3::new(-10.0, 0.0, 0.0), Vec3::ZERO),
        (Vec3::new(10.0, 0.01, 0.0), Vec3::ZERO),
    ];
    let targets = [Vec3::new(10.0, 0.0, 0.0), Vec3::new(-10.0, 0.01, 0.0)];
    let mut closest = f32::INFINITY;
    let mut furthest_off_course = 0.0_f32;
    for _ in 0..400 {
        let mut crowd = Crowd::new(Space::Planar);
        let avoider = crowd.add_params(swap_tuning(2.0, 0.7, dt, VelocityObstacles::Reciprocal));
        let walker = crowd.add_params(swap_tuning(2.0, 0.7, dt, VelocityObstacles::Off));
        for (i, &(position, velocity)) in crowd_state.iter().enumerate() {
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: 0,
                params: if i == 0 { avoider } else { walker },
                target: Some(targets[i]),
            });
        }
        crowd.step(dt);
        for (i, s) in crowd_state.iter_mut().enumerate() {
            *s = (crowd.position(i), crowd.velocity(i));
        }
        closest = closest.min(crowd_state[0].0.distance(crowd_state[1].0));
        furthest_off_course = furthest_off_course.max((crowd_state[1].0.y - 0.01).abs());
    }
    assert!(closest >= 0.7 * 0.99, "came within {closest}");
    assert!(
        furthest_off_course < 1e-4,
        "the walker left its line by {furthest_off_course}"
    );
    assert!(
        crowd_state[0].0.distance(targets[0]) < 0.5,
        "the avoider did not arrive"
    );
}

/// Two reciprocal agents face each other 0.02 apart (bodies 0.7 across, centres 0.72 apart),
/// each pushed from behind by a walker at 1.3 that does not avoid, just as near. No velocity
/// keeps clear of everyone for the horizon, and the least violating ones ORCA gives carry the
/// two into each other (measured: by 0.013 of the radius). In contact, they choose again with
/// contact bounds, which at 64 ticks a second allow each to close its share (0.8 or 0.2) of
/// the gap, 0.02 * 64 * share, and ask 1.3 - 0.02 * 64 = 0.02 away from its walker: no two
/// bodies end the tick overlapping.
#[test]
fn agents_in_contact_keep_to_their_share_of_the_gap() {
    let dt = 1.0 / 64.0;
    let mut crowd = Crowd::new(Space::Planar);
    let pressed = crowd.add_params(swap_tuning(2.0, 0.7, dt, VelocityObstacles::Reciprocal));
    let walker = crowd.add_params(swap_tuning(1.3, 0.7, dt, VelocityObstacles::Off));
    let east = Vec3::new(100.0, 0.0, 0.0);
    let agents = [
        (Vec3::X * -0.36, Vec3::ZERO, pressed, east),
        (Vec3::X * 0.36, Vec3::ZERO, pressed, -east),
        (Vec3::X * -1.08, Vec3::X * 1.3, walker, east),
        (Vec3::X * 1.08, Vec3::X * -1.3, walker, -east),
    ];
    for (position, velocity, params, target) in agents {
        crowd.push(AgentInput {
            position,
            velocity,
            heading: Vec3::X,
            flock: 0,
            params,
            target: Some(target),
        });
    }
    crowd.step(dt);
    for (i, ahead) in [(0, Vec3::X), (1, -Vec3::X)] {
        let closing = crowd.velocity(i).dot(ahead);
        let share = yielding_share(i as u32, 1 - i as u32);
        let most = share * 0.02 * 64.0;
        assert!(
            closing <= most + 1e-4,
            "{i} closes at {closing}, over {most}"
        );
        assert!(closing >= 0.02 - 1e-4, "{i} leaves its walker at {closing}");
    }
    for i in 0..agents.len() {
        for j in i + 1..agents.len() {
            let apart = crowd.position(i).distance(crowd.position(j));
            assert!(apart >= 0.7 * (1.0 - 1e-5), "{i} and {j} end {apart} apart");
        }
    }
}

/// Two agents meeting exactly head on pass each other, without touching and with little detour.
#[test]
fn head_on_agents_pass() {
    let starts = [Vec3::new(-10.0, 0.0, 0.0), Vec3::new(10.0, 0.0, 0.0)];
    let targets = [starts[1], starts[0]];
    let dt = 0.05;
    let run = run_swap(
        Space::Planar,
        &starts,
        &targets,
        swap_tuning(2.0, 0.7, dt, VelocityObstacles::Solid),
        dt,
        1_000,
        Serial,
    );
    assert!(
        run.deepest_overlap <= 0.001,
        "overlap {}",
        run.deepest_overlap
    );
    let ticks = run.ticks_to_arrive.expect("both arrive");
    // 20 units at 2 a second is 200 ticks, and the arrival slows the last half unit.
    assert!(ticks < 260, "{ticks} ticks");
}

/// `side` points a side (a square on the plane, a cube in 3D) `spacing` apart, from the origin.
fn lattice(space: Space, side: usize, spacing: f32) -> Vec<Vec3> {
    let layers = if space == Space::Volume { side } else { 1 };
    (0..side * side * layers)
        .map(|k| {
            let (x, y, z) = (k / (side * layers), k / layers % side, k % layers);
            Vec3::new(x as f32, y as f32, z as f32) * spacing
        })
        .collect()
}

/// Starting apart on a lattice, a dense crowd sent to random points never overlaps: each agent
/// keeps to its contact bounds, so no two bodies end a tick inside each other.
#[test]
fn bodies_never_overlap_in_a_dense_crowd() {
    for space in [Space::Planar, Space::Volume] {
        let side = match space {
            Space::Planar => 16,
            Space::Volume => 6,
        };
        let starts = lattice(space, side, 0.75);
        let extent = side as f32 * 0.75;
        let targets: Vec<Vec3> = random_positions(starts.len(), extent, 3)
            .into_iter()
            .map(|p| space.flat(p))
            .collect();
        let dt = 0.05;
        let run = run_swap(
            space,
            &starts,
            &targets,
            swap_tuning(2.0, 0.7, dt, VelocityObstacles::Solid),
            dt,
            200,
            Serial,
        );
        assert!(
            run.deepest_overlap <= 1e-3,
            "{space:?}: overlap {} of the radius",
            run.deepest_overlap
        );
    }
}

/// Agents pressing into a ring round the circle's centre, where each blocks the next, get
/// through: some yield, the blocked step aside, and everyone arrives (at the plugin's 64 ticks
/// a second too, where the contact bounds leave less room a tick).
#[test]
fn rings_of_blocked_agents_unwind() {
    for (n, radius, dt) in [
        (12, 3.0, 1.0 / 64.0),
        (24, 6.0, 1.0 / 64.0),
        (16, 20.0, 1.0 / 64.0),
    ] {
        let (starts, targets) = circle(n, radius);
        let run = run_swap(
            Space::Planar,
            &starts,
            &targets,
            swap_tuning(2.0, 0.7, dt, VelocityObstacles::Solid),
            dt,
            4_000,
            Serial,
        );
        assert!(
            run.ticks_to_arrive.is_some(),
            "{n} on a circle of {radius} did not all arrive"
        );
        assert!(
            run.deepest_overlap <= 1e-3,
            "{n}: overlap {}",
            run.deepest_overlap
        );
    }
}

/// Worked cases of the shares by priority: `other / (own + other)`, so priorities 4 and 1 take
/// a fifth and four fifths, and equal ones fall back to the fixed ranking's 0.8 and 0.2.
#[test]
fn priorities_split_each_manoeuvre() {
    let (high, low) = (
        manoeuvre_share((1, 4.0), (2, 1.0)),
        manoeuvre_share((2, 1.0), (1, 4.0)),
    );
    assert!((high - 0.2).abs() < 1e-6, "priority 4 takes {high}");
    assert!((low - 0.8).abs() < 1e-6, "priority 1 takes {low}");
    assert_eq!(manoeuvre_share((3, 0.5), (9, 0.5)), yielding_share(3, 9));
    for (p_i, p_j) in [(1.0, 3.0), (1e-30, 1.0), (1e15, 1e15 * 0.5), (0.25, 7.0)] {
        let sum = manoeuvre_share((0, p_i), (1, p_j)) + manoeuvre_share((1, p_j), (0, p_i));
        assert!(
            (sum - 1.0).abs() < 1e-6,
            "{p_i} and {p_j}: shares sum to {sum}"
        );
    }
}

/// The program widens each pair's summed radii by the margin and doubles the agent's share, at
/// most all of it: worked by hand for 0.7 and the shares 0.2, 0.5, 0.8 and 1.
#[test]
fn the_program_keeps_a_margin_and_takes_more_than_its_share() {
    for (share, taken) in [(0.2, 0.4), (0.5, 1.0), (0.8, 1.0), (1.0, 1.0)] {
        let mut e = lone_encounter(Vec3::X, Vec3::ZERO, 0.7, 1.5);
        e.share = share;
        let programmed = as_programmed(&e);
        assert!((programmed.radius - 0.735).abs() < 1e-6, "{programmed:?}");
        assert!(
            (programmed.share - taken).abs() < 1e-6,
            "{share}: {programmed:?}"
        );
        assert_eq!(
            (programmed.offset, programmed.horizon),
            (e.offset, e.horizon)
        );
    }
}

/// What a head-on meeting of two agents measured.
#[derive(Debug)]
struct Passing {
    /// The nearest the two centres came.
    closest: f32,
    /// How far each strayed across its straight line.
    detour: [f32; 2],
    /// Whether each reached its target.
    arrived: [bool; 2],
}

/// Two agents, tuned `first` and `second`, walk head on from x = -10 and x = 10 (the second a
/// hundredth off the first's line) to each other's start, at 0.05 s ticks.
fn pass_head_on(first: FlockTuning, second: FlockTuning) -> Passing {
    let dt = 0.05;
    let starts = [Vec3::new(-10.0, 0.0, 0.0), Vec3::new(10.0, 0.01, 0.0)];
    let targets = [Vec3::new(10.0, 0.0, 0.0), Vec3::new(-10.0, 0.01, 0.0)];
    let mut state = starts.map(|p| (p, Vec3::ZERO));
    let mut passing = Passing {
        closest: f32::INFINITY,
        detour: [0.0; 2],
        arrived: [false; 2],
    };
    for _ in 0..400 {
        let mut crowd = Crowd::new(Space::Planar);
        let ids = [crowd.add_params(first), crowd.add_params(second)];
        for (i, &(position, velocity)) in state.iter().enumerate() {
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: 0,
                params: ids[i],
                target: Some(targets[i]),
            });
        }
        crowd.step(dt);
        for (i, s) in state.iter_mut().enumerate() {
            *s = (crowd.position(i), crowd.velocity(i));
            passing.detour[i] = passing.detour[i].max((s.0.y - starts[i].y).abs());
        }
        passing.closest = passing.closest.min(state[0].0.distance(state[1].0));
    }
    passing.arrived = [0, 1].map(|i| state[i].0.distance(targets[i]) < 0.5);
    passing
}

/// A tuning for [`pass_head_on`]: Reciprocal, with `priority`, in `layers`, avoiding `mask`.
fn manners(priority: f32, layers: u32, mask: u32) -> FlockTuning {
    let mut tuning = swap_tuning(2.0, 0.7, 0.05, VelocityObstacles::Reciprocal);
    tuning.perception.avoidance_priority = priority;
    tuning.perception.avoidance_layers = layers;
    tuning.perception.avoidance_mask = mask;
    tuning
}

/// Of two agents meeting head on, the one of lower priority gives most of the way: with
/// priorities 4 and 1 their shares are a fifth and four fifths, which the program doubles (at
/// most all of it: see `as_programmed`) to two fifths and all, so the lower strays about two
/// and a half times as far (measured: 0.53 and 0.21), whichever of the two it is, and they
/// still pass clear.
#[test]
fn the_lower_priority_gives_way() {
    for (first, second) in [(4.0, 1.0), (1.0, 4.0)] {
        let run = pass_head_on(manners(first, 1, u32::MAX), manners(second, 1, u32::MAX));
        assert!(run.closest >= 0.7 * 0.99, "came within {}", run.closest);
        assert_eq!(run.arrived, [true, true]);
        let (high, low) = if first > second {
            (run.detour[0], run.detour[1])
        } else {
            (run.detour[1], run.detour[0])
        };
        assert!(
            (2.0 * high..=3.0 * high).contains(&low),
            "priorities {first} and {second}: detours {:?}",
            run.detour
        );
    }
}

/// Layers decide who avoids whom: an agent whose mask leaves out the other's layer walks
/// straight while the other makes the whole manoeuvre; where neither avoids the other, or one
/// is in no layer at all, they walk through each other.
#[test]
fn layers_choose_who_avoids_whom() {
    let one_way = pass_head_on(manners(1.0, 0b01, 0b01), manners(1.0, 0b10, u32::MAX));
    assert!(
        one_way.closest >= 0.7 * 0.99,
        "came within {}",
        one_way.closest
    );
    assert!(
        one_way.detour[0] < 1e-2,
        "the first strayed {:?}",
        one_way.detour
    );
    assert!(
        one_way.detour[1] > 0.3,
        "the second strayed {:?}",
        one_way.detour
    );
    assert_eq!(one_way.arrived, [true, true]);

    let neither = pass_head_on(manners(1.0, 0b01, 0b01), manners(1.0, 0b10, 0b10));
    let ghost = pass_head_on(manners(1.0, 0, u32::MAX), manners(1.0, 0, u32::MAX));
    for run in [neither, ghost] {
        assert!(run.closest < 0.1, "they avoided each other: {run:?}");
        assert!(run.detour.iter().all(|&d| d < 1e-2), "{run:?}");
    }
}

/// A dense crowd of solid agents of two sizes (diameters 0.5 and 1) and two priorities (1 and
/// 3), mixed, sent to random points: bodies still never end a tick inside each other, since
/// each pair's shares add up to one whatever its priorities, and each pair's radii are summed.
#[test]
fn solid_bodies_of_mixed_sizes_and_priorities_never_overlap() {
    for space in [Space::Planar, Space::Volume] {
        let side = match space {
            Space::Planar => 12,
            Space::Volume => 5,
        };
        let starts = lattice(space, side, 1.1);
        let targets: Vec<Vec3> = random_positions(starts.len(), side as f32 * 1.1, 5)
            .into_iter()
            .map(|p| space.flat(p))
            .collect();
        let dt = 0.05;
        let tunings: Vec<FlockTuning> = (0..starts.len())
            .map(|i| {
                let diameter = if i % 2 == 0 { 0.5 } else { 1.0 };
                let mut tuning = swap_tuning(2.0, diameter, dt, VelocityObstacles::Solid);
                tuning.perception.neighbour_radius = 4.0;
                tuning.perception.avoidance_priority = if i % 3 == 0 { 3.0 } else { 1.0 };
                tuning
            })
            .collect();
        let mut state: Vec<(Vec3, Vec3)> = starts.iter().map(|&p| (p, Vec3::ZERO)).collect();
        let mut deepest = 0.0_f32;
        let mut travelled = 0.0_f32;
        for _ in 0..200 {
            let mut crowd = Crowd::new(space);
            for (i, &(position, velocity)) in state.iter().enumerate() {
                let params = crowd.add_params(tunings[i]);
                crowd.push(AgentInput {
                    position,
                    velocity,
                    heading: Vec3::ZERO,
                    flock: 0,
                    params,
                    target: Some(targets[i]),
                });
            }
            crowd.step(dt);
            for (i, s) in state.iter_mut().enumerate() {
                travelled += crowd.position(i).distance(s.0);
                *s = (crowd.position(i), crowd.velocity(i));
            }
            for i in 0..state.len() {
                let r_i = 0.5 * tunings[i].perception.collision_distance;
                for j in i + 1..state.len() {
                    let r_j = 0.5 * tunings[j].perception.collision_distance;
                    let overlap = r_i + r_j - state[i].0.distance(state[j].0);
                    deepest = deepest.max(overlap / r_i.min(r_j));
                }
            }
        }
        assert!(
            deepest <= 1e-3,
            "{space:?}: overlap {deepest} of the smaller radius"
        );
        // They did move: the bound is not met by standing still.
        let mean = travelled / starts.len() as f32;
        assert!(mean > 2.0, "{space:?}: each moved {mean} on average");
    }
}

/// A crowd scenario on the plane: where agents start and go, and optionally a wall along x = 0
/// with a door this wide in it, centred on y = 0 (agents west of it head for the door first).
struct Scenario {
    starts: Vec<Vec3>,
    goals: Vec<Vec3>,
    door: Option<f32>,
}

/// What a scenario run measured.
#[derive(Debug)]
struct ScenarioRun {
    /// Deepest overlap of two bodies at any tick, as a share of the body radius.
    deepest_overlap: f32,
    /// How many agents were within their reach radius of their goal at the end.
    arrived: usize,
    /// Seconds until all had arrived, if they all did.
    seconds: Option<f32>,
    /// How far any agent's centre got into the wall.
    deepest_in_wall: f32,
}

/// The wall's half thickness.
const HALF_WALL: f32 = 0.25;

/// `n` agents in a block of rows 1 apart west of the door, each sent to its place east of it.
fn bottleneck(n: usize, door: f32) -> Scenario {
    let (starts, goals) = (0..n)
        .map(|k| {
            let start = Vec3::new(-4.0 - (k / 20) as f32, (k % 20) as f32 - 9.5, 0.0);
            (start, Vec3::new(4.0 - start.x, start.y, 0.0))
        })
        .unzip();
    Scenario {
        starts,
        goals,
        door: Some(door),
    }
}

/// Two blocks of `n` agents 1.2 apart in rows of 10, one walking east and one north, crossing
/// round the origin.
fn crossing_streams(n: usize) -> Scenario {
    let (mut starts, mut goals) = (Vec::new(), Vec::new());
    for k in 0..n {
        let (lane, rank) = ((k % 10) as f32 - 4.5, (k / 10) as f32);
        let east = Vec3::new(-12.0 - rank * 1.2, lane * 1.2, 0.0);
        let north = Vec3::new(lane * 1.2, -12.0 - rank * 1.2, 0.0);
        starts.extend([east, north]);
        goals.extend([east + Vec3::X * 30.0, north + Vec3::Y * 30.0]);
    }
    Scenario {
        starts,
        goals,
        door: None,
    }
}

/// Runs `scenario` with every agent tuned `tuning`, on one crowd kept between ticks (the
/// plugin's way), for at most `seconds`; measures overlaps by brute force.
fn run_scenario(scenario: &Scenario, tuning: FlockTuning, dt: f32, seconds: f32) -> ScenarioRun {
    let diameter = tuning.perception.collision_distance;
    let reach = tuning.limits.reach_radius;
    let mut state: Vec<(Vec3, Vec3)> = scenario.starts.iter().map(|&p| (p, Vec3::ZERO)).collect();
    let mut crowd = Crowd::new(Space::Planar);
    if let Some(door) = scenario.door {
        let half = Vec3::new(HALF_WALL, 25.0, 1.0);
        crowd.set_obstacles([1.0, -1.0].map(|side| Shape::Box {
            centre: Vec3::new(0.0, side * (0.5 * door + half.y), 0.0),
            half_extents: half,
            rotation: glam::Quat::IDENTITY,
        }));
    }
    let mut run = ScenarioRun {
        deepest_overlap: 0.0,
        arrived: 0,
        seconds: None,
        deepest_in_wall: 0.0,
    };
    for tick in 1..=(seconds / dt) as usize {
        crowd.clear();
        let params = crowd.add_params(tuning);
        for (&(position, velocity), &goal) in state.iter().zip(&scenario.goals) {
            let target = match scenario.door {
                // West of the wall: through the door, keeping half a metre off its sides.
                Some(door) if position.x < 0.5 => {
                    let edge = (0.5 * door - 0.5).max(0.0);
                    Vec3::new(1.0, position.y.clamp(-edge, edge), 0.0)
                }
                _ => goal,
            };
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: 0,
                params,
                target: Some(target),
            });
        }
        crowd.step(dt);
        for (i, s) in state.iter_mut().enumerate() {
            *s = (crowd.position(i), crowd.velocity(i));
        }
        for i in 0..state.len() {
            let p = state[i].0;
            if let Some(door) = scenario.door
                && p.y.abs() > 0.5 * door
            {
                run.deepest_in_wall = run.deepest_in_wall.max(HALF_WALL - p.x.abs());
            }
            for other in &state[i + 1..] {
                let overlap = diameter - p.distance(other.0);
                run.deepest_overlap = run.deepest_overlap.max(overlap / (0.5 * diameter));
            }
        }
        run.arrived = state
            .iter()
            .zip(&scenario.goals)
            .filter(|(s, g)| s.0.distance(**g) <= reach)
            .count();
        if run.arrived == state.len() {
            run.seconds = Some(tick as f32 * dt);
            break;
        }
    }
    run
}

/// The scenarios' tuning: seek at 2 m/s, reaching the desired velocity in a quarter of a
/// second, with bodies 0.7 across, in `mode`.
fn crowd_tuning(mode: VelocityObstacles) -> FlockTuning {
    let mut tuning = swap_tuning(2.0, 0.7, 0.25, mode);
    tuning.limits.max_force = 16.0;
    tuning.limits.arrival_radius = 1.0;
    tuning.limits.reach_radius = 0.25;
    tuning.perception.neighbour_radius = 4.0;
    tuning
}

/// A hundred agents in a block squeeze through a door 2 wide (under three bodies) in a wall:
/// with `Reciprocal` all of them pass (measured: in 121 s of 64 Hz ticks; 157 s without the
/// contact rounds, and 88 s before the program kept its margin and larger shares), none through
/// the wall, and bodies overlap by at most 1% of the radius (measured: not at all; 0.11 without
/// the contact rounds); `Solid` bodies never
/// overlap even against the door's sides (the wall bounds the velocity like a neighbour does,
/// so the move is never cut short and slid into someone), but they jam (measured: 53 through
/// in two minutes).
#[test]
fn a_crowd_passes_a_door() {
    let dt = 1.0 / 64.0;
    let door = bottleneck(100, 2.0);
    let reciprocal = run_scenario(
        &door,
        crowd_tuning(VelocityObstacles::Reciprocal),
        dt,
        200.0,
    );
    assert!(reciprocal.seconds.is_some(), "{reciprocal:?}");
    assert!(reciprocal.deepest_overlap <= 0.01, "{reciprocal:?}");
    let solid = run_scenario(&door, crowd_tuning(VelocityObstacles::Solid), dt, 120.0);
    assert!(solid.deepest_overlap <= 1e-3, "{solid:?}");
    assert!(solid.arrived >= 40, "{solid:?}");
    for run in [reciprocal, solid] {
        assert_eq!(run.deepest_in_wall, 0.0, "{run:?}");
    }
}

/// Two streams of a hundred cross at right angles: without avoidance bodies pass through each
/// other (overlapping by most of a radius); with `Reciprocal` everyone crosses, overlapping
/// by at most 1% of the radius (measured: not at all, 0.07 before the program kept its margin
/// and larger shares); `Solid` bodies never overlap, and nearly everyone crosses within two
/// minutes (measured: 194 of 200).
#[test]
fn crossing_streams_pass() {
    let dt = 1.0 / 64.0;
    let streams = crossing_streams(100);
    let off = run_scenario(&streams, crowd_tuning(VelocityObstacles::Off), dt, 60.0);
    assert!(off.deepest_overlap > 1.0, "{off:?}");
    let reciprocal = run_scenario(
        &streams,
        crowd_tuning(VelocityObstacles::Reciprocal),
        dt,
        120.0,
    );
    assert!(reciprocal.seconds.is_some(), "{reciprocal:?}");
    assert!(reciprocal.deepest_overlap <= 0.01, "{reciprocal:?}");
    let solid = run_scenario(&streams, crowd_tuning(VelocityObstacles::Solid), dt, 120.0);
    assert!(solid.deepest_overlap <= 1e-3, "{solid:?}");
    assert!(solid.arrived >= 180, "{solid:?}");
}

/// By grid slot, the neighbours each agent of `crowd` avoids, as a sort of every pair finds
/// them: of those within `radius` (across the seams of a wrapping cube of side `size` too) and
/// in its mask's layers, the ten nearest, nearest first and ties by slot, with their offsets.
/// Also counts the ties among them and those across seams.
fn ten_nearest_by_sorting(
    crowd: &Crowd,
    radius: f32,
    size: f32,
) -> (Vec<Vec<(usize, Vec3)>>, usize, usize) {
    let gathered = &crowd.index.gathered;
    let shifts: Vec<Vec3> = (0..27)
        .map(|k| Vec3::new((k % 3) as f32, (k / 3 % 3) as f32, (k / 9) as f32) - 1.0)
        .map(|s| s * size)
        .collect();
    let (mut ties, mut across_seams) = (0, 0);
    let mut nearest = Vec::new();
    for slot in 0..gathered.len() {
        let own = &crowd.params[gathered[slot].params as usize]
            .params
            .perception;
        let position = gathered[slot].body.position;
        let mut expected: Vec<(u32, usize, Vec3)> = (0..gathered.len())
            .filter(|&other| other != slot)
            .filter(|&other| {
                let theirs = &crowd.params[gathered[other].params as usize]
                    .params
                    .perception;
                own.avoidance_mask & theirs.avoidance_layers != 0
            })
            .filter_map(|other| {
                let to = |shift: &Vec3| gathered[other].body.position - (position + *shift);
                let within = |o: &Vec3| o.length_squared() <= radius * radius;
                let offset = shifts.iter().map(to).find(within)?;
                Some((offset.length_squared().to_bits(), other, offset))
            })
            .collect();
        expected.sort_by_key(|&(dist, other, _)| (dist, other));
        ties += expected.windows(2).filter(|w| w[0].0 == w[1].0).count();
        expected.truncate(MOST_AGENTS_AVOIDED);
        let direct = |&&(_, other, offset): &&(u32, usize, Vec3)| {
            offset == gathered[other].body.position - position
        };
        across_seams += expected.iter().filter(|e| !direct(e)).count();
        nearest.push(expected.iter().map(|&(_, o, v)| (o, v)).collect());
    }
    (nearest, ties, across_seams)
}

/// Agents at `positions`, standing still, agent `i` with parameter set `tunings[params(i)]`.
fn standing_crowd(
    space: Space,
    tunings: &[FlockTuning],
    positions: &[Vec3],
    params: impl Fn(usize) -> usize,
) -> Crowd {
    let mut crowd = Crowd::new(space);
    let ids: Vec<_> = tunings.iter().map(|t| crowd.add_params(*t)).collect();
    for (i, &position) in positions.iter().enumerate() {
        crowd.push(AgentInput {
            position,
            velocity: Vec3::ZERO,
            heading: Vec3::ZERO,
            flock: 0,
            params: ids[params(i)],
            target: None,
        });
    }
    crowd
}

/// Random points in a cube of half-side `half`, and a coarse lattice, which makes many ties.
fn points_with_ties(half: f32) -> Vec<Vec3> {
    let mut positions = random_positions(300, half, 7);
    positions.extend(
        lattice(Space::Volume, 6, 2.0)
            .iter()
            .map(|p| *p - half + 1.0),
    );
    positions
}

/// Reciprocal agents with neighbour radius `radius` in a wrapping cube of half-side `half`.
fn wrapping_tuning(half: f32, radius: f32) -> FlockTuning {
    let mut tuning = swap_tuning(2.0, 0.7, 0.05, VelocityObstacles::Reciprocal);
    tuning.perception.neighbour_radius = radius;
    tuning.boundary = Boundary::Wrap {
        min: Vec3::splat(-half),
        max: Vec3::splat(half),
    };
    tuning
}

/// The neighbours an agent avoids are, of those within its neighbour radius (across the seams
/// of a wrapping box too) and in its mask's layers, the ten nearest, nearest first and ties by
/// slot, with their offsets: as a sort of every pair finds them. Agents on a coarse lattice
/// make many ties.
#[test]
fn each_agent_avoids_its_ten_nearest() {
    let (half, radius) = (6.0, 2.5);
    let tuning = wrapping_tuning(half, radius);
    let mut picky = tuning;
    picky.perception.avoidance_layers = 0b10;
    picky.perception.avoidance_mask = 0b10;
    let positions = points_with_ties(half);
    let mut crowd = standing_crowd(Space::Volume, &[tuning, picky], &positions, |i| {
        usize::from(i.is_multiple_of(3))
    });
    crowd.build_index();
    let (expected, ties, across_seams) = ten_nearest_by_sorting(&crowd, radius, 2.0 * half);
    for (slot, expected) in expected.iter().enumerate() {
        assert_eq!(
            &crowd.velocity_inputs().avoided_neighbours(slot),
            expected,
            "slot {slot}"
        );
    }
    assert!(ties > 100, "{ties} ties");
    assert!(across_seams > 100, "{across_seams} neighbours across seams");
}

/// Where every agent avoids every other, the force pass's scan keeps each agent's ten nearest
/// for the step, and they are those a sort of every pair finds, on every SIMD path: also where
/// a cap binds in a tight cluster (the nearest of the candidates its budget took in, here all
/// of them); except where its lanes do not take in every neighbour within the radius (a field
/// of view), which leaves the step to scan for itself.
#[test]
fn the_force_pass_keeps_the_ten_nearest_for_the_step() {
    let (half, radius) = (6.0, 2.5);
    let mut tuning = wrapping_tuning(half, radius);
    tuning.perception.max_neighbours = None;
    let mut capped = tuning;
    capped.perception.max_neighbours = Some(20);
    let mut looking_ahead = tuning;
    looking_ahead.perception.field_of_view = 180.0;
    let mut positions = points_with_ties(half);
    // 40 within a cube of side 0.4: each has more than 20 neighbours within the radius.
    positions.extend(random_positions(40, 0.2, 11));
    let tunings = [tuning, capped, looking_ahead];
    let first_clustered = positions.len() - 40;
    let params = |i: usize| {
        if i >= first_clustered {
            1
        } else {
            usize::from(i.is_multiple_of(5)) * 2
        }
    };
    let mut crowd = standing_crowd(Space::Volume, &tunings, &positions, params);
    // Headings, so that the field of view applies.
    for body in &mut crowd.agents.bodies {
        body.heading = Vec3::X;
    }
    crowd.build_index();
    let (expected, _, across_seams) = ten_nearest_by_sorting(&crowd, radius, 2.0 * half);
    assert!(across_seams > 100, "{across_seams} neighbours across seams");
    for simd in SimdPath::supported() {
        assert!(crowd.set_simd_path(simd));
        crowd.accumulate_forces();
        let (mut kept, mut left) = (0, 0);
        for (slot, expected) in expected.iter().enumerate() {
            let index = crowd.index.gathered[slot].index as usize;
            match crowd.forces.nearest[slot] {
                Some(keys) => {
                    let slots: Vec<usize> = keys.slots().collect();
                    let expected_slots: Vec<usize> = expected.iter().map(|e| e.0).collect();
                    assert_eq!(slots, expected_slots, "{simd:?} slot {slot}");
                    assert_ne!(params(index), 2, "{simd:?} slot {slot}");
                    kept += 1;
                }
                None => {
                    assert_eq!(params(index), 2, "{simd:?} slot {slot}");
                    left += 1;
                }
            }
            // What the step takes, kept or scanned for, with the offsets.
            assert_eq!(
                &crowd.velocity_inputs().avoided_neighbours(slot),
                expected,
                "{simd:?} slot {slot}"
            );
        }
        assert!(kept > 350, "{simd:?}: {kept} kept");
        assert!(left > 100, "{simd:?}: {left} left to the step");
    }
}

/// The force pass writes every agent's kept nearest anew each tick, not only where its scan
/// keeps them: an agent that reuses its force from before (far, under level of detail) or does
/// not avoid velocity obstacles keeps none, not last tick's list (whose slots are those of the
/// index before), and the step finds its ten nearest for itself, as a sort finds them.
#[test]
fn agents_that_do_not_scan_keep_no_nearest_from_the_tick_before() {
    let (half, radius) = (6.0, 2.5);
    let mut tuning = wrapping_tuning(half, radius);
    tuning.perception.max_neighbours = None;
    let mut off = tuning;
    off.perception.velocity_obstacles = VelocityObstacles::Off;
    let positions = points_with_ties(half);
    let params = |i: usize| usize::from(i.is_multiple_of(7));
    let mut crowd = standing_crowd(Space::Volume, &[tuning, off], &positions, params);
    // Every agent far from the focus: each computes its force every third tick, and reuses it
    // in between.
    let detail = LevelOfDetail {
        near_radius: 0.0,
        interval: 3,
    };
    crowd.set_level_of_detail(Some(detail), Vec3::splat(1e4));
    crowd.step(0.05);
    // Each of the first tick's lists kept, so that a list left over would show.
    let kept_before = crowd.forces.nearest.iter().flatten().count();
    assert!(kept_before > 300, "{kept_before} kept on the first tick");
    crowd.build_index();
    crowd.accumulate_forces();
    let (expected, _, _) = ten_nearest_by_sorting(&crowd, radius, 2.0 * half);
    let (mut reused, mut off_agents, mut kept) = (0, 0, 0);
    for (slot, expected) in expected.iter().enumerate() {
        let index = crowd.index.gathered[slot].index as usize;
        let nearest = crowd.forces.nearest[slot];
        if crowd.forces.results[slot].reused {
            reused += 1;
            assert_eq!(nearest, None, "slot {slot}, its force reused");
        } else if params(index) == 1 {
            off_agents += 1;
            assert_eq!(nearest, None, "slot {slot}, avoiding nothing");
        } else {
            kept += usize::from(nearest.is_some());
        }
        assert_eq!(
            &crowd.velocity_inputs().avoided_neighbours(slot),
            expected,
            "slot {slot}"
        );
    }
    assert!(
        reused > 200 && off_agents > 10 && kept > 50,
        "{reused} {off_agents} {kept}"
    );
}

/// The force pass offers an agent's neighbours to its nearest only within a ceiling (see
/// `Crowd::nearest_ceilings`). Whatever the ceiling, it keeps the ten nearest, on every SIMD
/// path, just where they are sure to be among those offered: where ten are within the ceiling,
/// or the ceiling is no lower than the radius. A cluster of 40 fills the buffer of candidates,
/// so that it keeps only the nearest on the way.
#[test]
fn the_force_pass_keeps_the_ten_nearest_under_any_ceiling() {
    let (half, radius) = (6.0, 2.5);
    let mut tuning = wrapping_tuning(half, radius);
    tuning.perception.max_neighbours = None;
    let mut positions = points_with_ties(half);
    positions.extend(random_positions(40, 0.2, 11));
    let mut crowd = standing_crowd(Space::Volume, &[tuning], &positions, |_| 0);
    crowd.build_index();
    let (expected, _, _) = ten_nearest_by_sorting(&crowd, radius, 2.0 * half);
    let indices: Vec<usize> = (crowd.index.gathered.iter())
        .map(|agent| agent.index as usize)
        .collect();
    let index_of = |slot: usize| indices[slot];
    // By agent index, the tenth nearest's squared distance; infinite where fewer are within
    // the radius.
    let mut tenth = vec![f32::INFINITY; positions.len()];
    for (slot, nearest) in expected.iter().enumerate() {
        if let Some(&(_, offset)) = nearest.get(MOST_AGENTS_AVOIDED - 1) {
            tenth[index_of(slot)] = offset.length_squared();
        }
    }
    let few = tenth.iter().filter(|t| t.is_infinite()).count();
    let seeded = random_positions(positions.len(), 1.0, 3);
    let cases: [(&str, Vec<f32>, usize); 4] = [
        (
            "none",
            vec![f32::INFINITY; positions.len()],
            positions.len(),
        ),
        ("at the tenth", tenth.clone(), positions.len()),
        (
            "just under the tenth",
            tenth
                .iter()
                .map(|t| f32::from_bits(t.to_bits() - 1))
                .collect(),
            few,
        ),
        (
            "seeded",
            (seeded.iter().map(|p| (p.x + 1.0) * 0.6 * radius * radius)).collect(),
            0,
        ),
    ];
    for (case, ceilings, most_left) in cases {
        crowd.velocity_step.ceilings = ceilings.clone();
        for simd in SimdPath::supported() {
            assert!(crowd.set_simd_path(simd));
            crowd.accumulate_forces();
            let mut kept = 0;
            for (slot, expected) in expected.iter().enumerate() {
                let ceiling = ceilings[index_of(slot)];
                let sure = ceiling >= tenth[index_of(slot)] || ceiling >= radius * radius;
                let keys = crowd.forces.nearest[slot];
                assert_eq!(keys.is_some(), sure, "{case}, {simd:?}, slot {slot}");
                if let Some(keys) = keys {
                    let slots: Vec<usize> = keys.slots().collect();
                    let expected: Vec<usize> = expected.iter().map(|e| e.0).collect();
                    assert_eq!(slots, expected, "{case}, {simd:?}, slot {slot}");
                    kept += 1;
                }
                // What the step takes, kept or scanned for.
                assert_eq!(
                    &crowd.velocity_inputs().avoided_neighbours(slot),
                    expected,
                    "{case}, {simd:?}, slot {slot}"
                );
            }
            assert!(kept >= most_left, "{case}, {simd:?}: {kept} kept");
        }
    }
}

/// `n` agents standing at random in a cube of half-side `half`, each seeking a random point
/// in it (positions drawn with `seed`, targets with `seed + 1`), of parameter set 0.
fn seekers(n: usize, half: f32, seed: u32) -> Vec<AgentInput> {
    let targets = random_positions(n, half, seed + 1);
    (random_positions(n, half, seed).into_iter().zip(targets))
        .map(|(position, target)| AgentInput {
            position,
            velocity: Vec3::ZERO,
            heading: Vec3::ZERO,
            flock: 0,
            params: ParamsId(0),
            target: Some(target),
        })
        .collect()
}

/// For how many agents the last force pass kept the ten nearest for the step.
fn nearest_kept(crowd: &Crowd) -> usize {
    let nearest = &crowd.forces.nearest;
    nearest.iter().filter(|kept| kept.is_some()).count()
}

/// The ceilings a tick leaves for the next force pass change only how much it scans: a crowd
/// stepping with them moves exactly as one whose ceilings are cleared before every tick, and
/// its force pass keeps the ten nearest for as many agents.
#[test]
fn ceilings_carried_between_ticks_change_nothing_but_the_work() {
    let (half, radius) = (6.0, 2.5);
    let mut tuning = wrapping_tuning(half, radius);
    tuning.perception.max_neighbours = None;
    let mut crowd = Crowd::new(Space::Volume);
    let params = crowd.add_params(tuning);
    for agent in seekers(400, half, 5) {
        crowd.push(AgentInput { params, ..agent });
    }
    let mut cleared = crowd.clone();
    for tick in 0..40 {
        crowd.step(0.05);
        cleared.velocity_step.ceilings.clear();
        cleared.step(0.05);
        assert_eq!(nearest_kept(&crowd), nearest_kept(&cleared), "tick {tick}");
        assert!(
            nearest_kept(&crowd) > 300,
            "tick {tick}: {} kept",
            nearest_kept(&crowd)
        );
        let ceilings = &crowd.velocity_step.ceilings;
        let finite = ceilings.iter().filter(|c| c.is_finite()).count();
        assert!(finite > 300, "tick {tick}: {finite} ceilings");
        for (a, b) in crowd.agents.bodies.iter().zip(&cleared.agents.bodies) {
            assert_eq!(a.position, b.position, "tick {tick}");
        }
    }
}

/// A game may rebuild the crowd every frame (the plugin clears it and pushes its agents
/// again), so between ticks agents come, go and change places, and an index's ceiling from
/// the last tick then belongs to another agent. Where it no longer holds the ten nearest the
/// scan says so, and the step scans for itself: a crowd stepped through such churn moves
/// exactly as one whose ceilings are cleared before every tick.
#[test]
fn ceilings_left_by_other_agents_change_nothing() {
    let (half, radius) = (6.0, 2.5);
    let mut tuning = wrapping_tuning(half, radius);
    tuning.perception.max_neighbours = None;
    let mut agents = seekers(400, half, 8);
    let (mut kept, mut cleared) = (Crowd::new(Space::Volume), Crowd::new(Space::Volume));
    let mut fewer_after_churn = 0;
    for tick in 0..30 {
        for crowd in [&mut kept, &mut cleared] {
            crowd.clear();
            let params = crowd.add_params(tuning);
            for agent in &agents {
                crowd.push(AgentInput { params, ..*agent });
            }
        }
        cleared.velocity_step.ceilings.clear();
        kept.step(0.05);
        cleared.step(0.05);
        for (i, agent) in agents.iter_mut().enumerate() {
            assert_eq!(
                kept.position(i),
                cleared.position(i),
                "tick {tick}, agent {i}"
            );
            assert_eq!(
                kept.velocity(i),
                cleared.velocity(i),
                "tick {tick}, agent {i}"
            );
            agent.position = kept.position(i);
            agent.velocity = kept.velocity(i);
        }
        let churned = tick % 5 == 1;
        if churned {
            fewer_after_churn += usize::from(nearest_kept(&kept) < nearest_kept(&cleared));
        } else if tick > 0 {
            assert_eq!(nearest_kept(&kept), nearest_kept(&cleared), "tick {tick}");
        }
        if tick % 5 == 0 {
            // Every agent changes places, 20 go and 20 come.
            agents.rotate_left(37);
            agents.truncate(380);
            agents.extend(seekers(20, half, 100 + tick as u32));
        }
    }
    assert_eq!(fewer_after_churn, 6, "ticks after churn that fell back");
}
