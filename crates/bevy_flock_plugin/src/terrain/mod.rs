//! [`TerrainPlugin`]: a grid of walkable and unwalkable tiles on the plane, whose walls every
//! agent steers around, and paths across it by A* for the squads' destinations.

use std::sync::OnceLock;

use bevy::platform::time::Instant;
use bevy::prelude::*;
use flock_core::Shape;

use crate::plugin::{FlockingSchedule, Step};
use crate::simulation::FlockSimulation;
use crate::squads::Destination;
pub use planner::PathPlanner;
use regions::Regions;
use search::{PathSearch, Searched, turns};

mod planner;
mod regions;
mod search;

/// A path asked for across a terrain, ready to search: its ends and the tiles they join.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PathQuery {
    from: Vec3,
    to: Vec3,
    start: UVec2,
    goal: UVec2,
    from_off: bool,
    to_off: bool,
}

/// What a path needs before its search.
#[derive(Clone, Debug, PartialEq)]
enum PathStart {
    /// Known without a search.
    Answered(Option<Vec<Vec3>>),
    /// To search for.
    Search(PathQuery),
}

/// Tile maps (the `pathfinding` feature; add it after
/// [`FlockingPlugins`](crate::FlockingPlugins)): the [`Terrain`] resource's unwalkable tiles
/// are obstacles every agent steers around and never enters, and, with
/// [`SquadsPlugin`](crate::SquadsPlugin), agents with a [`Destination`](crate::Destination)
/// get A* paths across it, planned again when it changes.
pub struct TerrainPlugin;

impl Plugin for TerrainPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "TerrainPlugin");
        app.register_type::<Terrain>()
            .init_resource::<PathPlanner>()
            .add_systems(
                schedule,
                (
                    (new_planning_tick, forget_removed_requests)
                        .chain()
                        .in_set(Step::Flocks),
                    add_walls.in_set(Step::CopyTerrain),
                ),
            );
    }
}

/// Gives the path planner this tick's budget.
fn new_planning_tick(mut planner: ResMut<PathPlanner>) {
    planner.new_tick();
}

/// Drops what agents and squads asked of the planner once their destination is removed or
/// they are despawned, so that it neither searches for them nor keeps their answers.
fn forget_removed_requests(
    mut removed: RemovedComponents<Destination>,
    mut planner: ResMut<PathPlanner>,
) {
    for who in removed.read() {
        planner.forget(who);
    }
}

/// Adds the terrain's unwalkable tiles to this tick's obstacles, as boxes worked out again
/// only when the terrain changes; a terrain with a bad tile size or origin is reported once
/// and ignored.
fn add_walls(
    mut sim: ResMut<FlockSimulation>,
    terrain: Option<Res<Terrain>>,
    mut walls: Local<Vec<Shape>>,
    mut warned_invalid: Local<bool>,
) {
    let started = Instant::now();
    match &terrain {
        Some(terrain) if !terrain.is_valid() => {
            if !*warned_invalid {
                warn!(
                    "bevy_flock: the Terrain's tile size {} must be positive and finite and its origin finite; it is ignored (reported once)",
                    terrain.tile_size()
                );
                *warned_invalid = true;
            }
            walls.clear();
        }
        Some(terrain) if terrain.is_changed() => *walls = terrain.blocking_boxes(),
        Some(_) => {}
        None => walls.clear(),
    }
    sim.shapes.extend_from_slice(&walls);
    sim.step_time += started.elapsed();
}

/// The longest leg, in tiles, that shortening a path makes by skipping its turns.
pub(crate) const LONGEST_SHORTCUT: f32 = 16.0;

/// How far a smoothed path keeps from unwalkable tiles, as a fraction of the tile size.
const PATH_CLEARANCE: f32 = 0.25;

/// The most parallels a band's line check follows each side of its middle line
/// ([`Terrain::is_clear_band`]).
const MAX_PARALLELS: i32 = 16;

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
/// [`Destination`](crate::Destination) get a path across the walkable tiles, planned by A*
/// through the [`PathPlanner`] (a budget of tiles a tick) and planned again when a new wall
/// crosses it. Insert it as a resource (with [`TerrainPlugin`]); edit it any time (the world
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
    origin: Vec2,
    tile_size: f32,
    size: UVec2,
    walkable: Vec<bool>,
    /// The connected region of each tile (`u32::MAX` for an unwalkable one), worked out when a
    /// path is first asked for after a change: tiles in different regions have no path.
    #[reflect(ignore)]
    regions: OnceLock<Regions>,
    /// The tiles walled in lately, so that planned paths re-plan only where a new wall
    /// crosses them.
    #[reflect(ignore)]
    changes: ChangeLog,
}

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

