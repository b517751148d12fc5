//! RiMEA test 4, the fundamental diagram: how fast a crowd walks at each density, against
//! Weidmann's (1993) curve.

use flock_core::glam::Vec3;
use flock_core::{AgentInput, Boundary, Crowd, FlockTuning, FlockWeights, Space};

use crate::{scatter, v};

/// The densities measured, people per m².
pub const DENSITIES: [f32; 6] = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0];

/// The starts each density is measured from: crowds in no order.
pub const STARTS: [u64; 3] = [1, 2, 3];

/// Weidmann's (1993) fundamental diagram: the mean walking speed, m/s, of pedestrians at
/// `density` per m², `1.34 (1 - exp(-1.913 (1 / density - 1 / 5.4)))`.
pub fn weidmann_speed(density: f32) -> f32 {
    1.34 * (1.0 - libm::expf(-1.913 * (1.0 / density - 1.0 / 5.4)))
}

/// The tolerance on Weidmann's speed at `density`: 0.15 m/s or 20%, whichever is larger.
pub fn tolerance(density: f32) -> f32 {
    (0.2 * weidmann_speed(density)).max(0.15)
}

/// The mean speed along a periodic corridor 10 m long and 4 m wide (both ways wrapping round)
/// of a crowd tuned as `tuning` at `density` per m², all walking along it, over 20 s after 20 s
/// to settle, at `ticks_per_second`: RiMEA's test 4 with the corridor closed on itself, as
/// simulators measure the fundamental diagram. The crowd starts in no order (a lattice of as
/// near square cells as the count allows, each start moved up to a third of a cell along each
/// axis), from `start`. With `spread`, each walks at its own free speed, drawn with
/// [`walking_speed_factor`](flock_core::walking_speed_factor).
pub fn speed_at_density(
    tuning: &FlockTuning,
    density: f32,
    ticks_per_second: f32,
    spread: bool,
    start: u64,
) -> f32 {
    let (length, width) = (10.0, 4.0);
    let n = (density * length * width).round() as usize;
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning {
        weights: FlockWeights {
            target: 0.0,
            flow: 1.0,
            ..tuning.weights
        },
        boundary: Boundary::Wrap {
            min: Vec3::ZERO,
            max: v(length, width),
        },
        ..*tuning
    });
    let columns = (n as f32 * length / width).sqrt().ceil() as usize;
    let rows = n.div_ceil(columns);
    let (dx, dy) = (length / columns as f32, width / rows as f32);
    for k in 0..n {
        let (jx, jy) = scatter(start * 10_000 + k as u64);
        let position = v(
            ((k % columns) as f32 + 0.5 + jx / 3.0) * dx,
            ((k / columns) as f32 + 0.5 + jy / 3.0) * dy,
        );
        crowd.push(AgentInput {
            position,
            velocity: Vec3::ZERO,
            heading: Vec3::X,
            flock: 0,
            params,
            target: None,
        });
        if spread {
            let factor = flock_core::walking_speed_factor(start << 32 | k as u64);
            crowd.set_speed_factor(k, factor);
        }
    }
    let dt = 1.0 / ticks_per_second;
    let settle = (20.0 * ticks_per_second) as usize;
    let (mut sum, mut samples) = (0.0, 0);
    for tick in 0..2 * settle {
        for i in 0..n {
            crowd.set_flow(i, Vec3::X);
        }
        crowd.step(dt);
        if tick >= settle {
            sum += (0..n).map(|i| crowd.velocity(i).x).sum::<f32>();
            samples += n;
        }
    }
    sum / samples as f32
}

/// The mean over [`STARTS`] of [`speed_at_density`].
pub fn mean_speed_at_density(
    tuning: &FlockTuning,
    density: f32,
    ticks_per_second: f32,
    spread: bool,
) -> f32 {
    let speeds =
        STARTS.map(|start| speed_at_density(tuning, density, ticks_per_second, spread, start));
    speeds.iter().sum::<f32>() / speeds.len() as f32
}
