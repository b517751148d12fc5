//! Lockstep: two peers that spawn the same agents (same `AgentId`s, same state) in different
//! orders, with different entity bits and tables, simulate the same crowd and compare the same
//! checksum every tick; a one-bit difference shows at once.

use bevy::prelude::*;
use bevy_flock::ReportedInput;
use bevy_flock::prelude::*;

use crate::support::*;

const AGENTS: u64 = 240;
const TICKS: u32 = 60;

/// How a peer lays out the world before and while it spawns the agents.
#[derive(Clone, Copy)]
enum Peer {
    /// Agents spawned in id order.
    InOrder,
    /// Entities of the game's own spawned first (other entity bits), then the agents in
    /// reverse, those with their own limits first (so their table is made, and visited, first).
    Shuffled,
}

/// A flock whose noise and wander draws are keyed by each agent's place in the kernel, with
/// every seventh agent overriding the flock's limits (a table of its own); with `ids`, each
/// agent carries `AgentId(k)`. Returns the agents by `k`.
fn spawn_peer(app: &mut App, peer: Peer, ids: bool) -> Vec<Entity> {
    tune_default_flock(
        app,
        FlockTuning {
            weights: FlockWeights {
                noise: 0.3,
                wander: 0.6,
                ..default()
            },
            boundary: Boundary::Wrap {
                min: Vec3::splat(-12.0),
                max: Vec3::splat(12.0),
            },
            ..default()
        },
    );
    let mut rng = Rng::new(7);
    let states: Vec<(Vec3, Vec3)> = (0..AGENTS)
        .map(|_| (rng.in_cube(11.0), rng.direction() * 3.0))
        .collect();
    let order: Vec<u64> = match peer {
        Peer::InOrder => (0..AGENTS).collect(),
        Peer::Shuffled => {
            for _ in 0..37 {
                app.world_mut().spawn(Transform::default());
            }
            let own_limits = (0..AGENTS).rev().filter(|k| k % 7 == 0);
            own_limits
                .chain((0..AGENTS).rev().filter(|k| k % 7 != 0))
                .collect()
        }
    };
    let mut agents = vec![Entity::PLACEHOLDER; AGENTS as usize];
    for k in order {
        let (position, velocity) = states[k as usize];
        let mut agent = app.world_mut().spawn((
            Agent,
            Transform::from_translation(position),
            Velocity(velocity),
        ));
        if ids {
            agent.insert(AgentId(k));
        }
        if k % 7 == 0 {
            agent.insert(SteeringLimits {
                max_speed: 5.0,
                ..default()
            });
        }
        agents[k as usize] = agent.id();
    }
    agents
}

/// The checksum after each of [`TICKS`] ticks, and the agents' translations by `k` at the end.
fn run_peer(peer: Peer, ids: bool, chunk: usize) -> (Vec<u64>, Vec<Vec3>) {
    let mut app = create_test_app(FlockingPlugins::default());
    app.world_mut()
        .resource_mut::<FlockingConfig>()
        .parallel_chunk_size = Some(chunk);
    let agents = spawn_peer(&mut app, peer, ids);
    let checksums = (0..TICKS)
        .map(|_| {
            run_ticks(&mut app, 1);
            app.world().resource::<FlockSimulation>().checksum()
        })
        .collect();
    let world = app.world();
    let translations = agents
        .iter()
        .map(|&a| world.get::<Transform>(a).expect("agent").translation)
        .collect();
    (checksums, translations)
}

#[test]
fn peers_that_name_their_agents_alike_simulate_alike_whatever_their_entities_and_tables() {
    let (in_order, at_end) = run_peer(Peer::InOrder, true, usize::MAX);
    let (shuffled, shuffled_at_end) = run_peer(Peer::Shuffled, true, usize::MAX);
    let parted = |a: &[u64], b: &[u64]| a.iter().zip(b).position(|(a, b)| a != b);
    assert_eq!(
        parted(&shuffled, &in_order),
        None,
        "the peers' checksums differ from this tick"
    );
    let bits = |v: &[Vec3]| -> Vec<[u32; 3]> {
        v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
    };
    assert_eq!(
        bits(&shuffled_at_end),
        bits(&at_end),
        "the peers' agents differ"
    );
    // However each peer splits the passes into tasks.
    let split = run_peer(Peer::Shuffled, true, 7).0;
    assert_eq!(
        parted(&split, &in_order),
        None,
        "tasks of 7 agents differ from this tick"
    );
    // Without ids the same two peers part: the order the agents are stored in picks whose
    // draws are whose, which is what the ids are for.
    let (unnamed, _) = run_peer(Peer::InOrder, false, usize::MAX);
    let (unnamed_shuffled, _) = run_peer(Peer::Shuffled, false, usize::MAX);
    assert_ne!(
        unnamed_shuffled.last(),
        unnamed.last(),
        "without ids the peers should part"
    );
}

#[test]
fn a_one_bit_desync_shows_in_the_checksum_of_the_tick_it_happens() {
    let mut peers: Vec<(App, Vec<Entity>)> = [Peer::InOrder, Peer::Shuffled]
        .map(|peer| {
            let mut app = create_test_app(FlockingPlugins::default());
            let agents = spawn_peer(&mut app, peer, true);
            (app, agents)
        })
        .into();
    let checksum = |app: &App| app.world().resource::<FlockSimulation>().checksum();
    for tick in 0..20 {
        if tick == 10 {
            // One peer's game nudges one agent by one unit in the last place.
            let (app, agents) = &mut peers[1];
            let mut transform = app
                .world_mut()
                .get_mut::<Transform>(agents[100])
                .expect("agent");
            transform.translation.x = f32::from_bits(transform.translation.x.to_bits() ^ 1);
        }
        for (app, _) in &mut peers {
            run_ticks(app, 1);
        }
        let (a, b) = (checksum(&peers[0].0), checksum(&peers[1].0));
        if tick < 10 {
            assert_eq!(a, b, "tick {tick}: the peers differ before the desync");
        } else {
            assert_ne!(a, b, "tick {tick}: the desync does not show");
        }
    }
}

#[test]
fn an_id_two_agents_share_or_an_agent_without_one_is_reported_once() {
    let mut app = create_test_app(FlockingPlugins::default());
    let first = app.world_mut().spawn((Agent, AgentId(5))).id();
    let twin = app
        .world_mut()
        .spawn((Agent, AgentId(5), Transform::from_xyz(1.0, 0.0, 0.0)))
        .id();
    run_ticks(&mut app, 3);
    let reported = app.world().resource::<ReportedInput>();
    let shared = [first, twin].map(|e| reported.contains(e, "agent id shared"));
    assert_eq!(shared.iter().filter(|&&s| s).count(), 1, "{shared:?}");
    // Both agents still move on: the crowd goes in the order Bevy stores it.
    assert_eq!(
        app.world().resource::<FlockSimulation>().entities().len(),
        2
    );

    let mut app = create_test_app(FlockingPlugins::default());
    app.world_mut().spawn((Agent, AgentId(1)));
    let unnamed = app
        .world_mut()
        .spawn((Agent, SteeringLimits::default()))
        .id();
    run_ticks(&mut app, 3);
    let reported = app.world().resource::<ReportedInput>();
    assert!(reported.contains(unnamed, "agent id missing"));
    assert_eq!(
        reported.len(),
        1,
        "reported more than the agent without an id"
    );
}
