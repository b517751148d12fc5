//! Bad input never panics, never spreads, and is reported once.

use core::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_flock::ReportedInput;
use bevy_flock::prelude::*;

use crate::support::*;

fn corrections_for(app: &App, entity: Entity) -> Vec<&'static str> {
    app.world()
        .resource::<Corrections>()
        .0
        .iter()
        .filter(|c| c.entity == entity)
        .map(|c| c.correction.field)
        .collect()
}

#[test]
fn broken_flock_tuning_is_corrected_and_reported_once() {
    let mut app = create_test_app(FlockingPlugins::default());
    let flock = spawn_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                alignment: f32::NAN,
                ..default()
            },
            limits: SteeringLimits {
                min_speed: 7.0,
                max_speed: 3.0,
                ..default()
            },
            perception: Perception {
                neighbour_radius: -2.0,
                separation_radius: 9.0,
                avoidance_priority: 0.0,
                ..default()
            },
            ..default()
        },
    );
    let agents: Vec<Entity> = (0..20)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Agent,
                    InFlock(flock),
                    Transform::from_xyz(i as f32 * 0.5, 0.0, 0.0),
                    Velocity(Vec3::X),
                ))
                .id()
        })
        .collect();
    run_ticks(&mut app, 30);
    assert_eq!(
        corrections_for(&app, flock),
        [
            "weights.alignment",
            "limits.min_speed",
            "perception.neighbour_radius",
            "perception.separation_radius",
            "perception.avoidance_priority"
        ]
    );
    let sim = app.world().resource::<FlockSimulation>();
    let used = sim.crowd().params_of(sim.index_of(agents[0]).unwrap());
    assert_eq!(used.weights.alignment, 0.0);
    assert_eq!(used.limits.min_speed, 3.0);
    assert_eq!(used.perception.neighbour_radius, 4.0);
    assert_eq!(used.perception.separation_radius, 4.0);
    assert_eq!(used.perception.avoidance_priority, 1.0);
    for v in velocities_of(&app, &agents) {
        assert!(
            v.is_finite() && (v.length() - 3.0).abs() < 1e-4,
            "velocity {v}"
        );
    }
}

#[test]
fn a_nan_agent_is_restored_and_never_reaches_its_neighbours() {
    let mut app = create_test_app(FlockingPlugins::default());
    let agents: Vec<Entity> = (0..30)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Agent,
                    Transform::from_xyz((i % 6) as f32, (i / 6) as f32, 0.0),
                    Velocity(Vec3::X),
                ))
                .id()
        })
        .collect();
    run_ticks(&mut app, 5);
    let poisoned = agents[14];
    let before = app.world().get::<Transform>(poisoned).unwrap().translation;
    app.world_mut()
        .get_mut::<Transform>(poisoned)
        .unwrap()
        .translation = Vec3::new(f32::NAN, 1.0, f32::INFINITY);
    app.world_mut().get_mut::<Velocity>(poisoned).unwrap().0 = Vec3::splat(f32::NAN);
    let neighbour = agents[15];
    app.world_mut().entity_mut(neighbour).insert(FlockWeights {
        cohesion: f32::INFINITY,
        ..default()
    });
    run_ticks(&mut app, 1);
    let restored = app.world().get::<Transform>(poisoned).unwrap().translation;
    assert!(restored.is_finite());
    assert!(
        restored.distance(before) < 0.5,
        "restored to {restored}, was at {before}"
    );
    for _ in 0..60 {
        run_ticks(&mut app, 1);
        for p in positions(&mut app) {
            assert!(p.is_finite(), "a non-finite position spread: {p}");
        }
        for v in velocities_of(&app, &agents) {
            assert!(v.is_finite(), "a non-finite velocity spread: {v}");
        }
    }
    assert_eq!(corrections_for(&app, poisoned), ["position", "velocity"]);
    assert_eq!(corrections_for(&app, neighbour), ["weights.cohesion"]);
}

