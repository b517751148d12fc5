//! The [`Terrain`] resource: its tiles, what is walkable, and its change log.

use std::sync::OnceLock;

use bevy::prelude::*;
use flock_core::Shape;

use super::regions::Regions;
use super::tiles::Tiles;

/// The most tiles a [`Terrain`] may have: 2^28 (16,384 x 16,384), a quarter of a GiB of
/// tiles.
pub const LARGEST_TERRAIN: u64 = 1 << 28;

/// A terrain size with more than [`LARGEST_TERRAIN`] tiles, refused by [`Terrain::try_new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TerrainTooLarge {
    /// The size asked for.
    pub size: UVec2,
}

impl core::fmt::Display for TerrainTooLarge {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "a terrain of {} x {} tiles exceeds the largest, {LARGEST_TERRAIN} tiles",
            self.size.x, self.size.y
        )
    }
}

impl std::error::Error for TerrainTooLarge {}

/// A grid of square tiles on the XY plane, each walkable or not (an RTS map's walk tiles), for
/// planar flocks ([`FlockingPlugins::planar`](crate::FlockingPlugins::planar)).
///
/// Unwalkable tiles are obstacles: agents cast ahead against them and steer round them like any
/// [`Obstacle`](crate::Obstacle), and never end a tick inside one. Agents with a
/// [`Destination`](crate::Destination) get a path across the walkable tiles, planned by A* (or,
/// on a big map, hierarchically) through the [`PathPlanner`](crate::PathPlanner) (a budget of
/// tiles a tick) and planned again when a new wall
/// crosses it. Insert it as a resource (with [`TerrainPlugin`](crate::TerrainPlugin)); edit it any time (the world
/// changes in play).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::Terrain;
///
/// let terrain = Terrain::from_rows(
///     Vec2::ZERO,
///     1.0,
///     &[
///         "....",
///         ".##.",
///         "....",
///     ],
/// );
/// assert!(!terrain.is_walkable_at(Vec3::new(1.5, 1.5, 0.0)));
/// let path = terrain.find_path(Vec3::new(0.5, 1.5, 0.0), Vec3::new(3.5, 1.5, 0.0)).unwrap();
/// assert_eq!(path.last(), Some(&Vec3::new(3.5, 1.5, 0.0)));
/// assert!(path.len() >= 2, "round the wall, not through it: {path:?}");
/// ```
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct Terrain {
    pub(super) origin: Vec2,
    pub(super) tile_size: f32,
    /// Which tiles are walkable.
    pub(super) tiles: Tiles,
    /// The connected region of each tile (`u32::MAX` for an unwalkable one), worked out when a
    /// path is first asked for after a change: tiles in different regions have no path.
    #[reflect(ignore)]
    pub(super) regions: OnceLock<Regions>,
    /// The tiles walled in lately, so that planned paths re-plan only where a new wall
    /// crosses them.
    #[reflect(ignore)]
    pub(super) changes: ChangeLog,
}

/// How many tile changes a terrain remembers; after more, every path re-plans and the path
/// planner's clusters are all worked out again.
const REMEMBERED_CHANGES: usize = 4096;

/// Which terrain, and how far along its changes: planners and squads keep the one they last
/// worked from, and ask the terrain what was walled in since.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TerrainRevision {
    /// Unique to one terrain value: a new terrain, and every clone, gets its own.
    pub(super) terrain: u64,
    /// One more with every tile changed.
    pub(super) changes: u64,
}

/// A terrain's revision and the tiles changed in its last revisions.
#[derive(Debug)]
pub(super) struct ChangeLog {
    pub(super) revision: TerrainRevision,
    /// Each tile changed, with the revision that changed it and whether it is now walkable,
    /// oldest first.
    pub(super) changed: std::collections::VecDeque<(u64, UVec2, bool)>,
    /// The newest revision whose changes were forgotten.
    pub(super) forgotten: u64,
}

impl Default for ChangeLog {
    /// A new terrain's log: nothing changed yet, under an identity no other terrain has.
    fn default() -> Self {
        static TERRAINS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Self {
            revision: TerrainRevision {
                terrain: TERRAINS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                changes: 0,
            },
            changed: default(),
            forgotten: 0,
        }
    }
}

impl Clone for ChangeLog {
    /// A clone is a terrain of its own: what was planned on the original is planned again on it.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for Terrain {
    fn eq(&self, other: &Self) -> bool {
        self.origin == other.origin
            && self.tile_size == other.tile_size
            && self.tiles == other.tiles
    }
}
impl Terrain {
    /// A terrain of `size` tiles, each `tile_size` wide, its lowest corner at `origin`, every
    /// tile walkable. A size of zero makes an empty terrain, which blocks nothing.
    ///
    /// # Panics
    ///
    /// With more than [`LARGEST_TERRAIN`] tiles; [`try_new`](Self::try_new) returns the error
    /// instead.
    pub fn new(origin: Vec2, tile_size: f32, size: UVec2) -> Self {
        Self::try_new(origin, tile_size, size).unwrap_or_else(|error| panic!("{error}"))
    }

    /// [`new`](Self::new), or an error for a size over [`LARGEST_TERRAIN`] tiles.
    pub fn try_new(origin: Vec2, tile_size: f32, size: UVec2) -> Result<Self, TerrainTooLarge> {
        let tiles = u64::from(size.x) * u64::from(size.y);
        if tiles > LARGEST_TERRAIN {
            return Err(TerrainTooLarge { size });
        }
        Ok(Self {
            origin,
            tile_size,
            tiles: Tiles {
                size,
                walkable: vec![true; tiles as usize],
            },
            regions: OnceLock::new(),
            changes: ChangeLog::default(),
        })
    }

