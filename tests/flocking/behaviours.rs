//! The rest of the steering vocabulary: leader following, wander, flow fields, blending by
//! priority, behaviour states and their events.

use bevy::math::ops;
use bevy::prelude::*;
use bevy_flock::SteeringState;
use bevy_flock::prelude::*;

use crate::support::*;

/// The fixed timestep the test app runs at.
const DT: f32 = 1.0 / 64.0;

/// Moves every entity with a [`Velocity`] but no [`Agent`] (a scripted leader) by it.
fn move_scripted(mut movers: Query<(&mut Transform, &Velocity), Without<Agent>>) {
    for (mut transform, velocity) in &mut movers {
        transform.translation += velocity.0 * DT;
    }
}

fn translation(app: &App, entity: Entity) -> Vec3 {
    app.world().get::<Transform>(entity).unwrap().translation
}

fn steering_state(app: &App, entity: Entity) -> SteeringState {
    *app.world().get::<SteeringState>(entity).unwrap()
}

/// A planar app whose scripted movers move in the hook set before each tick.
fn planar_app() -> App {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    app.add_systems(FixedUpdate, move_scripted.in_set(FlockingSystems::First));
    app
}

#[test]
fn followers_keep_station_behind_the_leader_and_out_of_its_path() {
    let mut app = planar_app();
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                leader: 1.0,
                separation: 1.0,
                ..no_weights()
            },
            limits: SteeringLimits {
                max_speed: 6.0,
                max_force: 12.0,
                arrival_radius: 3.0,
                ..default()
            },
            ..default()
        },
    );
    let leader = app
        .world_mut()
        .spawn((Transform::default(), Velocity(Vec3::X * 3.0)))
        .id();
    // Six followers start in the leader's way, ahead of it.
    let followers: Vec<Entity> = (0..6)
        .map(|k| {
            let start = Vec3::new(2.0 + k as f32, if k % 2 == 0 { 0.3 } else { -0.3 }, 0.0);
            app.world_mut()
                .spawn((
                    Agent,
                    Transform::from_translation(start),
                    FollowLeader::new(leader, 3.0),
                ))
                .id()
        })
        .collect();
    // The corridor ahead: 3 + 3 (one second of the leader's travel) long, 1.5 either side.
    let in_path = |app: &App, follower: Entity| {
        let offset = translation(app, follower) - translation(app, leader);
        offset.x > 0.0 && offset.x < 6.0 && offset.y.abs() < 1.5
    };
    let mut cleared_after = None;
    let mut in_path_late = 0;
    for tick in 0..512 {
        run_ticks(&mut app, 1);
        let blocking = followers.iter().filter(|&&f| in_path(&app, f)).count();
        if blocking == 0 && cleared_after.is_none() {
            cleared_after = Some(tick + 1);
        }
        if tick >= 256 {
            in_path_late += blocking;
        }
    }
    let cleared_after = cleared_after.expect("the followers never left the leader's path");
    assert!(
        cleared_after < 128,
        "the path took {cleared_after} ticks to clear"
    );
    assert_eq!(in_path_late, 0, "followers strayed into the path again");
    let station = translation(&app, leader) - Vec3::X * 3.0;
    let mut station_error = 0.0;
    for &follower in &followers {
        let offset = translation(&app, follower) - translation(&app, leader);
        assert!(
            offset.x < 0.0,
            "follower {follower} is not behind: {offset}"
        );
        station_error += translation(&app, follower).distance(station) / followers.len() as f32;
        let speed = app.world().get::<Velocity>(follower).unwrap().0;
        assert!(
            (speed - Vec3::X * 3.0).length() < 0.5,
            "follower {follower} does not keep pace: {speed}"
        );
    }
    println!(
        "leader: path clear after {cleared_after} ticks, mean distance from the station {station_error:.2}"
    );
    // Six followers separating round one station spread over about a separation radius.
    assert!(
        station_error < 1.5,
        "mean distance from the station {station_error}"
    );
}

/// Every event of type `E` seen so far.
#[derive(Resource)]
struct Seen<E>(Vec<E>);

