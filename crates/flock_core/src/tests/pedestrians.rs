//! The pedestrian recipe ([`FlockTuning::pedestrian`]) against the tests crowd simulators are
//! validated with: RiMEA, "Guideline for Microscopic Evacuation Analysis", version 3.0 (2016).

use glam::Vec3;

use crate::*;

/// Seconds for one pedestrian to walk the 40 m corridor of RiMEA's test 1 at 20 and at 64
/// ticks a second: `None` if not there after a minute.
fn corridor_crossing(ticks_per_second: f32) -> Option<f32> {
    let mut crowd = Crowd::new(Space::Planar);
    let corridor = FlockTuning {
        // The corridor, 2 m wide, as walls a little longer than the walk.
        boundary: Boundary::walls(Vec3::new(-1.0, -1.0, 0.0), Vec3::new(41.0, 1.0, 0.0), 0.3),
        ..FlockTuning::pedestrian()
    };
    let params = crowd.add_params(corridor);
    crowd.push(AgentInput {
        position: Vec3::ZERO,
        velocity: Vec3::ZERO,
        heading: Vec3::X,
        flock: 0,
        params,
        target: Some(Vec3::new(40.0, 0.0, 0.0)),
    });
    let dt = 1.0 / ticks_per_second;
    for tick in 1..=(60.0 * ticks_per_second) as usize {
        crowd.step(dt);
        if crowd.has_reached_target(0) {
            return Some(tick as f32 * dt);
        }
    }
    None
}

/// RiMEA test 1, "maintaining the set walking speed in a corridor": a person walking at
/// 1.33 m/s covers the 40 m of a 2 m wide corridor in 26 to 34 s. The recipe's free speed is
/// 1.34 m/s (Weidmann 1993), reached from rest within its relaxation time.
#[test]
fn one_pedestrian_crosses_the_rimea_corridor_in_26_to_34_seconds() {
    for ticks_per_second in [20.0, 64.0] {
        let seconds = corridor_crossing(ticks_per_second);
        println!("RiMEA test 1 at {ticks_per_second} ticks/s: {seconds:?} s");
        let seconds = seconds.expect("the pedestrian arrives within a minute");
        assert!(
            (26.0..=34.0).contains(&seconds),
            "{seconds} s at {ticks_per_second} ticks a second"
        );
    }
}

/// The recipe's values are ones the checks accept as they are.
#[test]
fn the_pedestrian_recipe_needs_no_correction() {
    let (sanitized, corrections) = FlockTuning::pedestrian().sanitized();
    assert!(corrections.is_empty(), "{corrections:?}");
    assert_eq!(sanitized, FlockTuning::pedestrian());
}

/// Weidmann's (1993) fundamental diagram: the mean walking speed, m/s, of pedestrians at
/// `density` per m², `1.34 (1 - exp(-1.913 (1 / density - 1 / 5.4)))`.
fn weidmann_speed(density: f32) -> f32 {
    1.34 * (1.0 - libm::expf(-1.913 * (1.0 / density - 1.0 / 5.4)))
}

/// The mean speed along a periodic corridor 10 m long and 4 m wide (both ways wrapping round)
/// of a crowd at `density` per m², all walking along it, over 20 s after 20 s to settle, at
/// `ticks_per_second`: RiMEA's test 4 with the corridor closed on itself, as simulators
/// measure the fundamental diagram.
fn speed_at_density(density: f32, ticks_per_second: f32) -> f32 {
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
    // A lattice of as near square cells as the count allows, each start moved a little.
    let columns = (n as f32 * length / width).sqrt().ceil() as usize;
    let rows = n.div_ceil(columns);
    let (dx, dy) = (length / columns as f32, width / rows as f32);
    for k in 0..n {
        let wobble = libm::sinf(k as f32 * 2.399) * 0.1 * dx.min(dy) / 2.0;
        let position = Vec3::new(
            ((k % columns) as f32 + 0.5) * dx + wobble,
            ((k / columns) as f32 + 0.5) * dy - wobble,
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

/// RiMEA test 4, the fundamental diagram: the crowd's mean speed at 0.5 to 5 people per m²
/// within 0.15 m/s or 20% (whichever is larger) of Weidmann's curve, at 20 and at 64 ticks a
/// second. Velocity obstacles alone let the crowd slide along at the free speed up to 4 per m²;
/// the time gap makes it slow as it packs.
#[test]
fn the_pedestrian_crowd_slows_with_density_as_weidmann_measured() {
    for ticks_per_second in [20.0, 64.0] {
        for density in [0.5, 1.0, 2.0, 3.0, 4.0, 5.0] {
            let speed = speed_at_density(density, ticks_per_second);
            let expected = weidmann_speed(density);
            println!(
                "RiMEA test 4 at {ticks_per_second} ticks/s, {density} per m²: {speed:.3} m/s \
                 (Weidmann {expected:.3})"
            );
            assert!(
                (speed - expected).abs() <= (0.2 * expected).max(0.15),
                "{speed} m/s at {density} per m² and {ticks_per_second} ticks/s; \
                 Weidmann {expected}"
            );
        }
    }
}
