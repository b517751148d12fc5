//! Behaviour of the kernel on its own, measured.

use glam::Vec3;

use crate::neighbours::Scan;
use crate::*;

mod admission;
mod boundary;
mod checksum;
mod clearances;
mod clumps;
mod determinism;
mod floors;
mod giving_way;
mod hostile;
mod obstacle_bins;
mod obstacles;
mod pedestrians;
mod progress;
mod rules;
mod sight;
mod velocity_obstacles;
mod vicsek;
mod walking_speeds;

/// The signed distance from `p` to the nearest of `walls` (negative inside one).
fn gap_to(walls: &[Shape], p: Vec3) -> f32 {
    walls
        .iter()
        .map(|w| w.distance(p))
        .fold(f32::INFINITY, f32::min)
}

fn lattice(n_side: usize, spacing: f32) -> Vec<Vec3> {
    let mut out = Vec::new();
    for x in 0..n_side {
        for y in 0..n_side {
            out.push(Vec3::new(x as f32, y as f32, 0.0) * spacing);
        }
    }
    out
}

fn crowd_with(
    space: Space,
    params: FlockTuning,
    positions: &[Vec3],
    velocity: impl Fn(usize) -> Vec3,
) -> Crowd {
    let mut crowd = Crowd::new(space);
    let id = crowd.add_params(params);
    for (i, &position) in positions.iter().enumerate() {
        crowd.push(AgentInput {
            position,
            velocity: velocity(i),
            heading: Vec3::ZERO,
            flock: 0,
            params: id,
            target: None,
        });
    }
    crowd
}

/// Re-pushes the crowd's state, as the ECS layer does each tick.
fn reload(crowd: &Crowd, params: FlockTuning) -> Crowd {
    let mut next = Crowd::new(crowd.space());
    let id = next.add_params(params);
    for i in 0..crowd.len() {
        next.push(AgentInput {
            position: crowd.position(i),
            velocity: crowd.velocity(i),
            heading: crowd.heading(i),
            flock: 0,
            params: id,
            target: None,
        });
    }
    next
}

#[test]
fn coincident_agents_separate() {
    let positions = vec![Vec3::ZERO; 20];
    let mut crowd = crowd_with(Space::Volume, FlockTuning::default(), &positions, |_| {
        Vec3::ZERO
    });
    for _ in 0..120 {
        crowd.step(1.0 / 60.0);
    }
    crowd.build_index();
    crowd.accumulate_forces();
    let nearest = crowd
        .metrics()
        .min_nearest_distance
        .expect("agents are neighbours");
    assert!(nearest > 0.3, "coincident agents still within {nearest}");
}

#[test]
fn separation_pushes_apart_only_when_weighted() {
    let positions = lattice(6, 0.3);
    let run = |weight: f32| {
        let params = FlockTuning {
            weights: FlockWeights {
                separation: weight,
                alignment: 0.0,
                cohesion: 0.0,
                target: 0.0,
                ..FlockWeights::default()
            },
            ..Default::default()
        };
        let mut crowd = crowd_with(Space::Planar, params, &positions, |_| Vec3::ZERO);
        for _ in 0..200 {
            crowd.step(1.0 / 60.0);
        }
        crowd.build_index();
        crowd.accumulate_forces();
        crowd
            .metrics()
            .min_nearest_distance
            .unwrap_or(f32::INFINITY)
    };
    let (without, with) = (run(0.0), run(1.8));
    assert!(
        (without - 0.3).abs() < 1e-4,
        "unweighted agents moved: {without}"
    );
    assert!(with > 0.8, "separated agents still within {with}");
}

#[test]
fn a_boundary_box_with_no_room_is_switched_off_and_reported() {
    let boxed = |max: Vec3| FlockTuning {
        boundary: Boundary::Walls {
            min: Vec3::ZERO,
            max,
            margin: 1.0,
            weight: 2.0,
        },
        ..Default::default()
    };
    // A point and a line: walls would pin every agent onto them.
    for max in [Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0)] {
        let (params, corrections) = boxed(max).sanitized();
        assert_eq!(params.boundary, Boundary::None, "{max}");
        assert_eq!(corrections.len(), 1, "{corrections:?}");
        assert_eq!(corrections[0].field, "boundary.max");
    }
    let (point_wrap, corrections) = FlockTuning {
        boundary: Boundary::Wrap {
            min: Vec3::ONE,
            max: Vec3::ONE,
        },
        ..Default::default()
    }
    .sanitized();
    assert_eq!(point_wrap.boundary, Boundary::None);
    assert_eq!(corrections.len(), 1);
    // Flat on one axis (the plane's Z, a ground layer) is a box to move in.
    let flat = boxed(Vec3::new(10.0, 10.0, 0.0));
    let (params, corrections) = flat.sanitized();
    assert!(corrections.is_empty(), "{corrections:?}");
    assert_eq!(params.boundary, flat.boundary);
}

