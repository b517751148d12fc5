//! An agent whose target is in sight along a way kept clear looks ahead along that way, not
//! along its heading: jostled toward a wall beside its way, it does not turn from the wall,
//! but it still turns from an obstacle on the way itself.

use glam::Vec3;

use crate::*;

/// One agent 1 m from a wall along the x axis, moving toward the wall at 30 degrees (its
/// heading meets the wall 2 m on, within its look-ahead), its target 20 m along the wall; with
/// `pillar`, a pillar on the straight way to the target. Returns how many avoid after one
/// step of forces, with its target in sight and without.
fn avoiding_beside_a_wall(pillar: bool) -> [usize; 2] {
    [true, false].map(|in_sight| {
        let mut crowd = Crowd::new(Space::Planar);
        let params = crowd.add_params(FlockTuning::default());
        let mut shapes = vec![Shape::Capsule {
            a: Vec3::new(-50.0, 0.0, 0.0),
            b: Vec3::new(50.0, 0.0, 0.0),
            radius: 0.0,
        }];
        if pillar {
            shapes.push(Shape::Sphere {
                centre: Vec3::new(3.0, 1.0, 0.0),
                radius: 0.5,
            });
        }
        crowd.set_obstacles(shapes);
        let heading = Vec3::new(3f32.sqrt() / 2.0, -0.5, 0.0);
        let i = crowd.push(AgentInput {
            position: Vec3::new(0.0, 1.0, 0.0),
            velocity: heading * 2.0,
            heading,
            flock: 0,
            params,
            target: Some(Vec3::new(20.0, 1.0, 0.0)),
        });
        assert!(crowd.set_target_in_sight(i, in_sight));
        assert_eq!(crowd.target_in_sight(i), in_sight);
        crowd.build_index();
        crowd.accumulate_forces();
        crowd.avoid_obstacles(None)
    })
}

#[test]
fn an_agent_with_its_target_in_sight_does_not_turn_from_the_wall_beside_its_way() {
    assert_eq!(avoiding_beside_a_wall(false), [0, 1]);
}

#[test]
fn an_agent_with_its_target_in_sight_still_turns_from_an_obstacle_on_its_way() {
    assert_eq!(avoiding_beside_a_wall(true), [1, 1]);
}

#[test]
fn an_agent_without_a_target_or_out_of_range_is_never_in_sight_of_one() {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning::default());
    let i = crowd.push(AgentInput {
        params,
        ..AgentInput::default()
    });
    assert!(crowd.set_target_in_sight(i, true));
    assert!(!crowd.target_in_sight(i));
    assert!(!crowd.set_target_in_sight(i + 1, true));
    assert!(!crowd.target_in_sight(i + 1));
}
