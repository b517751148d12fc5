//! Obstacle shapes: distances, normals and casts against what geometry says.

use glam::{Quat, Vec3};

use crate::*;

fn set_of(shapes: &[Shape]) -> ObstacleSet {
    let mut set = ObstacleSet::default();
    assert_eq!(set.rebuild(shapes.iter().copied(), 6.0), 0);
    set
}

#[test]
fn distances_and_normals_match_the_geometry() {
    let sphere = Shape::Sphere {
        centre: Vec3::new(10.0, 0.0, 0.0),
        radius: 2.0,
    };
    assert_eq!(sphere.distance(Vec3::ZERO), 8.0);
    assert_eq!(sphere.normal(Vec3::ZERO), Vec3::NEG_X);
    let turned = Shape::Box {
        centre: Vec3::ZERO,
        half_extents: Vec3::new(1.0, 2.0, 3.0),
        rotation: Quat::from_rotation_z(core::f32::consts::FRAC_PI_2),
    };
    // Turned a quarter about z, the box's 2-long half extent lies along x.
    assert!((turned.distance(Vec3::new(5.0, 0.0, 0.0)) - 3.0).abs() < 1e-5);
    assert!(
        (turned.distance(Vec3::ZERO) + 1.0).abs() < 1e-5,
        "inside, 1 from a face"
    );
    assert!((turned.normal(Vec3::new(5.0, 0.0, 0.0)) - Vec3::X).length() < 1e-5);
    let wall = Shape::Capsule {
        a: Vec3::new(0.0, -5.0, 0.0),
        b: Vec3::new(0.0, 5.0, 0.0),
        radius: 0.5,
    };
    assert_eq!(wall.distance(Vec3::new(3.0, 1.0, 0.0)), 2.5);
    assert_eq!(wall.distance(Vec3::new(0.0, 8.0, 0.0)), 2.5);
    let floor = Shape::HalfSpace {
        point: Vec3::ZERO,
        normal: Vec3::Y,
    };
    assert_eq!(floor.distance(Vec3::new(4.0, -2.0, 1.0)), -2.0);
}

#[test]
fn a_cast_stops_where_the_ball_first_touches() {
    let set = set_of(&[Shape::Sphere {
        centre: Vec3::new(10.0, 0.0, 0.0),
        radius: 2.0,
    }]);
    let hit = set.cast(Vec3::ZERO, Vec3::X, 20.0, 0.5).expect("hits");
    assert!(
        (hit.distance - 7.5).abs() < 2e-3,
        "hit at {hit:?}, the ball touches at 7.5"
    );
    assert!(
        (hit.normal - Vec3::NEG_X).length() < 1e-3,
        "the sphere faces the cast: {hit:?}"
    );
    assert_eq!(set.cast(Vec3::ZERO, Vec3::X, 7.0, 0.5), None, "too short");
    assert_eq!(
        set.cast(Vec3::ZERO, Vec3::Y, 20.0, 0.5),
        None,
        "to the side"
    );
    assert_eq!(
        set.cast(Vec3::splat(100.0), Vec3::X, 20.0, 0.5),
        None,
        "far away"
    );
}

#[test]
fn a_ball_in_contact_is_blocked_ahead_but_free_to_leave() {
    let set = set_of(&[Shape::Sphere {
        centre: Vec3::new(2.0, 0.0, 0.0),
        radius: 1.5,
    }]);
    // 0.5 from the surface, a ball of 0.5 touches it.
    let (p, r) = (Vec3::ZERO, 0.5);
    let hit = set
        .cast(p, Vec3::Y, 5.0, r)
        .expect("too close: a hit at once");
    assert_eq!(hit.distance, 0.0);
    assert!((hit.normal - Vec3::NEG_X).length() < 1e-5, "{hit:?}");
    assert!(set.is_clear(p, Vec3::NEG_X, 5.0, r), "straight out");
    let steep = Vec3::new(-0.6, 0.8, 0.0);
    assert!(set.is_clear(p, steep, 5.0, r), "out at 37 degrees");
    assert!(!set.is_clear(p, Vec3::Y, 5.0, r), "along the surface");
    assert!(!set.is_clear(p, Vec3::X, 5.0, r), "into it");
}

