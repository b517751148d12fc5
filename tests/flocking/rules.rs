//! Reynolds' rules, target seeking and the field of view, measured.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// Spawns `n` agents uniformly in a cube of half-size `extent`, moving at `speed` in random
/// directions.
fn spawn_random(app: &mut App, n: usize, extent: f32, speed: f32, seed: u64) -> Vec<Entity> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let position = rng.in_cube(extent);
            let velocity = rng.direction() * speed;
            app.world_mut()
                .spawn((
                    Agent,
                    Transform::from_translation(position),
                    Velocity(velocity),
                ))
                .id()
        })
        .collect()
}

/// A 3D box where 1,500 agents have about 45 neighbours within radius 4 at the start.
const HALF_BOX: f32 = 10.0;

fn wrap_box() -> Boundary {
    Boundary::Wrap {
        min: Vec3::splat(-HALF_BOX),
        max: Vec3::splat(HALF_BOX),
    }
}

#[test]
fn zero_weights_keep_random_headings_disordered() {
    let mut app = create_test_app(FlockingPlugins::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: no_weights(),
            boundary: wrap_box(),
            ..default()
        },
    );
    let agents = spawn_random(&mut app, 1_500, HALF_BOX, 3.0, 1);
    run_ticks(&mut app, 200);
    let order = polarisation(&velocities_of(&app, &agents));
    let metric = app.world().resource::<FlockMetrics>().polarisation;
    assert!(order < 0.1, "polarisation {order} with every rule off");
    assert!(
        (metric - order).abs() < 1e-3,
        "FlockMetrics says {metric}, measured {order}"
    );
}

#[test]
fn alignment_alone_orders_the_flock() {
    let mut app = create_test_app(FlockingPlugins::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                alignment: 1.0,
                ..no_weights()
            },
            limits: SteeringLimits {
                min_speed: 2.0,
                ..default()
            },
            boundary: wrap_box(),
            ..default()
        },
    );
    let agents = spawn_random(&mut app, 1_500, HALF_BOX, 3.0, 2);
    let before = polarisation(&velocities_of(&app, &agents));
    run_ticks(&mut app, 768);
    let after = polarisation(&velocities_of(&app, &agents));
    assert!(before < 0.1, "started ordered: {before}");
    assert!(after > 0.9, "alignment only reached polarisation {after}");
}

/// The closest any two agents of a tight, cohesive group come over the last second.
fn closest_approach(separation: f32) -> f32 {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                separation,
                ..default()
            },
            ..default()
        },
    );
    let mut rng = Rng::new(3);
    for _ in 0..150 {
        let p = rng.in_cube(4.0).with_z(0.0);
        app.world_mut()
            .spawn((Agent, Transform::from_translation(p), Velocity::ZERO));
    }
    run_ticks(&mut app, 640);
    let mut closest = f32::INFINITY;
    for _ in 0..64 {
        run_ticks(&mut app, 1);
        closest = closest.min(min_pair_distance(&positions(&mut app)));
    }
    closest
}

#[test]
fn separation_keeps_a_minimum_distance() {
    let without = closest_approach(0.0);
    let with = closest_approach(1.8);
    assert!(
        without < 0.15,
        "without separation agents stayed {without} apart"
    );
    assert!(with > 0.4, "with separation agents came within {with}");
}

#[test]
fn cohesion_gathers_a_spread_group() {
    let run = |cohesion: f32| {
        let mut app = create_test_app(FlockingPlugins::default());
        tune_default_flock(
            &mut app,
            FlockTuning {
                weights: FlockWeights {
                    cohesion,
                    separation: 0.0,
                    ..default()
                },
                ..default()
            },
        );
        let mut rng = Rng::new(4);
        for _ in 0..80 {
            let p = rng.in_cube(6.0);
            app.world_mut()
                .spawn((Agent, Transform::from_translation(p), Velocity::ZERO));
        }
        let before = spread(&positions(&mut app));
        run_ticks(&mut app, 640);
        spread(&positions(&mut app)) / before
    };
    let (without, with) = (run(0.0), run(0.9));
    assert!(
        without > 0.95,
        "without cohesion the group shrank to {without}"
    );
    assert!(with < 0.5, "with cohesion the group only shrank to {with}");
}

#[test]
fn seek_and_arrive_reach_the_target_and_settle() {
    let mut app = create_test_app(FlockingPlugins::default());
    let goal = Vec3::new(20.0, 5.0, -12.0);
    let agent = app
        .world_mut()
        .spawn((
            Agent,
            Target::Point(goal),
            Velocity(Vec3::new(0.0, 0.0, 4.0)),
        ))
        .id();
    let mut arrival_tick = None;
    for tick in 0..1_920 {
        run_ticks(&mut app, 1);
        let p = app.world().get::<Transform>(agent).unwrap().translation;
        if arrival_tick.is_none() && p.distance(goal) < 1.0 {
            arrival_tick = Some(tick);
        }
    }
    let p = app.world().get::<Transform>(agent).unwrap().translation;
    let speed = app.world().get::<Velocity>(agent).unwrap().length();
    let arrival_tick = arrival_tick.expect("never came within 1 unit of the target");
    assert!(arrival_tick < 640, "took {arrival_tick} ticks to arrive");
    assert!(
        p.distance(goal) < 0.05,
        "settled {} from the target",
        p.distance(goal)
    );
    assert!(speed < 0.05, "still moving at {speed}");
}

