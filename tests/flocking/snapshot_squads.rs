//! Snapshots of squads on terrain: two squads sent in formation, one of each team (they fight
//! where they meet), forty units each sent on its own (half of them only at 295) and a
//! predator hunting one of them, with level of detail and an obstacle, across a walled map whose walls the
//! game raises and opens in play, with a path planner short of budget, so that at the
//! snapshots paths are being planned (requests queued, a search half done, regions being worked
//! out after a new wall). On a map small enough for A* across its tiles and on one planned
//! hierarchically, the scene saved at 300 and loaded into a new app continues bit for bit to
//! 600, and a rollback from 300 to 280 replays the same ticks.

use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{FlockSnapshot, PathPlanner, SnapshotError};

use crate::snapshot::{
    Scene, find, loads_into_a_new_app_and_continues, original, parts_in_play, paths_in_play,
    rolls_back_and_replays, take,
};
use crate::support::{Rng, *};

/// Members of each squad.
const MEMBERS: u64 = 24;
/// Units sent each on its own; their ids follow the members'.
const SOLOS: u64 = 40;
/// The squads' ids (flocks are named like agents).
const SQUADS: [u64; 2] = [10_000, 10_001];
/// The predator's id.
const PREDATOR: u64 = 6_000;
/// The path planner's budget a tick, in tiles: short, so that paths wait their turn.
const TILES_PER_TICK: u32 = 400;

/// A `side` x `side` map of 1 m tiles: two walls across it, at a third and two thirds of its
/// width, each with two gaps four tiles wide at seeded places, and a few blocks between.
fn walled_map(side: u32) -> Terrain {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(side));
    let mut rng = Rng::new(11);
    for wall in [side / 3, 2 * side / 3] {
        let gaps: Vec<u32> = (0..2)
            .map(|k| k * side / 2 + 4 + (rng.unit() * (side / 2 - 12) as f32) as u32)
            .collect();
        for y in 0..side {
            let open = gaps.iter().any(|&gap| (gap..gap + 4).contains(&y));
            terrain.set_walkable(UVec2::new(wall, y), open);
        }
    }
    for _ in 0..6 {
        let corner = UVec2::new(
            side / 3 + 3 + (rng.unit() * (side / 3 - 10) as f32) as u32,
            4 + (rng.unit() * (side - 12) as f32) as u32,
        );
        for y in corner.y..corner.y + 4 {
            for x in corner.x..corner.x + 4 {
                terrain.set_walkable(UVec2::new(x, y), false);
            }
        }
    }
    terrain
}

/// A point on the map of `side` tiles, at `x` and `y` as fractions of its width.
fn at(side: u32, x: f32, y: f32) -> Vec3 {
    Vec3::new(x * side as f32, y * side as f32, 0.0)
}

