//! The checksum a lockstep game compares between peers: the same for the same state on any
//! executor and SIMD path, and another for a difference in any bit it covers.

use glam::Vec3;

use super::{crowd_with, random_positions};
use crate::*;

/// A crowd of 5,000 (three blocks of the checksum) with noise, wander and held avoidance, so
/// that every kind of memory it covers is set.
fn wandering_crowd() -> Crowd {
    let tuning = FlockTuning {
        weights: FlockWeights {
            noise: 0.3,
            wander: 0.5,
            ..Default::default()
        },
        ..Default::default()
    };
    let positions = random_positions(5_000, 40.0, 5);
    let mut crowd = crowd_with(Space::Volume, tuning, &positions, |i| {
        Vec3::new((i % 5) as f32 - 2.0, (i % 3) as f32 - 1.0, 1.0)
    });
    crowd.set_obstacles([Shape::Sphere {
        centre: Vec3::ZERO,
        radius: 6.0,
    }]);
    crowd.set_seed(17);
    crowd
}

/// The checksum after each of `ticks` ticks of the crowd, run by `executor` on `simd` lanes.
fn checksums(
    executor: impl ChunkExecutor + Send + Sync + 'static,
    simd: SimdPath,
    ticks: usize,
) -> Vec<u64> {
    let mut crowd = wandering_crowd();
    crowd.set_executor(executor);
    assert!(crowd.set_simd_path(simd));
    (0..ticks)
        .map(|_| {
            crowd.step(1.0 / 60.0);
            crowd.checksum()
        })
        .collect()
}

#[test]
fn the_checksum_is_the_same_on_any_thread_count_and_simd_path() {
    let serial = checksums(Serial, SimdPath::detect(), 20);
    let distinct: std::collections::HashSet<_> = serial.iter().collect();
    assert_eq!(
        distinct.len(),
        serial.len(),
        "a tick left the checksum as it was"
    );
    for threads in [2, 3, 4] {
        let threaded = checksums(ScopedThreads(threads), SimdPath::detect(), 20);
        assert_eq!(threaded, serial, "{threads} threads differ");
    }
    for simd in SimdPath::supported() {
        assert_eq!(checksums(Serial, simd, 20), serial, "{simd:?} differs");
    }
}

#[test]
fn the_checksum_sees_one_bit_of_any_value_it_covers() {
    let mut crowd = wandering_crowd();
    crowd.step(1.0 / 60.0);
    let wandered = (0..crowd.len()).find(|&i| crowd.memory(i).wander != Vec3::ZERO);
    let held = (0..crowd.len()).find(|&i| crowd.memory(i).hold.is_some());
    let (Some(wandered), Some(held)) = (wandered, held) else {
        panic!("the crowd should wander and hold an avoidance direction after a tick");
    };
    let base = crowd.checksum();
    assert_eq!(crowd.clone().checksum(), base, "a copy differs");
    let one_ulp = |x: f32| f32::from_bits(x.to_bits() ^ 1);
    let mut changed: Vec<(&str, Crowd)> = Vec::new();
    // The last agent, put back as it is but for one bit of its position.
    let last = crowd.len() - 1;
    let mut moved = crowd.clone();
    let p = crowd.position(last);
    let input = AgentInput {
        position: Vec3::new(p.x, one_ulp(p.y), p.z),
        velocity: crowd.velocity(last),
        heading: crowd.heading(last),
        flock: 0,
        params: ParamsId(0),
        target: None,
    };
    let memory = crowd.memory(last);
    let agent = NewAgent {
        input,
        memory,
        ..NewAgent::default()
    };
    assert!(moved.set_agent(last, agent));
    changed.push(("a position's last bit", moved));
    let mut unchanged = crowd.clone();
    assert!(unchanged.set_agent(
        last,
        NewAgent {
            input: AgentInput {
                position: p,
                ..input
            },
            memory,
            ..NewAgent::default()
        }
    ));
    assert_eq!(
        unchanged.checksum(),
        base,
        "the agent put back as it was changed the checksum"
    );
    let mut wander = crowd.clone();
    let mut memory = wander.memory(wandered);
    memory.wander.z = one_ulp(memory.wander.z);
    wander.set_memory(wandered, memory);
    changed.push(("a wander direction's last bit", wander));
    let mut hold = crowd.clone();
    let mut memory = hold.memory(held);
    let h = memory.hold.as_mut().expect("held");
    h.seconds_left = one_ulp(h.seconds_left);
    hold.set_memory(held, memory);
    changed.push(("a hold's time left", hold));
    let mut dropped = crowd.clone();
    let mut memory = dropped.memory(held);
    memory.hold = None;
    dropped.set_memory(held, memory);
    changed.push(("a hold dropped", dropped));
    let mut seeded = crowd.clone();
    seeded.set_seed(18);
    changed.push(("the seed", seeded));
    for (what, crowd) in changed {
        assert_ne!(crowd.checksum(), base, "{what} left the checksum as it was");
    }
}