#[test]
fn blocked_ahead_the_fan_finds_a_way_round() {
    let set = set_of(&[Shape::Sphere {
        centre: Vec3::new(4.0, 0.0, 0.0),
        radius: 1.5,
    }]);
    let params = ObstacleAvoidance::default();
    let Some(Avoidance::Clear(dir)) =
        avoidance_direction(&set, Vec3::ZERO, Vec3::X, 5.0, &params, Space::Planar)
    else {
        panic!("blocked ahead, with a way round");
    };
    assert!(
        dir.z.abs() < 1e-6 && (dir.length() - 1.0).abs() < 1e-5,
        "{dir}"
    );
    assert!(dir.x > 0.0, "still heading on: {dir}");
    assert_eq!(set.cast(Vec3::ZERO, dir, 5.0, params.cast_radius), None);
    assert_eq!(
        avoidance_direction(&set, Vec3::ZERO, Vec3::Y, 5.0, &params, Space::Planar),
        None,
        "clear ahead"
    );
}

#[test]
fn moves_stop_at_surfaces_and_never_end_inside() {
    let set = set_of(&[Shape::Box {
        centre: Vec3::new(10.0, 0.0, 0.0),
        half_extents: Vec3::new(0.01, 100.0, 100.0),
        rotation: Quat::IDENTITY,
    }]);
    let (end, normal) = set.constrain(Vec3::ZERO, Vec3::new(30.0, 0.0, 0.0), 0.0);
    assert!(end.x < 9.99 && end.x > 9.98, "{end}");
    assert_eq!(normal, Some(Vec3::NEG_X));
    let (end, normal) = set.constrain(Vec3::new(9.0, 0.0, 0.0), Vec3::new(9.0, 3.0, 0.0), 0.0);
    assert_eq!(
        (end, normal),
        (Vec3::new(9.0, 3.0, 0.0), None),
        "sliding along is free"
    );
    let (end, _) = set.constrain(Vec3::new(10.0, 1.0, 0.0), Vec3::new(10.0, 1.0, 0.0), 0.0);
    assert!(
        set.distance(end).expect("near") > 0.0,
        "pushed out from inside to {end}"
    );
    // A grazing move across the wall: the sweep runs out of steps before reaching the
    // surface, and must stop there rather than let the move through.
    let (end, normal) = set.constrain(
        Vec3::new(9.989, 0.0, 0.0),
        Vec3::new(10.0176, 0.0, -0.3),
        0.0,
    );
    assert!(end.x < 9.99, "crossed the wall grazing, to {end}");
    assert_eq!(normal, Some(Vec3::NEG_X));
}

#[test]
fn an_agent_driven_into_a_wall_slides_along_it() {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning {
        weights: FlockWeights {
            separation: 0.0,
            alignment: 0.0,
            cohesion: 0.0,
            target: 0.0,
            ..Default::default()
        },
        // A point, whose centre may touch the wall.
        perception: Perception {
            collision_distance: 0.0,
            ..Default::default()
        },
        ..Default::default()
    });
    crowd.set_obstacles([Shape::HalfSpace {
        point: Vec3::new(1.0, 0.0, 0.0),
        normal: Vec3::NEG_X,
    }]);
    crowd.set_avoidance(ObstacleAvoidance {
        // No steering away: only integration acts on the wall.
        cast_radius: 0.0,
        max_look_ahead: 0.0,
        min_look_ahead: 0.0,
        ..Default::default()
    });
    crowd.push(AgentInput {
        position: Vec3::new(0.97, 0.0, 0.0),
        velocity: Vec3::new(3.0, 3.0, 0.0),
        heading: Vec3::ZERO,
        flock: 0,
        params,
        target: None,
    });
    // The first tick's move (0.05, 0.05) meets the wall 0.03 along x: the rest of it goes
    // along the wall, so y advances by the whole 0.05 in the same tick.
    crowd.step(1.0 / 60.0);
    let p = crowd.position(0);
    assert!(p.x < 1.0 && p.x > 0.99, "{p}");
    assert!((p.y - 0.05).abs() < 1e-4, "slid to {p}");
    assert!((crowd.velocity(0) - Vec3::new(0.0, 3.0, 0.0)).length() < 1e-4);
}

