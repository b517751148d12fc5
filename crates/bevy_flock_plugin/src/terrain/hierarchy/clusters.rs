//! [`Hierarchy`]: a terrain's clusters, made as searches reach them and dropped where tiles
//! change, and the ways within each that the hierarchical search asks for.

use bevy::prelude::*;

use super::super::map::{Terrain, TerrainRevision};
use super::super::search::STRAIGHT_COST;
use super::super::tiles::Tiles;
use super::cluster::{Cluster, LOCAL_TILES_PER_EXPANSION};
use super::local::{
    Area, LocalSearch, TILES_WALKED_PER_EXPANSION, append_octile_way, clear_octile_way,
};

/// Tiles a side of a cluster.
const CLUSTER_SIDE: u32 = 32;

/// Terrains with more tiles than this (128 x 128) are planned hierarchically; on smaller ones an
/// A* search across the whole map costs no more than a few clusters' work.
pub(crate) const HIERARCHICAL_ABOVE: u64 = 128 * 128;

/// The clusters of a terrain, each made when a search first needs it.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default)]
pub(crate) struct Hierarchy {
    /// The terrain's size in tiles, and in clusters.
    size: UVec2,
    across: UVec2,
    clusters: Vec<Option<Cluster>>,
    /// The terrain the clusters are of.
    revision: Option<TerrainRevision>,
    /// Room for the searches within a cluster, cleared before each.
    #[cfg_attr(feature = "snapshot", serde(skip))]
    local: LocalSearch,
}

impl Hierarchy {
    /// Renames the terrain the clusters are of (a snapshot's restored terrain is a terrain of
    /// its own).
    #[cfg(feature = "snapshot")]
    pub(crate) fn rename_terrain(&mut self, rename: impl Fn(TerrainRevision) -> TerrainRevision) {
        self.revision = self.revision.map(rename);
    }

    /// Brings the clusters up to `terrain` as it is: those whose tiles or borders changed are
    /// dropped, to be made again when needed; all of them for another terrain, or when the
    /// terrain no longer remembers all its changes since.
    pub(crate) fn refresh(&mut self, terrain: &Terrain) {
        let revision = terrain.revision();
        if self.revision == Some(revision) {
            return;
        }
        let changed = self
            .revision
            .filter(|_| self.size == terrain.tiles.size)
            .and_then(|before| terrain.changed_since(before));
        self.revision = Some(revision);
        let Some(changed) = changed else {
            self.size = terrain.tiles.size;
            self.across = UVec2::new(
                self.size.x.div_ceil(CLUSTER_SIDE),
                self.size.y.div_ceil(CLUSTER_SIDE),
            );
            self.clusters.clear();
            self.clusters
                .resize_with(self.across.x as usize * self.across.y as usize, || None);
            return;
        };
        for (tile, _) in changed {
            let cluster = tile / CLUSTER_SIDE;
            let within = tile % CLUSTER_SIDE;
            self.drop_cluster(cluster.as_ivec2());
            // A tile on a border changes the entrances of the cluster across it too.
            let last = CLUSTER_SIDE - 1;
            for (on_border, towards) in [
                (within.x == 0, IVec2::NEG_X),
                (within.x == last, IVec2::X),
                (within.y == 0, IVec2::NEG_Y),
                (within.y == last, IVec2::Y),
            ] {
                if on_border {
                    self.drop_cluster(cluster.as_ivec2() + towards);
                }
            }
        }
    }

    /// Drops the cluster at `at` (in clusters), if there is one there.
    fn drop_cluster(&mut self, at: IVec2) {
        if at.cmpge(IVec2::ZERO).all() && at.cmplt(self.across.as_ivec2()).all() {
            self.clusters[at.y as usize * self.across.x as usize + at.x as usize] = None;
        }
    }

    /// The index of the cluster `tile` is in.
    fn index(&self, tile: UVec2) -> usize {
        let at = tile / CLUSTER_SIDE;
        at.y as usize * self.across.x as usize + at.x as usize
    }

    /// The area of the cluster `tile` is in.
    fn area(&self, tile: UVec2) -> Area {
        let low = tile / CLUSTER_SIDE * CLUSTER_SIDE;
        Area {
            low,
            size: (self.size - low).min(UVec2::splat(CLUSTER_SIDE)),
        }
    }

    /// Whether `a` and `b` are in one cluster.
    pub(super) fn same_cluster(&self, a: UVec2, b: UVec2) -> bool {
        a / CLUSTER_SIDE == b / CLUSTER_SIDE
    }