/// One agent as a crowd rebuilt every tick (as the plugin's is) keeps it between ticks.
type Carried = (AgentInput, AgentMemory, f32);

/// What `crowd`'s agents carry to the next tick.
fn carried(crowd: &Crowd) -> Vec<Carried> {
    (0..crowd.len())
        .map(|i| {
            let input = AgentInput {
                position: crowd.position(i),
                velocity: crowd.velocity(i),
                heading: crowd.heading(i),
                flock: crowd.flock(i),
                params: ParamsId(0),
                target: crowd.target(i),
            };
            (input, crowd.memory(i), crowd.speed_factor(i))
        })
        .collect()
}

/// Empties `crowd` and gives it `agents` with `tuning`, as the plugin refills its crowd.
fn refill(crowd: &mut Crowd, tuning: FlockTuning, agents: &[Carried]) {
    crowd.clear();
    crowd.add_params(tuning);
    for (i, &(input, memory, speed_factor)) in agents.iter().enumerate() {
        crowd.push(input);
        crowd.set_memory(i, memory);
        crowd.set_speed_factor(i, speed_factor);
    }
}

/// What a crowd rebuilt every tick (as the plugin's is) carries from one tick to the next is
/// its agents, their memory, the seed and the tick count: a new crowd given those (as a game
/// restores a saved one) steps as the original, velocity obstacles and level of detail
/// included, whose buffers kept between ticks are caches only.
#[test]
fn a_crowd_restored_from_what_it_carries_steps_as_the_original() {
    let tuning = FlockTuning {
        weights: FlockWeights {
            noise: 0.3,
            wander: 0.5,
            ..Default::default()
        },
        perception: Perception {
            velocity_obstacles: VelocityObstacles::Reciprocal,
            ..Default::default()
        },
        ..Default::default()
    };
    let set_up = |crowd: &mut Crowd| {
        crowd.set_obstacles([Shape::Sphere {
            centre: Vec3::ZERO,
            radius: 6.0,
        }]);
        crowd.set_seed(17);
        let detail = LevelOfDetail {
            near_radius: 15.0,
            interval: 3,
        };
        crowd.set_level_of_detail(Some(detail), Vec3::new(10.0, 0.0, 0.0));
    };
    let positions = random_positions(3_000, 30.0, 9);
    let mut original = crowd_with(Space::Volume, tuning, &positions, |i| {
        Vec3::new((i % 5) as f32 - 2.0, (i % 3) as f32 - 1.0, 1.0)
    });
    set_up(&mut original);
    for i in (0..original.len()).step_by(4) {
        original.set_speed_factor(i, 1.25);
    }
    let dt = 1.0 / 60.0;
    // A tick of a crowd rebuilt every tick: refilled with what its agents carried, then stepped.
    let tick_from = |crowd: &mut Crowd, agents: &[Carried]| {
        refill(crowd, tuning, agents);
        crowd.step(dt);
    };
    let tick = |crowd: &mut Crowd| tick_from(crowd, &carried(crowd));
    for _ in 0..30 {
        tick(&mut original);
    }
    // The save: what the agents carry, the tick count (and the seed, the tuning and the
    // obstacles, which the game sets up again).
    let saved = carried(&original);
    let saved_tick = original.tick();
    assert!(saved.iter().any(|a| a.1.hold.is_some()), "nothing held");
    assert!(
        saved.iter().any(|a| a.1.last_force.is_some()),
        "no force kept"
    );
    let restore = |tick: u64| {
        let mut crowd = Crowd::new(Space::Volume);
        set_up(&mut crowd);
        crowd.set_tick(tick);
        tick_from(&mut crowd, &saved);
        crowd
    };
    let mut restored = restore(saved_tick);
    tick(&mut original);
    let moved = |crowd: &Crowd| {
        (0..crowd.len())
            .map(|i| crowd.position(i))
            .collect::<Vec<_>>()
    };
    let first = moved(&restored);
    for k in 0..30 {
        assert_eq!(
            restored.checksum(),
            original.checksum(),
            "tick {k} after differs"
        );
        tick(&mut original);
        tick(&mut restored);
    }
    // The tick count is part of it: the draws of another tick are other draws.
    let late = restore(saved_tick + 1);
    assert_ne!(moved(&late), first, "the tick count changed nothing");
}