/// A body pressed for ten seconds against walls of every built-in shape (as the game's
/// geometry gives them, not grown) stays wholly outside each, and a gap narrower than the body
/// stays closed to it, in every velocity-obstacle mode.
#[test]
fn walls_keep_whole_bodies_out_and_gaps_narrower_than_a_body_closed() {
    let radius = 0.3;
    let walls = [
        Shape::Box {
            centre: Vec3::new(5.0, 0.6, 0.0),
            half_extents: Vec3::new(0.1, 0.35, 1.0),
            rotation: Quat::from_rotation_z(0.3),
        },
        // A gap of 0.5 between these two: narrower than the body's 0.6.
        Shape::Capsule {
            a: Vec3::new(5.0, -0.25, 0.0),
            b: Vec3::new(5.0, -3.0, 0.0),
            radius: 0.05,
        },
        Shape::Sphere {
            centre: Vec3::new(5.2, -1.0, 0.0),
            radius: 0.1,
        },
        Shape::HalfSpace {
            point: Vec3::new(0.0, 4.0, 0.0),
            normal: Vec3::NEG_Y,
        },
    ];
    for mode in [
        VelocityObstacles::Off,
        VelocityObstacles::Reciprocal,
        VelocityObstacles::Solid,
    ] {
        let mut crowd = Crowd::new(Space::Planar);
        let params = crowd.add_params(FlockTuning {
            perception: Perception {
                collision_distance: 2.0 * radius,
                velocity_obstacles: mode,
                ..FlockTuning::pedestrian().perception
            },
            ..FlockTuning::pedestrian()
        });
        crowd.set_obstacles(walls);
        // Each agent is sent straight through a wall (the last one through the gap).
        let sent = [
            (Vec3::new(3.0, 0.6, 0.0), Vec3::new(8.0, 0.6, 0.0)),
            (Vec3::new(3.0, 3.0, 0.0), Vec3::new(3.0, 9.0, 0.0)),
            (Vec3::new(3.0, -0.5, 0.0), Vec3::new(8.0, -0.5, 0.0)),
        ];
        for (start, target) in sent {
            crowd.push(AgentInput {
                position: start,
                velocity: Vec3::ZERO,
                heading: Vec3::X,
                flock: 0,
                params,
                target: Some(target),
            });
        }
        let mut deepest: f32 = 0.0;
        for _ in 0..200 {
            crowd.step(0.05);
            for i in 0..crowd.len() {
                let p = crowd.position(i);
                deepest = deepest.max(radius - super::gap_to(&walls, p));
            }
        }
        println!("{mode:?}: deepest {:.4} of the radius", deepest / radius);
        assert!(deepest <= 0.05 * radius, "{mode:?}: {deepest} into a wall");
        assert!(
            crowd.position(2).x < 5.0,
            "{mode:?}: through the narrow gap"
        );
    }
}

#[test]
fn invalid_shapes_are_skipped() {
    let mut set = ObstacleSet::default();
    let skipped = set.rebuild(
        [
            Shape::Sphere {
                centre: Vec3::ZERO,
                radius: -1.0,
            },
            Shape::Sphere {
                centre: Vec3::NAN,
                radius: 1.0,
            },
            Shape::HalfSpace {
                point: Vec3::ZERO,
                normal: Vec3::ZERO,
            },
            Shape::Sphere {
                centre: Vec3::ZERO,
                radius: 1.0,
            },
        ],
        6.0,
    );
    assert_eq!((skipped, set.len()), (3, 1));
}

/// Found by the fuzzer: a box whose rotation was far from unit length scaled every vector it
/// turned to infinity, and the avoidance force became NaN.
#[test]
fn extreme_shapes_are_skipped_and_the_rest_normalised() {
    let mut set = ObstacleSet::default();
    let skipped = set.rebuild(
        [
            Shape::Box {
                centre: Vec3::ZERO,
                half_extents: Vec3::ONE,
                rotation: Quat::from_xyzw(1e20, 0.0, 0.0, 1e20),
            },
            Shape::Capsule {
                a: Vec3::splat(-f32::MAX),
                b: Vec3::splat(f32::MAX),
                radius: 1.0,
            },
            Shape::Box {
                centre: Vec3::ZERO,
                half_extents: Vec3::ONE,
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.2),
            },
        ],
        6.0,
    );
    assert_eq!((skipped, set.len()), (2, 1));
    // The nearly-unit rotation was normalised: the box is 1 from its centre to a face.
    assert!((set.distance(Vec3::new(3.0, 0.0, 0.0)).expect("near") - 2.0).abs() < 1e-6);
}

#[test]
fn bad_avoidance_parameters_are_corrected_and_named() {
    let (params, corrections) = ObstacleAvoidance {
        cast_radius: f32::NAN,
        min_look_ahead: 4.0,
        max_look_ahead: 2.0,
        fan_degrees: 400.0,
        hold_seconds: -0.5,
    }
    .sanitized();
    let fields: Vec<&str> = corrections.iter().map(|c| c.field).collect();
    assert_eq!(
        fields,
        [
            "avoidance.cast_radius",
            "avoidance.max_look_ahead",
            "avoidance.hold_seconds",
            "avoidance.fan_degrees"
        ]
    );
    assert_eq!(
        params.hold_seconds,
        ObstacleAvoidance::default().hold_seconds
    );
    assert_eq!(params.cast_radius, ObstacleAvoidance::default().cast_radius);
    assert_eq!((params.max_look_ahead, params.fan_degrees), (4.0, 180.0));
    assert!(ObstacleAvoidance::default().sanitized().1.is_empty());
}

