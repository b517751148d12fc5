//! Paths across a [`Terrain`]: where they start and end, the A* search run whole, and the
//! shortening of its turns.

use bevy::prelude::*;

use super::map::Terrain;
use super::regions::Regions;
use super::search::{PathSearch, Searched, turns};

/// A path asked for across a terrain, ready to search: its ends and the tiles they join.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PathQuery {
    pub(super) from: Vec3,
    pub(super) to: Vec3,
    pub(super) start: UVec2,
    pub(super) goal: UVec2,
    pub(super) from_off: bool,
    pub(super) to_off: bool,
}

/// What a path needs before its search.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum PathStart {
    /// Known without a search.
    Answered(Option<Vec<Vec3>>),
    /// To search for.
    Search(PathQuery),
}
/// The longest leg, in tiles, that shortening a path makes by skipping its turns.
pub(crate) const LONGEST_SHORTCUT: f32 = 16.0;
impl Terrain {
    /// A path from `from` to `to` across walkable tiles: A* over the tiles (8 neighbours, no
    /// cutting corners; a shortest path, at the cost of every tile it reaches: on big maps the
    /// [`PathPlanner`](crate::PathPlanner)'s hierarchical search is far cheaper), then shortened by skipping every waypoint the path can go straight
    /// past with room to spare, in legs of up to 16 tiles. The waypoints are tile centres,
    /// then `to` itself; `from` is not included. Off the terrain counts as walkable: an end
    /// off it joins the terrain at the border tile nearest to it. `None` if either end is on an unwalkable tile (or joins the
    /// terrain at one), or no path joins them; a goal walled in is known at once, without a
    /// search, from the terrain's connected regions.
    pub fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        match self.start_path(from, to, Some(self.regions())) {
            PathStart::Answered(answer) => answer,
            PathStart::Search(query) => {
                match PathSearch::new(&self.tiles, query.start, query.goal)
                    .run(&self.tiles, u32::MAX)
                {
                    Searched::Found(tiles) => Some(self.finish_path(&query, &tiles)),
                    Searched::NoPath | Searched::Unfinished => None,
                }
            }
        }
    }

    /// What a path from `from` to `to` needs before a search: the answer at once (an end that
    /// is not finite or is walled, a goal in another of the `regions` if they are known, an
    /// empty terrain), or the tiles to search between.
    pub(super) fn start_path(&self, from: Vec3, to: Vec3, regions: Option<&Regions>) -> PathStart {
        let (from, to) = (from.with_z(0.0), to.with_z(0.0));
        if !self.is_valid() || !from.is_finite() || !to.is_finite() {
            return PathStart::Answered(None);
        }
        if self.tiles.walkable.is_empty() {
            return PathStart::Answered(Some(vec![to]));
        }
        let (Some((start, from_off)), Some((goal, to_off))) =
            (self.entry_tile(from), self.entry_tile(to))
        else {
            return PathStart::Answered(None);
        };
        if regions.is_some_and(|r| r.of(start) != r.of(goal)) {
            return PathStart::Answered(None);
        }
        PathStart::Search(PathQuery {
            from,
            to,
            start,
            goal,
            from_off,
            to_off,
        })
    }

    /// The waypoints of `query`'s path along `tiles` (the start first, the goal last): its
    /// turns, shortened by line of sight, then `to` itself.
    pub(super) fn finish_path(&self, query: &PathQuery, tiles: &[UVec2]) -> Vec<Vec3> {
        let mut path = turns(tiles);
        // From off the terrain, the way in is the start tile; to a point off it, the way out
        // is the goal tile.
        if query.from_off {
            path.insert(0, query.start);
        }
        let mut waypoints: Vec<Vec3> = path.into_iter().map(|t| self.centre(t)).collect();
        if !query.to_off {
            waypoints.pop();
        }
        waypoints.push(query.to);
        self.shortened(query.from, waypoints)
    }

    /// The walkable tile where a path from or to `point` starts or ends, and whether `point`
    /// is off the terrain (its tile then being the border tile nearest to it).
    fn entry_tile(&self, point: Vec3) -> Option<(UVec2, bool)> {
        let (tile, off) = match self.tile_at(point) {
            Some(tile) => (tile, false),
            None => {
                let local = ((point.truncate() - self.origin) / self.tile_size).floor();
                let last = (self.tiles.size - UVec2::ONE).as_vec2();
                (local.clamp(Vec2::ZERO, last).as_uvec2(), true)
            }
        };
        self.is_walkable(tile).then_some((tile, off))
    }

    /// The terrain's connected regions, worked out now if the terrain changed since.
    fn regions(&self) -> &Regions {
        self.regions.get_or_init(|| Regions::new(&self.tiles))
    }

    /// The terrain's connected regions, if they are worked out for it as it is.
    pub(super) fn known_regions(&self) -> Option<&Regions> {
        self.regions.get()
    }

    /// Keeps `regions`, worked out for the terrain as it is, for the paths asked for until it
    /// changes.
    pub(super) fn keep_regions(&self, regions: Regions) -> &Regions {
        self.regions.get_or_init(|| regions)
    }

    /// `waypoints` without those the way from the one before (or `from`) can skip: each is
    /// kept only if the line from the last one kept cannot reach the one after it, or would
    /// be longer than [`LONGEST_SHORTCUT`] tiles. One line check per waypoint, each of a
    /// bounded length, so the work grows with the path's turns, not their square.
    fn shortened(&self, from: Vec3, waypoints: Vec<Vec3>) -> Vec<Vec3> {
        let longest = LONGEST_SHORTCUT * self.tile_size;
        let mut kept = Vec::with_capacity(waypoints.len());
        let mut at = from;
        for (k, &waypoint) in waypoints.iter().enumerate() {
            let skip = waypoints
                .get(k + 1)
                .is_some_and(|&next| at.distance(next) <= longest && self.is_clear_line(at, next));
            if !skip {
                at = waypoint;
                kept.push(at);
            }
        }
        kept
    }
}
