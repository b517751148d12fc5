//! [`FlockSnapshot`]: the state of the simulation that the next tick depends on, taken from a
//! world and restored into one (the same, for a rollback, or a new one, for a saved game or a
//! peer that joins), matched agent to agent by [`AgentId`], and written to bytes with
//! postcard.

mod codec;
mod error;
mod ground;
mod record;
mod restore;
mod routes;
mod take;
mod units;

use core::fmt;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

pub use error::SnapshotError;
use record::{AgentRecord, TargetRecord};

#[cfg(doc)]
use crate::{
    AgentId, Destination, FlockSimulation, FlockingConfig, FlockingSystems, SteeringState, Target,
    Velocity,
};

/// What the simulation carries from one tick to the next, agent by agent, to be restored into
/// a world that holds the same agents: for a rollback, a saved game, or a lockstep peer that
/// joins late. Restored, the world continues bit for bit as the one it was taken from (its
/// [`FlockSimulation::checksum`] is the same every tick after), on any thread count and SIMD
/// path.
///
/// It holds, for every [`Agent`](crate::Agent), by its [`AgentId`]:
///
/// - its [`Transform`]'s translation and rotation (not its scale), and from them its
///   [`GlobalTransform`] (what other agents' pursuit, leaders and predators read);
/// - its [`Velocity`] and its [`SteeringState`]: heading, held avoidance, wander point, the
///   force level of detail keeps, arrival and the progress behind
///   [`AgentStuck`](crate::AgentStuck);
/// - its [`Target`]: a point, or an entity by that entity's [`AgentId`] (any entity an agent
///   targets must carry one, agent or not); a target entity that no longer exists is saved as
///   no target, which is what the plugin already seeks toward it;
///
/// and the kernel's count of ticks, which picks the noise and wander draws and the agents that
/// level of detail updates. With [`SquadsPlugin`](crate::SquadsPlugin) and (the `pathfinding`
/// feature) [`TerrainPlugin`](crate::TerrainPlugin), it also holds the orders in flight:
///
/// - each agent's and each squad's [`Destination`] and [`PlannedPath`](crate::PlannedPath),
///   and each squad's [`Formation`](crate::Formation) (members named by id);
/// - the squad systems' progress: the squads waiting for their path, and the terrain as they
///   last saw it (so that a wall raised since is still news to them);
/// - the [`Terrain`](crate::Terrain) (its tiles, its regions if worked out, and the log of its
///   recent changes, which planned paths are checked against), replacing the world's;
/// - the [`PathPlanner`](crate::PathPlanner): its budget, the requests waiting in their order,
///   the search being run as far as it got (A* or hierarchical), the answers not yet taken,
///   the paths kept for reuse, the clusters and regions worked out (or half worked out), on
///   which the budget of the ticks to come depends;
/// - with `NavMeshPlugin` (the `navmesh` feature), the `NavMeshPlanner`: its budget, the
///   requests waiting in their order, the answers not yet taken and the paths kept for reuse.
///   The `NavMesh` itself is the game's: insert the same one before restoring (what was
///   planned on the mesh of the world saved counts as planned on it), and the squads take it
///   as seen.
///
/// A squad (a [`Flock`](crate::Flock) with a [`Destination`] or a
/// [`Formation`](crate::Formation)) is named by an [`AgentId`] like an agent.
///
/// The rest is the game's, as it set it up, to spawn again (or save) before restoring: which
/// agents and squads exist and their ids, flocks (which agent is in which) and their tuning,
/// per-agent overrides, [`SpeedFactor`](crate::SpeedFactor)s, [`OnFloor`](crate::OnFloor)s,
/// [`Combatant`](crate::Combatant)s, leaders, obstacles, predators, flow fields, the navmesh,
/// [`FlockingConfig`] (its seed included) and the schedule's clock. Take the snapshot right
/// after a tick, before the game's next orders: a change the game made since the last tick and
/// the plugin has not yet seen (a destination set again to the same point) is restored as seen.
///
/// For a save written whole to a file and read back whole, [`into_bytes`](Self::into_bytes)
/// and [`from_vec`](Self::from_vec) give the same bytes as [`to_bytes`](Self::to_bytes) and
/// [`from_bytes`](Self::from_bytes) without copying the agents into new memory (at 100,000
/// agents, a save in 12-16 ms and a load in 15-18 ms; BENCHMARKS.md).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_flock_plugin::prelude::*;
/// # use bevy_flock_plugin::FlockSnapshot;
/// # let mut app = App::new();
/// # app.add_plugins((MinimalPlugins, TransformPlugin, FlockingPlugins::default()));
/// # app.world_mut().spawn((Agent, AgentId(7)));
/// # app.update();
/// // Between two updates (or in an exclusive system after `FlockingSystems::Last`):
/// let saved = FlockSnapshot::take(app.world_mut())?.to_bytes();
/// // Later, in this world or in a new one with the same agents spawned:
/// FlockSnapshot::from_bytes(&saved)?.restore(app.world_mut())?;
/// # Ok::<(), bevy_flock_plugin::SnapshotError>(())
/// ```
#[derive(Clone, Serialize, Deserialize)]
pub struct FlockSnapshot {
    /// The layout of the fields below: [`FlockSnapshot::FORMAT_VERSION`] when taken.
    version: u16,
    /// The kernel's count of ticks (see [`flock_core::Crowd::tick`]).
    tick: u64,
    /// Number of agents.
    len: u64,
    /// The agents in postcard's format ([`AgentRecord`]s), one after another, by id,
    /// ascending, no id twice. Kept as bytes: a crowd's records as values took three times the
    /// memory, and fresh memory costs its first touch (at 100,000 agents, a snapshot as values
    /// spent about as long on page faults as on the agents).
    agents: Vec<u8>,
    /// The orders ([`routes::Routes`]: destinations, paths, formations, the terrain and its
    /// planner) in postcard's format.
    routes: Vec<u8>,
    /// [`digest`] of the orders' bytes. Every agent's bytes are checked whole, but the orders
    /// hold the planner's own tables, which only their maker can tell whole: a save changed
    /// on disk would decode into tables that break the planner later, so it is refused here.
    routes_digest: u64,
    /// Whether the agents' bytes are known whole ([`check`](Self::check)ed, or written by
    /// [`take`](Self::take)); one built through serde is checked when restored.
    #[serde(skip)]
    checked: bool,
}