#[test]
fn a_chosen_direction_is_held_and_counted_down() {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning::default());
    crowd.set_obstacles([Shape::Sphere {
        centre: Vec3::new(3.0, 0.0, 0.0),
        radius: 1.0,
    }]);
    let agent = AgentInput {
        position: Vec3::ZERO,
        velocity: Vec3::X * 5.0,
        heading: Vec3::X,
        flock: 0,
        params,
        target: None,
    };
    crowd.push(agent);
    let dt = 1.0 / 60.0;
    crowd.step(dt);
    let hold = crowd
        .memory(0)
        .hold
        .expect("blocked ahead: a direction is held");
    assert!((hold.seconds_left - (0.5 - dt)).abs() < 1e-6, "{hold:?}");
    assert!(
        hold.direction.y.abs() > 0.1,
        "it turns off the line: {hold:?}"
    );
    // A rebuilt crowd takes the hold back; a broken one is dropped.
    crowd.clear();
    let params = crowd.add_params(FlockTuning::default());
    crowd.push(AgentInput { params, ..agent });
    crowd.set_memory(0, held(hold));
    assert_eq!(crowd.memory(0).hold, Some(hold));
    crowd.set_memory(
        0,
        held(AvoidanceHold {
            direction: Vec3::NAN,
            seconds_left: 0.4,
        }),
    );
    assert_eq!(crowd.memory(0).hold, None);
    // Without obstacles nothing is held after a tick.
    crowd.set_memory(0, held(hold));
    crowd.set_obstacles([]);
    crowd.step(dt);
    assert_eq!(crowd.memory(0).hold, None);
}

/// Memory that holds only `hold`.
fn held(hold: AvoidanceHold) -> AgentMemory {
    AgentMemory {
        hold: Some(hold),
        ..AgentMemory::default()
    }
}

#[test]
fn a_rebuild_with_the_same_obstacles_answers_as_before_and_a_changed_one_anew() {
    let sphere = |x: f32| Shape::Sphere {
        centre: Vec3::new(x, 0.0, 0.0),
        radius: 1.0,
    };
    let bad = Shape::Sphere {
        centre: Vec3::ZERO,
        radius: -1.0,
    };
    let mut set = ObstacleSet::default();
    assert_eq!(set.rebuild([sphere(3.0), bad], 6.0), 1);
    assert_eq!(set.distance(Vec3::ZERO), Some(2.0));
    // The same shapes: the same answers, and the same count of skipped ones.
    assert_eq!(set.rebuild([sphere(3.0), bad], 6.0), 1);
    assert_eq!(set.distance(Vec3::ZERO), Some(2.0));
    assert_eq!(set.len(), 1);
    // One moved, or a new reach: binned anew.
    assert_eq!(set.rebuild([sphere(5.0)], 6.0), 0);
    assert_eq!(set.distance(Vec3::ZERO), Some(4.0));
    assert_eq!(set.rebuild([sphere(5.0)], 2.0), 0);
    assert_eq!(set.distance(Vec3::ZERO), None, "beyond the new reach");
    // A shape with a NaN is never equal to itself: binned (and skipped) every time.
    let nan = Shape::Sphere {
        centre: Vec3::NAN,
        radius: 1.0,
    };
    assert_eq!(set.rebuild([nan], 2.0), 1);
    assert_eq!(set.rebuild([nan], 2.0), 1);
    assert!(set.is_empty());
}

#[test]
fn on_the_plane_shapes_are_binned_in_columns_that_answer_from_any_height() {
    let sphere = Shape::Sphere {
        centre: Vec3::new(3.0, 0.0, 0.0),
        radius: 1.0,
    };
    let mut cubes = ObstacleSet::default();
    cubes.rebuild([sphere], 6.0);
    let mut columns = ObstacleSet::default();
    columns.rebuild_on_plane([sphere], 6.0);
    // Grown by the reach, the sphere is 14 across: 3 or 4 cubes 6 wide along each axis, 5 or 6
    // columns 3 wide along x and y, none along z.
    assert!(
        (27..=64).contains(&cubes.cell_count()),
        "{}",
        cubes.cell_count()
    );
    assert!(
        (25..=36).contains(&columns.cell_count()),
        "{}",
        columns.cell_count()
    );
    for (p, want) in [
        (Vec3::ZERO, Some(2.0)),
        (Vec3::new(3.0, 0.0, 5.0), Some(4.0)),
        (Vec3::new(3.0, 0.0, -6.5), Some(5.5)),
        (Vec3::new(3.0, 0.0, 7.5), None),
    ] {
        assert_eq!(columns.distance(p), want, "at {p}");
        assert_eq!(cubes.distance(p), want, "at {p}");
    }
    // The same shapes binned the other way are binned anew.
    cubes.rebuild_on_plane([sphere], 6.0);
    assert!(cubes.is_binned_in_columns());
    columns.rebuild([sphere], 6.0);
    assert!(!columns.is_binned_in_columns());
}

