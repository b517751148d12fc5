//! The crowd's obstacles are binned for the widest ball its agents cast: a body grown by the
//! avoidance's clearance can be wider than the settings' cast radius, and its casts must still
//! read the shapes gathered round it, not every cell round their way.

use glam::Vec3;

use crate::*;

/// A crowd on the plane with agents of `body_radius` and a row of posts along y = 2.
fn crowd_among_posts(body_radius: f32) -> Crowd {
    let mut crowd = Crowd::new(Space::Planar);
    crowd.set_avoidance(ObstacleAvoidance::default());
    let tuning = FlockTuning::default();
    crowd.add_params(FlockTuning {
        perception: Perception {
            collision_distance: 2.0 * body_radius,
            ..tuning.perception
        },
        ..tuning
    });
    crowd.set_obstacles((0..20).map(|k| Shape::Sphere {
        centre: Vec3::new(k as f32 * 1.5, 2.0, 0.0),
        radius: 0.3,
    }));
    crowd
}

#[test]
fn the_casts_of_bodies_wider_than_the_cast_radius_read_the_shapes_gathered_round_them() {
    let settings = ObstacleAvoidance::default();
    let look_ahead = settings.max_look_ahead;
    for body_radius in [0.1, 0.35, 0.5, 1.2] {
        let crowd = crowd_among_posts(body_radius);
        // The ball an agent casts: the settings' radius, or its body grown by a quarter.
        let cast = settings.cast_radius.max(1.25 * body_radius);
        let around = crowd
            .obstacles()
            .around(Vec3::new(10.0, 0.0, 0.0), look_ahead, cast);
        assert!(
            around.listed_count().is_some(),
            "bodies of radius {body_radius}: a cast of {cast} as far as {look_ahead} reads \
             more than the shapes round it"
        );
    }
}
