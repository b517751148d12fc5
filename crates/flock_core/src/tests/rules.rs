//! Each rule's formula, pinned on a few agents whose force is worked out by hand here.
//!
//! Every test switches on one behaviour (all other weights zero), so the force the kernel
//! reports for the first agent is that behaviour's force, weighted. The expected values are
//! written as the arithmetic of the rule's source, with the numbers of the set-up.

use glam::Vec3;

use crate::*;

/// FlockWeights with every behaviour off.
fn none() -> FlockWeights {
    FlockWeights {
        separation: 0.0,
        alignment: 0.0,
        cohesion: 0.0,
        target: 0.0,
        collision_avoidance: 0.0,
        flee: 0.0,
        noise: 0.0,
        leader: 0.0,
        flow: 0.0,
        wander: 0.0,
        standoff: 0.0,
        ..FlockWeights::default()
    }
}

/// Max speed 5, max force 8, arrival radius 3, response time `response_time`; neighbour
/// radius 4, separation radius 3; `weights`.
fn params(weights: FlockWeights, response_time: f32) -> FlockTuning {
    FlockTuning {
        weights,
        limits: SteeringLimits {
            max_speed: 5.0,
            max_force: 8.0,
            response_time,
            arrival_radius: 3.0,
            ..SteeringLimits::default()
        },
        perception: Perception {
            neighbour_radius: 4.0,
            separation_radius: 3.0,
            ..Perception::default()
        },
        boundary: Boundary::None,
    }
}

/// A crowd of one flock, each agent `(position, velocity)`, the first seeking `target`.
fn crowd(
    space: Space,
    params: FlockTuning,
    agents: &[(Vec3, Vec3)],
    target: Option<Vec3>,
) -> Crowd {
    let mut crowd = Crowd::new(space);
    let id = crowd.add_params(params);
    for (i, &(position, velocity)) in agents.iter().enumerate() {
        crowd.push(AgentInput {
            position,
            velocity,
            heading: Vec3::ZERO,
            flock: 0,
            params: id,
            target: if i == 0 { target } else { None },
        });
    }
    crowd
}

/// The steering force on the first agent after the force pass.
fn force_on_first(crowd: &mut Crowd) -> Vec3 {
    crowd.build_index();
    crowd.accumulate_forces();
    crowd.force(0)
}

#[track_caller]
fn assert_close(found: Vec3, expected: Vec3) {
    assert!(
        (found - expected).length() <= 1e-5 * (1.0 + expected.length()),
        "found {found}, expected {expected}"
    );
}

/// `v` cut to length `max` (the rules' force limit), computed without the kernel's helpers.
fn cut(v: Vec3, max: f32) -> Vec3 {
    let length = (v.x * v.x + v.y * v.y + v.z * v.z).sqrt();
    if length > max { v * (max / length) } else { v }
}

#[test]
fn separation_in_both_styles() {
    // The agent at the origin, neighbours 1 along x and 2 along y (both inside the
    // separation radius 3); weight 2.
    let agents = [
        (Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0)),
        (Vec3::X, Vec3::ZERO),
        (Vec3::new(0.0, 2.0, 0.0), Vec3::ZERO),
    ];
    let weights = FlockWeights {
        separation: 2.0,
        ..none()
    };
    // Vector style (Reynolds 1987 as the Unity tutorial codes it): sum (p - p_j) / d_j^2.
    let raw = Vec3::new(-1.0, 0.0, 0.0) / 1.0 + Vec3::new(0.0, -2.0, 0.0) / 4.0;
    let mut vector = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    assert_close(force_on_first(&mut vector), raw * 2.0);

    // Desired velocity (the flocking lab: away from neighbours by the inverse square of their
    // distance): u = sum unit(p - p_j) / d_j^2 = (-1, 0) / 1 + (0, -1) / 4, desired =
    // unit(u) * 5, force = (desired - v) / 0.5, cut to 8, weighted.
    let weights = FlockWeights {
        style: RuleStyle::DesiredVelocity,
        ..weights
    };
    let u = Vec3::new(-1.0, -0.25, 0.0);
    let desired = u / (1.0_f32 + 0.0625).sqrt() * 5.0;
    let expected = cut((desired - Vec3::new(0.0, 1.0, 0.0)) / 0.5, 8.0) * 2.0;
    let mut lab = crowd(Space::Volume, params(weights, 0.5), &agents, None);
    assert_close(force_on_first(&mut lab), expected);
}