/// The set of `shapes` binned both ways: in cubes, and in columns for a plane.
fn binned_both_ways(shapes: &[Shape], reach: f32) -> [ObstacleSet; 2] {
    let mut cubes = ObstacleSet::default();
    assert_eq!(cubes.rebuild(shapes.iter().copied(), reach), 0);
    let mut columns = ObstacleSet::default();
    assert_eq!(columns.rebuild_on_plane(shapes.iter().copied(), reach), 0);
    [cubes, columns]
}

#[test]
fn cells_emptied_by_a_rebuild_find_nothing_and_are_dropped_once_they_pile_up() {
    let sphere = |x: f32| Shape::Sphere {
        centre: Vec3::new(x, 0.0, 0.0),
        radius: 1.0,
    };
    // In cubes and in columns.
    for on_plane in [false, true] {
        let mut set = ObstacleSet::default();
        let rebuild = |set: &mut ObstacleSet, x: f32| match on_plane {
            false => set.rebuild([sphere(x)], 2.0),
            true => set.rebuild_on_plane([sphere(x)], 2.0),
        };
        rebuild(&mut set, 0.0);
        assert_eq!(set.distance(Vec3::new(2.0, 0.0, 0.0)), Some(1.0));
        // Moved far away: its old cells are empty, and nothing is found there.
        rebuild(&mut set, 1_000.0);
        assert_eq!(set.distance(Vec3::new(2.0, 0.0, 0.0)), None);
        assert_eq!(set.distance(Vec3::new(1_002.0, 0.0, 0.0)), Some(1.0));
        // A sphere wandering across the world leaves at most a bounded pile of empty cells.
        for step in 0..5_000 {
            rebuild(&mut set, step as f32 * 10.0);
        }
        assert!(set.cell_count() < 2_000, "{} cells kept", set.cell_count());
    }
}

#[test]
fn the_set_measures_the_nearest_shape_as_reading_every_shape_does() {
    // A maze of walls, balls and capsules, as a terrain's tiles and props make one: the set
    // skips shapes whose bounding ball is farther than the nearest so far, which must never
    // change the answer.
    let centres = super::random_positions(400, 30.0, 61);
    let sizes = super::random_positions(400, 1.0, 62);
    let shapes: Vec<Shape> = centres
        .iter()
        .zip(&sizes)
        .enumerate()
        .map(|(k, (&c, &s))| match k % 3 {
            0 => Shape::Box {
                centre: c,
                half_extents: s.abs() + 0.2,
                rotation: Quat::from_rotation_z(s.x * 3.0) * Quat::from_rotation_x(s.y),
            },
            1 => Shape::Sphere {
                centre: c,
                radius: s.x.abs() + 0.3,
            },
            _ => Shape::Capsule {
                a: c,
                b: c + s * 3.0,
                radius: 0.25,
            },
        })
        .collect();
    let reach = 4.0;
    for set in binned_both_ways(&shapes, reach) {
        let near = measured_as_every_shape(&set, &shapes, reach);
        assert!(
            near > 500,
            "about half the points are within reach of a shape: {near}"
        );
    }
}

/// Checks the nearest shape `set` measures from 2,000 points in 3D against measuring every one
/// of `shapes`; returns how many points were within `reach` of one.
fn measured_as_every_shape(set: &ObstacleSet, shapes: &[Shape], reach: f32) -> usize {
    let mut near = 0;
    for p in super::random_positions(2_000, 32.0, 63) {
        // The set keeps each shape normalised (a unit rotation): measure those.
        let every = shapes
            .iter()
            .map(|s| s.normalized().distance(p))
            .fold(f32::INFINITY, f32::min);
        // The free-move check measures only the shapes that near: it must agree with the
        // nearest distance (the reach where no shape is near), bounds on the distance included.
        let gap = set.distance(p).unwrap_or(reach);
        for bound in [0.0, 0.05, 0.5, every, gap, gap - 1e-6, reach, f32::NAN] {
            assert_eq!(
                set.is_clear_round(p, bound),
                gap > bound,
                "at {p} within {bound}"
            );
        }
        // Within reach the set answers exactly; beyond it, it may name any shape that far.
        if every <= reach {
            assert_eq!(set.distance(p), Some(every), "at {p}");
            near += 1;
        } else if let Some(d) = set.distance(p) {
            assert!(d >= every && d > reach, "at {p}: {d} against {every}");
        }
    }
    near
}