/// The squads scene on a map of `side` tiles.
fn squads_scene(side: u32) -> App {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    app.insert_resource(walled_map(side));
    app.world_mut().resource_mut::<PathPlanner>().tiles_per_tick = TILES_PER_TICK;
    let mut config = app.world_mut().resource_mut::<FlockingConfig>();
    config.seed = 7;
    config.level_of_detail = Some(LevelOfDetail {
        near_radius: 15.0,
        interval: 3,
    });
    let world = app.world_mut();
    world.spawn((DetailFocus, Transform::from_xyz(20.0, 35.0, 0.0)));
    let rock = Vec3::new(17.0, 33.0, 0.0);
    world.spawn((
        Obstacle::Sphere { radius: 2.0 },
        Transform::from_translation(rock),
    ));
    let tuning = |velocity_obstacles| FlockTuning {
        weights: FlockWeights {
            wander: 0.3,
            noise: 0.1,
            ..default()
        },
        perception: Perception {
            velocity_obstacles,
            ..default()
        },
        ..default()
    };
    let mut rng = Rng::new(3);
    let mut spawn = |app: &mut App, id: u64, flock: Entity, near: Vec3| {
        let offset = (rng.in_cube(6.0) * Vec3::new(1.0, 1.0, 0.0)).clamp_length_max(6.0);
        app.world_mut()
            .spawn((
                Agent,
                AgentId(id),
                InFlock(flock),
                Transform::from_translation(near + offset),
                Velocity::default(),
            ))
            .id()
    };
    let modes = [VelocityObstacles::Off, VelocityObstacles::Reciprocal];
    for (team, (&id, mode)) in SQUADS.iter().zip(modes).enumerate() {
        let squad = spawn_flock(&mut app, tuning(mode));
        let (start, goal) = match team {
            0 => (Vec3::new(12.0, 29.0, 0.0), at(side, 0.85, 0.7)),
            _ => (Vec3::new(24.0, 46.0, 0.0), at(side, 0.1, 0.9)),
        };
        (app.world_mut().entity_mut(squad)).insert((AgentId(id), Destination(goal)));
        for k in 0..MEMBERS {
            let member = spawn(&mut app, team as u64 * MEMBERS + k, squad, start);
            app.world_mut().entity_mut(member).insert(Combatant {
                team: team as u32,
                radius: 0.5,
                weapon_range: Some(4.0),
                sight: 12.0,
            });
        }
    }
    let solos = spawn_flock(&mut app, tuning(VelocityObstacles::Reciprocal));
    for k in 0..SOLOS {
        let id = 2 * MEMBERS + k;
        let start = at(side, 0.1, 0.1 + 0.8 * k as f32 / SOLOS as f32);
        let unit = spawn(&mut app, id, solos, start);
        // Half wait for their first orders, at 295.
        if k % 2 == 0 {
            let goal = at(side, 0.9, 0.9 - 0.8 * k as f32 / SOLOS as f32);
            app.world_mut().entity_mut(unit).insert(Destination(goal));
        }
    }
    // A predator hunting the solo units' first, from the west edge.
    let hunters = spawn_flock(&mut app, FlockTuning::default());
    let prey = find(&mut app, 2 * MEMBERS);
    let predator = spawn(&mut app, PREDATOR, hunters, at(side, 0.05, 0.5));
    (app.world_mut().entity_mut(predator)).insert((Predator { radius: 6.0 }, Target::Pursue(prey)));
    app
}

fn squads_on_a_small_map() -> App {
    squads_scene(96)
}

fn squads_on_a_big_map() -> App {
    squads_scene(160)
}

/// The map's side, from the terrain.
fn side(app: &App) -> u32 {
    app.world().resource::<Terrain>().size().x
}

/// The game's orders before kernel tick `tick`: walls raised across the middle at 285, 298 and
/// 320 (crossing many paths at once), squad 0 sent elsewhere at 290, every solo unit sent (on)
/// at 295, and at 450 squad 1 sent back and the first wall opened.
fn orders(app: &mut App, tick: u64) {
    let side = side(app);
    let wall = |app: &mut App, x: u32, ys: core::ops::Range<u32>, walkable: bool| {
        let mut terrain = app.world_mut().resource_mut::<Terrain>();
        for y in ys {
            terrain.set_walkable(UVec2::new(x, y), walkable);
        }
    };
    match tick {
        285 => wall(app, side / 2, side / 4..side / 2, false),
        298 => wall(app, side / 2 + 6, side / 2..3 * side / 4, false),
        320 => wall(app, side / 2 - 3, 3 * side / 5..side, false),
        450 => wall(app, side / 2, side / 4..side / 2, true),
        _ => {}
    }
    let send = |app: &mut App, id: u64, goal: Vec3| {
        let unit = find(app, id);
        app.world_mut().entity_mut(unit).insert(Destination(goal));
    };
    match tick {
        290 => send(app, SQUADS[0], at(side, 0.5, 0.9)),
        295 => {
            // In reverse: those given their first destination now are stored in that order,
            // which a restore does not repeat.
            for k in (0..SOLOS).rev() {
                let goal = at(side, 0.2 + 0.6 * k as f32 / SOLOS as f32, 0.85);
                send(app, 2 * MEMBERS + k, goal);
            }
        }
        450 => send(app, SQUADS[1], at(side, 0.8, 0.2)),
        _ => {}
    }
}