#[test]
fn separation_ignores_agents_beyond_its_radius() {
    // One neighbour at 3.5: a neighbour (radius 4) but outside the separation radius (3).
    let agents = [
        (Vec3::ZERO, Vec3::ZERO),
        (Vec3::new(3.5, 0.0, 0.0), Vec3::ZERO),
    ];
    let weights = FlockWeights {
        separation: 1.0,
        ..none()
    };
    let mut crowd = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    assert_eq!(force_on_first(&mut crowd), Vec3::ZERO);
}

#[test]
fn alignment_in_both_styles() {
    // The agent moves along x at 1; its neighbours along y at 2 and 4: mean velocity (0, 3).
    let v = Vec3::X;
    let agents = [
        (Vec3::ZERO, v),
        (Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)),
        (Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 4.0, 0.0)),
    ];
    let mean = Vec3::new(0.0, 3.0, 0.0);
    let weights = FlockWeights {
        alignment: 1.0,
        ..none()
    };
    // Vector style (the Unity tutorial's A = mean(v_j) - v).
    let mut vector = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    assert_close(force_on_first(&mut vector), mean - v);

    // Desired velocity (Reynolds 1999, the flocking lab): along the neighbours' mean heading
    // at max speed: desired = unit(mean) * 5 = (0, 5), force = desired - v.
    let weights = FlockWeights {
        style: RuleStyle::DesiredVelocity,
        ..weights
    };
    let mut lab = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    assert_close(force_on_first(&mut lab), Vec3::new(0.0, 5.0, 0.0) - v);
}

#[test]
fn desired_velocity_alignment_leaves_an_aligned_agent_alone() {
    // At max speed along x among neighbours that lean off x by 0.01: the mean heading is
    // nearly the agent's, so the force is nearly zero. (Steering along the difference of the
    // velocities instead, (0, 0.01), would push across at full strength.)
    let v = Vec3::new(5.0, 0.0, 0.0);
    let agents = [
        (Vec3::ZERO, v),
        (Vec3::new(1.0, 0.0, 0.0), Vec3::new(5.0, 0.01, 0.0)),
        (Vec3::new(0.0, 1.0, 0.0), Vec3::new(5.0, 0.01, 0.0)),
    ];
    let weights = FlockWeights {
        alignment: 1.0,
        style: RuleStyle::DesiredVelocity,
        ..none()
    };
    let mut crowd = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    let desired = Vec3::new(5.0, 0.01, 0.0) / (25.0_f32 + 0.0001).sqrt() * 5.0;
    let force = force_on_first(&mut crowd);
    assert_close(force, desired - v);
    assert!(force.length() < 0.011, "{force}");
}

#[test]
fn cohesion_in_both_styles() {
    // The agent at rest at the origin; neighbours at (2, 0) and (0, 4): centroid (1, 2).
    let agents = [
        (Vec3::ZERO, Vec3::ZERO),
        (Vec3::new(2.0, 0.0, 0.0), Vec3::ZERO),
        (Vec3::new(0.0, 4.0, 0.0), Vec3::ZERO),
    ];
    let centroid = Vec3::new(1.0, 2.0, 0.0);
    let weights = FlockWeights {
        cohesion: 0.5,
        ..none()
    };
    // Vector style (the Unity tutorial's C = mean(p_j) - p).
    let mut vector = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    assert_close(force_on_first(&mut vector), centroid * 0.5);

    // Desired velocity: toward the centroid at max speed, within a response time of 0.25 s:
    // (unit(1, 2) * 5 - 0) / 0.25 has length 20, cut to the max force 8.
    let weights = FlockWeights {
        style: RuleStyle::DesiredVelocity,
        ..weights
    };
    let mut lab = crowd(Space::Volume, params(weights, 0.25), &agents, None);
    let expected = centroid / 5.0_f32.sqrt() * 8.0 * 0.5;
    assert_close(force_on_first(&mut lab), expected);
}

