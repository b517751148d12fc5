//! Corridors: RiMEA test 1 (one person, 40 m) and a two-way corridor.

use flock_core::glam::{Quat, Vec3};
use flock_core::{Boundary, Shape};

use crate::people::{Model, People};
use crate::{scatter, v};

/// Seconds for one person moved as `model` says to walk the 40 m of RiMEA test 1's corridor, 2 m
/// wide, at `ticks_per_second`; `None` if not there after a minute. The guideline asks 26 to
/// 34 s of a person walking at 1.33 m/s.
pub fn rimea_1(model: impl Into<Model>, ticks_per_second: f32) -> Option<f32> {
    // The corridor, as walls a little longer than the walk (the kernel's box; ORCA's person
    // walks its middle, where no wall is near).
    let corridor = Boundary::walls(v(-1.0, -1.0), v(41.0, 1.0), 0.3);
    let mut crowd = model.into().within(corridor).people(&[], 1);
    crowd.push(Vec3::ZERO, Vec3::X, v(40.0, 0.0));
    let dt = 1.0 / ticks_per_second;
    for tick in 1..=(60.0 * ticks_per_second) as usize {
        crowd.step(dt);
        if crowd.has_reached_target(0) {
            return Some(tick as f32 * dt);
        }
    }
    None
}

/// What a two-way corridor run measured.
pub struct TwoWay {
    /// When everyone was out of the other end, s (`None` if not within five minutes).
    pub out: Option<f32>,
    /// The lane order parameter (see [`lane_order`]), the mean of one a second over the
    /// [`PASSING`] seconds after the two crowds meet.
    pub lanes: f32,
    /// The same of the same people in the same places, each given a direction at random: what
    /// a crowd in no lanes scores.
    pub mixed: f32,
}

/// The seconds after the two crowds of [`two_way`] meet over which the lane order is taken.
pub const PASSING: f32 = 30.0;

/// `per_side` people moved as `model` says from each end of a corridor 30 m long and 4 m wide
/// (walls as obstacles), in rows of five 0.7 m apart, each walking out of the other end, at
/// `ticks_per_second`.
pub fn two_way(model: impl Into<Model>, per_side: usize, ticks_per_second: f32) -> TwoWay {
    let wall = |y: f32| Shape::Box {
        centre: v(15.0, y),
        half_extents: Vec3::new(25.0, 0.1, 1.0),
        rotation: Quat::IDENTITY,
    };
    let mut crowd = model.into().people(&[wall(2.1), wall(-2.1)], 1);
    let per_row = 5;
    for k in 0..2 * per_side {
        let east = k < per_side;
        let j = k % per_side;
        let (row, column) = ((j % per_row) as f32, (j / per_row) as f32);
        let y = (row - 0.5 * (per_row - 1) as f32) * 0.7 + if east { 0.1 } else { -0.1 };
        let x = if east {
            -column * 0.7
        } else {
            30.0 + column * 0.7
        };
        let heading = if east { Vec3::X } else { Vec3::NEG_X };
        crowd.push(v(x, y), heading, v(if east { 45.0 } else { -15.0 }, y));
    }
    let dt = 1.0 / ticks_per_second;
    let east = |i: usize| i < per_side;
    // Half the people, in no order, by the plastic-number sequence.
    let drawn = |i: usize| scatter(i as u64).0 < 0.0;
    let second = ticks_per_second.round() as usize;
    let (mut met, mut lanes, mut mixed, mut samples) = (None, 0.0, 0.0, 0);
    let mut out = None;
    for tick in 1..=300 * second {
        crowd.step(dt);
        let x = |i: usize| crowd.position(i).x;
        if met.is_none() {
            let foremost_east = (0..per_side).map(x).fold(f32::MIN, f32::max);
            let foremost_west = (per_side..crowd.len()).map(x).fold(f32::MAX, f32::min);
            met = (foremost_east >= foremost_west).then_some(tick);
        }
        let passing = met.is_some_and(|m| tick - m < (PASSING as usize) * second);
        if passing && tick % second == 0 {
            lanes += lane_order(&crowd, east);
            mixed += lane_order(&crowd, drawn);
            samples += 1;
        }
        if out.is_none() && (0..crowd.len()).all(|i| if east(i) { x(i) > 30.0 } else { x(i) < 0.0 })
        {
            out = Some(tick as f32 * dt);
        }
        if out.is_some() && !passing {
            break;
        }
    }
    let samples = samples.max(1) as f32;
    TwoWay {
        out,
        lanes: lanes / samples,
        mixed: mixed / samples,
    }
}

/// The lane order parameter of the people inside the corridor (0 < x < 30), those for whom
/// `east` holds walking one way and the rest the other: the mean over them of
/// `((n_same - n_other) / (n_same + n_other))²` among the others within 0.5 m sideways and 2 m
/// along, 1 where everyone walks in lanes of its own direction, about 0 in a mixed crowd (the
/// form of Rex and Löwen 2007).
pub fn lane_order(crowd: &People, east: impl Fn(usize) -> bool) -> f32 {
    let inside: Vec<usize> = (0..crowd.len())
        .filter(|&i| (0.0..30.0).contains(&crowd.position(i).x))
        .collect();
    let mut sum = 0.0;
    let mut counted = 0;
    for &i in &inside {
        let (mut same, mut other) = (0.0_f32, 0.0_f32);
        for &j in &inside {
            let d = crowd.position(j) - crowd.position(i);
            if i != j && d.y.abs() < 0.5 && d.x.abs() < 2.0 {
                if east(i) == east(j) {
                    same += 1.0;
                } else {
                    other += 1.0;
                }
            }
        }
        if same + other > 0.0 {
            let phi = (same - other) / (same + other);
            sum += phi * phi;
            counted += 1;
        }
    }
    sum / counted.max(1) as f32
}