#[test]
fn wrap_keeps_agents_in_the_box() {
    let boundary = Boundary::Wrap {
        min: Vec3::splat(-5.0),
        max: Vec3::splat(5.0),
    };
    let params = FlockTuning {
        boundary,
        ..Default::default()
    };
    let positions = lattice(5, 2.0)
        .into_iter()
        .map(|p| p - Vec3::new(4.0, 4.0, 0.0))
        .collect::<Vec<_>>();
    let mut crowd = crowd_with(Space::Volume, params, &positions, |i| {
        Vec3::new(5.0, -3.0 + i as f32 * 0.2, 4.0)
    });
    let mut wrapped = false;
    for _ in 0..300 {
        let before = crowd.position(0);
        crowd.step(1.0 / 30.0);
        wrapped |= crowd.position(0).distance(before) > 5.0;
        for i in 0..crowd.len() {
            let p = crowd.position(i);
            assert!(
                p.cmpge(Vec3::splat(-5.0)).all() && p.cmplt(Vec3::splat(5.0)).all(),
                "{p}"
            );
        }
    }
    assert!(wrapped, "no agent crossed a face");
}

#[test]
fn non_finite_input_never_reaches_a_neighbour() {
    let positions = lattice(4, 1.0);
    let mut crowd = Crowd::new(Space::Volume);
    let id = crowd.add_params(FlockTuning::default());
    for (i, &p) in positions.iter().enumerate() {
        let poisoned = i == 5;
        crowd.push(AgentInput {
            position: if poisoned { Vec3::NAN } else { p },
            velocity: if poisoned { Vec3::INFINITY } else { Vec3::X },
            heading: Vec3::NAN,
            flock: 0,
            params: id,
            target: poisoned.then_some(Vec3::new(f32::NAN, 0.0, 0.0)),
        });
    }
    crowd.add_force(3, Vec3::NAN);
    for _ in 0..60 {
        crowd.step(1.0 / 60.0);
        for i in 0..crowd.len() {
            assert!(
                crowd.position(i).is_finite() && crowd.velocity(i).is_finite(),
                "agent {i}"
            );
        }
    }
}

#[test]
fn huge_values_stay_finite() {
    let params = FlockTuning {
        weights: FlockWeights {
            separation: 1e30,
            alignment: 1e30,
            cohesion: 1e30,
            target: 1e30,
            ..FlockWeights::default()
        },
        limits: SteeringLimits {
            max_speed: 1e30,
            min_speed: 0.0,
            max_force: 1e30,
            response_time: 1e-30,
            arrival_radius: 1e30,
            max_turn_rate: Some(1e30),
            reach_radius: 1e30,
        },
        ..Default::default()
    };
    let positions = [
        Vec3::splat(1e30),
        Vec3::splat(1e30),
        Vec3::ZERO,
        Vec3::splat(-1e30),
    ];
    let mut crowd = crowd_with(Space::Volume, params, &positions, |_| Vec3::splat(1e30));
    for _ in 0..10 {
        crowd.step(10.0);
        for i in 0..crowd.len() {
            assert!(
                crowd.position(i).is_finite() && crowd.velocity(i).is_finite(),
                "agent {i}"
            );
        }
    }
}

#[test]
fn same_input_gives_identical_output() {
    let positions = lattice(12, 0.7);
    let run = || {
        let mut crowd = crowd_with(Space::Volume, FlockTuning::default(), &positions, |i| {
            Vec3::new(
                (i % 7) as f32 - 3.0,
                (i % 5) as f32 - 2.0,
                (i % 3) as f32 - 1.0,
            )
        });
        for _ in 0..100 {
            crowd = reload(&crowd, FlockTuning::default());
            crowd.step(1.0 / 60.0);
        }
        (0..crowd.len())
            .map(|i| (crowd.position(i).to_array(), crowd.velocity(i).to_array()))
            .collect::<Vec<_>>()
    };
    let (a, b) = (run(), run());
    let same = a.iter().zip(&b).all(|(x, y)| {
        x.0.iter()
            .zip(&y.0)
            .chain(x.1.iter().zip(&y.1))
            .all(|(u, v)| u.to_bits() == v.to_bits())
    });
    assert!(same);
}

