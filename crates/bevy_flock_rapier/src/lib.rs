//! The bevy_rapier3d backend of `bevy_flock`: agents steer around, and never enter, rapier
//! colliders.
//!
//! Add [`FlockRapierPlugin`] after `FlockingPlugins` and rapier's physics plugin, and mark the
//! colliders agents should avoid with `Obstacle::Collider` (or choose them by collision groups
//! with [`ObstacleColliders::Groups`]). Each tick every agent casts a ball of
//! [`FlockingConfig::avoidance`](bevy_flock_plugin::FlockingConfig)'s cast radius ahead through
//! rapier's query pipeline, exactly as it does against the built-in shapes (which still work
//! alongside), and integration stops each move at the first collider surface it crosses.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_flock_plugin::prelude::*;
//! use bevy_flock_rapier::FlockRapierPlugin;
//! use bevy_rapier3d::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((
//!     MinimalPlugins,
//!     TransformPlugin,
//!     RapierPhysicsPlugin::<NoUserData>::default(),
//!     FlockingPlugins::default(),
//!     FlockRapierPlugin::default(),
//! ));
//! // A static pillar: a collider without a rigid body.
//! app.world_mut().spawn((
//!     Collider::capsule_y(10.0, 1.5),
//!     Obstacle::Collider,
//!     Transform::from_xyz(0.0, 0.0, -20.0),
//! ));
//! app.update();
//! ```
//!
//! Rapier's broad phase answers every cast, so an agent far from every collider costs one
//! tree query that finds nothing. The physics plugin updates that tree in its own schedule
//! (`PostUpdate` by default), so colliders spawned this frame are seen from the next.

use bevy::ecs::system::SystemParamItem;
use bevy::prelude::*;
use bevy_flock_plugin::{Obstacle, ObstacleBackend, ObstacleBackendAppExt};
use bevy_rapier3d::parry::shape::Ball;
use bevy_rapier3d::prelude::{
    CollisionGroups, QueryFilter, RapierContext, RapierQueryPipeline, ReadRapierContext,
    ShapeCastHit, ShapeCastOptions, ShapeCastStatus,
};
use bevy_rapier3d::rapier::geometry::Collider as RapierCollider;
use flock_core::{CastHit, LEAVING_CONTACT, ObstacleQuery};

/// Makes rapier colliders obstacles for every flock (see the [crate docs](crate)).
///
/// # Panics
///
/// When added before `FlockingPlugins`.
#[derive(Debug, Clone, Default)]
pub struct FlockRapierPlugin {
    /// Which colliders agents avoid; a resource from then on, which systems may change.
    pub colliders: ObstacleColliders,
}

impl Plugin for FlockRapierPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<ObstacleColliders>()
            .insert_resource(self.colliders)
            .set_obstacle_backend::<RapierObstacles>()
            .add_systems(PostUpdate, warn_without_physics_world);
    }
}

/// Which rapier colliders agents avoid. Sensors never count.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Resource, Debug, Clone, PartialEq, Default)]
pub enum ObstacleColliders {
    /// Colliders on entities that also have [`Obstacle::Collider`].
    #[default]
    Marked,
    /// Every collider these groups, as the agents' own, interact with: rapier checks the
    /// groups' memberships against each collider's filter and the other way round.
    Groups(#[reflect(ignore)] CollisionGroups),
}

/// The [`ObstacleBackend`] that casts through rapier's query pipeline, installed by
/// [`FlockRapierPlugin`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RapierObstacles;

impl ObstacleBackend for RapierObstacles {
    type Param = (
        ReadRapierContext<'static, 'static>,
        Res<'static, ObstacleColliders>,
        Query<'static, 'static, &'static Obstacle>,
    );

    fn with_obstacles<R>(
        (context, colliders, obstacles): &SystemParamItem<'_, '_, Self::Param>,
        f: impl FnOnce(Option<&dyn ObstacleQuery>) -> R,
    ) -> R {
        let Ok(context) = context.single() else {
            return f(None);
        };
        let any = match **colliders {
            ObstacleColliders::Marked => obstacles.iter().any(|o| *o == Obstacle::Collider),
            ObstacleColliders::Groups(_) => !context.colliders.colliders.is_empty(),
        };
        let query = ColliderObstacles {
            context,
            colliders: **colliders,
            obstacles,
            any,
        };
        f(Some(&query))
    }
}

/// This tick's rapier colliders as obstacles.
struct ColliderObstacles<'a, 'w, 's> {
    context: RapierContext<'a>,
    colliders: ObstacleColliders,
    obstacles: &'a Query<'w, 's, &'static Obstacle>,
    any: bool,
}

/// Agents are kept this far outside every collider.
const SKIN: f32 = 1e-3;

impl ColliderObstacles<'_, '_, '_> {
    /// Runs `query` on rapier's query pipeline, seeing only the obstacle colliders (and, with
    /// `only`, only that collider's entity).
    fn pipeline<T>(&self, only: Option<Entity>, query: impl FnOnce(RapierQueryPipeline) -> T) -> T {
        let marked = |entity: Entity, _: &RapierCollider| {
            only.is_none_or(|only| only == entity)
                && (matches!(self.colliders, ObstacleColliders::Groups(_))
                    || self.obstacles.get(entity) == Ok(&Obstacle::Collider))
        };
        let mut filter = QueryFilter::new().exclude_sensors().predicate(&marked);
        if let ObstacleColliders::Groups(groups) = self.colliders {
            filter = filter.groups(groups);
        }
        self.context.with_query_pipeline(filter, query)
    }
}