#[test]
fn a_despawned_target_causes_no_panic() {
    let mut app = create_test_app(FlockingPlugins::default());
    let prey = app
        .world_mut()
        .spawn((Agent, Transform::from_xyz(10.0, 0.0, 0.0)))
        .id();
    let hunters: Vec<Entity> = (0..10)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Agent,
                    Target::Entity(prey),
                    Transform::from_xyz(0.0, i as f32, 0.0),
                ))
                .id()
        })
        .collect();
    run_ticks(&mut app, 20);
    app.world_mut().despawn(prey);
    run_ticks(&mut app, 100);
    for v in velocities_of(&app, &hunters) {
        assert!(v.is_finite());
    }
    assert_eq!(app.world().resource::<FlockMetrics>().agents, hunters.len());
}

#[test]
fn a_huge_frame_time_is_cut_to_the_max_timestep() {
    let mut app = create_test_app(FlockingPlugins::default().in_schedule(Update));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs(10)));
    let agent = app.world_mut().spawn((Agent, Velocity(Vec3::X * 5.0))).id();
    app.update();
    app.update();
    let x = app.world().get::<Transform>(agent).unwrap().translation.x;
    // Each of the (at most two) steps may move 5 units/s x 0.1 s.
    assert!(
        x > 0.0 && x <= 1.0 + 1e-5,
        "moved {x} in two 10-second frames"
    );
}

#[test]
fn no_agents_and_a_single_agent_are_fine() {
    let mut app = create_test_app(FlockingPlugins::default());
    run_ticks(&mut app, 3);
    assert_eq!(app.world().resource::<FlockMetrics>().agents, 0);
    let alone = app.world_mut().spawn((Agent, Velocity(Vec3::Y))).id();
    run_ticks(&mut app, 3);
    let metrics = *app.world().resource::<FlockMetrics>();
    assert_eq!(metrics.agents, 1);
    assert_eq!(metrics.polarisation, 1.0);
    assert_eq!(metrics.mean_nearest_distance, None);
    app.world_mut().entity_mut(alone).remove::<Agent>();
    run_ticks(&mut app, 1);
    assert_eq!(app.world().resource::<FlockMetrics>().agents, 0);
}

/// Entities the mid-tick system below despawns, one a tick, and an agent it strips of its
/// velocity once.
#[derive(Resource)]
struct DoomedMidTick(Vec<Entity>, Option<Entity>);

#[test]
fn despawning_agents_and_targets_in_the_middle_of_a_tick_causes_no_panic() {
    let mut app = create_test_app(FlockingPlugins::default());
    let prey: Vec<Entity> = (0..5)
        .map(|i| {
            app.world_mut()
                .spawn((Agent, Transform::from_xyz(8.0, i as f32, 0.0)))
                .id()
        })
        .collect();
    let hunters: Vec<Entity> = (0..20)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Agent,
                    Target::Entity(prey[i % prey.len()]),
                    Transform::from_xyz(0.0, i as f32 * 0.5, 0.0),
                    Velocity(Vec3::X),
                ))
                .id()
        })
        .collect();
    // Between force accumulation and integration, after the simulation has read every agent,
    // despawn a prey (some hunters' target) or a hunter, and strip another hunter's velocity.
    let mut doomed: Vec<Entity> = prey.iter().chain(&hunters[..5]).copied().collect();
    doomed.reverse();
    app.insert_resource(DoomedMidTick(doomed, Some(hunters[10])))
        .add_systems(
            FixedUpdate,
            (|mut commands: Commands, mut doomed: ResMut<DoomedMidTick>| {
                if let Some(entity) = doomed.0.pop() {
                    commands.entity(entity).despawn();
                }
                if let Some(entity) = doomed.1.take() {
                    commands.entity(entity).remove::<Velocity>();
                }
            })
            .in_set(FlockingSystems::Avoidance),
        );
    run_ticks(&mut app, 30);
    // Agents stripped of their velocity leave the simulation; the rest fly on, finite.
    let moving: Vec<Vec3> = hunters[5..]
        .iter()
        .filter_map(|&h| app.world().get::<Velocity>(h).map(|v| v.0))
        .collect();
    assert!(moving.iter().all(|v| v.is_finite() && *v != Vec3::ZERO));
    assert_eq!(moving.len(), 14, "all but the stripped hunter move");
    assert_eq!(app.world().resource::<FlockMetrics>().agents, moving.len());
}

