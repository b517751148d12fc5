//! What an obstacle backend is: the trait, and the built-in shapes alone.

use bevy::ecs::system::{ReadOnlySystemParam, SystemParamItem};
use flock_core::ObstacleQuery;

/// Obstacles beyond the built-in [`Obstacle`](crate::Obstacle) shapes, read from the world each
/// tick: what a physics backend implements (`bevy_flock_rapier` casts against bevy_rapier3d
/// colliders). Agents avoid, and never enter, both the built-in shapes and the backend's.
///
/// Install one with [`ObstacleBackendAppExt::set_obstacle_backend`](super::ObstacleBackendAppExt::set_obstacle_backend); the last one set is used.
pub trait ObstacleBackend: Send + Sync + 'static {
    /// What the backend reads each tick (its physics world, its filter).
    type Param: ReadOnlySystemParam + 'static;

    /// Calls `f` with this tick's obstacles, or with `None` when the backend has none to offer
    /// (no physics world yet, say).
    fn with_obstacles<R>(
        param: &SystemParamItem<'_, '_, Self::Param>,
        f: impl FnOnce(Option<&dyn ObstacleQuery>) -> R,
    ) -> R;
}

/// The built-in [`Obstacle`](crate::Obstacle) shapes alone: the backend until another is set.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltInObstacles;

impl ObstacleBackend for BuiltInObstacles {
    type Param = ();

    fn with_obstacles<R>(
        _: &SystemParamItem<'_, '_, ()>,
        f: impl FnOnce(Option<&dyn ObstacleQuery>) -> R,
    ) -> R {
        f(None)
    }
}
