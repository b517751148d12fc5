//! A* across a terrain's tiles, as a search that can stop after any number of expansions and
//! go on later from where it stopped: the path planner spreads long searches over ticks.

use bevy::prelude::*;

use super::tiles::Tiles;

/// Cost of a straight step between tiles; a diagonal one costs [`DIAGONAL_COST`].
pub(super) const STRAIGHT_COST: u32 = 10;
/// Cost of a diagonal step: 10 x sqrt 2, rounded.
pub(super) const DIAGONAL_COST: u32 = 14;

/// An A* search from one tile to another (8 neighbours, no cutting corners, the octile
/// heuristic). However a search is split into runs, it expands the same tiles in the same
/// order, so its path is the same.
///
/// Its memory grows in small pieces, so that no run stalls on copying a large buffer: tiles
/// reached are kept in 32 x 32 chunks made as the search first reaches into them, and the open
/// list is a ring of buckets by estimated cost. The octile heuristic is consistent, so a tile
/// reached from one being expanded is estimated at most two diagonal steps more than it: a ring
/// of [`RING`] buckets holds every estimate still open. Among equal estimates the tile queued
/// last is expanded first: the search follows the newest way found (the deepest) first.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug)]
pub(super) struct PathSearch {
    start: UVec2,
    goal: UVec2,
    /// Tiles waiting to be expanded, with the cost they were queued at.
    open: Buckets,
    /// The best cost found to each tile reached, and the step that reached it.
    reached: TileTable,
    /// Tiles expanded by the last run, and stale entries counted in it.
    last_run: u32,
    /// Stale entries popped since the budget was last charged for them.
    stale: u32,
}

/// How far a run of a [`PathSearch`] got.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Searched {
    /// The tiles of a shortest path, the start first and the goal last.
    Found(Vec<UVec2>),
    /// Every tile that can be reached was, and the goal is not among them.
    NoPath,
    /// The run's budget was spent first: run it again.
    Unfinished,
}

impl PathSearch {
    /// A search from `start` to `goal`, both walkable tiles of `terrain`.
    pub(super) fn new(tiles: &Tiles, start: UVec2, goal: UVec2) -> Self {
        let mut reached = TileTable::new(tiles.size);
        reached.set(start, 0, NO_STEP);
        let mut open = Buckets::new(octile_distance(start, goal));
        open.push(octile_distance(start, goal), start, 0);
        Self {
            start,
            goal,
            open,
            reached,
            last_run: 0,
            stale: 0,
        }
    }

    /// Expands at most `budget` tiles (a queued tile found reached more cheaply since, and so
    /// dropped, counts as [`STALE_PER_TILE`]th of one): the path if it is found,
    /// [`Searched::NoPath`] if none can be, [`Searched::Unfinished`] if the budget ran out
    /// first.
    pub(super) fn run(&mut self, tiles: &Tiles, budget: u32) -> Searched {
        let mut left = budget;
        let outcome = self.expand(tiles, &mut left);
        self.last_run = budget - left;
        outcome
    }

    /// The budget the last [`run`](Self::run) spent.
    pub(super) fn expanded_in_last_run(&self) -> u32 {
        self.last_run
    }

    /// [`run`](Self::run), counting the budget down in `left`.
    fn expand(&mut self, tiles: &Tiles, left: &mut u32) -> Searched {
        loop {
            // The budget is checked before a tile leaves the open list, so that a search
            // split into runs pops the same tiles as one run.
            if *left == 0 && !self.open.is_empty() {
                return Searched::Unfinished;
            }
            let Some((tile, cost)) = self.open.pop() else {
                return Searched::NoPath;
            };
            if tile == self.goal {
                return Searched::Found(self.path_to_goal());
            }
            // A tile may be queued several times, once per better way found to it: only its
            // best counts. A search flooding round a big obstacle can drop millions of these,
            // so they are charged to the budget too.
            if self.reached.cost(tile).is_some_and(|best| cost > best) {
                self.stale += 1;
                if self.stale == STALE_PER_TILE {
                    self.stale = 0;
                    *left -= 1;
                }
                continue;
            }
            *left -= 1;
            let (steps, count) = steps(tiles, tile);
            for &(step, next, step_cost) in &steps[..count] {
                let cost = cost + step_cost;
                if self.reached.cost(next).is_none_or(|best| cost < best) {
                    self.reached.set(next, cost, step);
                    self.open
                        .push(cost + octile_distance(next, self.goal), next, cost);
                }
            }
        }
    }

    /// The tiles from the start to the goal, walking back along the steps that reached them.
    fn path_to_goal(&self) -> Vec<UVec2> {
        let mut path = vec![self.goal];
        let mut at = self.goal;
        while at != self.start {
            let step = self.reached.step(at);
            at = (at.as_ivec2() - STEPS[usize::from(step)].0).as_uvec2();
            path.push(at);
        }
        path.reverse();
        path
    }
}

