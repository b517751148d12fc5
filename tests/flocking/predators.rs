//! Predators: agents within a predator's radius flee it.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

#[test]
fn agents_flee_a_predator_within_its_radius_and_ignore_it_beyond() {
    let mut app = create_test_app(FlockingPlugin::default().planar());
    // Only fleeing acts.
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                flee: 1.0,
                ..no_weights()
            },
            ..default()
        },
    );
    app.world_mut()
        .spawn((Predator { radius: 6.0 }, Transform::default()));
    let starts = [
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(0.0, -4.0, 0.0),
        Vec3::new(-5.0, 1.0, 0.0),
        Vec3::new(9.0, 0.0, 0.0),
    ];
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&p| {
            app.world_mut()
                .spawn((Agent, Transform::from_translation(p), Velocity(Vec3::Y)))
                .id()
        })
        .collect();
    run_ticks(&mut app, 64);
    let ends: Vec<Vec3> = agents
        .iter()
        .map(|&a| app.world().get::<Transform>(a).unwrap().translation)
        .collect();
    // Steering toward max speed straight away, as seek does toward a target: 1.9 further in
    // the first second moving across the way, 1.2 for the one that was heading at it.
    for (start, end) in starts.iter().zip(&ends).take(3) {
        assert!(
            end.length() > start.length() + 1.0,
            "from {start} to {end}: did not run"
        );
    }
    // Beyond the radius: it drifts on at its own velocity.
    assert!(
        (ends[3] - (starts[3] + Vec3::Y)).length() < 0.05,
        "{}",
        ends[3]
    );
}
