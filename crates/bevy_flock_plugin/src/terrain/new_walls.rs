//! The walls raised since a revision, and whether they cross a planned path.

use bevy::prelude::*;

use super::map::{Terrain, TerrainRevision};

/// Tiles a side of the blocks [`NewWalls`] keeps the new walls in.
const NEW_WALL_BLOCK: u32 = 8;

/// The tiles walled in since a revision, as the 8 x 8 blocks of tiles they are in and those
/// next to them (a bit each), and the range of those blocks: enough to tell quickly which
/// planned paths they may cross.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NewWalls {
    blocks_across: u32,
    bits: Vec<u64>,
    /// The lowest and highest block marked (lowest above highest: none).
    lowest: UVec2,
    highest: UVec2,
}

impl NewWalls {
    /// Whether the block at `block` (in blocks, maybe off the terrain) is marked.
    fn holds(&self, block: Vec2) -> bool {
        if !block.is_finite() || block.cmplt(Vec2::ZERO).any() {
            return false;
        }
        let block = block.as_uvec2();
        if block.x >= self.blocks_across {
            return false;
        }
        let bit = block.y as usize * self.blocks_across as usize + block.x as usize;
        self.bits
            .get(bit / 64)
            .is_some_and(|word| word & (1 << (bit % 64)) != 0)
    }
}

impl Terrain {
    /// The tiles made unwalkable after `revision`, or `None` when they are not all
    /// remembered (too many changes since, or `revision` is another terrain's).
    pub(crate) fn blocked_since(&self, revision: TerrainRevision) -> Option<NewWalls> {
        let changed = self.changed_since(revision)?;
        let blocks = self
            .tiles
            .size
            .saturating_add(UVec2::splat(NEW_WALL_BLOCK - 1))
            / NEW_WALL_BLOCK;
        let mut walls = NewWalls {
            blocks_across: blocks.x,
            bits: vec![0; (blocks.x as usize * blocks.y as usize).div_ceil(64)],
            lowest: UVec2::MAX,
            highest: UVec2::ZERO,
        };
        // Each new wall marks its block and the eight round it, so that a way near it need
        // look only at the blocks it passes through.
        for (tile, _) in changed.filter(|&(_, walkable)| !walkable) {
            let block = tile / NEW_WALL_BLOCK;
            let (lo, hi) = (
                block.saturating_sub(UVec2::ONE),
                (block + 1).min(blocks - 1),
            );
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    let bit = y as usize * blocks.x as usize + x as usize;
                    walls.bits[bit / 64] |= 1 << (bit % 64);
                }
            }
            walls.lowest = walls.lowest.min(lo);
            walls.highest = walls.highest.max(hi);
        }
        Some(walls)
    }

    /// Whether one of `walls` lies within the clearance of the way from `from` along
    /// `waypoints` and blocks it now: where planned paths must be planned again. Legs away
    /// from every new wall cost a comparison; the rest a bit test per block of length.
    pub(crate) fn crosses(&self, from: Vec3, waypoints: &[Vec3], walls: &NewWalls) -> bool {
        if walls.lowest.cmpgt(walls.highest).any() {
            return false;
        }
        let block = self.tile_size * NEW_WALL_BLOCK as f32;
        let block_of = |p: Vec2| ((p - self.origin) / block).floor();
        let (lowest, highest) = (walls.lowest.as_vec2(), walls.highest.as_vec2());
        let mut at = from;
        waypoints.iter().any(|&waypoint| {
            let (a, b) = (at, waypoint);
            at = b;
            let (lo, hi) = (
                block_of(a.truncate().min(b.truncate())),
                block_of(a.truncate().max(b.truncate())),
            );
            if hi.cmplt(lowest).any() || lo.cmpgt(highest).any() {
                return false;
            }
            // Samples a block apart: a tile within a tile and a quarter of the leg is within
            // half a block and a little of one, so in its block or the next.
            let samples = (a.distance(b) / block).ceil().max(1.0) as u32;
            let near = (0..=samples)
                .any(|k| walls.holds(block_of(a.lerp(b, k as f32 / samples as f32).truncate())));
            near && !self.is_clear_line(a, b)
        })
    }
}