/// Where a ball of `radius` first touches `shape`, by sphere tracing with no limit on the
/// steps: each step goes as far as the distance field says is free, so it never passes the
/// first touch, and it crawls on until within `1e-6` of it.
fn traced_touch(shape: &Shape, o: Vec3, d: Vec3, length: f32, radius: f32) -> Option<f32> {
    let mut t = 0.0;
    for _ in 0..1_000_000 {
        let gap = shape.distance(o + d * t) - radius;
        if gap <= 1e-6 {
            return Some(t);
        }
        t += gap;
        if t > length {
            return None;
        }
    }
    panic!("the trace from {o} along {d} did not settle");
}

#[test]
fn each_shape_s_cast_is_worked_by_hand() {
    let close = |got: Option<f32>, want: f32| {
        let got = got.expect("a touch");
        assert!((got - want).abs() < 1e-5, "{got} against {want}");
    };
    let ball = Shape::Sphere {
        centre: Vec3::new(10.0, 0.0, 0.0),
        radius: 1.0,
    };
    // A ball of 0.5 touches a ball of 1 when their centres are 1.5 apart.
    close(ball.cast(Vec3::ZERO, Vec3::X, 20.0, 0.5), 8.5);
    // 1.2 off the line: the centres are 1.5 apart at 10 - 0.9.
    close(ball.cast(Vec3::new(0.0, 1.2, 0.0), Vec3::X, 20.0, 0.5), 9.1);
    assert_eq!(ball.cast(Vec3::ZERO, Vec3::X, 8.4, 0.5), None, "short");
    assert_eq!(ball.cast(Vec3::ZERO, Vec3::NEG_X, 20.0, 0.5), None, "away");
    assert_eq!(
        ball.cast(Vec3::new(9.0, 0.0, 0.0), Vec3::Y, 1.0, 0.5),
        Some(0.0)
    );

    let cube = Shape::Box {
        centre: Vec3::new(10.0, 0.0, 0.0),
        half_extents: Vec3::ONE,
        rotation: Quat::IDENTITY,
    };
    // On a face: the ball touches the face x = 9 at 8.5.
    close(cube.cast(Vec3::ZERO, Vec3::X, 20.0, 0.5), 8.5);
    // 0.3 beyond the face y = 1: it meets the edge (9, 1) where 0.3^2 + 0.4^2 = 0.5^2.
    close(cube.cast(Vec3::new(0.0, 1.3, 0.0), Vec3::X, 20.0, 0.5), 8.6);
    // 0.3 and 0.4 beyond two faces: the corner (9, 1, 1), 1.3 away where 1.2^2 + 0.5^2 = 1.3^2.
    close(cube.cast(Vec3::new(0.0, 1.3, 1.4), Vec3::X, 20.0, 1.3), 7.8);
    // Grazing: 0.1 clear of the face y = 1 all the way along.
    assert_eq!(
        cube.cast(Vec3::new(0.0, 1.6, 0.0), Vec3::X, 20.0, 0.5),
        None
    );
    // Turned 45 degrees about z, its edge points at the cast from 10 - sqrt(2).
    let diamond = Shape::Box {
        centre: Vec3::new(10.0, 0.0, 0.0),
        half_extents: Vec3::ONE,
        rotation: Quat::from_rotation_z(core::f32::consts::FRAC_PI_4),
    };
    close(
        diamond.cast(Vec3::ZERO, Vec3::X, 20.0, 0.5),
        10.0 - 2f32.sqrt() - 0.5,
    );

    let wall = Shape::Capsule {
        a: Vec3::new(10.0, -5.0, 0.0),
        b: Vec3::new(10.0, 5.0, 0.0),
        radius: 1.0,
    };
    close(wall.cast(Vec3::ZERO, Vec3::X, 20.0, 0.5), 8.5);
    // Past the end (10, 5) by 1.2: 0.9^2 + 1.2^2 = 1.5^2.
    close(wall.cast(Vec3::new(0.0, 6.2, 0.0), Vec3::X, 20.0, 0.5), 9.1);
    // Along the axis, from beyond the end: into the end's ball.
    close(
        wall.cast(Vec3::new(10.0, 9.0, 0.0), Vec3::NEG_Y, 20.0, 0.5),
        2.5,
    );

    // Solid beyond x = 5; 4.5 to close at 0.6 a unit of travel.
    let ground = Shape::HalfSpace {
        point: Vec3::new(5.0, 0.0, 0.0),
        normal: Vec3::NEG_X,
    };
    close(
        ground.cast(Vec3::ZERO, Vec3::new(0.6, 0.8, 0.0), 20.0, 0.5),
        7.5,
    );
    assert_eq!(
        ground.cast(Vec3::ZERO, Vec3::Y, 20.0, 0.5),
        None,
        "parallel"
    );
}