#[test]
fn an_agent_that_counts_itself_averages_its_own_velocity_and_place() {
    // Vicsek et al. 1995: the mean is over the particle and its neighbours. The agent at the
    // origin moving (1, 0); neighbours at (2, 0) and (0, 4) moving (0, 2) and (0, 4).
    let v = Vec3::X;
    let agents = [
        (Vec3::ZERO, v),
        (Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)),
        (Vec3::new(0.0, 4.0, 0.0), Vec3::new(0.0, 4.0, 0.0)),
    ];
    let mut counting = params(
        FlockWeights {
            alignment: 1.0,
            ..none()
        },
        1.0,
    );
    counting.perception.counts_itself = true;
    let mut aligning = crowd(Space::Volume, counting, &agents, None);
    let mean_velocity = (v + Vec3::new(0.0, 2.0, 0.0) + Vec3::new(0.0, 4.0, 0.0)) / 3.0;
    assert_close(force_on_first(&mut aligning), mean_velocity - v);

    counting.weights = FlockWeights {
        cohesion: 1.0,
        ..none()
    };
    let mut cohering = crowd(Space::Volume, counting, &agents, None);
    let centroid = (Vec3::ZERO + Vec3::new(2.0, 0.0, 0.0) + Vec3::new(0.0, 4.0, 0.0)) / 3.0;
    assert_close(force_on_first(&mut cohering), centroid);
}

#[test]
fn seek_and_arrive() {
    // Reynolds 1999: desired = unit(target - p) * max speed, slowed to max speed * d / r
    // inside the arrival radius r; force = (desired - v) / response time, cut to max force.
    let v = Vec3::new(0.0, 1.0, 0.0);
    let weights = FlockWeights {
        target: 0.6,
        ..none()
    };
    let far = Vec3::new(10.0, 0.0, 0.0);
    let mut seeking = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(Vec3::ZERO, v)],
        Some(far),
    );
    assert_close(
        force_on_first(&mut seeking),
        (Vec3::new(5.0, 0.0, 0.0) - v) * 0.6,
    );

    // 1.5 inside an arrival radius of 3: half speed.
    let near = Vec3::new(1.5, 0.0, 0.0);
    let mut arriving = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(Vec3::ZERO, v)],
        Some(near),
    );
    assert_close(
        force_on_first(&mut arriving),
        (Vec3::new(2.5, 0.0, 0.0) - v) * 0.6,
    );

    // With a response time of 0.1 s the same change is asked ten times as hard: (25, -10),
    // cut to 8.
    let mut quick = crowd(
        Space::Volume,
        params(weights, 0.1),
        &[(Vec3::ZERO, v)],
        Some(near),
    );
    let expected = Vec3::new(25.0, -10.0, 0.0) / 725.0_f32.sqrt() * 8.0 * 0.6;
    assert_close(force_on_first(&mut quick), expected);

    // On the target itself the desired velocity is zero: brake.
    let mut there = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(Vec3::ZERO, v)],
        Some(Vec3::ZERO),
    );
    assert_close(force_on_first(&mut there), -v * 0.6);
}

#[test]
fn pursuit_aims_where_the_quarry_will_be() {
    // Reynolds 1999: predict the quarry T ahead, T = distance / max speed (here at most 3 s).
    assert_eq!(lead_time(10.0, 5.0), 2.0);
    assert_eq!(lead_time(100.0, 5.0), LONGEST_LEAD);
    assert_eq!(lead_time(10.0, 0.0), 0.0);
    // A quarry 10 away along x moving (0, 2): 2 s ahead it is at (10, 4); seek that point.
    let (quarry, quarry_velocity) = (Vec3::new(10.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
    let aim = quarry + quarry_velocity * lead_time(quarry.length(), 5.0);
    assert_eq!(aim, Vec3::new(10.0, 4.0, 0.0));
    let weights = FlockWeights {
        target: 1.0,
        ..none()
    };
    let mut pursuer = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(Vec3::ZERO, Vec3::ZERO)],
        Some(aim),
    );
    let expected = Vec3::new(10.0, 4.0, 0.0) / 116.0_f32.sqrt() * 5.0;
    assert_close(force_on_first(&mut pursuer), expected);
}