impl PartialEq for FlockSnapshot {
    /// The same tick and agents, bit for bit.
    fn eq(&self, other: &Self) -> bool {
        (self.version, self.tick, self.len) == (other.version, other.tick, other.len)
            && self.agents == other.agents
            && self.routes == other.routes
    }
}

impl Eq for FlockSnapshot {}

impl fmt::Debug for FlockSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlockSnapshot")
            .field("version", &self.version)
            .field("tick", &self.tick)
            .field("agents", &self.len)
            .field("bytes", &self.agents.len())
            .field("order_bytes", &self.routes.len())
            .finish()
    }
}

/// The bytes that open [`FlockSnapshot::to_bytes`]'s output.
const MAGIC: [u8; 4] = *b"FLKS";

/// FNV-1a (Fowler, Noll and Vo), 64 bits, of `bytes`: any one byte changed always changes it
/// (each step is a bijection), and more than one almost always. Not proof against bytes made
/// to pass on purpose.
fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Where the parts of [`FlockSnapshot::to_bytes`]' output are, read as the derived
/// `Deserialize` reads them, but for the agents' and orders' bytes, which are found rather
/// than read a byte at a time through serde.
struct Layout {
    version: u16,
    tick: u64,
    len: u64,
    agents: core::ops::Range<usize>,
    routes: core::ops::Range<usize>,
    routes_digest: u64,
}

impl Layout {
    /// The layout of `bytes`; fails where they are not a whole snapshot of this version.
    fn of(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let malformed = |why: String| SnapshotError::Malformed(why);
        let body = bytes
            .strip_prefix(&MAGIC)
            .ok_or_else(|| malformed("it does not begin with FLKS".into()))?;
        let mut reader = codec::Reader::new(body);
        let mut varint = |what: &str| reader.u64().ok_or_else(|| malformed(format!("no {what}")));
        let version = varint("version")?;
        let version = u16::try_from(version).map_err(|_| malformed("no version".into()))?;
        FlockSnapshot::check_version(version)?;
        let tick = varint("tick")?;
        let len = varint("agent count")?;
        let at = |reader: &codec::Reader| bytes.len() - reader.rest().len();
        let cut = |what: &str| malformed(format!("its {what} are cut short"));
        let agents = reader.bytes().ok_or_else(|| cut("agents"))?;
        let agents = at(&reader) - agents.len()..at(&reader);
        let routes = reader.bytes().ok_or_else(|| cut("orders"))?;
        let routes = at(&reader) - routes.len()..at(&reader);
        let routes_digest = reader.u64().ok_or_else(|| cut("orders' digest"))?;
        if !reader.rest().is_empty() {
            return Err(malformed(format!(
                "{} bytes follow its orders",
                reader.rest().len()
            )));
        }
        Ok(Self {
            version,
            tick,
            len,
            agents,
            routes,
            routes_digest,
        })
    }