    /// The cluster `tile` is in, made now if it was not, and the budget that cost; with the
    /// local search, to search in it.
    fn cluster(&mut self, tiles: &Tiles, tile: UVec2) -> (&mut Cluster, &mut LocalSearch, u32) {
        let index = self.index(tile);
        let area = self.area(tile);
        let mut cost = 0;
        let cluster = self.clusters[index].get_or_insert_with(|| {
            let (cluster, spent) = Cluster::new(tiles, area);
            cost = spent;
            cluster
        });
        (cluster, &mut self.local, cost)
    }

    /// The most budget [`edges`](Self::edges) from `tile` may cost now.
    pub(super) fn edges_cost(&self, tile: UVec2, across_only: bool) -> u32 {
        match &self.clusters[self.index(tile)] {
            Some(cluster) => match cluster.node(tile) {
                Some(_) if across_only => 0,
                Some(node) if cluster.has_row(node) => 0,
                _ => cluster.distances_cost(),
            },
            None => self.unmade_cost(tile),
        }
    }

    /// The most budget working out distances or a way in `tile`'s cluster may cost now.
    pub(super) fn local_cost(&self, tile: UVec2) -> u32 {
        match &self.clusters[self.index(tile)] {
            Some(cluster) => cluster.distances_cost(),
            None => self.unmade_cost(tile),
        }
    }

    /// The most budget making `tile`'s cluster and working out distances in it may cost.
    fn unmade_cost(&self, tile: UVec2) -> u32 {
        let area = self.area(tile);
        Cluster::making_cost(area) + Cluster::most_distances_cost(area)
    }

    /// Appends to `out` the ways on from `tile`: to each transition of its cluster it reaches
    /// within it, at the cost of that way (unless `across_only`), and, if it is a transition,
    /// one step across the border. Returns the budget that cost.
    pub(super) fn edges(
        &mut self,
        tiles: &Tiles,
        tile: UVec2,
        across_only: bool,
        out: &mut Vec<(UVec2, u32)>,
    ) -> u32 {
        let (cluster, local, mut cost) = self.cluster(tiles, tile);
        let node = cluster.node(tile);
        let worked_out;
        let row = match node {
            Some(_) if across_only => &[][..],
            Some(node) => {
                cost += cluster.work_out_row(tiles, node, local);
                cluster.row(node)
            }
            None => {
                let (row, _, spent) = cluster.distances(tiles, tile, None, local);
                cost += spent;
                worked_out = row;
                &worked_out
            }
        };
        out.extend(cluster.reached(row).filter(|&(n, _)| n != tile));
        if let Some(node) = node {
            out.extend(
                (cluster.exits.iter())
                    .filter(|&&(from, _)| from == node)
                    .map(|&(_, across)| (across, STRAIGHT_COST)),
            );
        }
        cost
    }

    /// The costs of the ways within `goal`'s cluster from each of its transitions to `goal`,
    /// and from `start` if it is in the cluster, and the budget that cost.
    pub(super) fn last_leg(
        &mut self,
        tiles: &Tiles,
        goal: UVec2,
        start: UVec2,
    ) -> (Vec<(UVec2, u32)>, u32) {
        let (cluster, local, mut cost) = self.cluster(tiles, goal);
        let (row, from_start, spent) = cluster.distances(tiles, goal, Some(start), local);
        cost += spent;
        let mut leg: Vec<(UVec2, u32)> = cluster.reached(&row).collect();
        leg.extend(from_start.map(|d| (start, d)));
        (leg, cost)
    }

    /// Appends the tiles of the shortest way from `a` to `b` within their cluster, after `a`,
    /// and returns the budget that cost and whether there is such a way.
    pub(super) fn lay(
        &mut self,
        tiles: &Tiles,
        a: UVec2,
        b: UVec2,
        path: &mut Vec<UVec2>,
    ) -> (u32, bool) {
        let (cluster, local, mut cost) = self.cluster(tiles, a);
        if cluster.open {
            append_octile_way(a, b, true, path);
            return (cost + 1, true);
        }
        let (way, walked) = clear_octile_way(tiles, a, b);
        cost += walked.div_ceil(TILES_WALKED_PER_EXPANSION);
        let laid = if let Some(diagonal_first) = way {
            append_octile_way(a, b, diagonal_first, path);
            true
        } else {
            let expanded = local.run(tiles, cluster.area, a, Some(b));
            cost += expanded.div_ceil(LOCAL_TILES_PER_EXPANSION).max(1);
            let before = path.len();
            local.append_path_to(b, path);
            path.len() > before || a == b
        };
        (cost, laid)
    }
}
