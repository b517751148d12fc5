//! The planner on big maps, driven as the path-following systems drive it: every unit asks for
//! its path each tick until it has one.

use bevy::prelude::*;

use super::super::map::Terrain;
use super::PathPlanner;
use crate::destination::Planned;
use crate::testing::unit_generator;

/// A `side` x `side` map walled across every 64th row, each wall with four gaps two tiles
/// wide at seeded places, one in each quarter of the row.
fn banded(side: u32) -> Terrain {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::splat(side));
    let mut unit = unit_generator(64);
    let quarter = side / 4;
    for y in (64..side).step_by(64) {
        let gaps: Vec<u32> = (0..4)
            .map(|k| k * quarter + (unit() * (quarter - 2) as f32) as u32)
            .collect();
        for x in 0..side {
            terrain.set_walkable(
                UVec2::new(x, y),
                gaps.iter().any(|&g| (g..g + 2).contains(&x)),
            );
        }
    }
    terrain
}

/// `count` seeded orders between walkable tiles' centres.
fn orders(terrain: &Terrain, count: usize) -> Vec<(Vec3, Vec3)> {
    let mut unit = unit_generator(1_024);
    let size = terrain.size().as_vec2();
    let mut point = move || loop {
        let tile = (Vec2::new(unit(), unit()) * size).as_uvec2();
        if terrain.is_walkable(tile) {
            return terrain.centre(tile);
        }
    };
    (0..count).map(|_| (point(), point())).collect()
}

/// Asks for every unwanted path each tick until all are answered (at most `most` ticks),
/// asserting that no tick spends more than the budget; the ticks taken and the paths.
fn answer_all(
    planner: &mut PathPlanner,
    terrain: &Terrain,
    orders: &[(Vec3, Vec3)],
    most: u32,
) -> (u32, Vec<Vec<Vec3>>) {
    let mut paths: Vec<Option<Vec<Vec3>>> = vec![None; orders.len()];
    for tick in 1..=most {
        planner.new_tick();
        for (k, &(from, to)) in orders.iter().enumerate() {
            if paths[k].is_some() {
                continue;
            }
            let who = Entity::from_raw_u32(k as u32 + 1).unwrap();
            match planner.plan(terrain, who, from, to) {
                Planned::Ready(path) => paths[k] = Some(path),
                Planned::NoPath => panic!("order {k}: no path"),
                Planned::Waiting => {}
            }
        }
        assert!(
            planner.spent_last_tick() <= planner.tiles_per_tick,
            "tick {tick} spent {}",
            planner.spent_last_tick()
        );
        if paths.iter().all(Option::is_some) {
            return (tick, paths.into_iter().flatten().collect());
        }
    }
    let left = paths.iter().filter(|p| p.is_none()).count();
    panic!(
        "{left} of {} orders unanswered after {most} ticks",
        orders.len()
    );
}

/// The way from `from` along `path` is clear of walls and ends at `to`.
fn assert_follows(terrain: &Terrain, from: Vec3, to: Vec3, path: &[Vec3]) {
    assert_eq!(path.last(), Some(&to));
    let mut at = from;
    for &waypoint in path {
        assert!(
            terrain.is_clear_line(at, waypoint),
            "{at} -> {waypoint} crosses a wall"
        );
        at = waypoint;
    }
}

/// Five thousand units, each sent to its own point across a 1,024 x 1,024 map whose walls
/// leave four gaps a band: at the default budget every unit is answered within a minute at 64
/// ticks a second (plain A* answered 99 of them).
#[test]
fn five_thousand_orders_across_a_banded_map_are_answered_within_a_minute() {
    let terrain = banded(1_024);
    let orders = orders(&terrain, 5_000);
    let mut planner = PathPlanner::default();
    let (ticks, paths) = answer_all(&mut planner, &terrain, &orders, 3_840);
    println!("5,000 orders on the banded map: all answered in {ticks} ticks");
    for (&(from, to), path) in orders.iter().zip(&paths).step_by(50) {
        assert_follows(&terrain, from, to, path);
    }
}

/// A budget smaller than one step of the hierarchical search takes one step a tick, past the
/// budget: the paths are found, and are those found at the default budget.
#[test]
fn a_budget_smaller_than_a_step_still_finds_the_same_paths() {
    let terrain = banded(256);
    let orders = orders(&terrain, 4);
    let (_, expected) = answer_all(&mut PathPlanner::default(), &terrain, &orders, 1_000);
    let mut planner = PathPlanner {
        tiles_per_tick: 2,
        ..default()
    };
    let mut paths: Vec<Option<Vec<Vec3>>> = vec![None; orders.len()];
    let mut over = 0;
    for _ in 0..100_000 {
        planner.new_tick();
        for (k, &(from, to)) in orders.iter().enumerate() {
            let who = Entity::from_raw_u32(k as u32 + 1).unwrap();
            if paths[k].is_none()
                && let Planned::Ready(path) = planner.plan(&terrain, who, from, to)
            {
                paths[k] = Some(path);
            }
        }
        over = over.max(planner.spent_last_tick());
        if paths.iter().all(Option::is_some) {
            break;
        }
    }
    let paths: Vec<Vec<Vec3>> = paths.into_iter().flatten().collect();
    assert_eq!(
        paths, expected,
        "split into single steps, the searches find the same paths"
    );
    assert!(
        over > 2,
        "no step cost more than the budget of 2: the case is not tested"
    );
}

/// A hierarchical search under way when its terrain is replaced by a smaller one starts afresh
/// on the new one (its tiles are off it), and its unit, now off the terrain, gets a path in
/// across it.
#[test]
fn a_search_under_way_when_the_terrain_is_replaced_starts_afresh_on_the_new_one() {
    let big = banded(1_024);
    let (from, to) = (Vec3::new(1_000.5, 1_000.5, 0.0), Vec3::new(3.5, 3.5, 0.0));
    let mut planner = PathPlanner {
        tiles_per_tick: 50,
        ..default()
    };
    let who = Entity::from_raw_u32(1).unwrap();
    planner.new_tick();
    assert!(matches!(
        planner.plan(&big, who, from, to),
        Planned::Waiting
    ));
    let small = banded(200);
    // Its regions known, so that the search runs at once rather than being answered from them.
    assert!(small.find_path(to, to).is_some());
    let path = loop {
        planner.new_tick();
        if let Planned::Ready(path) = planner.plan(&small, who, from, to) {
            break path;
        }
    };
    assert_follows(&small, from, to, &path);
}
