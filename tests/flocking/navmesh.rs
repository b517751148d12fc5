//! Navigation meshes: units cross a maze along the mesh's shortest paths without leaving it,
//! a crowd of two body sizes chased by a predator keeps every body on the ground at every tick
//! (the same however the passes are split, and on one compute thread or two), a thousand units
//! sent at once are answered within the planner's budget, a destination off the mesh is
//! reported, a mesh replaced (a door shut) re-plans every path, and a unit pushed out of sight
//! of its way mends it.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{NavMeshPlanner, PathNotFound, PathStatus, PlannedPath};

use crate::support::*;

/// A planar app with squads, the terrain and the navmesh planning.
fn navmesh_app() -> App {
    create_test_app_with(FlockingPlugins::default().planar(), install_navmesh)
}

fn install_navmesh(app: &mut App) {
    app.add_plugins((SquadsPlugin, TerrainPlugin, NavMeshPlugin));
}

/// How far `point` is from the nearest of the mesh's walls.
fn gap_to_walls(mesh: &NavMesh, point: Vec3) -> f32 {
    let p = point.truncate();
    mesh.walls(0)
        .map(|[a, b]| {
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + (b - a) * t)
        })
        .fold(f32::INFINITY, f32::min)
}

/// Panics unless the body of `radius` at `point` is on the mesh's ground, within 5% of its
/// radius of wholly.
fn assert_on_ground(mesh: &NavMesh, unit: Entity, point: Vec3, radius: f32, tick: u32) {
    assert!(
        mesh.is_walkable_at(point),
        "unit {unit} left the ground at {point} after {tick} ticks"
    );
    let gap = gap_to_walls(mesh, point);
    assert!(
        gap >= 0.95 * radius,
        "unit {unit}'s body (radius {radius}) is {:.3} m into a wall at {point} after {tick} ticks",
        radius - gap
    );
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
    // The units' bodies are 0.35 m across (the default collision distance of 0.7): the
    // corridors' walls, the mesh's own, keep them clear with no other obstacle given.
    let radius = 0.35;
    let mesh = NavMesh::from_outline(&maze_outline(), [], radius).unwrap();
    app.insert_resource(mesh.clone());
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
            assert_on_ground(&mesh, unit, position(&app, unit), radius, tick);
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

/// A town of 8 x 8 blocks, 10 m with 4 m streets, on a square 116 m across; paths keep
/// `clearance` from its walls.
pub(crate) fn town_kept(clearance: f32) -> NavMesh {
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
    NavMesh::from_outline(&square(0.0, 0.0, 116.0), blocks, clearance).unwrap()
}

/// [`town_kept`] with no clearance.
fn town() -> NavMesh {
    town_kept(0.0)
}

/// The predator of [`chased_through_town`].
#[derive(Component)]
struct Hunter;

/// Drives the hunter up and down the town's fifth street from the left, at 3 m/s, with exact
/// arithmetic only.
fn drive_hunter(mut hunter: Query<&mut Transform, With<Hunter>>, ticks: Res<Ticks>) {
    for mut transform in &mut hunter {
        let along = (ticks.0 % 640) as f32 * (3.0 / 64.0);
        let y = if along < 60.0 {
            2.0 + along
        } else {
            122.0 - along
        };
        transform.translation = Vec3::new(58.0, y, 0.0);
    }
}

/// In `app` (a [`navmesh_app`]), 240 units of two body sizes (radius 0.3 and 0.5) start in the
/// town's lower streets, each sent to the crossing of the middle street with the next street
/// to the right (about 60 m away), with reciprocal velocity obstacles between them, while a
/// predator they flee runs up and down a street through them and some start at full speed
/// into a wall. Checks every body is on the ground at every tick for `seconds`; returns a hash
/// of every unit's final position and velocity, and how many came within 4 m of their goals.
fn chased_through_town(parallel_chunk_size: usize, seconds: u32, mut app: App) -> (u64, usize) {
    app.world_mut()
        .resource_mut::<FlockingConfig>()
        .parallel_chunk_size = Some(parallel_chunk_size);
    app.add_systems(FixedUpdate, drive_hunter.in_set(FlockingSystems::First));
    let mesh = town_kept(0.5);
    app.insert_resource(mesh.clone());
    app.world_mut()
        .spawn((Hunter, Predator { radius: 8.0 }, Transform::default()));
    let sized = |collision_distance: f32| {
        let mut tuning = FlockTuning::squad();
        tuning.weights.flee = 2.0;
        tuning.perception.collision_distance = collision_distance;
        tuning.perception.velocity_obstacles = VelocityObstacles::Reciprocal;
        tuning
    };
    let flocks = [
        spawn_flock(&mut app, sized(0.6)),
        spawn_flock(&mut app, sized(1.0)),
    ];
    let street = |k: usize| 2.0 + 14.0 * (k % 9) as f32;
    let mut units = Vec::new();
    for k in 0..240 {
        let radius = if k % 2 == 0 { 0.3 } else { 0.5 };
        // In the streets that run up the town, three abreast, a metre and a half apart.
        let from = Vec3::new(
            street(k / 3) + (k % 3) as f32 - 1.0,
            3.0 + (k / 27) as f32 * 1.5,
            0.0,
        );
        // One street to the right (the last street straight up).
        let to = Vec3::new(street((k / 3 % 9 + 1).min(8)), 58.0, 0.0);
        let push = if k % 5 == 0 {
            Vec3::X * 4.0
        } else {
            Vec3::ZERO
        };
        let unit = app
            .world_mut()
            .spawn((
                Agent,
                InFlock(flocks[k % 2]),
                Transform::from_translation(from),
                Velocity(push),
                Destination(to),
            ))
            .id();
        units.push((unit, radius, to));
    }
    let mut reached = vec![false; units.len()];
    for tick in 1..=64 * seconds {
        run_ticks(&mut app, 1);
        for (&(unit, radius, to), reached) in units.iter().zip(&mut reached) {
            let at = position(&app, unit);
            assert_on_ground(&mesh, unit, at, radius, tick);
            *reached |= at.distance(to) < 4.0;
        }
    }
    let arrived = reached.iter().filter(|&&r| r).count();
    let mut hash = 0xCBF2_9CE4_8422_2325_u64;
    for &(unit, _, _) in &units {
        let p = position(&app, unit);
        let v = app.world().get::<Velocity>(unit).unwrap().0;
        for bits in [p.x, p.y, p.z, v.x, v.y, v.z].map(f32::to_bits) {
            for byte in bits.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
            }
        }
    }
    (hash, arrived)
}