fn record<E: EntityEvent + Clone>(app: &mut App) {
    app.insert_resource(Seen::<E>(Vec::new()));
    app.add_observer(|event: On<E>, mut seen: ResMut<Seen<E>>| {
        seen.0.push(event.event().clone());
    });
}

#[test]
fn a_follower_that_loses_its_leader_is_told_once_and_flocks_on() {
    let mut app = planar_app();
    record::<LeaderLost>(&mut app);
    let leader = app
        .world_mut()
        .spawn((Transform::default(), Velocity(Vec3::X)))
        .id();
    let follower = app
        .world_mut()
        .spawn((
            Agent,
            Transform::from_xyz(-2.0, 0.0, 0.0),
            FollowLeader::new(leader, 2.0),
        ))
        .id();
    run_ticks(&mut app, 10);
    assert!(app.world().resource::<Seen<LeaderLost>>().0.is_empty());
    app.world_mut().despawn(leader);
    run_ticks(&mut app, 30);
    let lost = &app.world().resource::<Seen<LeaderLost>>().0;
    assert_eq!(
        lost,
        &[LeaderLost {
            entity: follower,
            leader
        }]
    );
    assert!(app.world().get::<FollowLeader>(follower).is_none());
    assert!(translation(&app, follower).is_finite());
}

#[test]
fn wandering_turns_smoothly_at_random_and_repeats_with_its_seed() {
    let run = |seed: u64| {
        let mut app = planar_app();
        app.world_mut().resource_mut::<FlockingConfig>().seed = seed;
        tune_default_flock(
            &mut app,
            FlockTuning {
                weights: FlockWeights {
                    wander: 1.0,
                    ..no_weights()
                },
                limits: SteeringLimits {
                    max_speed: 2.0,
                    min_speed: 2.0,
                    max_force: 4.0,
                    ..default()
                },
                ..default()
            },
        );
        // Forty agents far apart, all heading +X.
        let agents: Vec<Entity> = (0..40)
            .map(|k| {
                let at = Vec3::new((k % 8) as f32 * 100.0, (k / 8) as f32 * 100.0, 0.0);
                app.world_mut()
                    .spawn((
                        Agent,
                        Transform::from_translation(at),
                        Velocity(Vec3::X * 2.0),
                    ))
                    .id()
            })
            .collect();
        let mut largest_turn = 0.0_f32;
        let mut total_turn = 0.0;
        let mut before = velocities_of(&app, &agents);
        let mut order = Vec::new();
        for tick in 1..=1280 {
            run_ticks(&mut app, 1);
            let now = velocities_of(&app, &agents);
            for (a, b) in before.iter().zip(&now) {
                let turn = a.angle_between(*b).to_degrees();
                largest_turn = largest_turn.max(turn);
                total_turn += turn / agents.len() as f32;
            }
            before = now;
            if tick % 320 == 0 {
                order.push(polarisation(&before));
            }
        }
        (positions(&mut app), largest_turn, total_turn, order)
    };
    let (ends, largest_turn, total_turn, order) = run(7);
    // At 2 units/s and a max force of 4, a heading turns at most 2 rad/s: 1.8 degrees a tick.
    assert!(
        largest_turn <= 1.8,
        "a turn of {largest_turn} degrees in one tick"
    );
    // 20 s of smooth turning add up to many turns, and the headings spread out.
    println!(
        "wander: largest turn {largest_turn:.2} deg per tick, {total_turn:.0} deg in 20 s, polarisation every 5 s {order:?}"
    );
    assert!(
        total_turn > 180.0,
        "turned only {total_turn} degrees in 20 s"
    );
    assert!(
        order[3] < 0.6,
        "polarisation {order:?} every 5 s: the headings did not spread"
    );
    assert_eq!(run(7).0, ends, "the same seed gives the same run");
    assert_ne!(run(8).0, ends, "another seed gives another run");
}

