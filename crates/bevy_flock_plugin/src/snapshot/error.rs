//! [`SnapshotError`]: why a snapshot could not be taken, read or restored.

use core::fmt;

use bevy::prelude::*;

#[cfg(doc)]
use crate::{AgentId, Destination, FlockSimulation, FlockSnapshot, Target};

/// Why a snapshot could not be taken, read or restored. A restore that fails changes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The world has no flocking plugin (no [`FlockSimulation`]).
    NoPlugin,
    /// An agent has no [`AgentId`]: agents are matched by id, so every one needs its own.
    UnnamedAgent {
        /// The agent.
        entity: Entity,
    },
    /// Two agents of the world share an [`AgentId`].
    SharedId {
        /// The id.
        id: u64,
    },
    /// An agent's [`Target`] is an entity without an [`AgentId`], which a snapshot cannot name.
    UnnamedTarget {
        /// The agent's id.
        agent: u64,
    },
    /// A flock with a [`Destination`] or a [`Formation`](crate::Formation) has no
    /// [`AgentId`]: a squad is matched by its id, like an agent.
    UnnamedSquad {
        /// The flock.
        entity: Entity,
    },
    /// The snapshot's orders name a unit (an agent, or a flock with an [`AgentId`]) that the
    /// world lacks.
    UnitMissing {
        /// The unit's id.
        id: u64,
    },
    /// The snapshot holds state that a plugin the world lacks runs.
    PluginMissing {
        /// The plugin.
        plugin: &'static str,
    },
    /// The snapshot was written in another layout.
    Version {
        /// Its version.
        found: u16,
        /// The one this build reads ([`FlockSnapshot::FORMAT_VERSION`]).
        supported: u16,
    },
    /// The bytes are not a whole snapshot.
    Malformed(String),
    /// The snapshot names an agent that the world lacks.
    AgentMissing {
        /// The agent's id.
        id: u64,
    },
    /// The world has an agent that the snapshot lacks.
    AgentNotInSnapshot {
        /// The agent's id.
        id: u64,
    },
    /// An agent of the snapshot targets an entity (by id) that the world lacks.
    TargetMissing {
        /// The agent's id.
        agent: u64,
        /// The id of the entity it targets.
        target: u64,
    },
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPlugin => write!(f, "the world has no FlockSimulation: add FlockingPlugins"),
            Self::UnnamedAgent { entity } => write!(
                f,
                "agent {entity} has no AgentId: snapshots match agents by their ids"
            ),
            Self::SharedId { id } => write!(f, "two agents share AgentId({id})"),
            Self::UnnamedTarget { agent } => write!(
                f,
                "agent {agent} targets an entity without an AgentId, which a snapshot cannot name"
            ),
            Self::UnnamedSquad { entity } => write!(
                f,
                "squad {entity} has orders but no AgentId: snapshots match squads by their ids"
            ),
            Self::UnitMissing { id } => write!(
                f,
                "the snapshot's orders name unit {id}, which the world lacks (or has without an AgentId)"
            ),
            Self::PluginMissing { plugin } => write!(
                f,
                "the snapshot holds state that {plugin} runs, which the world lacks"
            ),
            Self::Version { found, supported } => write!(
                f,
                "the snapshot has format version {found}; this build reads version {supported}"
            ),
            Self::Malformed(why) => write!(f, "not a flock snapshot: {why}"),
            Self::AgentMissing { id } => {
                write!(f, "the snapshot names agent {id}, which the world lacks")
            }
            Self::AgentNotInSnapshot { id } => {
                write!(f, "the world has agent {id}, which the snapshot lacks")
            }
            Self::TargetMissing { agent, target } => write!(
                f,
                "agent {agent} targets entity {target}, which the world lacks"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}
