//! Agents on a collision course predict it and sidestep: two meeting head on pass each other.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

fn planes() -> [(FlockingPlugins, &'static str); 2] {
    [
        (FlockingPlugins::default().planar(), "2D"),
        (FlockingPlugins::default(), "3D"),
    ]
}

/// The default tuning with collision avoidance on.
fn avoiding() -> FlockTuning {
    FlockTuning {
        weights: FlockWeights {
            collision_avoidance: 1.0,
            ..default()
        },
        ..default()
    }
}

/// Asserts that two agents avoiding collisions, starting `lateral` off each other's line,
/// get past each other without their bodies (of the default radius, 0.35) ever overlapping,
/// in 2D and in 3D.
fn assert_they_pass_apart(lateral: Vec3) {
    for (plugin, space) in planes() {
        let met = meet(plugin, lateral, avoiding());
        assert!(met.both_past, "{space}: they did not get past each other");
        assert!(
            met.closest >= Perception::default().collision_distance,
            "{space}: their centres came {} apart",
            met.closest
        );
    }
}

#[test]
fn two_agents_meeting_head_on_pass_each_other() {
    assert_they_pass_apart(Vec3::ZERO);
}

#[test]
fn agents_slightly_off_each_others_line_sidestep_apart() {
    // Half a collision distance off the line: each turns away from the other, not across it.
    assert_they_pass_apart(Vec3::new(0.0, 0.35, 0.0));
}

#[test]
fn without_collision_avoidance_head_on_agents_run_into_each_other() {
    // The default: separation alone acts too late and straight back, so they pass through
    // each other.
    for (plugin, space) in planes() {
        let met = meet(plugin, Vec3::ZERO, FlockTuning::default());
        assert!(
            met.closest < 0.35,
            "{space}: {} apart without prediction",
            met.closest
        );
    }
}

/// Seekers of `Target`s at a speed of 2, bodies of the default diameter (0.7), avoiding each
/// other's velocity obstacles in `velocity_obstacles`' way.
fn swapping(velocity_obstacles: VelocityObstacles) -> FlockTuning {
    FlockTuning {
        weights: FlockWeights {
            target: 1.0,
            style: RuleStyle::DesiredVelocity,
            ..no_weights()
        },
        limits: SteeringLimits {
            max_speed: 2.0,
            max_force: 1_000.0,
            response_time: 1.0 / 64.0,
            arrival_radius: 0.5,
            reach_radius: 0.2,
            ..default()
        },
        perception: Perception {
            velocity_obstacles,
            ..default()
        },
        ..default()
    }
}

/// Runs `n` agents from a circle of `radius` to their opposite points; returns the closest two
/// centres came at any tick, and whether all arrived within `ticks`.
fn circle_swap(
    plugin: FlockingPlugins,
    tuning: FlockTuning,
    (n, radius, ticks): (usize, f32, usize),
) -> (f32, bool) {
    let mut app = create_test_app(plugin);
    tune_default_flock(&mut app, tuning);
    let targets: Vec<Vec3> = (0..n)
        .map(|i| {
            let angle = i as f32 / n as f32 * std::f32::consts::TAU;
            let start = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * radius;
            app.world_mut().spawn((
                Agent,
                Transform::from_translation(start),
                Target::Point(-start),
            ));
            -start
        })
        .collect();
    let mut closest = f32::INFINITY;
    for _ in 0..ticks {
        run_ticks(&mut app, 1);
        let world = app.world_mut();
        let mut query = world.query::<(&Transform, &Target)>();
        let placed: Vec<(Vec3, Vec3)> = query
            .iter(world)
            .map(|(t, target)| match target {
                Target::Point(p) => (t.translation, *p),
                _ => unreachable!("every agent seeks a point"),
            })
            .collect();
        let points: Vec<Vec3> = placed.iter().map(|p| p.0).collect();
        closest = closest.min(min_pair_distance(&points));
        if placed.iter().all(|(p, t)| p.distance(*t) <= 0.25) {
            assert_eq!(placed.len(), targets.len());
            return (closest, true);
        }
    }
    let world = app.world_mut();
    let mut query = world.query::<(&Transform, &Target, &Velocity)>();
    for (t, target, v) in query.iter(world) {
        if let Target::Point(p) = target {
            eprintln!("at {} to {} v {:?}", t.translation, p, v);
        }
    }
    (closest, false)
}

#[test]
fn solid_agents_swap_across_a_circle_without_overlap() {
    let diameter = Perception::default().collision_distance;
    for (plugin, space) in planes() {
        let (closest, arrived) =
            circle_swap(plugin, swapping(VelocityObstacles::Solid), (24, 6.0, 2_000));
        assert!(arrived, "{space}: not every agent arrived");
        // No overlap deeper than 1% of the body radius.
        assert!(
            closest >= diameter - 0.01 * diameter / 2.0,
            "{space}: centres came {closest} apart"
        );
    }
    let (closest, _) = circle_swap(
        FlockingPlugins::default().planar(),
        swapping(VelocityObstacles::Off),
        (24, 6.0, 2_000),
    );
    assert!(
        closest < diameter / 2.0,
        "without the step, {closest} apart"
    );
}

#[test]
fn reciprocal_agents_swap_across_a_circle_without_overlap() {
    let diameter = Perception::default().collision_distance;
    let (closest, arrived) = circle_swap(
        FlockingPlugins::default().planar(),
        swapping(VelocityObstacles::Reciprocal),
        (8, 6.0, 2_000),
    );
    assert!(arrived, "not every agent arrived");
    // No overlap deeper than 1% of the body radius: the program keeps a margin for what a
    // crowd that leaves no room gives away.
    assert!(
        closest >= diameter - 0.01 * diameter / 2.0,
        "centres came {closest} apart"
    );
}
