//! Two streams of people crossing at right angles, as where two corridors meet: the case in
//! which crowds that keep a time gap can lock into diagonal bands, each person waiting for the
//! one crossing in front of it (Helbing et al. 2005, "Self-organized pedestrian crowd dynamics",
//! Transportation Science 39, describe the stripes such crossings form).

use crate::people::{Model, People};
use crate::{scatter, v};
use flock_core::glam::Vec3;

/// The people in each stream.
pub const PER_STREAM: usize = 100;

/// The square about the crossing in which people standing are counted, half its side, m.
const HALF_CROSSING: f32 = 6.0;

/// Below this speed, m/s, a person counts as standing.
const STANDING: f32 = 0.1;

/// What a crossing run measured.
pub struct Streams {
    /// When everyone was across, s (`None` if not within five minutes).
    pub across: Option<f32>,
    /// The most people standing at once in the square about the crossing.
    pub most_standing: usize,
}

/// [`PER_STREAM`] people moved as `model` says walking east and as many walking north, each
/// stream 10 m across and 10 m deep (one person per m², each moved up to 0.3 m off its cell's
/// centre, in no order), both 6 m from the crossing's centre at the start, each person walking
/// straight on to 40 m past it, at `ticks_per_second`. Someone is across once 6 m past the
/// centre along their way.
pub fn crossing_streams(model: impl Into<Model>, ticks_per_second: f32) -> Streams {
    let mut crowd = model.into().people(&[], 1);
    let columns = 10;
    for k in 0..2 * PER_STREAM {
        let east = k < PER_STREAM;
        let j = k % PER_STREAM;
        let (jx, jy) = scatter(k as u64 + 1);
        let across = (j % columns) as f32 + 0.5 + 0.3 * jx - 5.0;
        let back = -HALF_CROSSING - ((j / columns) as f32 + 0.5 + 0.3 * jy);
        let (position, target, heading) = if east {
            (v(back, across), v(40.0, across), Vec3::X)
        } else {
            (v(across, back), v(across, 40.0), Vec3::Y)
        };
        crowd.push(position, heading, target);
    }
    let dt = 1.0 / ticks_per_second;
    let mut most_standing = 0;
    let is_across = |crowd: &People, i: usize| {
        let p = crowd.position(i);
        (if i < PER_STREAM { p.x } else { p.y }) > HALF_CROSSING
    };
    for tick in 1..=(300.0 * ticks_per_second) as usize {
        crowd.step(dt);
        let standing = (0..crowd.len())
            .filter(|&i| {
                let p = crowd.position(i);
                p.x.abs() < HALF_CROSSING
                    && p.y.abs() < HALF_CROSSING
                    && crowd.velocity(i).length() < STANDING
            })
            .count();
        most_standing = most_standing.max(standing);
        if (0..crowd.len()).all(|i| is_across(&crowd, i)) {
            return Streams {
                across: Some(tick as f32 * dt),
                most_standing,
            };
        }
    }
    Streams {
        across: None,
        most_standing,
    }
}
