//! The planner's queue: units sent elsewhere again and again while they wait each wait once,
//! and each gets the path to where it was sent last; units sent at once are answered in the
//! order of their ids, whatever the order Bevy stores them in.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{PathPlanner, PathStatus};

use crate::planning::{path_of, plan_all, planning_app, send};
use crate::support::*;

#[test]
fn units_sent_elsewhere_again_while_they_wait_wait_once_and_get_their_last_destination() {
    let (terrain, _, goal) = serpentine(33);
    // No budget: nothing is planned while the units change their minds.
    let mut app = planning_app(terrain, 0);
    let units: Vec<Entity> = (0..200)
        .map(|k| send(&mut app, Vec3::new(0.5 + (k % 30) as f32, 0.5, 0.0), goal))
        .collect();
    run_ticks(&mut app, 1);
    let mut last = goal;
    for round in 0..20 {
        last = Vec3::new(0.5 + round as f32, 32.5, 0.0);
        for &unit in &units {
            app.world_mut().entity_mut(unit).insert(Destination(last));
        }
        run_ticks(&mut app, 1);
        assert_eq!(
            app.world().resource::<PathPlanner>().waiting(),
            units.len(),
            "round {round}"
        );
    }
    app.world_mut().resource_mut::<PathPlanner>().tiles_per_tick = 5_000;
    plan_all(&mut app, &units, 400);
    for &unit in &units {
        let path = path_of(&app, unit);
        assert_eq!(path.status, PathStatus::Found, "{unit}");
        assert_eq!(path.destination, Some(last), "{unit}");
        assert_eq!(path.waypoints.last(), Some(&last), "{unit}");
    }
    assert_eq!(app.world().resource::<PathPlanner>().waiting(), 0);
}

/// The tick each of `ids` got its path, with the units given their destinations in `order`.
fn answered_at(ids: &[u64], order: &[u64]) -> Vec<u32> {
    let (terrain, ..) = serpentine(33);
    let mut app = planning_app(terrain, 300);
    let units: Vec<Entity> = ids
        .iter()
        .map(|&id| {
            let from = Vec3::new(0.5 + (id % 30) as f32, 0.5, 0.0);
            let unit =
                (app.world_mut()).spawn((Agent, AgentId(id), Transform::from_translation(from)));
            unit.id()
        })
        .collect();
    run_ticks(&mut app, 1);
    // A unit given a component moves to the end of another table: the order given is the
    // order Bevy then stores them in.
    for id in order {
        let unit = units[ids.iter().position(|i| i == id).unwrap()];
        // Each to its own point, so that each path is a search of its own.
        let goal = Vec3::new(0.5 + (id % 30) as f32, 32.5, 0.0);
        app.world_mut().entity_mut(unit).insert(Destination(goal));
    }
    let mut found = vec![0; ids.len()];
    for tick in 1..=400 {
        run_ticks(&mut app, 1);
        for (k, &unit) in units.iter().enumerate() {
            if found[k] == 0 && path_of(&app, unit).status == PathStatus::Found {
                found[k] = tick;
            }
        }
    }
    assert!(
        found.iter().all(|&t| t > 0),
        "every unit planned: {found:?}"
    );
    found
}

#[test]
fn units_sent_at_once_are_answered_in_the_order_of_their_ids_however_they_are_stored() {
    let ids: Vec<u64> = (0..12).map(|k| 100 + 7 * k).collect();
    let stored_forward = answered_at(&ids, &ids);
    let reversed: Vec<u64> = ids.iter().rev().copied().collect();
    let stored_backward = answered_at(&ids, &reversed);
    assert_eq!(stored_forward, stored_backward);
    // They are answered over several ticks, so the order matters.
    assert!(
        stored_forward.first() < stored_forward.last(),
        "{stored_forward:?}"
    );
}
