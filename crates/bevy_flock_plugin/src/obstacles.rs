//! [`BuiltInObstaclesPlugin`]: the [`Obstacle`] shapes of the world handed to the kernel each
//! tick, for agents to steer around and never enter.

use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::{Correction, Shape, Space, Value};

use crate::backend::ObstacleBackends;
use crate::diagnostics::Reporter;
use crate::schedule::{FlockingSchedule, Step};
use crate::simulation::FlockSimulation;
use crate::{Obstacle, OnFloor};

/// Copies every [`Obstacle`] entity's shape, placed and scaled by its transform, into the
/// kernel's obstacles each tick (a member of [`FlockingPlugins`](crate::FlockingPlugins)). A
/// degenerate one (zero or negative size, a NaN transform) is reported once and left out;
/// `Obstacle::Collider`s are a physics backend's.
pub struct BuiltInObstaclesPlugin;

impl Plugin for BuiltInObstaclesPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "BuiltInObstaclesPlugin");
        app.register_type::<Obstacle>()
            .add_systems(schedule, extract_obstacles.in_set(Step::CopyObstacles));
    }
}

/// Adds the obstacles' shapes to this tick's; reports degenerate ones, and colliders while no
/// physics backend is installed, once.
fn extract_obstacles(
    mut sim: ResMut<FlockSimulation>,
    obstacles: Query<(Entity, &Obstacle, &GlobalTransform, Option<&OnFloor>)>,
    backends: Res<ObstacleBackends>,
    mut reporter: Reporter,
) {
    let started = Instant::now();
    let planar = sim.crowd().space() == Space::Planar;
    for (entity, obstacle, transform, floor) in &obstacles {
        // On the plane, an obstacle on a floor is lifted to the kernel's plane of that floor.
        let lift = (floor.filter(|f| planar && f.0 != 0)).map(|f| Space::floor_height(f.0));
        let shape = shape_of(obstacle, transform);
        let Some(shape) = shape.map(|s| lift.map_or(s, |z| s.translated(Vec3::Z * z))) else {
            if backends.is_built_in() {
                reporter.warn_once(
                    entity,
                    "collider obstacle",
                    "is an `Obstacle::Collider` but no physics backend is installed (bevy_flock_rapier's `FlockRapierPlugin`); agents ignore it",
                );
            }
            continue;
        };
        if shape.is_valid() {
            sim.shapes.push(shape);
        } else {
            reporter.report_in_detail(
                entity,
                Correction {
                    field: "obstacle",
                    found: Value::Vector(transform.scale()),
                    used: Value::None,
                    rule: "must have a positive, finite size and a finite transform (found: its scale); agents ignore it",
                },
                &format!(
                    "has a degenerate obstacle ({obstacle:?} at {}, scale {}); agents ignore it",
                    transform.translation(),
                    transform.scale()
                ),
            );
        }
    }
    sim.step_time += started.elapsed();
}

/// An obstacle in world space, placed and scaled by its transform (a sphere by its largest
/// scale, a capsule's radius by the largest across its axis); `None` for a collider, which is
/// the physics backend's.
fn shape_of(obstacle: &Obstacle, transform: &GlobalTransform) -> Option<Shape> {
    let (scale, rotation, centre) = transform.to_scale_rotation_translation();
    let scale = scale.abs();
    Some(match *obstacle {
        Obstacle::Sphere { radius } => Shape::Sphere {
            centre,
            radius: radius * scale.max_element(),
        },
        Obstacle::Box { half_extents } => Shape::Box {
            centre,
            half_extents: half_extents * scale,
            rotation,
        },
        Obstacle::HalfSpace { normal } => Shape::HalfSpace {
            point: centre,
            normal: flock_core::rotated(rotation, normal.as_vec3()),
        },
        Obstacle::Capsule {
            half_length,
            radius,
        } => {
            let half = flock_core::rotated(rotation, Vec3::Y) * (half_length * scale.y);
            Shape::Capsule {
                a: centre - half,
                b: centre + half,
                radius: radius * scale.x.max(scale.z),
            }
        }
        Obstacle::Collider => return None,
    })
}
