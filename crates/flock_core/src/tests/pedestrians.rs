//! The pedestrian recipe ([`FlockTuning::pedestrian`]) as the kernel holds it: values the
//! checks accept, and no one frozen at a wall's end. The validation scenes (RiMEA's tests,
//! bottlenecks, a two-way corridor) are the `flock_validation` crate's.

use glam::Vec3;

use crate::*;

/// The recipe's values are ones the checks accept as they are.
#[test]
fn the_pedestrian_recipe_needs_no_correction() {
    let (sanitized, corrections) = FlockTuning::pedestrian().sanitized();
    assert!(corrections.is_empty(), "{corrections:?}");
    assert_eq!(sanitized, FlockTuning::pedestrian());
}

/// The pedestrian recipe with each other avoided in velocity-obstacle `mode`.
fn pedestrians_avoiding_by(mode: VelocityObstacles) -> FlockTuning {
    FlockTuning {
        perception: Perception {
            velocity_obstacles: mode,
            ..FlockTuning::pedestrian().perception
        },
        ..FlockTuning::pedestrian()
    }
}

/// People pressed against a wall beside a door (0.3 to 1.2 m from its posts, on both sides of
/// it; on one face of the wall, then on the other), each holding an avoidance direction along
/// the wall away from the door and sent to a point 3 m past the door, beyond the wall: with
/// every velocity-obstacle mode, every one of them goes through the door within 30 s. The hold
/// once renewed itself for as long as the way to the target was blocked, and its pull away from
/// the door cancelled the seek that would slide the agent into it; and the velocity-obstacle
/// step took an agent pressed against a wall for one blocked by the crowd, and stepped it
/// aside along the wall, for one side of the door away from it.
#[test]
fn agents_pressed_against_a_wall_beside_a_door_go_through_it() {
    let walls = [
        Shape::Box {
            centre: Vec3::new(0.0, 10.5, 0.0),
            half_extents: Vec3::new(0.1, 10.0, 1.0),
            rotation: glam::Quat::IDENTITY,
        },
        Shape::Box {
            centre: Vec3::new(0.0, -10.5, 0.0),
            half_extents: Vec3::new(0.1, 10.0, 1.0),
            rotation: glam::Quat::IDENTITY,
        },
    ];
    for mode in [
        VelocityObstacles::Off,
        VelocityObstacles::Reciprocal,
        VelocityObstacles::Solid,
    ] {
        for face in [-1.0, 1.0] {
            let mut crowd = Crowd::new(Space::Planar);
            let params = crowd.add_params(pedestrians_avoiding_by(mode));
            crowd.set_obstacles(walls);
            for side in [-1.0, 1.0] {
                for from_post in [0.3, 0.75, 1.2] {
                    // Against the face, its body touching the wall.
                    let at = Vec3::new(face * 0.301, side * (0.5 + from_post), 0.0);
                    let away = Vec3::new(0.0, side, 0.0);
                    let i = crowd.push(AgentInput {
                        position: at,
                        velocity: away * 0.5,
                        heading: away,
                        flock: 0,
                        params,
                        target: Some(Vec3::new(-face * 3.0, side * 0.5, 0.0)),
                    });
                    crowd.set_memory(
                        i,
                        AgentMemory {
                            hold: Some(AvoidanceHold {
                                direction: away,
                                seconds_left: 0.5,
                            }),
                            ..AgentMemory::default()
                        },
                    );
                }
            }
            for _ in 0..30 * 20 {
                crowd.step(0.05);
            }
            for i in 0..crowd.len() {
                let p = crowd.position(i);
                assert!(
                    p.x * face < 0.0,
                    "{mode:?}: agent {i} still on its side of the wall, at {p} moving at {}",
                    crowd.velocity(i)
                );
            }
        }
    }
}

/// A queue of five people standing in single file, 0.6 m between centres, sets off together for
/// a point 40 m ahead: each follower sets off as the one ahead does, seeing the gap open,
/// rather than once it has. After four seconds the last has walked at least 2.7 m: measured
/// 2.91 m, where following by distance alone it had walked 2.52 m.
#[test]
fn a_queue_sets_off_as_the_one_ahead_does() {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning::pedestrian());
    for k in 0..5 {
        let position = Vec3::new(0.6 * (4 - k) as f32, 0.0, 0.0);
        crowd.push(AgentInput {
            position,
            velocity: Vec3::ZERO,
            heading: Vec3::X,
            flock: 0,
            params,
            target: Some(position + Vec3::X * 40.0),
        });
    }
    for _ in 0..80 {
        crowd.step(0.05);
    }
    let walked: Vec<f32> = (0..5)
        .map(|k| crowd.position(k).x - 0.6 * (4 - k) as f32)
        .collect();
    println!("walked in 4 s, first to last: {walked:.2?} m");
    assert!(walked[4] >= 2.7, "the last walked {} m", walked[4]);
}

/// A packed crowd of the recipe's people (spread speeds, so that some overtake; some walking
/// east, some north, some with no target), on the plane and in 3D: the headway measured on
/// each lane path moves every agent to the same bits, and the gap it keeps changes where they
/// go (the measure is not skipped).
#[test]
fn the_headway_measures_the_same_on_every_lane_path() {
    let run = |space: Space, simd: SimdPath, time_gap: f32| {
        let mut crowd = Crowd::new(space);
        assert!(crowd.set_simd_path(simd));
        let tuning = FlockTuning::pedestrian();
        let params = crowd.add_params(FlockTuning {
            perception: Perception {
                time_gap,
                ..tuning.perception
            },
            ..tuning
        });
        for k in 0..150 {
            let (row, column) = ((k / 15) as f32, (k % 15) as f32);
            let depth = if space == Space::Volume {
                (k % 3) as f32 * 0.5
            } else {
                0.0
            };
            let position = Vec3::new(0.55 * column, 0.6 * row + 0.1 * column, depth);
            let target = match k % 4 {
                0 => None,
                1 => Some(position + Vec3::Y * 30.0),
                _ => Some(position + Vec3::X * 30.0),
            };
            let i = crowd.push(AgentInput {
                position,
                velocity: Vec3::ZERO,
                heading: Vec3::X,
                flock: 0,
                params,
                target,
            });
            crowd.set_speed_factor(i, 0.8 + 0.05 * (k % 9) as f32);
        }
        for _ in 0..100 {
            crowd.step(0.05);
        }
        (0..crowd.len())
            .map(|i| crowd.position(i).to_array().map(f32::to_bits))
            .collect::<Vec<_>>()
    };
    for space in [Space::Planar, Space::Volume] {
        let first = run(space, SimdPath::Portable, 0.6);
        for simd in SimdPath::supported() {
            assert_eq!(run(space, simd, 0.6), first, "{space:?} on {simd:?}");
        }
        assert_ne!(
            run(space, SimdPath::Portable, 0.0),
            first,
            "{space:?}: the gap kept nothing"
        );
    }
}
