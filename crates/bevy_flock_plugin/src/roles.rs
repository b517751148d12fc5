//! The copy of leaders and predators into the kernel, after the agents'.

use bevy::ecs::query::QueryEntityError;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::{Correction, Leader, Threat, Value};

use crate::diagnostics::Reporter;
use crate::extract::{Whereabouts, itself};
use crate::simulation::{FlockSimulation, kernel_position};
use crate::{Agent, FollowLeader, LeaderLost, OnFloor, Predator, Velocity};

/// Hands every follower its leader; a follower whose leader is gone gets [`LeaderLost`] and
/// loses its [`FollowLeader`], so that it is told once. One that names itself, or a leader
/// without a transform or with bad values, is not followed (and reported once).
pub(crate) fn extract_leaders(
    mut sim: ResMut<FlockSimulation>,
    followers: Query<(Entity, &FollowLeader), With<Agent>>,
    leaders: Query<Whereabouts>,
    mut commands: Commands,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    for (entity, follow) in &followers {
        let Some(i) = sim.index_of(entity) else {
            continue;
        };
        if follow.leader == entity {
            reporter.report(entity, &[itself("leader")]);
            continue;
        }
        match leaders.get(follow.leader) {
            Ok((transform, velocity)) => {
                let leader = Leader {
                    position: transform.translation(),
                    velocity: velocity.map_or(Vec3::ZERO, |v| v.0),
                    distance: follow.distance,
                };
                if !sim.crowd_mut().set_leader(i, Some(leader)) {
                    reporter.warn_once(
                        entity,
                        "leader",
                        &format!(
                            "follows {} at distance {} from {} moving at {}; a distance must be finite and not negative, and the leader's position and velocity finite, so it is not followed",
                            follow.leader, follow.distance, leader.position, leader.velocity
                        ),
                    );
                }
            }
            Err(QueryEntityError::QueryDoesNotMatch(..)) => {
                // It exists but has no place in the world (yet): not lost, not followed.
                reporter.warn_once(
                    entity,
                    "leader without a transform",
                    &format!(
                        "follows {}, which has no transform; it is not followed until it has one",
                        follow.leader
                    ),
                );
            }
            Err(_) => {
                commands.entity(entity).remove::<FollowLeader>();
                commands.trigger(LeaderLost {
                    entity,
                    leader: follow.leader,
                });
            }
        }
    }
    sim.step_time += started.elapsed();
}

/// What the plugin reads of a predator: where it is, on which floor, and how it moves.
type PredatorData = (
    Entity,
    &'static Predator,
    &'static GlobalTransform,
    Option<&'static Velocity>,
    Option<&'static OnFloor>,
);

/// Hands the kernel every [`Predator`] as a threat to flee; one with a bad radius is reported
/// once and left out.
pub(crate) fn extract_predators(
    mut sim: ResMut<FlockSimulation>,
    predators: Query<PredatorData>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let space = sim.crowd().space();
    let mut found = Vec::with_capacity(predators.iter().len());
    for (entity, predator, transform, velocity, floor) in &predators {
        let threat = Threat {
            position: kernel_position(transform.translation(), floor.copied(), space),
            velocity: velocity.map_or(Vec3::ZERO, |v| v.0),
            radius: predator.radius,
        };
        if threat.is_valid() {
            found.push(threat);
        } else {
            reporter.report_in_detail(
                entity,
                Correction {
                    field: "predator",
                    found: Value::Scalar(predator.radius),
                    used: Value::None,
                    rule: "must have a positive, finite radius (found) and a finite position and velocity; agents ignore it",
                },
                &format!(
                    "is a predator with radius {} at {} moving at {}; agents ignore it",
                    predator.radius,
                    transform.translation(),
                    threat.velocity
                ),
            );
        }
    }
    sim.crowd_mut().set_threats(found);
    sim.step_time += started.elapsed();
}
