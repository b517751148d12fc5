//! The terrain as a snapshot holds it, and how the revisions saved with it name the terrain
//! restored from it.

use std::collections::VecDeque;
use std::sync::OnceLock;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::map::{ChangeLog, LARGEST_TERRAIN, Terrain, TerrainRevision};
use super::regions::Regions;
use super::tiles::Tiles;

/// A [`Terrain`] as saved: its tiles, its regions if they were worked out, and its change log
/// (what was planned on it looks there for the walls raised since).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SavedTerrain {
    origin: Vec2,
    tile_size: f32,
    size: UVec2,
    /// Whether each tile is walkable, a bit each (the lowest bit of a byte first), row by row
    /// from the lowest: an eighth of the bytes of one a tile.
    walkable: Vec<u8>,
    regions: Option<Regions>,
    changes: u64,
    changed: VecDeque<(u64, UVec2, bool)>,
    forgotten: u64,
}

/// The name a saved revision gives the terrain saved with it; [`ELSEWHERE`] names any other.
/// Terrains' own names are drawn from a count kept by the process, so they differ between
/// runs: a snapshot holds these instead, so that the same state gives the same bytes.
const SAVED: u64 = 0;
/// The name a saved revision gives any terrain but the one saved with it.
const ELSEWHERE: u64 = 1;

/// How revisions are renamed between a world and a snapshot: every comparison the planner and
/// the squads make is with the terrain as it is, so a revision need only say whether it is of
/// that terrain ([`SAVED`] in a snapshot) or of another ([`ELSEWHERE`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Renaming {
    /// The terrain the revisions renamed to `this` are of.
    from: Option<u64>,
    this: u64,
    /// What every other is renamed to.
    other: u64,
}

impl Renaming {
    /// For saving revisions made against `terrain` (if any).
    pub(crate) fn for_saving(terrain: Option<&Terrain>) -> Self {
        Self {
            from: terrain.map(|t| t.changes.revision.terrain),
            this: SAVED,
            other: ELSEWHERE,
        }
    }

    /// For restoring revisions saved without a terrain: all of them are of another terrain.
    pub(crate) fn without_terrain() -> Self {
        let elsewhere = ChangeLog::default().revision.terrain;
        Self {
            from: None,
            this: elsewhere,
            other: elsewhere,
        }
    }

    /// `revision` renamed.
    pub(crate) fn apply(&self, revision: TerrainRevision) -> TerrainRevision {
        let terrain = if Some(revision.terrain) == self.from {
            self.this
        } else {
            self.other
        };
        TerrainRevision {
            terrain,
            ..revision
        }
    }
}

impl Terrain {
    /// The terrain as a snapshot holds it.
    pub(crate) fn save(&self) -> SavedTerrain {
        let log = &self.changes;
        SavedTerrain {
            origin: self.origin,
            tile_size: self.tile_size,
            size: self.tiles.size,
            walkable: (self.tiles.walkable.chunks(8))
                .map(|bits| {
                    (bits.iter().enumerate()).fold(0, |byte, (k, &w)| byte | u8::from(w) << k)
                })
                .collect(),
            regions: self.regions.get().cloned(),
            changes: log.revision.changes,
            changed: log.changed.clone(),
            forgotten: log.forgotten,
        }
    }
}

impl SavedTerrain {
    /// The tiles' bits match the size: bytes from elsewhere could say otherwise.
    pub(crate) fn is_consistent(&self) -> bool {
        let tiles = u64::from(self.size.x) * u64::from(self.size.y);
        tiles <= LARGEST_TERRAIN && tiles.div_ceil(8) == self.walkable.len() as u64
    }

    /// The terrain restored (of a [consistent](Self::is_consistent) save), a terrain of its
    /// own, and how the revisions saved with it name it.
    pub(crate) fn restore(&self) -> (Terrain, Renaming) {
        let mut log = ChangeLog::default();
        log.revision.changes = self.changes;
        log.changed = self.changed.clone();
        log.forgotten = self.forgotten;
        let renaming = Renaming {
            from: Some(SAVED),
            this: log.revision.terrain,
            other: ChangeLog::default().revision.terrain,
        };
        let regions = OnceLock::new();
        if let Some(known) = &self.regions {
            let _ = regions.set(known.clone());
        }
        let count = self.size.x as usize * self.size.y as usize;
        let walkable = (0..count)
            .map(|k| self.walkable[k / 8] & (1 << (k % 8)) != 0)
            .collect();
        let terrain = Terrain {
            origin: self.origin,
            tile_size: self.tile_size,
            tiles: Tiles {
                size: self.size,
                walkable,
            },
            regions,
            changes: log,
        };
        (terrain, renaming)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A terrain whose tiles do not fill whole bytes comes back tile for tile, with its
    /// regions and change log, as a terrain of its own.
    #[test]
    fn a_terrain_comes_back_tile_for_tile() {
        let mut terrain = Terrain::new(Vec2::new(-3.0, 2.0), 0.5, UVec2::new(13, 7));
        for k in [0, 5, 8, 31, 64, 90] {
            terrain.set_walkable(UVec2::new(k % 13, k / 13), false);
        }
        let _ = terrain.find_path(Vec3::new(-2.7, 2.2, 0.0), Vec3::new(2.0, 5.0, 0.0));
        let saved = terrain.save();
        assert!(saved.is_consistent());
        assert_eq!(saved.walkable.len(), 12, "91 tiles in 12 bytes");
        let (restored, renaming) = saved.restore();
        assert_eq!(restored, terrain);
        assert_eq!(
            restored.regions.get().is_some(),
            terrain.regions.get().is_some()
        );
        assert_eq!(restored.changes.changed, terrain.changes.changed);
        let before = terrain.revision();
        assert_eq!(
            renaming.apply(Renaming::for_saving(Some(&terrain)).apply(before)),
            restored.revision()
        );
        assert_ne!(restored.revision().terrain, before.terrain);
    }
}