#[test]
fn casts_agree_with_tracing_each_shape_to_the_touch() {
    let centres = super::random_positions(300, 6.0, 71);
    let sizes = super::random_positions(300, 1.5, 72);
    let origins = super::random_positions(300, 12.0, 73);
    let dirs = super::random_positions(300, 1.0, 74);
    let mut touches = 0;
    for k in 0..300 {
        let (c, s) = (centres[k], sizes[k]);
        let shape = match k % 4 {
            0 => Shape::Box {
                centre: c,
                half_extents: s.abs() + Vec3::new(0.0, 0.1, 0.0),
                rotation: Quat::from_rotation_z(s.x * 3.0) * Quat::from_rotation_x(s.y),
            },
            1 => Shape::Sphere {
                centre: c,
                radius: s.x.abs() + 0.2,
            },
            2 => Shape::Capsule {
                a: c,
                b: c + s * 3.0,
                radius: s.y.abs(),
            },
            _ => Shape::HalfSpace {
                point: c,
                normal: s.normalize(),
            },
        }
        .normalized();
        // Aimed near the shape, so that about half the casts touch it.
        let o = origins[k];
        let Some(d) = (c + dirs[k] * 3.0 - o).try_normalize() else {
            continue;
        };
        let radius = sizes[(k + 1) % 300].x.abs() * 0.5;
        let cast = shape.cast(o, d, 20.0, radius);
        // A touch within a thousandth of the radius either way of the traced one.
        let outer = traced_touch(&shape, o, d, 20.0, radius + 1e-3);
        let inner = traced_touch(&shape, o, d, 20.0, radius - 1e-3);
        match cast {
            Some(t) => {
                touches += 1;
                let outer = outer.unwrap_or_else(|| panic!("{shape:?}: cast {t}, traced none"));
                assert!(
                    outer <= t + 1e-4,
                    "{shape:?} from {o} along {d}: {t} vs {outer}"
                );
                if let Some(inner) = inner {
                    assert!(
                        inner >= t - 1e-4,
                        "{shape:?} from {o} along {d}: {t} vs {inner}"
                    );
                }
            }
            None => assert_eq!(inner, None, "{shape:?} from {o} along {d}: traced a touch"),
        }
    }
    assert!((60..240).contains(&touches), "{touches} of 300 casts touch");
}

/// A terrain's wall tiles and a few props on the plane, 30 across: `walls` boxes of
/// `half_extents` centred on whole coordinates (from `seed`), then `props` capsules (from
/// `seed + 1`).
fn walls_and_props(walls: usize, half_extents: Vec3, props: usize, seed: u32) -> Vec<Shape> {
    let boxes = super::random_positions(walls, 30.0, seed)
        .into_iter()
        .map(|c| Shape::Box {
            centre: (c.truncate().round()).extend(0.0),
            half_extents,
            rotation: Quat::IDENTITY,
        });
    let capsules = super::random_positions(props, 30.0, seed + 1)
        .into_iter()
        .map(|c| Shape::Capsule {
            a: c.with_z(0.0),
            b: c.with_z(0.0) + Vec3::new(2.0, 1.0, 0.0),
            radius: 0.3,
        });
    boxes.chain(capsules).collect()
}

