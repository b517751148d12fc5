//! Hostile input, generated: whatever the numbers, nothing panics and every agent's state stays
//! finite.

use glam::Vec3;
use proptest::prelude::*;

use crate::*;

/// Cases per property in CI; set `PROPTEST_CASES` for a longer hunt.
const CASES: u32 = 1024;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig::with_cases(cases)
}

/// Any `f32`, with the awkward ones often: NaN, infinities, zeros, huge, tiny and denormal.
fn nasty_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -50.0_f32..50.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(0.0_f32),
        1 => Just(-0.0_f32),
        1 => Just(1e30_f32),
        1 => Just(-1e30_f32),
        1 => Just(f32::MIN_POSITIVE / 4.0),
        1 => Just(f32::MAX),
        1 => any::<f32>(),
    ]
}

fn nasty_vec3() -> impl Strategy<Value = Vec3> {
    (nasty_f32(), nasty_f32(), nasty_f32()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn nasty_params() -> impl Strategy<Value = FlockTuning> {
    let weights = (
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        (nasty_f32(), any::<bool>(), 0_u8..3),
        (
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
        ),
    )
        .prop_map(
            |(
                separation,
                alignment,
                cohesion,
                target,
                collision_avoidance,
                flee,
                (noise, desired, blending),
                (leader, flow, wander, wander_rate, standoff),
            )| {
                FlockWeights {
                    separation,
                    alignment,
                    cohesion,
                    target,
                    collision_avoidance,
                    flee,
                    noise,
                    leader,
                    flow,
                    wander,
                    wander_rate,
                    standoff,
                    style: if desired {
                        RuleStyle::DesiredVelocity
                    } else {
                        RuleStyle::Vector
                    },
                    blending: match blending {
                        0 => BlendMode::WeightedSum,
                        1 => BlendMode::Prioritised,
                        _ => BlendMode::RuleLimitsOnly,
                    },
                }
            },
        );
    let limits = (
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        proptest::option::of(nasty_f32()),
        nasty_f32(),
        nasty_f32(),
    )
        .prop_map(
            |(
                max_speed,
                min_speed,
                max_force,
                arrival_radius,
                max_turn_rate,
                reach_radius,
                response_time,
            )| SteeringLimits {
                max_speed,
                min_speed,
                max_force,
                response_time,
                arrival_radius,
                max_turn_rate,
                reach_radius,
            },
        );
    let perception = (
        nasty_f32(),
        nasty_f32(),
        nasty_f32(),
        proptest::option::of(0_u32..200),
        nasty_f32(),
        nasty_f32(),
        (0_u8..3, any::<bool>(), nasty_f32()),
        (nasty_f32(), any::<u32>(), any::<u32>()),
    )
        .prop_map(
            |(
                neighbour_radius,
                separation_radius,
                field_of_view,
                max_neighbours,
                collision_distance,
                collision_horizon,
                (velocity_obstacles, counts_itself, time_gap),
                (avoidance_priority, avoidance_layers, avoidance_mask),
            )| Perception {
                neighbour_radius,
                separation_radius,
                field_of_view,
                max_neighbours,
                collision_distance,
                collision_horizon,
                velocity_obstacles: match velocity_obstacles {
                    0 => VelocityObstacles::Off,
                    1 => VelocityObstacles::Reciprocal,
                    _ => VelocityObstacles::Solid,
                },
                time_gap,
                avoidance_priority,
                avoidance_layers,
                avoidance_mask,
                counts_itself,
            },
        );
    let boundary = prop_oneof![
        Just(Boundary::None),
        (nasty_vec3(), nasty_vec3()).prop_map(|(min, max)| Boundary::Wrap { min, max }),
        (nasty_vec3(), nasty_vec3(), nasty_f32(), nasty_f32()).prop_map(
            |(min, max, margin, weight)| Boundary::Walls {
                min,
                max,
                margin,
                weight,
            }
        ),
    ];
    (weights, limits, perception, boundary).prop_map(|(weights, limits, perception, boundary)| {
        FlockTuning {
            weights,
            limits,
            perception,
            boundary,
        }
    })
}

fn nasty_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (nasty_vec3(), nasty_f32()).prop_map(|(centre, radius)| Shape::Sphere { centre, radius }),
        (nasty_vec3(), nasty_vec3(), nasty_vec3(), nasty_f32()).prop_map(
            |(centre, half_extents, axis, angle)| Shape::Box {
                centre,
                half_extents,
                rotation: glam::Quat::from_axis_angle(axis.normalize_or(Vec3::Z), angle),
            }
        ),
        (nasty_vec3(), nasty_vec3()).prop_map(|(point, normal)| Shape::HalfSpace {
            point,
            normal: normal.normalize_or_zero(),
        }),
        (nasty_vec3(), nasty_vec3(), nasty_f32()).prop_map(|(a, b, radius)| Shape::Capsule {
            a,
            b,
            radius
        }),
    ]
}

