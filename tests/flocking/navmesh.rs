//! Navigation meshes: units cross a maze along the mesh's shortest paths without leaving it,
//! a thousand units sent at once are answered within the planner's budget, a destination off
//! the mesh is reported, and a mesh replaced (a door shut) re-plans every path.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{NavMeshPlanner, PathNotFound, PathStatus, PlannedPath};

use crate::support::*;
// The same maze as tiles, whose walls the crowd steers round: the mesh plans the way; until its
// edges are walls to the crowd, the obstacles it was built from are given too.
use crate::terrain::maze;

/// A planar app with squads, the terrain and the navmesh planning.
fn navmesh_app() -> App {
    create_test_app_with(FlockingPlugins::default().planar(), |app| {
        app.add_plugins((SquadsPlugin, TerrainPlugin, NavMeshPlugin));
    })
}

/// The walkable ground of three corridors two metres wide, joined at alternate ends (the
/// terrain tests' maze, traced as one outline): a goal at the bottom right lies straight below
/// a start at the top left, and the way there is about 40 m long.
fn maze_outline() -> Vec<Vec2> {
    [
        (1.0, 1.0),
        (15.0, 1.0),
        (15.0, 3.0),
        (5.0, 3.0),
        (5.0, 4.0),
        (15.0, 4.0),
        (15.0, 9.0),
        (1.0, 9.0),
        (1.0, 7.0),
        (11.0, 7.0),
        (11.0, 6.0),
        (1.0, 6.0),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .to_vec()
}

/// Every rule off: units stay where they are, and only their paths are watched.
fn hold_still(app: &mut App) {
    let weights = no_weights();
    tune_default_flock(
        app,
        FlockTuning {
            weights,
            ..default()
        },
    );
}

/// Spawns a unit at `from` sent to `to`.
fn send(app: &mut App, from: Vec3, to: Vec3) -> Entity {
    app.world_mut()
        .spawn((Agent, Transform::from_translation(from), Destination(to)))
        .id()
}

fn path_of(app: &App, unit: Entity) -> PlannedPath {
    app.world().get::<PlannedPath>(unit).unwrap().clone()
}

fn position(app: &App, unit: Entity) -> Vec3 {
    app.world().get::<Transform>(unit).unwrap().translation
}

#[test]
fn units_cross_a_maze_along_the_mesh_and_never_leave_it() {
    let mut app = navmesh_app();
    tune_default_flock(&mut app, FlockTuning::squad());
    let mesh = NavMesh::from_outline(&maze_outline(), [], 0.0).unwrap();
    app.insert_resource(mesh.clone()).insert_resource(maze());
    let goal = Vec3::new(13.5, 1.5, 0.0);
    let units: Vec<Entity> = (0..6)
        .map(|k| {
            let at = Vec3::new(1.5 + (k % 3) as f32, 8.5 - (k / 3) as f32, 0.0);
            send(&mut app, at, goal)
        })
        .collect();
    run_ticks(&mut app, 1);
    // The mesh's path (bending at the walls' corners), not the terrain's (through tile
    // centres).
    let start = Vec3::new(1.5, 8.5, 0.0);
    assert_eq!(
        Some(path_of(&app, units[0]).waypoints),
        mesh.find_path(start, goal)
    );
    let mut arrived = None;
    for tick in 2..=64 * 30 {
        run_ticks(&mut app, 1);
        for &unit in &units {
            let p = position(&app, unit);
            assert!(
                mesh.is_walkable_at(p),
                "unit {unit} left the mesh at {p} after {tick} ticks"
            );
        }
        if arrived.is_none()
            && units
                .iter()
                .all(|&u| position(&app, u).distance(goal) < 2.5)
        {
            arrived = Some(tick);
        }
    }
    let arrived = arrived.expect("the units never reached the goal");
    let path = path_of(&app, units[0]);
    println!(
        "navmesh maze: {} waypoints, all within 2.5 of the goal after {:.2} s",
        path.waypoints.len(),
        arrived as f32 / 64.0
    );
    assert_eq!(path.status, PathStatus::Found);
    // The shortest way bends at the four inner corners of the two walls.
    assert!(path.waypoints.len() >= 5, "{:?}", path.waypoints);
    assert_eq!(path.waypoints.last(), Some(&goal));
    assert!(arrived < 64 * 25, "arrived only after {arrived} ticks");
}

/// A town of 8 x 8 blocks, 10 m with 4 m streets, on a square 112 m across.
fn town() -> NavMesh {
    let square = |x0: f32, y0: f32, side: f32| {
        vec![
            Vec2::new(x0, y0),
            Vec2::new(x0 + side, y0),
            Vec2::new(x0 + side, y0 + side),
            Vec2::new(x0, y0 + side),
        ]
    };
    let blocks = (0..64).map(|k| {
        square(
            4.0 + 14.0 * (k % 8) as f32,
            4.0 + 14.0 * (k / 8) as f32,
            10.0,
        )
    });
    NavMesh::from_outline(&square(0.0, 0.0, 116.0), blocks, 0.0).unwrap()
}

#[test]
fn a_thousand_units_sent_at_once_are_answered_within_the_budget() {
    let mut app = navmesh_app();
    hold_still(&mut app);
    app.insert_resource(town());
    let budget = 64;
    app.world_mut()
        .resource_mut::<NavMeshPlanner>()
        .paths_per_tick = budget;
    // On the streets (every 14 m from 1 m), each to the street corner across the town.
    let street = |k: usize| 1.0 + 14.0 * (k % 9) as f32;
    let units: Vec<Entity> = (0..1000)
        .map(|k| {
            let from = Vec3::new(street(k), 2.0 + (k / 9) as f32, 0.0);
            let to = Vec3::new(street(k + 4), 115.0 - (k / 9) as f32 * 0.5, 0.0);
            send(&mut app, from, to)
        })
        .collect();
    let mut ticks = 0;
    while units
        .iter()
        .any(|&u| path_of(&app, u).status == PathStatus::Planning)
    {
        run_ticks(&mut app, 1);
        ticks += 1;
        let spent = app.world().resource::<NavMeshPlanner>().spent_last_tick();
        assert!(spent <= budget, "tick {ticks} planned {spent} paths");
        assert!(
            ticks <= 1000 / budget + 2,
            "still planning after {ticks} ticks"
        );
    }
    println!("1,000 units on the town's navmesh: all answered in {ticks} ticks");
    for &unit in &units {
        let path = path_of(&app, unit);
        assert_eq!(path.status, PathStatus::Found, "{unit}");
    }
}

#[test]
fn units_sent_together_to_one_point_share_the_first_path_found() {
    let mut app = navmesh_app();
    hold_still(&mut app);
    app.insert_resource(town());
    // One search a tick: the rest must be served by the path found.
    app.world_mut()
        .resource_mut::<NavMeshPlanner>()
        .paths_per_tick = 1;
    let goal = Vec3::new(113.0, 110.0, 0.0);
    // A crowd on one street corner, in sight of each other.
    let units: Vec<Entity> = (0..200)
        .map(|k| {
            let at = Vec3::new(
                1.0 + (k % 10) as f32 * 0.2,
                1.0 + (k / 10) as f32 * 0.1,
                0.0,
            );
            send(&mut app, at, goal)
        })
        .collect();
    run_ticks(&mut app, 2);
    let mesh = app.world().resource::<NavMesh>().clone();
    for &unit in &units {
        let path = path_of(&app, unit);
        assert_eq!(path.status, PathStatus::Found, "{unit}");
        assert_eq!(path.waypoints.last(), Some(&goal));
        let from = position(&app, unit);
        assert!(
            mesh.is_clear_line(from, path.waypoints[0]),
            "{unit}: {path:?}"
        );
    }
    // Units across the town do not see that path's first waypoint: each waits its turn.
    let far = send(&mut app, Vec3::new(113.0, 2.0, 0.0), goal);
    let elsewhere = send(&mut app, Vec3::new(2.0, 113.0, 0.0), goal);
    run_ticks(&mut app, 1);
    let planner = app.world().resource::<NavMeshPlanner>();
    assert_eq!(planner.spent_last_tick(), 1);
    assert_eq!(planner.waiting(), 1);
    run_ticks(&mut app, 1);
    for unit in [far, elsewhere] {
        assert_eq!(path_of(&app, unit).status, PathStatus::Found, "{unit}");
    }
}

/// The [`PathNotFound`]s triggered.
#[derive(Resource, Default)]
struct NotFound(Vec<PathNotFound>);

#[test]
fn a_destination_off_the_mesh_is_reported_once() {
    let mut app = navmesh_app();
    app.insert_resource(town());
    app.init_resource::<NotFound>().add_observer(
        |event: On<PathNotFound>, mut seen: ResMut<NotFound>| {
            seen.0.push(*event.event());
        },
    );
    // Inside the first block.
    let goal = Vec3::new(9.0, 9.0, 0.0);
    let unit = send(&mut app, Vec3::new(2.0, 2.0, 0.0), goal);
    run_ticks(&mut app, 10);
    assert_eq!(path_of(&app, unit).status, PathStatus::NoPath);
    let expected = PathNotFound {
        entity: unit,
        destination: goal,
    };
    assert_eq!(app.world().resource::<NotFound>().0, [expected]);
}

#[test]
fn a_mesh_replaced_plans_every_path_again() {
    // Two rooms side by side, 20 m square in all, the wall between them 2 m thick, from the
    // top down to 4 m above the floor's edge: the long way round passes below its end. With
    // the door open, a gap in the wall from 14 to 16 m.
    let room = |door_open: bool| {
        let points = |p: &[(f32, f32)]| p.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
        let top_of_wall = if door_open { 16.0 } else { 4.0 };
        let outline: Vec<Vec2> = points(&[
            (0.0, 0.0),
            (20.0, 0.0),
            (20.0, 20.0),
            (11.0, 20.0),
            (11.0, top_of_wall),
            (9.0, top_of_wall),
            (9.0, 20.0),
            (0.0, 20.0),
        ]);
        let below_door: Vec<Vec<Vec2>> = if door_open {
            vec![points(&[
                (9.0, 4.0),
                (11.0, 4.0),
                (11.0, 14.0),
                (9.0, 14.0),
            ])]
        } else {
            Vec::new()
        };
        NavMesh::from_outline(&outline, below_door, 0.0).unwrap()
    };
    let mut app = navmesh_app();
    hold_still(&mut app);
    app.insert_resource(room(true));
    let (from, goal) = (Vec3::new(5.0, 15.0, 0.0), Vec3::new(15.0, 15.0, 0.0));
    let unit = send(&mut app, from, goal);
    run_ticks(&mut app, 2);
    let through_door = path_of(&app, unit);
    assert_eq!(through_door.status, PathStatus::Found);
    assert!(
        through_door.waypoints.iter().all(|w| w.y > 13.0),
        "through the door: {:?}",
        through_door.waypoints
    );
    app.insert_resource(room(false));
    run_ticks(&mut app, 2);
    let round = path_of(&app, unit);
    assert_eq!(round.status, PathStatus::Found);
    assert!(
        round.waypoints.iter().any(|w| w.y < 5.0),
        "the door shut, round the wall's end below: {:?}",
        round.waypoints
    );
}
