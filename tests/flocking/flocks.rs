//! Several flocks at once, shared tuning and per-agent overrides.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// Two interleaved flocks, one heading +X and one -X, on the plane.
fn two_crossing_flocks(app: &mut App) -> (Vec<Entity>, Vec<Entity>) {
    let tuning = FlockTuning {
        weights: FlockWeights {
            alignment: 1.0,
            ..no_weights()
        },
        ..default()
    };
    let east = spawn_flock(app, tuning);
    let west = spawn_flock(app, tuning);
    let mut rng = Rng::new(21);
    let (mut easterners, mut westerners) = (Vec::new(), Vec::new());
    for i in 0..200 {
        let p = rng.in_cube(8.0).with_z(0.0);
        let wobble = rng.direction().with_z(0.0) * 0.5;
        let (flock, heading, list) = if i % 2 == 0 {
            (east, Vec3::X, &mut easterners)
        } else {
            (west, Vec3::NEG_X, &mut westerners)
        };
        let agent = app.world_mut().spawn((
            Agent,
            InFlock(flock),
            Transform::from_translation(p),
            Velocity(heading * 3.0 + wobble),
        ));
        list.push(agent.id());
    }
    (easterners, westerners)
}

#[test]
fn flocks_align_only_within_themselves() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    let (east, west) = two_crossing_flocks(&mut app);
    run_ticks(&mut app, 60);
    let east_v = velocities_of(&app, &east);
    let west_v = velocities_of(&app, &west);
    let mean_east: Vec3 = east_v.iter().map(|v| v.normalize()).sum::<Vec3>() / east_v.len() as f32;
    let mean_west: Vec3 = west_v.iter().map(|v| v.normalize()).sum::<Vec3>() / west_v.len() as f32;
    assert!(
        polarisation(&east_v) > 0.95,
        "east flock {}",
        polarisation(&east_v)
    );
    assert!(
        polarisation(&west_v) > 0.95,
        "west flock {}",
        polarisation(&west_v)
    );
    assert!(
        mean_east.x > 0.95 && mean_west.x < -0.95,
        "{mean_east} / {mean_west}"
    );
}

#[test]
fn agents_of_different_flocks_still_separate() {
    let mut app = create_test_app(FlockingPlugins::default());
    let a = spawn_flock(&mut app, FlockTuning::default());
    let b = spawn_flock(&mut app, FlockTuning::default());
    let first = app.world_mut().spawn((Agent, InFlock(a))).id();
    let second = app
        .world_mut()
        .spawn((Agent, InFlock(b), Transform::from_xyz(0.4, 0.0, 0.0)))
        .id();
    run_ticks(&mut app, 64);
    let p1 = app.world().get::<Transform>(first).unwrap().translation;
    let p2 = app.world().get::<Transform>(second).unwrap().translation;
    assert!(p1.distance(p2) > 1.2, "still {} apart", p1.distance(p2));
}

#[test]
fn editing_a_flock_moves_every_member_and_an_override_wins() {
    let mut app = create_test_app(FlockingPlugins::default());
    let flock = spawn_flock(
        &mut app,
        FlockTuning {
            weights: no_weights(),
            ..default()
        },
    );
    let members: Vec<Entity> = (0..50)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Agent,
                    InFlock(flock),
                    Transform::from_xyz(i as f32 * 3.0, 0.0, 0.0),
                    Velocity(Vec3::Z * 5.0),
                ))
                .id()
        })
        .collect();
    let rebel = members[7];
    app.world_mut()
        .entity_mut(rebel)
        .insert(SteeringLimits::default());
    run_ticks(&mut app, 1);
    app.world_mut()
        .get_mut::<SteeringLimits>(flock)
        .unwrap()
        .max_speed = 1.0;
    run_ticks(&mut app, 1);
    for (agent, v) in members.iter().zip(velocities_of(&app, &members)) {
        let expected = if *agent == rebel { 5.0 } else { 1.0 };
        assert!(
            (v.length() - expected).abs() < 1e-4,
            "speed {} not {expected}",
            v.length()
        );
    }
}

#[test]
fn despawning_a_flock_returns_its_members_to_the_default_flock() {
    let mut app = create_test_app(FlockingPlugins::default());
    let flock = spawn_flock(
        &mut app,
        FlockTuning {
            limits: SteeringLimits {
                max_speed: 1.0,
                ..default()
            },
            ..default()
        },
    );
    let agent = app
        .world_mut()
        .spawn((Agent, InFlock(flock), Velocity(Vec3::X)))
        .id();
    run_ticks(&mut app, 1);
    app.world_mut().despawn(flock);
    app.world_mut().get_mut::<Velocity>(agent).unwrap().0 = Vec3::X * 4.0;
    run_ticks(&mut app, 1);
    assert!(app.world().get::<InFlock>(agent).is_none());
    let speed = app.world().get::<Velocity>(agent).unwrap().length();
    assert!(
        (speed - 4.0).abs() < 1e-4,
        "default flock's max speed 5 not applied: {speed}"
    );
}

#[test]
fn the_flocking_lab_preset_needs_no_correction_and_orders_a_flock() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    tune_default_flock(&mut app, FlockTuning::flocking_lab());
    let mut rng = Rng::new(31);
    let agents: Vec<Entity> = (0..400)
        .map(|_| {
            let p = (rng.in_cube(1.0) * Vec3::new(450.0, 280.0, 0.0)).with_z(0.0);
            let v = rng.direction().with_z(0.0).normalize_or(Vec3::X) * 120.0;
            app.world_mut()
                .spawn((Agent, Transform::from_translation(p), Velocity(v)))
                .id()
        })
        .collect();
    let before = polarisation(&velocities_of(&app, &agents));
    run_ticks(&mut app, 640);
    let after = polarisation(&velocities_of(&app, &agents));
    assert!(app.world().resource::<Corrections>().0.is_empty());
    for v in velocities_of(&app, &agents) {
        assert!(
            (60.0 - 1e-3..=180.0 + 1e-3).contains(&v.length()),
            "speed {}",
            v.length()
        );
    }
    assert!(
        after > before + 0.3,
        "polarisation went from {before} to {after}"
    );
}
