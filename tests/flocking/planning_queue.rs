//! The planner's queue: units sent elsewhere again and again while they wait each wait once,
//! and each gets the path to where it was sent last.

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