#[test]
fn agents_steer_along_a_flow_field() {
    let mut app = planar_app();
    // A whirl round the origin, counter-clockwise.
    let field = FlowField::from_fn(
        Vec3::new(-20.0, -20.0, -0.5),
        1.0,
        UVec3::new(40, 40, 1),
        |p| Vec3::new(-p.y, p.x, 0.0).normalize_or_zero(),
    );
    let flock = spawn_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                flow: 1.0,
                ..no_weights()
            },
            limits: SteeringLimits {
                max_speed: 3.0,
                ..default()
            },
            ..default()
        },
    );
    app.world_mut().entity_mut(flock).insert(field);
    let mut rng = Rng::new(5);
    let agents: Vec<Entity> = (0..20)
        .map(|_| {
            let angle = rng.unit() * std::f32::consts::TAU;
            let at = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * (5.0 + rng.unit() * 5.0);
            app.world_mut()
                .spawn((Agent, InFlock(flock), Transform::from_translation(at)))
                .id()
        })
        .collect();
    run_ticks(&mut app, 320);
    let mut along = 0.0;
    for &agent in &agents {
        let p = translation(&app, agent);
        let v = app.world().get::<Velocity>(agent).unwrap().0;
        let tangent = Vec3::new(-p.y, p.x, 0.0).normalize();
        along += v.dot(tangent) / 3.0 / agents.len() as f32;
    }
    println!("flow field: mean speed along the whirl {along:.3} of max speed");
    assert!(
        along > 0.9,
        "mean speed along the whirl {along} of max speed"
    );
}

/// The flow that [`feed_flow`] gives its agent.
#[derive(Component)]
struct Fed(Vec3);

fn feed_flow(mut sim: ResMut<FlockSimulation>, fed: Query<(Entity, &Fed)>) {
    for (entity, fed) in &fed {
        sim.set_flow(entity, fed.0);
    }
}

#[test]
fn game_code_feeds_an_agent_its_own_flow() {
    let mut app = planar_app();
    app.add_systems(
        FixedUpdate,
        feed_flow
            .after(FlockingSystems::NeighbourLookup)
            .before(FlockingSystems::ForceAccumulation),
    );
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                flow: 1.0,
                ..no_weights()
            },
            ..default()
        },
    );
    let fed = app
        .world_mut()
        .spawn((Agent, Transform::default(), Fed(Vec3::Y * 0.5)))
        .id();
    let unfed = app
        .world_mut()
        .spawn((Agent, Transform::from_xyz(50.0, 0.0, 0.0)))
        .id();
    run_ticks(&mut app, 384);
    // Half of max speed 5, the way it was fed (approached with a time constant of 1 s).
    let v = app.world().get::<Velocity>(fed).unwrap().0;
    assert!((v - Vec3::Y * 2.5).length() < 0.05, "{v}");
    assert_eq!(app.world().get::<Velocity>(unfed).unwrap().0, Vec3::ZERO);
}

/// Thirty agents on a ring all seek its centre with a tight force budget; returns the mean
/// distance to the nearest neighbour and the smallest, after 10 s.
fn squeeze(blending: BlendMode) -> (f32, f32) {
    let mut app = planar_app();
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                separation: 1.0,
                target: 3.0,
                blending,
                ..no_weights()
            },
            limits: SteeringLimits {
                max_speed: 4.0,
                max_force: 3.0,
                arrival_radius: 2.0,
                ..default()
            },
            perception: Perception {
                neighbour_radius: 2.0,
                separation_radius: 1.5,
                ..default()
            },
            ..default()
        },
    );
    for k in 0..30 {
        let angle = k as f32 / 30.0 * std::f32::consts::TAU;
        let at = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 8.0;
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(at),
            Target::Point(Vec3::ZERO),
        ));
    }
    run_ticks(&mut app, 640);
    let points = positions(&mut app);
    let mean_nearest = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            points
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, q)| p.distance(*q))
                .fold(f32::INFINITY, f32::min)
        })
        .sum::<f32>()
        / points.len() as f32;
    (mean_nearest, min_pair_distance(&points))
}