/// One agent: position, velocity, heading, flock, parameter set (by number, possibly unknown)
/// and target; `pile` puts it on the first agent's position.
fn nasty_agent() -> impl Strategy<Value = (AgentInput, bool)> {
    (
        nasty_vec3(),
        nasty_vec3(),
        nasty_vec3(),
        0_u32..3,
        0_u32..4,
        proptest::option::of(nasty_vec3()),
        any::<bool>(),
    )
        .prop_map(
            |(position, velocity, heading, flock, params, target, pile)| {
                let input = AgentInput {
                    position,
                    velocity,
                    heading,
                    flock,
                    params: ParamsId(params),
                    target,
                };
                (input, pile)
            },
        )
}

fn assert_finite(crowd: &Crowd) {
    for i in 0..crowd.len() {
        let (p, v) = (crowd.position(i), crowd.velocity(i));
        assert!(p.is_finite() && v.is_finite(), "agent {i}: {p} {v}");
        assert!(crowd.heading(i).is_finite(), "agent {i}");
    }
    let m = crowd.metrics();
    assert!(
        m.polarisation.is_finite() && m.mean_neighbours.is_finite(),
        "{m:?}"
    );
    assert!(m.mean_nearest_distance.is_none_or(f32::is_finite), "{m:?}");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_input_leaves_every_agent_finite(
        space in prop_oneof![Just(Space::Volume), Just(Space::Planar)],
        params in proptest::collection::vec(nasty_params(), 1..4),
        agents in proptest::collection::vec(nasty_agent(), 0..40),
        steps in proptest::collection::vec(nasty_f32(), 1..4),
        extra_force in nasty_vec3(),
        threads in 1_usize..4,
        obstacles in proptest::collection::vec(nasty_shape(), 0..4),
        leader in (nasty_vec3(), nasty_vec3(), nasty_f32()),
        flow in nasty_vec3(),
        speed_factor in nasty_f32(),
        detail in proptest::option::of((nasty_vec3(), nasty_f32(), 0_u32..4)),
    ) {
        let mut crowd = Crowd::new(space);
        crowd.set_obstacles(obstacles);
        let focus = detail.map_or(Vec3::ZERO, |(focus, ..)| focus);
        crowd.set_level_of_detail(
            detail.map(|(_, near_radius, interval)| LevelOfDetail { near_radius, interval }),
            focus,
        );
        let (position, velocity, distance) = leader;
        let leader = Leader { position, velocity, distance };
        for p in params {
            crowd.add_params(p);
        }
        let first = agents.first().map(|(a, _)| a.position);
        for (mut agent, pile) in agents {
            if pile {
                agent.position = first.unwrap_or(agent.position);
            }
            crowd.push(agent);
        }
        assert_finite(&crowd);
        for dt in steps {
            for i in (0..crowd.len()).step_by(2) {
                crowd.set_leader(i, Some(leader));
                crowd.set_flow(i + 1, flow);
                crowd.set_standoff(i, flow, distance);
                crowd.set_speed_factor(i + 1, speed_factor);
            }
            crowd.set_executor(ScopedThreads(threads));
            crowd.build_index();
            crowd.accumulate_forces();
            crowd.avoid_obstacles(None);
            for i in 0..crowd.len() {
                assert!(crowd.force(i).is_finite(), "force of agent {i}");
                crowd.add_force(i, extra_force);
            }
            let before: Vec<Vec3> = (0..crowd.len()).map(|i| crowd.velocity(i)).collect();
            crowd.integrate(dt, None);
            assert_finite(&crowd);
            // Integration keeps every agent within its speed limit, or (where the new state
            // would not be finite) leaves it as it was.
            for (i, &old) in before.iter().enumerate() {
                let (v, limit) = (crowd.velocity(i), crowd.limits_of(i).max_speed);
                let within = crate::maths::length(v) <= limit * (1.0 + 1e-5);
                prop_assert!(within || v == old, "agent {i}: {v} over {limit}");
            }
        }
    }

    #[test]
    fn any_query_answers_without_panicking(
        agents in proptest::collection::vec(nasty_agent(), 0..40),
        point in nasty_vec3(),
        radius in nasty_f32(),
        k in 0_usize..50,
    ) {
        let mut crowd = Crowd::new(Space::Volume);
        for (agent, _) in agents {
            crowd.push(agent);
        }
        crowd.build_index();
        let mut within = 0;
        crowd.for_each_within(point, radius, |i, d| {
            assert!(i < crowd.len() && d <= radius, "agent {i} at {d}");
            within += 1;
        });
        let nearest = crowd.k_nearest(point, k, |_| true);
        assert!(nearest.len() <= k.min(crowd.len()));
        assert!(nearest.windows(2).all(|w| w[0].1 <= w[1].1));
        if radius.is_finite() && point.is_finite() && radius >= 0.0 {
            assert!(within <= crowd.len());
        }
    }
}

