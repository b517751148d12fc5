//! Figures about the flock, published as a resource and as Bevy diagnostics, and the report of
//! corrected input.

use core::time::Duration;

use bevy::diagnostic::{DiagnosticPath, Diagnostics};
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use flock_core::Correction;

use crate::FlockSimulation;

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

pub(crate) const PATHS: [&DiagnosticPath; 5] = [
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

pub(crate) fn publish_metrics(
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

/// Reports corrections once per entity and field.
#[derive(SystemParam)]
pub(crate) struct Reporter<'w, 's> {
    seen: Local<'s, HashSet<(Entity, &'static str)>>,
    writer: MessageWriter<'w, InputCorrected>,
}

impl Reporter<'_, '_> {
    pub(crate) fn report(&mut self, entity: Entity, corrections: &[Correction]) {
        for &correction in corrections {
            if self.seen.insert((entity, correction.field)) {
                warn!("bevy_flock: entity {entity}: {correction}");
                self.writer.write(InputCorrected { entity, correction });
            }
        }
    }

    /// Reports a problem that is not about one value, once per `(entity, key)`.
    pub(crate) fn warn_once(&mut self, entity: Entity, key: &'static str, message: &str) {
        if self.seen.insert((entity, key)) {
            warn!("bevy_flock: entity {entity}: {message}");
        }
    }
}