#[test]
fn under_a_tight_budget_prioritised_separation_holds_where_the_weighted_sum_gives_way() {
    let (summed_mean, summed_min) = squeeze(BlendMode::WeightedSum);
    let (prioritised_mean, prioritised_min) = squeeze(BlendMode::Prioritised);
    println!(
        "nearest neighbour, mean / min: weighted sum {summed_mean:.3} / {summed_min:.3}, prioritised {prioritised_mean:.3} / {prioritised_min:.3}"
    );
    assert!(
        prioritised_mean > summed_mean * 1.2,
        "prioritised {prioritised_mean} vs weighted sum {summed_mean}"
    );
    assert!(
        prioritised_min > summed_min,
        "prioritised {prioritised_min} vs weighted sum {summed_min}"
    );
}

#[test]
fn an_agent_is_told_once_each_time_it_reaches_its_target() {
    let mut app = planar_app();
    record::<TargetReached>(&mut app);
    let target = Vec3::new(10.0, 0.0, 0.0);
    let agent = app
        .world_mut()
        .spawn((Agent, Transform::default(), Target::Point(target)))
        .id();
    run_ticks(&mut app, 448);
    let seen = app.world().resource::<Seen<TargetReached>>().0.clone();
    assert_eq!(
        seen,
        [TargetReached {
            entity: agent,
            target
        }]
    );
    assert!(steering_state(&app, agent).at_target);
    let back = Vec3::new(-10.0, 0.0, 0.0);
    app.world_mut()
        .entity_mut(agent)
        .insert(Target::Point(back));
    run_ticks(&mut app, 64);
    assert!(!steering_state(&app, agent).at_target, "it left the target");
    run_ticks(&mut app, 512);
    let seen = &app.world().resource::<Seen<TargetReached>>().0;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[1].target, back);
}

/// An agent walled in short of its target is told once that it is stuck, three seconds
/// (`FlockingConfig::stuck_after`) after it stops getting closer, and again three seconds
/// after it is given a new goal it cannot reach either; one walking freely to a far target is
/// not, nor is the walled one with the detection off.
#[test]
fn an_agent_pinned_short_of_its_target_is_told_it_is_stuck() {
    for detection in [Some(core::time::Duration::from_secs(3)), None] {
        let mut app = planar_app();
        app.world_mut().resource_mut::<FlockingConfig>().stuck_after = detection;
        record::<AgentStuck>(&mut app);
        let walled = spawn_flock(
            &mut app,
            FlockTuning {
                boundary: Boundary::walls(
                    Vec3::new(-5.0, -5.0, 0.0),
                    Vec3::new(5.0, 5.0, 0.0),
                    1.0,
                ),
                ..default()
            },
        );
        let target = Vec3::new(20.0, 0.0, 0.0);
        let pinned = app
            .world_mut()
            .spawn((Agent, InFlock(walled), Target::Point(target)))
            .id();
        // 40 units at a max speed of 5: eight seconds of steady progress, then arrival.
        app.world_mut().spawn((
            Agent,
            Transform::from_xyz(0.0, 50.0, 0.0),
            Target::Point(Vec3::new(40.0, 50.0, 0.0)),
        ));
        run_ticks(&mut app, 192);
        assert!(
            app.world().resource::<Seen<AgentStuck>>().0.is_empty(),
            "nobody stalled for 3 s yet"
        );
        run_ticks(&mut app, 640);
        let seen = &app.world().resource::<Seen<AgentStuck>>().0;
        if detection.is_none() {
            assert!(seen.is_empty(), "{seen:?}");
            continue;
        }
        assert_eq!(seen.len(), 1, "{seen:?}");
        let stuck = seen[0];
        assert_eq!((stuck.entity, stuck.target), (pinned, target));
        // Held in the wall's band (x from 4 to 5), 15 to 16 short of the target.
        assert!((14.9..=16.1).contains(&stuck.distance), "{stuck:?}");
        assert!(steering_state(&app, pinned).progress.reported);
        // A new goal starts the count over: told again three seconds later, not before.
        let moved = Vec3::new(20.0, 2.0, 0.0);
        app.world_mut()
            .entity_mut(pinned)
            .insert(Target::Point(moved));
        run_ticks(&mut app, 160);
        assert_eq!(app.world().resource::<Seen<AgentStuck>>().0.len(), 1);
        run_ticks(&mut app, 64);
        let seen = &app.world().resource::<Seen<AgentStuck>>().0;
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert_eq!(seen[1].target, moved);
    }
}

