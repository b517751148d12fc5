//! [`FlockingPlugins`], the core [`FlockingPlugin`], the system sets and the settings.

use core::time::Duration;

use bevy::app::PluginGroupBuilder;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use flock_core::Space;

use crate::diagnostics::{self, FlockDiagnosticsPlugin, InputCorrected, ReportedInput};
use crate::simulation::FlockSimulation;
use crate::{
    Agent, BehaviourStatesPlugin, BuiltInObstaclesPlugin, DetailFocus, Flock, FlockMembers,
    FlowFieldsPlugin, FollowLeader, InFlock, Predator, SteeringState, Target, Velocity,
};
use crate::{
    BlendMode, Boundary, FlockTuning, FlockWeights, LevelOfDetail, ObstacleAvoidance, Perception,
    RuleStyle, SteeringLimits, VelocityObstacles,
};
use crate::{backend, extract, step};

/// Everything a flocking game needs, as one group: the core [`FlockingPlugin`], the built-in
/// obstacles ([`BuiltInObstaclesPlugin`]), behaviour states ([`BehaviourStatesPlugin`]), flow
/// fields ([`FlowFieldsPlugin`]) and the metrics and diagnostics
/// ([`FlockDiagnosticsPlugin`]). RTS movement is opt in: add
/// [`SquadsPlugin`](crate::SquadsPlugin) for destinations, formations and combatants, and
/// (with the `pathfinding` feature) `TerrainPlugin` for tile maps and A* paths. Any member can
/// be left out with [`PluginGroupBuilder::disable`].
///
/// The systems run in [`FixedUpdate`] unless set with [`in_schedule`](Self::in_schedule), in
/// the chained [`FlockingSystems`] sets.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::prelude::*;
///
/// App::new()
///     .add_plugins(MinimalPlugins)
///     .add_plugins(FlockingPlugins::default().planar());
/// ```
#[derive(Debug, Clone, Default)]
pub struct FlockingPlugins {
    core: FlockingPlugin,
}

impl FlockingPlugins {
    /// Runs the flocking systems in `schedule` instead of [`FixedUpdate`]. In a variable-rate
    /// schedule such as [`Update`], long frames are cut to
    /// [`FlockingConfig::max_timestep`].
    #[must_use]
    pub fn in_schedule(self, schedule: impl ScheduleLabel) -> Self {
        Self {
            core: self.core.in_schedule(schedule),
        }
    }

    /// Keeps agents on the XY plane (z = 0) and turns them about Z so that their local `+X`
    /// faces their velocity: the mode for 2D games.
    #[must_use]
    pub fn planar(self) -> Self {
        Self {
            core: self.core.planar(),
        }
    }
}

impl PluginGroup for FlockingPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(self.core)
            .add(BuiltInObstaclesPlugin)
            .add(BehaviourStatesPlugin)
            .add(FlowFieldsPlugin)
            .add(FlockDiagnosticsPlugin)
    }
}

/// The core of [`FlockingPlugins`]: registers the agent, flock and tuning components, creates
/// the [`DefaultFlock`], and runs the tick in the chained [`FlockingSystems`] sets of its
/// schedule: agents and flocks copied into the [`FlockSimulation`], the neighbour grid, the
/// steering forces, obstacle avoidance through the [`ObstacleBackend`](crate::ObstacleBackend),
/// integration, and the write-back of [`Transform`], [`Velocity`] and [`SteeringState`].
/// The other plugins of the group, and [`SquadsPlugin`](crate::SquadsPlugin), plug into it and
/// must be added after it.
#[derive(Debug, Clone)]
pub struct FlockingPlugin {
    schedule: InternedScheduleLabel,
    space: Space,
}

impl Default for FlockingPlugin {
    fn default() -> Self {
        Self {
            schedule: FixedUpdate.intern(),
            space: Space::Volume,
        }
    }
}

impl FlockingPlugin {
    /// Runs the flocking systems in `schedule` instead of [`FixedUpdate`].
    #[must_use]
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }

    /// Keeps agents on the XY plane: see [`FlockingPlugins::planar`].
    #[must_use]
    pub fn planar(mut self) -> Self {
        self.space = Space::Planar;
        self
    }
}

