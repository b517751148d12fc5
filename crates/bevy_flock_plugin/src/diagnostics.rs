//! Figures about the flock, published as a resource and as Bevy diagnostics, and the report of
//! corrected input.

use core::time::Duration;

use bevy::diagnostic::{Diagnostic, DiagnosticPath, Diagnostics, RegisterDiagnostic};
use bevy::ecs::entity::Entities;
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use flock_core::Correction;

use crate::FlockSimulation;
use crate::schedule::{FlockingSchedule, Step};

/// Publishes [`FlockMetrics`] and the Bevy diagnostics of this module after each tick's
/// integration (a member of [`FlockingPlugins`](crate::FlockingPlugins)).
pub struct FlockDiagnosticsPlugin;

impl Plugin for FlockDiagnosticsPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "FlockDiagnosticsPlugin");
        app.register_type::<FlockMetrics>()
            .init_resource::<FlockMetrics>()
            .add_systems(schedule, publish_metrics.in_set(Step::Metrics));
        for path in PATHS {
            app.register_diagnostic(Diagnostic::new(path.clone()));
        }
    }
}

/// Diagnostic: polarisation (order parameter), 0 for random headings, 1 for all alike.
pub const POLARISATION: DiagnosticPath = DiagnosticPath::const_new("bevy_flock/polarisation");
/// Diagnostic: mean number of neighbours per agent.
pub const MEAN_NEIGHBOURS: DiagnosticPath = DiagnosticPath::const_new("bevy_flock/mean_neighbours");
/// Diagnostic: mean distance from an agent to its nearest neighbour.
pub const NEAREST_NEIGHBOUR_DISTANCE: DiagnosticPath =
    DiagnosticPath::const_new("bevy_flock/nearest_neighbour_distance");
/// Diagnostic: number of agents simulated.
pub const AGENT_COUNT: DiagnosticPath = DiagnosticPath::const_new("bevy_flock/agents");
/// Diagnostic: wall time of one tick of the plugin's systems, in milliseconds.
pub const STEP_TIME: DiagnosticPath = DiagnosticPath::const_new("bevy_flock/step_time_ms");

const PATHS: [&DiagnosticPath; 5] = [
    &POLARISATION,
    &MEAN_NEIGHBOURS,
    &NEAREST_NEIGHBOUR_DISTANCE,
    &AGENT_COUNT,
    &STEP_TIME,
];

/// This tick's figures about all agents, updated at the end of
/// [`FlockingSystems::Integration`](crate::FlockingSystems::Integration).
#[derive(Resource, Reflect, Default, Clone, Copy, Debug, PartialEq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub struct FlockMetrics {
    /// Number of agents.
    pub agents: usize,
    /// Length of the sum of unit headings over the agent count: about `1 / sqrt(N)` for random
    /// headings, 1 when all agents head the same way.
    pub polarisation: f32,
    /// Mean number of agents within an agent's neighbour radius and field of view.
    pub mean_neighbours: f32,
    /// Mean distance to the nearest neighbour, over agents that have one.
    pub mean_nearest_distance: Option<f32>,
    /// Smallest nearest-neighbour distance.
    pub min_nearest_distance: Option<f32>,
    /// Agents that steered around an obstacle this tick.
    pub avoiding: usize,
    /// Wall time of this tick's flocking systems.
    pub step_time: Duration,
}

fn publish_metrics(
    sim: Res<FlockSimulation>,
    mut metrics: ResMut<FlockMetrics>,
    mut diagnostics: Diagnostics,
) {
    let m = sim.crowd().metrics();
    *metrics = FlockMetrics {
        agents: m.agents,
        polarisation: m.polarisation,
        mean_neighbours: m.mean_neighbours,
        mean_nearest_distance: m.mean_nearest_distance,
        min_nearest_distance: m.min_nearest_distance,
        avoiding: sim.avoiding,
        step_time: sim.step_time,
    };
    diagnostics.add_measurement(&POLARISATION, || f64::from(m.polarisation));
    diagnostics.add_measurement(&MEAN_NEIGHBOURS, || f64::from(m.mean_neighbours));
    if let Some(d) = m.mean_nearest_distance {
        diagnostics.add_measurement(&NEAREST_NEIGHBOUR_DISTANCE, || f64::from(d));
    }
    diagnostics.add_measurement(&AGENT_COUNT, || m.agents as f64);
    diagnostics.add_measurement(&STEP_TIME, || sim.step_time.as_secs_f64() * 1000.0);
}

/// Sent once for each value the plugin had to correct, naming the entity it belongs to (the
/// agent, or the flock whose tuning was wrong). The same is logged as a warning.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct InputCorrected {
    /// The agent or flock.
    pub entity: Entity,
    /// What was wrong and what was used instead.
    pub correction: Correction,
}

/// What has been reported about which entity (a field, or a kind of problem), so that each is
/// reported once. Entries of despawned entities are forgotten (by
/// [`FlockingSystems::Last`](crate::FlockingSystems::Last)), so a game that keeps spawning
/// agents with bad values does not grow it.
#[derive(Resource, Default, Debug)]
pub struct ReportedInput {
    seen: HashSet<(Entity, &'static str)>,
    /// The size after the last pruning: the next prune waits until the set has doubled.
    after_pruning: usize,
}

impl ReportedInput {
    /// Number of (entity, field) pairs reported and not yet forgotten.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Whether `field` (or the problem named `field`) of `entity` has been reported.
    pub fn contains(&self, entity: Entity, field: &'static str) -> bool {
        self.seen.contains(&(entity, field))
    }
}

/// Forgets the reports of despawned entities once the set has doubled since the last pruning:
/// the work is proportional to the reports made, and the set stays within twice the live ones.
pub(crate) fn forget_despawned(mut reported: ResMut<ReportedInput>, entities: &Entities) {
    const SMALLEST: usize = 64;
    if reported.seen.len() < (2 * reported.after_pruning).max(SMALLEST) {
        return;
    }
    reported
        .seen
        .retain(|&(entity, _)| entities.contains(entity));
    reported.after_pruning = reported.seen.len();
}

/// Reports corrections once per entity and field.
#[derive(SystemParam)]
pub(crate) struct Reporter<'w> {
    reported: ResMut<'w, ReportedInput>,
    writer: MessageWriter<'w, InputCorrected>,
}

impl Reporter<'_> {
    pub(crate) fn report(&mut self, entity: Entity, corrections: &[Correction]) {
        for &correction in corrections {
            if self.reported.seen.insert((entity, correction.field)) {
                warn!("bevy_flock: entity {entity}: {correction}");
                self.writer.write(InputCorrected { entity, correction });
            }
        }
    }

    /// Reports `correction` once per entity and field like [`report`](Self::report), logging
    /// `detail` (what was found, in full) instead of the correction's own text.
    pub(crate) fn report_in_detail(
        &mut self,
        entity: Entity,
        correction: Correction,
        detail: &str,
    ) {
        if self.reported.seen.insert((entity, correction.field)) {
            warn!("bevy_flock: entity {entity}: {detail}");
            self.writer.write(InputCorrected { entity, correction });
        }
    }

    /// Reports a problem that is not about one value, once per `(entity, key)`, in the log
    /// only.
    pub(crate) fn warn_once(&mut self, entity: Entity, key: &'static str, message: &str) {
        if self.reported.seen.insert((entity, key)) {
            warn!("bevy_flock: entity {entity}: {message}");
        }
    }
}