/// Switches the flock's state as the predator comes and goes: fleeing while it is there,
/// then regrouping until the flock is together again, then idle.
fn switch_states(
    mut flocks: Query<&mut BehaviourStates, With<Flock>>,
    predators: Query<(), With<Predator>>,
    agents: Query<&Transform, With<Agent>>,
) {
    let points: Vec<Vec3> = agents.iter().map(|t| t.translation).collect();
    for mut states in &mut flocks {
        let next = match states.active() {
            _ if !predators.is_empty() => "fleeing",
            Some("fleeing") => "regrouping",
            Some("regrouping") if spread(&points) < 3.0 => "idle",
            Some(current) => current,
            None => continue,
        }
        .to_owned();
        if states.active() != Some(next.as_str()) {
            states.switch_to(&next);
        }
    }
}

#[test]
fn a_flock_switches_behaviour_states_without_respawning() {
    let mut app = planar_app();
    app.add_systems(FixedUpdate, switch_states.in_set(FlockingSystems::First));
    let idle = FlockWeights {
        flee: 0.0,
        ..FlockWeights::default()
    };
    let states = BehaviourStates::default()
        .with_state("idle", idle)
        .with_state(
            "fleeing",
            FlockWeights {
                flee: 3.0,
                cohesion: 0.0,
                ..idle
            },
        )
        .with_state(
            "regrouping",
            FlockWeights {
                cohesion: 3.0,
                ..idle
            },
        );
    let flock = spawn_flock(
        &mut app,
        FlockTuning {
            perception: Perception {
                neighbour_radius: 30.0,
                ..default()
            },
            ..default()
        },
    );
    app.world_mut().entity_mut(flock).insert(states);
    let mut rng = Rng::new(11);
    let agents: Vec<Entity> = (0..30)
        .map(|_| {
            app.world_mut()
                .spawn((
                    Agent,
                    InFlock(flock),
                    Transform::from_translation(rng.in_cube(2.0).with_z(0.0)),
                ))
                .id()
        })
        .collect();
    let state = |app: &App| {
        let states = app.world().get::<BehaviourStates>(flock).unwrap();
        states.active().unwrap().to_owned()
    };
    let weights = |app: &App| *app.world().get::<FlockWeights>(flock).unwrap();
    run_ticks(&mut app, 64);
    assert_eq!(state(&app), "idle");
    assert_eq!(weights(&app), idle);
    let idle_spread = spread(&positions(&mut app));

    let predator = app
        .world_mut()
        .spawn((Predator { radius: 20.0 }, Transform::default()))
        .id();
    run_ticks(&mut app, 128);
    assert_eq!(state(&app), "fleeing");
    assert_eq!(weights(&app).flee, 3.0);
    let fled_spread = spread(&positions(&mut app));
    assert!(
        fled_spread > idle_spread * 3.0,
        "spread {idle_spread} idle, {fled_spread} fleeing"
    );

    app.world_mut().despawn(predator);
    run_ticks(&mut app, 2);
    assert_eq!(state(&app), "regrouping");
    assert_eq!(weights(&app).cohesion, 3.0);
    let mut regrouped_after = None;
    for tick in 0..1280 {
        run_ticks(&mut app, 1);
        if state(&app) == "idle" {
            regrouped_after = Some(tick);
            break;
        }
    }
    let regrouped_after = regrouped_after.expect("the flock never regrouped");
    println!(
        "spread {idle_spread:.2} idle, {fled_spread:.2} after 2 s fleeing; regrouped in {:.2} s",
        regrouped_after as f32 * DT
    );
    assert_eq!(weights(&app), idle);
    // The same agents throughout, in the same flock.
    for &agent in &agents {
        assert_eq!(app.world().get::<InFlock>(agent), Some(&InFlock(flock)));
    }
}

