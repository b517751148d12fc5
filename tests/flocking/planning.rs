//! The path planner: searches spread over ticks within their budget, plans shared by a squad
//! and reused by units sent to one point, re-planning only where a new wall crosses a path, and
//! a unit without a path told so once.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{PathNotFound, PathPlanner, PathStatus, PlannedPath};

use crate::support::*;

/// A planar app with `terrain`, whose units do not move (every weight zero), the planner held
/// to `tiles_per_tick`.
pub(crate) fn planning_app(terrain: Terrain, tiles_per_tick: u32) -> App {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    app.insert_resource(terrain);
    app.world_mut().resource_mut::<PathPlanner>().tiles_per_tick = tiles_per_tick;
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: no_weights(),
            ..default()
        },
    );
    app
}

/// Spawns a unit at `from` sent to `to`.
pub(crate) fn send(app: &mut App, from: Vec3, to: Vec3) -> Entity {
    app.world_mut()
        .spawn((Agent, Transform::from_translation(from), Destination(to)))
        .id()
}

pub(crate) fn path_of(app: &App, unit: Entity) -> PlannedPath {
    app.world().get::<PlannedPath>(unit).unwrap().clone()
}

/// Runs ticks until every unit's path is planned (at most `ticks`), asserting after each that
/// the planner kept to its budget; returns the ticks taken and the tiles expanded in all.
pub(crate) fn plan_all(app: &mut App, units: &[Entity], ticks: u32) -> (u32, u64) {
    let budget = app.world().resource::<PathPlanner>().tiles_per_tick;
    let mut expanded = 0;
    for tick in 1..=ticks {
        run_ticks(app, 1);
        let planner = app.world().resource::<PathPlanner>();
        assert!(
            planner.spent_last_tick() <= budget,
            "tick {tick} expanded {} tiles, over the budget of {budget}",
            planner.spent_last_tick()
        );
        expanded += u64::from(planner.spent_last_tick());
        if units
            .iter()
            .all(|&u| path_of(app, u).status != PathStatus::Planning)
        {
            return (tick, expanded);
        }
    }
    panic!("not every path was planned within {ticks} ticks");
}

/// Sends `n` units lined up along the serpentine's first corridor to its far end.
fn send_through_serpentine(app: &mut App, n: usize, goal: Vec3) -> Vec<Entity> {
    (0..n)
        .map(|k| send(app, Vec3::new(0.5 + k as f32, 0.5, 0.0), goal))
        .collect()
}

#[test]
fn a_long_search_is_spread_over_ticks_within_its_budget_and_finds_the_same_path() {
    let (terrain, start, goal) = serpentine(65);
    let expected = terrain.find_path(start, goal).expect("a path");
    let mut app = planning_app(terrain, 300);
    let unit = send_through_serpentine(&mut app, 1, goal)[0];
    let (ticks, expanded) = plan_all(&mut app, &[unit], 200);
    let path = path_of(&app, unit);
    println!("one unit through a 65^2 serpentine: {ticks} ticks, {expanded} tiles expanded");
    assert!(
        ticks > 3,
        "a search of {expanded} tiles took only {ticks} ticks"
    );
    assert_eq!(path.status, PathStatus::Found);
    assert_eq!(
        path.waypoints, expected,
        "split over ticks, the search finds the path it finds at once"
    );
}

#[test]
fn units_sent_to_one_point_reuse_a_path_instead_of_each_searching() {
    let (terrain, _, goal) = serpentine(65);
    let mut alone = planning_app(terrain.clone(), 300);
    let unit = send_through_serpentine(&mut alone, 1, goal);
    let (_, one_search) = plan_all(&mut alone, &unit, 200);
    let mut app = planning_app(terrain, 300);
    let units = send_through_serpentine(&mut app, 8, goal);
    let (ticks, expanded) = plan_all(&mut app, &units, 400);
    println!(
        "8 units to one point: {ticks} ticks, {expanded} tiles (one unit alone: {one_search})"
    );
    assert!(
        expanded < 2 * one_search,
        "8 units expanded {expanded} tiles, one alone {one_search}: they searched each"
    );
    for &unit in &units {
        let path = path_of(&app, unit);
        assert_eq!(path.status, PathStatus::Found);
        assert_eq!(path.waypoints.last(), Some(&goal));
    }
}

