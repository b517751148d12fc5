//! Snapshots of a crowd on a navmesh: sixty units sent across a town of blocks, with a planner
//! of one path a tick, so that at the snapshots paths wait their turn, answers wait to be taken
//! and paths found are kept for reuse. Saved at 300 and loaded into a new app (which inserts
//! the same mesh before the restore, as a game does), the crowd continues bit for bit to 600,
//! and a rollback from 300 to 280 replays the same ticks. The same on a navmesh of floors,
//! whose units are moved between floors as they cross the joins.

use bevy::prelude::*;
use bevy_flock::NavMeshPlanner;
use bevy_flock::prelude::*;

use crate::navmesh::town_kept;
use crate::navmesh_floors::{DECK, town};
use crate::snapshot::{
    Scene, find, loads_into_a_new_app_and_continues, original, paths_in_play,
    rolls_back_and_replays,
};
use crate::support::*;

/// The units; unit `k` has id `k`.
const UNITS: u64 = 60;

/// The crossing of street `column` (from the left) with street `row` (from the bottom).
fn crossing(column: u64, row: u64) -> Vec3 {
    Vec3::new(2.0 + 14.0 * column as f32, 2.0 + 14.0 * row as f32, 0.0)
}

/// The town of [`town_kept`], kept 0.5 m from its walls, with the units in its lower streets
/// each sent to a crossing four to six streets up, and a planner of one path a tick.
fn town_scene() -> App {
    let (mut app, flock) = squads_on(town_kept(0.5), 11);
    app.world_mut()
        .resource_mut::<NavMeshPlanner>()
        .paths_per_tick = 1;
    for k in 0..UNITS {
        let from = crossing(k % 9, 0) + Vec3::new((k / 9) as f32 * 0.8 - 2.4, 0.5, 0.0);
        spawn_unit(&mut app, flock, k, from, crossing((k * 5) % 9, 4 + k % 3));
    }
    app
}

/// An app of squads on `mesh` whose flock (returned) avoids with `Reciprocal` velocity
/// obstacles, seeded with `seed`.
fn squads_on(mesh: NavMesh, seed: u64) -> (App, Entity) {
    let mut app = create_test_app_with(FlockingPlugins::default().planar(), |app| {
        app.add_plugins((SquadsPlugin, TerrainPlugin, NavMeshPlugin));
    });
    app.insert_resource(mesh);
    app.world_mut().resource_mut::<FlockingConfig>().seed = seed;
    let mut tuning = FlockTuning::squad();
    tuning.perception.velocity_obstacles = VelocityObstacles::Reciprocal;
    let flock = spawn_flock(&mut app, tuning);
    (app, flock)
}

/// Unit `id` of `flock` at `from`, sent to `to`.
fn spawn_unit(app: &mut App, flock: Entity, id: u64, from: Vec3, to: Vec3) {
    app.world_mut().spawn((
        Agent,
        AgentId(id),
        InFlock(flock),
        Transform::from_translation(from),
        Destination(to),
    ));
}

/// The units among the first `units` that `sent` picks, each sent to `goal` of its id.
fn send(app: &mut App, units: u64, sent: fn(u64) -> bool, goal: fn(u64) -> Vec3) {
    for k in (0..units).filter(|&k| sent(k)) {
        let unit = find(app, k);
        app.world_mut()
            .entity_mut(unit)
            .insert(Destination(goal(k)));
    }
}

/// The game's orders before kernel tick `tick`: at 290 every third unit sent on to a crossing
/// of the top streets (most to one of three, so that a path found serves others), at 296 every
/// fifth, and at 450 every unit sent back down.
fn orders(app: &mut App, tick: u64) {
    type Sent = fn(u64) -> bool;
    let (sent, goal): (Sent, fn(u64) -> Vec3) = match tick {
        290 => (|k| k % 3 == 0, |k| crossing(3 + k % 3, 8)),
        296 => (|k| k % 5 == 0, |k| crossing(k % 9, 7)),
        450 => (|_| true, |k| crossing((k * 7) % 9, 1)),
        _ => return,
    };
    send(app, UNITS, sent, goal);
}