/// What [`lab_with_detail`] measured.
struct DetailRun {
    /// Share of agents that computed their steering, over the ticks measured.
    computed: f32,
    /// The 99th percentile of far agents' heading change per tick, in degrees.
    far_turn_p99: f32,
    /// The shortest move of a far agent in one tick.
    shortest_far_move: f32,
    /// Polarisation after 10 s.
    polarisation: f32,
}

/// 1,000 of the flocking lab's boids for 10 s, with level of detail `detail` around a focus
/// at the origin (full detail within 150 px: about 14% of the field).
fn lab_with_detail(detail: Option<LevelOfDetail>) -> DetailRun {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    app.world_mut()
        .resource_mut::<FlockingConfig>()
        .level_of_detail = detail;
    app.world_mut().spawn(DetailFocus);
    tune_default_flock(&mut app, FlockTuning::flocking_lab());
    let mut rng = Rng::new(3);
    let agents: Vec<Entity> = (0..1000)
        .map(|_| {
            let at = rng.in_cube(1.0) * Vec3::new(450.0, 280.0, 0.0);
            let angle = rng.unit() * std::f32::consts::TAU;
            let velocity = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 120.0;
            app.world_mut()
                .spawn((Agent, Transform::from_translation(at), Velocity(velocity)))
                .id()
        })
        .collect();
    let mut computed = 0.0;
    let mut far_turns = Vec::new();
    let mut shortest_far_move = f32::INFINITY;
    let mut before: Vec<(Vec3, Vec3)> = Vec::new();
    for tick in 0..640 {
        run_ticks(&mut app, 1);
        let now: Vec<(Vec3, Vec3)> = agents
            .iter()
            .map(|&a| {
                (
                    translation(&app, a),
                    app.world().get::<Velocity>(a).unwrap().0,
                )
            })
            .collect();
        if tick >= 64 {
            let reused = app
                .world()
                .resource::<FlockSimulation>()
                .crowd()
                .reused_forces();
            computed += (1.0 - reused as f32 / agents.len() as f32) / 576.0;
            for ((p0, v0), (p1, v1)) in before.iter().zip(&now) {
                // Far all tick, and not wrapped round the field.
                let moved = p0.distance(*p1);
                if p0.length() > 160.0 && p1.length() > 160.0 && moved < 100.0 {
                    far_turns.push(v0.angle_between(*v1).to_degrees());
                    shortest_far_move = shortest_far_move.min(moved);
                }
            }
        }
        before = now;
    }
    far_turns.sort_unstable_by(f32::total_cmp);
    DetailRun {
        computed,
        far_turn_p99: far_turns[far_turns.len() * 99 / 100],
        shortest_far_move,
        polarisation: polarisation(&before.iter().map(|(_, v)| *v).collect::<Vec<_>>()),
    }
}

#[test]
fn far_agents_update_less_often_yet_move_smoothly_and_still_flock() {
    let full = lab_with_detail(None);
    let detail = lab_with_detail(Some(LevelOfDetail {
        near_radius: 150.0,
        interval: 4,
    }));
    println!(
        "level of detail: {:.0}% computed per tick; far turn p99 {:.2} vs {:.2} deg per tick at full detail; shortest far move {:.2} px; polarisation {:.2} vs {:.2}",
        detail.computed * 100.0,
        detail.far_turn_p99,
        full.far_turn_p99,
        detail.shortest_far_move,
        detail.polarisation,
        full.polarisation
    );
    assert!((full.computed - 1.0).abs() < 1e-3, "{}", full.computed);
    // About 86% of the boids are far, a quarter of them computing each tick: 0.14 + 0.86 / 4.
    assert!(
        (0.3..0.45).contains(&detail.computed),
        "{} computed per tick",
        detail.computed
    );
    // Far boids move every tick, at no less than the min speed of 60 px/s.
    assert!(detail.shortest_far_move > 60.0 / 64.0 * 0.99);
    // And turn no more sharply than at full detail.
    assert!(
        detail.far_turn_p99 < full.far_turn_p99 * 1.5,
        "{} vs {}",
        detail.far_turn_p99,
        full.far_turn_p99
    );
    assert!(
        detail.polarisation > full.polarisation - 0.15,
        "{} vs {}",
        detail.polarisation,
        full.polarisation
    );
}
