//! Wander (Reynolds 1999): steering toward a point that drifts at random round a sphere ahead
//! of the agent; and angular noise (Vicsek et al. 1995): the velocity turned by a random angle
//! every tick. Both are drawn from the crowd's seed, the tick and the agent's index, so runs
//! repeat.

use glam::Vec3;

use super::response::respond;
use crate::agents::{Extras, SlotAgent};
use crate::maths::{NoiseDraw, rotated, rotation, unit};
use crate::space::Space;
use crate::tuning::FlockWeights;

/// How far ahead of an agent, in units of the wander sphere's radius, the sphere is: the
/// wander point turns the agent up to 30 degrees off its way.
const WANDER_DISTANCE: f32 = 2.0;
/// Mixed into the seed for the wander draws, so that they are not the noise's.
const WANDER_STREAM: u64 = 0x5741_4E44_4552_0001;

/// The force toward `agent`'s wander point: on a unit sphere [`WANDER_DISTANCE`] units ahead
/// of it, in the unit direction `point` from the sphere's centre.
#[inline]
pub(crate) fn wander(agent: &SlotAgent, point: Vec3, space: Space) -> Vec3 {
    let limits = agent.limits;
    let ahead = unit(space.flat(agent.velocity))
        .or_else(|| unit(agent.heading))
        .unwrap_or(Vec3::ZERO);
    match unit(space.flat(ahead * WANDER_DISTANCE + point)) {
        Some(dir) => respond(dir * limits.max_speed, agent.velocity, &limits),
        None => Vec3::ZERO,
    }
}

/// The crowd's random draws for one tick: its seed and the tick.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Draws {
    pub(crate) seed: u64,
    pub(crate) tick: u64,
}

impl Draws {
    /// Agent `i`'s wander direction, drawn at random (from the seed and its index) before it
    /// has one.
    #[inline]
    pub(crate) fn wander_point(self, extras: &Extras, space: Space, i: usize) -> Vec3 {
        match extras.wander(i) {
            wander if wander != Vec3::ZERO => wander,
            _ => {
                let mut draw = NoiseDraw::new(self.seed ^ WANDER_STREAM, u64::MAX, i);
                unit(space.flat(draw.in_cube())).unwrap_or(Vec3::X)
            }
        }
    }

    /// Moves every wandering agent's wander point one random step, of `rate * sqrt(dt)` at
    /// most along each axis, back onto the sphere. `params[k]` is agent `k`'s parameter set.
    pub(crate) fn drift_wander_points(
        self,
        extras: &mut Extras,
        params: impl Fn(usize) -> FlockWeights,
        len: usize,
        space: Space,
        dt: f32,
    ) {
        if !extras.has_wanders() {
            return;
        }
        for i in 0..len {
            let w = params(i);
            if w.wander == 0.0 {
                continue;
            }
            let mut draw = NoiseDraw::new(self.seed ^ WANDER_STREAM, self.tick, i);
            let step = draw.in_cube() * w.wander_rate * dt.sqrt();
            let current = self.wander_point(extras, space, i);
            extras.wanders_mut(len)[i] = unit(space.flat(current + step)).unwrap_or(current);
        }
    }

    /// `v` turned by this tick's random angle for agent `i`, up to `noise / 2` either way (in
    /// 3D about a random axis across `v`).
    #[inline]
    pub(crate) fn with_noise(self, space: Space, i: usize, v: Vec3, noise: f32) -> Vec3 {
        let Some(dir) = unit(v) else {
            return v;
        };
        let mut draw = NoiseDraw::new(self.seed, self.tick, i);
        let angle = (draw.unit() - 0.5) * noise;
        let axis = match space {
            Space::Planar => Vec3::Z,
            Space::Volume => {
                let (a, b) = dir.any_orthonormal_pair();
                let around = draw.unit() * core::f32::consts::TAU;
                a * libm::cosf(around) + b * libm::sinf(around)
            }
        };
        space.flat(rotated(rotation(axis, angle), v))
    }
}