#[test]
fn flee_and_evade() {
    // Reynolds 1999 flee: desired = unit(p - predator) * max speed. Each predator within its
    // radius counts by its depth 1 - d / radius.
    let v = Vec3::new(0.0, 1.0, 0.0);
    let weights = FlockWeights {
        flee: 1.0,
        ..none()
    };
    let mut fleeing = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(Vec3::ZERO, v)],
        None,
    );
    fleeing.set_threats([Threat {
        position: Vec3::new(3.0, 0.0, 0.0),
        velocity: Vec3::ZERO,
        radius: 6.0,
    }]);
    assert_close(force_on_first(&mut fleeing), Vec3::new(-5.0, 0.0, 0.0) - v);

    // Two predators at depth 0.5 each, one along x and one below: away along (-1, 1).
    fleeing.set_threats([
        Threat {
            position: Vec3::new(3.0, 0.0, 0.0),
            velocity: Vec3::ZERO,
            radius: 6.0,
        },
        Threat {
            position: Vec3::new(0.0, -2.0, 0.0),
            velocity: Vec3::ZERO,
            radius: 4.0,
        },
    ]);
    let desired = Vec3::new(-1.0, 1.0, 0.0) / 2.0_f32.sqrt() * 5.0;
    assert_close(force_on_first(&mut fleeing), desired - v);

    // Evade: a predator 4 away moving (0, 3) is fled from where it will be 4 / 5 s ahead,
    // (4, 2.4); a predator beyond its radius is ignored.
    fleeing.set_threats([
        Threat {
            position: Vec3::new(4.0, 0.0, 0.0),
            velocity: Vec3::new(0.0, 3.0, 0.0),
            radius: 10.0,
        },
        Threat {
            position: Vec3::new(0.0, 9.0, 0.0),
            velocity: Vec3::ZERO,
            radius: 8.0,
        },
    ]);
    let away = Vec3::new(-4.0, -2.4, 0.0);
    let desired = away / (16.0_f32 + 5.76).sqrt() * 5.0;
    assert_close(force_on_first(&mut fleeing), desired - v);
}

#[test]
fn walls_push_inward_by_depth_and_wrap_moves_across() {
    // Inside the margin 2 of where the body (radius 0.35, the default) would touch a wall, the
    // inward force is depth / margin (per axis) times max force times the walls' weight: at
    // x = 9 (1.35 into the band of the +x wall, which starts at 10 - 0.35 - 2) and z = -9.5
    // (1.85 into the band of the -z wall).
    let mut walled = params(none(), 1.0);
    walled.boundary = Boundary::Walls {
        min: Vec3::splat(-10.0),
        max: Vec3::splat(10.0),
        margin: 2.0,
        weight: 1.5,
    };
    assert_eq!(walled.perception.collision_distance, 0.7);
    let at = Vec3::new(9.0, 0.0, -9.5);
    let mut crowd_walled = crowd(Space::Volume, walled, &[(at, Vec3::ZERO)], None);
    let expected = Vec3::new(-1.35 / 2.0, 0.0, 1.85 / 2.0) * 8.0 * 1.5;
    assert_close(force_on_first(&mut crowd_walled), expected);

    // Wrap: leaving the +x face by 0.55 re-enters 0.55 inside the -x face.
    let mut wrapped = params(none(), 1.0);
    wrapped.boundary = Boundary::Wrap {
        min: Vec3::splat(-10.0),
        max: Vec3::splat(10.0),
    };
    let start = Vec3::new(9.95, 0.0, 0.0);
    let mut crowd_wrapped = crowd(
        Space::Volume,
        wrapped,
        &[(start, Vec3::new(5.0, 0.0, 0.0))],
        None,
    );
    crowd_wrapped.step(0.12);
    assert_close(crowd_wrapped.position(0), Vec3::new(-9.45, 0.0, 0.0));
}

/// On the plane the walls' box counts on X and Y only: a box whose z range leaves out the
/// plane (z from 1 to 1) still holds agents at z = 0, and an agent reaching its +x wall stops
/// where its body (radius 0.35) touches it, with and without velocity obstacles.
#[test]
fn planar_walls_keep_agents_on_the_plane() {
    for mode in [VelocityObstacles::Off, VelocityObstacles::Solid] {
        let mut walled = params(none(), 1.0);
        walled.boundary =
            Boundary::walls(Vec3::new(-5.0, -5.0, 1.0), Vec3::new(5.0, 5.0, 1.0), 0.0);
        walled.perception.velocity_obstacles = mode;
        let mut crowd = crowd(
            Space::Planar,
            walled,
            &[(Vec3::new(4.5, 0.0, 0.0), Vec3::new(5.0, 0.0, 0.0))],
            None,
        );
        crowd.step(0.1);
        assert_close(crowd.position(0), Vec3::new(5.0 - 0.35, 0.0, 0.0));
    }
}

