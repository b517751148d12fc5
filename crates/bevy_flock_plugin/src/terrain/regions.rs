//! The connected regions of a terrain, so that a goal walled in is known without a search.

use bevy::prelude::*;

use super::tiles::Tiles;

/// How many tiles the region work scans for the cost of one tile expanded by A*: a row scan
/// reads a byte a tile, an A* expansion visits eight neighbours through a hash map and a heap.
pub(super) const TILES_SCANNED_PER_EXPANSION: u32 = 64;

/// The connected regions of a terrain: walkable tiles joined by straight steps (a diagonal step
/// needs both tiles beside it open, so it joins nothing the straight ones do not). Kept as the
/// runs of walkable tiles along each row, each with its region, so the work and memory grow
/// with the runs, not the tiles.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default)]
pub(super) struct Regions {
    /// Where each row's runs start in `runs`; one more entry than rows.
    row_starts: Vec<usize>,
    /// Runs of walkable tiles, `x` from `.0` up to but not including `.1`, row by row.
    runs: Vec<(u32, u32)>,
    /// The region of each run.
    region: Vec<u32>,
}

impl Regions {
    /// The regions of `terrain`, worked out at once.
    pub(super) fn new(tiles: &Tiles) -> Self {
        let mut builder = RegionsBuilder::default();
        let mut unlimited = u32::MAX;
        loop {
            if let Some(regions) = builder.work(tiles, &mut unlimited) {
                return regions;
            }
            unlimited = u32::MAX;
        }
    }

    /// The region of a walkable `tile`; `None` for an unwalkable one.
    pub(super) fn of(&self, tile: UVec2) -> Option<u32> {
        let y = tile.y as usize;
        let (first, last) = (*self.row_starts.get(y)?, *self.row_starts.get(y + 1)?);
        let row = &self.runs[first..last];
        let k = row.partition_point(|&(_, end)| end <= tile.x);
        let &(start, end) = row.get(k)?;
        (start <= tile.x && tile.x < end).then(|| self.region[first + k])
    }
}

/// Works out a terrain's [`Regions`] a budget at a time, so that a big map's regions cost no
/// tick more than its share: rows are scanned into runs, each joined by union-find to the runs
/// of the row below it overlaps, then each run's region is resolved. The terrain must not
/// change between calls (start a new builder when it does).
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default)]
pub(super) struct RegionsBuilder {
    regions: Regions,
    /// The union-find parent of each run.
    parent: Vec<u32>,
    /// Rows scanned so far.
    rows: usize,
    /// Runs whose region is resolved so far (after every row is scanned).
    resolved: usize,
}

impl RegionsBuilder {
    /// Works on the regions of `terrain` until they are done or `budget` (in tile expansions,
    /// see [`TILES_SCANNED_PER_EXPANSION`]) is spent, counting it down; returns the regions
    /// once done. A row is scanned whole, so one call may overspend by up to a row.
    pub(super) fn work(&mut self, tiles: &Tiles, budget: &mut u32) -> Option<Regions> {
        let (width, height) = (tiles.size.x as usize, tiles.size.y as usize);
        // A row costs its tiles, and each run in it one more tile for its unions.
        let mut scanned: u64 = 0;
        let allowance = u64::from(*budget) * u64::from(TILES_SCANNED_PER_EXPANSION);
        while self.rows < height && scanned < allowance {
            let before = self.regions.runs.len();
            self.scan_row(tiles, width);
            scanned += (width + self.regions.runs.len() - before) as u64;
        }
        let total = self.regions.runs.len();
        while self.rows == height && self.resolved < total && scanned < allowance {
            let end = (self.resolved + width.max(1)).min(total);
            for i in self.resolved..end {
                let region = root(&mut self.parent, i as u32);
                self.regions.region.push(region);
            }
            scanned += (end - self.resolved) as u64;
            self.resolved = end;
        }
        let spent = scanned.div_ceil(u64::from(TILES_SCANNED_PER_EXPANSION));
        *budget = budget.saturating_sub(u32::try_from(spent).unwrap_or(u32::MAX));
        (self.rows == height && self.resolved == total).then(|| {
            let mut regions = core::mem::take(&mut self.regions);
            regions.row_starts.push(total);
            regions
        })
    }

    /// Scans the next row into runs and joins each to the runs of the row below it overlaps.
    fn scan_row(&mut self, tiles: &Tiles, width: usize) {
        let y = self.rows;
        let row = &tiles.walkable[y * width..(y + 1) * width];
        let runs = &mut self.regions.runs;
        let first = runs.len();
        self.regions.row_starts.push(first);
        let mut x = 0;
        while x < width {
            if !row[x] {
                x += 1;
                continue;
            }
            let start = x;
            while x < width && row[x] {
                x += 1;
            }
            self.parent.push(runs.len() as u32);
            runs.push((start as u32, x as u32));
        }
        self.rows += 1;
        if y == 0 {
            return;
        }
        let below = self.regions.row_starts[y - 1]..first;
        let mut b = below.start;
        for h in first..runs.len() {
            let (x0, x1) = runs[h];
            while b < below.end && runs[b].1 <= x0 {
                b += 1;
            }
            let mut k = b;
            while k < below.end && runs[k].0 < x1 {
                let (p, q) = (
                    root(&mut self.parent, h as u32),
                    root(&mut self.parent, k as u32),
                );
                self.parent[p.max(q) as usize] = p.min(q);
                k += 1;
            }
        }
    }
}

/// The root of run `i` in the union-find `parent`, halving the path on the way.
fn root(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        parent[i as usize] = parent[parent[i as usize] as usize];
        i = parent[i as usize];
    }
    i
}
