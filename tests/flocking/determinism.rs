//! The plugin repeats bit for bit: across runs, across how its passes are split into parallel
//! tasks, and across commits (a stored hash).

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// FNV-1a over the bits of every agent's translation and velocity, in spawn order, after
/// [`TICKS`] ticks of [`mixed_scene`]. If a change to the simulation is intended, set this to
/// the value the failing test prints and say in the commit why the numbers moved.
const GOLDEN_HASH: u64 = 0x22cf_6599_60f0_213e;
const TICKS: u32 = 600;

/// Three flocks (walls with a field of view, wrap-around with desired-velocity rules, seekers
/// with collision avoidance of a point and of a moving entity that is despawned halfway), and a few agents that
/// override their flock's tuning. Returns the agents in spawn order.
fn mixed_scene(app: &mut App) -> Vec<Entity> {
    let walls = spawn_flock(
        app,
        FlockTuning {
            perception: Perception {
                field_of_view: 270.0,
                ..default()
            },
            boundary: Boundary::walls(Vec3::splat(-15.0), Vec3::splat(15.0), 4.0),
            ..default()
        },
    );
    let wrap = spawn_flock(
        app,
        FlockTuning {
            weights: FlockWeights {
                style: RuleStyle::DesiredVelocity,
                noise: 0.2,
                ..default()
            },
            boundary: Boundary::Wrap {
                min: Vec3::splat(-15.0),
                max: Vec3::splat(15.0),
            },
            ..default()
        },
    );
    let seekers = spawn_flock(
        app,
        FlockTuning {
            weights: FlockWeights {
                collision_avoidance: 1.0,
                ..default()
            },
            ..default()
        },
    );
    let bait = app
        .world_mut()
        .spawn((Transform::from_xyz(6.0, 0.0, 0.0), Bait))
        .id();
    let mut rng = Rng::new(41);
    let mut agents = Vec::new();
    for i in 0..300 {
        let (flock, target) = match i % 3 {
            0 => (walls, Target::None),
            1 => (wrap, Target::None),
            _ if i % 2 == 0 => (seekers, Target::Point(Vec3::new(-5.0, 2.0, 1.0))),
            _ => (seekers, Target::Entity(bait)),
        };
        let mut agent = app.world_mut().spawn((
            Agent,
            InFlock(flock),
            target,
            Transform::from_translation(rng.in_cube(12.0)),
            Velocity(rng.direction() * 3.0),
        ));
        if i % 37 == 0 {
            agent.insert(SteeringLimits {
                max_speed: 8.0,
                ..default()
            });
        }
        agents.push(agent.id());
    }
    agents
}

/// The bait sweeps along a line until it is despawned.
#[derive(Component)]
struct Bait;

/// Moves the bait with exact arithmetic only (no trigonometry, whose results could differ
/// between platforms).
fn move_bait(mut bait: Query<&mut Transform, With<Bait>>, time: Res<Time>) {
    for mut transform in &mut bait {
        let along = time.elapsed_secs() % 4.0;
        transform.translation = Vec3::new(6.0, 0.5, along * 3.0 - 6.0);
    }
}

fn run_mixed_scene(parallel_chunk_size: usize) -> u64 {
    let mut app = create_test_app(FlockingPlugins::default());
    app.world_mut()
        .resource_mut::<FlockingConfig>()
        .parallel_chunk_size = Some(parallel_chunk_size);
    app.add_systems(FixedUpdate, move_bait.in_set(FlockingSystems::First));
    let agents = mixed_scene(&mut app);
    run_ticks(&mut app, TICKS / 2);
    let bait = app
        .world_mut()
        .query_filtered::<Entity, With<Bait>>()
        .single(app.world())
        .expect("one bait");
    app.world_mut().despawn(bait);
    run_ticks(&mut app, TICKS - TICKS / 2);
    // The scene is alive: agents see one another and flock.
    let metrics = *app.world().resource::<FlockMetrics>();
    assert_eq!(metrics.agents, agents.len());
    assert!(metrics.mean_neighbours > 3.0, "{metrics:?}");

    let mut hash = 0xCBF2_9CE4_8422_2325_u64;
    for &agent in &agents {
        let p = app
            .world()
            .get::<Transform>(agent)
            .expect("agent")
            .translation;
        let v = app.world().get::<Velocity>(agent).expect("agent").0;
        for bits in [p.x, p.y, p.z, v.x, v.y, v.z].map(f32::to_bits) {
            for byte in bits.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
            }
        }
    }
    hash
}

#[test]
fn the_mixed_scene_repeats_bit_for_bit_however_the_passes_are_split() {
    // One task per pass, then many small tasks on Bevy's compute pool.
    let whole = run_mixed_scene(usize::MAX);
    for chunk in [16, 7] {
        assert_eq!(
            run_mixed_scene(chunk),
            whole,
            "tasks of {chunk} agents differ from one task"
        );
    }
    assert_eq!(
        whole, GOLDEN_HASH,
        "the mixed scene's state after {TICKS} ticks hashes to {whole:#018x}, not the stored \
         {GOLDEN_HASH:#018x}. If the simulation was meant to change, set GOLDEN_HASH in \
         tests/flocking/determinism.rs to {whole:#018x} and say why in the commit."
    );
}
