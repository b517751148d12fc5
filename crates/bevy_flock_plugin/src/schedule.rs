//! The plugin's schedule: the public [`FlockingSystems`] stages, the private steps inside
//! them, and where the group's plugins find the schedule. Every system module orders itself by
//! these; this module names no system.

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;

use crate::config::FlockingSetup;

/// The plugin's stages, chained in this order in the plugin's schedule. Systems of your own can
/// go in the empty hook sets or between stages (`.after(A).before(B)`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlockingSystems {
    /// Hook, runs first: change tuning, targets or velocities here for this tick.
    First,
    /// Gets agents ready for this tick's copy: replaces a despawned [`DefaultFlock`](crate::DefaultFlock), writes
    /// switched [`BehaviourStates`](crate::BehaviourStates) into the weights, and (with
    /// [`SquadsPlugin`](crate::SquadsPlugin)) gives squad members their formation places and
    /// moves every agent with a [`Destination`](crate::Destination) along its path (its
    /// [`Target`](crate::Target) is the next waypoint). Set targets of your own before this set ends.
    Prepare,
    /// Copies every flock's and agent's tuning and state into the [`FlockSimulation`](crate::FlockSimulation) buffers,
    /// with leaders, predators, flow fields, standoffs and obstacles, and rebuilds the
    /// neighbour grid. Positions in the simulation are this tick's from here on, and the
    /// spatial queries answer.
    NeighbourLookup,
    /// Computes each agent's steering force from its rules (and, for a
    /// [`PotentialField`](crate::PotentialField) squad, its field). After it, read or add to
    /// the forces with [`FlockSimulation::force`](crate::FlockSimulation::force) and [`FlockSimulation::add_force`](crate::FlockSimulation::add_force).
    ForceAccumulation,
    /// Obstacle avoidance steers agents around [`Obstacle`](crate::Obstacle)s and physics
    /// colliders here, taking what it needs of each agent's max force before the flocking
    /// forces. Add forces of your own (wind, currents) here or after it: they are added to the
    /// total either way.
    Avoidance,
    /// Limits force and speed, moves the agents and writes [`Velocity`](crate::Velocity), [`Transform`] and
    /// [`SteeringState`](crate::SteeringState) back (sending [`TargetReached`](crate::TargetReached) and
    /// [`AgentStuck`](crate::AgentStuck)), then updates
    /// [`FlockMetrics`](crate::FlockMetrics) and the diagnostics.
    Integration,
    /// Hook, runs last: read the moved agents and this tick's metrics. The plugin forgets here
    /// the reports of despawned entities.
    Last,
}

/// The steps inside the stages, chained, for the group's plugins to order their systems by:
/// each plugin's systems go in their own step, so that no two touch the simulation in an
/// order left to chance.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// Prepare: the default flock kept, behaviour states switched.
    Flocks,
    /// Prepare: squad members given their formation places.
    Formations,
    /// Prepare: agents with a destination moved along their paths.
    Paths,
    /// Neighbour lookup: the flocks' tunings and the agents pushed into the kernel, and the
    /// neighbour grid built.
    CopyAgents,
    /// Neighbour lookup: followers given their leaders.
    CopyLeaders,
    /// Neighbour lookup: agents' speed factors handed over.
    CopySpeeds,
    /// Neighbour lookup: predators handed over as threats.
    CopyPredators,
    /// Neighbour lookup: flow fields sampled for their flocks' agents.
    CopyFlows,
    /// Neighbour lookup: combatants' standoffs worked out.
    CopyStandoffs,
    /// Neighbour lookup: the terrain's walls (and a navmesh's) added to the obstacles.
    CopyTerrain,
    /// Neighbour lookup: the built-in obstacles added.
    CopyObstacles,
    /// Neighbour lookup: the obstacles gathered handed to the kernel.
    ApplyObstacles,
    /// Force accumulation: the force pass.
    Forces,
    /// Force accumulation: forces that replace the rules' (potential fields).
    ReplaceForces,
    /// Integration: the kernel's, through the obstacle backend, and the moved agents written
    /// back to their components.
    Integrate,
    /// Integration: the metrics published.
    Metrics,
}

/// The schedule the flocking systems run in, for the group's other plugins.
pub(crate) struct FlockingSchedule;

impl FlockingSchedule {
    /// The schedule `app`'s [`FlockingPlugin`] runs in.
    ///
    /// # Panics
    ///
    /// Without [`FlockingPlugin`]: `plugin` has nothing to plug into.
    pub(crate) fn of(app: &App, plugin: &str) -> InternedScheduleLabel {
        match app.world().get_resource::<FlockingSetup>() {
            Some(setup) => setup.schedule(),
            None => panic!("bevy_flock: add FlockingPlugins (or FlockingPlugin) before {plugin}"),
        }
    }
}

/// Chains the stages, and the steps inside them, in `schedule`.
pub(crate) fn chain_stages(app: &mut App, schedule: InternedScheduleLabel) {
    use FlockingSystems::*;
    app.configure_sets(
        schedule,
        (
            First,
            Prepare,
            NeighbourLookup,
            ForceAccumulation,
            Avoidance,
            Integration,
            Last,
        )
            .chain(),
    )
    .configure_sets(
        schedule,
        (
            (Step::Flocks, Step::Formations, Step::Paths)
                .chain()
                .in_set(Prepare),
            (
                Step::CopyAgents,
                Step::CopyLeaders,
                Step::CopySpeeds,
                Step::CopyPredators,
                Step::CopyFlows,
                Step::CopyStandoffs,
                Step::CopyTerrain,
                Step::CopyObstacles,
                Step::ApplyObstacles,
            )
                .chain()
                .in_set(NeighbourLookup),
            (Step::Forces, Step::ReplaceForces)
                .chain()
                .in_set(ForceAccumulation),
            (Step::Integrate, Step::Metrics).chain().in_set(Integration),
        ),
    );
}
