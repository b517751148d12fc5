//! Agents pushed all at once, in parallel, enter the crowd exactly as pushed one by one.

use glam::Vec3;

use super::random_positions;
use crate::*;

/// The parameter sets the test crowds start with: three flocks' tunings, one of them slow so
/// that a pursuer's lead depends on which set it has.
fn add_tunings(crowd: &mut Crowd) -> [ParamsId; 3] {
    let slow = FlockTuning {
        limits: SteeringLimits {
            max_speed: 1.5,
            ..Default::default()
        },
        ..Default::default()
    };
    let seekers = FlockTuning {
        weights: FlockWeights {
            target: 1.0,
            wander: 0.5,
            ..Default::default()
        },
        ..Default::default()
    };
    [
        crowd.add_params(FlockTuning::default()),
        crowd.add_params(slow),
        crowd.add_params(seekers),
    ]
}

/// `n` agents of every kind the admission treats apart: non-finite positions, velocities and
/// targets; still agents with only a heading; unknown parameter sets; pursuers of quarries
/// moving at finite and non-finite velocities; memories with holds, wander points and last
/// forces, some unusable.
fn varied_agents(n: usize, params: [ParamsId; 3]) -> Vec<NewAgent> {
    let positions = random_positions(n, 20.0, 71);
    let velocities = random_positions(n, 4.0, 72);
    let others = random_positions(n, 20.0, 73);
    (0..n)
        .map(|i| {
            let mut position = positions[i];
            let mut velocity = velocities[i];
            let mut heading = Vec3::ZERO;
            let mut target = (i % 3 != 0).then_some(others[i]);
            if i % 37 == 5 {
                position.y = f32::NAN;
            }
            if i % 41 == 6 {
                velocity.x = f32::INFINITY;
            }
            if i % 43 == 7 {
                target = Some(Vec3::new(0.0, f32::NEG_INFINITY, 1.0));
            }
            if i % 11 == 8 {
                velocity = Vec3::ZERO;
                heading = others[i] * 0.1;
            }
            let params = if i % 53 == 9 {
                ParamsId(99)
            } else {
                params[i % 3]
            };
            let quarry_velocity = match i % 7 {
                1 => Some(velocities[(i + 1) % n] * 2.0),
                2 if i % 4 == 0 => Some(Vec3::splat(f32::NAN)),
                _ => None,
            };
            let memory = AgentMemory {
                hold: (i % 5 == 1).then_some(AvoidanceHold {
                    direction: if i % 10 == 1 { others[i] } else { Vec3::ZERO },
                    seconds_left: 0.3,
                }),
                wander: if i % 4 == 3 {
                    velocities[i]
                } else {
                    Vec3::ZERO
                },
                last_force: match i % 6 {
                    2 => Some(others[i] * 0.01),
                    4 => Some(Vec3::splat(f32::NAN)),
                    _ => None,
                },
            };
            NewAgent {
                input: AgentInput {
                    position,
                    velocity,
                    heading,
                    flock: (i % 3) as u32,
                    params,
                    target,
                },
                quarry_velocity,
                memory,
                // Some without a target: never in sight.
                target_in_sight: i % 4 == 1,
            }
        })
        .collect()
}

/// Adds `agent` the one-by-one way: push, pursue, set the memory.
fn push_one(crowd: &mut Crowd, agent: &NewAgent) {
    let i = crowd.push(agent.input);
    if let Some(velocity) = agent.quarry_velocity {
        crowd.pursue(i, velocity);
    }
    crowd.set_memory(i, agent.memory);
    crowd.set_target_in_sight(i, agent.target_in_sight);
}

fn bits(v: Vec3) -> [u32; 3] {
    v.to_array().map(f32::to_bits)
}

/// Every agent of `a` and `b` the same, bit for bit (parameter sets compared by value), then
/// again after both step the same ticks.
fn assert_same_crowds(a: &mut Crowd, b: &mut Crowd) {
    for round in 0..2 {
        assert_eq!(a.len(), b.len());
        for i in 0..a.len() {
            let why = format!("agent {i}, round {round}");
            assert_eq!(bits(a.position(i)), bits(b.position(i)), "{why}");
            assert_eq!(bits(a.velocity(i)), bits(b.velocity(i)), "{why}");
            assert_eq!(bits(a.heading(i)), bits(b.heading(i)), "{why}");
            assert_eq!(a.flock(i), b.flock(i), "{why}");
            assert_eq!(a.params_of(i), b.params_of(i), "{why}");
            assert_eq!(a.target(i).map(bits), b.target(i).map(bits), "{why}");
            assert_eq!(a.memory(i), b.memory(i), "{why}");
            assert_eq!(a.target_in_sight(i), b.target_in_sight(i), "{why}");
        }
        for _ in 0..10 {
            a.step(1.0 / 30.0);
            b.step(1.0 / 30.0);
        }
    }
}

