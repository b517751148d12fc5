//! Walls, wrap-around and the plane.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

fn spawn_scattered(app: &mut App, n: usize, extent: f32, speed: f32) {
    let mut rng = Rng::new(11);
    for _ in 0..n {
        let p = rng.in_cube(extent);
        let v = rng.direction() * speed;
        app.world_mut()
            .spawn((Agent, Transform::from_translation(p), Velocity(v)));
    }
}

fn inside(p: Vec3, half: f32) -> bool {
    p.abs().cmple(Vec3::splat(half)).all()
}

#[test]
fn wrap_keeps_agents_in_the_box_and_carries_them_across() {
    let half = 10.0;
    let mut app = create_test_app(FlockingPlugins::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            limits: SteeringLimits {
                min_speed: 4.0,
                ..default()
            },
            boundary: Boundary::Wrap {
                min: Vec3::splat(-half),
                max: Vec3::splat(half),
            },
            ..default()
        },
    );
    spawn_scattered(&mut app, 300, half, 4.0);
    let mut crossings = 0;
    let mut previous = positions(&mut app);
    for _ in 0..320 {
        run_ticks(&mut app, 1);
        let now = positions(&mut app);
        for (a, b) in previous.iter().zip(&now) {
            assert!(inside(*b, half), "agent escaped to {b}");
            if a.distance(*b) > half {
                crossings += 1;
            }
        }
        previous = now;
    }
    assert!(crossings > 100, "only {crossings} wrap-arounds");
}

#[test]
fn walls_keep_agents_in_the_box_and_push_them_off_the_faces() {
    let half = 10.0;
    let margin = 3.0;
    let mut app = create_test_app(FlockingPlugins::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            limits: SteeringLimits {
                min_speed: 4.0,
                ..default()
            },
            boundary: Boundary::walls(Vec3::splat(-half), Vec3::splat(half), margin),
            ..default()
        },
    );
    spawn_scattered(&mut app, 300, half, 4.0);
    let mut on_a_face = 0;
    let mut samples = 0;
    for _ in 0..320 {
        run_ticks(&mut app, 1);
        for p in positions(&mut app) {
            assert!(inside(p, half), "agent escaped to {p}");
            samples += 1;
            if p.abs().max_element() > half - 0.01 {
                on_a_face += 1;
            }
        }
    }
    let share = on_a_face as f32 / samples as f32;
    assert!(
        share < 0.02,
        "{:.1}% of samples pressed against a wall",
        share * 100.0
    );
}

#[test]
fn planar_mode_keeps_agents_on_the_plane_and_turns_them_about_z() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    let mut rng = Rng::new(12);
    let agents: Vec<Entity> = (0..200)
        .map(|_| {
            let p = rng.in_cube(8.0);
            let v = rng.direction() * 3.0;
            app.world_mut()
                .spawn((Agent, Transform::from_translation(p), Velocity(v)))
                .id()
        })
        .collect();
    for _ in 0..200 {
        run_ticks(&mut app, 1);
        for &agent in &agents {
            let transform = app.world().get::<Transform>(agent).unwrap();
            let velocity = app.world().get::<Velocity>(agent).unwrap().0;
            assert_eq!(transform.translation.z, 0.0);
            assert_eq!(velocity.z, 0.0);
            let (axis, angle) = transform.rotation.to_axis_angle();
            assert!(
                angle.abs() < 1e-6 || axis.z.abs() > 0.9999,
                "rotation axis {axis}"
            );
            if velocity.length() > 0.1 {
                let facing = transform.rotation * Vec3::X;
                assert!(
                    facing.dot(velocity.normalize()) > 0.999,
                    "+X does not face velocity"
                );
            }
        }
    }
}

#[test]
fn volume_mode_faces_agents_along_their_velocity() {
    let mut app = create_test_app(FlockingPlugins::default());
    spawn_scattered(&mut app, 50, 5.0, 3.0);
    run_ticks(&mut app, 10);
    let world = app.world_mut();
    let mut query = world.query::<(&Transform, &Velocity)>();
    for (transform, velocity) in query.iter(world) {
        let forward = transform.forward().as_vec3();
        assert!(forward.dot(velocity.normalize()) > 0.999);
    }
}
