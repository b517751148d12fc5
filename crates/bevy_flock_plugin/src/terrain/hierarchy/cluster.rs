//! One cluster of the hierarchy: its transition tiles, where they step across its borders, and
//! the distances between them within it, each worked out the first time it is needed.

use bevy::prelude::*;

use super::super::regions::TILES_SCANNED_PER_EXPANSION;
use super::super::search::octile_distance;
use super::super::tiles::Tiles;
use super::local::{Area, LocalSearch, TILES_WALKED_PER_EXPANSION, clear_octile_way};

/// Tiles a local search expands for the budget of one tile expanded by the terrain's A*: its
/// tiles sit in one flat array the size of a cluster, where A*'s sit in a table of chunks (on
/// a 2-core x86-64 machine, about 48 ns a tile against 80-90).
pub(super) const LOCAL_TILES_PER_EXPANSION: u32 = 2;

/// Entrances this many tiles wide or wider get a transition at each end; narrower ones one in
/// the middle (Botea et al. 2004). A third in the middle of wide ones kept paths straighter
/// but made each search expand more transitions, for 1.7 times the time a path.
const WIDE_ENTRANCE: u32 = 6;

/// A square of the terrain (smaller at its far edges) and what the hierarchical search needs
/// of it.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug)]
pub(super) struct Cluster {
    pub(super) area: Area,
    /// Whether every tile of it is walkable: distances are then octile, and ways straight.
    pub(super) open: bool,
    /// Its transition tiles, by row then column.
    pub(super) nodes: Vec<UVec2>,
    /// Each node's steps across the cluster's borders: the node's index, and the tile
    /// beside it in the next cluster.
    pub(super) exits: Vec<(usize, UVec2)>,
    /// By node, the cost of the way within the cluster to each node (`u32::MAX`: none),
    /// once worked out.
    rows: Vec<Option<Box<[u32]>>>,
}

impl Cluster {
    /// The cluster over `area` of `tiles`, its distances not yet worked out, and the budget
    /// its making cost.
    pub(super) fn new(tiles: &Tiles, area: Area) -> (Self, u32) {
        let high = area.low + area.size;
        let mut pairs = Vec::new();
        // Each border is scanned from the tile below or left of it, so that the clusters on
        // both sides put its transitions in the same places.
        if area.low.x > 0 {
            let border = Border::across_x(area.low.x, area.low.y..high.y);
            pairs.extend(border.transitions(tiles).map(|(out, inside)| (inside, out)));
        }
        if high.x < tiles.size.x {
            pairs.extend(Border::across_x(high.x, area.low.y..high.y).transitions(tiles));
        }
        if area.low.y > 0 {
            let border = Border::across_y(area.low.y, area.low.x..high.x);
            pairs.extend(border.transitions(tiles).map(|(out, inside)| (inside, out)));
        }
        if high.y < tiles.size.y {
            pairs.extend(Border::across_y(high.y, area.low.x..high.x).transitions(tiles));
        }
        pairs.sort_unstable_by_key(|&(inside, out)| (inside.y, inside.x, out.y, out.x));
        let mut nodes: Vec<UVec2> = pairs.iter().map(|&(inside, _)| inside).collect();
        nodes.dedup();
        let exits = (pairs.iter())
            .map(|&(inside, out)| {
                (
                    nodes.partition_point(|&n| (n.y, n.x) < (inside.y, inside.x)),
                    out,
                )
            })
            .collect();
        let open = (area.low.y..high.y).all(|y| {
            let row = y as usize * tiles.size.x as usize;
            tiles.walkable[row + area.low.x as usize..row + high.x as usize]
                .iter()
                .all(|&w| w)
        });
        let rows = vec![None; nodes.len()];
        let cluster = Self {
            area,
            open,
            nodes,
            exits,
            rows,
        };
        (cluster, Self::making_cost(area))
    }

    /// The budget making a cluster over `area` costs: a scan of its tiles and borders.
    pub(super) fn making_cost(area: Area) -> u32 {
        let scanned = area.tiles() + 2 * (area.size.x + area.size.y);
        scanned.div_ceil(TILES_SCANNED_PER_EXPANSION)
    }

    /// The most budget working out the distances from one tile of a cluster over `area` may
    /// cost, whatever its nodes (at most one per border tile).
    pub(super) fn most_distances_cost(area: Area) -> u32 {
        Self::walks_and_search_cost(area, 2 * (area.size.x + area.size.y))
    }

    /// The most the walks to `nodes` nodes and one more tile (two ways each, each no longer
    /// than the cluster's side) and then a search of `area` cost.
    fn walks_and_search_cost(area: Area, nodes: u32) -> u32 {
        let walks = 2 * (nodes + 1) * area.size.max_element();
        walks.div_ceil(TILES_WALKED_PER_EXPANSION)
            + area.tiles().div_ceil(LOCAL_TILES_PER_EXPANSION)
    }

    /// The index of `tile` among the nodes, if it is one.
    pub(super) fn node(&self, tile: UVec2) -> Option<usize> {
        self.nodes
            .binary_search_by_key(&(tile.y, tile.x), |n| (n.y, n.x))
            .ok()
    }