/// The plugin's stages, chained in this order in the plugin's schedule. Systems of your own can
/// go in the empty hook sets or between stages (`.after(A).before(B)`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlockingSystems {
    /// Hook, runs first: change tuning, targets or velocities here for this tick.
    First,
    /// Gets agents ready for this tick's copy: replaces a despawned [`DefaultFlock`], writes
    /// switched [`BehaviourStates`](crate::BehaviourStates) into the weights, and (with
    /// [`SquadsPlugin`](crate::SquadsPlugin)) gives squad members their formation places and
    /// moves every agent with a [`Destination`](crate::Destination) along its path (its
    /// [`Target`] is the next waypoint). Set targets of your own before this set ends.
    Prepare,
    /// Copies every flock's and agent's tuning and state into the [`FlockSimulation`] buffers,
    /// with leaders, predators, flow fields, standoffs and obstacles, and rebuilds the
    /// neighbour grid. Positions in the simulation are this tick's from here on, and the
    /// spatial queries answer.
    NeighbourLookup,
    /// Computes each agent's steering force from its rules (and, for a
    /// [`PotentialField`](crate::PotentialField) squad, its field). After it, read or add to
    /// the forces with [`FlockSimulation::force`] and [`FlockSimulation::add_force`].
    ForceAccumulation,
    /// Obstacle avoidance steers agents around [`Obstacle`](crate::Obstacle)s and physics
    /// colliders here, taking what it needs of each agent's max force before the flocking
    /// forces. Add forces of your own (wind, currents) here or after it: they are added to the
    /// total either way.
    Avoidance,
    /// Limits force and speed, moves the agents and writes [`Velocity`], [`Transform`] and
    /// [`SteeringState`] back (sending [`TargetReached`](crate::TargetReached) and
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
    /// Neighbour lookup: predators handed over as threats.
    CopyPredators,
    /// Neighbour lookup: flow fields sampled for their flocks' agents.
    CopyFlows,
    /// Neighbour lookup: combatants' standoffs worked out.
    CopyStandoffs,
    /// Neighbour lookup: the terrain's walls added to the obstacles.
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
        match app.world().get_resource::<FlockingConfig>() {
            Some(config) => config.schedule,
            None => panic!("bevy_flock: add FlockingPlugins (or FlockingPlugin) before {plugin}"),
        }
    }
}

/// Settings shared by every flock.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct FlockingConfig {
    /// Longest time one tick may advance; longer frames are cut to it (with one warning), so a
    /// stall does not fling agents across the world. Default 0.1 s.
    pub max_timestep: Duration,
    /// Whether the plugin turns agents to face their velocity.
    pub orient_to_velocity: bool,
    /// Agents per task of the parallel passes (gathering into cell order, forces, avoidance,
    /// integration, the copy back) on Bevy's compute task pool, or `None` (the default) to
    /// split each pass into a task per thread of the pool, of at least 128 agents (a crowd of
    /// up to 128 is one task, run on the calling thread, where spreading the work would cost
    /// more than it saves) and at most 1,024. `Some(usize::MAX)` runs every pass as one task.
    /// The result is the same for any value.
    ///
    /// The chunks run on Bevy's compute task pool, whose size `TaskPoolPlugin` sets: its
    /// default split leaves the compute pool a single thread on a 2-core machine, and two on
    /// four cores. Where the pool has fewer threads than the machine has cores, the main
    /// thread, which otherwise waits while the schedule's systems run on the pool, takes
    /// tasks too (with the plugin's default `multi_threaded` feature): Bevy's default pools
    /// on two cores then run a pass on both.
    pub parallel_chunk_size: Option<usize>,
    /// How agents look ahead for obstacles.
    pub avoidance: ObstacleAvoidance,
    /// Seed of the random noise ([`FlockWeights::noise`]) and wander: the same seed, spawn
    /// order and ticks give the same run. Default 0.
    pub seed: u64,
    /// Level of detail around the [`DetailFocus`] entity (the camera), or `None` (the
    /// default) to update every agent every tick.
    pub level_of_detail: Option<LevelOfDetail>,
    /// How long an agent with a target may go without coming its reach radius closer before
    /// it gets an [`AgentStuck`](crate::AgentStuck) event, or `None` to send none. Default 3 s.
    pub stuck_after: Option<Duration>,
    /// Read-only: 3D or the XY plane, chosen with [`FlockingPlugins::planar`].
    #[reflect(ignore)]
    pub(crate) space: Space,
    /// Read-only: the schedule the systems run in, chosen with
    /// [`FlockingPlugins::in_schedule`].
    #[reflect(ignore, default = "fixed_update")]
    pub(crate) schedule: InternedScheduleLabel,
}

