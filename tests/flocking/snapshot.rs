//! Snapshots: a mixed scene saved at tick 300 and restored into a new app (through a file on
//! disk) continues with the same checksum every tick to 600; a rollback to tick 280 at tick
//! 300 with the same orders replayed gives ticks 281-300 again; a restore that cannot match the
//! world changes nothing; and snapshot, restore, snapshot gives the same bytes for any state.
//! The squads on terrain (`snapshot_squads.rs`) go through the same runs.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{FlockSnapshot, PathStatus, PlannedPath, Progress, SnapshotError, SteeringState};
use proptest::prelude::*;

use crate::support::{Rng, *};

const BIRDS: u64 = 150;
const WALKERS: u64 = 100;
const FOLLOWERS: u64 = 10;
/// The predator's id; it pursues bird 7.
const PREDATOR: u64 = 1_000_000;

/// Birds that wander with noise round an obstacle, walkers with velocity obstacles sent to a
/// point between walls (and sent on by the game's [`orders`]), a predator agent pursuing a bird,
/// followers of the predator, level of detail round a focus, and held obstacle avoidance: every
/// part of an agent's state a tick carries to the next is in play. Every agent has an
/// [`AgentId`]; the same calls in a new app give the same world.
fn mixed_scene() -> App {
    let mut app = create_test_app(FlockingPlugins::default());
    let mut config = app.world_mut().resource_mut::<FlockingConfig>();
    config.level_of_detail = Some(LevelOfDetail {
        near_radius: 8.0,
        interval: 3,
    });
    config.seed = 99;
    let world = app.world_mut();
    world.spawn((DetailFocus, Transform::from_xyz(5.0, 0.0, 0.0)));
    world.spawn((Obstacle::Sphere { radius: 2.0 }, Transform::default()));
    world.spawn((
        Obstacle::Box {
            half_extents: Vec3::new(1.0, 4.0, 4.0),
        },
        Transform::from_xyz(-9.0, 0.0, 0.0),
    ));
    let birds = spawn_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                noise: 0.3,
                wander: 0.6,
                collision_avoidance: 1.0,
                ..default()
            },
            boundary: Boundary::Wrap {
                min: Vec3::splat(-16.0),
                max: Vec3::splat(16.0),
            },
            ..default()
        },
    );
    let walkers = spawn_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                collision_avoidance: 1.0,
                ..default()
            },
            perception: Perception {
                velocity_obstacles: VelocityObstacles::Reciprocal,
                ..default()
            },
            boundary: Boundary::walls(Vec3::splat(-15.0), Vec3::splat(15.0), 3.0),
            ..default()
        },
    );
    let mut rng = Rng::new(5);
    let mut spawn = |app: &mut App, id: u64, flock: Entity, target: Target| {
        let (position, velocity) = (rng.in_cube(13.0), rng.direction() * 3.0);
        let mut agent = app.world_mut().spawn((
            Agent,
            AgentId(id),
            InFlock(flock),
            target,
            Transform::from_translation(position),
            Velocity(velocity),
        ));
        if id.is_multiple_of(9) {
            agent.insert(SpeedFactor(1.3));
        }
        agent.id()
    };
    for id in 0..BIRDS {
        spawn(&mut app, id, birds, Target::None);
    }
    for id in BIRDS..BIRDS + WALKERS {
        let goal = Target::Point(Vec3::new(10.0, (id % 5) as f32, 0.0));
        spawn(&mut app, id, walkers, goal);
    }
    let hunters = spawn_flock(&mut app, FlockTuning::default());
    let bird = find(&mut app, 7);
    let predator = spawn(&mut app, PREDATOR, hunters, Target::Pursue(bird));
    app.world_mut()
        .entity_mut(predator)
        .insert(Predator { radius: 6.0 });
    for id in 0..FOLLOWERS {
        let follower = spawn(&mut app, PREDATOR + 1 + id, hunters, Target::None);
        app.world_mut()
            .entity_mut(follower)
            .insert(FollowLeader::new(predator, 2.0));
    }
    app
}

