//! Crowds on stacked planes (floors, see [`Space::Planar`]): a floor's agents meet only its own
//! agents, obstacles and threats, and move on any floor as they would on floor 0.

use glam::{Quat, Vec3};

use crate::*;

const DT: f32 = 1.0 / 20.0;

/// A tuning that uses every part of the kernel a floor could leak through: the flocking
/// rules, seeking, velocity obstacles, shape casts round obstacles with a hold, the walls of a
/// box, fleeing.
fn busy_tuning() -> FlockTuning {
    FlockTuning {
        weights: FlockWeights {
            separation: 1.5,
            alignment: 0.5,
            cohesion: 0.3,
            target: 1.0,
            flee: 2.0,
            ..Default::default()
        },
        limits: SteeringLimits {
            max_speed: 1.5,
            max_force: 6.0,
            arrival_radius: 1.0,
            reach_radius: 0.25,
            ..Default::default()
        },
        perception: Perception {
            neighbour_radius: 3.0,
            collision_distance: 0.6,
            velocity_obstacles: VelocityObstacles::Reciprocal,
            ..Default::default()
        },
        boundary: Boundary::Walls {
            min: Vec3::new(-20.0, -12.0, 0.0),
            max: Vec3::new(20.0, 12.0, 0.0),
            margin: 2.0,
            weight: 1.0,
        },
    }
}

/// Obstacles of every kind, on floor 0: a wall, a pillar, a block.
fn obstacles() -> Vec<Shape> {
    vec![
        Shape::Capsule {
            a: Vec3::new(0.0, -6.0, 0.0),
            b: Vec3::new(0.0, 2.0, 0.0),
            radius: 0.0,
        },
        Shape::Sphere {
            centre: Vec3::new(-6.0, 4.0, 0.0),
            radius: 1.0,
        },
        Shape::Box {
            centre: Vec3::new(7.0, -3.0, 0.0),
            half_extents: Vec3::new(1.0, 2.0, 1.0),
            rotation: Quat::from_rotation_z(0.4),
        },
    ]
}

/// Forty agents from the west half of the box sent across the wall to the east half (or, with
/// `eastward` false, the other way), spread on a lattice; each as pushed on `floor`.
fn walkers(eastward: bool) -> Vec<(Vec3, Vec3)> {
    (0..40)
        .map(|k| {
            let (column, row) = ((k % 5) as f32, (k / 5) as f32);
            let start = Vec3::new(-15.0 + 1.2 * column, -8.0 + 2.0 * row, 0.0);
            let goal = Vec3::new(14.0 - 1.1 * column, 8.0 - 2.1 * row, 0.0);
            if eastward {
                (start, goal)
            } else {
                (-start, -goal)
            }
        })
        .collect()
}

/// A crowd holding `groups`, each a floor and its walkers, with the obstacles on every floor
/// named in `walled`, and a still threat at the middle of floor `threatened`.
fn crowd_on(groups: &[(i32, bool)], walled: &[i32], threatened: i32) -> Crowd {
    let mut crowd = Crowd::new(Space::Planar);
    crowd.set_avoidance(ObstacleAvoidance {
        hold_seconds: 0.5,
        ..Default::default()
    });
    let params = crowd.add_params(busy_tuning());
    for &(floor, eastward) in groups {
        let up = Vec3::Z * Space::floor_height(floor);
        for (start, goal) in walkers(eastward) {
            crowd.push(AgentInput {
                position: start + up,
                velocity: Vec3::ZERO,
                heading: Vec3::X,
                flock: 0,
                params,
                // A target's z does not count: it is sought on the agent's floor.
                target: Some(goal - up * 7.0),
            });
        }
    }
    let shapes = walled.iter().flat_map(|&floor| {
        let up = Vec3::Z * Space::floor_height(floor);
        obstacles().into_iter().map(move |s| s.translated(up))
    });
    assert_eq!(crowd.set_obstacles(shapes), 0);
    let threat = Threat {
        position: Vec3::new(-4.0, -1.0, Space::floor_height(threatened)),
        velocity: Vec3::ZERO,
        radius: 4.0,
    };
    assert_eq!(crowd.set_threats([threat]), 0);
    crowd
}

/// Every agent's position and velocity.
fn bodies(crowd: &Crowd) -> Vec<(Vec3, Vec3)> {
    (0..crowd.len())
        .map(|i| (crowd.position(i), crowd.velocity(i)))
        .collect()
}

/// Every body's x and y after each of `ticks` ticks, checking that each stays exactly on
/// the floor it started on.
fn walk(mut crowd: Crowd, ticks: usize) -> Vec<Vec<[u32; 4]>> {
    let floors: Vec<f32> = bodies(&crowd).iter().map(|(p, _)| p.z).collect();
    (0..ticks)
        .map(|tick| {
            crowd.step(DT);
            (bodies(&crowd).into_iter().zip(&floors))
                .map(|((p, v), &z)| {
                    assert_eq!(p.z, z, "tick {tick}: a body left its floor");
                    assert_eq!(v.z, 0.0);
                    [p.x, p.y, v.x, v.y].map(f32::to_bits)
                })
                .collect()
        })
        .collect()
}