#[test]
fn leader_station_and_path() {
    // Reynolds 1999 leader following: arrive at a station behind the leader (here matching
    // its velocity), and step sideways out of a corridor ahead of it.
    let leader = Leader {
        position: Vec3::ZERO,
        velocity: Vec3::new(2.0, 0.0, 0.0),
        distance: 3.0,
    };
    let weights = FlockWeights {
        leader: 1.0,
        ..none()
    };
    // Behind and 1 off the station (-3, 0): inside the arrival radius 3, approach at 5 / 3.
    let mut behind = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(Vec3::new(-3.0, 1.0, 0.0), Vec3::ZERO)],
        None,
    );
    behind.set_leader(0, Some(leader));
    let desired = Vec3::new(2.0, 0.0, 0.0) + Vec3::new(0.0, -1.0, 0.0) * 5.0 / 3.0;
    assert_close(force_on_first(&mut behind), desired);

    // In the corridor ahead (2 along, 0.5 across, inside half-width 1.5 and reach 3 + 2 * 1):
    // aside along +y at 8 * (1 - 0.5 / 1.5); and toward the station from 5.02 away at full
    // speed, leader velocity plus that, cut to max speed 5.
    let at = Vec3::new(2.0, 0.5, 0.0);
    let mut ahead = crowd(
        Space::Volume,
        params(weights, 1.0),
        &[(at, Vec3::ZERO)],
        None,
    );
    ahead.set_leader(0, Some(leader));
    let aside = Vec3::new(0.0, 1.0, 0.0) * 8.0 * (1.0 - 0.5 / 1.5);
    let to_station = Vec3::new(-3.0, 0.0, 0.0) - at;
    let towards = to_station / (25.0_f32 + 0.25).sqrt() * 5.0;
    let station = cut(Vec3::new(2.0, 0.0, 0.0) + towards, 5.0);
    assert_close(force_on_first(&mut ahead), aside + station);
}

#[test]
fn wander_steers_toward_a_point_on_a_sphere_ahead() {
    // Reynolds 1999 wander: a point on a unit sphere two radii ahead; here the wander
    // direction is (0, 1), so the agent moving along x steers toward (2, 1).
    let v = Vec3::new(2.0, 0.0, 0.0);
    let weights = FlockWeights {
        wander: 1.0,
        ..none()
    };
    for space in [Space::Volume, Space::Planar] {
        let mut crowd = crowd(space, params(weights, 1.0), &[(Vec3::ZERO, v)], None);
        crowd.set_memory(
            0,
            AgentMemory {
                wander: Vec3::new(0.0, 1.0, 0.0),
                ..AgentMemory::default()
            },
        );
        let desired = Vec3::new(2.0, 1.0, 0.0) / 5.0_f32.sqrt() * 5.0;
        assert_close(force_on_first(&mut crowd), desired - v);
    }
}

#[test]
fn the_wander_point_drifts_by_at_most_its_rate() {
    // A random walk of rate 2 rad / sqrt(s): one tick of 1 / 64 s moves the point at most
    // 2 * sqrt(1 / 64) = 0.25 along each axis before it is put back on the sphere.
    let weights = FlockWeights {
        wander: 1.0,
        wander_rate: 2.0,
        ..none()
    };
    let agents: Vec<_> = (0..200)
        .map(|i| (Vec3::new(i as f32 * 10.0, 0.0, 0.0), Vec3::X))
        .collect();
    let mut crowd = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    crowd.set_seed(5);
    crowd.step(1.0 / 64.0);
    let before: Vec<Vec3> = (0..200).map(|i| crowd.memory(i).wander).collect();
    crowd.step(1.0 / 64.0);
    let mut largest: f32 = 0.0;
    for (i, before) in before.iter().enumerate() {
        let after = crowd.memory(i).wander;
        assert!((after.length() - 1.0).abs() < 1e-5);
        largest = largest.max(after.distance(*before));
    }
    // The chord is at most the step's length, 0.25 * sqrt(3), and the walk does move.
    assert!(largest <= 0.25 * 3.0_f32.sqrt() + 1e-5, "{largest}");
    assert!(largest > 0.1, "{largest}");
}