#[test]
fn field_of_view_hides_the_agent_behind() {
    // Agent 0 heads +X; agent 1 sits directly behind it, moving +Y.
    let count_mates = |fov: f32| {
        let params = FlockTuning {
            perception: Perception {
                field_of_view: fov,
                ..Default::default()
            },
            ..Default::default()
        };
        let positions = [Vec3::ZERO, Vec3::new(-1.0, 0.0, 0.0)];
        let mut crowd = crowd_with(Space::Volume, params, &positions, |i| {
            if i == 0 { Vec3::X } else { Vec3::Y }
        });
        crowd.build_index();
        crowd.accumulate_forces();
        crowd.metrics().mean_neighbours
    };
    // With 360 degrees both see each other; with 270 only agent 1 sees agent 0 (ahead-left of
    // its +Y heading is within its view), agent 0 no longer sees agent 1.
    assert_eq!(count_mates(360.0), 1.0);
    assert_eq!(count_mates(270.0), 0.5);
}

#[test]
fn agents_see_each_other_across_a_wrap_seam() {
    let boundary = Boundary::Wrap {
        min: Vec3::splat(-10.0),
        max: Vec3::splat(10.0),
    };
    let params = FlockTuning {
        boundary,
        ..Default::default()
    };
    // Corner to corner: 1 unit apart on each axis through the seams.
    let positions = [
        Vec3::splat(-9.5),
        Vec3::splat(9.5),
        Vec3::new(0.0, 9.5, 0.0),
    ];
    let mut crowd = crowd_with(Space::Volume, params, &positions, |_| Vec3::ZERO);
    crowd.build_index();
    crowd.accumulate_forces();
    let metrics = crowd.metrics();
    assert_eq!(metrics.mean_neighbours, 2.0 / 3.0, "{metrics:?}");
    let nearest = metrics.min_nearest_distance.unwrap();
    assert!((nearest - 3.0_f32.sqrt()).abs() < 1e-5, "nearest {nearest}");
    // Separation pushes the pair apart through the seam: agent 0 away toward -x, -y, -z.
    assert!(
        crowd.force(0).cmplt(Vec3::ZERO).all(),
        "force {}",
        crowd.force(0)
    );
}

/// Seeded positions uniform in a cube of half-size `extent`, so the kernel's tests need no
/// dependency.
pub(crate) fn random_positions(n: usize, extent: f32, seed: u32) -> Vec<Vec3> {
    let mut state = seed | 1;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32
    };
    (0..n)
        .map(|_| (Vec3::new(unit(), unit(), unit()) * 2.0 - 1.0) * extent)
        .collect()
}

#[test]
fn radius_queries_match_brute_force() {
    for space in [Space::Volume, Space::Planar] {
        let positions: Vec<Vec3> = random_positions(3_000, 30.0, 7)
            .into_iter()
            .map(|p| {
                if space == Space::Planar {
                    p.with_z(0.0)
                } else {
                    p
                }
            })
            .collect();
        let mut crowd = crowd_with(space, FlockTuning::default(), &positions, |_| Vec3::ZERO);
        crowd.build_index();
        let queries = random_positions(60, 40.0, 8);
        for (q, &point) in queries.iter().enumerate() {
            let point = if space == Space::Planar {
                point.with_z(0.0)
            } else {
                point
            };
            let radius = [0.0, 0.5, 3.0, 4.0, 9.5, 80.0][q % 6];
            let mut found = Vec::new();
            crowd.for_each_within(point, radius, |i, d| found.push((i, d)));
            found.sort_unstable_by_key(|&(i, _)| i);
            let brute: Vec<usize> = (0..positions.len())
                .filter(|&i| positions[i].distance_squared(point) <= radius * radius)
                .collect();
            let found_ids: Vec<usize> = found.iter().map(|&(i, _)| i).collect();
            assert_eq!(found_ids, brute, "{space:?} query {q}, radius {radius}");
            for (i, d) in found {
                assert!((d - positions[i].distance(point)).abs() < 1e-4);
            }
        }
    }
}

