//! Ground with a height: units on a navmesh whose ground rises over a hill walk on its surface
//! at every tick and still reach their goals; where the height is not finite an agent walks on
//! the plane, and no other agent is touched.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// A corridor 34 m long and 6 m wide, along x.
fn corridor() -> [Vec2; 4] {
    [
        Vec2::ZERO,
        Vec2::new(34.0, 0.0),
        Vec2::new(34.0, 6.0),
        Vec2::new(0.0, 6.0),
    ]
}

/// A hill across the corridor: up 3 m over 10 m from x = 5 (a slope of about 17°), flat for
/// 4 m, and down again by x = 29.
fn hill(p: Vec2) -> f32 {
    ((p.x - 5.0).min(29.0 - p.x) * 0.3).clamp(0.0, 3.0)
}

/// A planar app with the navmesh planning on `mesh`, and a unit sent along the corridor from
/// each of `ys` at its west end.
fn corridor_app(mesh: NavMesh, ys: &[f32]) -> (App, Vec<Entity>) {
    let trips: Vec<_> = (ys.iter())
        .map(|&y| (Vec3::new(2.0, y, 0.0), Vec3::new(32.0, y, 0.0)))
        .collect();
    squads_on_navmesh(mesh, &trips)
}

/// A planar app with the navmesh `mesh` and a unit sent from each of `trips`' starts to its
/// goal.
pub(crate) fn squads_on_navmesh(mesh: NavMesh, trips: &[(Vec3, Vec3)]) -> (App, Vec<Entity>) {
    let mut app = create_test_app_with(FlockingPlugins::default().planar(), |app| {
        app.add_plugins((SquadsPlugin, TerrainPlugin, NavMeshPlugin));
    });
    app.insert_resource(mesh);
    tune_default_flock(&mut app, FlockTuning::squad());
    let units = (trips.iter())
        .map(|&(from, to)| {
            app.world_mut()
                .spawn((Agent, Transform::from_translation(from), Destination(to)))
                .id()
        })
        .collect();
    (app, units)
}

fn position(app: &App, unit: Entity) -> Vec3 {
    app.world().get::<Transform>(unit).unwrap().translation
}

#[test]
fn units_walk_over_a_hill_on_its_surface_and_reach_their_goals() {
    let mesh = NavMesh::from_outline(&corridor(), Vec::<Vec<Vec2>>::new(), 0.35)
        .unwrap()
        .with_height(hill);
    assert_eq!(mesh.height_at(Vec3::new(17.0, 3.0, 0.0)), 3.0);
    let ys = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (mut app, units) = corridor_app(mesh, &ys);
    let mut highest: f32 = 0.0;
    for tick in 1..=600 {
        app.update();
        for &unit in &units {
            let at = position(&app, unit);
            // The ground's height exactly: the plugin writes it after each tick's move.
            assert_eq!(
                at.z,
                hill(at.truncate()),
                "unit {unit} at {at} is off the hill's surface after {tick} ticks"
            );
            highest = highest.max(at.z);
        }
    }
    assert_eq!(highest, 3.0, "the units crossed the hill's top");
    for (&unit, &y) in units.iter().zip(&ys) {
        let at = position(&app, unit);
        assert!(
            at.truncate().distance(Vec2::new(32.0, y)) < 2.0,
            "unit {unit} ended at {at}, short of its goal at (32, {y})"
        );
        assert_eq!(at.z, 0.0, "down on the flat again");
    }
}

#[test]
fn where_the_height_is_not_finite_agents_walk_on_the_plane_and_no_other_is_touched() {
    // A hole in the height east of x = 10: no finite answer there.
    let holed = |p: Vec2| if p.x > 10.0 { f32::NAN } else { hill(p) };
    let mesh = NavMesh::from_outline(&corridor(), Vec::<Vec<Vec2>>::new(), 0.35)
        .unwrap()
        .with_height(holed);
    let (mut app, units) = corridor_app(mesh, &[2.0, 4.0]);
    // One unit stays behind at the west end, placed on the ground's surface there.
    let staying = app
        .world_mut()
        .spawn((
            Agent,
            Transform::from_xyz(8.0, 3.0, hill(Vec2::new(8.0, 3.0))),
        ))
        .id();
    // The surface where it has a height, the plane where it has none.
    let expected = |at: Vec3| {
        if at.x <= 10.0 {
            hill(at.truncate())
        } else {
            0.0
        }
    };
    for tick in 1..=300 {
        app.update();
        for &unit in units.iter().chain([&staying]) {
            let at = position(&app, unit);
            assert!(at.is_finite(), "unit {unit} at {at} after {tick} ticks");
            assert_eq!(at.z, expected(at), "unit {unit} at {at} after {tick} ticks");
        }
    }
    assert!(
        units.iter().all(|&unit| position(&app, unit).x > 10.0),
        "the units walked on past the hole's edge"
    );
}
