//! What is known of how far each agent stands from the obstacles skips only sweeps that would
//! leave the move as it is: a crowd among walls moves to the same bits with it and without it,
//! and it is measured again once the obstacles change.

use glam::{Quat, Vec3};

use super::random_positions;
use crate::obstacles::Clearances;
use crate::*;

/// A street 6 m wide between two rows of buildings, 8 m deep and 10 m long with 2 m alleys
/// between, walls as capsules 0.1 m round and as boxes.
fn street() -> Vec<Shape> {
    let mut walls = Vec::new();
    for k in 0..6 {
        let x = -36.0 + 12.0 * k as f32;
        for side in [-1.0_f32, 1.0] {
            walls.push(Shape::Capsule {
                a: Vec3::new(x, side * 3.0, 0.0),
                b: Vec3::new(x + 10.0, side * 3.0, 0.0),
                radius: 0.1,
            });
            walls.push(Shape::Box {
                centre: Vec3::new(x + 5.0, side * 7.0, 0.0),
                half_extents: Vec3::new(5.0, 4.0, 1.0),
                rotation: Quat::IDENTITY,
            });
        }
    }
    walls
}

/// 400 people in the street, half walking east, half west, some into the alleys, stepped for
/// 10 s at 20 ticks a second; with `known` the sweeps read what is known of each agent.
fn walk_the_street(known: bool) -> Vec<(Vec3, Vec3)> {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning::pedestrian());
    crowd.set_obstacles(street());
    crowd.avoidance.clearances.unknown = !known;
    for (k, p) in random_positions(400, 1.0, 31).into_iter().enumerate() {
        let east = if k % 2 == 0 { 1.0 } else { -1.0 };
        let position = Vec3::new(p.x * 30.0, p.y * 2.6, 0.0);
        // Every eighth for an alley's mouth across the street, the rest along it.
        let target = if k % 8 == 1 {
            Vec3::new(-25.0 + 12.0 * (k % 5) as f32, -east * 6.0, 0.0)
        } else {
            position + Vec3::X * east * 40.0
        };
        crowd.push(AgentInput {
            position,
            velocity: Vec3::X * east,
            heading: Vec3::X * east,
            flock: 0,
            params,
            target: Some(target),
        });
    }
    for _ in 0..200 {
        crowd.step(0.05);
    }
    (0..crowd.len())
        .map(|i| (crowd.position(i), crowd.velocity(i)))
        .collect()
}

#[test]
fn a_crowd_among_walls_moves_the_same_with_what_is_known_of_it_and_without() {
    let with = walk_the_street(true);
    let without = walk_the_street(false);
    for (i, (a, b)) in with.iter().zip(&without).enumerate() {
        assert_eq!(
            (
                a.0.to_array().map(f32::to_bits),
                a.1.to_array().map(f32::to_bits)
            ),
            (
                b.0.to_array().map(f32::to_bits),
                b.1.to_array().map(f32::to_bits)
            ),
            "agent {i}"
        );
    }
    // Some walked into the walls' reach: the sweeps had work to skip and work to do.
    let near_walls = with.iter().filter(|(p, _)| p.y.abs() > 2.2).count();
    assert!(near_walls > 20, "{near_walls} near the walls");
}

#[test]
fn what_is_known_vouches_only_for_moves_that_clear_every_shape() {
    let walls = street();
    let mut set = ObstacleSet::default();
    set.rebuild_on_plane(walls.iter().copied(), 5.0);
    let (mut vouched, mut asked) = (0, 0);
    let starts = random_positions(300, 1.0, 32);
    let offsets = random_positions(300, 1.0, 33);
    for (start, offset) in starts.iter().zip(&offsets) {
        let at = Vec3::new(start.x * 40.0, start.y * 3.5, 0.0);
        let known = set.clearance(at);
        for (k, bound) in [0.05, 0.3, 1.0, 2.5].into_iter().enumerate() {
            let p = at + Vec3::new(offset.x, offset.y, 0.0) * (0.5 * k as f32);
            asked += 1;
            if known.vouches(p, bound) {
                vouched += 1;
                let gap = (walls.iter()).fold(f32::INFINITY, |g, w| g.min(w.distance(p)));
                assert!(
                    gap > bound,
                    "at {p}: {gap} from a wall, vouched for {bound}"
                );
            }
        }
    }
    assert!(
        (asked / 4..asked * 3 / 4).contains(&vouched),
        "{vouched} of {asked} vouched for"
    );
}

#[test]
fn what_is_known_is_measured_again_once_the_obstacles_change() {
    let ball = |x: f32| Shape::Sphere {
        centre: Vec3::new(x, 0.0, 0.0),
        radius: 1.0,
    };
    let mut set = ObstacleSet::default();
    set.rebuild_on_plane([ball(4.0)], 5.0);
    let mut known = Clearances::default();
    let refresh = |known: &mut Clearances, set: &ObstacleSet| {
        known.refresh(set, 1, &Serial, |_| Vec3::ZERO, |_| 0.5);
    };
    refresh(&mut known, &set);
    assert!(known.by_agent()[0].vouches(Vec3::ZERO, 2.5));
    // A ball rolled up to the agent: 0.5 m away.
    set.rebuild_on_plane([ball(1.5)], 5.0);
    refresh(&mut known, &set);
    assert!(!known.by_agent()[0].vouches(Vec3::ZERO, 0.6));
    assert!(known.by_agent()[0].vouches(Vec3::ZERO, 0.4));
}