#[test]
fn nearest_queries_match_brute_force() {
    let positions = random_positions(2_000, 25.0, 9);
    let mut crowd = crowd_with(Space::Volume, FlockTuning::default(), &positions, |_| {
        Vec3::ZERO
    });
    crowd.build_index();
    for (q, point) in random_positions(40, 60.0, 10).into_iter().enumerate() {
        let k = [1, 5, 50, 3_000][q % 4];
        let even = |i: usize| i.is_multiple_of(2);
        let found = crowd.k_nearest(point, k, even);
        let mut brute: Vec<(usize, f32)> = (0..positions.len())
            .filter(|&i| even(i))
            .map(|i| (i, positions[i].distance(point)))
            .collect();
        brute.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        brute.truncate(k);
        let ids = |v: &[(usize, f32)]| v.iter().map(|&(i, _)| i).collect::<Vec<_>>();
        assert_eq!(ids(&found), ids(&brute), "query {q}, k {k}");
    }
    assert!(crowd.k_nearest(Vec3::NAN, 3, |_| true).is_empty());
}

/// Flocks are told apart by number alone, whatever the numbers: a crowd whose flocks are
/// numbered 0 to 4 moves bit for bit as the same crowd numbered with values an `f32` cannot all
/// hold apart (2^24 and 2^24 + 1 round to the same one), `u32::MAX` among them.
#[test]
fn flock_numbers_of_any_size_keep_flocks_apart() {
    let wide = [0, 1 << 24, (1 << 24) + 1, u32::MAX - 1, u32::MAX];
    let positions = random_positions(1_200, 9.0, 81);
    let velocities = random_positions(1_200, 3.0, 82);
    let crowd = |numbers: [u32; 5]| {
        let mut crowd = Crowd::new(Space::Volume);
        let params = crowd.add_params(FlockTuning::default());
        crowd.set_executor(ScopedThreads(3));
        for (i, (&position, &velocity)) in positions.iter().zip(&velocities).enumerate() {
            crowd.push(AgentInput {
                position,
                velocity,
                flock: numbers[i % 5],
                params,
                ..Default::default()
            });
        }
        crowd
    };
    let (mut small, mut large) = (crowd([0, 1, 2, 3, 4]), crowd(wide));
    let mut merged = crowd([0, 1, 1, 3, 4]);
    for _ in 0..20 {
        for crowd in [&mut small, &mut large, &mut merged] {
            crowd.step(1.0 / 30.0);
        }
    }
    let state = |crowd: &Crowd| -> Vec<[u32; 3]> {
        (0..crowd.len())
            .map(|i| crowd.position(i).to_array().map(f32::to_bits))
            .collect()
    };
    assert!(
        state(&small) == state(&large),
        "the flocks' numbers changed how they move"
    );
    assert!(
        state(&small) != state(&merged),
        "merging two flocks changes nothing: no test"
    );
}

#[test]
fn lane_scan_agrees_with_the_exact_scan() {
    let (lo, hi) = (Vec3::splat(-10.0), Vec3::splat(10.0));
    for (space, field_of_view, style) in [
        (Space::Volume, 360.0, RuleStyle::Vector),
        (Space::Volume, 120.0, RuleStyle::Vector),
        (Space::Volume, 270.0, RuleStyle::DesiredVelocity),
        (Space::Planar, 200.0, RuleStyle::Vector),
        (Space::Planar, 360.0, RuleStyle::DesiredVelocity),
    ] {
        let params = FlockTuning {
            weights: FlockWeights {
                collision_avoidance: 1.0,
                style,
                ..Default::default()
            },
            perception: Perception {
                field_of_view,
                ..Default::default()
            },
            boundary: Boundary::Wrap { min: lo, max: hi },
            ..Default::default()
        };
        let mut crowd = Crowd::new(space);
        let id = crowd.add_params(params);
        // About 33 neighbours each (in full view), under the default cap of 64.
        let n = if space == Space::Volume { 1_000 } else { 250 };
        let positions = random_positions(n, 10.0, 21);
        let velocities = random_positions(n, 3.0, 22);
        for (i, (&p, &v)) in positions.iter().zip(&velocities).enumerate() {
            crowd.push(AgentInput {
                position: p,
                velocity: v,
                heading: Vec3::ZERO,
                flock: [7, u32::MAX, 0][i % 3],
                params: id,
                target: None,
            });
        }
        crowd.build_index();
        let paths = SimdPath::supported();
        let mut by_path = paths.iter().map(|&simd| {
            assert!(crowd.set_simd_path(simd));
            crowd.both_scans()
        });
        let scans = by_path.next().expect("the portable path");
        for (other, simd) in by_path.zip(&paths[1..]) {
            // Not just close: the same bits.
            assert!(other == scans, "{simd:?} differs from the portable lanes");
        }
        let label = format!("{space:?} {field_of_view}");
        assert!(scans.iter().all(|(_, exact)| exact.count > 0), "{label}");
        let answered = assert_lanes_agree_with_exact(&scans, &label);
        assert_eq!(answered, scans.len(), "{label}");
        let threatened = scans.iter().filter(|(_, exact)| exact.collision.is_some());
        assert!(
            threatened.count() * 10 > scans.len(),
            "random velocities put over a tenth of the agents on a collision course"
        );
    }
}

