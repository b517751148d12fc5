//! [`FlockingPlugin`], its system sets and settings.

use core::time::Duration;

use bevy::diagnostic::{Diagnostic, RegisterDiagnostic};
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use flock_core::Space;

use crate::backend;
use crate::diagnostics::{self, FlockMetrics, InputCorrected};
use crate::simulation::{self, FlockSimulation};
use crate::*;

/// Adds flocking: registers the components, creates the [`DefaultFlock`], and runs the
/// [`FlockingSystems`] in its schedule ([`FixedUpdate`] unless set with
/// [`in_schedule`](Self::in_schedule)).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::prelude::*;
///
/// App::new()
///     .add_plugins(MinimalPlugins)
///     .add_plugins(FlockingPlugin::default().planar());
/// ```
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
    /// Runs the flocking systems in `schedule` instead of [`FixedUpdate`]. In a variable-rate
    /// schedule such as [`Update`], long frames are cut to
    /// [`FlockingConfig::max_timestep`].
    #[must_use]
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }

    /// Keeps agents on the XY plane (z = 0) and turns them about Z so that their local `+X`
    /// faces their velocity: the mode for 2D games.
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
    /// Applies switched [`BehaviourStates`], copies every agent's state and tuning into the
    /// [`FlockSimulation`] buffers (with leaders and flow fields) and rebuilds the neighbour
    /// grid. Positions in the simulation are this tick's from here on.
    NeighbourLookup,
    /// Computes each agent's flocking, target and wall forces. After it, read or add to the
    /// forces with [`FlockSimulation::force`] and [`FlockSimulation::add_force`].
    ForceAccumulation,
    /// Obstacle avoidance steers agents around [`Obstacle`]s here, taking what it needs of
    /// each agent's max force before the flocking forces. Add forces of your own (wind,
    /// currents) here or after it: they are added to the total either way.
    Avoidance,
    /// Limits force and speed, moves the agents and writes [`Velocity`], [`Transform`] and
    /// [`SteeringState`] back, then updates [`FlockMetrics`] and the diagnostics.
    Integration,
    /// Hook, runs last: read the moved agents and this tick's [`FlockMetrics`].
    Last,
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
    /// Agents per task of the parallel passes (gathering into cell order, forces,
    /// integration) on Bevy's compute task pool. Crowds no larger than one chunk run on the
    /// calling thread, where spreading the work would cost more than it saves. The result is
    /// the same for any value.
    ///
    /// The chunks run on Bevy's compute task pool, whose size `TaskPoolPlugin` sets: its
    /// default split leaves the compute pool a single thread on a 2-core machine, where this
    /// pass then gains nothing; from 4 cores on it has several.
    pub parallel_chunk_size: usize,
    /// How agents look ahead for [`Obstacle`]s.
    pub avoidance: ObstacleAvoidance,
    /// Seed of the random noise ([`FlockWeights::noise`]) and wander: the same seed, spawn
    /// order and ticks give the same run. Default 0.
    pub seed: u64,
    /// Level of detail around the [`DetailFocus`] entity (the camera), or `None` (the
    /// default) to update every agent every tick.
    pub level_of_detail: Option<LevelOfDetail>,
    /// Read-only: 3D or the XY plane, chosen with [`FlockingPlugin::planar`].
    #[reflect(ignore)]
    pub(crate) space: Space,
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
            parallel_chunk_size: 1024,
            avoidance: ObstacleAvoidance::default(),
            seed: 0,
            level_of_detail: None,
            space: Space::Volume,
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
            .register_type::<Obstacle>()
            .register_type::<Predator>()
            .register_type::<FollowLeader>()
            .register_type::<FlowField>()
            .register_type::<DetailFocus>()
            .register_type::<LevelOfDetail>()
            .register_type::<BlendMode>()
            .register_type::<BehaviourStates>()
            .register_type::<Terrain>()
            .register_type::<Destination>()
            .register_type::<PlannedPath>()
            .register_type::<Formation>()
            .register_type::<Combatant>()
            .register_type::<PotentialField>()
            .register_type::<FlockWeights>()
            .register_type::<SteeringLimits>()
            .register_type::<Perception>()
            .register_type::<Boundary>()
            .register_type::<ObstacleAvoidance>()
            .register_type::<FlockTuning>()
            .register_type::<FlockingConfig>()
            .register_type::<DefaultFlock>()
            .register_type::<FlockMetrics>();

        app.insert_resource(FlockingConfig {
            space: self.space,
            ..default()
        })
        .insert_resource(FlockSimulation::new(self.space))
        .init_resource::<FlockMetrics>()
        .init_resource::<ReportedInput>()
        .add_message::<InputCorrected>();

        let default_flock = app
            .world_mut()
            .spawn((Flock, Name::new("Default flock")))
            .id();
        app.insert_resource(DefaultFlock(default_flock));

        for path in diagnostics::PATHS {
            app.register_diagnostic(Diagnostic::new(path.clone()));
        }

        app.configure_sets(
            self.schedule,
            (
                FlockingSystems::First,
                FlockingSystems::NeighbourLookup,
                FlockingSystems::ForceAccumulation,
                FlockingSystems::Avoidance,
                FlockingSystems::Integration,
                FlockingSystems::Last,
            )
                .chain(),
        )
        .add_systems(
            self.schedule,
            (
                (
                    keep_default_flock,
                    crate::states::apply_behaviour_states,
                    crate::squads::assign_formation_places,
                    crate::terrain::follow_paths,
                    simulation::extract_agents,
                    simulation::extract_obstacles,
                    simulation::extract_predators,
                    crate::squads::keep_standoff,
                )
                    .chain()
                    .in_set(FlockingSystems::NeighbourLookup),
                (
                    simulation::accumulate_forces,
                    crate::squads::steer_by_potential_field,
                )
                    .chain()
                    .in_set(FlockingSystems::ForceAccumulation),
                diagnostics::publish_metrics.in_set(FlockingSystems::Integration),
                diagnostics::forget_despawned.in_set(FlockingSystems::Last),
            ),
        );
        backend::install_built_in(app, self.schedule);
    }
}