/// [`FixedUpdate`], the schedule the systems run in unless set otherwise.
fn fixed_update() -> InternedScheduleLabel {
    FixedUpdate.intern()
}

impl FlockingConfig {
    /// Whether agents are kept on the XY plane.
    pub fn is_planar(&self) -> bool {
        self.space == Space::Planar
    }
}

impl Default for FlockingConfig {
    fn default() -> Self {
        Self {
            max_timestep: Duration::from_millis(100),
            orient_to_velocity: true,
            parallel_chunk_size: None,
            avoidance: ObstacleAvoidance::default(),
            seed: 0,
            level_of_detail: None,
            stuck_after: Some(Duration::from_secs(3)),
            space: Space::Volume,
            schedule: fixed_update(),
        }
    }
}

/// The flock of agents that have no [`InFlock`]. The plugin spawns it, named "Default flock";
/// tune it like any other [`Flock`]. If it is despawned (a level teardown that despawns every
/// entity, say), the plugin spawns a new one with the default tuning at the next tick and
/// logs a warning.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq, Deref)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct DefaultFlock(pub Entity);

/// Spawns a new default flock when the one [`DefaultFlock`] names is gone or no longer a
/// [`Flock`].
fn keep_default_flock(
    mut default_flock: ResMut<DefaultFlock>,
    flocks: Query<(), With<Flock>>,
    mut commands: Commands,
) {
    if flocks.contains(default_flock.0) {
        return;
    }
    let replacement = commands.spawn((Flock, Name::new("Default flock"))).id();
    warn!(
        "bevy_flock: the default flock {} is gone or no longer a `Flock`; agents without `InFlock` now belong to a new one, {replacement}, with the default tuning",
        default_flock.0
    );
    default_flock.0 = replacement;
}

impl Plugin for FlockingPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<Agent>()
            .register_type::<Velocity>()
            .register_type::<Target>()
            .register_type::<SteeringState>()
            .register_type::<Flock>()
            .register_type::<InFlock>()
            .register_type::<FlockMembers>()
            .register_type::<Predator>()
            .register_type::<FollowLeader>()
            .register_type::<DetailFocus>()
            .register_type::<LevelOfDetail>()
            .register_type::<BlendMode>()
            .register_type::<RuleStyle>()
            .register_type::<VelocityObstacles>()
            .register_type::<FlockWeights>()
            .register_type::<SteeringLimits>()
            .register_type::<Perception>()
            .register_type::<Boundary>()
            .register_type::<ObstacleAvoidance>()
            .register_type::<FlockTuning>()
            .register_type::<FlockingConfig>()
            .register_type::<DefaultFlock>();

        app.insert_resource(FlockingConfig {
            space: self.space,
            schedule: self.schedule,
            ..default()
        })
        .insert_resource(FlockSimulation::new(self.space))
        .init_resource::<ReportedInput>()
        .add_message::<InputCorrected>();

        let default_flock = app
            .world_mut()
            .spawn((Flock, Name::new("Default flock")))
            .id();
        app.insert_resource(DefaultFlock(default_flock));

        self.add_stages(app);
        backend::install_built_in(app, self.schedule);
    }
}

impl FlockingPlugin {
    /// Chains the stages and their steps, and adds the core's systems to them.
    fn add_stages(&self, app: &mut App) {
        use FlockingSystems::*;
        app.configure_sets(
            self.schedule,
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
            self.schedule,
            (
                (Step::Flocks, Step::Formations, Step::Paths)
                    .chain()
                    .in_set(Prepare),
                (
                    Step::CopyAgents,
                    Step::CopyLeaders,
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
        )
        .add_systems(
            self.schedule,
            (
                keep_default_flock.in_set(Step::Flocks),
                (extract::extract_flocks, extract::extract_agents)
                    .chain()
                    .in_set(Step::CopyAgents),
                extract::extract_leaders.in_set(Step::CopyLeaders),
                extract::extract_predators.in_set(Step::CopyPredators),
                step::apply_obstacles.in_set(Step::ApplyObstacles),
                step::accumulate_forces.in_set(Step::Forces),
                diagnostics::forget_despawned.in_set(Last),
            ),
        );
    }
}