    /// A terrain drawn as text: one string per row of tiles, the first row at the top
    /// (highest y), `#` for an unwalkable tile and anything else for a walkable one. Rows are
    /// as wide as the longest; what shorter ones lack is walkable.
    pub fn from_rows(origin: Vec2, tile_size: f32, rows: &[&str]) -> Self {
        let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(1);
        let mut terrain = Self::new(
            origin,
            tile_size,
            UVec2::new(width as u32, rows.len() as u32),
        );
        for (r, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                let y = terrain.tiles.size.y - 1 - r as u32;
                terrain.set_walkable(UVec2::new(x as u32, y), c != '#');
            }
        }
        terrain
    }

    /// The number of tiles along X and Y.
    pub fn size(&self) -> UVec2 {
        self.tiles.size
    }

    /// How many tiles the terrain has.
    pub(super) fn tile_count(&self) -> u64 {
        u64::from(self.tiles.size.x) * u64::from(self.tiles.size.y)
    }

    /// The width of a tile.
    pub fn tile_size(&self) -> f32 {
        self.tile_size
    }

    /// Whether the terrain is usable: a finite origin and a positive, finite tile size.
    pub fn is_valid(&self) -> bool {
        self.origin.is_finite() && self.tile_size.is_finite() && self.tile_size > 0.0
    }

    /// The tile `point` is on, if it is on the terrain.
    pub fn tile_at(&self, point: Vec3) -> Option<UVec2> {
        let local = (point.truncate() - self.origin) / self.tile_size;
        if !self.is_valid() || !local.is_finite() || local.cmplt(Vec2::ZERO).any() {
            return None;
        }
        let tile = local.floor().as_uvec2();
        tile.cmplt(self.tiles.size).all().then_some(tile)
    }

    /// The centre of `tile`, on the plane.
    pub fn centre(&self, tile: UVec2) -> Vec3 {
        (self.origin + (tile.as_vec2() + 0.5) * self.tile_size).extend(0.0)
    }

    /// Whether `tile` is on the terrain and walkable.
    pub fn is_walkable(&self, tile: UVec2) -> bool {
        self.tiles.is_walkable(tile)
    }

    /// Whether `point` is on a walkable tile; off the terrain counts as walkable (the terrain
    /// only blocks where it says so).
    pub fn is_walkable_at(&self, point: Vec3) -> bool {
        self.tile_at(point)
            .is_none_or(|tile| self.is_walkable(tile))
    }

    /// Makes `tile` walkable or not; returns whether it is on the terrain.
    pub fn set_walkable(&mut self, tile: UVec2, walkable: bool) -> bool {
        match self.tiles.index(tile) {
            Some(i) => {
                if self.tiles.walkable[i] != walkable {
                    self.tiles.walkable[i] = walkable;
                    self.regions = OnceLock::new();
                    self.note_change(tile, walkable);
                }
                true
            }
            None => false,
        }
    }

    /// Counts and remembers a change of `tile`.
    fn note_change(&mut self, tile: UVec2, walkable: bool) {
        let log = &mut self.changes;
        log.revision.changes += 1;
        log.changed
            .push_back((log.revision.changes, tile, walkable));
        if log.changed.len() > REMEMBERED_CHANGES
            && let Some((revision, _, _)) = log.changed.pop_front()
        {
            log.forgotten = revision;
        }
    }

    /// The tiles changed after `revision`, oldest first, or `None` when they are not all
    /// remembered (too many changes since, or `revision` is another terrain's).
    pub(super) fn changed_since(
        &self,
        revision: TerrainRevision,
    ) -> Option<impl Iterator<Item = (UVec2, bool)>> {
        let log = &self.changes;
        if revision.terrain != log.revision.terrain || revision.changes < log.forgotten {
            return None;
        }
        Some(
            (log.changed.iter())
                .filter(move |&&(r, _, _)| r > revision.changes)
                .map(|&(_, tile, walkable)| (tile, walkable)),
        )
    }

    /// The terrain's identity and how many tiles changed on it.
    pub(crate) fn revision(&self) -> TerrainRevision {
        self.changes.revision
    }

    /// The centres of the unwalkable tiles.
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        let mut centres = Vec::new();
        for y in 0..self.tiles.size.y {
            for x in 0..self.tiles.size.x {
                let tile = UVec2::new(x, y);
                if !self.is_walkable(tile) {
                    centres.push(self.centre(tile));
                }
            }
        }
        centres
    }

    /// The unwalkable tiles as boxes, one per run of them along a row.
    pub(super) fn blocking_boxes(&self) -> Vec<Shape> {
        let mut boxes = Vec::new();
        if !self.is_valid() {
            return boxes;
        }
        for y in 0..self.tiles.size.y {
            let mut x = 0;
            while x < self.tiles.size.x {
                if self.is_walkable(UVec2::new(x, y)) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < self.tiles.size.x && !self.is_walkable(UVec2::new(x, y)) {
                    x += 1;
                }
                let run = (x - start) as f32 * self.tile_size;
                let low = self.origin + UVec2::new(start, y).as_vec2() * self.tile_size;
                boxes.push(Shape::Box {
                    centre: (low + Vec2::new(run, self.tile_size) * 0.5).extend(0.0),
                    half_extents: Vec3::new(run, self.tile_size, self.tile_size) * 0.5,
                    rotation: Quat::IDENTITY,
                });
            }
        }
        boxes
    }
}
