//! The copy into the kernel reads every agent as it is, whichever table it sits in and however
//! the copy is split into tasks: checked against the agents' components, read one by one.

use bevy::prelude::*;
use bevy_flock::SteeringState;
use bevy_flock::core::LONGEST_LEAD;
use bevy_flock::prelude::*;

use crate::support::*;

/// What the kernel holds of an agent after the copy.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Copied {
    position: Vec3,
    velocity: Vec3,
    target: Option<Vec3>,
    tuning: FlockTuning,
    flock: Option<Entity>,
}

/// Each agent's copy and what its components say the copy should be, by entity.
#[derive(Resource, Default)]
struct Compared(Vec<(Entity, Copied, Copied)>);

/// Agents whose translation is made not finite before each tick.
#[derive(Component)]
struct Broken;

fn break_translations(mut broken: Query<&mut Transform, With<Broken>>) {
    for mut transform in &mut broken {
        transform.translation.y = f32::NAN;
    }
}

/// A flock's tuning, as its components hold it.
type FlockParts = (
    &'static FlockWeights,
    &'static SteeringLimits,
    &'static Perception,
    &'static Boundary,
);

/// The agents' components, as the copy read them (integration writes them back later).
type AgentParts = (
    Entity,
    &'static Transform,
    &'static Velocity,
    &'static Target,
    &'static SteeringState,
    Option<&'static InFlock>,
    Option<&'static SteeringLimits>,
);

/// Runs after the copy: what the kernel holds of each agent, beside what its components say.
fn compare(
    sim: Res<FlockSimulation>,
    agents: Query<AgentParts, With<Agent>>,
    flocks: Query<FlockParts, With<Flock>>,
    whereabouts: Query<(&GlobalTransform, Option<&Velocity>)>,
    default_flock: Res<DefaultFlock>,
    mut compared: ResMut<Compared>,
) {
    compared.0.clear();
    let crowd = sim.crowd();
    for (entity, transform, velocity, target, state, in_flock, limits) in &agents {
        let i = sim.index_of(entity).expect("every agent is copied");
        let copied = Copied {
            position: crowd.position(i),
            velocity: crowd.velocity(i),
            target: crowd.target(i),
            tuning: *crowd.params_of(i),
            flock: sim.flock_of(entity),
        };
        let flock = in_flock.map_or(default_flock.0, |f| f.0);
        let (tuning, flock) = match flocks.get(flock) {
            Ok((weights, flock_limits, perception, boundary)) => (
                FlockTuning {
                    weights: *weights,
                    limits: *limits.unwrap_or(flock_limits),
                    perception: *perception,
                    boundary: *boundary,
                },
                Some(flock),
            ),
            Err(_) => (FlockTuning::default(), None),
        };
        let position = if transform.translation.is_finite() {
            transform.translation
        } else {
            state.last_valid_position
        };
        let target = match *target {
            Target::None => None,
            Target::Point(point) => Some(point),
            Target::Entity(quarry) | Target::Pursue(quarry) if quarry == entity => None,
            Target::Entity(quarry) => whereabouts.get(quarry).ok().map(|(at, _)| at.translation()),
            Target::Pursue(quarry) => whereabouts.get(quarry).ok().map(|(at, moving)| {
                let aim = at.translation();
                let lead = (aim.distance(position) / tuning.limits.max_speed).min(LONGEST_LEAD);
                aim + moving.map_or(Vec3::ZERO, |v| v.0) * lead
            }),
        };
        let expected = Copied {
            position,
            velocity: velocity.0,
            target,
            tuning,
            flock,
        };
        compared.0.push((entity, copied, expected));
    }
}

/// Two flocks, the default one and an entity that is not a flock; agents in six tables (with
/// and without `InFlock`, with their own limits, broken), spawned interleaved so that the kernel
/// order alternates between tables; targets of every kind, pursuits of moving quarries included.
fn scene(app: &mut App) -> usize {
    let slow = spawn_flock(
        app,
        FlockTuning {
            limits: SteeringLimits {
                max_speed: 2.0,
                ..default()
            },
            ..default()
        },
    );
    let wary = spawn_flock(
        app,
        FlockTuning {
            weights: FlockWeights {
                separation: 3.0,
                ..default()
            },
            perception: Perception {
                neighbour_radius: 6.0,
                ..default()
            },
            ..default()
        },
    );
    let not_a_flock = app.world_mut().spawn(Transform::default()).id();
    let quarry = app
        .world_mut()
        .spawn((Transform::from_xyz(4.0, 1.0, -2.0), Velocity(Vec3::X * 3.0)))
        .id();
    let still = app
        .world_mut()
        .spawn(Transform::from_xyz(-3.0, 0.0, 5.0))
        .id();
    let mut rng = Rng::new(17);
    let mut count = 0;
    for i in 0..240 {
        let target = match i % 5 {
            0 => Target::None,
            1 => Target::Point(rng.in_cube(10.0)),
            2 => Target::Pursue(quarry),
            3 if i % 2 == 0 => Target::Entity(still),
            _ => Target::Pursue(still),
        };
        let mut agent = app.world_mut().spawn((
            Agent,
            target,
            Transform::from_translation(rng.in_cube(12.0)),
            Velocity(rng.direction() * 2.0),
        ));
        match i % 6 {
            0 => {}
            1 | 4 => {
                agent.insert(InFlock(slow));
            }
            2 => {
                agent.insert((
                    InFlock(wary),
                    SteeringLimits {
                        max_speed: 7.0,
                        ..default()
                    },
                ));
            }
            3 => {
                agent.insert(InFlock(if i % 4 == 1 { not_a_flock } else { wary }));
            }
            _ => {
                agent.insert((InFlock(slow), Broken));
            }
        }
        if i % 47 == 3 {
            let id = agent.id();
            agent.insert(Target::Entity(id));
        }
        count += 1;
    }
    count
}