#[test]
fn a_bad_rotation_is_reported_and_the_heading_comes_from_the_velocity() {
    for plugin in [
        FlockingPlugins::default(),
        FlockingPlugins::default().planar(),
    ] {
        let mut app = create_test_app(plugin);
        let rotations = [
            Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
            Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
            Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        ];
        let agents: Vec<Entity> = rotations
            .iter()
            .enumerate()
            .map(|(i, &rotation)| {
                app.world_mut()
                    .spawn((
                        Agent,
                        Transform {
                            translation: Vec3::new(i as f32 * 3.0, 0.0, 0.0),
                            rotation,
                            ..default()
                        },
                        Velocity(Vec3::Y),
                    ))
                    .id()
            })
            .collect();
        run_ticks(&mut app, 10);
        for &agent in &agents {
            assert_eq!(corrections_for(&app, agent), ["rotation"]);
            let transform = app.world().get::<Transform>(agent).unwrap();
            assert!(
                transform.rotation.is_normalized(),
                "the rotation {} was not replaced",
                transform.rotation
            );
            assert!(transform.translation.is_finite());
        }
        for v in velocities_of(&app, &agents) {
            assert!(v.is_finite() && v.length() > 0.5, "velocity {v}");
        }
    }
}

#[test]
fn bad_obstacles_and_predators_are_reported_once_and_ignored() {
    let mut app = create_test_app(FlockingPlugins::default());
    let at = |x: f32| Transform::from_xyz(x, 0.0, 0.0);
    let bad = [
        app.world_mut()
            .spawn((Obstacle::Sphere { radius: -1.0 }, at(0.0)))
            .id(),
        app.world_mut()
            .spawn((
                Obstacle::Sphere { radius: 1.0 },
                Transform::from_xyz(f32::NAN, 0.0, 0.0),
            ))
            .id(),
        app.world_mut()
            .spawn((
                Obstacle::Sphere { radius: 1.0 },
                at(5.0).with_scale(Vec3::ZERO),
            ))
            .id(),
        app.world_mut()
            .spawn((
                Obstacle::Box {
                    half_extents: Vec3::new(1.0, -1.0, 1.0),
                },
                at(10.0),
            ))
            .id(),
        app.world_mut()
            .spawn((
                Obstacle::Capsule {
                    half_length: f32::NAN,
                    radius: 1.0,
                },
                at(15.0),
            ))
            .id(),
    ];
    let predator = app
        .world_mut()
        .spawn((Predator { radius: f32::NAN }, at(20.0)))
        .id();
    let agents: Vec<Entity> = (0..10)
        .map(|i| {
            app.world_mut()
                .spawn((Agent, at(i as f32 * 2.5), Velocity(Vec3::X)))
                .id()
        })
        .collect();
    run_ticks(&mut app, 20);
    for obstacle in bad {
        assert_eq!(corrections_for(&app, obstacle), ["obstacle"], "{obstacle}");
    }
    assert_eq!(corrections_for(&app, predator), ["predator"]);
    for v in velocities_of(&app, &agents) {
        assert!(v.is_finite(), "velocity {v}");
    }
}

#[test]
fn an_agent_that_targets_or_follows_itself_is_reported() {
    let mut app = create_test_app(FlockingPlugins::default());
    let seeker = app
        .world_mut()
        .spawn((Agent, Transform::default(), Velocity(Vec3::X)))
        .id();
    let follower = app
        .world_mut()
        .spawn((
            Agent,
            Transform::from_xyz(10.0, 0.0, 0.0),
            Velocity(Vec3::X),
        ))
        .id();
    app.world_mut()
        .entity_mut(seeker)
        .insert(Target::Pursue(seeker));
    app.world_mut()
        .entity_mut(follower)
        .insert(FollowLeader::new(follower, 2.0));
    run_ticks(&mut app, 10);
    assert_eq!(corrections_for(&app, seeker), ["target"]);
    assert_eq!(corrections_for(&app, follower), ["leader"]);
    for v in velocities_of(&app, &[seeker, follower]) {
        assert!(v.is_finite() && v.length() > 0.5, "velocity {v}");
    }
}

