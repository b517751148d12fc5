//! A bottleneck of 0.9 to 2.5 m, as in Seyfried et al. (2009, "New insights into pedestrian
//! flow through bottlenecks", Transportation Science 43) and Liao et al. (2014, "Experimental
//! study on pedestrian flow through wide bottleneck", Transportation Research Procedia 2).

use flock_core::Shape;
use flock_core::glam::{Quat, Vec3};

use crate::people::Model;
use crate::{depth_in, v};

/// The widths measured, m.
pub const WIDTHS: [f32; 5] = [0.9, 1.2, 1.6, 2.0, 2.5];

/// The turns of the scene measured, degrees: as built, a degree off the axes, and diagonal.
pub const TURNS: [f32; 3] = [0.0, 1.0, 45.0];

/// The people sent through the door.
pub const PEOPLE: usize = 120;

/// What a bottleneck run measured.
pub struct Crossing {
    /// When each person through passed the wall, s, earliest first.
    pub times: Vec<f32>,
    /// The deepest any body went into the wall, as a share of its radius.
    pub deepest: f32,
}

impl Crossing {
    /// The flow, people a second, between the 10th and the 10th last through; `None` where
    /// fewer than 21 got through, or all of those at once.
    pub fn flow(&self) -> Option<f32> {
        let n = self.times.len();
        if n < 21 {
            return None;
        }
        let counted = (n - 20) as f32;
        Some(counted / (self.times[n - 11] - self.times[10])).filter(|flow| flow.is_finite())
    }
}

/// A door `width` m wide in a wall at x = 0, the scene turned `turned` degrees; [`PEOPLE`]
/// people moved as `model` says start packed at 2.5 per m² in a 5 m wide block before it, each
/// walking to the nearest point of the way through (a body's breadth from the posts) and then
/// to a point 20 m past the wall, at `ticks_per_second`, for up to five minutes.
pub fn crossing(
    model: impl Into<Model>,
    width: f32,
    ticks_per_second: f32,
    turned: f32,
) -> Crossing {
    let turn = Quat::from_rotation_z(turned.to_radians());
    let half = 0.5 * width;
    let wall = |from: f32, to: f32| Shape::Box {
        centre: turn * v(0.0, 0.5 * (from + to)),
        half_extents: Vec3::new(0.1, 0.5 * (to - from), 1.0),
        rotation: turn,
    };
    let walls = [wall(half, 30.0), wall(-30.0, -half)];
    let mut crowd = model.into().people(&walls, 1);
    let inner = (half - 0.4).max(0.0);
    // Eight rows 1 / sqrt(2.5) m apart: 5 m wide at 2.5 per m².
    let (rows, spacing) = (8, 1.0 / libm::sqrtf(2.5));
    let row_of = |k: usize| (k % rows) as f32 - 0.5 * (rows - 1) as f32;
    for k in 0..PEOPLE {
        let column = (k / rows) as f32;
        let start = v(-1.0 - column * spacing, row_of(k) * spacing);
        let aim = v(1.0, start.y.clamp(-inner, inner));
        crowd.push(turn * start, turn * Vec3::X, turn * aim);
    }
    let dt = 1.0 / ticks_per_second;
    let mut crossed = vec![None; PEOPLE];
    let mut deepest: f32 = 0.0;
    let back = turn.inverse();
    for tick in 1..=(300.0 * ticks_per_second) as usize {
        crowd.step(dt);
        for (i, at) in crossed.iter_mut().enumerate() {
            let p = crowd.position(i);
            deepest = deepest.max(depth_in(&walls, p));
            if at.is_none() && (back * p).x > 0.0 {
                *at = Some(tick as f32 * dt);
                crowd.retarget(i, turn * v(20.0, row_of(i)));
            }
        }
        if crossed.iter().all(Option::is_some) {
            break;
        }
    }
    let mut times: Vec<f32> = crossed.into_iter().flatten().collect();
    times.sort_by(f32::total_cmp);
    Crossing { times, deepest }
}
