//! What `crowd_plaza` counts and shows: overlapping bodies, walkers across and stuck, the flow
//! through the door and the density before it.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use super::{BEFORE_DOOR, BODY, FLOW_WINDOW, Mode};

/// What the counters have seen since the mode last changed.
#[derive(Resource, Default)]
pub(crate) struct Tally {
    pub(crate) mode: Option<Mode>,
    /// Pairs of bodies overlapping after the last tick.
    pub(crate) overlapping_now: usize,
    /// The deepest overlap after the last tick, and since the mode changed, as shares of the
    /// body radius.
    pub(crate) deepest_now: f32,
    pub(crate) deepest: f32,
    /// Walkers that made it across, and `AgentStuck` events.
    pub(crate) crossed: usize,
    pub(crate) stuck: usize,
    /// The walkers whose bodies overlap another's.
    pub(crate) overlapping: Vec<Vec3>,
    /// When walkers went through the door, in the last [`FLOW_WINDOW`] seconds.
    pub(crate) through_door: std::collections::VecDeque<f32>,
    /// Walkers per m² in the area [`BEFORE_DOOR`] after the last tick.
    pub(crate) before_door: f32,
}

/// The text the status is written into.
#[derive(Component)]
pub(crate) struct StatusText;

/// Counts the pairs of bodies that overlap after this tick, by checking every pair: a few
/// hundred walkers make tens of thousands of pairs, a fraction of a millisecond.
pub(crate) fn count_overlaps(walkers: Query<&Transform, With<Agent>>, mut tally: ResMut<Tally>) {
    let points: Vec<Vec3> = walkers.iter().map(|t| t.translation).collect();
    let mut overlapping = vec![false; points.len()];
    let (mut pairs, mut deepest) = (0, 0.0_f32);
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            let overlap = BODY - points[i].distance(points[j]);
            if overlap > 0.0 {
                pairs += 1;
                deepest = deepest.max(overlap / (0.5 * BODY));
                overlapping[i] = true;
                overlapping[j] = true;
            }
        }
    }
    let [low, high] = BEFORE_DOOR;
    let before_door = (points.iter())
        .filter(|p| (low.x..high.x).contains(&p.x) && (low.y..high.y).contains(&p.y))
        .count();
    tally.before_door = before_door as f32 / ((high.x - low.x) * (high.y - low.y));
    tally.overlapping_now = pairs;
    tally.deepest_now = deepest;
    tally.deepest = tally.deepest.max(deepest);
    tally.overlapping = points
        .iter()
        .zip(&overlapping)
        .filter(|(_, overlaps)| **overlaps)
        .map(|(point, _)| *point)
        .collect();
}

/// Counts the walkers reported stuck.
pub(crate) fn count_stuck(_stuck: On<AgentStuck>, mut tally: ResMut<Tally>) {
    tally.stuck += 1;
}

/// The status line under the mode buttons.
pub(crate) fn show_status(
    tally: Res<Tally>,
    metrics: Res<FlockMetrics>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    text.0 = format!(
        "Orange walkers head east through the door, blue ones north across them.\n\
         overlapping pairs {} (deepest {:.0}% of the radius; {:.0}% since the switch)   \
         crossed {}   stuck {}\n\
         through the door {:.2} a second (last {FLOW_WINDOW:.0} s)   before it {:.2} per square metre   \
         walkers {}   step {:.2} ms",
        tally.overlapping_now,
        100.0 * tally.deepest_now,
        100.0 * tally.deepest,
        tally.crossed,
        tally.stuck,
        tally.through_door.len() as f32 / FLOW_WINDOW,
        tally.before_door,
        metrics.agents,
        metrics.step_time.as_secs_f64() * 1000.0,
    );
}

/// Rings each walker whose body overlaps another's in red.
pub(crate) fn ring_overlaps(mut gizmos: Gizmos, tally: Res<Tally>) {
    for point in &tally.overlapping {
        gizmos.circle_2d(
            point.truncate(),
            0.5 * BODY + 0.1,
            Color::srgb(1.0, 0.2, 0.2),
        );
    }
}
