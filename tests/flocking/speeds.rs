//! Agents' own speeds: [`SpeedFactor`].

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// Pedestrians of one flock walking east in their own lanes, each with the given factor (or
/// none), for `ticks`; returns how far each got.
fn walked(factors: &[Option<SpeedFactor>], ticks: u32) -> (App, Vec<f32>) {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    tune_default_flock(&mut app, FlockTuning::pedestrian());
    let agents: Vec<Entity> = (factors.iter().enumerate())
        .map(|(k, factor)| {
            let start = Vec3::new(0.0, 5.0 * k as f32, 0.0);
            let target = Target::Point(start + Vec3::X * 1000.0);
            let mut agent =
                app.world_mut()
                    .spawn((Agent, Transform::from_translation(start), target));
            if let Some(factor) = factor {
                agent.insert(*factor);
            }
            agent.id()
        })
        .collect();
    run_ticks(&mut app, ticks);
    let distances = (agents.iter())
        .map(|&a| app.world().get::<Transform>(a).unwrap().translation.x)
        .collect();
    (app, distances)
}

/// One flock, three walkers: without a factor, at 0.5 and at 1.5. After 10 s (640 ticks),
/// each has walked its factor times as far as the one without, within 5% (the half second
/// from rest to speed does not scale).
#[test]
fn a_speed_factor_scales_an_agents_walk() {
    let (_, distances) = walked(&[None, Some(SpeedFactor(0.5)), Some(SpeedFactor(1.5))], 640);
    println!("walked in 10 s: {distances:?} m");
    for (factor, distance) in [(0.5, distances[1]), (1.5, distances[2])] {
        let expected = factor * distances[0];
        assert!(
            (distance - expected).abs() <= 0.05 * expected,
            "factor {factor}: {distance} m, expected {expected}"
        );
    }
}

/// A factor that is not finite and positive is ignored (with a warning, once): the agent
/// keeps its flock's speed.
#[test]
fn a_bad_speed_factor_is_ignored() {
    let bad = [f32::NAN, f32::INFINITY, 0.0, -2.0].map(|f| Some(SpeedFactor(f)));
    let (_, distances) = walked(&[None, bad[0], bad[1], bad[2], bad[3]], 320);
    println!("walked in 5 s: {distances:?} m");
    for &distance in &distances[1..] {
        assert_eq!(distance, distances[0]);
    }
}

/// [`SpeedFactor::walking`] draws the same factor for the same key, and a spread over keys.
#[test]
fn walking_speed_factors_are_drawn_per_key() {
    assert_eq!(SpeedFactor::walking(42), SpeedFactor::walking(42));
    let factors: Vec<f32> = (0..100).map(|k| SpeedFactor::walking(k).0).collect();
    let (lowest, highest) =
        (factors.iter()).fold((f32::MAX, f32::MIN), |(lo, hi), &f| (lo.min(f), hi.max(f)));
    assert!(lowest < 0.9 && highest > 1.1, "{lowest}..{highest}");
}
