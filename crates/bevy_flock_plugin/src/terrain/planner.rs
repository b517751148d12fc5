//! The path planner: searches across the terrain within a budget of tiles a tick (A* on small
//! maps, hierarchical on big ones), so that a big map, a change to it or a crowd sent at once
//! never stalls a tick.

use std::collections::VecDeque;

use bevy::platform::time::Instant;
use bevy::prelude::*;
use core::time::Duration;

use super::hierarchy::{HIERARCHICAL_ABOVE, HierarchicalSearch, Hierarchy};
use super::map::{Terrain, TerrainRevision};
use super::regions::RegionsBuilder;
use super::routes::{PathQuery, PathStart};
use super::search::{PathSearch, Searched, is_open_path};
use crate::destination::Planned;
use crate::requests::Requests;

/// How many paths found on the terrain as it is the planner keeps for reuse, the newest.
const REUSABLE_PATHS: usize = 64;

/// Plans the paths of [`Destination`](crate::Destination)s across the [`Terrain`]: requests
/// wait their turn in the order made, and the searches spend at most
/// [`tiles_per_tick`](Self::tiles_per_tick) tiles' worth of work a tick between them, so that
/// one long search or thousands of units sent at once are spread over ticks instead of
/// stalling one. A unit waiting for its path keeps the one it had.
///
/// On a terrain of up to 128 x 128 tiles a search is A* across its tiles, and finds a shortest
/// path. On a bigger one it is hierarchical (HPA*, Botea, Müller and Schaeffer 2004): the map
/// is cut into clusters of 32 x 32 tiles, joined where their borders are walkable on both
/// sides; A* over those joins, with the cost of the way between them inside each cluster and
/// its estimate weighted by 9/8, finds the route, which is then laid tile by tile, each leg by
/// an exact search inside one cluster. Its work grows with the clusters a route crosses, not
/// with the tiles a flood of A* would reach: on a 1,024 x 1,024 map walled across every 64
/// rows, a path costs about 0.2 ms where A* costs 14 ms. Its paths cost a few percent more
/// than the shortest (4.8% more over 60 seeded paths on a map of scattered blocks, before they
/// are shortened). A cluster is worked out when a search first reaches it, and again when
/// tiles in it or on its border change.
///
/// A goal walled in is answered without a search, from the terrain's connected regions; after
/// the terrain changes, the regions are worked out again within half the budget, a share of
/// the map a tick, while searches go on with the rest. A path found to a point is reused by a
/// unit sent to the same point that can see its first waypoint; a squad plans once for all its
/// members. The work a tick does is counted in tiles, never timed, so runs repeat.
#[derive(Resource, Debug)]
pub struct PathPlanner {
    /// Most tiles the searches may expand in one tick, all together (5,000 by default: about
    /// half a millisecond on a 2-core x86-64 machine, and with path following under 2 ms a
    /// tick for 256 units on a 4,096 x 4,096 map); working out regions counts as one tile for
    /// every 64 it scans, and a hierarchical search's work counts at what it costs in time
    /// against a tile of A*. More answers a crowd sooner, at more cost a tick. Zero plans
    /// nothing.
    pub tiles_per_tick: u32,
    /// This tick's budget left.
    left: u32,
    /// What is left of this tick's share for working out regions.
    regions_left: u32,
    /// The requests waiting, and the answers not yet taken.
    requests: Requests,
    /// The search being run.
    active: Option<Active>,
    /// The terrain the work below is of.
    revision: Option<TerrainRevision>,
    /// The terrain's regions being worked out, while they are not known.
    regions: Option<RegionsBuilder>,
    /// The newest paths found on the terrain as it is, oldest first.
    found: VecDeque<Vec<Vec3>>,
    /// The budget spent in the last tick.
    spent: u32,
    /// The clusters of a big terrain, for its hierarchical searches.
    hierarchy: Hierarchy,
    /// The time the searches took in the last tick.
    searched_for: Duration,
}

/// A search being run: for whom, what it answers, and the terrain it started on.
#[derive(Debug)]
struct Active {
    who: Entity,
    query: PathQuery,
    search: Search,
    started_on: TerrainRevision,
}

/// How a path is searched for.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug)]
enum Search {
    /// A* across the terrain's tiles: on terrains of up to [`HIERARCHICAL_ABOVE`] tiles.
    Tiles(Box<PathSearch>),
    /// Over the terrain's clusters, then tile by tile within them: on bigger terrains.
    Clusters(HierarchicalSearch),
}

