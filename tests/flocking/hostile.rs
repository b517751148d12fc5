//! Hostile input through the ECS, generated: arbitrary component values, and entities and
//! components that come and go between ticks. Nothing panics, every agent's transform and
//! velocity stay finite, and each correction is reported once and names a live entity.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use proptest::prelude::*;

use crate::support::*;

/// Cases in CI; set `PROPTEST_CASES` for a longer hunt.
const CASES: u32 = 512;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig::with_cases(cases)
}

/// Any `f32`, with NaN, infinities, zeros, huge and subnormal values often.
fn nasty_f32() -> BoxedStrategy<f32> {
    prop_oneof![
        3 => -30.0_f32..30.0,
        1 => prop_oneof![
            Just(f32::NAN),
            Just(f32::INFINITY),
            Just(f32::NEG_INFINITY),
            Just(0.0_f32),
            Just(-0.0_f32),
            Just(1e30_f32),
            Just(-1e30_f32),
            Just(f32::MIN_POSITIVE / 4.0),
            Just(f32::MAX),
            Just(-f32::MAX),
            any::<f32>(),
        ],
    ]
    .boxed()
}

fn nasty_vec3() -> BoxedStrategy<Vec3> {
    [nasty_f32(), nasty_f32(), nasty_f32()]
        .prop_map(Vec3::from_array)
        .boxed()
}

fn nasty_tuning() -> BoxedStrategy<FlockTuning> {
    (
        [
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
        ],
        [
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
        ],
        [
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
            nasty_f32(),
        ],
        (
            proptest::option::of(0_u32..100),
            proptest::option::of(nasty_f32()),
            (any::<bool>(), 0_u8..3, (any::<bool>(), 0_u8..3)),
            (any::<u32>(), any::<u32>()),
        ),
        (0_u8..3, nasty_vec3(), nasty_vec3(), nasty_f32()),
    )
        .prop_map(
            |(
                w,
                l,
                p,
                (
                    max_neighbours,
                    turn_rate,
                    (desired_velocity, blending, (counts_itself, velocity_obstacles)),
                    (avoidance_layers, avoidance_mask),
                ),
                (edge, min, max, margin),
            )| FlockTuning {
                weights: FlockWeights {
                    separation: w[0],
                    alignment: w[1],
                    cohesion: w[2],
                    target: w[3],
                    collision_avoidance: w[4],
                    flee: w[5],
                    noise: w[6],
                    leader: w[7],
                    flow: w[8],
                    wander: w[9],
                    wander_rate: w[10],
                    standoff: w[3],
                    style: if desired_velocity {
                        RuleStyle::DesiredVelocity
                    } else {
                        RuleStyle::Vector
                    },
                    blending: match blending {
                        0 => BlendMode::Prioritised,
                        1 => BlendMode::WeightedSum,
                        _ => BlendMode::RuleLimitsOnly,
                    },
                },
                limits: SteeringLimits {
                    max_speed: l[0],
                    min_speed: l[1],
                    max_force: l[2],
                    arrival_radius: l[3],
                    max_turn_rate: turn_rate,
                    reach_radius: l[4],
                    response_time: l[5],
                },
                perception: Perception {
                    neighbour_radius: p[0],
                    separation_radius: p[1],
                    field_of_view: p[2],
                    max_neighbours,
                    collision_distance: p[3],
                    collision_horizon: p[4],
                    velocity_obstacles: match velocity_obstacles {
                        0 => VelocityObstacles::Off,
                        1 => VelocityObstacles::Reciprocal,
                        _ => VelocityObstacles::Solid,
                    },
                    time_gap: p[6],
                    avoidance_priority: p[5],
                    avoidance_layers,
                    avoidance_mask,
                    counts_itself,
                },
                boundary: match edge {
                    0 => Boundary::None,
                    1 => Boundary::Wrap { min, max },
                    _ => Boundary::walls(min, max, margin),
                },
            },
        )
        .boxed()
}

/// One agent: where it is, how it moves, whom it follows (an index into the agents, or a
/// point) and whether it overrides its flock's limits.
#[derive(Clone, Debug)]
struct AgentSpec {
    position: Vec3,
    velocity: Vec3,
    flock: usize,
    target: Option<Result<usize, Vec3>>,
    limits: Option<[f32; 2]>,
}

