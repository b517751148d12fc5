//! Behaviour states: named sets of weights an agent or flock switches between.

use bevy::prelude::*;

use crate::schedule::{FlockingSchedule, Step};
use crate::{Agent, FlockWeights};

/// Switches [`BehaviourStates`]: each switched state's weights are written into its entity's
/// [`FlockWeights`] in [`FlockingSystems::Prepare`](crate::FlockingSystems::Prepare), before
/// the tick's copy (a member of [`FlockingPlugins`](crate::FlockingPlugins)).
pub struct BehaviourStatesPlugin;

impl Plugin for BehaviourStatesPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "BehaviourStatesPlugin");
        app.register_type::<BehaviourStates>()
            .add_systems(schedule, apply_behaviour_states.in_set(Step::Flocks));
    }
}

/// Named behaviour sets (say idle, fleeing, regrouping) that an agent or a flock switches
/// between while it lives: the active state's weights become the entity's [`FlockWeights`]
/// from the tick it is switched (on a flock, for every member; on an agent, as its own
/// override). Switch from game code, an observer of [`TargetReached`](crate::TargetReached) or
/// [`LeaderLost`](crate::LeaderLost), or the inspector.
///
/// ```
/// use bevy_flock_plugin::{BehaviourStates, FlockWeights};
///
/// let idle = FlockWeights::default();
/// let fleeing = FlockWeights { flee: 3.0, cohesion: 0.0, ..idle };
/// let mut states = BehaviourStates::default()
///     .with_state("idle", idle)
///     .with_state("fleeing", fleeing);
/// assert_eq!(states.active(), Some("idle"));
/// assert!(states.switch_to("fleeing"));
/// assert_eq!(states.active_weights(), Some(fleeing));
/// assert!(!states.switch_to("sleeping"), "no such state: nothing changes");
/// assert_eq!(states.active(), Some("fleeing"));
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct BehaviourStates {
    states: Vec<(String, FlockWeights)>,
    active: usize,
}

impl BehaviourStates {
    /// These states and `name` with `weights` (replacing a state of that name). The first
    /// state added is active until switched.
    #[must_use]
    pub fn with_state(mut self, name: impl Into<String>, weights: FlockWeights) -> Self {
        let name = name.into();
        match self.states.iter_mut().find(|(n, _)| *n == name) {
            Some(state) => state.1 = weights,
            None => self.states.push((name, weights)),
        }
        self
    }

    /// Makes `name` the active state; returns whether there is one of that name (if not,
    /// nothing changes).
    pub fn switch_to(&mut self, name: &str) -> bool {
        match self.states.iter().position(|(n, _)| n == name) {
            Some(k) => {
                self.active = k;
                true
            }
            None => false,
        }
    }

    /// The active state's name, if there are states.
    pub fn active(&self) -> Option<&str> {
        self.states.get(self.active).map(|(n, _)| n.as_str())
    }

    /// The active state's weights, if there are states.
    pub fn active_weights(&self) -> Option<FlockWeights> {
        self.states.get(self.active).map(|(_, w)| *w)
    }

    /// The states' names, in the order added.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.states.iter().map(|(n, _)| n.as_str())
    }
}

/// An entity whose states were switched or added, with the weights it has.
type Switched = (
    Entity,
    &'static BehaviourStates,
    Option<&'static mut FlockWeights>,
    Has<Agent>,
);

/// Writes each switched (or newly added) state's weights to its entity: into the
/// [`FlockWeights`] it has, or as an agent's override.
fn apply_behaviour_states(
    mut switched: Query<Switched, Changed<BehaviourStates>>,
    mut commands: Commands,
) {
    for (entity, states, weights, is_agent) in &mut switched {
        let Some(active) = states.active_weights() else {
            continue;
        };
        match weights {
            Some(mut weights) => {
                weights.set_if_neq(active);
            }
            None if is_agent => {
                commands.entity(entity).insert(active);
            }
            None => {}
        }
    }
}