impl ColliderObstacles<'_, '_, '_> {
    /// Casts a ball through the query pipeline; with `stop_at_penetration` false, a ball that
    /// starts overlapping a collider and moves out of it looks on past it.
    fn cast_ball(
        &self,
        origin: Vec3,
        dir: Vec3,
        length: f32,
        radius: f32,
        stop_at_penetration: bool,
    ) -> Option<(Entity, ShapeCastHit)> {
        let options = ShapeCastOptions {
            max_time_of_impact: length,
            target_distance: 0.0,
            stop_at_penetration,
            compute_impact_geometry_on_penetration: true,
        };
        let ball = Ball::new(radius);
        self.pipeline(None, |pipeline| {
            pipeline.cast_shape(origin, Quat::IDENTITY, dir, &ball, options)
        })
    }

    /// The direction from `entity`'s collider surface out to `point`: from its nearest
    /// surface point, reversed when the point is inside.
    fn outward_normal(&self, point: Vec3, entity: Entity) -> Option<Vec3> {
        let (_, projection) = self.pipeline(Some(entity), |pipeline| {
            pipeline.project_point(point, f32::MAX, false)
        })?;
        let out = point - projection.point;
        Some(if projection.is_inside { -out } else { out })
    }
}

impl ObstacleQuery for ColliderObstacles<'_, '_, '_> {
    fn is_empty(&self) -> bool {
        !self.any
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        if radius > 0.0 {
            let (entity, hit) = self.cast_ball(origin, dir, length, radius, true)?;
            // A ball that starts overlapping gets no reliable contact normal from the cast:
            // take the way out of the collider from its nearest surface point instead.
            let normal = match hit.status {
                ShapeCastStatus::PenetratingOrWithinTargetDist => {
                    self.outward_normal(origin, entity)
                }
                _ => hit.details.map(|details| details.normal1),
            };
            return Some(CastHit {
                distance: hit.time_of_impact,
                normal: normal.and_then(Vec3::try_normalize).unwrap_or(-dir),
            });
        }
        // No ball to cast: a ray.
        let (_, hit) = self.pipeline(None, |pipeline| {
            pipeline.cast_ray_and_get_normal(origin, dir, length, true)
        })?;
        Some(CastHit {
            distance: hit.time_of_impact,
            normal: hit.normal.try_normalize().unwrap_or(-dir),
        })
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        // No ball to cast: a ray, which starts in contact only on a surface.
        if radius.is_nan() || radius <= 0.0 {
            return self.cast(origin, dir, length, radius).is_none();
        }
        let Some((entity, hit)) = self.cast_ball(origin, dir, length, radius, true) else {
            return true;
        };
        if hit.status != ShapeCastStatus::PenetratingOrWithinTargetDist {
            return false;
        }
        // Starting in contact: clear if it leaves the surface steeply enough and meets
        // nothing further on.
        self.outward_normal(origin, entity)
            .and_then(Vec3::try_normalize)
            .is_some_and(|out| dir.dot(out) >= LEAVING_CONTACT)
            && self.cast_ball(origin, dir, length, radius, false).is_none()
    }

    fn constrain(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>) {
        // A NaN or non-positive radius moves a point.
        let radius = if radius > 0.0 { radius } else { 0.0 };
        let mut end = to;
        let mut stopped = None;
        let travel = to - from;
        let length = travel.length();
        if let Some(dir) = travel.try_normalize() {
            let hit = if radius > 0.0 {
                // A ball that starts overlapping stops at once; the push below frees it.
                self.cast(from, dir, length, radius)
            } else {
                self.pipeline(None, |pipeline| {
                    pipeline.cast_ray_and_get_normal(from, dir, length, true)
                })
                .map(|(_, hit)| CastHit {
                    distance: hit.time_of_impact,
                    normal: hit.normal.try_normalize().unwrap_or(-dir),
                })
            };
            if let Some(hit) = hit {
                // Stop at the contact, then the skin out along the normal: a grazing move
                // backed off along itself would end nearly on the surface.
                end = from + dir * hit.distance + hit.normal * SKIN;
                stopped = Some(hit.normal);
            }
        }
        // A body that overlaps a collider (spawned there, or the collider moved onto it): out
        // through the nearest point of that collider's surface, to its radius beyond it.
        let body = Ball::new(radius.max(SKIN));
        for _ in 0..4 {
            let overlapped = self.pipeline(None, |pipeline| {
                pipeline
                    .intersect_shape(end, Quat::IDENTITY, &body)
                    .next()
                    .map(|(entity, _)| entity)
            });
            let Some(entity) = overlapped else {
                break;
            };
            let surface = self.pipeline(Some(entity), |pipeline| {
                pipeline.project_point(end, f32::MAX, false)
            });
            let Some((_, projection)) = surface else {
                break;
            };
            let towards = projection.point - end;
            let out = if projection.is_inside {
                towards
            } else {
                -towards
            };
            let Some(out) = out.try_normalize() else {
                break;
            };
            end = projection.point + out * (radius + SKIN);
            stopped = Some(out);
        }
        (end, stopped)
    }
}

/// Warns once when no rapier physics world exists (or several do): agents then ignore every
/// collider.
fn warn_without_physics_world(context: ReadRapierContext, mut warned: Local<bool>) {
    if let Err(error) = context.single()
        && !*warned
    {
        warn!(
            "bevy_flock_rapier: no single rapier physics world ({error}); agents ignore colliders until there is one. Add RapierPhysicsPlugin."
        );
        *warned = true;
    }
}
