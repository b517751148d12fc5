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