#[test]
fn a_squad_plans_one_path_for_all_its_members() {
    let (terrain, _, _) = serpentine(33);
    let mut app = planning_app(terrain, 100_000);
    let squad = spawn_flock(&mut app, FlockTuning::squad());
    app.world_mut()
        .entity_mut(squad)
        .insert(Destination(Vec3::new(16.5, 32.5, 0.0)));
    let members: Vec<Entity> = (0..6)
        .map(|k| {
            app.world_mut()
                .spawn((
                    Agent,
                    InFlock(squad),
                    Transform::from_xyz(2.5 + k as f32, 0.5, 0.0),
                ))
                .id()
        })
        .collect();
    run_ticks(&mut app, 1);
    let shared = path_of(&app, members[0]).waypoints;
    let shared = &shared[..shared.len() - 1];
    assert!(shared.len() > 10, "the way up the serpentine: {shared:?}");
    for &member in &members {
        let path = path_of(&app, member);
        let place = app.world().get::<Destination>(member).unwrap().0;
        assert_eq!(path.status, PathStatus::Found);
        assert_eq!(&path.waypoints[..path.waypoints.len() - 1], shared);
        assert_eq!(path.waypoints.last(), Some(&place));
    }
}

/// Counts the [`PathNotFound`] events triggered.
#[derive(Resource, Default)]
struct NotFound(Vec<PathNotFound>);

#[test]
fn only_the_paths_a_new_wall_crosses_are_planned_again() {
    let mut app = planning_app(Terrain::new(Vec2::ZERO, 1.0, UVec2::new(40, 20)), 20_000);
    // Two units crossing the map in lanes far apart.
    let low = send(
        &mut app,
        Vec3::new(1.5, 3.5, 0.0),
        Vec3::new(38.5, 3.5, 0.0),
    );
    let high = send(
        &mut app,
        Vec3::new(1.5, 16.5, 0.0),
        Vec3::new(38.5, 16.5, 0.0),
    );
    run_ticks(&mut app, 2);
    let high_before = path_of(&app, high);
    // A wall off both lanes: nothing to plan.
    set_walls(&mut app, (18..22).map(|y| UVec2::new(20, y - 8)));
    run_ticks(&mut app, 1);
    assert_eq!(
        app.world().resource::<PathPlanner>().spent_last_tick(),
        0,
        "a wall across no path planned something"
    );
    // A wall across the low lane only: the low unit plans round it, the high one keeps its path.
    set_walls(&mut app, (1..7).map(|y| UVec2::new(20, y)));
    run_ticks(&mut app, 1);
    assert!(app.world().resource::<PathPlanner>().spent_last_tick() > 0);
    let low_path = path_of(&app, low);
    assert_eq!(low_path.status, PathStatus::Found);
    assert!(
        low_path.waypoints.len() > 1,
        "round the wall: {:?}",
        low_path.waypoints
    );
    assert_eq!(path_of(&app, high), high_before);
}

/// Makes `tiles` of the app's terrain unwalkable.
pub(crate) fn set_walls(app: &mut App, tiles: impl IntoIterator<Item = UVec2>) {
    let mut terrain = app.world_mut().resource_mut::<Terrain>();
    for tile in tiles {
        terrain.set_walkable(tile, false);
    }
}

#[test]
fn a_walled_in_goal_is_answered_from_regions_worked_out_a_share_a_tick() {
    // A 256 x 256 open map, the goal walled in: a search would flood all 65,536 tiles.
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(256));
    let goal = UVec2::new(200, 200);
    set_ring(&mut terrain, goal);
    let budget = 200;
    let mut app = planning_app(terrain, budget);
    let goal = Vec3::new(200.5, 200.5, 0.0);
    let unit = send(&mut app, Vec3::new(3.5, 3.5, 0.0), goal);
    let (ticks, spent) = plan_all(&mut app, &[unit], 1_000);
    println!("walled-in goal on 256^2: {ticks} ticks, {spent} tiles' worth of work");
    assert_eq!(path_of(&app, unit).status, PathStatus::NoPath);
    // The regions scan every tile once, at 64 tiles for one expanded: about 1,100 in all,
    // with as much again for the search that ran beside them until they were known.
    assert!(
        spent < 4_000,
        "{spent} tiles' worth of work for a goal the regions rule out"
    );
    assert!(ticks > 5, "the regions' work was not spread: {ticks} ticks");
}

/// Makes the ring of tiles round `tile` unwalkable.
pub(crate) fn set_ring(terrain: &mut Terrain, tile: UVec2) {
    for dy in -1..=1 {
        for dx in -1..=1 {
            if (dx, dy) != (0, 0) {
                terrain.set_walkable(tile.saturating_add_signed(IVec2::new(dx, dy)), false);
            }
        }
    }
}

