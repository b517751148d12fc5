//! The walls of [`Boundary::Walls`] hold whole bodies, not only their centres.

use glam::Vec3;

use crate::*;

/// Agents of bodies 0.4 and 3 m across, sent hard at a corner of a walled box 20 m by 10 m
/// and beyond it, in every velocity-obstacle mode: no body ever pokes out of the box, and each
/// ends in the corner, within half a metre of touching both walls (without velocity obstacles
/// the walls reflect it, so it rattles there). In a box narrower than the body (2 m wide for a
/// body 3 m across) the body is held at the middle.
#[test]
fn walls_keep_the_whole_body_inside() {
    let (min, max) = (Vec3::new(-10.0, -5.0, 0.0), Vec3::new(10.0, 5.0, 0.0));
    for mode in [
        VelocityObstacles::Off,
        VelocityObstacles::Reciprocal,
        VelocityObstacles::Solid,
    ] {
        for breadth in [0.4, 3.0] {
            let radius = 0.5 * breadth;
            let mut crowd = walled(min, max, breadth, mode, Vec3::new(30.0, 20.0, 0.0));
            for _ in 0..200 {
                crowd.step(0.05);
                let p = crowd.position(0);
                assert!(
                    p.x + radius <= max.x + 1e-4 && p.y + radius <= max.y + 1e-4,
                    "{mode:?}, body {breadth} m: at {p}"
                );
                assert!(p.x - radius >= min.x - 1e-4 && p.y - radius >= min.y - 1e-4);
            }
            let corner = Vec3::new(max.x - radius, max.y - radius, 0.0);
            let p = crowd.position(0);
            assert!(
                p.distance(corner) < 0.5,
                "{mode:?}, body {breadth} m: at {p}, not in the corner {corner}"
            );
        }
        let narrow = (Vec3::new(-10.0, -1.0, 0.0), Vec3::new(10.0, 1.0, 0.0));
        let mut crowd = walled(narrow.0, narrow.1, 3.0, mode, Vec3::new(0.0, 20.0, 0.0));
        for _ in 0..100 {
            crowd.step(0.05);
            assert!(crowd.position(0).y.abs() < 1e-4, "{mode:?}");
        }
    }
}

/// One agent of a body `breadth` across at the centre of walls round `min..max` on the plane,
/// avoiding in `mode` and seeking `target` at speed 5.
fn walled(min: Vec3, max: Vec3, breadth: f32, mode: VelocityObstacles, target: Vec3) -> Crowd {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning {
        limits: SteeringLimits {
            max_speed: 5.0,
            max_force: 40.0,
            arrival_radius: 0.0,
            ..SteeringLimits::default()
        },
        perception: Perception {
            collision_distance: breadth,
            velocity_obstacles: mode,
            ..Perception::default()
        },
        boundary: Boundary::walls(min, max, 0.0),
        ..FlockTuning::default()
    });
    crowd.push(AgentInput {
        position: 0.5 * (min + max),
        velocity: Vec3::ZERO,
        heading: Vec3::X,
        flock: 0,
        params,
        target: Some(target),
    });
    crowd
}