/// Gives a crowd its executor.
type SetExecutor = fn(&mut Crowd);

/// On the plane and in 3D, on one thread and on several (parts of every size the executors
/// give, and fill batches cut anywhere), after agents already pushed one by one: the crowd
/// `push_all` makes is the one pushing, pursuing and setting memories one by one makes, and so
/// is every tick after.
#[test]
fn pushing_all_at_once_is_pushing_one_by_one() {
    const AGENTS: usize = 2_000;
    const ALREADY_IN: usize = 150;
    let executors: [(&str, SetExecutor); 3] = [
        ("serial", |c| c.set_executor(Serial)),
        ("3 threads", |c| c.set_executor(ScopedThreads(3))),
        ("7 threads", |c| c.set_executor(ScopedThreads(7))),
    ];
    for space in [Space::Volume, Space::Planar] {
        for (name, set_executor) in executors {
            let mut one_by_one = Crowd::new(space);
            let params = add_tunings(&mut one_by_one);
            let agents = varied_agents(AGENTS, params);
            for agent in &agents {
                push_one(&mut one_by_one, agent);
            }
            let mut all_at_once = Crowd::new(space);
            add_tunings(&mut all_at_once);
            set_executor(&mut all_at_once);
            for agent in &agents[..ALREADY_IN] {
                push_one(&mut all_at_once, agent);
            }
            let rest = &agents[ALREADY_IN..];
            let added = all_at_once.push_all(rest.len(), |first, batch| {
                batch.copy_from_slice(&rest[first..first + batch.len()]);
            });
            assert_eq!(added, ALREADY_IN..AGENTS, "{name}");

            // The cases the test is for did come up.
            let led = (0..AGENTS)
                .filter(|&i| agents[i].quarry_velocity.is_some())
                .filter(|&i| all_at_once.target(i) != agents[i].input.target)
                .count();
            let remembering = (0..AGENTS)
                .filter(|&i| all_at_once.memory(i) != AgentMemory::default())
                .count();
            assert!(led > 100, "{name}: only {led} pursuers led their aim");
            assert!(remembering > 700, "{name}: only {remembering} remember");
            assert_same_crowds(&mut one_by_one, &mut all_at_once);
        }
    }
}

/// Agents pushed all at once as stand-ins, then replaced one at a time, end as if pushed in
/// their place: position, tuning, the pursuit's lead and the memory (a stand-in's memory is
/// forgotten where the real agent has none).
#[test]
fn an_agent_set_in_place_is_one_pushed_there() {
    const AGENTS: usize = 900;
    for space in [Space::Volume, Space::Planar] {
        let mut one_by_one = Crowd::new(space);
        let params = add_tunings(&mut one_by_one);
        let agents = varied_agents(AGENTS, params);
        for agent in &agents {
            push_one(&mut one_by_one, agent);
        }
        let stand_in = |i: usize| -> NewAgent {
            let other = &agents[(i * 7 + 3) % AGENTS];
            NewAgent {
                memory: AgentMemory {
                    wander: Vec3::X,
                    last_force: Some(Vec3::Y),
                    ..other.memory
                },
                quarry_velocity: Some(Vec3::new(3.0, 0.0, 1.0)),
                ..*other
            }
        };
        let replaced = |i: usize| i % 4 == 1;
        let mut set_later = Crowd::new(space);
        add_tunings(&mut set_later);
        set_later.set_executor(ScopedThreads(2));
        set_later.push_all(AGENTS, |first, batch| {
            for (i, agent) in (first..).zip(batch.iter_mut()) {
                *agent = if replaced(i) { stand_in(i) } else { agents[i] };
            }
        });
        for i in (0..AGENTS).filter(|&i| replaced(i)) {
            assert!(set_later.set_agent(i, agents[i]));
        }
        assert!(!set_later.set_agent(AGENTS, agents[0]), "no agent {AGENTS}");
        assert_same_crowds(&mut one_by_one, &mut set_later);
    }
}
