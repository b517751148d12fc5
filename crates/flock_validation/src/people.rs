//! Who walks a scene: the kernel's crowd with a tuning, or ORCA as the RVO2 library has it,
//! driven directly (the [`orca`](crate::orca) module), so that each scene measures both alike.

use flock_core::glam::Vec3;
use flock_core::{
    AgentInput, Boundary, Crowd, FlockTuning, NewAgent, ParamsId, ScopedThreads, Shape, Space,
};

use crate::orca::Orca;

/// How the people of a scene are moved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// The kernel, every person tuned so.
    Kernel(FlockTuning),
    /// ORCA (van den Berg et al. 2011) as the `dodgy_2d` crate ports the RVO2 library, driven
    /// directly with the pedestrian recipe's body, speed and neighbours (see [`Orca`]).
    Orca,
}

impl From<FlockTuning> for Model {
    fn from(tuning: FlockTuning) -> Self {
        Self::Kernel(tuning)
    }
}

impl From<&FlockTuning> for Model {
    fn from(tuning: &FlockTuning) -> Self {
        Self::Kernel(*tuning)
    }
}

impl Model {
    /// No one yet, among `walls`, on `threads` threads (the kernel's; ORCA runs on one).
    pub fn people(&self, walls: &[Shape], threads: usize) -> People {
        People(match *self {
            Self::Kernel(tuning) => {
                let mut crowd = Crowd::new(Space::Planar);
                crowd.set_executor(ScopedThreads(threads));
                let params = crowd.add_params(tuning);
                crowd.set_obstacles(walls.iter().copied());
                Walkers::Kernel(Box::new(crowd), params)
            }
            Self::Orca => Walkers::Orca(Box::new(Orca::new(walls))),
        })
    }

    /// The same, the kernel's people held within `boundary` besides.
    pub(crate) fn within(self, boundary: Boundary) -> Self {
        match self {
            Self::Kernel(tuning) => Self::Kernel(FlockTuning { boundary, ..tuning }),
            Self::Orca => Self::Orca,
        }
    }
}

/// The people of a scene, as one of the [`Model`]s moves them.
pub struct People(Walkers);

/// The people, by model.
enum Walkers {
    Kernel(Box<Crowd>, ParamsId),
    Orca(Box<Orca>),
}

impl People {
    /// Adds a person standing at `position`, facing `heading`, walking to `target`; its index.
    pub fn push(&mut self, position: Vec3, heading: Vec3, target: Vec3) -> usize {
        match &mut self.0 {
            Walkers::Kernel(crowd, params) => crowd.push(AgentInput {
                position,
                velocity: Vec3::ZERO,
                heading,
                flock: 0,
                params: *params,
                target: Some(target),
            }),
            Walkers::Orca(orca) => orca.push(position, target),
        }
    }

    /// Sends person `i` to `target`, keeping its state.
    pub fn retarget(&mut self, i: usize, target: Vec3) {
        match &mut self.0 {
            Walkers::Kernel(crowd, params) => {
                let input = AgentInput {
                    position: crowd.position(i),
                    velocity: crowd.velocity(i),
                    heading: crowd.heading(i),
                    flock: 0,
                    params: *params,
                    target: Some(target),
                };
                let memory = crowd.memory(i);
                let quarry_velocity = None;
                crowd.set_agent(
                    i,
                    NewAgent {
                        input,
                        memory,
                        quarry_velocity,
                        ..NewAgent::default()
                    },
                );
            }
            Walkers::Orca(orca) => orca.retarget(i, target),
        }
    }

    /// Moves everyone on by `dt` seconds.
    pub fn step(&mut self, dt: f32) {
        match &mut self.0 {
            Walkers::Kernel(crowd, _) => crowd.step(dt),
            Walkers::Orca(orca) => orca.step(dt),
        }
    }

    /// How many people there are.
    pub fn len(&self) -> usize {
        match &self.0 {
            Walkers::Kernel(crowd, _) => crowd.len(),
            Walkers::Orca(orca) => orca.len(),
        }
    }

    /// Whether there is no one.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where person `i` is.
    pub fn position(&self, i: usize) -> Vec3 {
        match &self.0 {
            Walkers::Kernel(crowd, _) => crowd.position(i),
            Walkers::Orca(orca) => orca.position(i),
        }
    }

    /// Person `i`'s velocity.
    pub fn velocity(&self, i: usize) -> Vec3 {
        match &self.0 {
            Walkers::Kernel(crowd, _) => crowd.velocity(i),
            Walkers::Orca(orca) => orca.velocity(i),
        }
    }

    /// Whether person `i` has reached its target (within the recipe's reach radius).
    pub fn has_reached_target(&self, i: usize) -> bool {
        match &self.0 {
            Walkers::Kernel(crowd, _) => crowd.has_reached_target(i),
            Walkers::Orca(orca) => orca.has_reached_target(i),
        }
    }
}