/// What of the planning and the squads is in play, with the agents' state (but for arrival,
/// which the mixed scene has in play).
fn squads_in_play(app: &mut App) -> Vec<(&'static str, usize)> {
    let waiting = app.world().resource::<PathPlanner>().waiting();
    let (planning, following) = paths_in_play(app);
    let world = app.world_mut();
    let mut formations = world.query::<&Formation>();
    let formed = formations
        .iter(world)
        .filter(|f| !f.places.is_empty())
        .count();
    let mut targets = world.query::<&Target>();
    let fighting = (targets.iter(world))
        .filter(|t| matches!(t, Target::Entity(_)))
        .count();
    let mut parts = vec![
        ("waiting for the planner", waiting),
        ("planning", planning),
        ("following a path", following),
        ("in formation", formed),
        ("fighting", fighting),
    ];
    parts.extend(
        parts_in_play(app)
            .into_iter()
            .filter(|(what, _)| *what != "at their target"),
    );
    parts
}

const SMALL_MAP: Scene = Scene {
    build: squads_on_a_small_map,
    orders,
    in_play: squads_in_play,
};

const BIG_MAP: Scene = Scene {
    build: squads_on_a_big_map,
    orders,
    in_play: squads_in_play,
};

#[test]
fn squads_on_terrain_saved_mid_planning_load_into_a_new_app_and_continue_bit_for_bit() {
    for scene in [&SMALL_MAP, &BIG_MAP] {
        let original = original(scene);
        let bytes = original.at_300.to_bytes();
        loads_into_a_new_app_and_continues(scene, &original, &bytes);
    }
}

#[test]
fn squads_on_terrain_roll_back_and_replay_the_same_ticks() {
    for scene in [&SMALL_MAP, &BIG_MAP] {
        rolls_back_and_replays(scene, &original(scene));
    }
}

#[test]
fn a_squad_without_an_id_is_refused_and_a_missing_one_changes_nothing() {
    let mut app = squads_on_a_small_map();
    run_ticks(&mut app, 5);
    let saved = take(&mut app);
    let squad = find(&mut app, SQUADS[0]);
    app.world_mut().entity_mut(squad).remove::<AgentId>();
    let err = FlockSnapshot::take(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::UnnamedSquad { entity: squad });
    let err = saved.restore(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::UnnamedSquad { entity: squad });
    app.world_mut()
        .entity_mut(squad)
        .insert(AgentId(SQUADS[0] + 7));
    let before = take(&mut app);
    let err = saved.restore(app.world_mut()).unwrap_err();
    assert_eq!(err, SnapshotError::UnitMissing { id: SQUADS[0] });
    assert!(
        take(&mut app) == before,
        "a failed restore changed the world"
    );
}

#[test]
fn a_save_whose_orders_were_changed_is_refused() {
    let mut app = squads_on_a_small_map();
    run_ticks(&mut app, 5);
    let bytes = take(&mut app).to_bytes();
    assert!(
        FlockSnapshot::from_bytes(&bytes).is_ok(),
        "the save as written"
    );
    // The orders (the terrain, the planner's tables) end the bytes, before their digest (at
    // most ten bytes); a byte changed there could decode into tables that break the planner.
    for back in [11, 100, 1_000, 5_000] {
        let mut changed = bytes.clone();
        let k = bytes.len() - back;
        changed[k] ^= 0x10;
        let err = FlockSnapshot::from_bytes(&changed).unwrap_err();
        assert!(matches!(err, SnapshotError::Malformed(_)), "{back}: {err}");
    }
}