#[test]
fn a_boundary_with_no_room_is_reported_and_switched_off() {
    let mut app = create_test_app(FlockingPlugins::default());
    let flock = spawn_flock(
        &mut app,
        FlockTuning {
            boundary: Boundary::walls(Vec3::ZERO, Vec3::ZERO, 1.0),
            ..default()
        },
    );
    for i in 0..20 {
        app.world_mut().spawn((
            Agent,
            InFlock(flock),
            Transform::from_xyz(i as f32, 0.0, 0.0),
            Velocity(Vec3::X),
        ));
    }
    run_ticks(&mut app, 10);
    assert_eq!(corrections_for(&app, flock), ["boundary.max"]);
    // Walls round a point would have pinned them all onto it.
    let spread = spread(&positions(&mut app));
    assert!(spread > 1.0, "agents gathered within {spread}");
}

#[test]
fn reports_are_forgotten_with_their_entities() {
    let mut app = create_test_app(FlockingPlugins::default());
    let per_round = 200;
    let rounds = 40;
    let mut largest = 0;
    for _ in 0..rounds {
        let agents: Vec<Entity> = (0..per_round)
            .map(|i| {
                app.world_mut()
                    .spawn((
                        Agent,
                        Transform::from_xyz(i as f32, 0.0, 0.0),
                        Velocity(Vec3::new(f32::NAN, 0.0, 0.0)),
                    ))
                    .id()
            })
            .collect();
        run_ticks(&mut app, 2);
        largest = largest.max(app.world().resource::<ReportedInput>().len());
        for agent in agents {
            app.world_mut().despawn(agent);
        }
    }
    // Every bad agent was reported once...
    let reported = app.world().resource::<Corrections>().0.len();
    assert_eq!(reported, per_round * rounds);
    // ...and the memory of it stays within a few rounds' worth, not all 8,000.
    assert!(
        largest <= 3 * per_round,
        "{largest} reports remembered for {per_round} live agents"
    );
}

#[test]
fn a_leader_without_a_transform_is_not_lost() {
    let mut app = create_test_app(FlockingPlugins::default());
    let leader = app.world_mut().spawn(Velocity(Vec3::X)).id();
    let follower = app
        .world_mut()
        .spawn((
            Agent,
            Transform::default(),
            Velocity(Vec3::X),
            FollowLeader::new(leader, 2.0),
        ))
        .id();
    run_ticks(&mut app, 5);
    assert!(
        app.world().get::<FollowLeader>(follower).is_some(),
        "the follower gave up on a leader that exists"
    );
    // Once it has a place, it is followed.
    app.world_mut()
        .entity_mut(leader)
        .insert(Transform::from_xyz(20.0, 0.0, 0.0));
    run_ticks(&mut app, 120);
    let at = app.world().get::<Transform>(follower).unwrap().translation;
    assert!(at.x > 5.0, "the follower stayed at {at}");
    // Gone for good: lost.
    app.world_mut().despawn(leader);
    run_ticks(&mut app, 2);
    assert!(app.world().get::<FollowLeader>(follower).is_none());
}

#[test]
fn a_despawned_default_flock_is_replaced() {
    let mut app = create_test_app(FlockingPlugins::default());
    let agent = app
        .world_mut()
        .spawn((Agent, Transform::default(), Velocity(Vec3::X)))
        .id();
    run_ticks(&mut app, 2);
    let first = **app.world().resource::<DefaultFlock>();
    app.world_mut().despawn(first);
    run_ticks(&mut app, 2);
    let second = **app.world().resource::<DefaultFlock>();
    assert_ne!(first, second);
    assert!(app.world().get::<Flock>(second).is_some());
    let sim = app.world().resource::<FlockSimulation>();
    assert_eq!(sim.flock_of(agent), Some(second));
}
