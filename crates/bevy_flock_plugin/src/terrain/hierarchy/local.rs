//! Searches inside one cluster: Dijkstra from a tile to every tile of its cluster, or A* to one
//! tile, on flat arrays the size of a cluster, reused from search to search.

use bevy::prelude::*;

use super::super::search::{STEPS, octile_distance};
use super::super::tiles::Tiles;

/// A rectangle of tiles: its lowest tile and its size.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Area {
    pub(super) low: UVec2,
    pub(super) size: UVec2,
}

impl Area {
    /// Where `tile` is in the area's arrays, if it is in the area.
    fn index(&self, tile: UVec2) -> Option<usize> {
        let local = tile.checked_sub(self.low)?;
        local
            .cmplt(self.size)
            .all()
            .then(|| (local.y * self.size.x + local.x) as usize)
    }

    /// Whether `tile` is in the area.
    pub(super) fn holds(&self, tile: UVec2) -> bool {
        self.index(tile).is_some()
    }

    /// How many tiles the area has.
    pub(super) fn tiles(&self) -> u32 {
        self.size.x * self.size.y
    }
}

/// Buckets in a [`LocalSearch`]'s open list: more than the most an estimate grows in one
/// expansion (a diagonal step, and the heuristic's change along it).
const RING: usize = 32;

/// A search confined to an [`Area`]: 8 neighbours, no cutting corners, the costs of the
/// terrain's A* (so distances found here are exact within the area). The open list is a ring
/// of buckets by estimate, like the terrain's A*, newest first among equal estimates.
#[derive(Clone, Debug, Default)]
pub(super) struct LocalSearch {
    area: Option<Area>,
    from: UVec2,
    /// The best cost found to each tile of the area (`u32::MAX`: not reached).
    cost: Vec<u32>,
    /// The step (into the terrain search's steps) that reached each tile.
    step: Vec<u8>,
    /// Tiles to expand (their place in the area), by estimate modulo [`RING`].
    ring: [Vec<u16>; RING],
}

