//! A spread of walking speeds in one parameter set: [`Crowd::set_speed_factor`] and
//! [`walking_speed_factor`].

use glam::Vec3;

use crate::*;

/// Weidmann's (1993) free walking speeds, m/s: mean and standard deviation.
const WEIDMANN_SPEED: (f32, f32) = (1.34, 0.26);

/// Drawn for many keys, the pedestrians' free speeds have Weidmann's mean and spread, stay
/// within 0.5-2.2 m/s, and each key always draws the same.
#[test]
fn walking_speed_factors_spread_as_weidmann_measured() {
    let n = 20_000;
    let speeds: Vec<f32> = (0..n)
        .map(|key| walking_speed_factor(key) * WEIDMANN_SPEED.0)
        .collect();
    let mean = speeds.iter().sum::<f32>() / n as f32;
    let variance = speeds.iter().map(|s| (s - mean) * (s - mean)).sum::<f32>() / n as f32;
    let sd = libm::sqrtf(variance);
    println!("{n} walking speeds: mean {mean:.4} m/s, standard deviation {sd:.4}");
    assert!((mean - WEIDMANN_SPEED.0).abs() < 0.01, "mean {mean}");
    assert!(
        (sd - WEIDMANN_SPEED.1).abs() < 0.01,
        "standard deviation {sd}"
    );
    assert!(speeds.iter().all(|s| (0.5..=2.2).contains(s)));
    for key in [0, 1, 7, u64::MAX] {
        assert_eq!(walking_speed_factor(key), walking_speed_factor(key));
    }
    let distinct: std::collections::BTreeSet<u32> = speeds.iter().map(|s| s.to_bits()).collect();
    assert!(
        distinct.len() > n as usize / 2,
        "{} distinct",
        distinct.len()
    );
}

/// A crowd of the pedestrian recipe with one agent per `(start, factor, target)`, each given
/// its speed factor.
fn walkers(walkers: &[(Vec3, f32, Vec3)]) -> Crowd {
    let mut crowd = Crowd::new(Space::Planar);
    let params = crowd.add_params(FlockTuning::pedestrian());
    for (i, &(position, factor, target)) in walkers.iter().enumerate() {
        crowd.push(AgentInput {
            position,
            velocity: Vec3::ZERO,
            heading: Vec3::X,
            flock: 0,
            params,
            target: Some(target),
        });
        assert!(crowd.set_speed_factor(i, factor));
    }
    crowd
}

/// Seconds until each agent of `crowd` reaches its target, ticked at 20 a second; `None` for
/// one not there within `seconds`.
fn arrivals(crowd: &mut Crowd, seconds: f32) -> Vec<Option<f32>> {
    let dt = 0.05;
    let mut arrived = vec![None; crowd.len()];
    for tick in 1..=(seconds / dt) as usize {
        crowd.step(dt);
        for (i, arrived) in arrived.iter_mut().enumerate() {
            if arrived.is_none() && crowd.has_reached_target(i) {
                *arrived = Some(tick as f32 * dt);
            }
        }
    }
    arrived
}

/// Three pedestrians of one parameter set, alone in their lanes 5 m apart, walk 40 m at 0.75,
/// 1 and 1.25 times the free speed: each takes the free walk's time over its factor, within 3%
/// (the second from rest to speed does not scale).
#[test]
fn a_speed_factor_scales_how_fast_an_agent_walks() {
    let factors = [0.75, 1.0, 1.25];
    let lanes: Vec<_> = (factors.iter().enumerate())
        .map(|(k, &f)| {
            let y = 5.0 * k as f32;
            (Vec3::new(0.0, y, 0.0), f, Vec3::new(40.0, y, 0.0))
        })
        .collect();
    let mut crowd = walkers(&lanes);
    let times = arrivals(&mut crowd, 90.0);
    println!("40 m at factors {factors:?}: {times:?} s");
    let free = times[1].expect("the agent at factor 1 arrives");
    for (&factor, time) in factors.iter().zip(&times) {
        let time = time.expect("every agent arrives");
        let expected = free / factor;
        assert!(
            (time - expected).abs() <= 0.03 * expected,
            "factor {factor}: {time} s, expected {expected}"
        );
        let k = factors.iter().position(|&f| f == factor).unwrap();
        assert_eq!(crowd.speed_factor(k), factor);
        let limits = crowd.limits_of(k);
        assert_eq!(
            limits.max_speed,
            factor * FlockTuning::pedestrian().limits.max_speed
        );
    }
}

/// A pedestrian walking 1.3 times as fast as the one 3 m ahead of it on the same line, in the
/// open, overtakes it: velocity obstacles take each agent's own speed, and the faster one
/// passes rather than following. (Their targets are a metre apart, so that the first there
/// does not stand on the other's.)
#[test]
fn a_faster_pedestrian_overtakes_a_slower_one() {
    let mut crowd = walkers(&[
        (Vec3::new(3.0, 0.0, 0.0), 1.0, Vec3::new(40.0, 0.5, 0.0)),
        (Vec3::ZERO, 1.3, Vec3::new(40.0, -0.5, 0.0)),
    ]);
    let times = arrivals(&mut crowd, 60.0);
    println!("slower ahead, faster behind: {times:?} s");
    let (slower, faster) = (times[0].unwrap(), times[1].unwrap());
    assert!(
        faster < slower,
        "the faster arrives at {faster} s, the slower at {slower} s"
    );
}

/// A factor that is not finite and positive, or for an agent the crowd does not have, is
/// refused, and the agent keeps the speed it had.
#[test]
fn bad_speed_factors_are_refused() {
    let mut crowd = walkers(&[(Vec3::ZERO, 1.2, Vec3::X * 10.0)]);
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -1.0, -0.0] {
        assert!(!crowd.set_speed_factor(0, bad), "{bad} was kept");
        assert_eq!(crowd.speed_factor(0), 1.2);
    }
    assert!(!crowd.set_speed_factor(1, 2.0));
    assert_eq!(crowd.speed_factor(1), 1.0);
    // A huge factor is kept, and the limits stay within the largest parameter.
    assert!(crowd.set_speed_factor(0, 1e30));
    let limits = crowd.limits_of(0);
    assert!(limits.max_speed <= LARGEST_PARAMETER && limits.max_force <= LARGEST_PARAMETER);
    crowd.step(1.0);
    assert!(crowd.position(0).is_finite());
}
