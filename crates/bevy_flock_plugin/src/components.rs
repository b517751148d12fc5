//! Components that make an entity an agent, a flock or an obstacle.

use bevy::prelude::*;

/// Marks an entity as a flocking agent. One insert makes a working agent: the required
/// components give it a [`Transform`], a [`Velocity`], no [`Target`] and its [`SteeringState`].
///
/// An agent belongs to the flock named by its [`InFlock`] component, or else to the
/// [`DefaultFlock`](crate::DefaultFlock). Its tuning is its flock's, unless the agent carries
/// its own [`FlockWeights`](crate::FlockWeights), [`SteeringLimits`](crate::SteeringLimits),
/// [`Perception`](crate::Perception) or [`Boundary`](crate::Boundary), which override the
/// flock's for this agent only.
///
/// The plugin reads and writes the agent's [`Transform`] (translation, and rotation so that
/// the agent faces its velocity), so agents should not be children of moving entities.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[require(Transform, Velocity, Target, SteeringState)]
#[reflect(Component, Default, Debug, Clone)]
pub struct Agent;

/// The game's own name for an agent, the same on every peer of a lockstep game and in a saved
/// game: any `u64`, a different one for each agent.
///
/// Where every agent carries one, the plugin takes the agents into the kernel in the order of
/// their ids, so the simulation (which agent's noise and wander draws are which, the order in
/// which sums over neighbours run) and its [`FlockSimulation::checksum`](crate::FlockSimulation::checksum)
/// depend on the ids and the agents' state alone: not on entity bits, nor on the order in which
/// Bevy stores the agents (an agent given a component of its own moves to another table, which a
/// query may visit first on one peer and last on another). Without ids, agents go in the order a
/// query visits them. An id that two agents share, or agents with and without ids mixed, is
/// reported once (in the log), and the agents then go in that order too.
///
/// A [`Flock`] may carry one too (a squad must, for a snapshot to name it), and so may any
/// entity an agent targets. Where order matters beyond the kernel (flocks numbered, squads and
/// units asking the path planner in turn, sums over combatants and squad mates), those with ids
/// go first, by id, then the rest in the order a query visits them.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[reflect(Component, Debug, Clone, PartialEq, Hash)]
pub struct AgentId(pub u64);

/// An agent's velocity in world units per second. Set it to launch an agent; the plugin writes
/// it back every tick.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct Velocity(pub Vec3);

impl Velocity {
    /// No motion.
    pub const ZERO: Self = Self(Vec3::ZERO);
}

impl From<Vec3> for Velocity {
    fn from(value: Vec3) -> Self {
        Self(value)
    }
}

/// What an agent seeks. Inside the arrival radius of
/// [`SteeringLimits`](crate::SteeringLimits) it slows down and settles.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub enum Target {
    /// Nothing: the agent only flocks.
    #[default]
    None,
    /// A fixed point in world space.
    Point(Vec3),
    /// Another entity's [`GlobalTransform`]. If that entity is despawned, the agent seeks
    /// nothing and one warning is logged.
    Entity(Entity),
    /// Another entity where it will be (Reynolds' pursuit): its [`GlobalTransform`] plus its
    /// [`Velocity`] (zero without one) times the time this agent needs to get there at its
    /// max speed, at most 3 s ahead. A despawned one is treated as for `Entity`.
    Pursue(Entity),
}

/// What the plugin remembers of an agent between ticks. Written by the plugin.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct SteeringState {
    /// Last direction of travel (unit length), or zero before the first tick: then the heading
    /// comes from the agent's rotation (forward `-Z` in 3D, `+X` on the plane).
    pub heading: Vec3,
    /// Last finite position, restored if the translation becomes NaN or infinite.
    pub last_valid_position: Vec3,
    /// The obstacle avoidance direction the agent keeps for now (unit length), or zero (see
    /// [`ObstacleAvoidance::hold_seconds`](crate::ObstacleAvoidance)).
    pub held_direction: Vec3,
    /// Seconds it keeps `held_direction` for.
    pub hold_left: f32,
    /// Where its wander point is (unit length), or zero before it first wandered (see
    /// [`FlockWeights::wander`](crate::FlockWeights)).
    pub wander: Vec3,
    /// The steering force it last computed, kept while
    /// [`FlockingConfig::level_of_detail`](crate::FlockingConfig) is on: far agents steer with
    /// it between updates.
    pub last_force: Option<Vec3>,
    /// Whether it is at its target: set when it comes within
    /// [`SteeringLimits::reach_radius`](crate::SteeringLimits) (with a [`TargetReached`]
    /// event), cleared when it is beyond its arrival radius (and twice the reach radius) again
    /// or has no target.
    pub at_target: bool,
    /// How its approach to its target goes, for [`AgentStuck`] (reset while it has no
    /// target or is at it).
    pub progress: flock_core::Progress,
}