    /// The snapshot of these parts of `bytes`, with `agents` for its agents' bytes, not yet
    /// checked.
    fn snapshot(&self, agents: Vec<u8>, bytes: &[u8]) -> FlockSnapshot {
        FlockSnapshot {
            version: self.version,
            tick: self.tick,
            len: self.len,
            agents,
            routes: bytes[self.routes.clone()].to_vec(),
            routes_digest: self.routes_digest,
            checked: false,
        }
    }
}

impl FlockSnapshot {
    /// The version of the layout this build writes and reads; a snapshot of another is
    /// refused with [`SnapshotError::Version`].
    pub const FORMAT_VERSION: u16 = 4;

    /// The kernel's count of ticks when the snapshot was taken.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the snapshot holds no agent.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fails where the agents' bytes are not `len` whole agents in ascending order of id, or
    /// where the snapshot is of another version.
    fn check(&self) -> Result<(), SnapshotError> {
        Self::check_version(self.version)?;
        let mut reader = codec::Reader::new(&self.agents);
        let mut last = None;
        for k in 0..self.len {
            let malformed = |why: &str| SnapshotError::Malformed(format!("agent {k}: {why}"));
            let (id, _) = reader
                .id_and_target()
                .ok_or_else(|| malformed("not whole"))?;
            if last.is_some_and(|last| last >= id) {
                return Err(malformed("its id is not above the one before"));
            }
            last = Some(id);
        }
        match reader.rest().len() {
            0 => {}
            extra => {
                return Err(SnapshotError::Malformed(format!(
                    "{extra} bytes follow the agents"
                )));
            }
        }
        if digest(&self.routes) != self.routes_digest {
            return Err(SnapshotError::Malformed(
                "its orders do not match their digest: the bytes were changed".into(),
            ));
        }
        self.routes().map(|_| ())
    }

    /// The orders, read from their bytes.
    fn routes(&self) -> Result<routes::Routes, SnapshotError> {
        codec::whole(&self.routes, "orders")
    }

    /// [`check`](Self::check), where not already known to pass.
    fn check_unless_known(&self) -> Result<(), SnapshotError> {
        if self.checked {
            Self::check_version(self.version)
        } else {
            self.check()
        }
    }