/// The eight steps between tiles, with their costs, in the order they are tried.
pub(super) const STEPS: [(IVec2, u32); 8] = [
    (IVec2::new(-1, -1), DIAGONAL_COST),
    (IVec2::new(0, -1), STRAIGHT_COST),
    (IVec2::new(1, -1), DIAGONAL_COST),
    (IVec2::new(-1, 0), STRAIGHT_COST),
    (IVec2::new(1, 0), STRAIGHT_COST),
    (IVec2::new(-1, 1), DIAGONAL_COST),
    (IVec2::new(0, 1), STRAIGHT_COST),
    (IVec2::new(1, 1), DIAGONAL_COST),
];
/// Stale entries of the open list dropped for the budget of one tile expanded: dropping one
/// is a lookup, expanding a tile eight and up to eight queueings.
const STALE_PER_TILE: u32 = 16;
/// The step of the start, which no step reached.
const NO_STEP: u8 = u8::MAX;

/// Buckets in the open list's ring: more than the most an estimate can grow in one expansion
/// (two diagonal steps, see [`PathSearch`]).
const RING: usize = 32;

/// The open list: a ring of [`RING`] buckets of tiles, by estimated cost, from the lowest
/// estimate still open.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug)]
struct Buckets {
    ring: [Bucket; RING],
    lowest: u32,
    len: usize,
}

impl Buckets {
    fn new(lowest: u32) -> Self {
        Self {
            ring: core::array::from_fn(|_| Bucket::default()),
            lowest,
            len: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queues `tile`, reached at `cost`, under its `estimate`: at least the lowest open one,
    /// and less than [`RING`] above it.
    fn push(&mut self, estimate: u32, tile: UVec2, cost: u32) {
        debug_assert!((self.lowest..self.lowest + RING as u32).contains(&estimate));
        self.ring[estimate as usize % RING].push((tile, cost));
        self.len += 1;
    }

    /// The tile queued last under the lowest estimate, and its cost.
    fn pop(&mut self) -> Option<(UVec2, u32)> {
        if self.len == 0 {
            return None;
        }
        loop {
            if let Some(entry) = self.ring[self.lowest as usize % RING].pop() {
                self.len -= 1;
                return Some(entry);
            }
            self.lowest += 1;
        }
    }
}

/// Entries in one block of a [`Bucket`].
const BLOCK: usize = 4096;

/// A stack of open tiles kept in blocks of [`BLOCK`] entries, so that a bucket growing to
/// millions of tiles (a flood across a big map) never copies itself into a larger buffer.
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default)]
struct Bucket {
    blocks: Vec<Vec<(UVec2, u32)>>,
    /// An emptied block, kept for the next one needed.
    spare: Option<Vec<(UVec2, u32)>>,
}

impl Bucket {
    fn push(&mut self, entry: (UVec2, u32)) {
        if self.blocks.last().is_none_or(|b| b.len() == BLOCK) {
            let block = self
                .spare
                .take()
                .unwrap_or_else(|| Vec::with_capacity(BLOCK));
            self.blocks.push(block);
        }
        if let Some(block) = self.blocks.last_mut() {
            block.push(entry);
        }
    }

    fn pop(&mut self) -> Option<(UVec2, u32)> {
        let block = self.blocks.last_mut()?;
        let entry = block.pop();
        if block.is_empty()
            && let Some(empty) = self.blocks.pop()
        {
            self.spare = Some(empty);
        }
        entry
    }
}

/// Tiles a side of a [`TileTable`] chunk.
const CHUNK_SIDE: u32 = 32;
const CHUNK_TILES: usize = (CHUNK_SIDE * CHUNK_SIDE) as usize;

/// The cost and step of each tile a search reached: a table of 32 x 32 chunks, each made
/// when the search first reaches into it, so that its memory grows with the ground it covers,
/// a chunk at a time, while a lookup stays two array reads.
#[cfg_attr(
    feature = "snapshot",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "SavedTileTable", from = "SavedTileTable")
)]
#[derive(Clone, Debug)]
struct TileTable {
    chunks_across: u32,
    chunks: Vec<Option<Box<Chunk>>>,
}

/// One chunk of a [`TileTable`]: `u32::MAX` for a tile not reached.
#[derive(Clone, Debug)]
struct Chunk {
    cost: [u32; CHUNK_TILES],
    step: [u8; CHUNK_TILES],
}

/// A [`TileTable`] as a snapshot holds it: each chunk's costs and steps (serde writes
/// arrays of up to 32 items only).
#[cfg(feature = "snapshot")]
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct SavedTileTable {
    chunks_across: u32,
    chunks: Vec<Option<(Vec<u32>, Vec<u8>)>>,
}

#[cfg(feature = "snapshot")]
impl From<TileTable> for SavedTileTable {
    fn from(table: TileTable) -> Self {
        let chunks = (table.chunks.iter())
            .map(|chunk| (chunk.as_ref()).map(|c| (c.cost.to_vec(), c.step.to_vec())))
            .collect();
        Self {
            chunks_across: table.chunks_across,
            chunks,
        }
    }
}