#[test]
fn a_search_that_a_new_wall_crosses_is_made_again_on_the_terrain_as_it_is() {
    let mut app = planning_app(Terrain::new(Vec2::ZERO, 1.0, UVec2::new(80, 20)), 30);
    let unit = send(
        &mut app,
        Vec3::new(1.5, 10.5, 0.0),
        Vec3::new(78.5, 10.5, 0.0),
    );
    // The straight search has passed x = 10 after two ticks of 30 tiles.
    run_ticks(&mut app, 2);
    assert_eq!(path_of(&app, unit).status, PathStatus::Planning);
    set_walls(&mut app, (4..17).map(|y| UVec2::new(10, y)));
    plan_all(&mut app, &[unit], 200);
    let path = path_of(&app, unit);
    assert_eq!(path.status, PathStatus::Found);
    let terrain = app.world().resource::<Terrain>();
    clear_path_length(terrain, Vec3::new(1.5, 10.5, 0.0), &path.waypoints);
    assert!(path.waypoints.len() > 1, "round the wall: {path:?}");
}

#[test]
fn a_unit_sent_elsewhere_while_it_waits_gets_the_path_to_its_new_destination() {
    let (terrain, _, goal) = serpentine(33);
    let mut app = planning_app(terrain, 50);
    let unit = send_through_serpentine(&mut app, 1, goal)[0];
    run_ticks(&mut app, 3);
    let elsewhere = Vec3::new(20.5, 0.5, 0.0);
    app.world_mut()
        .entity_mut(unit)
        .insert(Destination(elsewhere));
    plan_all(&mut app, &[unit], 400);
    let path = path_of(&app, unit);
    assert_eq!(path.destination, Some(elsewhere));
    assert_eq!(path.waypoints.last(), Some(&elsewhere));
    assert_eq!(app.world().resource::<PathPlanner>().waiting(), 0);
}

#[test]
fn units_despawned_or_stopped_while_they_wait_leave_nothing_in_the_planner() {
    let (terrain, _, goal) = serpentine(65);
    let mut app = planning_app(terrain, 20);
    let units = send_through_serpentine(&mut app, 3, goal);
    run_ticks(&mut app, 1);
    assert_eq!(app.world().resource::<PathPlanner>().waiting(), 3);
    app.world_mut().despawn(units[0]);
    app.world_mut().entity_mut(units[1]).remove::<Destination>();
    run_ticks(&mut app, 1);
    assert_eq!(app.world().resource::<PathPlanner>().waiting(), 1);
}

#[test]
fn a_squad_plans_once_again_when_a_wall_rises_across_its_path() {
    let mut app = planning_app(Terrain::new(Vec2::ZERO, 1.0, UVec2::new(40, 20)), 100_000);
    let squad = spawn_flock(&mut app, FlockTuning::squad());
    let members: Vec<Entity> = (0..6)
        .map(|k| {
            let at = Vec3::new(2.5 + (k % 2) as f32, 8.5 + (k / 2) as f32, 0.0);
            app.world_mut()
                .spawn((Agent, InFlock(squad), Transform::from_translation(at)))
                .id()
        })
        .collect();
    app.world_mut()
        .entity_mut(squad)
        .insert(Destination(Vec3::new(36.5, 9.5, 0.0)));
    run_ticks(&mut app, 2);
    set_walls(&mut app, (3..18).map(|y| UVec2::new(20, y)));
    run_ticks(&mut app, 1);
    let squad_path = app
        .world()
        .get::<Formation>(squad)
        .and_then(|f| f.path.clone())
        .expect("the squad's path");
    let terrain = app.world().resource::<Terrain>();
    let from = app
        .world()
        .get::<Transform>(members[0])
        .unwrap()
        .translation;
    clear_path_length(terrain, from, &squad_path);
    for &member in &members {
        let path = path_of(&app, member);
        assert_eq!(
            &path.waypoints[..path.waypoints.len() - 1],
            squad_path.as_slice(),
            "a member planned on its own"
        );
    }
}

#[test]
fn a_unit_is_told_of_no_path_again_only_after_it_had_one() {
    let terrain = Terrain::from_rows(
        Vec2::ZERO,
        1.0,
        &["......", "..###.", "..#.#.", "..###.", "......"],
    );
    let mut app = planning_app(terrain, 20_000);
    app.init_resource::<NotFound>().add_observer(
        |event: On<PathNotFound>, mut seen: ResMut<NotFound>| {
            seen.0.push(*event.event());
        },
    );
    let goal = Vec3::new(3.5, 2.5, 0.0);
    let unit = send(&mut app, Vec3::new(0.5, 0.5, 0.0), goal);
    run_ticks(&mut app, 2);
    assert_eq!(path_of(&app, unit).status, PathStatus::NoPath);
    assert_eq!(
        app.world().resource::<NotFound>().0,
        [PathNotFound {
            entity: unit,
            destination: goal
        }]
    );
    let told = |app: &App| app.world().resource::<NotFound>().0.len();
    // A wall elsewhere: planned again, still none, not told again.
    set_walls(&mut app, [UVec2::new(0, 4)]);
    run_ticks(&mut app, 2);
    assert_eq!(path_of(&app, unit).status, PathStatus::NoPath);
    assert_eq!(told(&app), 1);
    // Opened, then closed again: it had a path and lost it.
    app.world_mut()
        .resource_mut::<Terrain>()
        .set_walkable(UVec2::new(3, 1), true);
    run_ticks(&mut app, 1);
    let path = path_of(&app, unit);
    assert_eq!(path.status, PathStatus::Found);
    assert_eq!(path.waypoints.last(), Some(&goal));
    assert_eq!(told(&app), 1);
    set_walls(&mut app, [UVec2::new(3, 1)]);
    run_ticks(&mut app, 1);
    assert_eq!(path_of(&app, unit).status, PathStatus::NoPath);
    assert_eq!(told(&app), 2);
}