fn agent_spec() -> BoxedStrategy<AgentSpec> {
    (
        nasty_vec3(),
        nasty_vec3(),
        0_usize..3,
        proptest::option::of(prop_oneof![
            (0_usize..12).prop_map(Ok),
            nasty_vec3().prop_map(Err)
        ]),
        proptest::option::of([nasty_f32(), nasty_f32()]),
    )
        .prop_map(|(position, velocity, flock, target, limits)| AgentSpec {
            position,
            velocity,
            flock,
            target,
            limits,
        })
        .boxed()
}

/// What happens between two ticks.
#[derive(Clone, Debug)]
enum Change {
    DespawnAgent(usize),
    RemoveVelocity(usize),
    InsertVelocity(usize, Vec3),
    LeaveFlock(usize),
    DespawnFlock(usize),
    Retune(usize, FlockTuning),
    Teleport(usize, Vec3),
    SpawnObstacle(Obstacle, Vec3, Vec3),
    /// Agent `.0` follows agent `.1` at a distance.
    Follow(usize, usize, f32),
    /// A flow field with this origin, cell size and flow everywhere on a flock.
    Flow(usize, Vec3, f32, Vec3),
    /// Level of detail around a focus here.
    Detail(Vec3, f32, u32),
    /// Agent `.0` joins a team with this radius and weapon range.
    Arm(usize, u32, f32, Option<f32>),
    /// A destination on agent `.0`, or on flock `.0` when `.1`.
    SendTo(usize, bool, Vec3),
}

fn change() -> BoxedStrategy<Change> {
    prop_oneof![
        (0_usize..12).prop_map(Change::DespawnAgent),
        (0_usize..12).prop_map(Change::RemoveVelocity),
        (0_usize..12, nasty_vec3()).prop_map(|(i, v)| Change::InsertVelocity(i, v)),
        (0_usize..12).prop_map(Change::LeaveFlock),
        (0_usize..2).prop_map(Change::DespawnFlock),
        (0_usize..2, nasty_tuning()).prop_map(|(f, t)| Change::Retune(f, t)),
        (0_usize..12, nasty_vec3()).prop_map(|(i, p)| Change::Teleport(i, p)),
        (0_usize..12, 0_usize..12, nasty_f32()).prop_map(|(i, j, d)| Change::Follow(i, j, d)),
        (0_usize..2, nasty_vec3(), nasty_f32(), nasty_vec3())
            .prop_map(|(f, origin, cell, flow)| Change::Flow(f, origin, cell, flow)),
        (nasty_vec3(), nasty_f32(), 0_u32..5).prop_map(|(at, r, k)| Change::Detail(at, r, k)),
        (
            0_usize..12,
            0_u32..2,
            nasty_f32(),
            proptest::option::of(nasty_f32())
        )
            .prop_map(|(i, team, radius, range)| Change::Arm(i, team, radius, range)),
        (0_usize..12, any::<bool>(), nasty_vec3())
            .prop_map(|(i, flock, to)| Change::SendTo(i, flock, to)),
        (nasty_f32(), nasty_vec3(), nasty_vec3(), nasty_vec3()).prop_map(
            |(size, extents, at, scale)| {
                let obstacle = match size.to_bits() % 4 {
                    0 => Obstacle::Sphere { radius: size },
                    1 => Obstacle::Box {
                        half_extents: extents,
                    },
                    2 => Obstacle::HalfSpace {
                        normal: Dir3::new(extents).unwrap_or(Dir3::Y),
                    },
                    _ => Obstacle::Capsule {
                        half_length: extents.x,
                        radius: size,
                    },
                };
                Change::SpawnObstacle(obstacle, at, scale)
            }
        ),
    ]
    .boxed()
}

