//! A debug overlay: each agent's velocity and perception radii, drawn with gizmos.

use bevy::color::palettes::css;
use bevy::prelude::*;

use crate::simulation::on_ground;
use crate::{FlockSimulation, FlockingSetup};

/// Draws the [`FlockGizmos`] overlay every frame in [`PostUpdate`].
pub struct FlockGizmosPlugin;

impl Plugin for FlockGizmosPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<FlockGizmos>()
            .register_type::<PerceptionGizmos>()
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
    /// Whose neighbour radius (blue) and separation radius (red) to draw.
    pub perception: PerceptionGizmos,
}

/// Which agents' perception radii the overlay draws.
#[derive(Reflect, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Default, Debug, Clone, PartialEq)]
pub enum PerceptionGizmos {
    /// None.
    #[default]
    Off,
    /// One agent's: readable in any crowd.
    Agent(Entity),
    /// Every agent's: for small scenes.
    All,
}

fn draw_agents(
    overlay: Res<FlockGizmos>,
    sim: Res<FlockSimulation>,
    setup: Res<FlockingSetup>,
    mut gizmos: Gizmos,
) {
    let crowd = sim.crowd();
    if overlay.velocity {
        for i in 0..crowd.len() {
            let p = on_ground(crowd.position(i), setup.space());
            gizmos.line(p, p + crowd.velocity(i) * 0.5, css::YELLOW);
        }
    }
    let mut draw_perception = |i: usize| {
        let p = on_ground(crowd.position(i), setup.space());
        let perception = crowd.params_of(i).perception;
        let radii = [
            (perception.neighbour_radius, css::DEEP_SKY_BLUE),
            (perception.separation_radius, css::TOMATO),
        ];
        for (radius, colour) in radii {
            if setup.is_planar() {
                gizmos.circle(Isometry3d::from_translation(p), radius, colour);
            } else {
                gizmos.sphere(Isometry3d::from_translation(p), radius, colour);
            }
        }
    };
    match overlay.perception {
        PerceptionGizmos::Off => {}
        PerceptionGizmos::Agent(agent) => {
            if let Some(i) = sim.index_of(agent) {
                draw_perception(i);
            }
        }
        PerceptionGizmos::All => (0..crowd.len()).for_each(draw_perception),
    }
}
