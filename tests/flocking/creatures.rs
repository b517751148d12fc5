//! Creatures that avoid obstacles (`examples/creatures_2d`): heading-driven agents that turn at a limited rotation speed, go round
//! walls and pass each other head on.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// Turning speed of the creatures, degrees per second.
const TURN_RATE: f32 = 120.0;

/// A creature's limits: it keeps moving and turns at most [`TURN_RATE`].
fn creature_limits() -> SteeringLimits {
    SteeringLimits {
        min_speed: 1.0,
        max_turn_rate: Some(TURN_RATE),
        ..default()
    }
}

/// The heading angle about Z of an agent on the plane, from its rotation.
fn yaw(app: &App, agent: Entity) -> f32 {
    let rotation = app.world().get::<Transform>(agent).unwrap().rotation;
    let facing = rotation * Vec3::X;
    ops::atan2(facing.y, facing.x)
}

/// The smallest angle between two yaws.
fn turned(from: f32, to: f32) -> f32 {
    let d = (to - from).rem_euclid(std::f32::consts::TAU);
    d.min(std::f32::consts::TAU - d)
}

/// Moves the bait round a circle of radius 8 once every 12 seconds (at 4.2 units per second,
/// within the creature's top speed of 5).
fn circle_bait(time: Res<Time>, mut bait: Query<&mut Transform, With<Bait>>) {
    let angle = time.elapsed_secs() * std::f32::consts::TAU / 12.0;
    for mut transform in &mut bait {
        transform.translation = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 8.0;
    }
}

#[derive(Component)]
struct Bait;

#[test]
fn a_creature_never_turns_faster_than_its_rotation_speed() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    app.add_systems(FixedUpdate, circle_bait.in_set(FlockingSystems::First));
    let bait = app
        .world_mut()
        .spawn((Bait, Transform::from_xyz(8.0, 0.0, 0.0)))
        .id();
    let creature = app
        .world_mut()
        .spawn((
            Agent,
            creature_limits(),
            Transform::from_xyz(-10.0, 0.0, 0.0),
            Velocity(Vec3::NEG_X * 3.0),
            Target::Entity(bait),
        ))
        .id();
    let dt = 1.0 / 64.0;
    let limit = (TURN_RATE * dt).to_radians();
    run_ticks(&mut app, 1);
    let (mut last, mut fastest, mut total) = (yaw(&app, creature), 0.0_f32, 0.0);
    for _ in 0..20 * 64 {
        run_ticks(&mut app, 1);
        let now = yaw(&app, creature);
        let step = turned(last, now);
        fastest = fastest.max(step);
        total += step;
        last = now;
    }
    assert!(
        fastest <= limit * (1.0 + 1e-3),
        "turned {fastest} rad in one tick; the limit is {limit}"
    );
    // It does turn: following the bait's 1.7 laps takes more than one and a half turns.
    assert!(
        total > 1.5 * std::f32::consts::TAU,
        "turned only {total} rad in all"
    );
    // And it stays on the bait's heels (its seeking settles at the bait's speed, about 8
    // behind; flying straight on it would be 70 away).
    let gap = app
        .world()
        .get::<Transform>(creature)
        .unwrap()
        .translation
        .distance(app.world().get::<Transform>(bait).unwrap().translation);
    assert!(gap < 10.0, "{gap} behind the bait");
}

#[test]
fn a_creature_walks_round_a_wall_to_a_target_behind_it() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    let wall = Vec3::new(10.0, 0.0, 0.0);
    let half_extents = Vec3::new(0.5, 6.0, 1.0);
    app.world_mut().spawn((
        Obstacle::Box { half_extents },
        Transform::from_translation(wall),
    ));
    let goal = Vec3::new(20.0, 0.0, 0.0);
    let creature = app
        .world_mut()
        .spawn((
            Agent,
            creature_limits(),
            Transform::from_xyz(0.0, 0.2, 0.0),
            Velocity(Vec3::X * 3.0),
            Target::Point(goal),
        ))
        .id();
    let (mut closest, mut inside) = (f32::INFINITY, 0);
    for _ in 0..20 * 64 {
        run_ticks(&mut app, 1);
        let p = app.world().get::<Transform>(creature).unwrap().translation;
        closest = closest.min(p.distance(goal));
        let local = (p - wall).abs();
        inside += u32::from(local.x < half_extents.x && local.y < half_extents.y);
    }
    assert_eq!(inside, 0, "ticks inside the wall");
    assert!(closest < 1.0, "got no nearer than {closest} to the target");
}

#[test]
fn two_creatures_meeting_head_on_pass_without_overlapping() {
    let tuning = FlockTuning {
        weights: FlockWeights {
            collision_avoidance: 1.0,
            ..default()
        },
        limits: creature_limits(),
        ..default()
    };
    let met = meet(FlockingPlugins::default().planar(), Vec3::ZERO, tuning);
    assert!(met.both_past, "they did not get past each other");
    assert!(
        met.closest >= Perception::default().collision_distance,
        "their centres came {} apart",
        met.closest
    );
}
