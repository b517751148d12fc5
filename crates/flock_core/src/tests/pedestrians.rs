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