#[test]
fn the_set_casts_as_casting_every_shape_does() {
    // A terrain's wall tiles and a few props: the set reads one cell for a cast within its
    // reach, the cells round the way for a longer one, and skips shapes whose bounding ball
    // is off the way; none of that may change the touch.
    let shapes = walls_and_props(600, Vec3::splat(0.5), 60, 81);
    let reach = 4.0;
    let every = |o: Vec3, d: Vec3, length: f32, radius: f32| {
        let grown = radius + crate::obstacles::set::HIT_DISTANCE;
        let mut best: Option<(f32, Shape)> = None;
        for shape in &shapes {
            if let Some(t) = shape.cast(o, d, length, grown)
                && best.is_none_or(|(b, _)| t < b)
            {
                best = Some((t, *shape));
            }
        }
        best.map(|(t, _)| t)
    };
    let origins = super::random_positions(1_500, 31.0, 83);
    let dirs = super::random_positions(1_500, 1.0, 84);
    for set in binned_both_ways(&shapes, reach) {
        let (mut hits, mut long) = (0, 0);
        for (k, (&o, &d)) in origins.iter().zip(&dirs).enumerate() {
            let o = o.with_z(0.0);
            let Some(d) = d.with_z(0.0).try_normalize() else {
                continue;
            };
            // Within the reach, beyond it, and far beyond it (more cells than are read).
            let (length, radius) = match k % 3 {
                0 => (3.0, 0.35),
                1 => (9.0, 0.35),
                _ => (40.0, 5.0),
            };
            long += usize::from(length + radius > reach);
            let want = every(o, d, length, radius);
            let got = set.cast(o, d, length, radius).map(|hit| hit.distance);
            assert_eq!(
                got, want,
                "from {o} along {d} for {length}, radius {radius}"
            );
            hits += usize::from(got.is_some());
        }
        assert!(hits > 600 && long > 900, "{hits} hits, {long} long casts");
    }
}

#[test]
fn the_shapes_gathered_round_an_agent_answer_as_the_set_does() {
    // Wall tiles in rows (as a terrain's), props, and a cluster of small balls too many to
    // list: from each origin, the casts of an agent's avoidance (its cast ahead and a fan,
    // some starting in contact or inside a shape) read the gathered shapes and must answer as
    // the whole set, bit for bit; so must queries the view does not cover.
    let mut shapes = walls_and_props(500, Vec3::new(1.5, 0.5, 0.5), 40, 91);
    shapes.extend((0..80).map(|k| Shape::Sphere {
        centre: Vec3::new(40.0 + (k % 9) as f32 * 0.3, (k / 9) as f32 * 0.3, 0.0),
        radius: 0.1,
    }));
    let (look_ahead, radius) = (5.0, 0.35);
    for set in binned_both_ways(&shapes, look_ahead + radius) {
        answers_as_gathered(&set, look_ahead, radius);
    }
}

/// Checks that the views gathered round 440 origins in `set` answer an agent's casts, and
/// those they do not cover, as `set` does.
fn answers_as_gathered(set: &ObstacleSet, look_ahead: f32, radius: f32) {
    let layered = crate::obstacles::Layered::new(set, None);
    let mut origins = super::random_positions(400, 31.0, 93);
    origins.extend((0..40).map(|k| Vec3::new(40.0 + k as f32 * 0.07, 1.0, 0.0)));
    let (mut listed, mut blocked, mut touching) = (0, 0, 0);
    for (k, &o) in origins.iter().enumerate() {
        let o = o.with_z(0.0);
        let length = look_ahead * (0.3 + 0.7 * (k % 5) as f32 / 4.0);
        let around = layered.around(o, length, radius);
        listed += usize::from(set.around(o, length, radius).listed_count().is_some());
        let heading = rotation_z(Vec3::X, k as f32 * 0.7);
        touching += usize::from(set.distance(o).is_some_and(|d| d <= radius));
        for step in 0..21 {
            let d = rotation_z(heading, (step as f32 - 10.0) * 0.25);
            for (l, r) in [
                (length, radius),
                (length * 0.5, radius),
                (length, radius * 0.5),
            ] {
                assert_eq!(
                    around.cast(o, d, l, r),
                    set.cast(o, d, l, r),
                    "cast from {o}"
                );
                let clear = set.is_clear(o, d, l, r);
                assert_eq!(around.is_clear(o, d, l, r), clear, "is_clear from {o}");
                blocked += usize::from(!clear);
            }
            // Not covered: farther, wider, from elsewhere.
            let elsewhere = o + Vec3::new(0.5, 0.0, 0.0);
            assert_eq!(
                around.cast(o, d, length * 1.1, radius),
                set.cast(o, d, length * 1.1, radius)
            );
            assert_eq!(
                around.is_clear(o, d, length, radius * 2.0),
                set.is_clear(o, d, length, radius * 2.0)
            );
            assert_eq!(
                around.cast(elsewhere, d, length, radius),
                set.cast(elsewhere, d, length, radius)
            );
        }
        assert_eq!(
            around.constrain(o, o + heading, radius),
            set.constrain(o, o + heading, radius)
        );
    }
    // Most views list their shapes; the cluster's are too many, and the set answers.
    assert!(
        listed > 350 && listed < origins.len(),
        "{listed} of {} listed",
        origins.len()
    );
    assert!(
        blocked > 2_000 && touching > 20,
        "{blocked} blocked, {touching} touching"
    );
}

fn rotation_z(v: Vec3, angle: f32) -> Vec3 {
    Quat::from_rotation_z(angle) * v
}
