//! A* across a terrain's tiles, as a search that can stop after any number of expansions and
//! go on later from where it stopped: the path planner spreads long searches over ticks.

use core::cmp::Ordering;
use std::collections::BinaryHeap;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::Terrain;

/// Cost of a straight step between tiles; a diagonal one costs [`DIAGONAL_COST`].
const STRAIGHT_COST: u32 = 10;
/// Cost of a diagonal step: 10 x sqrt 2, rounded.
const DIAGONAL_COST: u32 = 14;

/// An A* search from one tile to another (8 neighbours, no cutting corners, the octile
/// heuristic). It expands tiles in the same order as the `pathfinding` crate's `astar` (the
/// smallest estimated cost first, the deepest first among equals), so its paths are the same;
/// and however a search is split into runs, it expands the same tiles in the same order.
#[derive(Clone, Debug)]
pub(super) struct PathSearch {
    goal: UVec2,
    open: BinaryHeap<Open>,
    /// Every tile reached, in the order first reached: the tile, the index of the tile it was
    /// best reached from (`u32::MAX` for the start), and the cost to it.
    reached: Vec<(UVec2, u32, u32)>,
    /// Where each reached tile is in `reached`, by tile number.
    index: HashMap<usize, u32>,
}

/// How far a run of a [`PathSearch`] got.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Searched {
    /// The tiles of a shortest path, the start first and the goal last.
    Found(Vec<UVec2>),
    /// Every tile that can be reached was, and the goal is not among them.
    NoPath,
    /// The run's budget was spent first: run it again.
    Unfinished,
}

/// A tile waiting to be expanded.
#[derive(Clone, Copy, Debug)]
struct Open {
    estimated: u32,
    cost: u32,
    index: u32,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.estimated == other.estimated && self.cost == other.cost
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    /// The heap's greatest is the smallest estimated cost, then the greatest cost so far.
    fn cmp(&self, other: &Self) -> Ordering {
        match other.estimated.cmp(&self.estimated) {
            Ordering::Equal => self.cost.cmp(&other.cost),
            order => order,
        }
    }
}

impl PathSearch {
    /// A search from `start` to `goal`, both walkable tiles of `terrain`.
    pub(super) fn new(terrain: &Terrain, start: UVec2, goal: UVec2) -> Self {
        let mut index = HashMap::default();
        if let Some(i) = terrain.index(start) {
            index.insert(i, 0);
        }
        Self {
            goal,
            open: BinaryHeap::from([Open {
                estimated: 0,
                cost: 0,
                index: 0,
            }]),
            reached: vec![(start, u32::MAX, 0)],
            index,
        }
    }

    /// Expands at most `budget` tiles: the path if it is found, [`Searched::NoPath`] if none
    /// can be, [`Searched::Unfinished`] if the budget ran out first.
    pub(super) fn run(&mut self, terrain: &Terrain, budget: u32) -> Searched {
        let mut left = budget;
        loop {
            // The budget is checked before a tile leaves the open list, so that a search
            // split into runs pops the same tiles as one run.
            if left == 0 && !self.open.is_empty() {
                return Searched::Unfinished;
            }
            let Some(Open { cost, index, .. }) = self.open.pop() else {
                return Searched::NoPath;
            };
            let (tile, _, best) = self.reached[index as usize];
            if tile == self.goal {
                return Searched::Found(self.path_to(index));
            }
            // A tile may be in the open list several times, once per better way found to it:
            // only its best counts.
            if cost > best {
                continue;
            }
            left -= 1;
            for (next, step_cost) in steps(terrain, tile) {
                self.reach(terrain, next, index, cost + step_cost);
            }
        }
    }

    /// Notes that `tile` is reached at `cost` from the tile at `from`, and queues it, unless
    /// it was reached as cheaply before.
    fn reach(&mut self, terrain: &Terrain, tile: UVec2, from: u32, cost: u32) {
        let Some(number) = terrain.index(tile) else {
            return;
        };
        let index = match self.index.get(&number) {
            Some(&i) if self.reached[i as usize].2 <= cost => return,
            Some(&i) => {
                self.reached[i as usize] = (tile, from, cost);
                i
            }
            None => {
                let i = self.reached.len() as u32;
                self.index.insert(number, i);
                self.reached.push((tile, from, cost));
                i
            }
        };
        self.open.push(Open {
            estimated: cost + octile_distance(tile, self.goal),
            cost,
            index,
        });
    }

    /// The tiles from the start to the tile at `index`.
    fn path_to(&self, index: u32) -> Vec<UVec2> {
        let mut path = Vec::new();
        let mut at = index;
        while let Some(&(tile, from, _)) = self.reached.get(at as usize) {
            path.push(tile);
            at = from;
        }
        path.reverse();
        path
    }
}

/// The walkable tiles one step from `tile`, with the step's cost, in a fixed order.
fn steps(terrain: &Terrain, tile: UVec2) -> impl Iterator<Item = (UVec2, u32)> {
    let mut steps = [(UVec2::ZERO, 0); 8];
    let mut found = 0;
    let at = tile.as_ivec2();
    let open = |d: IVec2| {
        let t = at + d;
        t.cmpge(IVec2::ZERO).all() && terrain.is_walkable(t.as_uvec2())
    };
    for dy in -1..=1 {
        for dx in -1..=1 {
            let d = IVec2::new(dx, dy);
            if d == IVec2::ZERO || !open(d) {
                continue;
            }
            let diagonal = dx != 0 && dy != 0;
            // A diagonal step needs both tiles beside it open: no cutting corners.
            if diagonal && !(open(IVec2::new(dx, 0)) && open(IVec2::new(0, dy))) {
                continue;
            }
            let cost = if diagonal {
                DIAGONAL_COST
            } else {
                STRAIGHT_COST
            };
            steps[found] = ((at + d).as_uvec2(), cost);
            found += 1;
        }
    }
    steps.into_iter().take(found)
}

/// The tiles of an 8-connected path where it turns, and its last, but not its first: the
/// tiles between two turns lie on the line joining them, so a path through the turns is the
/// same path.
pub(super) fn turns(tiles: &[UVec2]) -> Vec<UVec2> {
    if tiles.len() < 2 {
        return Vec::new();
    }
    let step = |k: usize| tiles[k + 1].as_ivec2() - tiles[k].as_ivec2();
    let mut kept: Vec<UVec2> = (1..tiles.len() - 1)
        .filter(|&k| step(k - 1) != step(k))
        .map(|k| tiles[k])
        .collect();
    kept.extend(tiles.last());
    kept
}

/// The A* heuristic on 8-connected tiles: exact where nothing is in the way.
fn octile_distance(a: UVec2, b: UVec2) -> u32 {
    let d = (a.as_ivec2() - b.as_ivec2()).abs().as_uvec2();
    let (short, long) = (d.x.min(d.y), d.x.max(d.y));
    DIAGONAL_COST * short + STRAIGHT_COST * (long - short)
}