/// How many newly blocked tiles a terrain remembers; after more, every path re-plans.
const REMEMBERED_CHANGES: usize = 4096;

/// Which terrain, and how far along its changes: planners and squads keep the one they last
/// worked from, and ask the terrain what was walled in since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TerrainRevision {
    /// Unique to one terrain value: a new terrain, and every clone, gets its own.
    terrain: u64,
    /// One more with every tile changed.
    changes: u64,
}

/// A terrain's revision and the tiles blocked in its last revisions.
#[derive(Debug)]
struct ChangeLog {
    revision: TerrainRevision,
    /// Each tile made unwalkable, with the revision that did it, oldest first.
    blocked: std::collections::VecDeque<(u64, UVec2)>,
    /// The newest revision whose blocked tiles were forgotten.
    forgotten: u64,
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
            blocked: default(),
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
            && self.size == other.size
            && self.walkable == other.walkable
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
            size,
            walkable: vec![true; tiles as usize],
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
                let y = terrain.size.y - 1 - r as u32;
                terrain.set_walkable(UVec2::new(x as u32, y), c != '#');
            }
        }
        terrain
    }

    /// The number of tiles along X and Y.
    pub fn size(&self) -> UVec2 {
        self.size
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
        tile.cmplt(self.size).all().then_some(tile)
    }

    /// The centre of `tile`, on the plane.
    pub fn centre(&self, tile: UVec2) -> Vec3 {
        (self.origin + (tile.as_vec2() + 0.5) * self.tile_size).extend(0.0)
    }

    /// Whether `tile` is on the terrain and walkable.
    pub fn is_walkable(&self, tile: UVec2) -> bool {
        self.index(tile).is_some_and(|i| self.walkable[i])
    }

    /// Whether `point` is on a walkable tile; off the terrain counts as walkable (the terrain
    /// only blocks where it says so).
    pub fn is_walkable_at(&self, point: Vec3) -> bool {
        self.tile_at(point)
            .is_none_or(|tile| self.is_walkable(tile))
    }

    /// Makes `tile` walkable or not; returns whether it is on the terrain.
    pub fn set_walkable(&mut self, tile: UVec2, walkable: bool) -> bool {
        match self.index(tile) {
            Some(i) => {
                if self.walkable[i] != walkable {
                    self.walkable[i] = walkable;
                    self.regions = OnceLock::new();
                    self.note_change(tile, walkable);
                }
                true
            }
            None => false,
        }
    }

    /// Counts a change of `tile` and, if it was walled in, remembers it.
    fn note_change(&mut self, tile: UVec2, walkable: bool) {
        let log = &mut self.changes;
        log.revision.changes += 1;
        if walkable {
            return;
        }
        log.blocked.push_back((log.revision.changes, tile));
        if log.blocked.len() > REMEMBERED_CHANGES
            && let Some((revision, _)) = log.blocked.pop_front()
        {
            log.forgotten = revision;
        }
    }

    /// The terrain's identity and how many tiles changed on it.
    pub(crate) fn revision(&self) -> TerrainRevision {
        self.changes.revision
    }

    /// The tiles made unwalkable after `revision`, or `None` when they are not all
    /// remembered (too many changes since, or `revision` is another terrain's).
    pub(crate) fn blocked_since(&self, revision: TerrainRevision) -> Option<NewWalls> {
        let log = &self.changes;
        if revision.terrain != log.revision.terrain || revision.changes < log.forgotten {
            return None;
        }
        let blocks = self.size.saturating_add(UVec2::splat(NEW_WALL_BLOCK - 1)) / NEW_WALL_BLOCK;
        let mut walls = NewWalls {
            blocks_across: blocks.x,
            bits: vec![0; (blocks.x as usize * blocks.y as usize).div_ceil(64)],
            lowest: UVec2::MAX,
            highest: UVec2::ZERO,
        };
        // Each new wall marks its block and the eight round it, so that a way near it need
        // look only at the blocks it passes through.
        for &(_, tile) in log.blocked.iter().filter(|&&(r, _)| r > revision.changes) {
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

    /// A path from `from` to `to` across walkable tiles: A* over the tiles (8 neighbours, no
    /// cutting corners), then shortened by skipping every waypoint the path can go straight
    /// past with room to spare, in legs of up to 16 tiles. The waypoints are tile centres,
    /// then `to` itself; `from` is not included. Off the terrain counts as walkable: an end
    /// off it joins the terrain at the border tile nearest to it. `None` if either end is on an unwalkable tile (or joins the
    /// terrain at one), or no path joins them; a goal walled in is known at once, without a
    /// search, from the terrain's connected regions.
    pub fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        match self.start_path(from, to, Some(self.regions())) {
            PathStart::Answered(answer) => answer,
            PathStart::Search(query) => {
                match PathSearch::new(self, query.start, query.goal).run(self, u32::MAX) {
                    Searched::Found(tiles) => Some(self.finish_path(&query, &tiles)),
                    Searched::NoPath | Searched::Unfinished => None,
                }
            }
        }
    }

    /// What a path from `from` to `to` needs before a search: the answer at once (an end that
    /// is not finite or is walled, a goal in another of the `regions` if they are known, an
    /// empty terrain), or the tiles to search between.
    fn start_path(&self, from: Vec3, to: Vec3, regions: Option<&Regions>) -> PathStart {
        let (from, to) = (from.with_z(0.0), to.with_z(0.0));
        if !self.is_valid() || !from.is_finite() || !to.is_finite() {
            return PathStart::Answered(None);
        }
        if self.walkable.is_empty() {
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
    fn finish_path(&self, query: &PathQuery, tiles: &[UVec2]) -> Vec<Vec3> {
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
                let last = (self.size - UVec2::ONE).as_vec2();
                (local.clamp(Vec2::ZERO, last).as_uvec2(), true)
            }
        };
        self.is_walkable(tile).then_some((tile, off))
    }

    /// The terrain's connected regions, worked out now if the terrain changed since.
    fn regions(&self) -> &Regions {
        self.regions.get_or_init(|| Regions::new(self))
    }

    /// The terrain's connected regions, if they are worked out for it as it is.
    fn known_regions(&self) -> Option<&Regions> {
        self.regions.get()
    }

    /// Keeps `regions`, worked out for the terrain as it is, for the paths asked for until it
    /// changes.
    fn keep_regions(&self, regions: Regions) -> &Regions {
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

    /// Whether the segment `a`-`b` and its parallels a quarter tile each side cross only
    /// walkable tiles: every tile each line passes through, however briefly, is checked (off
    /// the terrain counts as walkable).
    pub fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        self.is_clear_band(a, b, PATH_CLEARANCE * self.tile_size)
    }

    /// Whether the segment `a`-`b` and its parallels up to `clearance` each side cross only
    /// walkable tiles. The parallels are no more than half a tile apart, so that no tile fits
    /// between them, up to a clearance of [`MAX_PARALLELS`] half tiles (the callers' are a
    /// quarter tile or none).
    pub(crate) fn is_clear_band(&self, a: Vec3, b: Vec3, clearance: f32) -> bool {
        let (a, b) = (a.truncate(), b.truncate());
        let across = (b - a).normalize_or_zero().perp();
        let clearance = if clearance.is_finite() {
            clearance.max(0.0)
        } else {
            0.0
        };
        let pairs = ((clearance / (0.5 * self.tile_size)).ceil() as i32).clamp(0, MAX_PARALLELS);
        (-pairs..=pairs).all(|k| {
            let offset = across * (clearance * k as f32 / pairs.max(1) as f32);
            self.is_clear_segment(a + offset, b + offset)
        })
    }

    /// Whether every tile the segment `a`-`b` passes through is walkable (off the terrain counts
    /// as walkable, and so does a segment with an end that is not finite). The segment is cut
    /// to the terrain's bounds and followed from tile to tile, stepping across whichever tile
    /// edge it meets first (Amanatides and Woo, "A fast voxel traversal algorithm", 1987): one
    /// lookup per tile it enters, however long it is.
    fn is_clear_segment(&self, a: Vec2, b: Vec2) -> bool {
        let (a, b) = (
            (a - self.origin) / self.tile_size,
            (b - self.origin) / self.tile_size,
        );
        if !self.is_valid() || !a.is_finite() || !b.is_finite() {
            return true;
        }
        let Some((a, b)) = clip_to_box(a, b, self.size.as_vec2()) else {
            return true;
        };
        let walkable = |tile: IVec2| {
            tile.cmplt(IVec2::ZERO).any()
                || self.index(tile.as_uvec2()).is_none_or(|i| self.walkable[i])
        };
        let (mut tile, end) = (a.floor().as_ivec2(), b.floor().as_ivec2());
        let (d, step) = (b - a, (end - tile).signum());
        // How far along the segment (0 at `a`, 1 at `b`) it crosses the next tile edge on each
        // axis, and how far apart its crossings of that axis' edges are.
        let edge = |axis: usize| {
            if step[axis] == 0 {
                return (f32::INFINITY, f32::INFINITY);
            }
            let next = tile[axis] as f32 + if step[axis] > 0 { 1.0 } else { 0.0 };
            ((next - a[axis]) / d[axis], 1.0 / d[axis].abs())
        };
        let ((mut cross_x, delta_x), (mut cross_y, delta_y)) = (edge(0), edge(1));
        if !walkable(tile) {
            return false;
        }
        // Exactly as many steps as there are tile edges between the end tiles, so that the walk
        // ends on `b`'s tile whatever the rounding of the crossings.
        for _ in 0..(end - tile).abs().element_sum() {
            if tile.y == end.y || (tile.x != end.x && cross_x < cross_y) {
                tile.x += step.x;
                cross_x += delta_x;
            } else {
                tile.y += step.y;
                cross_y += delta_y;
            }
            if !walkable(tile) {
                return false;
            }
        }
        true
    }

    /// The centres of the unwalkable tiles.
    pub(crate) fn wall_centres(&self) -> Vec<Vec3> {
        let mut centres = Vec::new();
        for y in 0..self.size.y {
            for x in 0..self.size.x {
                let tile = UVec2::new(x, y);
                if !self.is_walkable(tile) {
                    centres.push(self.centre(tile));
                }
            }
        }
        centres
    }

    /// The unwalkable tiles as boxes, one per run of them along a row.
    fn blocking_boxes(&self) -> Vec<Shape> {
        let mut boxes = Vec::new();
        if !self.is_valid() {
            return boxes;
        }
        for y in 0..self.size.y {
            let mut x = 0;
            while x < self.size.x {
                if self.is_walkable(UVec2::new(x, y)) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < self.size.x && !self.is_walkable(UVec2::new(x, y)) {
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

    pub(super) fn index(&self, tile: UVec2) -> Option<usize> {
        tile.cmplt(self.size)
            .all()
            .then(|| tile.x as usize + tile.y as usize * self.size.x as usize)
    }
}

/// The part of the segment `a`-`b` within the box from the origin to `size` (its edges
/// included), if any (Liang and Barsky 1984).
fn clip_to_box(a: Vec2, b: Vec2, size: Vec2) -> Option<(Vec2, Vec2)> {
    let d = b - a;
    let (mut enter, mut leave) = (0.0_f32, 1.0_f32);
    for axis in 0..2 {
        // Inside where `p * t <= q` for each side of the box on this axis.
        for (p, q) in [(-d[axis], a[axis]), (d[axis], size[axis] - a[axis])] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else if p < 0.0 {
                enter = enter.max(q / p);
            } else {
                leave = leave.min(q / p);
            }
        }
    }
    (enter <= leave).then(|| (a + d * enter, a + d * leave))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the segment `a`-`b` meets the inside of the square `lo`..`lo + 1`: the slab
    /// test, written apart from the tile walk it checks.
    fn meets_square(a: Vec2, b: Vec2, lo: Vec2) -> bool {
        let d = b - a;
        let (mut enter, mut leave) = (0.0_f32, 1.0_f32);
        for axis in 0..2 {
            let (from, to) = (lo[axis], lo[axis] + 1.0);
            if d[axis] == 0.0 {
                if a[axis] <= from || a[axis] >= to {
                    return false;
                }
                continue;
            }
            let (t0, t1) = ((from - a[axis]) / d[axis], (to - a[axis]) / d[axis]);
            enter = enter.max(t0.min(t1));
            leave = leave.min(t0.max(t1));
        }
        enter < leave
    }

    /// Whether the segment meets no unwalkable tile, by testing it against every one.
    fn clear_by_every_tile(terrain: &Terrain, a: Vec2, b: Vec2) -> bool {
        let local = |p: Vec2| (p - terrain.origin) / terrain.tile_size;
        let (a, b) = (local(a), local(b));
        (0..terrain.size.y).all(|y| {
            (0..terrain.size.x).all(|x| {
                let tile = UVec2::new(x, y);
                terrain.is_walkable(tile) || !meets_square(a, b, tile.as_vec2())
            })
        })
    }

    /// A line that cuts a wall's corner for a twentieth of a tile is blocked by it: sampling it
    /// every quarter tile, as the check once did, stepped over that corner. The line beside it,
    /// past the corner, is clear.
    #[test]
    fn a_line_across_a_walls_corner_is_blocked() {
        let terrain = Terrain::from_rows(Vec2::ZERO, 1.0, &["...", ".#.", "..."]);
        // The wall is the tile from (1, 1) to (2, 2); x + y = 2.05 enters it for x in 1..1.05.
        let (a, b) = (Vec3::new(0.6, 1.45, 0.0), Vec3::new(1.45, 0.6, 0.0));
        assert!(!terrain.is_clear_band(a, b, 0.0));
        assert!(!terrain.is_clear_band(b, a, 0.0), "either way");
        // x + y = 1.95 passes below the corner.
        let (a, b) = (Vec3::new(0.6, 1.35, 0.0), Vec3::new(1.35, 0.6, 0.0));
        assert!(terrain.is_clear_band(a, b, 0.0));
        // Its parallels a quarter tile each side: the upper one, x + y = 1.95 + 0.354, crosses
        // the wall.
        assert!(!terrain.is_clear_band(a, b, 0.25));
        // Along a row, a quarter tile below the wall's bottom edge: clear; its band is not.
        let (a, b) = (Vec3::new(0.1, 0.75, 0.0), Vec3::new(2.9, 0.75, 0.0));
        assert!(terrain.is_clear_band(a, b, 0.0));
        assert!(!terrain.is_clear_band(a, b, 0.3));
        // A point, on a wall and off it.
        let p = Vec3::new(1.5, 1.5, 0.0);
        assert!(!terrain.is_clear_band(p, p, 0.0));
        assert!(terrain.is_clear_band(p - Vec3::X, p - Vec3::X, 0.0));
    }

    /// On random maps (a third of the tiles walls, tiles of 0.7 from an origin off zero), the
    /// tile walk agrees with testing the segment against every wall, for segments inside the
    /// map, across its edges and wholly off it; and the band, for its middle line and its two
    /// parallels.
    #[test]
    fn the_tile_walk_finds_every_wall_a_segment_crosses() {
        let mut unit = crate::testing::unit_generator(0x9E37_79B9_7F4A_7C15);
        let mut blocked = 0;
        for map in 0..20 {
            let size = UVec2::new(4 + map % 7 * 3, 3 + map % 5 * 4);
            let mut terrain = Terrain::new(Vec2::new(-3.1, 2.3), 0.7, size);
            for y in 0..size.y {
                for x in 0..size.x {
                    terrain.set_walkable(UVec2::new(x, y), unit() > 0.33);
                }
            }
            let span = size.as_vec2() * 0.7;
            for _ in 0..200 {
                // From a quarter of the map beyond each edge.
                let mut point = || terrain.origin + (Vec2::new(unit(), unit()) * 1.5 - 0.25) * span;
                let (a, b) = (point(), point());
                let expected = clear_by_every_tile(&terrain, a, b);
                blocked += usize::from(!expected);
                assert_eq!(
                    terrain.is_clear_band(a.extend(0.0), b.extend(0.0), 0.0),
                    expected,
                    "map {map}, {a} to {b}"
                );
                let across = (b - a).normalize_or_zero().perp() * 0.25 * 0.7;
                let band = [0.0, 1.0, -1.0]
                    .iter()
                    .all(|&k| clear_by_every_tile(&terrain, a + across * k, b + across * k));
                assert_eq!(
                    terrain.is_clear_line(a.extend(0.0), b.extend(0.0)),
                    band,
                    "band, map {map}, {a} to {b}"
                );
            }
        }
        assert!(
            blocked > 1000 && blocked < 3800,
            "{blocked} of 4000 blocked"
        );
    }

    /// A line far longer than the map, or to a point at infinity, is cut to the map before its
    /// tiles are walked (sampled every quarter tile, as the check once was, the first took eight
    /// billion lookups, and the second never ended). One with an end that is not a number is
    /// clear.
    #[test]
    fn lines_across_a_big_world_are_cut_to_the_map() {
        let mut terrain = Terrain::new(Vec2::splat(-2048.0), 1.0, UVec2::splat(4096));
        terrain.set_walkable(UVec2::new(2048, 2048), false);
        let (a, b) = (Vec3::new(-1e9, 0.5, 0.0), Vec3::new(1e9, 0.5, 0.0));
        assert!(
            !terrain.is_clear_band(a, b, 0.0),
            "the line crosses the wall at the middle"
        );
        assert!(
            terrain.is_clear_band(a + Vec3::Y, b + Vec3::Y, 0.0),
            "a tile above, clear"
        );
        let far = Vec3::new(f32::INFINITY, 0.5, 0.0);
        assert!(terrain.is_clear_band(Vec3::ZERO, far, 0.0));
        assert!(terrain.is_clear_band(Vec3::NAN, b, 0.25));
        // A clearance that is not a number counts as none.
        assert!(terrain.is_clear_band(a + Vec3::Y, b + Vec3::Y, f32::NAN));
        assert!(!terrain.is_clear_band(a, b, f32::NAN));
    }
}