impl SteeringState {
    /// The state after a tick that left the agent at `position` heading along `heading`, with
    /// the kernel's `memory` of it, at its target or not, and with its `progress` toward it.
    #[inline]
    pub(crate) fn new(
        heading: Vec3,
        position: Vec3,
        memory: flock_core::AgentMemory,
        at_target: bool,
        progress: flock_core::Progress,
    ) -> Self {
        Self {
            heading,
            last_valid_position: position,
            held_direction: memory.hold.map_or(Vec3::ZERO, |h| h.direction),
            hold_left: memory.hold.map_or(0.0, |h| h.seconds_left),
            wander: memory.wander,
            last_force: memory.last_force,
            at_target,
            progress,
        }
    }

    /// What the kernel carries of the agent to its next tick (empty when it carries nothing).
    #[inline]
    pub(crate) fn memory(&self) -> flock_core::AgentMemory {
        flock_core::AgentMemory {
            hold: (self.hold_left > 0.0).then_some(flock_core::AvoidanceHold {
                direction: self.held_direction,
                seconds_left: self.hold_left,
            }),
            wander: self.wander,
            last_force: self.last_force,
        }
    }
}

/// Makes an agent follow another entity (Reynolds' leader following, weighted by
/// [`FlockWeights::leader`](crate::FlockWeights)): it keeps station `distance` behind the
/// leader, matching its velocity, and steps out of the path ahead of it (a corridor half
/// `distance` wide either side). The leader can be any entity with a transform; with a
/// [`Velocity`] (an agent has one) its heading decides where "behind" is, else the follower
/// just keeps the distance.
///
/// When the leader is despawned, the follower gets a [`LeaderLost`] event and this component
/// is removed.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct FollowLeader {
    /// The entity to follow.
    pub leader: Entity,
    /// How far behind it to keep station.
    pub distance: f32,
}

impl FollowLeader {
    /// Follows `leader` at `distance` behind.
    pub fn new(leader: Entity, distance: f32) -> Self {
        Self { leader, distance }
    }
}

/// Triggered on an agent when it comes within its
/// [`SteeringLimits::reach_radius`](crate::SteeringLimits) of its [`Target`], once per arrival
/// (again only after it has been beyond its arrival radius and twice the reach radius, or
/// its target changed to none and back: overshooting and settling is one arrival). Observe it on the agent or globally, e.g. to give the agent its next waypoint or
/// switch its behaviour.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct TargetReached {
    /// The agent.
    pub entity: Entity,
    /// Where the target was.
    pub target: Vec3,
}

/// Triggered on an agent with a [`Target`] that has not come its
/// [`SteeringLimits::reach_radius`](crate::SteeringLimits) closer to it for
/// [`FlockingConfig::stuck_after`](crate::FlockingConfig) (nor reached it): blocked by a crowd
/// or a wall, pinned in a corner, or chasing a target that moves away as fast as it comes.
/// Once per stall: again only after it has come that much closer, or its `Target` changed (a
/// new goal starts the count over; one that follows an entity does not change as the entity
/// moves). Observe it to give the agent
/// another way or goal; a crowd with velocity obstacles breaks its own symmetric deadlocks, so
/// this marks the jams it cannot.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct AgentStuck {
    /// The agent.
    pub entity: Entity,
    /// Where its target is.
    pub target: Vec3,
    /// How far it is from the target.
    pub distance: f32,
}

/// Triggered on an agent whose [`FollowLeader`] leader no longer exists; the component is
/// removed, so this comes once.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderLost {
    /// The follower.
    pub entity: Entity,
    /// The leader it lost.
    pub leader: Entity,
}

/// Marks the entity (usually the camera) that level of detail keeps detail around: see
/// [`FlockingConfig::level_of_detail`](crate::FlockingConfig). With several, the first found
/// counts; with none, every agent updates every tick.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[require(Transform)]
#[reflect(Component, Default, Debug, Clone)]
pub struct DetailFocus;

/// Marks a flock: an entity whose tuning components are shared by all its members.
///
/// The required components are the flock's tuning; edit them (in code or an inspector) and
/// every member follows at once. Agents join with [`InFlock`]. Members align and cohere only
/// with their own flock; every agent separates from every other.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[require(
    crate::FlockWeights,
    crate::SteeringLimits,
    crate::Perception,
    crate::Boundary
)]
#[reflect(Component, Default, Debug, Clone)]
pub struct Flock;

