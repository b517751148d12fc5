//! The terrain as a snapshot holds it, and how the revisions saved with it name the terrain
//! restored from it.

use std::collections::VecDeque;
use std::sync::OnceLock;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::map::{ChangeLog, Terrain, TerrainRevision};
use super::regions::Regions;
use super::tiles::Tiles;

/// A [`Terrain`] as saved: its tiles, its regions if they were worked out, and its change log
/// (what was planned on it looks there for the walls raised since).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SavedTerrain {
    origin: Vec2,
    tile_size: f32,
    tiles: Tiles,
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
            tiles: self.tiles.clone(),
            regions: self.regions.get().cloned(),
            changes: log.revision.changes,
            changed: log.changed.clone(),
            forgotten: log.forgotten,
        }
    }
}

impl SavedTerrain {
    /// The tiles' count matches the size: bytes from elsewhere could say otherwise.
    pub(crate) fn is_consistent(&self) -> bool {
        let (x, y) = (self.tiles.size.x as usize, self.tiles.size.y as usize);
        x.checked_mul(y) == Some(self.tiles.walkable.len())
    }

    /// The terrain restored, a terrain of its own, and how the revisions saved with it name it.
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
        let terrain = Terrain {
            origin: self.origin,
            tile_size: self.tile_size,
            tiles: self.tiles.clone(),
            regions,
            changes: log,
        };
        (terrain, renaming)
    }
}