/// A scene the runs below save and restore: how the game builds it, the orders it gives
/// before a tick, and how many agents carry each part of the state a snapshot holds (the runs
/// test those that some do, at ticks 280 and 300).
pub(crate) struct Scene {
    pub(crate) build: fn() -> App,
    pub(crate) orders: fn(&mut App, u64),
    pub(crate) in_play: fn(&mut App) -> Vec<(&'static str, usize)>,
}

/// The scene of flocks, predators and obstacles.
const MIXED: Scene = Scene {
    build: mixed_scene,
    orders,
    in_play: parts_in_play,
};

/// The agent named `id`.
pub(crate) fn find(app: &mut App, id: u64) -> Entity {
    let world = app.world_mut();
    let mut named = world.query::<(Entity, &AgentId)>();
    let found = named.iter(world).find(|(_, named)| named.0 == id);
    found.expect("an agent of that id").0
}

/// The game's orders before kernel tick `tick`: the walkers are sent across at 290 and back at
/// 450, and the predator turns on another bird at 295.
fn orders(app: &mut App, tick: u64) {
    let goal = match tick {
        290 => Some(Vec3::new(-10.0, 2.0, 3.0)),
        450 => Some(Vec3::new(8.0, -4.0, 0.0)),
        _ => None,
    };
    if let Some(goal) = goal {
        let world = app.world_mut();
        let mut walkers = world.query::<(&AgentId, &mut Target)>();
        for (id, mut target) in walkers.iter_mut(world) {
            if (BIRDS..BIRDS + WALKERS).contains(&id.0) {
                *target = Target::Point(goal + Vec3::Y * (id.0 % 5) as f32);
            }
        }
    }
    if tick == 295 {
        let bird = find(app, 40);
        let predator = find(app, PREDATOR);
        app.world_mut()
            .entity_mut(predator)
            .insert(Target::Pursue(bird));
    }
}

/// The kernel's count of ticks.
fn kernel_tick(app: &App) -> u64 {
    app.world().resource::<FlockSimulation>().crowd().tick()
}

/// Runs `app` until the kernel has done `until` ticks, giving `scene`'s orders before each;
/// returns the checksum after each tick.
fn run_until(scene: &Scene, app: &mut App, until: u64) -> Vec<u64> {
    let mut checksums = Vec::new();
    while kernel_tick(app) < until {
        (scene.orders)(app, kernel_tick(app));
        run_ticks(app, 1);
        checksums.push(app.world().resource::<FlockSimulation>().checksum());
    }
    checksums
}

pub(crate) fn take(app: &mut App) -> FlockSnapshot {
    FlockSnapshot::take(app.world_mut()).expect("every agent is named")
}

/// The original run: the checksums of ticks 1 to 600 and the snapshots at 280, 300 and 600,
/// and at 281 and 301, the first ticks after a restore (where a restored target that counted
/// as a new goal would restart the agent's progress).
pub(crate) struct Original {
    checksums: Vec<u64>,
    at_280: FlockSnapshot,
    at_281: FlockSnapshot,
    pub(crate) at_300: FlockSnapshot,
    at_301: FlockSnapshot,
    at_600: FlockSnapshot,
}

pub(crate) fn original(scene: &Scene) -> Original {
    let mut app = (scene.build)();
    let mut checksums = run_until(scene, &mut app, 280);
    let at_280 = take(&mut app);
    let mut parts = (scene.in_play)(&mut app);
    checksums.extend(run_until(scene, &mut app, 281));
    let at_281 = take(&mut app);
    checksums.extend(run_until(scene, &mut app, 300));
    let at_300 = take(&mut app);
    for (sum, (_, more)) in parts.iter_mut().zip((scene.in_play)(&mut app)) {
        sum.1 += more;
    }
    for &(what, agents) in &parts {
        assert!(agents > 0, "nothing {what} at ticks 280 and 300: {parts:?}");
    }
    checksums.extend(run_until(scene, &mut app, 301));
    let at_301 = take(&mut app);
    checksums.extend(run_until(scene, &mut app, 600));
    let at_600 = take(&mut app);
    let metrics = *app.world().resource::<FlockMetrics>();
    assert!(metrics.mean_neighbours > 2.0, "{metrics:?}");
    Original {
        checksums,
        at_280,
        at_281,
        at_300,
        at_301,
        at_600,
    }
}

/// How many agents carry each part of the state a snapshot holds: the restored runs test
/// those that some do.
pub(crate) fn parts_in_play(app: &mut App) -> Vec<(&'static str, usize)> {
    let world = app.world_mut();
    let agents = world.query::<(&SteeringState, &Target)>();
    let world: &World = world;
    let count = |keep: &dyn Fn(&SteeringState, &Target) -> bool| {
        agents
            .iter_manual(world)
            .filter(|(s, t)| keep(s, t))
            .count()
    };
    vec![
        ("holding", count(&|s, _| s.hold_left > 0.0)),
        ("wandering", count(&|s, _| s.wander != Vec3::ZERO)),
        ("keeping a force", count(&|s, _| s.last_force.is_some())),
        ("at their target", count(&|s, _| s.at_target)),
        (
            "stalled a while",
            count(&|s, _| s.progress.stalled_for > 0.5),
        ),
        ("pursuing", count(&|_, t| matches!(t, Target::Pursue(_)))),
    ]
}

/// How many agents' paths are being planned, and how many are on their way along one.
pub(crate) fn paths_in_play(app: &mut App) -> (usize, usize) {
    let world = app.world_mut();
    let mut paths = world.query::<&PlannedPath>();
    let (mut planning, mut following) = (0, 0);
    for path in paths.iter(world) {
        planning += usize::from(path.status == PathStatus::Planning);
        following += usize::from(path.status == PathStatus::Found && path.next > 0);
    }
    (planning, following)
}

/// Where two runs' checksums first part, counted in ticks from `first`.
fn parting(ours: &[u64], theirs: &[u64], first: u64) -> Option<u64> {
    let k = ours.iter().zip(theirs).position(|(a, b)| a != b)?;
    Some(first + k as u64)
}

#[test]
fn a_game_saved_to_disk_loads_into_a_new_app_and_continues_bit_for_bit() {
    let original = original(&MIXED);
    let bytes = original.at_300.to_bytes();
    let agents = (BIRDS + WALKERS + 1 + FOLLOWERS) as usize;
    assert_eq!(original.at_300.len(), agents);
    let per_agent = bytes.len() as f32 / agents as f32;
    assert!(per_agent <= 128.0, "{per_agent} bytes an agent");
    loads_into_a_new_app_and_continues(&MIXED, &original, &bytes);
}

#[test]
fn a_rollback_replays_the_same_ticks_with_the_same_orders() {
    rolls_back_and_replays(&MIXED, &original(&MIXED));
}

/// `bytes`, the original's snapshot at 300, written to disk, read back and restored into a new
/// app of `scene`: the same snapshot at 300 and 301, the same checksums to 600, and the same end.
pub(crate) fn loads_into_a_new_app_and_continues(scene: &Scene, original: &Original, bytes: &[u8]) {
    let path = std::env::temp_dir().join(format!("bevy_flock-save-{}.flks", std::process::id()));
    std::fs::write(&path, bytes).expect("the save is written");
    let loaded = std::fs::read(&path).expect("the save is read");
    std::fs::remove_file(&path).expect("the save is removed");

    let mut app = (scene.build)();
    let copied = FlockSnapshot::from_bytes(&loaded).expect("a whole snapshot");
    let snapshot = FlockSnapshot::from_vec(loaded).expect("a whole snapshot");
    assert!(snapshot == original.at_300, "read back as written");
    assert!(
        copied == snapshot,
        "read back alike with and without a copy"
    );
    snapshot.restore(app.world_mut()).expect("the same agents");
    assert_eq!(kernel_tick(&app), 300);
    assert!(take(&mut app) == original.at_300, "restored as saved");
    let mut restored = run_until(scene, &mut app, 301);
    assert!(take(&mut app) == original.at_301, "the first tick differs");
    restored.extend(run_until(scene, &mut app, 600));
    assert_eq!(
        parting(&restored, &original.checksums[300..], 301),
        None,
        "the restored run parts from the original at this tick"
    );
    assert!(
        take(&mut app).to_bytes() == original.at_600.to_bytes(),
        "the ends differ"
    );
}

/// A new app of `scene` run to 300, rolled back to the original's 280 and run again with the
/// same orders: the same snapshot at 281, the same checksums to 300, and the same end.
pub(crate) fn rolls_back_and_replays(scene: &Scene, original: &Original) {
    let mut app = (scene.build)();
    run_until(scene, &mut app, 300);
    assert!(take(&mut app) == original.at_300, "the runs differ");
    original
        .at_280
        .restore(app.world_mut())
        .expect("the same agents");
    assert_eq!(kernel_tick(&app), 280);
    let mut replayed = run_until(scene, &mut app, 281);
    assert!(take(&mut app) == original.at_281, "the first tick differs");
    replayed.extend(run_until(scene, &mut app, 300));
    assert_eq!(
        parting(&replayed, &original.checksums[280..300], 281),
        None,
        "the replay parts from the original at this tick"
    );
    assert!(
        take(&mut app) == original.at_300,
        "the replay ends elsewhere"
    );
    // Without the snapshot the replay would not be the same: the state moved on.
    assert!(original.at_280 != original.at_300, "the state stood still");
}

#[test]
fn a_restore_that_cannot_match_the_world_changes_nothing() {
    let mut app = mixed_scene();
    run_until(&MIXED, &mut app, 20);
    let saved = take(&mut app);
    run_until(&MIXED, &mut app, 40);
    let before = take(&mut app);
    let unchanged =
        |app: &mut App, why: &str| assert!(take(app) == before, "{why} changed the world");

    // An agent the world lacks.
    let lost = find(&mut app, 3);
    let state = app
        .world_mut()
        .entity_mut(lost)
        .take::<Agent>()
        .expect("an agent");
    let err = saved.restore(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::AgentMissing { id: 3 });
    app.world_mut().entity_mut(lost).insert(state);
    unchanged(&mut app, "a snapshot naming a missing agent");

    // An agent the snapshot lacks.
    let extra = app.world_mut().spawn((Agent, AgentId(5_000))).id();
    let err = saved.restore(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::AgentNotInSnapshot { id: 5_000 });
    app.world_mut().despawn(extra);

    // An agent that lost its name.
    let bird = find(&mut app, 7);
    app.world_mut().entity_mut(bird).insert(AgentId(7_000));
    let err = saved.restore(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::AgentMissing { id: 7 });
    app.world_mut().entity_mut(bird).insert(AgentId(7));
    unchanged(&mut app, "a failed restore");

    // Bytes of another version, cut short, or not a snapshot.
    let mut bytes = saved.to_bytes();
    let version = FlockSnapshot::FORMAT_VERSION;
    assert_eq!(bytes[4], version as u8, "the version follows FLKS");
    bytes[4] += 1;
    let err = FlockSnapshot::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        err,
        SnapshotError::Version {
            found: version + 1,
            supported: version
        }
    );
    bytes[4] -= 1;
    for cut in [bytes.len() - 1, bytes.len() / 2, 5] {
        let err = FlockSnapshot::from_bytes(&bytes[..cut]).unwrap_err();
        assert!(matches!(err, SnapshotError::Malformed(_)), "{cut}: {err}");
    }
    let err = FlockSnapshot::from_bytes(b"RIFF....").unwrap_err();
    assert!(matches!(err, SnapshotError::Malformed(_)), "{err}");
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(
        FlockSnapshot::from_bytes(&longer).is_err(),
        "a byte too many"
    );
    assert!(
        FlockSnapshot::from_bytes(&bytes) == Ok(saved.clone()),
        "the bytes read back"
    );