/// The busy crowd, its walls and its threat moved up three floors (and down two) walks the
/// same ways bit for bit as on floor 0 for 20 s, and every body stays exactly on its floor.
/// On floor 0, meanwhile, the walkers press against the wall, some round it, and no body's
/// centre comes within 0.25 m of it (measured: 11 of 40 round it by then).
#[test]
fn a_crowd_on_any_floor_moves_bit_for_bit_as_on_floor_zero() {
    let ticks = 400;
    let ground = walk(crowd_on(&[(0, true)], &[0], 0), ticks);
    for floor in [3, -2] {
        let raised = walk(crowd_on(&[(floor, true)], &[floor], floor), ticks);
        assert!(ground == raised, "floor {floor} walked otherwise");
    }
    let mut crowd = crowd_on(&[(0, true)], &[0], 0);
    for _ in 0..ticks {
        crowd.step(DT);
        for (p, _) in bodies(&crowd) {
            let off_wall = p.distance(Vec3::new(0.0, p.y.clamp(-6.0, 2.0), 0.0));
            assert!(off_wall > 0.25, "a body at {p} is in the wall");
        }
    }
    let round = bodies(&crowd).iter().filter(|(p, _)| p.x > 1.0).count();
    assert!((5..40).contains(&round), "{round} of 40 round the wall");
}

/// Two crowds cross the same ground head on, one on floor 0 and one on floor 1, with the wall,
/// the pillar, the block and the threat on floor 1 only. The first 40 agents of a crowd walk
/// bit for bit as they do alone, whichever floor's they are, though bodies of the two floors
/// come as near as 0.03 m across the plane: floor 0's as on open ground, floor 1's as with its
/// obstacles and threat. (The grid gives each floor cells of its own, so that even the order in
/// which neighbours are summed is the same; the first 40 keep their indices, which pick their
/// draws.) Meanwhile floor-0 walkers pass where floor 1's wall stands, where on their own
/// floor none could by then.
#[test]
fn crowds_on_two_floors_never_meet() {
    let (ground, upper) = ((0, true), (1, false));
    let mut ground_first = crowd_on(&[ground, upper], &[1], 1);
    let mut upper_first = crowd_on(&[upper, ground], &[1], 1);
    let mut open = crowd_on(&[ground], &[], 7);
    let mut upper_alone = crowd_on(&[upper], &[1], 1);
    let mut walled = crowd_on(&[ground], &[0], 0);
    let mut nearest_across = f32::INFINITY;
    for tick in 0..400 {
        for crowd in [
            &mut ground_first,
            &mut upper_first,
            &mut open,
            &mut upper_alone,
            &mut walled,
        ] {
            crowd.step(DT);
        }
        let all = bodies(&ground_first);
        assert!(
            all[..40] == bodies(&open),
            "tick {tick}: floor 0 walked otherwise"
        );
        let first = &bodies(&upper_first)[..40];
        assert!(
            first == bodies(&upper_alone),
            "tick {tick}: floor 1 walked otherwise"
        );
        for (a, _) in &all[..40] {
            for (b, _) in &all[40..] {
                nearest_across = nearest_across.min(a.truncate().distance(b.truncate()));
            }
        }
        if tick == 199 {
            let through = |crowd: &Crowd| {
                (bodies(crowd).iter().take(40))
                    .filter(|(p, _)| p.x > 0.5 && (-6.0..2.0).contains(&p.y))
                    .count()
            };
            assert!(
                through(&ground_first) >= 10,
                "{} passed",
                through(&ground_first)
            );
            assert_eq!(through(&walled), 0);
        }
    }
    assert!(
        nearest_across < 0.05,
        "the crowds never met: {nearest_across} m apart"
    );
}

/// Floors are the nearest whole multiples of [`FLOOR_SPACING`]; heights far beyond any floor
/// saturate, and NaN is floor 0.
#[test]
fn heights_round_to_the_nearest_floor() {
    let s = FLOOR_SPACING;
    assert_eq!(Space::floor_of(0.0), 0);
    assert_eq!(Space::floor_of(-0.0), 0);
    assert_eq!(Space::floor_of(0.49 * s), 0);
    assert_eq!(Space::floor_of(0.51 * s), 1);
    assert_eq!(Space::floor_of(-0.51 * s), -1);
    assert_eq!(Space::floor_of(5.0 * s), 5);
    assert_eq!(Space::floor_of(f32::NAN), 0);
    assert_eq!(Space::floor_of(f32::INFINITY), i32::MAX);
    assert_eq!(Space::floor_of(f32::MIN), i32::MIN);
    assert_eq!(Space::floor_height(-3), -3.0 * s);
    for floor in [i32::MIN, -7, 0, 12, i32::MAX] {
        assert_eq!(Space::floor_of(Space::floor_height(floor)), floor);
    }
}

/// An agent pushed at a height far beyond any floor, or at a NaN one, walks on the floor it
/// rounds to (the highest, or floor 0) and reaches its target there; the crowd round it is
/// untouched.
#[test]
fn agents_at_extreme_heights_walk_on_their_floor() {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(busy_tuning());
    for (k, z) in [f32::MAX, f32::NAN, -1e30, 3.0].into_iter().enumerate() {
        crowd.push(AgentInput {
            position: Vec3::new(-10.0, 3.0 * k as f32 - 4.0, z),
            velocity: Vec3::ZERO,
            heading: Vec3::X,
            flock: 0,
            params,
            target: Some(Vec3::new(10.0, 3.0 * k as f32 - 4.0, 0.0)),
        });
    }
    let floors = [i32::MAX, 0, i32::MIN, 0];
    for _ in 0..600 {
        crowd.step(DT);
    }
    for (k, ((p, v), floor)) in bodies(&crowd).into_iter().zip(floors).enumerate() {
        assert!(p.is_finite() && v.is_finite());
        assert_eq!(p.z, Space::floor_height(floor));
        let target = glam::Vec2::new(10.0, 3.0 * k as f32 - 4.0);
        let left = p.truncate().distance(target);
        assert!(left < 0.3, "agent {k} at {p} short of its target");
    }
}