#[test]
fn a_terrain_put_in_place_of_another_re_plans_every_path() {
    // The same number of changes on both, so that only the terrain's identity tells them apart.
    let mut first = Terrain::new(Vec2::ZERO, 1.0, UVec2::new(40, 20));
    let mut second = first.clone();
    for x in 0..19 {
        first.set_walkable(UVec2::new(x, 19), false);
    }
    for y in 0..19 {
        second.set_walkable(UVec2::new(20, y), false);
    }
    let mut app = planning_app(first, 20_000);
    let from = Vec3::new(1.5, 3.5, 0.0);
    let unit = send(&mut app, from, Vec3::new(38.5, 3.5, 0.0));
    run_ticks(&mut app, 2);
    assert_eq!(path_of(&app, unit).waypoints.len(), 1, "straight across");
    *app.world_mut().resource_mut::<Terrain>() = second;
    run_ticks(&mut app, 1);
    let path = path_of(&app, unit);
    let terrain = app.world().resource::<Terrain>();
    clear_path_length(terrain, from, &path.waypoints);
}

/// Following keeps the waypoints it heads for beside the path; a path that game code rewrites
/// is still followed as written, from the next tick on.
#[test]
fn a_path_rewritten_by_game_code_is_followed_as_written() {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: no_weights(),
            ..default()
        },
    );
    let goal = Vec3::new(20.0, 0.0, 0.0);
    let unit = send(&mut app, Vec3::ZERO, goal);
    run_ticks(&mut app, 2);
    assert_eq!(app.world().get::<Target>(unit), Some(&Target::Point(goal)));
    // On open ground every waypoint is in sight: the unit heads for the last.
    let elsewhere = Vec3::new(0.0, 15.0, 0.0);
    {
        let mut path = app.world_mut().get_mut::<PlannedPath>(unit).unwrap();
        path.waypoints = vec![Vec3::new(5.0, 5.0, 0.0), elsewhere];
        path.next = 0;
    }
    run_ticks(&mut app, 1);
    assert_eq!(
        app.world().get::<Target>(unit),
        Some(&Target::Point(elsewhere))
    );
    assert_eq!(path_of(&app, unit).next, 1);
    // A path cut back to one waypoint.
    app.world_mut()
        .get_mut::<PlannedPath>(unit)
        .unwrap()
        .waypoints
        .truncate(1);
    app.world_mut().get_mut::<PlannedPath>(unit).unwrap().next = 0;
    run_ticks(&mut app, 1);
    assert_eq!(
        app.world().get::<Target>(unit),
        Some(&Target::Point(Vec3::new(5.0, 5.0, 0.0)))
    );
}

/// Whether the kernel was told that `unit`'s target is in sight along a clear way.
fn target_in_sight(app: &App, unit: Entity) -> bool {
    let sim = app.world().resource::<FlockSimulation>();
    let i = sim.index_of(unit).expect("an agent of the crowd");
    sim.crowd().target_in_sight(i)
}

/// A unit following its path tells the kernel its waypoint is in sight (its avoidance then
/// looks ahead along the path); once game code takes its target back, it no longer does.
#[test]
fn a_unit_following_its_path_has_its_waypoint_in_sight_until_the_game_steers_it() {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    let unit = send(&mut app, Vec3::ZERO, Vec3::new(20.0, 0.0, 0.0));
    run_ticks(&mut app, 2);
    assert!(target_in_sight(&app, unit), "following its path");
    let elsewhere = Target::Point(Vec3::new(0.0, 15.0, 0.0));
    app.world_mut().entity_mut(unit).remove::<Destination>();
    app.world_mut().entity_mut(unit).insert(elsewhere);
    run_ticks(&mut app, 1);
    assert_eq!(app.world().get::<Target>(unit), Some(&elsewhere));
    assert!(!target_in_sight(&app, unit), "steered by the game");
}