    // What cannot be snapshotted is refused: an agent without an id, a target without one.
    let unnamed = app.world_mut().spawn(Agent).id();
    let err = FlockSnapshot::take(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::UnnamedAgent { entity: unnamed });
    app.world_mut().entity_mut(unnamed).insert(AgentId(6_000));
    let anonymous = app.world_mut().spawn(Transform::default()).id();
    app.world_mut()
        .entity_mut(unnamed)
        .insert(Target::Entity(anonymous));
    let err = FlockSnapshot::take(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::UnnamedTarget { agent: 6_000 });
    app.world_mut().despawn(unnamed);
    unchanged(&mut app, "the refusals");

    saved
        .restore(app.world_mut())
        .expect("the world matches again");
    assert!(take(&mut app) == saved, "restored as saved");

    // A target the world lacks: a walker follows a beacon (not an agent, but named), which is
    // gone by the time of the restore.
    let beacon = app
        .world_mut()
        .spawn((Transform::default(), AgentId(9_999)))
        .id();
    let walker = find(&mut app, BIRDS);
    (app.world_mut().entity_mut(walker)).insert(Target::Entity(beacon));
    let with_beacon = take(&mut app);
    run_until(&MIXED, &mut app, 60);
    with_beacon
        .restore(app.world_mut())
        .expect("the beacon is found by its id");
    assert!(take(&mut app) == with_beacon, "restored with the beacon");
    app.world_mut().despawn(beacon);
    let before = take(&mut app);
    let err = with_beacon.restore(app.world_mut()).unwrap_err();
    let missing = SnapshotError::TargetMissing {
        agent: BIRDS,
        target: 9_999,
    };
    assert_eq!(err, missing);
    assert!(
        take(&mut app) == before,
        "a restore that lacks a target changed the world"
    );
}

