//! [`FlockingPlugins`] and the core [`FlockingPlugin`]: the plugins that put the other modules
//! together.

use bevy::app::PluginGroupBuilder;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use flock_core::{
    BlendMode, Boundary, FlockTuning, FlockWeights, LevelOfDetail, ObstacleAvoidance, Perception,
    RuleStyle, Space, SteeringLimits, VelocityObstacles,
};

use crate::components::{
    Agent, AgentId, DefaultFlock, DetailFocus, Flock, FlockMembers, FollowLeader, InFlock, OnFloor,
    Predator, SteeringState, Target, Velocity,
};
use crate::config::{FlockingConfig, FlockingSetup};
use crate::diagnostics::{self, FlockDiagnosticsPlugin, InputCorrected, ReportedInput};
use crate::flow::FlowFieldsPlugin;
use crate::obstacles::BuiltInObstaclesPlugin;
use crate::schedule::{FlockingSystems, Step, chain_stages};
use crate::simulation::FlockSimulation;
use crate::speeds::{self, SpeedFactor};
use crate::states::BehaviourStatesPlugin;
use crate::{backend, extract, roles, step};

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
    /// faces their velocity: the mode for 2D games. The only way to choose the space: the app's
    /// [`FlockingSetup`] reports it, and no change to [`FlockingConfig`] alters it.
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
            .register_type::<AgentId>()
            .register_type::<Velocity>()
            .register_type::<Target>()
            .register_type::<SteeringState>()
            .register_type::<Flock>()
            .register_type::<InFlock>()
            .register_type::<FlockMembers>()
            .register_type::<Predator>()
            .register_type::<OnFloor>()
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
            .register_type::<DefaultFlock>()
            .register_type::<SpeedFactor>();

        app.init_resource::<FlockingConfig>()
            .insert_resource(FlockingSetup::new(self.space, self.schedule))
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
        chain_stages(app, self.schedule);
        app.add_systems(
            self.schedule,
            (
                keep_default_flock.in_set(Step::Flocks),
                (extract::extract_flocks, extract::extract_agents)
                    .chain()
                    .in_set(Step::CopyAgents),
                roles::extract_leaders.in_set(Step::CopyLeaders),
                speeds::extract_speed_factors.in_set(Step::CopySpeeds),
                roles::extract_predators.in_set(Step::CopyPredators),
                step::apply_obstacles.in_set(Step::ApplyObstacles),
                step::accumulate_forces.in_set(Step::Forces),
                diagnostics::forget_despawned.in_set(Last),
            ),
        );
    }
}