/// Puts an agent in a flock (an entity with [`Flock`]). When the flock entity is despawned its
/// members lose this component and fall back to the [`DefaultFlock`](crate::DefaultFlock).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[relationship(relationship_target = FlockMembers)]
#[reflect(Component, Debug, Clone, PartialEq, FromWorld)]
pub struct InFlock(#[entities] pub Entity);

impl FromWorld for InFlock {
    fn from_world(_world: &mut World) -> Self {
        Self(Entity::PLACEHOLDER)
    }
}

/// The agents of a flock, kept by Bevy from their [`InFlock`] components. Read-only.
#[derive(Component, Reflect, Default, Debug, PartialEq, Eq)]
#[relationship_target(relationship = InFlock)]
#[reflect(Component, Default, Debug)]
pub struct FlockMembers(Vec<Entity>);

/// A solid shape agents steer around and never enter, placed (and scaled) by the entity's
/// [`GlobalTransform`]. Each tick, in [`FlockingSystems::Avoidance`](crate::FlockingSystems),
/// every agent casts a ball ahead against these (see
/// [`FlockingConfig::avoidance`](crate::FlockingConfig)); integration then stops any agent at
/// the surface rather than let it in. A degenerate shape (zero or negative size, NaN) is
/// ignored, with one warning.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub enum Obstacle {
    /// A sphere (a circle on the plane) of this radius around the origin.
    Sphere {
        /// Radius.
        radius: f32,
    },
    /// A box with these half extents, rotated with the entity.
    Box {
        /// Half the size along each local axis.
        half_extents: Vec3,
    },
    /// Everything behind the plane through the origin with this local normal is solid.
    HalfSpace {
        /// Points out of the solid side.
        normal: Dir3,
    },
    /// Every point within `radius` of the segment along the local Y axis from `-half_length`
    /// to `half_length` (Bevy's capsule shape; on the plane, a wall with rounded ends).
    Capsule {
        /// Half the length of the core segment.
        half_length: f32,
        /// Radius around the segment.
        radius: f32,
    },
    /// The entity's physics collider, whatever its shape: cast against by a physics backend
    /// (bevy_flock_rapier's `FlockRapierPlugin`), ignored with a warning without one.
    Collider,
}

/// A threat agents run from: every agent within `radius` of the entity's [`GlobalTransform`]
/// flees it, as strongly as its [`FlockWeights::flee`](crate::FlockWeights) says. If it has a
/// [`Velocity`] (an agent, say a shark among fish, always does), agents evade it: they run
/// from where it will be by the time they could reach it, at most 3 s ahead. A radius that is
/// not positive and finite is ignored, with one warning.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Predator {
    /// How near agents flee it.
    pub radius: f32,
}

/// The floor an agent, a [`Predator`] or an [`Obstacle`] is on, where the flock lives on
/// planes stacked over one another (a street and a bridge across it, the storeys of a
/// building; [`FlockingPlugins::planar`](crate::FlockingPlugins::planar)): an agent meets only
/// the agents, predators and obstacles of its own floor, and seeks its target on it. Without
/// one, an entity is on floor 0; in 3D it is ignored. Change it to move an agent to another
/// floor (at the top of a stair, say); on a navmesh of floors (`NavMesh::from_floors`), the
/// plugin sets it for an agent that walks across a join to another floor.
///
/// The floors' heights are the game's: on the plane the plugin writes each agent's z as 0, and
/// the game (or a navmesh's ground, `NavMesh::with_height` and `NavFloor::with_height`) lifts
/// it where it belongs.
/// The kernel stacks floors [`FLOOR_SPACING`](flock_core::FLOOR_SPACING) apart, so
/// [`FlockSimulation::position`](crate::FlockSimulation::position) reports an agent on floor
/// `k` at z `k * FLOOR_SPACING`, and its spatial queries search the floor of that z. A
/// physics backend's colliders (`Obstacle::Collider`) are cast against from floor 0 only.
#[derive(Component, Reflect, Default, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component, Default, Debug, Clone, PartialEq, Hash)]
pub struct OnFloor(pub i32);

/// The flock of agents that have no [`InFlock`]. The plugin spawns it, named "Default flock";
/// tune it like any other [`Flock`]. If it is despawned (a level teardown that despawns every
/// entity, say), the plugin spawns a new one with the default tuning at the next tick and
/// logs a warning.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq, Deref)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct DefaultFlock(pub Entity);