    /// The agents' ids and targets, in order, of a snapshot that passed
    /// [`check`](Self::check).
    fn ids_and_targets(&self) -> impl Iterator<Item = (u64, TargetRecord)> + '_ {
        let mut reader = codec::Reader::new(&self.agents);
        (0..self.len).map_while(move |_| reader.id_and_target())
    }

    /// The agents, in order, of a snapshot that passed [`check`](Self::check).
    fn records(&self) -> impl Iterator<Item = AgentRecord> + '_ {
        let mut reader = codec::Reader::new(&self.agents);
        (0..self.len).map_while(move |_| reader.record())
    }

    /// The snapshot as bytes: `FLKS`, then the snapshot in postcard's format: its version,
    /// the tick count, the number of agents and the number of bytes they take (varints), then
    /// the agents (integers as varints, floats as their four bytes, little-endian), then the
    /// number of bytes the orders take, the orders, and their digest (a varint). About 45 to
    /// 100 bytes an agent (BENCHMARKS.md says what each holds).
    pub fn to_bytes(&self) -> Vec<u8> {
        let size = MAGIC.len() + 50 + self.agents.len() + self.routes.len();
        let mut bytes = Vec::with_capacity(size);
        bytes.extend_from_slice(&MAGIC);
        // What the derived `Serialize` writes, with the agents' bytes copied whole rather
        // than a byte at a time through serde (a third of the time at 100,000 agents).
        let header = (self.version, self.tick, self.len, self.agents.len());
        let mut bytes = postcard::to_extend(&header, bytes)
            .expect("a snapshot always serialises: a Vec grows as needed");
        bytes.extend_from_slice(&self.agents);
        let mut bytes =
            postcard::to_extend(&self.routes.len(), bytes).expect("a length always serialises");
        bytes.extend_from_slice(&self.routes);
        postcard::to_extend(&self.routes_digest, bytes).expect("a digest always serialises")
    }

    /// [`to_bytes`](Self::to_bytes), in the snapshot's own memory: the agents' bytes are moved
    /// along rather than copied into memory the process must first touch (at 100,000 agents,
    /// several milliseconds on a machine where fresh memory is slow). For a save written
    /// whole to a file.
    pub fn into_bytes(self) -> Vec<u8> {
        let header = (self.version, self.tick, self.len, self.agents.len());
        let head = postcard::to_extend(&header, MAGIC.to_vec())
            .expect("a snapshot always serialises: a Vec grows as needed");
        let mut bytes = self.agents;
        bytes.reserve_exact(head.len() + 20 + self.routes.len());
        bytes.splice(0..0, head);
        let mut bytes =
            postcard::to_extend(&self.routes.len(), bytes).expect("a length always serialises");
        bytes.extend_from_slice(&self.routes);
        postcard::to_extend(&self.routes_digest, bytes).expect("a digest always serialises")
    }

    /// Reads [`to_bytes`](Self::to_bytes)' output, checking every agent. Fails with
    /// [`SnapshotError::Version`] for a snapshot of another layout, and
    /// [`SnapshotError::Malformed`] for bytes that are not a whole snapshot.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let layout = Layout::of(bytes)?;
        let snapshot = layout.snapshot(bytes[layout.agents.clone()].to_vec(), bytes);
        snapshot.checked()
    }

    /// [`from_bytes`](Self::from_bytes), keeping `bytes`' memory for the agents rather than
    /// copying them out of it: for a save read whole from a file (`std::fs::read`).
    pub fn from_vec(mut bytes: Vec<u8>) -> Result<Self, SnapshotError> {
        let layout = Layout::of(&bytes)?;
        let mut snapshot = layout.snapshot(Vec::new(), &bytes);
        bytes.truncate(layout.agents.end);
        bytes.drain(..layout.agents.start);
        snapshot.agents = bytes;
        snapshot.checked()
    }

    /// The snapshot, [`check`](Self::check)ed.
    fn checked(mut self) -> Result<Self, SnapshotError> {
        self.check()?;
        self.checked = true;
        Ok(self)
    }

    /// Fails unless `version` is the one this build reads.
    fn check_version(version: u16) -> Result<(), SnapshotError> {
        if version == Self::FORMAT_VERSION {
            Ok(())
        } else {
            Err(SnapshotError::Version {
                found: version,
                supported: Self::FORMAT_VERSION,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::record::AgentState;
    use super::*;

    /// `to_bytes` (and `into_bytes`) writes what the derived `Serialize` writes, after `FLKS`,
    /// so a snapshot embedded in a game's own save through serde has the same layout; both
    /// readers read it back.
    #[test]
    fn the_bytes_are_the_derived_serialisation() {
        let mut agents = Vec::new();
        for id in [3, 200, 70_000] {
            let state = AgentState {
                transform: Transform::from_xyz(1.0, 2.0, id as f32),
                velocity: crate::Velocity(Vec3::X),
                state: crate::SteeringState::default(),
                floor: (id == 200).then_some(crate::OnFloor(-3)),
            };
            let target = TargetRecord::Entity(3);
            let record = AgentRecord::new(id, &state, target, flock_core::Space::Volume);
            agents = postcard::to_extend(&record, agents).expect("serialises");
        }
        let routes = postcard::to_allocvec(&routes::Routes::default()).expect("serialises");
        let snapshot = FlockSnapshot {
            version: FlockSnapshot::FORMAT_VERSION,
            tick: 12_345,
            len: 3,
            agents,
            routes: routes.clone(),
            routes_digest: digest(&routes),
            checked: true,
        };
        let derived = postcard::to_allocvec(&snapshot).expect("serialises");
        let bytes = snapshot.to_bytes();
        assert_eq!(bytes[..4], MAGIC);
        assert_eq!(bytes[4..], derived[..]);
        assert_eq!(FlockSnapshot::from_bytes(&bytes), Ok(snapshot.clone()));
        // The same bytes without a copy of the agents, both ways.
        assert_eq!(snapshot.clone().into_bytes(), bytes);
        assert_eq!(FlockSnapshot::from_vec(bytes), Ok(snapshot));
    }
}