/// What of the planning is in play: requests waiting, units whose path is being planned, and
/// units on their way.
fn planning_in_play(app: &mut App) -> Vec<(&'static str, usize)> {
    let waiting = app.world().resource::<NavMeshPlanner>().waiting();
    let (planning, following) = paths_in_play(app);
    vec![
        ("waiting for the planner", waiting),
        ("planning", planning),
        ("following a path", following),
    ]
}

const TOWN: Scene = Scene {
    build: town_scene,
    orders,
    in_play: planning_in_play,
};

#[test]
fn a_crowd_on_a_navmesh_saved_mid_planning_loads_into_a_new_app_and_continues_bit_for_bit() {
    let original = original(&TOWN);
    let bytes = original.at_300.to_bytes();
    loads_into_a_new_app_and_continues(&TOWN, &original, &bytes);
}

#[test]
fn a_crowd_on_a_navmesh_rolls_back_and_replays_the_same_ticks() {
    rolls_back_and_replays(&TOWN, &original(&TOWN));
}

/// The units on the street and footbridge of [`town`].
const WALKERS: u64 = 24;

/// The last walkers, who start on the bridge's west ramp, 2 m up, and walk down to the street:
/// moved to the street's floor as they cross the ramp's foot, they are back on it at the
/// snapshots (walkers from the street take 500 ticks or more to cross the bridge and come
/// down).
const FROM_THE_RAMP: u64 = 2;

/// The street and footbridge of [`town`], with the units in the street's west half sent, by
/// turns, to its east half (over the bridge) and onto the deck, and [`FROM_THE_RAMP`] down
/// from the bridge to the street.
fn bridge_scene() -> App {
    let (mut app, flock) = squads_on(town(0.3).expect("the bridge's floors"), 5);
    for k in WALKERS - FROM_THE_RAMP..WALKERS {
        let from = Vec3::new(12.0, 4.5 + (k % 2) as f32, 2.0);
        spawn_unit(&mut app, flock, k, from, Vec3::new(3.0, 14.0, 0.0));
        let unit = find(&mut app, k);
        app.world_mut().entity_mut(unit).insert(OnFloor(1));
    }
    for k in 0..WALKERS - FROM_THE_RAMP {
        let from = Vec3::new(1.0 + (k % 4) as f32 * 1.5, 1.0 + (k / 4) as f32 * 2.0, 0.0);
        let to = if k % 2 == 0 {
            Vec3::new(37.0, 1.0 + (k % 8) as f32, 0.0)
        } else {
            Vec3::new(15.0 + (k % 10) as f32, 5.0, DECK)
        };
        spawn_unit(&mut app, flock, k, from, to);
    }
    app
}

/// The game's orders before kernel tick `tick`: at 290 every third unit sent back to the west
/// half, at 450 every unit to the east half.
fn bridge_orders(app: &mut App, tick: u64) {
    type Sent = fn(u64) -> bool;
    let (sent, goal): (Sent, fn(u64) -> Vec3) = match tick {
        290 => (
            |k| k % 3 == 0,
            |k| Vec3::new(3.0, 9.0 + (k % 5) as f32, 0.0),
        ),
        450 => (|_| true, |k| Vec3::new(36.0, 2.0 + (k % 9) as f32, 0.0)),
        _ => return,
    };
    send(app, WALKERS, sent, goal);
}

/// How many units are on the bridge's floor, back on the street after it, and on their way.
fn floors_in_play(app: &mut App) -> Vec<(&'static str, usize)> {
    let world = app.world_mut();
    let mut floors = world.query::<&OnFloor>();
    let mut on = |floor| floors.iter(world).filter(|f| f.0 == floor).count();
    let (bridge, street) = (on(1), on(0));
    let (_, following) = paths_in_play(app);
    vec![
        ("on the bridge", bridge),
        ("back on the street", street),
        ("following a path", following),
    ]
}

const BRIDGE: Scene = Scene {
    build: bridge_scene,
    orders: bridge_orders,
    in_play: floors_in_play,
};

#[test]
fn a_crowd_crossing_between_floors_loads_into_a_new_app_and_continues_bit_for_bit() {
    let original = original(&BRIDGE);
    let bytes = original.at_300.to_bytes();
    loads_into_a_new_app_and_continues(&BRIDGE, &original, &bytes);
}

#[test]
fn a_crowd_crossing_between_floors_rolls_back_and_replays_the_same_ticks() {
    rolls_back_and_replays(&BRIDGE, &original(&BRIDGE));
}