// Regressions: what the properties above found, kept as plain tests.

#[test]
fn an_infinite_query_radius_does_not_overflow_the_cell_range() {
    let mut crowd = Crowd::new(Space::Volume);
    crowd.push(AgentInput {
        position: Vec3::ZERO,
        velocity: Vec3::ZERO,
        heading: Vec3::ZERO,
        flock: 0,
        params: ParamsId(0),
        target: None,
    });
    crowd.build_index();
    let mut found = Vec::new();
    crowd.for_each_within(Vec3::new(0.0, 0.0, 1e30), f32::INFINITY, |i, d| {
        found.push((i, d))
    });
    assert_eq!(
        found,
        [(0, 1e30)],
        "the distance is measured without overflow"
    );
    let mut found = Vec::new();
    crowd.for_each_within(Vec3::new(0.0, 0.0, 1e30), 1e30, |i, d| found.push((i, d)));
    assert_eq!(
        found,
        [(0, 1e30)],
        "an agent exactly at the radius is within it"
    );
}

#[test]
fn forces_near_f32_max_never_sum_to_infinity() {
    let mut crowd = Crowd::new(Space::Volume);
    let params = crowd.add_params(FlockTuning::default());
    crowd.push(AgentInput {
        position: Vec3::ZERO,
        velocity: Vec3::X,
        heading: Vec3::ZERO,
        flock: 0,
        params,
        target: None,
    });
    crowd.build_index();
    crowd.accumulate_forces();
    for _ in 0..3 {
        crowd.add_force(0, Vec3::Y * f32::MAX);
        assert!(crowd.force(0).is_finite(), "{}", crowd.force(0));
    }
    crowd.integrate(1.0 / 60.0, None);
    assert!(
        crowd.velocity(0).y > 0.0,
        "the huge force still pushes: {}",
        crowd.velocity(0)
    );
}

#[test]
fn a_speed_limit_too_large_to_square_is_capped_and_still_limits() {
    let huge = FlockTuning {
        limits: SteeringLimits {
            max_speed: 1e20,
            max_force: 1e20,
            ..Default::default()
        },
        ..Default::default()
    };
    let (params, corrections) = huge.sanitized();
    assert_eq!(params.limits.max_speed, LARGEST_PARAMETER);
    assert_eq!(params.limits.max_force, LARGEST_PARAMETER);
    assert_eq!(corrections.len(), 2, "{corrections:?}");
    let mut crowd = Crowd::new(Space::Volume);
    let id = crowd.add_params(huge);
    crowd.push(AgentInput {
        position: Vec3::ZERO,
        velocity: Vec3::X * 1e30,
        heading: Vec3::ZERO,
        flock: 0,
        params: id,
        target: None,
    });
    crowd.step(1.0);
    assert!(crowd.velocity(0).length() <= LARGEST_PARAMETER * 1.000_001);
}
