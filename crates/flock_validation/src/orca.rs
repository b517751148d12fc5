//! ORCA (van den Berg, Guy, Lin and Manocha 2011) as the `dodgy_2d` crate ports the RVO2
//! library, driven directly, as crowd libraries built on RVO2 drive it: each person aims at
//! its target at its free speed (slowing within the recipe's arrival radius), and ORCA picks
//! the velocity nearest that aim that keeps clear of its ten nearest neighbours within the
//! recipe's neighbour radius and of the walls, reached at once.

use std::borrow::Cow;

use dodgy_2d::{Agent, AvoidanceOptions, Obstacle, Vec2};
use flock_core::glam::Vec3;
use flock_core::{AgentInput, Crowd, FlockTuning, Shape, Space, VelocityObstacles};

/// Seconds ahead that a person keeps clear of its neighbours, and of the walls.
const TIME_HORIZON: f32 = 2.0;
/// The neighbours each person avoids: as many as the kernel's velocity obstacles take.
const NEIGHBOURS: usize = flock_core::MOST_AGENTS_AVOIDED;

/// People moved by ORCA, with the pedestrian recipe's body, free speed, reach and neighbour
/// radius (see [`FlockTuning::pedestrian`]).
pub struct Orca {
    positions: Vec<Vec3>,
    velocities: Vec<Vec3>,
    targets: Vec<Vec3>,
    walls: Vec<Obstacle>,
    recipe: FlockTuning,
    /// The kernel's neighbour index, on everyone's positions, to find each one's nearest.
    index: Crowd,
}

impl Orca {
    /// No one yet, among `walls` (boxes; other shapes are not walls here).
    pub fn new(walls: &[Shape]) -> Self {
        Self {
            positions: Vec::new(),
            velocities: Vec::new(),
            targets: Vec::new(),
            walls: walls.iter().filter_map(obstacle).collect(),
            recipe: FlockTuning::pedestrian(),
            index: Crowd::new(Space::Planar),
        }
    }

    /// Adds a person standing at `position`, walking to `target`; its index.
    pub fn push(&mut self, position: Vec3, target: Vec3) -> usize {
        self.positions.push(position);
        self.velocities.push(Vec3::ZERO);
        self.targets.push(target);
        self.positions.len() - 1
    }

    /// Sends person `i` to `target`.
    pub fn retarget(&mut self, i: usize, target: Vec3) {
        self.targets[i] = target;
    }

    /// How many people there are.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there is no one.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Where person `i` is.
    pub fn position(&self, i: usize) -> Vec3 {
        self.positions[i]
    }

    /// Person `i`'s velocity.
    pub fn velocity(&self, i: usize) -> Vec3 {
        self.velocities[i]
    }

    /// Whether person `i` is within the recipe's reach radius of its target.
    pub fn has_reached_target(&self, i: usize) -> bool {
        self.positions[i].distance(self.targets[i]) <= self.recipe.limits.reach_radius
    }

    /// Everyone's velocity chosen from where all are now, then everyone moved by `dt`.
    pub fn step(&mut self, dt: f32) {
        self.index.clear();
        let params = self.index.add_params(FlockTuning {
            perception: flock_core::Perception {
                velocity_obstacles: VelocityObstacles::Off,
                ..self.recipe.perception
            },
            ..self.recipe
        });
        for &position in &self.positions {
            self.index.push(AgentInput {
                position,
                velocity: Vec3::ZERO,
                heading: Vec3::X,
                flock: 0,
                params,
                target: None,
            });
        }
        self.index.build_index();
        let velocities: Vec<Vec3> = (0..self.len()).map(|i| self.choose(i, dt)).collect();
        for (i, velocity) in velocities.into_iter().enumerate() {
            self.positions[i] += velocity * dt;
            self.velocities[i] = velocity;
        }
    }

    /// Person `i`'s velocity for a tick of `dt`.
    fn choose(&self, i: usize, dt: f32) -> Vec3 {
        let flat = |v: Vec3| Vec2::new(v.x, v.y);
        let radius = 0.5 * self.recipe.perception.collision_distance;
        let agent = |k: usize| Agent {
            position: flat(self.positions[k]),
            velocity: flat(self.velocities[k]),
            radius,
            avoidance_responsibility: 1.0,
        };
        let reach = self.recipe.perception.neighbour_radius;
        let near = self
            .index
            .k_nearest(self.positions[i], NEIGHBOURS + 1, |j| j != i);
        let neighbours: Vec<Cow<Agent>> = (near.iter())
            .filter(|&&(_, distance)| distance <= reach)
            .take(NEIGHBOURS)
            .map(|&(j, _)| Cow::Owned(agent(j)))
            .collect();
        let walls: Vec<Cow<Obstacle>> = self.walls.iter().map(Cow::Borrowed).collect();
        let limits = &self.recipe.limits;
        let to = self.targets[i] - self.positions[i];
        let slowing = (to.length() / limits.arrival_radius.max(f32::MIN_POSITIVE)).min(1.0);
        let preferred = to.normalize_or_zero() * limits.max_speed * slowing;
        let options = AvoidanceOptions {
            obstacle_margin: radius,
            time_horizon: TIME_HORIZON,
            obstacle_time_horizon: TIME_HORIZON,
        };
        let chosen = agent(i).compute_avoiding_velocity(
            &neighbours,
            &walls,
            flat(preferred),
            limits.max_speed,
            dt,
            &options,
        );
        Vec3::new(chosen.x, chosen.y, 0.0)
    }
}

/// A box as an ORCA obstacle: its corners on the plane, counter-clockwise.
fn obstacle(shape: &Shape) -> Option<Obstacle> {
    let Shape::Box {
        centre,
        half_extents: h,
        rotation,
    } = *shape
    else {
        return None;
    };
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .map(|(x, y)| centre + rotation * Vec3::new(x * h.x, y * h.y, 0.0))
        .map(|c| Vec2::new(c.x, c.y));
    Some(Obstacle::Closed {
        vertices: corners.to_vec(),
    })
}