/// Any state of an agent, bit for bit: every float drawn from all bit patterns (NaNs
/// included), the optional parts present or not, rotations the write-back would give or not.
fn agent_state() -> impl Strategy<Value = (Transform, Velocity, SteeringState, u8)> {
    let float = any::<u32>().prop_map(f32::from_bits);
    let vector = [float.clone(), float.clone(), float.clone()].prop_map(Vec3::from_array);
    let unit = [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0].prop_map(Vec3::from_array);
    let heading = prop_oneof![Just(Vec3::ZERO), unit, vector.clone()];
    let small = prop_oneof![Just(0.0f32), Just(f32::INFINITY), float.clone()];
    let maybe_vector = prop_oneof![Just(Vec3::ZERO), vector.clone()];
    (
        (
            vector.clone(),
            [float.clone(), float.clone(), float.clone(), float.clone()],
            any::<bool>(),
        ),
        (vector.clone(), heading, maybe_vector.clone(), small.clone()),
        (
            maybe_vector.clone(),
            proptest::option::of(vector.clone()),
            any::<bool>(),
        ),
        (small.clone(), small, any::<bool>(), any::<bool>(), 0u8..4),
    )
        .prop_map(
            |(
                (translation, rotation, derived),
                (velocity, heading, held, hold_left),
                parts,
                progress,
            )| {
                let (wander, last_force, at_target) = parts;
                let (checkpoint, stalled_for, reported, valid_here, target) = progress;
                let rotation = if derived {
                    Transform::default().looking_to(heading, Vec3::Y).rotation
                } else {
                    Quat::from_array(rotation)
                };
                let state = SteeringState {
                    heading,
                    last_valid_position: if valid_here { translation } else { velocity },
                    held_direction: held,
                    hold_left,
                    wander,
                    last_force,
                    at_target,
                    progress: Progress {
                        checkpoint,
                        stalled_for,
                        reported,
                    },
                };
                let transform = Transform {
                    translation,
                    rotation,
                    scale: Vec3::ONE,
                };
                (transform, Velocity(velocity), state, target)
            },
        )
}

