//! Agents on a collision course predict it and sidestep: two meeting head on pass each other.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// How two agents meeting went: the closest their centres came, and whether each got past the
/// other's starting point.
struct Meeting {
    closest: f32,
    both_past: bool,
}

/// Two agents start 40 apart, `lateral` off each other's line, each seeking a point beyond the
/// other's start, in its own flock (so only separation and collision avoidance act between
/// them) with `weights`.
fn meet(plugin: FlockingPlugin, lateral: Vec3, weights: FlockWeights) -> Meeting {
    let mut app = create_test_app(plugin);
    let tuning = FlockTuning {
        weights,
        ..default()
    };
    let starts = [
        Vec3::new(-20.0, 0.0, 0.0),
        Vec3::new(20.0, 0.0, 0.0) + lateral,
    ];
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| {
            let flock = spawn_flock(&mut app, tuning);
            let goal = Vec3::new(-start.x * 1.5, start.y, start.z);
            app.world_mut()
                .spawn((
                    Agent,
                    InFlock(flock),
                    Transform::from_translation(start),
                    Velocity((goal - start).normalize() * 5.0),
                    Target::Point(goal),
                ))
                .id()
        })
        .collect();
    let mut closest = f32::INFINITY;
    for _ in 0..12 * 64 {
        run_ticks(&mut app, 1);
        let [a, b] = [agents[0], agents[1]]
            .map(|agent| app.world().get::<Transform>(agent).unwrap().translation);
        closest = closest.min(a.distance(b));
    }
    let [a, b] = [agents[0], agents[1]]
        .map(|agent| app.world().get::<Transform>(agent).unwrap().translation);
    Meeting {
        closest,
        both_past: a.x > 20.0 && b.x < -20.0,
    }
}

fn planes() -> [(FlockingPlugin, &'static str); 2] {
    [
        (FlockingPlugin::default().planar(), "2D"),
        (FlockingPlugin::default(), "3D"),
    ]
}

/// The default weights with collision avoidance on.
fn avoiding() -> FlockWeights {
    FlockWeights {
        collision_avoidance: 1.0,
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
        let met = meet(plugin, Vec3::ZERO, FlockWeights::default());
        assert!(
            met.closest < 0.35,
            "{space}: {} apart without prediction",
            met.closest
        );
    }
}