#[test]
fn a_followed_entity_drags_its_followers() {
    let mut app = create_test_app(FlockingPlugins::default());
    let leader = app
        .world_mut()
        .spawn(Transform::from_xyz(30.0, 0.0, 0.0))
        .id();
    let follower = app.world_mut().spawn((Agent, Target::Entity(leader))).id();
    run_ticks(&mut app, 1_280);
    let p = app.world().get::<Transform>(follower).unwrap().translation;
    assert!(
        p.distance(Vec3::new(30.0, 0.0, 0.0)) < 1.0,
        "follower at {p}"
    );
}

#[test]
fn a_narrow_field_of_view_ignores_the_agent_behind() {
    // A heads +X; B sits right behind it, heading +Y. With alignment only, A turns toward
    // B's heading if and only if it can see B.
    let turn_of_front_agent = |field_of_view: f32| {
        let mut app = create_test_app(FlockingPlugins::default());
        tune_default_flock(
            &mut app,
            FlockTuning {
                weights: FlockWeights {
                    alignment: 1.0,
                    ..no_weights()
                },
                perception: Perception {
                    field_of_view,
                    ..default()
                },
                ..default()
            },
        );
        let front = app.world_mut().spawn((Agent, Velocity(Vec3::X * 3.0))).id();
        app.world_mut().spawn((
            Agent,
            Transform::from_xyz(-2.0, 0.0, 0.0),
            Velocity(Vec3::Y * 3.0),
        ));
        run_ticks(&mut app, 1);
        app.world().get::<Velocity>(front).unwrap().y
    };
    assert!(
        turn_of_front_agent(360.0) > 0.01,
        "360 degrees: did not see behind"
    );
    assert_eq!(
        turn_of_front_agent(270.0),
        0.0,
        "270 degrees: saw the agent behind"
    );
}

#[test]
fn speed_stays_within_limits() {
    let mut app = create_test_app(FlockingPlugins::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            limits: SteeringLimits {
                min_speed: 1.5,
                max_speed: 4.0,
                ..default()
            },
            boundary: wrap_box(),
            ..default()
        },
    );
    let agents = spawn_random(&mut app, 300, 6.0, 0.0, 5);
    for _ in 0..100 {
        run_ticks(&mut app, 1);
        for v in velocities_of(&app, &agents) {
            let speed = v.length();
            assert!((1.5 - 1e-4..=4.0 + 1e-4).contains(&speed), "speed {speed}");
        }
    }
}

/// Order parameter over the second half of `steps` ticks of [`FlockTuning::vicsek`] with 400
/// agents in Vicsek et al.'s periodic 10 x 10 box (density 4), on the plane.
fn vicsek_order(eta: f32, steps: u32) -> f32 {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    let tick = app
        .world()
        .resource::<Time<Fixed>>()
        .timestep()
        .as_secs_f32();
    let mut tuning = FlockTuning::vicsek(eta, tick);
    tuning.boundary = Boundary::Wrap {
        min: Vec3::ZERO,
        max: Vec3::new(10.0, 10.0, 0.0),
    };
    tune_default_flock(&mut app, tuning);
    let mut rng = Rng::new(17);
    let agents: Vec<Entity> = (0..400)
        .map(|_| {
            let p = Vec3::new(rng.unit(), rng.unit(), 0.0) * 10.0;
            let angle = rng.unit() * std::f32::consts::TAU;
            let v = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 0.03 / tick;
            app.world_mut()
                .spawn((Agent, Transform::from_translation(p), Velocity(v)))
                .id()
        })
        .collect();
    run_ticks(&mut app, steps / 2);
    let mut order = 0.0;
    for _ in 0..steps / 2 {
        run_ticks(&mut app, 1);
        order += polarisation(&velocities_of(&app, &agents));
    }
    order / (steps / 2) as f32
}

#[test]
fn the_vicsek_recipe_orders_at_low_noise_and_not_at_high() {
    // Vicsek et al. (1995), figure 2a, density 4: about 0.95 at eta = 1 and 0.2 at eta = 4
    // (measured here: 0.94 and 0.23). The kernel's test compares the whole curve with an
    // independent implementation; this one checks that the plugin's recipe carries it.
    let (calm, noisy) = (vicsek_order(1.0, 1_000), vicsek_order(4.0, 1_000));
    assert!(calm > 0.9, "order {calm} at eta = 1");
    assert!(noisy < 0.4, "order {noisy} at eta = 4");
}