impl Default for PathPlanner {
    fn default() -> Self {
        Self {
            tiles_per_tick: 5_000,
            left: 5_000,
            regions_left: 2_500,
            requests: Requests::default(),
            active: None,
            revision: None,
            regions: None,
            found: VecDeque::new(),
            spent: 0,
            hierarchy: Hierarchy::default(),
            searched_for: Duration::ZERO,
        }
    }
}

impl PathPlanner {
    /// The budget spent in the last tick: tiles expanded, and the regions' work, the stale
    /// entries a search dropped and a hierarchical search's work at their worth in tiles; at
    /// most [`tiles_per_tick`](Self::tiles_per_tick) (a row of the map being worked into
    /// regions is finished even past it, and a budget smaller than one step of a hierarchical
    /// search, at most about a thousand tiles' worth, takes that step in a tick with nothing
    /// else spent).
    pub fn spent_last_tick(&self) -> u32 {
        self.spent
    }

    /// The time the planner's searches and regions' work took in the last tick: a
    /// measurement for a game's diagnostics, which the planner never reads (its work is
    /// counted in tiles, so that runs repeat).
    pub fn time_last_tick(&self) -> Duration {
        self.searched_for
    }

    /// How many requests wait or are being searched for.
    pub fn waiting(&self) -> usize {
        self.requests.waiting() + usize::from(self.active.is_some())
    }

    /// Whether `who` has a request waiting, being searched for, or answered and not taken.
    pub(crate) fn has_request(&self, who: Entity) -> bool {
        self.requests.has(who) || self.active.as_ref().is_some_and(|a| a.who == who)
    }

    /// Starts a new tick's budget.
    pub(crate) fn new_tick(&mut self) {
        self.left = self.tiles_per_tick;
        self.regions_left = self.tiles_per_tick / 2;
        self.spent = 0;
        self.searched_for = Duration::ZERO;
    }

    /// The path for `who` from `from` to `to`: ready if it was planned (now or since it was
    /// asked for), else asked for and planned as far as this tick's budget goes. A request
    /// for a new `to` replaces `who`'s earlier one.
    pub(crate) fn plan(&mut self, terrain: &Terrain, who: Entity, from: Vec3, to: Vec3) -> Planned {
        let to = to.with_z(0.0);
        if let Some(answer) = self.requests.take_answer(who, to) {
            return answer;
        }
        let asked = self.requests.is_waiting_for(who, to)
            || (self.active.as_ref()).is_some_and(|a| a.who == who && a.query.to == to);
        if !asked {
            self.forget(who);
            self.requests.ask(who, from, to);
        }
        self.work(terrain);
        self.requests
            .take_answer(who, to)
            .unwrap_or(Planned::Waiting)
    }

    /// Drops what `who` asked for (its request left in the queue, dropped in its turn, or its
    /// search), and any answer it did not take.
    pub(crate) fn forget(&mut self, who: Entity) {
        self.requests.forget(who);
        if self.active.as_ref().is_some_and(|a| a.who == who) {
            self.active = None;
        }
    }

    /// Answers requests in turn until this tick's budget is spent (see
    /// [`answer`](Self::answer)), and times it while there is budget to spend (once it is
    /// spent, only requests that need no search are answered, each unit's question costs a
    /// lookup, and the clock is not read).
    fn work(&mut self, terrain: &Terrain) {
        if self.active.is_none() && self.requests.head().is_none() {
            return;
        }
        if self.left == 0 {
            self.answer(terrain);
            return;
        }
        let started = Instant::now();
        self.answer(terrain);
        self.searched_for += started.elapsed();
    }

