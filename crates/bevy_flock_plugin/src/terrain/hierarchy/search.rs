//! The search over a terrain's clusters, run a budget at a time: the last leg first, then A*
//! over the transitions, then the way laid tile by tile, a leg at a time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::super::search::{Searched, octile_distance};
use super::super::tiles::Tiles;
use super::clusters::Hierarchy;

/// The budget, in tiles expanded by the terrain's A*, of one transition expanded: its ways on
/// go through a hash map and a binary heap (on a 2-core x86-64 machine, about 210 ns against
/// 80-90 for a tile).
const TRANSITION_EXPANSION_COST: u32 = 3;

/// A transition waiting in the open list: its estimate, then the order it was queued in (the
/// newest first), then its tile; the heap pops the least.
type Waiting = Reverse<(u32, Reverse<u64>, (u32, u32))>;

/// The estimate of the cost on from `tile` to `goal`: the octile distance, weighted by
/// `WEIGHT / 8` (weighted A*, Pohl 1970). Ways between transitions bend through their
/// places on cluster borders, so the cheapest route costs a few percent over the octile
/// distance, and plain A* would expand every transition within an ellipse that wide round the
/// straight line; the weight keeps it near the line, and the route found costs at most 9/8 of
/// the cheapest route over the transitions.
fn weighted_estimate(tile: UVec2, goal: UVec2) -> u32 {
    octile_distance(tile, goal) * WEIGHT / 8
}

/// The heuristic's weight, in eighths.
const WEIGHT: u32 = 9;

/// A hierarchical search from one tile to another. Its work is counted in the budget of the
/// terrain's A* (tiles expanded), and a step is taken only if the most it may cost fits in
/// what is left, so however it is split into runs it takes the same steps and finds the same
/// path.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug)]
pub(crate) struct HierarchicalSearch {
    start: UVec2,
    goal: UVec2,
    /// The costs of the ways to the goal within its cluster, from each transition that has one
    /// (and the start, if it is in the cluster), once worked out.
    last_leg: Option<Vec<(UVec2, u32)>>,
    /// Transitions waiting to be expanded: estimate, then the newest first (the deepest, as
    /// the terrain's A*), the tile.
    open: BinaryHeap<Waiting>,
    /// The best cost found to each tile reached, and the tile it was reached from.
    best: HashMap<UVec2, (u32, UVec2)>,
    queued: u64,
    /// The transitions of the way found, the start first and the goal last.
    route: Option<Vec<UVec2>>,
    /// The way laid so far along the route, tile by tile, and the route's legs laid.
    tiles: Vec<UVec2>,
    legs_laid: usize,
    /// The budget the last run spent.
    last_run: u32,
    /// Ways on from the tile being expanded.
    #[cfg_attr(feature = "snapshot", serde(skip))]
    edges: Vec<(UVec2, u32)>,
}

impl HierarchicalSearch {
    /// A search from `start` to `goal`, both walkable tiles.
    pub(crate) fn new(start: UVec2, goal: UVec2) -> Self {
        let mut best = HashMap::default();
        best.insert(start, (0, start));
        let mut open = BinaryHeap::new();
        open.push(Reverse((
            weighted_estimate(start, goal),
            Reverse(0),
            (start.x, start.y),
        )));
        Self {
            start,
            goal,
            last_leg: None,
            open,
            best,
            queued: 1,
            route: None,
            tiles: vec![start],
            legs_laid: 0,
            last_run: 0,
            edges: Vec::new(),
        }
    }

    /// The budget the last [`run`](Self::run) spent.
    pub(crate) fn spent_in_last_run(&self) -> u32 {
        self.last_run
    }

    /// Searches on within `budget`: the path's tiles if it is found, [`Searched::NoPath`] if
    /// none can be, [`Searched::Unfinished`] if the next step would not fit in what is left.
    /// `fresh` says that nothing else was spent this tick: the first step is then taken even
    /// if it costs more than `budget`, so that a budget smaller than one step still advances.
    pub(crate) fn run(
        &mut self,
        tiles: &Tiles,
        hierarchy: &mut Hierarchy,
        budget: u32,
        fresh: bool,
    ) -> Searched {
        let mut run = Run {
            left: budget,
            spent: 0,
            taken_any: !fresh,
        };
        let outcome = self.advance(tiles, hierarchy, &mut run);
        self.last_run = run.spent;
        outcome
    }

