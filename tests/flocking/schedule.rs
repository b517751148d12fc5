//! The system sets as a contract: what user systems see in the hook points.

use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore};
use bevy::ecs::schedule::{LogLevel, ScheduleBuildSettings};
use bevy::prelude::*;
use bevy_flock::diagnostics;
use bevy_flock::prelude::*;

use crate::support::*;

/// Positions seen by a user system in `FlockingSystems::First` and in `Last`.
#[derive(Resource, Default)]
struct Seen {
    first: Vec<Vec3>,
    last: Vec<Vec3>,
    forces: Vec<Vec3>,
}

#[test]
fn hooks_see_the_documented_state_and_forces_can_be_added() {
    let mut app = create_test_app(FlockingPlugins::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: no_weights(),
            ..default()
        },
    );
    app.init_resource::<Seen>().add_systems(
        FixedUpdate,
        (
            (|q: Query<&Transform, With<Agent>>, mut seen: ResMut<Seen>| {
                seen.first.extend(q.iter().map(|t| t.translation));
            })
            .in_set(FlockingSystems::First),
            (|mut sim: ResMut<FlockSimulation>, mut seen: ResMut<Seen>| {
                let agents = sim.entities().to_vec();
                for agent in agents {
                    seen.forces.push(sim.force(agent).unwrap());
                    assert!(sim.add_force(agent, Vec3::Y * 6.4));
                }
            })
            .in_set(FlockingSystems::Avoidance),
            (|q: Query<&Transform, With<Agent>>, mut seen: ResMut<Seen>| {
                seen.last.extend(q.iter().map(|t| t.translation));
            })
            .in_set(FlockingSystems::Last),
        ),
    );
    app.world_mut().spawn((Agent, Velocity(Vec3::X)));
    run_ticks(&mut app, 1);
    let seen = app.world().resource::<Seen>();
    let dt = 1.0 / 64.0;
    assert_eq!(
        seen.first,
        [Vec3::ZERO],
        "First runs before the agent moves"
    );
    assert_eq!(seen.forces, [Vec3::ZERO], "no rule is weighted");
    let expected_v = Vec3::X + Vec3::Y * 6.4 * dt;
    assert!(
        seen.last[0].distance(expected_v * dt) < 1e-6,
        "Last saw {}, expected the wind-blown {}",
        seen.last[0],
        expected_v * dt
    );
}

#[test]
fn metrics_are_published_as_diagnostics() {
    let mut app = create_test_app(FlockingPlugins::default());
    for i in 0..10 {
        app.world_mut().spawn((
            Agent,
            Transform::from_xyz(i as f32, 0.0, 0.0),
            Velocity(Vec3::Z),
        ));
    }
    run_ticks(&mut app, 2);
    let store = app.world().resource::<DiagnosticsStore>();
    let value = |path: &DiagnosticPath| -> f64 {
        store.get(path).and_then(|d| d.value()).expect("measured")
    };
    assert_eq!(value(&diagnostics::AGENT_COUNT), 10.0);
    assert!(value(&diagnostics::POLARISATION) > 0.99);
    assert!(value(&diagnostics::MEAN_NEIGHBOURS) >= 2.0);
    assert!(value(&diagnostics::NEAREST_NEIGHBOUR_DISTANCE) > 0.5);
    assert!(value(&diagnostics::STEP_TIME) > 0.0);
}

#[test]
fn the_plugin_systems_have_no_ambiguous_order() {
    // Every plugin of the group and the opt-in ones.
    let mut app = create_squads_test_app(FlockingPlugins::default());
    app.edit_schedule(FixedUpdate, |schedule| {
        schedule.set_build_settings(ScheduleBuildSettings {
            ambiguity_detection: LogLevel::Error,
            ..default()
        });
    });
    app.world_mut().spawn(Agent);
    // Building the schedule with ambiguities as errors panics if any two systems that touch
    // the same data have no order.
    run_ticks(&mut app, 1);
}
