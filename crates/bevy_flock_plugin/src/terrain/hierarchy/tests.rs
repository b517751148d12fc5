//! The hierarchical search against A* across the whole map: legal steps, near the shortest
//! cost, the same path however its budget is split, and clusters refreshed where walls change.

use bevy::prelude::*;

use super::super::map::Terrain;
use super::super::regions::Regions;
use super::super::search::{DIAGONAL_COST, PathSearch, STRAIGHT_COST, Searched, is_open_path};
use super::{HierarchicalSearch, Hierarchy};
use crate::testing::unit_generator;

/// A `size` terrain with `blocks` seeded walls, 1 to 24 tiles a side.
fn blocks(size: UVec2, blocks: usize, seed: u64) -> Terrain {
    let mut unit = unit_generator(seed);
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, size);
    for _ in 0..blocks {
        let corner = (Vec2::new(unit(), unit()) * size.as_vec2()).as_uvec2();
        let extent = (Vec2::new(unit(), unit()) * 23.0 + 1.0).as_uvec2();
        for y in corner.y..(corner.y + extent.y).min(size.y) {
            for x in corner.x..(corner.x + extent.x).min(size.x) {
                terrain.set_walkable(UVec2::new(x, y), false);
            }
        }
    }
    terrain
}

/// `count` pairs of walkable tiles joined by some path, seeded.
fn ends(terrain: &Terrain, count: usize, seed: u64) -> Vec<(UVec2, UVec2)> {
    let regions = Regions::new(&terrain.tiles);
    let mut unit = unit_generator(seed);
    let size = terrain.size().as_vec2();
    let mut tile = move || (Vec2::new(unit(), unit()) * size).as_uvec2();
    let mut pairs = Vec::new();
    while pairs.len() < count {
        let (a, b) = (tile(), tile());
        if terrain.is_walkable(a) && regions.of(a) == regions.of(b) {
            pairs.push((a, b));
        }
    }
    pairs
}

/// The cost of a path's steps, each asserted to be one step to a tile beside it.
fn cost(path: &[UVec2]) -> u32 {
    path.windows(2)
        .map(|step| {
            let d = (step[1].as_ivec2() - step[0].as_ivec2()).abs();
            assert!(d.max_element() == 1, "not a step: {step:?}");
            if d.min_element() == 1 {
                DIAGONAL_COST
            } else {
                STRAIGHT_COST
            }
        })
        .sum()
}

/// The hierarchical search's path, run in pieces of `budget`.
fn search(
    terrain: &Terrain,
    hierarchy: &mut Hierarchy,
    a: UVec2,
    b: UVec2,
    budget: u32,
) -> (Vec<UVec2>, u64) {
    hierarchy.refresh(terrain);
    let mut search = HierarchicalSearch::new(a, b);
    let mut spent = 0;
    for _ in 0..1_000_000 {
        let outcome = search.run(&terrain.tiles, hierarchy, budget, true);
        spent += u64::from(search.spent_in_last_run());
        match outcome {
            Searched::Found(path) => return (path, spent),
            Searched::NoPath => panic!("no path from {a} to {b}"),
            Searched::Unfinished => {}
        }
    }
    panic!("the search from {a} to {b} did not end");
}

/// The shortest path's cost, by A* across the map.
fn shortest(terrain: &Terrain, a: UVec2, b: UVec2) -> u32 {
    match PathSearch::new(&terrain.tiles, a, b).run(&terrain.tiles, u32::MAX) {
        Searched::Found(path) => cost(&path),
        other => panic!("A* from {a} to {b}: {other:?}"),
    }
}

#[test]
fn paths_are_legal_steps_from_start_to_goal_and_near_the_shortest() {
    let terrain = blocks(UVec2::new(300, 200), 150, 5);
    let mut hierarchy = Hierarchy::default();
    let mut worst: f32 = 1.0;
    let mut total = (0u64, 0u64);
    for (a, b) in ends(&terrain, 60, 9) {
        let (path, _) = search(&terrain, &mut hierarchy, a, b, u32::MAX);
        assert_eq!((path.first(), path.last()), (Some(&a), Some(&b)));
        assert!(
            is_open_path(&terrain.tiles, &path),
            "{a} -> {b} crosses a wall"
        );
        let (found, best) = (cost(&path), shortest(&terrain, a, b));
        assert!(found >= best);
        worst = worst.max(found as f32 / best.max(1) as f32);
        total.0 += u64::from(found);
        total.1 += u64::from(best);
    }
    let mean = total.0 as f32 / total.1 as f32;
    println!("hierarchical cost over the shortest: worst {worst:.3}, all paths {mean:.3}");
    assert!(mean < 1.05, "the paths cost {mean} of the shortest in all");
    assert!(worst < 1.35, "a path cost {worst} of the shortest");
}

#[test]
fn a_search_split_into_small_runs_finds_the_path_it_finds_at_once() {
    let terrain = blocks(UVec2::new(256, 256), 120, 21);
    for (a, b) in ends(&terrain, 12, 3) {
        let (whole, spent) = search(&terrain, &mut Hierarchy::default(), a, b, u32::MAX);
        let (split, spent_split) = search(&terrain, &mut Hierarchy::default(), a, b, 40);
        assert_eq!(split, whole, "{a} -> {b}");
        assert_eq!(spent_split, spent, "{a} -> {b}: the work counted differs");
    }
}

#[test]
fn clusters_are_made_again_where_tiles_change() {
    let mut terrain = Terrain::new(Vec2::ZERO, 1.0, UVec2::new(200, 200));
    let (a, b) = (UVec2::new(10, 100), UVec2::new(190, 100));
    let mut hierarchy = Hierarchy::default();
    // Straight across, but for the steps to and from the transitions on the way.
    let near_straight = |path: &[UVec2]| cost(path) <= 180 * STRAIGHT_COST + 4 * DIAGONAL_COST;
    let (straight, _) = search(&terrain, &mut hierarchy, a, b, u32::MAX);
    assert!(near_straight(&straight), "{}", cost(&straight));
    // A wall across the way, on cluster borders and inside clusters, a gap at its top.
    for y in 20..200 {
        terrain.set_walkable(UVec2::new(96, y), false);
        terrain.set_walkable(UVec2::new(100, y), false);
    }
    let (round, _) = search(&terrain, &mut hierarchy, a, b, u32::MAX);
    assert!(
        is_open_path(&terrain.tiles, &round),
        "the path crosses the new wall"
    );
    let (fresh, _) = search(&terrain, &mut Hierarchy::default(), a, b, u32::MAX);
    assert_eq!(round, fresh, "refreshed clusters differ from new ones");
    // The wall opened again in its middle.
    for y in 95..106 {
        terrain.set_walkable(UVec2::new(96, y), true);
        terrain.set_walkable(UVec2::new(100, y), true);
    }
    let (through, _) = search(&terrain, &mut hierarchy, a, b, u32::MAX);
    assert!(
        near_straight(&through),
        "not through the opening: {}",
        cost(&through)
    );
}
