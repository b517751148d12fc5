//! The connected regions of a terrain, so that a goal walled in is known without a search.

use bevy::prelude::*;

use super::Terrain;

/// The connected regions of a terrain: walkable tiles joined by straight steps (a diagonal step
/// needs both tiles beside it open, so it joins nothing the straight ones do not). Kept as the
/// runs of walkable tiles along each row, each with its region, so the work and memory grow
/// with the runs, not the tiles.
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
    pub(super) fn new(terrain: &Terrain) -> Self {
        let (width, height) = (terrain.size.x as usize, terrain.size.y as usize);
        let mut row_starts = Vec::with_capacity(height + 1);
        let mut runs = Vec::new();
        for row in terrain.walkable.chunks_exact(width.max(1)).take(height) {
            row_starts.push(runs.len());
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
                runs.push((start as u32, x as u32));
            }
        }
        row_starts.push(runs.len());
        // Union-find over the runs: a run joins every run of the row below it overlaps.
        let mut parent: Vec<u32> = (0..runs.len() as u32).collect();
        fn root(parent: &mut [u32], mut i: u32) -> u32 {
            while parent[i as usize] != i {
                parent[i as usize] = parent[parent[i as usize] as usize];
                i = parent[i as usize];
            }
            i
        }
        for y in 1..height {
            let (below, here) = (
                row_starts[y - 1]..row_starts[y],
                row_starts[y]..row_starts[y + 1],
            );
            let mut b = below.start;
            for h in here {
                let (x0, x1) = runs[h];
                while b < below.end && runs[b].1 <= x0 {
                    b += 1;
                }
                let mut k = b;
                while k < below.end && runs[k].0 < x1 {
                    let (p, q) = (root(&mut parent, h as u32), root(&mut parent, k as u32));
                    parent[p.max(q) as usize] = p.min(q);
                    k += 1;
                }
            }
        }
        let region = (0..runs.len() as u32)
            .map(|i| root(&mut parent, i))
            .collect();
        Self {
            row_starts,
            runs,
            region,
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