#[test]
fn the_copy_reads_every_agent_as_it_is_however_it_is_split() {
    for chunk in [None, Some(3), Some(usize::MAX)] {
        let mut app = create_test_app(FlockingPlugins::default());
        app.world_mut()
            .resource_mut::<FlockingConfig>()
            .parallel_chunk_size = chunk;
        app.init_resource::<Compared>().add_systems(
            FixedUpdate,
            (
                break_translations.in_set(FlockingSystems::First),
                compare.in_set(FlockingSystems::ForceAccumulation),
            ),
        );
        let agents = scene(&mut app);
        // The second tick, once the quarries' global transforms are set.
        run_ticks(&mut app, 2);
        let compared = &app.world().resource::<Compared>().0;
        assert_eq!(compared.len(), agents, "{chunk:?}");
        for (entity, copied, expected) in compared {
            assert_eq!(copied, expected, "agent {entity}, chunks of {chunk:?}");
        }
        // The cases the test is for did come up: pursuers leading the quarry (which moves
        // along x), agents with their own limits, agents of no flock, broken ones.
        let count = |case: fn(&Copied) -> bool| compared.iter().filter(|(_, c, _)| case(c)).count();
        let led = count(|c| {
            c.target
                .is_some_and(|t| t.x > 4.5 && t.y == 1.0 && t.z == -2.0)
        });
        let own_limits = count(|c| c.tuning.limits.max_speed == 7.0);
        let flockless = count(|c| c.flock.is_none());
        assert!(led > 30, "{chunk:?}: only {led} pursuers lead the quarry");
        assert!(
            own_limits > 30,
            "{chunk:?}: only {own_limits} agents have their own limits"
        );
        assert!(
            flockless > 10,
            "{chunk:?}: only {flockless} agents have no flock"
        );
    }
}

/// Tags agents, which moves them to another table, and spawns one.
#[derive(Component)]
struct Tagged;

/// Where the agent spawned mid-tick starts.
const SPAWNED_AT: Vec3 = Vec3::new(50.0, 0.0, 0.0);

fn reshuffle(
    untagged: Query<Entity, (With<Agent>, Without<Tagged>)>,
    mut commands: Commands,
    mut done: Local<bool>,
) {
    if std::mem::replace(&mut *done, true) {
        return;
    }
    for (k, entity) in untagged.iter().enumerate() {
        if k % 3 == 0 {
            commands.entity(entity).insert(Tagged);
        }
    }
    commands.spawn((Agent, Transform::from_translation(SPAWNED_AT)));
}

/// Agents that change table between the copy and integration (a game's system tags some, and
/// spawns one), are still written back, each from its own state in the kernel; the agent the
/// kernel never saw is left as it was.
#[test]
fn agents_that_change_table_mid_tick_are_written_back() {
    let mut app = create_test_app(FlockingPlugins::default());
    app.add_systems(
        FixedUpdate,
        reshuffle.in_set(FlockingSystems::ForceAccumulation),
    );
    let mut rng = Rng::new(23);
    for _ in 0..90 {
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(rng.in_cube(10.0)),
            Velocity(rng.direction() * 2.0),
        ));
    }
    run_ticks(&mut app, 1);
    let world = app.world_mut();
    let sim = world.resource::<FlockSimulation>();
    let crowd = sim.crowd();
    let kernel: Vec<(Entity, Vec3, Vec3)> = sim
        .entities()
        .iter()
        .enumerate()
        .map(|(i, &e)| (e, crowd.position(i), crowd.velocity(i)))
        .collect();
    assert_eq!(kernel.len(), 90);
    let mut tagged = 0;
    for (entity, position, velocity) in kernel {
        let agent = world.entity(entity);
        assert_eq!(
            agent.get::<Transform>().unwrap().translation,
            position,
            "{entity}"
        );
        assert_eq!(agent.get::<Velocity>().unwrap().0, velocity, "{entity}");
        tagged += usize::from(agent.contains::<Tagged>());
    }
    assert_eq!(tagged, 30, "a third of the agents changed table");
    let at_spawn = world
        .query_filtered::<&Transform, With<Agent>>()
        .iter(world)
        .filter(|t| t.translation == SPAWNED_AT)
        .count();
    assert_eq!(
        at_spawn, 1,
        "the agent the kernel never saw is left where it was"
    );
}
