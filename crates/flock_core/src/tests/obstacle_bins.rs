//! The crowd's obstacles are binned for the widest ball its agents cast: a body grown by the
//! avoidance's clearance can be wider than the settings' cast radius, and its casts must still
//! read the shapes gathered round it, not every cell round their way. Obstacles scattered
//! across a world too wide for the bins' grid are binned in wider cells, and found as before.

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

#[test]
fn obstacles_scattered_too_far_apart_for_the_grid_are_binned_in_wider_cells_and_found() {
    // Reach 2: columns 1 wide, three million of them between the two spheres.
    let far = 3.0e6;
    let spheres = [0.0, far].map(|x| Shape::Sphere {
        centre: Vec3::new(x, 0.0, 0.0),
        radius: 0.5,
    });
    let mut set = ObstacleSet::default();
    assert_eq!(set.rebuild_on_plane(spheres, 2.0), 0);
    assert!(set.cell_count() <= 1 << 16, "{} cells", set.cell_count());
    for x in [0.0, far] {
        assert_eq!(
            set.distance(Vec3::new(x + 1.5, 0.0, 0.0)),
            Some(1.0),
            "by {x}"
        );
        assert_eq!(set.distance(Vec3::new(x, 2.0, 0.0)), Some(1.5), "by {x}");
        assert_eq!(
            set.distance(Vec3::new(x + 1e3, 0.0, 0.0)),
            None,
            "far from both"
        );
        // A cast longer than the reach reads the cells round its way.
        let hit = set
            .cast(Vec3::new(x - 8.0, 0.0, 0.0), Vec3::X, 10.0, 0.25)
            .expect("the sphere ahead");
        assert!((hit.distance - 7.25).abs() < 2e-3, "by {x}: {hit:?}");
    }
}

#[test]
fn a_shape_so_far_out_that_its_cells_saturate_is_still_found() {
    // Cells 2 wide: at 1e14 (shapes as far as 1e15 are valid) the cell's x is the largest
    // there is.
    let far = Vec3::new(1e14, 0.0, 0.0);
    let mut set = ObstacleSet::default();
    set.rebuild(
        [Shape::Sphere {
            centre: far,
            radius: 1.0,
        }],
        2.0,
    );
    assert_eq!(set.distance(far), Some(-1.0));
    assert_eq!(set.distance(-far), None);
}