    /// The most budget working out the distances from one tile may cost: the walks along
    /// the ways that turn once to each node and one more tile (two ways each, as long as the
    /// cluster is wide or tall), then a search of the cluster.
    pub(super) fn distances_cost(&self) -> u32 {
        if self.open {
            return 1;
        }
        Self::walks_and_search_cost(self.area, self.nodes.len() as u32)
    }

    /// Whether the distances from node `node` are worked out.
    pub(super) fn has_row(&self, node: usize) -> bool {
        self.rows.get(node).is_some_and(Option::is_some)
    }

    /// Works out the distances within the cluster from node `node` to every node, if they
    /// were not; returns the budget that cost.
    pub(super) fn work_out_row(
        &mut self,
        tiles: &Tiles,
        node: usize,
        local: &mut LocalSearch,
    ) -> u32 {
        if self.has_row(node) {
            return 0;
        }
        let (row, _, spent) = self.distances(tiles, self.nodes[node], None, local);
        self.rows[node] = Some(row);
        spent
    }

    /// The distances within the cluster from node `node` to every node, if worked out.
    pub(super) fn row(&self, node: usize) -> &[u32] {
        self.rows
            .get(node)
            .and_then(Option::as_deref)
            .unwrap_or_default()
    }

    /// The nodes a `row` of distances reaches, each with its distance.
    pub(super) fn reached<'a>(&'a self, row: &'a [u32]) -> impl Iterator<Item = (UVec2, u32)> + 'a {
        (self.nodes.iter().zip(row))
            .filter(|&(_, &d)| d != u32::MAX)
            .map(|(&n, &d)| (n, d))
    }

    /// The distances within the cluster from `from` to every node and to `also`, and the
    /// budget they cost.
    pub(super) fn distances(
        &self,
        tiles: &Tiles,
        from: UVec2,
        also: Option<UVec2>,
        local: &mut LocalSearch,
    ) -> (Box<[u32]>, Option<u32>, u32) {
        let also = also.filter(|&t| self.area.holds(t));
        if self.open {
            let row = self
                .nodes
                .iter()
                .map(|&n| octile_distance(from, n))
                .collect();
            return (row, also.map(|t| octile_distance(from, t)), 1);
        }
        // Where a way that turns once is clear, it is a shortest way (the octile distance is
        // the least there is); only if one is not is the cluster searched.
        let mut walked = 0;
        let mut straight = |to: UVec2| {
            let (way, tiles_walked) = clear_octile_way(tiles, from, to);
            walked += tiles_walked;
            way.map(|_| octile_distance(from, to))
        };
        let row: Option<Box<[u32]>> = self.nodes.iter().map(|&n| straight(n)).collect();
        let also_straight = also.map(&mut straight);
        let walk_cost = walked.div_ceil(TILES_WALKED_PER_EXPANSION);
        if let Some(row) = row
            && also_straight.is_none_or(|d| d.is_some())
        {
            return (row, also_straight.flatten(), walk_cost.max(1));
        }
        let expanded = local.run(tiles, self.area, from, None);
        let row = (self.nodes.iter())
            .map(|&n| local.cost_to(n).unwrap_or(u32::MAX))
            .collect();
        let also = also.and_then(|t| local.cost_to(t));
        let cost = walk_cost + expanded.div_ceil(LOCAL_TILES_PER_EXPANSION);
        (row, also, cost.max(1))
    }
}

/// A straight border between clusters: the tiles `at` and the ones before it along one axis
/// (below or left), over a range of the other axis.
struct Border {
    /// Whether the border runs along Y, between columns `at - 1` and `at`.
    across_x: bool,
    at: u32,
    along: core::ops::Range<u32>,
}

impl Border {
    fn across_x(at: u32, along: core::ops::Range<u32>) -> Self {
        Self {
            across_x: true,
            at,
            along,
        }
    }

    fn across_y(at: u32, along: core::ops::Range<u32>) -> Self {
        Self {
            across_x: false,
            at,
            along,
        }
    }

    /// The two tiles the border parts at `k` along it: the lower one first.
    fn pair(&self, k: u32) -> (UVec2, UVec2) {
        if self.across_x {
            (UVec2::new(self.at - 1, k), UVec2::new(self.at, k))
        } else {
            (UVec2::new(k, self.at - 1), UVec2::new(k, self.at))
        }
    }

    /// The transitions across the border (the lower tile first): in each entrance, a run of
    /// places where both its tiles are walkable, one in the middle, and for a wide one one at
    /// each end as well.
    fn transitions(&self, tiles: &Tiles) -> impl Iterator<Item = (UVec2, UVec2)> + '_ {
        let open = |k: u32| {
            let (a, b) = self.pair(k);
            tiles.is_walkable(a) && tiles.is_walkable(b)
        };
        let mut places = Vec::new();
        let mut k = self.along.start;
        while k < self.along.end {
            if !open(k) {
                k += 1;
                continue;
            }
            let first = k;
            while k < self.along.end && open(k) {
                k += 1;
            }
            let width = k - first;
            if width >= WIDE_ENTRANCE {
                places.extend([first, k - 1]);
            } else {
                places.push(first + width / 2);
            }
        }
        places.into_iter().map(|k| self.pair(k))
    }
}