    /// Answers requests in turn until this tick's budget is spent: first the regions' share,
    /// while they are not known, then the searches.
    fn answer(&mut self, terrain: &Terrain) {
        if self.revision != Some(terrain.revision()) {
            // A search begun on a terrain since put out of place starts afresh on this one,
            // whose tiles it knows nothing of.
            if let Some(active) = &self.active
                && active.started_on.terrain != terrain.revision().terrain
            {
                let (who, query) = (active.who, active.query);
                self.restart(who, query);
            }
            self.revision = Some(terrain.revision());
            self.found.clear();
            self.regions = None;
        }
        if self.regions_left > 0 && terrain.known_regions().is_none() {
            self.work_on_regions(terrain);
        }
        loop {
            if self.active.is_none() && !self.start_next(terrain) {
                return;
            }
            let Some(active) = self.active.as_mut() else {
                return;
            };
            // A first step of the tick is taken even past a budget too small for it.
            let fresh = self.spent == 0 && self.left > 0;
            let (outcome, expanded) = match &mut active.search {
                Search::Tiles(search) => {
                    let outcome = search.run(&terrain.tiles, self.left);
                    (outcome, search.expanded_in_last_run())
                }
                Search::Clusters(search) => {
                    let hierarchy = &mut self.hierarchy;
                    hierarchy.refresh(terrain);
                    let outcome = search.run(&terrain.tiles, hierarchy, self.left, fresh);
                    (outcome, search.spent_in_last_run())
                }
            };
            let Active {
                who,
                query,
                started_on,
                ..
            } = *active;
            self.spend(expanded);
            let changed_since = started_on != terrain.revision();
            let answer = match outcome {
                Searched::Unfinished => return,
                // The terrain changed under the search: its answer may be of the terrain as it
                // was. A path that still crosses only walkable tiles stands (walls raised
                // elsewhere made no path shorter); otherwise search again.
                Searched::NoPath if changed_since => {
                    self.restart(who, query);
                    continue;
                }
                Searched::Found(tiles)
                    if changed_since && !is_open_path(&terrain.tiles, &tiles) =>
                {
                    self.restart(who, query);
                    continue;
                }
                Searched::NoPath => None,
                Searched::Found(tiles) => {
                    let waypoints = terrain.finish_path(&query, &tiles);
                    if self.found.len() == REUSABLE_PATHS {
                        self.found.pop_front();
                    }
                    self.found.push_back(waypoints.clone());
                    Some(waypoints)
                }
            };
            self.active = None;
            self.requests.answer(who, query.to, answer);
        }
    }

    /// Puts `who`'s search for `query` back at the head of the queue, to start afresh.
    fn restart(&mut self, who: Entity, query: PathQuery) {
        self.active = None;
        self.requests.ask_first(who, query.from, query.to);
    }

    /// Counts `tiles` of this tick's budget spent.
    fn spend(&mut self, tiles: u32) {
        self.left = self.left.saturating_sub(tiles);
        self.spent += tiles;
    }

    /// Works out the terrain's regions within half of this tick's budget; once they are
    /// known, a running search whose ends they part is answered at once.
    fn work_on_regions(&mut self, terrain: &Terrain) {
        let share = self.regions_left.min(self.left);
        let mut left = share;
        let builder = self.regions.get_or_insert_default();
        let done = builder.work(&terrain.tiles, &mut left);
        self.regions_left -= share - left;
        self.spend(share - left);
        let Some(regions) = done else {
            return;
        };
        self.regions = None;
        let regions = terrain.keep_regions(regions);
        if let Some(active) = &self.active
            && regions.of(active.query.start) != regions.of(active.query.goal)
        {
            self.requests.answer(active.who, active.query.to, None);
            self.active = None;
        }
    }

    /// Takes the next request: answers it at once where it needs no search (or a path found
    /// before serves), else starts its search. Returns whether a search is running.
    fn start_next(&mut self, terrain: &Terrain) -> bool {
        while let Some(request) = self.requests.next() {
            let (who, from, to) = (request.who, request.from, request.to);
            if let Some(path) = self.reusable(terrain, from, to) {
                self.requests.answer(who, to, Some(path));
                continue;
            }
            match terrain.start_path(from, to, terrain.known_regions()) {
                PathStart::Answered(answer) => {
                    self.requests.answer(who, to, answer);
                }
                PathStart::Search(query) => {
                    if self.left == 0 {
                        self.requests.put_back(request);
                        return false;
                    }
                    let search = if terrain.tile_count() > HIERARCHICAL_ABOVE {
                        Search::Clusters(HierarchicalSearch::new(query.start, query.goal))
                    } else {
                        Search::Tiles(Box::new(PathSearch::new(
                            &terrain.tiles,
                            query.start,
                            query.goal,
                        )))
                    };
                    self.active = Some(Active {
                        who,
                        query,
                        search,
                        started_on: terrain.revision(),
                    });
                    return true;
                }
            }
        }
        false
    }

    /// A path found before that leads to `to` and whose first waypoint `from` sees.
    fn reusable(&self, terrain: &Terrain, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        self.found
            .iter()
            .rev()
            .find(|path| {
                path.last() == Some(&to)
                    && path
                        .first()
                        .is_some_and(|&first| terrain.is_clear_line(from.with_z(0.0), first))
            })
            .cloned()
    }
}

#[cfg(feature = "snapshot")]
pub(crate) mod save;
#[cfg(test)]
mod tests;
