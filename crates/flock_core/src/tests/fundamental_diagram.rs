//! RiMEA test 4, the fundamental diagram: how fast a crowd of the pedestrian recipe walks at
//! each density, against Weidmann's (1993) curve.

use glam::Vec3;

use crate::maths::NoiseDraw;
use crate::*;

/// Weidmann's (1993) fundamental diagram: the mean walking speed, m/s, of pedestrians at
/// `density` per m², `1.34 (1 - exp(-1.913 (1 / density - 1 / 5.4)))`.
fn weidmann_speed(density: f32) -> f32 {
    1.34 * (1.0 - libm::expf(-1.913 * (1.0 / density - 1.0 / 5.4)))
}

/// The mean speed along a periodic corridor 10 m long and 4 m wide (both ways wrapping round)
/// of a crowd at `density` per m², all walking along it, over 20 s after 20 s to settle, at
/// `ticks_per_second`: RiMEA's test 4 with the corridor closed on itself, as simulators
/// measure the fundamental diagram, started from `start` (a seed). With `spread`, each walks at
/// its own free speed, drawn with [`walking_speed_factor`].
fn speed_at_density(density: f32, ticks_per_second: f32, spread: bool, start: u64) -> f32 {
    let (length, width) = (10.0, 4.0);
    let n = (density * length * width).round() as usize;
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning {
        weights: FlockWeights {
            target: 0.0,
            flow: 1.0,
            ..FlockTuning::pedestrian().weights
        },
        boundary: Boundary::Wrap {
            min: Vec3::ZERO,
            max: Vec3::new(length, width, 0.0),
        },
        ..FlockTuning::pedestrian()
    });
    // A lattice of as near square cells as the count allows, each start moved at random up to
    // a third of a cell along each axis: a crowd in no order, as in the experiments. (A lattice
    // moved only a little keeps walking in rows, whose bodies hold each other back more than a
    // crowd's: it walked at 1.01 m/s at 1 per m² where this crowd walks at the free speed with
    // the same time gap.)
    let columns = (n as f32 * length / width).sqrt().ceil() as usize;
    let rows = n.div_ceil(columns);
    let (dx, dy) = (length / columns as f32, width / rows as f32);
    let mut draw = NoiseDraw::new(start, 0, 0);
    for k in 0..n {
        let jitter = draw.in_cube() / 3.0;
        let position = Vec3::new(
            ((k % columns) as f32 + 0.5 + jitter.x) * dx,
            ((k / columns) as f32 + 0.5 + jitter.y) * dy,
            0.0,
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
            crowd.set_speed_factor(k, walking_speed_factor(start << 32 | k as u64));
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

/// The starts each density is measured from: three crowds in no order.
const STARTS: [u64; 3] = [1, 2, 3];

/// The mean over [`STARTS`] of [`speed_at_density`].
fn mean_speed_at_density(density: f32, ticks_per_second: f32, spread: bool) -> f32 {
    let speeds = STARTS.map(|start| speed_at_density(density, ticks_per_second, spread, start));
    speeds.iter().sum::<f32>() / speeds.len() as f32
}

/// RiMEA test 4, the fundamental diagram: the crowd's mean speed at 0.5 to 5 people per m²
/// (over three starts) within 0.15 m/s or 20% (whichever is larger) of Weidmann's curve, at 20
/// and at 64 ticks a second. Velocity obstacles alone let the crowd slide along at the free
/// speed up to 4 per m²; the time gap makes it slow as it packs.
#[test]
fn the_pedestrian_crowd_slows_with_density_as_weidmann_measured() {
    for ticks_per_second in [20.0, 64.0] {
        for density in [0.5, 1.0, 2.0, 3.0, 4.0, 5.0] {
            let speed = mean_speed_at_density(density, ticks_per_second, false);
            let expected = weidmann_speed(density);
            println!(
                "RiMEA test 4 at {ticks_per_second} ticks/s, {density} per m²: {speed:.3} m/s \
                 (Weidmann {expected:.3})"
            );
            assert_near_weidmann(speed, density);
        }
    }
}

/// Asserts that `speed` is within 0.15 m/s or 20% (whichever is larger) of Weidmann's speed at
/// `density`.
fn assert_near_weidmann(speed: f32, density: f32) {
    let expected = weidmann_speed(density);
    assert!(
        (speed - expected).abs() <= (0.2 * expected).max(0.15),
        "{speed} m/s at {density} per m²; Weidmann {expected}"
    );
}

/// The same with each pedestrian at its own free speed, spread as Weidmann measured (1.34 m/s
/// with a standard deviation of 0.26), at 20 ticks a second: the faster overtake where there is
/// room, and the crowd's mean still follows the curve, which was measured on such crowds.
#[test]
fn a_crowd_of_spread_speeds_slows_with_density_as_weidmann_measured() {
    for density in [0.5, 1.0, 2.0, 3.0, 4.0, 5.0] {
        let speed = mean_speed_at_density(density, 20.0, true);
        let expected = weidmann_speed(density);
        println!("spread speeds, {density} per m²: {speed:.3} m/s (Weidmann {expected:.3})");
        assert_near_weidmann(speed, density);
    }
}