impl LocalSearch {
    /// Searches from `from` within `area`: to every tile it can reach (Dijkstra), or until
    /// `target` is reached (A*, the octile heuristic). Returns the tiles expanded.
    pub(super) fn run(
        &mut self,
        tiles: &Tiles,
        area: Area,
        from: UVec2,
        target: Option<UVec2>,
    ) -> u32 {
        let count = area.tiles() as usize;
        debug_assert!(count <= usize::from(u16::MAX) + 1);
        self.area = Some(area);
        self.from = from;
        self.cost.clear();
        self.cost.resize(count, u32::MAX);
        self.step.clear();
        self.step.resize(count, u8::MAX);
        self.ring.iter_mut().for_each(Vec::clear);
        let Some(start) = area.index(from) else {
            return 0;
        };
        let width = area.size.x as usize;
        let across = tiles.size.x as usize;
        let first = area.low.y as usize * across + area.low.x as usize;
        let walkable = |x: usize, y: usize| tiles.walkable[first + y * across + x];
        let estimate = |x: usize, y: usize| {
            target.map_or(0, |t| {
                octile_distance(area.low + UVec2::new(x as u32, y as u32), t)
            })
        };
        let target = target.and_then(|t| area.index(t));
        self.cost[start] = 0;
        let local = from - area.low;
        let mut lowest = estimate(local.x as usize, local.y as usize);
        let mut waiting = 1;
        self.ring[lowest as usize % RING].push(start as u16);
        let mut expanded = 0;
        while waiting > 0 {
            let Some(at) = self.ring[lowest as usize % RING].pop() else {
                lowest += 1;
                continue;
            };
            waiting -= 1;
            let at = usize::from(at);
            let (x, y) = (at % width, at / width);
            let cost = self.cost[at];
            // Queued again since at a lower cost: that entry was expanded.
            if cost + estimate(x, y) != lowest {
                continue;
            }
            expanded += 1;
            if Some(at) == target {
                break;
            }
            let open = |dx: isize, dy: isize| {
                let (nx, ny) = (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
                (nx < width && ny < area.size.y as usize && walkable(nx, ny)).then_some((nx, ny))
            };
            for (k, &(d, step_cost)) in STEPS.iter().enumerate() {
                let (dx, dy) = (d.x as isize, d.y as isize);
                let Some((nx, ny)) = open(dx, dy) else {
                    continue;
                };
                let next = ny * width + nx;
                // A diagonal step needs both tiles beside it open: no cutting corners.
                if dx != 0 && dy != 0 && (open(dx, 0).is_none() || open(0, dy).is_none()) {
                    continue;
                }
                let cost = cost + step_cost;
                if cost < self.cost[next] {
                    self.cost[next] = cost;
                    self.step[next] = k as u8;
                    let estimated = cost + estimate(nx, ny);
                    self.ring[estimated as usize % RING].push(next as u16);
                    waiting += 1;
                }
            }
        }
        expanded
    }

    /// The cost of the last search's way to `tile`, if it reached it.
    pub(super) fn cost_to(&self, tile: UVec2) -> Option<u32> {
        let i = self.area?.index(tile)?;
        (self.cost[i] != u32::MAX).then_some(self.cost[i])
    }

    /// Appends the tiles of the last search's way to `tile` after its start (the start left
    /// out, `tile` last); nothing if it did not reach `tile`.
    pub(super) fn append_path_to(&self, tile: UVec2, path: &mut Vec<UVec2>) {
        if self.cost_to(tile).is_none() {
            return;
        }
        let Some(area) = self.area else {
            return;
        };
        let first = path.len();
        let mut at = tile;
        while at != self.from {
            path.push(at);
            let Some(i) = area.index(at) else {
                break;
            };
            let step = usize::from(self.step[i]);
            let Some(&(d, _)) = STEPS.get(step) else {
                break;
            };
            at = (at.as_ivec2() - d).as_uvec2();
        }
        path[first..].reverse();
    }
}

/// Tiles a walk along a straight way reads for the budget of one tile expanded by the
/// terrain's A* (a walk reads a tile or three a step, with no list to keep).
pub(super) const TILES_WALKED_PER_EXPANSION: u32 = 16;

/// The next step of the way from `at` to `to` that turns once: diagonally first, then
/// straight, or straight first, then diagonally. Either is a shortest way where nothing is in
/// the way.
fn octile_step(at: IVec2, to: IVec2, diagonal_first: bool) -> IVec2 {
    let d = to - at;
    let (across, up) = (d.x.abs(), d.y.abs());
    match (diagonal_first, across.cmp(&up)) {
        (true, _) | (false, core::cmp::Ordering::Equal) => d.signum(),
        (false, core::cmp::Ordering::Greater) => IVec2::new(d.x.signum(), 0),
        (false, core::cmp::Ordering::Less) => IVec2::new(0, d.y.signum()),
    }
}

/// Which of the two ways from `a` to `b` that turn once ([`octile_step`]) is clear on
/// `tiles` (every tile walkable, no corner cut), diagonal first if both: `Some(true)` for it,
/// `Some(false)` for straight first, `None` for neither; and the tiles walked to find out.
pub(super) fn clear_octile_way(tiles: &Tiles, a: UVec2, b: UVec2) -> (Option<bool>, u32) {
    let open = |t: IVec2| tiles.is_walkable(t.as_uvec2());
    let mut walked = 0;
    for diagonal_first in [true, false] {
        let (mut at, to) = (a.as_ivec2(), b.as_ivec2());
        let clear = loop {
            if at == to {
                break true;
            }
            let step = octile_step(at, to, diagonal_first);
            walked += 1;
            let corners_open = step.x == 0
                || step.y == 0
                || (open(at + IVec2::new(step.x, 0)) && open(at + IVec2::new(0, step.y)));
            at += step;
            if !corners_open || !open(at) {
                break false;
            }
        };
        if clear {
            return (Some(diagonal_first), walked);
        }
    }
    (None, walked)
}

/// Appends the tiles of the way from `a` to `b` that turns once ([`octile_step`]), after `a`.
pub(super) fn append_octile_way(a: UVec2, b: UVec2, diagonal_first: bool, path: &mut Vec<UVec2>) {
    let (mut at, to) = (a.as_ivec2(), b.as_ivec2());
    while at != to {
        at += octile_step(at, to, diagonal_first);
        path.push(at.as_uvec2());
    }
}