/// Asserts that every scan the lanes answered took in what the exact scan did: the same
/// neighbours (counts and nearest distance), with sums that differ only by their order.
/// Returns how many the lanes answered.
fn assert_lanes_agree_with_exact(scans: &[(Option<Scan>, Scan)], label: &str) -> usize {
    let close = |a: Vec3, b: Vec3| (a - b).length() <= 1e-4 * (1.0 + b.length());
    let mut answered = 0;
    for (lanes, exact) in scans {
        let Some(lanes) = lanes else { continue };
        answered += 1;
        let label = format!("{label}: {lanes:?} vs {exact:?}");
        assert_eq!(lanes.count, exact.count, "{label}");
        assert_eq!(lanes.mates, exact.mates, "{label}");
        assert_eq!(lanes.nearest_sq, exact.nearest_sq, "{label}");
        assert!(close(lanes.separation, exact.separation), "{label}");
        assert!(close(lanes.velocity_sum, exact.velocity_sum), "{label}");
        assert!(close(lanes.offset_sum, exact.offset_sum), "{label}");
        assert_eq!(lanes.collision, exact.collision, "{label}");
    }
    answered
}

#[test]
fn lane_scan_hands_only_coincident_agents_to_the_exact_scan() {
    // All within one another's radius, over the cap of 100.
    let mut positions = random_positions(300, 1.0, 23);
    positions[1] = positions[0];
    let params = FlockTuning {
        perception: Perception {
            max_neighbours: Some(100),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut crowd = crowd_with(Space::Volume, params, &positions, |_| Vec3::X);
    crowd.build_index();
    let scans = crowd.both_scans();
    assert!(scans.iter().all(|(_, exact)| exact.count == 100));
    // Agents 0 and 1 sit on one point: only they need the exact scan. The lanes take in the
    // same nearest 100 as the exact scan for every other agent.
    assert!(scans[0].0.is_none() && scans[1].0.is_none());
    assert_eq!(assert_lanes_agree_with_exact(&scans, "capped"), 298);

    let mut crowd = crowd_with(
        Space::Volume,
        FlockTuning::default(),
        &positions[..60],
        |_| Vec3::X,
    );
    crowd.build_index();
    let declined = crowd
        .both_scans()
        .iter()
        .filter(|(lanes, _)| lanes.is_none())
        .count();
    assert_eq!(declined, 2);
}

/// Agent 0 at the origin and, in random directions (from `seed`), each shell's `count` agents
/// spread evenly from `nearest` to `nearest + span` away.
fn agent_among_shells(shells: [(usize, f32, f32); 2], seed: u32) -> Vec<Vec3> {
    let total = shells.iter().map(|&(count, ..)| count).sum();
    let mut directions = random_positions(total, 1.0, seed).into_iter();
    let mut positions = vec![Vec3::ZERO];
    for (count, nearest, span) in shells {
        for (k, d) in (0..count).zip(&mut directions) {
            let distance = nearest + span * k as f32 / count as f32;
            positions.push(d.normalize_or(Vec3::X) * distance);
        }
    }
    positions
}

#[test]
fn over_the_cap_the_lane_scan_shrinks_the_radius_to_a_step_that_fits() {
    // Agent 0 at the origin; 30 agents between 1 and 3 away (inside 0.85 of radius 4) and 30
    // between 3.5 and 3.95 away (outside it), in random directions.
    let positions = agent_among_shells([(30, 1.0, 2.0), (30, 3.5, 0.45)], 41);
    let scan_of_first = |cap: u32| {
        let params = FlockTuning {
            perception: Perception {
                max_neighbours: Some(cap),
                ..Default::default()
            },
            ..Default::default()
        };
        let mut crowd = crowd_with(Space::Volume, params, &positions, |_| Vec3::ZERO);
        crowd.build_index();
        crowd.both_scans()[0]
    };
    // 60 in range, cap 40: the radius shrinks to 0.85 x 4 = 3.4, which holds the 30 nearest.
    let (lanes, exact) = scan_of_first(40);
    let lanes = lanes.expect("the lane scan answers");
    assert_eq!((lanes.count, exact.count), (30, 40));
    // Cap 20: even 0.6 x 4 = 2.4 holds more (22 agents); both scans take the nearest 20.
    let (lanes, exact) = scan_of_first(20);
    assert_eq!((lanes.expect("answers").count, exact.count), (20, 20));
    assert_eq!(
        assert_lanes_agree_with_exact(&[(lanes, exact)], "cap 20"),
        1
    );
    // Cap 60: all fit.
    assert_eq!(scan_of_first(60).0.expect("answers").count, 60);
}

/// Over the cap, both scans take in the nearest `max_neighbours` of those in range and in view:
/// the same as sorting every other agent by distance, written out here.
#[test]
fn over_the_cap_both_scans_take_the_nearest() {
    let cap = 6;
    // Agent 0 at the origin among 50 others within 3 of it (inside its radius of 4, and
    // within the scan budget of 64), 20 of them within 2.4, so that no shrunk radius holds
    // only 6; and 40 further off, between 4.2 and 6.
    let positions = agent_among_shells([(50, 0.2, 2.8), (40, 4.2, 1.8)], 57);
    let velocity = |i: usize| Vec3::new(i as f32, 1.0, -(i as f32) * 0.5);
    for field_of_view in [360.0, 200.0] {
        let params = FlockTuning {
            perception: Perception {
                max_neighbours: Some(cap),
                field_of_view,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut crowd = Crowd::new(Space::Volume);
        let id = crowd.add_params(params);
        for (i, &position) in positions.iter().enumerate() {
            crowd.push(AgentInput {
                position,
                velocity: velocity(i),
                // Agent 0 looks along +x.
                heading: Vec3::X,
                flock: (i % 2) as u32,
                params: id,
                target: None,
            });
        }
        crowd.build_index();
        let (lanes, exact) = crowd.both_scans()[0];
        let label = format!("view {field_of_view}");
        let lanes = lanes.expect("the lane scan answers");
        assert_eq!(
            assert_lanes_agree_with_exact(&[(Some(lanes), exact)], &label),
            1
        );

        // Written out: every other agent in range and in view, sorted by distance.
        let heading = crowd.heading(0);
        let half = (field_of_view * 0.5_f32).to_radians();
        let mut seen: Vec<usize> = (1..positions.len())
            .filter(|&i| positions[i].length() <= 4.0)
            .filter(|&i| positions[i].angle_between(heading) <= half)
            .collect();
        seen.sort_by(|&a, &b| positions[a].length().total_cmp(&positions[b].length()));
        let nearest = &seen[..cap as usize];
        assert!(seen.len() > 2 * cap as usize, "{label}: the cap must bind");
        let mates: Vec<usize> = nearest.iter().copied().filter(|i| i % 2 == 0).collect();
        assert_eq!(lanes.count, cap, "{label}");
        assert_eq!(lanes.mates as usize, mates.len(), "{label}");
        let nearest_sq = positions[nearest[0]].length_squared();
        assert!((lanes.nearest_sq - nearest_sq).abs() <= 1e-5, "{label}");
        let offsets: Vec3 = mates.iter().map(|&i| positions[i]).sum();
        let velocities: Vec3 = mates.iter().map(|&i| velocity(i)).sum();
        assert!(lanes.offset_sum.distance(offsets) <= 1e-4, "{label}");
        assert!(lanes.velocity_sum.distance(velocities) <= 1e-3, "{label}");
    }
}

/// A crowd packed far beyond the cap, across wrap seams, in view or not, in two flocks: every
/// agent's lane scan takes in the same neighbours as its exact scan, on every form of lanes.
#[test]
fn packed_crowds_take_the_same_nearest_on_lanes_as_exactly() {
    // Wider than two radii of 4, so that agents look across the seams.
    let (lo, hi) = (Vec3::splat(-5.0), Vec3::splat(5.0));
    for (space, field_of_view, n) in [
        (Space::Volume, 360.0, 1_500),
        (Space::Volume, 150.0, 1_500),
        (Space::Planar, 360.0, 900),
        (Space::Planar, 250.0, 900),
    ] {
        let params = FlockTuning {
            weights: FlockWeights {
                collision_avoidance: 1.0,
                ..Default::default()
            },
            perception: Perception {
                field_of_view,
                max_neighbours: Some(12),
                ..Default::default()
            },
            boundary: Boundary::Wrap { min: lo, max: hi },
            ..Default::default()
        };
        let mut crowd = Crowd::new(space);
        let id = crowd.add_params(params);
        let positions = random_positions(n, 5.0, 77);
        let velocities = random_positions(n, 3.0, 78);
        for (i, (&position, &velocity)) in positions.iter().zip(&velocities).enumerate() {
            crowd.push(AgentInput {
                position,
                velocity,
                heading: Vec3::ZERO,
                flock: (i % 2) as u32,
                params: id,
                target: None,
            });
        }
        crowd.build_index();
        let label = format!("{space:?} {field_of_view}");
        let mut by_path = SimdPath::supported().into_iter().map(|simd| {
            assert!(crowd.set_simd_path(simd));
            crowd.both_scans()
        });
        let scans = by_path.next().expect("the portable path");
        for other in by_path {
            assert!(other == scans, "{label}: the forms of lanes differ");
        }
        assert_eq!(assert_lanes_agree_with_exact(&scans, &label), n, "{label}");
        let counts: Vec<u32> = scans
            .iter()
            .map(|(_, e)| e.count)
            .filter(|&c| c != 12)
            .collect();
        assert!(counts.is_empty(), "{label}: {counts:?}");
        let threatened = scans.iter().filter(|(_, e)| e.collision.is_some()).count();
        assert!(threatened * 4 > n, "{label}: few predicted collisions");
    }
}

#[test]
fn the_neighbour_cap_keeps_the_nearest_and_bounds_the_scan() {
    let metrics = |n: usize, cap: Option<u32>| {
        // All `n` agents within one grid cell and within each other's radius.
        let positions = random_positions(n, 0.5, 12);
        let params = FlockTuning {
            perception: Perception {
                max_neighbours: cap,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut crowd = crowd_with(Space::Volume, params, &positions, |_| Vec3::ZERO);
        crowd.build_index();
        crowd.accumulate_forces();
        crowd.metrics()
    };
    // Worst case: 400 agents in one cell. The cap bounds what each agent takes in.
    assert_eq!(metrics(400, None).mean_neighbours, 399.0);
    assert_eq!(metrics(400, Some(10)).mean_neighbours, 10.0);
    // Below the scan budget (64 candidates) the kept neighbours are the nearest ones, so the
    // nearest-neighbour distances are exactly those without a cap.
    let (all, capped) = (metrics(50, None), metrics(50, Some(10)));
    assert_eq!(capped.mean_neighbours, 10.0);
    assert_eq!(capped.mean_nearest_distance, all.mean_nearest_distance);
}

#[test]
fn collision_prediction_finds_the_first_contact_within_the_horizon() {
    use crate::rules::prediction::Prediction;
    let prediction = Prediction {
        velocity: Vec3::X * 5.0,
        distance_sq: 0.7 * 0.7,
        horizon: 2.0,
    };
    let threat = |offset: Vec3, velocity: Vec3| {
        prediction.collision(offset, offset.length_squared(), velocity)
    };
    // Head on, 10 apart, closing at 10: contact at 0.7 apart after 0.93 s.
    let head_on = threat(Vec3::X * 10.0, Vec3::NEG_X * 5.0).expect("head on");
    assert!((head_on.time - 0.93).abs() < 1e-5, "{head_on:?}");
    assert!(
        (head_on.offset - Vec3::X * 0.7).length() < 1e-4,
        "{head_on:?}"
    );
    // Off the line by 0.5: contact, later; by 1: a miss.
    let grazing = threat(Vec3::new(10.0, 0.5, 0.0), Vec3::NEG_X * 5.0).expect("grazes");
    assert!(grazing.time > head_on.time && grazing.offset.length() < 0.7 + 1e-4);
    assert_eq!(threat(Vec3::new(10.0, 1.0, 0.0), Vec3::NEG_X * 5.0), None);
    // Parting, too far off in time, or already overlapping (separation's job): nothing.
    assert_eq!(threat(Vec3::NEG_X * 10.0, Vec3::NEG_X * 5.0), None);
    assert_eq!(threat(Vec3::X * 30.0, Vec3::NEG_X * 5.0), None);
    assert_eq!(threat(Vec3::X * 0.5, Vec3::NEG_X * 5.0), None);
}

#[test]
fn a_turn_rate_limits_how_fast_the_heading_turns() {
    for space in [Space::Planar, Space::Volume] {
        let mut crowd = Crowd::new(space);
        let params = crowd.add_params(FlockTuning {
            limits: SteeringLimits {
                max_turn_rate: Some(90.0),
                ..Default::default()
            },
            ..Default::default()
        });
        // The target straight behind: the hardest turn, an exact reversal.
        let target = Vec3::new(-20.0, 0.0, 0.0);
        crowd.push(AgentInput {
            position: Vec3::ZERO,
            velocity: Vec3::X * 5.0,
            heading: Vec3::X,
            flock: 0,
            params,
            target: Some(target),
        });
        let dt: f32 = 1.0 / 60.0;
        let max_step = (90.0 * dt).to_radians();
        let mut heading = crowd.heading(0);
        let mut reached = false;
        for tick in 0..20 * 60 {
            crowd.step(dt);
            let next = crowd.heading(0);
            let turned = libm::acosf(heading.dot(next).clamp(-1.0, 1.0));
            assert!(
                turned <= max_step + 1e-4,
                "{space:?} tick {tick}: turned {turned} rad, at most {max_step}"
            );
            if tick == 60 {
                // A quarter turn in one second, to the right.
                let right = match space {
                    Space::Planar => Vec3::NEG_Y,
                    Space::Volume => Vec3::Z,
                };
                assert!(next.dot(right) > 0.95, "{space:?}: heading {next}");
            }
            heading = next;
            reached |= crowd.position(0).distance(target) < 1.0;
        }
        assert!(reached, "{space:?}: never reached the target");
    }
}

#[test]
fn bad_predators_are_skipped() {
    let mut crowd = Crowd::new(Space::Volume);
    let skipped = crowd.set_threats([
        Threat {
            position: Vec3::ZERO,
            velocity: Vec3::X,
            radius: 5.0,
        },
        Threat {
            position: Vec3::ZERO,
            velocity: Vec3::ZERO,
            radius: f32::NAN,
        },
        Threat {
            position: Vec3::ZERO,
            velocity: Vec3::ZERO,
            radius: -1.0,
        },
        Threat {
            position: Vec3::INFINITY,
            velocity: Vec3::ZERO,
            radius: 5.0,
        },
        Threat {
            position: Vec3::ZERO,
            velocity: Vec3::NAN,
            radius: 5.0,
        },
    ]);
    assert_eq!(skipped, 4);
}

/// The crowd's metrics, summed in blocks on the executor, are the same bits on any thread
/// count, and agree with sums taken one agent at a time: polarisation from the headings, the
/// nearest-neighbour figures from each agent's nearest neighbour found by brute force.
#[test]
fn metrics_agree_with_a_plain_count_on_any_thread_count() {
    let positions = random_positions(9_000, 14.0, 91);
    let velocities = random_positions(9_000, 3.0, 92);
    let mut crowd = crowd_with(Space::Volume, FlockTuning::default(), &positions, |i| {
        velocities[i] + Vec3::X
    });
    crowd.build_index();
    crowd.accumulate_forces();
    let serial = crowd.metrics();
    for threads in [2, 3, 8] {
        crowd.set_executor(ScopedThreads(threads));
        assert_eq!(crowd.metrics(), serial, "{threads} threads");
    }
    let n = crowd.len();
    let heading: Vec3 = (0..n).map(|i| crowd.heading(i)).sum();
    let radius = FlockTuning::default().perception.neighbour_radius;
    let nearest: Vec<f32> = (0..n)
        .filter_map(|i| {
            (0..n)
                .filter(|&j| j != i)
                .map(|j| positions[i].distance(positions[j]))
                .filter(|&d| d <= radius)
                .min_by(f32::total_cmp)
        })
        .collect();
    let mean = nearest.iter().map(|&d| f64::from(d)).sum::<f64>() / nearest.len() as f64;
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * b.abs().max(1.0);
    assert_eq!(serial.agents, n);
    assert!(
        close(serial.polarisation, heading.length() / n as f32),
        "{serial:?}"
    );
    assert!(
        close(serial.mean_nearest_distance.unwrap(), mean as f32),
        "{serial:?} {mean}"
    );
    let min = nearest.iter().copied().fold(f32::INFINITY, f32::min);
    assert!(
        close(serial.min_nearest_distance.unwrap(), min),
        "{serial:?} {min}"
    );
    assert!(serial.mean_neighbours > 5.0, "{serial:?}");
}