fn apply(app: &mut App, agents: &[Entity], flocks: &[Entity], change: Change) {
    let world = app.world_mut();
    let agent = |i: usize| agents[i % agents.len()];
    match change {
        Change::DespawnAgent(i) => {
            world.try_despawn(agent(i)).ok();
        }
        Change::RemoveVelocity(i) => {
            if let Ok(mut e) = world.get_entity_mut(agent(i)) {
                e.remove::<Velocity>();
            }
        }
        Change::InsertVelocity(i, v) => {
            if let Ok(mut e) = world.get_entity_mut(agent(i)) {
                e.insert(Velocity(v));
            }
        }
        Change::LeaveFlock(i) => {
            if let Ok(mut e) = world.get_entity_mut(agent(i)) {
                e.remove::<InFlock>();
            }
        }
        Change::DespawnFlock(f) => {
            world.try_despawn(flocks[f]).ok();
        }
        Change::Retune(f, tuning) => {
            if let Ok(mut e) = world.get_entity_mut(flocks[f]) {
                e.insert(tuning);
            }
        }
        Change::SpawnObstacle(obstacle, at, scale) => {
            world.spawn((obstacle, Transform::from_translation(at).with_scale(scale)));
        }
        Change::Follow(i, j, distance) => {
            if let Ok(mut e) = world.get_entity_mut(agent(i)) {
                e.insert(FollowLeader::new(agent(j), distance));
            }
        }
        Change::Flow(f, origin, cell_size, flow) => {
            let field = FlowField::from_fn(origin, cell_size, UVec3::new(4, 4, 4), |_| flow);
            if let Ok(mut e) = world.get_entity_mut(flocks[f]) {
                e.insert(field);
            }
        }
        Change::Detail(at, near_radius, interval) => {
            world.spawn((DetailFocus, Transform::from_translation(at)));
            world.resource_mut::<FlockingConfig>().level_of_detail = Some(LevelOfDetail {
                near_radius,
                interval,
            });
        }
        Change::Arm(i, team, radius, weapon_range) => {
            if let Ok(mut e) = world.get_entity_mut(agent(i)) {
                e.insert(Combatant {
                    team,
                    radius,
                    weapon_range,
                    sight: radius * 10.0,
                });
            }
        }
        Change::SendTo(i, to_flock, to) => {
            let entity = if to_flock {
                flocks[i % flocks.len()]
            } else {
                agent(i)
            };
            if let Ok(mut e) = world.get_entity_mut(entity) {
                e.insert(Destination(to));
            }
        }
        Change::Teleport(i, p) => {
            if let Some(mut transform) = world.get_mut::<Transform>(agent(i)) {
                transform.translation = p;
            }
        }
    }
}

fn assert_agents_finite(app: &mut App) {
    let world = app.world_mut();
    let mut query = world.query_filtered::<(Entity, &Transform, &Velocity), With<Agent>>();
    for (entity, transform, velocity) in query.iter(world) {
        assert!(
            transform.translation.is_finite() && velocity.0.is_finite(),
            "agent {entity}: {} {}",
            transform.translation,
            velocity.0
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_components_and_churn_leave_every_agent_finite(
        tunings in [nasty_tuning(), nasty_tuning()],
        specs in proptest::collection::vec(agent_spec(), 1..12),
        changes in proptest::collection::vec(proptest::option::of(change()), 4),
    ) {
        let mut app = create_squads_test_app(FlockingPlugins::default());
        let flocks: Vec<Entity> = tunings.iter().map(|&t| spawn_flock(&mut app, t)).collect();
        let agents: Vec<Entity> = specs
            .iter()
            .map(|spec| {
                let mut agent = app.world_mut().spawn((
                    Agent,
                    Transform::from_translation(spec.position),
                    Velocity(spec.velocity),
                ));
                if let Some(&flock) = flocks.get(spec.flock) {
                    agent.insert(InFlock(flock));
                }
                if let Some([max_speed, max_force]) = spec.limits {
                    agent.insert(SteeringLimits { max_speed, max_force, ..default() });
                }
                agent.id()
            })
            .collect();
        for (spec, &agent) in specs.iter().zip(&agents) {
            let target = match spec.target {
                None => Target::None,
                Some(Ok(i)) => Target::Entity(agents[i % agents.len()]),
                Some(Err(point)) => Target::Point(point),
            };
            app.world_mut().entity_mut(agent).insert(target);
        }
        for change in changes {
            if let Some(change) = change {
                apply(&mut app, &agents, &flocks, change);
            }
            run_ticks(&mut app, 1);
            assert_agents_finite(&mut app);
        }
        // Each problem is reported once per entity and field, naming the entity.
        let corrections = &app.world().resource::<Corrections>().0;
        let mut seen = std::collections::HashSet::new();
        for c in corrections {
            prop_assert!(
                seen.insert((c.entity, c.correction.field)),
                "{} reported twice for {}",
                c.correction.field,
                c.entity
            );
            prop_assert!(
                agents.contains(&c.entity)
                    || flocks.contains(&c.entity)
                    || app.world().get::<Obstacle>(c.entity).is_some(),
                "{} reported for {}, which is no agent, flock or obstacle",
                c.correction.field,
                c.entity
            );
        }
    }
}
