//! A debug overlay: each agent's velocity and perception radii, drawn with gizmos.

use bevy::color::palettes::css;
use bevy::prelude::*;

use crate::{FlockSimulation, FlockingConfig};

/// Draws the [`FlockGizmos`] overlay every frame in [`PostUpdate`].
pub struct FlockGizmosPlugin;

impl Plugin for FlockGizmosPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<FlockGizmos>()
            .init_resource::<FlockGizmos>()
            .add_systems(PostUpdate, draw_agents);
    }
}

/// What the overlay shows. Everything is off by default.
#[derive(Resource, Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub struct FlockGizmos {
    /// A line along each agent's velocity, as far as it travels in half a second.
    pub velocity: bool,
    /// Each agent's neighbour radius (blue) and separation radius (red).
    pub perception: bool,
}

fn draw_agents(
    overlay: Res<FlockGizmos>,
    sim: Res<FlockSimulation>,
    config: Res<FlockingConfig>,
    mut gizmos: Gizmos,
) {
    if !overlay.velocity && !overlay.perception {
        return;
    }
    let crowd = sim.crowd();
    for i in 0..crowd.len() {
        let p = crowd.position(i);
        if overlay.velocity {
            gizmos.line(p, p + crowd.velocity(i) * 0.5, css::YELLOW);
        }
        if overlay.perception {
            let perception = crowd.params_of(i).perception;
            let radii = [
                (perception.neighbour_radius, css::DEEP_SKY_BLUE),
                (perception.separation_radius, css::TOMATO),
            ];
            for (radius, colour) in radii {
                if config.is_planar() {
                    gizmos.circle(Isometry3d::from_translation(p), radius, colour);
                } else {
                    gizmos.sphere(Isometry3d::from_translation(p), radius, colour);
                }
            }
        }
    }
}