/// A world of agents named `ids`, each with `states` (a default agent where none is given);
/// target kind 0 is none, 1 a point, 2 and 3 the next agent, followed or pursued.
fn world_of(ids: &[u64], states: Option<&[(Transform, Velocity, SteeringState, u8)]>) -> App {
    let mut app = create_test_app(FlockingPlugins::default());
    let agents: Vec<Entity> = ids
        .iter()
        .map(|&id| app.world_mut().spawn((Agent, AgentId(id))).id())
        .collect();
    for (k, (&agent, state)) in agents.iter().zip(states.into_iter().flatten()).enumerate() {
        let next = agents[(k + 1) % agents.len()];
        let (transform, velocity, steering, target) = *state;
        let target = match target {
            0 => Target::None,
            1 => Target::Point(transform.translation),
            2 => Target::Entity(next),
            _ => Target::Pursue(next),
        };
        (app.world_mut().entity_mut(agent)).insert((transform, velocity, steering, target));
    }
    app
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn snapshot_restore_snapshot_gives_the_same_bytes(
        states in proptest::collection::vec(agent_state(), 1..12),
        spread in 1u64..u64::MAX / 16,
    ) {
        let ids: Vec<u64> = (0..states.len() as u64).map(|k: u64| k.wrapping_mul(spread)).collect();
        let mut original = world_of(&ids, Some(&states));
        let snapshot = take(&mut original);
        let bytes = snapshot.to_bytes();
        // Into agents spawned in another order, with their default state.
        let reversed: Vec<u64> = ids.iter().rev().copied().collect();
        let mut restored = world_of(&reversed, None);
        FlockSnapshot::from_bytes(&bytes)
            .expect("a whole snapshot")
            .restore(restored.world_mut())
            .expect("the same agents");
        prop_assert!(take(&mut restored).to_bytes() == bytes, "the bytes differ");
    }
}
