//! The hook through which a physics backend adds its colliders to the obstacles agents avoid.

pub(crate) mod source;

use core::any::{TypeId, type_name};

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::platform::collections::HashSet;
use bevy::prelude::*;

use crate::schedule::{FlockingSystems, Step};
use crate::step;
pub use source::{BuiltInObstacles, ObstacleBackend};

/// Installs obstacle backends on an [`App`].
pub trait ObstacleBackendAppExt {
    /// Makes `B` the obstacle backend of the flocking systems. Call after adding
    /// [`FlockingPlugins`](crate::FlockingPlugins).
    ///
    /// # Panics
    ///
    /// Without [`FlockingPlugin`](crate::FlockingPlugin) (the core of
    /// [`FlockingPlugins`](crate::FlockingPlugins)): there is nothing to plug into.
    fn set_obstacle_backend<B: ObstacleBackend>(&mut self) -> &mut Self;
}

impl ObstacleBackendAppExt for App {
    fn set_obstacle_backend<B: ObstacleBackend>(&mut self) -> &mut Self {
        let Some(mut backends) = self.world_mut().get_resource_mut::<ObstacleBackends>() else {
            panic!(
                "bevy_flock: add FlockingPlugins before setting the obstacle backend {}",
                type_name::<B>()
            );
        };
        backends.active = TypeId::of::<B>();
        if backends.installed.insert(TypeId::of::<B>()) {
            let schedule = backends.schedule;
            add_backend_systems::<B>(self, schedule);
        }
        self
    }
}

/// Which obstacle backend the flocking systems use, and which have their systems installed.
#[derive(Resource, Debug)]
pub(crate) struct ObstacleBackends {
    schedule: InternedScheduleLabel,
    installed: HashSet<TypeId>,
    active: TypeId,
}

impl ObstacleBackends {
    /// Whether only the built-in shapes are in use.
    pub(crate) fn is_built_in(&self) -> bool {
        self.active == TypeId::of::<BuiltInObstacles>()
    }
}

/// Installs the built-in backend in `schedule`: called by the plugin.
pub(crate) fn install_built_in(app: &mut App, schedule: InternedScheduleLabel) {
    app.insert_resource(ObstacleBackends {
        schedule,
        installed: HashSet::from_iter([TypeId::of::<BuiltInObstacles>()]),
        active: TypeId::of::<BuiltInObstacles>(),
    });
    add_backend_systems::<BuiltInObstacles>(app, schedule);
}

fn add_backend_systems<B: ObstacleBackend>(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_systems(
        schedule,
        (
            step::avoid_obstacles::<B>
                .run_if(is_active::<B>)
                .in_set(FlockingSystems::Avoidance),
            step::integrate::<B>
                .run_if(is_active::<B>)
                .in_set(Step::Integrate),
        ),
    );
}

fn is_active<B: ObstacleBackend>(backends: Res<ObstacleBackends>) -> bool {
    backends.active == TypeId::of::<B>()
}
