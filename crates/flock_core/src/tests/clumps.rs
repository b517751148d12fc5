//! Crowds packed tighter than the neighbour cap allows: the velocity-obstacle step's work stays
//! bounded as the force pass's does, where it once scanned every agent in range.

use glam::Vec3;

use super::random_positions;
use crate::neighbours::scan_budget;
use crate::{AgentInput, Crowd, FlockTuning, Space, VelocityObstacles};

/// Agents in the clump: every one within the neighbour radius of every other.
const CLUMPED: usize = 3_000;

/// [`CLUMPED`] standing agents in a cube of side 0.5, tuned as `tuning` (the default cap of
/// 64 neighbours), their index built and their forces accumulated.
fn clump(tuning: FlockTuning) -> Crowd {
    let mut crowd = Crowd::new(Space::Volume);
    let params = crowd.add_params(tuning);
    for position in random_positions(CLUMPED, 0.25, 5) {
        crowd.push(AgentInput {
            position,
            velocity: Vec3::ZERO,
            heading: Vec3::ZERO,
            flock: 0,
            params,
            target: None,
        });
    }
    crowd.build_index();
    crowd.accumulate_forces();
    crowd
}

/// The most slots a bounded scan reaches in the clump, whose agents all share one cell and so
/// one run of slots: the cap's budget of candidates, and the rest of the block (of at most 64)
/// in which a scan reaches it.
fn reach(tuning: &FlockTuning) -> usize {
    let cap = tuning.perception.max_neighbours.expect("a cap") as usize;
    scan_budget(cap) + 64
}

/// Asserts that each agent of `crowd` avoids ten distinct neighbours, none itself, all within
/// the first `reach` slots of the clump: the step took them from a bounded scan, not from every
/// agent in range (which would find most agents' nearest further on).
fn assert_bounded(crowd: &Crowd, reach: usize) {
    let inputs = crowd.velocity_inputs();
    for slot in 0..crowd.len() {
        let mut avoided: Vec<usize> = (inputs.avoided_neighbours(slot).iter())
            .map(|&(other, _)| other)
            .collect();
        assert!(
            avoided.iter().all(|&other| other < reach),
            "slot {slot} avoids {avoided:?}, past the scan's reach of {reach}"
        );
        avoided.sort_unstable();
        avoided.dedup();
        assert_eq!(avoided.len(), 10, "slot {slot}");
        assert!(!avoided.contains(&slot), "slot {slot} avoids itself");
    }
}

#[test]
fn in_a_clump_the_step_avoids_the_nearest_the_force_pass_kept() {
    for mode in [VelocityObstacles::Reciprocal, VelocityObstacles::Solid] {
        let mut tuning = FlockTuning::default();
        tuning.perception.velocity_obstacles = mode;
        let crowd = clump(tuning);
        for slot in 0..crowd.len() {
            assert!(crowd.forces.nearest[slot].is_some(), "{mode:?} slot {slot}");
        }
        assert_bounded(&crowd, reach(&tuning));
    }
}

#[test]
fn in_a_clump_the_step_scanning_for_itself_stops_at_the_cap_budget() {
    // An avoidance mask that is not full: the force pass keeps no nearest, and the step scans.
    let mut tuning = FlockTuning::default();
    tuning.perception.velocity_obstacles = VelocityObstacles::Reciprocal;
    tuning.perception.avoidance_mask = 1;
    tuning.perception.avoidance_layers = 1;
    let crowd = clump(tuning);
    assert!(crowd.forces.nearest.iter().all(Option::is_none));
    assert_bounded(&crowd, reach(&tuning));
}