#[test]
fn vicsek_noise_turns_by_at_most_half_eta_either_way() {
    // Vicsek et al. 1995: the new angle is the old plus a uniform draw from [-eta/2, eta/2].
    let eta = 0.4;
    let mut lone = params(
        FlockWeights {
            noise: eta,
            ..none()
        },
        1.0,
    );
    lone.limits.min_speed = 5.0;
    let agents: Vec<_> = (0..1_000)
        .map(|i| {
            (
                Vec3::new(i as f32 * 10.0, 0.0, 0.0),
                Vec3::new(5.0, 0.0, 0.0),
            )
        })
        .collect();
    let mut crowd = crowd(Space::Planar, lone, &agents, None);
    crowd.set_seed(3);
    crowd.step(0.1);
    let angles: Vec<f32> = (0..1_000)
        .map(|i| {
            let v = crowd.velocity(i);
            assert!((v.length() - 5.0).abs() < 1e-4);
            libm::atan2f(v.y, v.x)
        })
        .collect();
    let (lo, hi) = angles
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &a| (lo.min(a), hi.max(a)));
    let mean = angles.iter().sum::<f32>() / angles.len() as f32;
    assert!(
        lo >= -eta / 2.0 - 1e-6 && hi <= eta / 2.0 + 1e-6,
        "{lo} {hi}"
    );
    // Uniform on [-0.2, 0.2]: the extremes of 1,000 draws come within 0.01 of the ends, and
    // the mean within 4 standard errors (0.4 / sqrt(12 * 1000) = 0.0037) of zero.
    assert!(lo < -0.19 && hi > 0.19, "{lo} {hi}");
    assert!(mean.abs() < 0.015, "{mean}");
}

#[test]
fn a_response_time_of_one_tick_is_reynolds_per_step_update() {
    // Reynolds 1999 and the flocking lab: each step the velocity changes by the steering,
    // desired - v, cut to the max force per step. With a response time of one tick (1 / 60 s)
    // and a max force of 360 (6 per tick), seeking from rest changes the velocity by
    // (desired - v) cut to 6 each tick.
    let tick = 1.0 / 60.0;
    let mut reynolds = params(
        FlockWeights {
            target: 1.0,
            ..none()
        },
        tick,
    );
    reynolds.limits.max_speed = 180.0;
    reynolds.limits.max_force = 360.0;
    reynolds.limits.arrival_radius = 0.0;
    let target = Vec3::new(1_000.0, 0.0, 0.0);
    let mut crowd = crowd(
        Space::Planar,
        reynolds,
        &[(Vec3::ZERO, Vec3::new(0.0, 3.0, 0.0))],
        Some(target),
    );
    let mut v = Vec3::new(0.0, 3.0, 0.0);
    for _ in 0..40 {
        let desired = (target - crowd.position(0)).normalize() * 180.0;
        crowd.step(tick);
        v = cut(v + cut(desired - v, 6.0), 180.0);
        assert!(
            (crowd.velocity(0) - v).length() < 1e-3,
            "{} vs {v}",
            crowd.velocity(0)
        );
    }
    // Near the desired velocity the whole remaining change is made in one step.
    let desired = (target - crowd.position(0)).normalize() * 180.0;
    assert!((crowd.velocity(0) - desired).length() < 0.05);
}

#[test]
fn rule_limits_only_adds_limited_rules_without_cutting_the_sum() {
    // Separation from a neighbour at 1 along x (vector style: (-1, 0) / 1, weight 6) and a
    // seek along +y ((0, 5), weight 1): 6 + 5 along two axes. The weighted sum cuts the total
    // to the max force 8; rule limits only keep each rule under 8 and add them.
    let agents = [(Vec3::ZERO, Vec3::ZERO), (Vec3::X, Vec3::ZERO)];
    let target = Some(Vec3::new(0.0, 100.0, 0.0));
    let mut weights = FlockWeights {
        separation: 6.0,
        target: 1.0,
        ..none()
    };
    let expected = Vec3::new(-6.0, 5.0, 0.0);
    for blending in [BlendMode::WeightedSum, BlendMode::RuleLimitsOnly] {
        weights.blending = blending;
        let mut crowd = crowd(Space::Planar, params(weights, 1.0), &agents, target);
        assert_close(force_on_first(&mut crowd), expected);
        // Integration applies the max force to the sum only under the weighted sum.
        crowd.integrate(0.1, None);
        let applied = match blending {
            BlendMode::RuleLimitsOnly => expected,
            _ => cut(expected, 8.0),
        };
        assert_close(crowd.velocity(0), cut(applied * 0.1, 5.0));
    }
}