#[test]
fn a_crowd_chased_through_town_keeps_every_body_on_the_ground_however_the_passes_are_split() {
    let (whole, arrived) = chased_through_town(usize::MAX, 50, navmesh_app());
    println!("navmesh town chase: {arrived} of 240 came within 4 m of their goals in 50 s");
    assert!(arrived >= 228, "only {arrived} of 240 arrived");
    assert_eq!(
        chased_through_town(16, 50, navmesh_app()),
        (whole, arrived),
        "tasks of 16 agents differ from one task"
    );
}

/// Set in a process of its own, the compute threads the chase through town runs on.
const COMPUTE_THREADS: &str = "BEVY_FLOCK_TEST_COMPUTE_THREADS";

#[test]
fn a_crowd_chased_through_town_is_the_same_on_one_compute_thread_and_on_two() {
    const NAME: &str =
        "navmesh::a_crowd_chased_through_town_is_the_same_on_one_compute_thread_and_on_two";
    if let Ok(threads) = std::env::var(COMPUTE_THREADS) {
        // In the process of its own: the chase for 10 s, in tasks of 16 agents.
        let threads = threads.parse().expect("a thread count");
        let app = create_test_app_on_threads(
            FlockingPlugins::default().planar(),
            threads,
            install_navmesh,
        );
        let pool = bevy::tasks::ComputeTaskPool::get().thread_num();
        assert_eq!(pool, threads, "the compute pool's threads");
        let (hash, arrived) = chased_through_town(16, 10, app);
        println!("chase: hash {hash:016x}, {arrived} arrived");
        return;
    }
    let chase_on = |threads: &str| {
        let printed = in_own_process(NAME, COMPUTE_THREADS, threads);
        // The test harness prints the test's name on the same line.
        (printed.lines())
            .find_map(|line| line.find("chase: ").map(|at| line[at..].to_owned()))
            .unwrap_or_else(|| panic!("no chase on {threads} threads in:\n{printed}"))
    };
    assert_eq!(chase_on("1"), chase_on("2"));
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

#[test]
fn a_unit_pushed_out_of_sight_of_its_way_mends_it_from_the_waypoints_ahead() {
    let mut app = navmesh_app();
    hold_still(&mut app);
    let mesh = NavMesh::from_outline(&maze_outline(), [], 0.35).unwrap();
    app.insert_resource(mesh.clone());
    let goal = Vec3::new(13.5, 1.5, 0.0);
    let unit = send(&mut app, Vec3::new(1.5, 8.5, 0.0), goal);
    run_ticks(&mut app, 1);
    let before = path_of(&app, unit);
    assert_eq!(before.status, PathStatus::Found);
    // Thrown into the middle corridor, past the bend its path takes through the right end:
    // it sees neither its next waypoint nor the one after, behind the top wall.
    let thrown = Vec3::new(3.0, 5.0, 0.0);
    app.world_mut()
        .get_mut::<Transform>(unit)
        .unwrap()
        .translation = thrown;
    run_ticks(&mut app, 1);
    let mended = path_of(&app, unit);
    assert_eq!(mended.status, PathStatus::Found);
    assert_eq!(mended.destination, Some(goal));
    assert_eq!(
        app.world().resource::<NavMeshPlanner>().spent_last_tick(),
        1,
        "one search"
    );
    // It rejoins its way at a waypoint ahead round the bottom wall's end, not back at the top
    // wall's: the way from where it is to the goal, the rest of its path kept.
    let rest = &before.waypoints[before.waypoints.len() - 2..];
    assert!(mended.waypoints.ends_with(rest), "{mended:?}");
    assert_eq!(
        Some(mended.waypoints[mended.next..].to_vec()),
        mesh.find_path(thrown, goal)
    );
    assert!(mesh.sees(thrown, mended.waypoints[mended.next]));
}
