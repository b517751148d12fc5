//! Changing `FlockingConfig` at run time: the space and schedule the plugins were built with
//! stay as they were, whatever a game does with the resource.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// An app of `plugin` with 20 agents wandering with noise, which in 3D carries them off the
/// plane they start on, run 5 ticks.
fn wandering_app(plugin: FlockingPlugins) -> App {
    let mut app = create_test_app(plugin);
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                noise: 0.5,
                wander: 2.0,
                ..default()
            },
            ..default()
        },
    );
    for k in 0..20 {
        let position = Vec3::new((k % 5) as f32 * 3.0, (k / 5) as f32 * 3.0, 0.0);
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(position),
            Velocity(Vec3::X * 2.0),
        ));
    }
    run_ticks(&mut app, 5);
    app
}

/// After `change` to the app's world and 100 ticks: the farthest any agent is from the plane
/// z = 0, and whether the app reports itself planar.
fn off_the_plane_after(mut app: App, change: impl FnOnce(&mut World)) -> (f32, bool) {
    change(app.world_mut());
    run_ticks(&mut app, 100);
    let farthest = positions(&mut app)
        .iter()
        .map(|p| p.z.abs())
        .fold(0.0, f32::max);
    (
        farthest,
        app.world().resource::<FlockingSetup>().is_planar(),
    )
}

/// [`off_the_plane_after`] for a planar app.
fn planar_after(change: impl FnOnce(&mut World)) -> (f32, bool) {
    off_the_plane_after(wandering_app(FlockingPlugins::default().planar()), change)
}

#[test]
fn a_planar_app_stays_planar_when_a_new_default_config_is_inserted() {
    let (farthest, planar) = planar_after(|world| world.insert_resource(FlockingConfig::default()));
    assert_eq!(farthest, 0.0, "agents left the plane");
    assert!(planar);
}

#[test]
fn a_planar_app_stays_planar_when_a_config_is_built_by_struct_update() {
    let (farthest, planar) = planar_after(|world| {
        world.insert_resource(FlockingConfig {
            seed: 7,
            max_timestep: std::time::Duration::from_millis(50),
            ..default()
        });
    });
    assert_eq!(farthest, 0.0, "agents left the plane");
    assert!(planar);
}

#[test]
fn a_planar_app_stays_planar_when_the_config_is_changed_in_place() {
    let (farthest, planar) = planar_after(|world| {
        let mut config = world.resource_mut::<FlockingConfig>();
        config.seed = 11;
        *config = FlockingConfig {
            orient_to_velocity: false,
            ..config.clone()
        };
    });
    assert_eq!(farthest, 0.0, "agents left the plane");
    assert!(planar);
}

#[test]
fn a_planar_app_stays_planar_when_the_config_is_removed_and_put_back() {
    let (farthest, planar) = planar_after(|world| {
        let config = world
            .remove_resource::<FlockingConfig>()
            .expect("the plugin inserts the config");
        world.insert_resource(FlockingConfig { seed: 3, ..config });
    });
    assert_eq!(farthest, 0.0, "agents left the plane");
    assert!(planar);
}

#[test]
fn a_3d_app_stays_3d_and_its_agents_leave_the_plane() {
    // What the tests above would see if the space changed: the same flock in 3D leaves the
    // plane.
    let app = wandering_app(FlockingPlugins::default());
    let (farthest, planar) = off_the_plane_after(app, |world| {
        world.insert_resource(FlockingConfig::default())
    });
    assert!(
        farthest > 0.1,
        "3D agents stayed within {farthest} of z = 0"
    );
    assert!(!planar);
}

#[test]
fn a_config_inserted_before_the_plugins_is_kept() {
    let mut app = App::new();
    app.insert_resource(FlockingConfig {
        seed: 42,
        ..default()
    });
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        FlockingPlugins::default().planar(),
    ));
    assert_eq!(app.world().resource::<FlockingConfig>().seed, 42);
    assert!(app.world().resource::<FlockingSetup>().is_planar());
}