#[test]
fn standoff_backs_off_at_the_asked_fraction_of_max_speed() {
    // Desired velocity = unit(away) * max speed * urgency; force = (desired - v) / response
    // time, limited to the max force, weighted.
    let v = Vec3::new(1.0, 0.0, 0.0);
    let weights = FlockWeights {
        standoff: 3.0,
        ..none()
    };
    let mut crowd = crowd(
        Space::Volume,
        params(weights, 0.5),
        &[(Vec3::ZERO, v)],
        None,
    );
    assert!(crowd.set_standoff(0, Vec3::new(0.0, -2.0, 0.0), 0.5));
    // (0, -1, 0) * 5 * 0.5 = (0, -2.5, 0); ((0, -2.5, 0) - v) / 0.5 = (-2, -5, 0), of length
    // 5.39, under 8; times 3.
    assert_close(force_on_first(&mut crowd), Vec3::new(-6.0, -15.0, 0.0));
    // An urgency over 1 is cut to 1: (0, -5, 0) - v = (-1, -5, 0), over 0.5 s (-2, -10, 0), of
    // length 10.2, cut to 8.
    let mut crowd = crowd_with_one(weights, v);
    crowd.set_standoff(0, Vec3::NEG_Y, 7.0);
    let expected = Vec3::new(-2.0, -10.0, 0.0).normalize() * 8.0 * 3.0;
    assert_close(force_on_first(&mut crowd), expected);
    // No direction, no standoff.
    let mut crowd = crowd_with_one(weights, v);
    assert!(!crowd.set_standoff(0, Vec3::ZERO, 1.0));
    assert!(!crowd.set_standoff(0, Vec3::NEG_Y, f32::NAN));
    assert_close(force_on_first(&mut crowd), Vec3::ZERO);
}

/// One agent at the origin moving at `v`, tuned by `weights` with a response time of 0.5 s.
fn crowd_with_one(weights: FlockWeights, v: Vec3) -> Crowd {
    crowd(
        Space::Volume,
        params(weights, 0.5),
        &[(Vec3::ZERO, v)],
        None,
    )
}

#[test]
fn a_replaced_force_drops_the_rules_and_the_added_forces() {
    let weights = FlockWeights {
        cohesion: 1.0,
        ..none()
    };
    let agents = [(Vec3::ZERO, Vec3::ZERO), (Vec3::X, Vec3::ZERO)];
    let mut crowd = crowd(Space::Volume, params(weights, 1.0), &agents, None);
    assert!(!crowd.replace_force(0, Vec3::Y), "before the force pass");
    // Cohesion toward the other agent: mean offset (1, 0, 0).
    assert_close(force_on_first(&mut crowd), Vec3::X);
    crowd.add_force(0, Vec3::Y);
    assert!(crowd.replace_force(0, Vec3::new(0.0, 0.0, 2.0)));
    assert!(!crowd.replace_force(0, Vec3::NAN));
    assert_eq!(crowd.force(0), Vec3::new(0.0, 0.0, 2.0));
    // It counts as added: what is added after it adds to it.
    crowd.add_force(0, Vec3::X);
    crowd.integrate(0.5, None);
    assert_close(crowd.velocity(0), Vec3::new(1.0, 0.0, 2.0) * 0.5);
}

#[test]
fn a_huge_vector_is_cut_to_a_tiny_limit_without_losing_precision() {
    // About 7.8e29 long cut to 3.4e-13: the ratio of the two, about 4.4e-43, is a subnormal
    // number with three significant digits, which left the result 0.13% too long.
    let v = Vec3::new(-1.780_079_8e29, -7.582_083e29, 0.0);
    let max = 3.422_316_1e-13;
    let cut = crate::maths::limit_length(v, max);
    let length = crate::maths::length(cut);
    assert!((length - max).abs() <= max * 1e-6, "{length} against {max}");
    let direction = v / crate::maths::length(v);
    assert!((cut / length - direction).length() <= 1e-6, "{cut} turned");
}
