//! One agent as a snapshot holds it, and the conversions from and to its components. Parts
//! that most agents have in a known state (no held avoidance, no wander yet, the rotation the
//! write-back gives) are left out where they are in it, bit for bit, which keeps a crowd's
//! snapshot small.

use bevy::prelude::*;
use flock_core::{Progress, Space};
use serde::{Deserialize, Serialize};

use crate::step::turned_to;
use crate::{OnFloor, SteeringState, Velocity};

#[cfg(doc)]
use crate::Target;

/// One agent's state, keyed by its [`AgentId`](crate::AgentId).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct AgentRecord {
    pub(super) id: u64,
    pub(super) translation: [f32; 3],
    /// `None` where it is what the write-back turns an agent with this heading to.
    pub(super) rotation: Option<[f32; 4]>,
    pub(super) velocity: [f32; 3],
    pub(super) heading: [f32; 3],
    /// `None` where it is the translation, as every tick leaves it.
    pub(super) last_valid_position: Option<[f32; 3]>,
    /// The held direction and the seconds left; `None` where both are zero.
    pub(super) hold: Option<([f32; 3], f32)>,
    /// `None` where zero (the agent never wandered).
    pub(super) wander: Option<[f32; 3]>,
    pub(super) last_force: Option<[f32; 3]>,
    pub(super) at_target: bool,
    /// Checkpoint, seconds stalled and whether reported; `None` where no stretch has begun.
    pub(super) progress: Option<(f32, f32, bool)>,
    pub(super) target: TargetRecord,
    /// Its [`OnFloor`]; `None` without one. A navmesh of floors changes it as the agent walks.
    pub(super) floor: Option<i32>,
}

/// A [`Target`], with an entity named by its [`AgentId`](crate::AgentId).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(super) enum TargetRecord {
    None,
    Point([f32; 3]),
    Entity(u64),
    Pursue(u64),
}

/// An agent's components as a snapshot reads and writes them, but for its [`Target`], whose
/// entity the snapshot names by id.
pub(super) struct AgentState {
    pub(super) transform: Transform,
    pub(super) velocity: Velocity,
    pub(super) state: SteeringState,
    pub(super) floor: Option<OnFloor>,
}

impl AgentRecord {
    /// Agent `id`'s record of `agent`, in `space`, its target named by `target`.
    pub(super) fn new(id: u64, agent: &AgentState, target: TargetRecord, space: Space) -> Self {
        let AgentState {
            transform, state, ..
        } = agent;
        let rotation = transform.rotation;
        let derived = state.heading != Vec3::ZERO
            && same_bits(
                rotation.to_array(),
                turned_to(state.heading, space).to_array(),
            );
        let progress = state.progress;
        Self {
            id,
            translation: transform.translation.to_array(),
            rotation: (!derived).then(|| rotation.to_array()),
            velocity: agent.velocity.0.to_array(),
            heading: state.heading.to_array(),
            last_valid_position: (!same(state.last_valid_position, transform.translation))
                .then(|| state.last_valid_position.to_array()),
            hold: (!(same(state.held_direction, Vec3::ZERO) && state.hold_left.to_bits() == 0))
                .then(|| (state.held_direction.to_array(), state.hold_left)),
            wander: (!same(state.wander, Vec3::ZERO)).then(|| state.wander.to_array()),
            last_force: state.last_force.map(|f| f.to_array()),
            at_target: state.at_target,
            progress: (!is_unstarted(progress)).then_some((
                progress.checkpoint,
                progress.stalled_for,
                progress.reported,
            )),
            target,
            floor: agent.floor.map(|f| f.0),
        }
    }

    /// The components this record gives an agent in `space` whose scale is `scale`.
    pub(super) fn state(&self, scale: Vec3, space: Space) -> AgentState {
        let translation = Vec3::from_array(self.translation);
        let heading = Vec3::from_array(self.heading);
        let (held_direction, hold_left) = self.hold.unwrap_or(([0.0; 3], 0.0));
        let progress = self.progress.map_or_else(Progress::default, |p| Progress {
            checkpoint: p.0,
            stalled_for: p.1,
            reported: p.2,
        });
        AgentState {
            transform: Transform {
                translation,
                rotation: self
                    .rotation
                    .map_or_else(|| turned_to(heading, space), Quat::from_array),
                scale,
            },
            velocity: Velocity(Vec3::from_array(self.velocity)),
            state: SteeringState {
                heading,
                last_valid_position: self
                    .last_valid_position
                    .map_or(translation, Vec3::from_array),
                held_direction: Vec3::from_array(held_direction),
                hold_left,
                wander: self.wander.map_or(Vec3::ZERO, Vec3::from_array),
                last_force: self.last_force.map(Vec3::from_array),
                at_target: self.at_target,
                progress,
            },
            floor: self.floor.map(OnFloor),
        }
    }
}

/// Whether `a` and `b` are the same bits (so that a part left out comes back exactly).
fn same(a: Vec3, b: Vec3) -> bool {
    same_bits(a.to_array(), b.to_array())
}

/// Whether `a` and `b` are the same bits, float by float.
fn same_bits<const N: usize>(a: [f32; N], b: [f32; N]) -> bool {
    a.map(f32::to_bits) == b.map(f32::to_bits)
}

/// Whether `progress` is, bit for bit, that of an agent whose stretch has not begun.
fn is_unstarted(progress: Progress) -> bool {
    let unstarted = Progress::default();
    progress.checkpoint.to_bits() == unstarted.checkpoint.to_bits()
        && progress.stalled_for.to_bits() == unstarted.stalled_for.to_bits()
        && progress.reported == unstarted.reported
}