#[cfg(feature = "snapshot")]
impl From<SavedTileTable> for TileTable {
    /// A chunk of another length (bytes not written by a snapshot) reads as not reached.
    fn from(saved: SavedTileTable) -> Self {
        let chunk = |(cost, step): (Vec<u32>, Vec<u8>)| {
            Some(Box::new(Chunk {
                cost: cost.try_into().ok()?,
                step: step.try_into().ok()?,
            }))
        };
        Self {
            chunks_across: saved.chunks_across,
            chunks: saved
                .chunks
                .into_iter()
                .map(|c| c.and_then(chunk))
                .collect(),
        }
    }
}

impl TileTable {
    fn new(size: UVec2) -> Self {
        let across = size.x.div_ceil(CHUNK_SIDE);
        let chunks = across as usize * size.y.div_ceil(CHUNK_SIDE) as usize;
        Self {
            chunks_across: across,
            chunks: vec![None; chunks],
        }
    }

    /// The chunk of `tile` and the tile's place in it.
    fn place(&self, tile: UVec2) -> (usize, usize) {
        let (chunk, within) = (tile / CHUNK_SIDE, tile % CHUNK_SIDE);
        (
            chunk.y as usize * self.chunks_across as usize + chunk.x as usize,
            (within.y * CHUNK_SIDE + within.x) as usize,
        )
    }

    /// The best cost found to `tile`, if it was reached.
    fn cost(&self, tile: UVec2) -> Option<u32> {
        let (chunk, within) = self.place(tile);
        let cost = self.chunks.get(chunk)?.as_ref()?.cost[within];
        (cost != u32::MAX).then_some(cost)
    }

    /// The step (into [`STEPS`]) that reached `tile` at its best cost.
    fn step(&self, tile: UVec2) -> u8 {
        let (chunk, within) = self.place(tile);
        self.chunks[chunk]
            .as_ref()
            .map_or(NO_STEP, |c| c.step[within])
    }

    fn set(&mut self, tile: UVec2, cost: u32, step: u8) {
        let (chunk, within) = self.place(tile);
        if let Some(slot) = self.chunks.get_mut(chunk) {
            let chunk = slot.get_or_insert_with(|| {
                Box::new(Chunk {
                    cost: [u32::MAX; CHUNK_TILES],
                    step: [NO_STEP; CHUNK_TILES],
                })
            });
            chunk.cost[within] = cost;
            chunk.step[within] = step;
        }
    }
}

/// The walkable tiles one step from `tile`, with the step (into [`STEPS`]) and its cost: the
/// first `.1` of `.0`.
pub(super) fn steps(tiles: &Tiles, tile: UVec2) -> ([(u8, UVec2, u32); 8], usize) {
    let at = tile.as_ivec2();
    let open = |d: IVec2| {
        let t = at + d;
        t.cmpge(IVec2::ZERO).all() && tiles.is_walkable(t.as_uvec2())
    };
    let mut found = [(0, UVec2::ZERO, 0); 8];
    let mut count = 0;
    for (k, &(d, cost)) in STEPS.iter().enumerate() {
        // A diagonal step needs both tiles beside it open: no cutting corners.
        let diagonal = d.x != 0 && d.y != 0;
        if open(d) && (!diagonal || (open(IVec2::new(d.x, 0)) && open(IVec2::new(0, d.y)))) {
            found[count] = (k as u8, (at + d).as_uvec2(), cost);
            count += 1;
        }
    }
    (found, count)
}

/// Whether every step of `path` is one [`PathSearch`] could take on `tiles` as they are now:
/// onto a walkable tile, and diagonally only past two walkable ones.
pub(super) fn is_open_path(tiles: &Tiles, path: &[UVec2]) -> bool {
    path.iter().all(|&tile| tiles.is_walkable(tile))
        && path.windows(2).all(|step| {
            let (a, b) = (step[0], step[1]);
            tiles.is_walkable(UVec2::new(a.x, b.y)) && tiles.is_walkable(UVec2::new(b.x, a.y))
        })
}

/// The tiles of an 8-connected path where it turns, and its last, but not its first: the
/// tiles between two turns lie on the line joining them, so a path through the turns is the
/// same path.
pub(super) fn turns(tiles: &[UVec2]) -> Vec<UVec2> {
    if tiles.len() < 2 {
        return Vec::new();
    }
    let step = |k: usize| tiles[k + 1].as_ivec2() - tiles[k].as_ivec2();
    let mut kept: Vec<UVec2> = (1..tiles.len() - 1)
        .filter(|&k| step(k - 1) != step(k))
        .map(|k| tiles[k])
        .collect();
    kept.extend(tiles.last());
    kept
}

/// The A* heuristic on 8-connected tiles: exact where nothing is in the way.
pub(super) fn octile_distance(a: UVec2, b: UVec2) -> u32 {
    let d = (a.as_ivec2() - b.as_ivec2()).abs().as_uvec2();
    let (short, long) = (d.x.min(d.y), d.x.max(d.y));
    DIAGONAL_COST * short + STRAIGHT_COST * (long - short)
}