    /// [`run`](Self::run), in its stages.
    fn advance(&mut self, tiles: &Tiles, hierarchy: &mut Hierarchy, run: &mut Run) -> Searched {
        if self.last_leg.is_none() {
            if !run.fits(hierarchy.local_cost(self.goal)) {
                return Searched::Unfinished;
            }
            let (leg, cost) = hierarchy.last_leg(tiles, self.goal, self.start);
            run.spend(cost);
            self.last_leg = Some(leg);
        }
        if self.route.is_none() {
            match self.search(tiles, hierarchy, run) {
                Searched::Found(route) => self.route = Some(route),
                other => return other,
            }
        }
        self.lay(tiles, hierarchy, run)
    }

    /// A* over the transitions until the goal is reached: the route, the start first.
    fn search(&mut self, tiles: &Tiles, hierarchy: &mut Hierarchy, run: &mut Run) -> Searched {
        let last_leg = self.last_leg.as_deref().unwrap_or_default();
        loop {
            let Some(&Reverse((estimate, _, (x, y)))) = self.open.peek() else {
                return Searched::NoPath;
            };
            let tile = UVec2::new(x, y);
            let (cost, from) = self.best.get(&tile).copied().unwrap_or((u32::MAX, tile));
            if estimate > cost + weighted_estimate(tile, self.goal) {
                // Queued again since at a lower cost.
                self.open.pop();
                continue;
            }
            if tile == self.goal {
                return Searched::Found(self.route_to_goal());
            }
            // A transition reached from another in its cluster needs only its steps across:
            // the ways within the cluster are shortest, so none through it beats the one
            // from where it was reached.
            let across_only = from != tile && hierarchy.same_cluster(from, tile);
            if !run.fits(TRANSITION_EXPANSION_COST + hierarchy.edges_cost(tile, across_only)) {
                return Searched::Unfinished;
            }
            self.open.pop();
            self.edges.clear();
            let spent = hierarchy.edges(tiles, tile, across_only, &mut self.edges);
            run.spend(TRANSITION_EXPANSION_COST + spent);
            if hierarchy.same_cluster(tile, self.goal)
                && let Some(&(_, to_goal)) = last_leg.iter().find(|&&(t, _)| t == tile)
            {
                self.edges.push((self.goal, to_goal));
            }
            for &(next, step) in &self.edges {
                let cost = cost + step;
                if self.best.get(&next).is_none_or(|&(best, _)| cost < best) {
                    self.best.insert(next, (cost, tile));
                    self.queued += 1;
                    let estimate = cost + weighted_estimate(next, self.goal);
                    self.open
                        .push(Reverse((estimate, Reverse(self.queued), (next.x, next.y))));
                }
            }
        }
    }

    /// The transitions from the start to the goal, walking back the way each was reached.
    fn route_to_goal(&self) -> Vec<UVec2> {
        let mut route = vec![self.goal];
        let mut at = self.goal;
        while at != self.start {
            at = self.best[&at].1;
            route.push(at);
        }
        route.reverse();
        route
    }

    /// Lays the route's legs tile by tile: a step across a border as it is, a leg within a
    /// cluster by a search inside it. The tiles of the path once all are laid.
    fn lay(&mut self, tiles: &Tiles, hierarchy: &mut Hierarchy, run: &mut Run) -> Searched {
        let route = self.route.as_deref().unwrap_or_default();
        while self.legs_laid + 1 < route.len() {
            let (a, b) = (route[self.legs_laid], route[self.legs_laid + 1]);
            if !hierarchy.same_cluster(a, b) {
                self.tiles.push(b);
            } else {
                if !run.fits(hierarchy.local_cost(a)) {
                    return Searched::Unfinished;
                }
                let (cost, laid) = hierarchy.lay(tiles, a, b, &mut self.tiles);
                run.spend(cost);
                if !laid {
                    // The terrain changed under the route: the planner searches again.
                    return Searched::NoPath;
                }
            }
            self.legs_laid += 1;
        }
        Searched::Found(core::mem::take(&mut self.tiles))
    }
}

/// One run's budget: what is left of it, and what was spent (past it, by a first step that
/// did not fit).
struct Run {
    left: u32,
    spent: u32,
    /// Whether a step was taken in the tick (a step is then taken only if it fits).
    taken_any: bool,
}

impl Run {
    /// Whether a step that may cost `cost` is to be taken.
    fn fits(&self, cost: u32) -> bool {
        !self.taken_any || cost <= self.left
    }

    fn spend(&mut self, cost: u32) {
        self.taken_any = true;
        self.left = self.left.saturating_sub(cost);
        self.spent = self.spent.saturating_add(cost);
    }
}
