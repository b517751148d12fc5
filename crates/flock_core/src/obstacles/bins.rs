//! Bounded shapes binned in a grid of cells, each cell listing every shape within a reach of it:
//! a point's cell names the few shapes that may lie that near it.

use glam::{IVec3, Vec3};

use super::shape::Shape;
use crate::maths::floor_cell;

/// Bounded shapes spanning more cells than this are checked by every query in the bounds.
const MAX_CELLS_PER_SHAPE: i64 = 512;

/// The most cells a grid has for each shape binned, and at least and at most: one spanning
/// more (obstacles scattered far apart) has wider cells. The cells cost memory and a rebuild's
/// time in proportion, so a few obstacles moving across a wide world are binned again in
/// microseconds; and a grid of many shapes keeps its cells within 4 MiB.
const GRID_CELLS_PER_SHAPE: i64 = 64;
const LEAST_GRID_CELLS: i64 = 1 << 16;
const MOST_GRID_CELLS: i64 = 1 << 20;

/// Shapes (by their index in a set) binned for queries within `reach` of a point, in a dense
/// grid over the shapes' bounds: cubes as wide as the reach, or columns that span every
/// height, half the reach wide (see
/// [`ObstacleSet::rebuild_on_plane`](super::ObstacleSet::rebuild_on_plane)). Each cell lists
/// the shapes within the reach of it, in the set's order; a query reads its cell's list from
/// one array, with no hashing.
#[derive(Clone, Debug, Default)]
pub(super) struct Bins {
    /// For each cell of the grid (x fastest, then y, then z), the shapes within the reach of
    /// it: `first[c]..first[c + 1]` of `ids`.
    first: Vec<u32>,
    ids: Vec<u32>,
    /// Where the grid lies.
    grid: Grid,
    /// Shapes too large to bin, checked by every query inside `bounds`.
    large: Vec<u32>,
    cell_size: f32,
    /// Whether cells are columns.
    columns: bool,
    /// How far from a point every shape is found.
    reach: f32,
    /// Box around every bounded shape, grown by the reach.
    bounds: Option<(Vec3, Vec3)>,
    /// The shapes being binned and their bounds grown by the reach, while the bins are filled.
    staged: Vec<(u32, Vec3, Vec3)>,
}

impl Bins {
    /// Bins the bounded ones of `shapes` (by index) for queries within `reach` (finite and
    /// positive), in columns or cubes: each cell lists the shapes within `reach + slack` of it.
    pub(super) fn fill(&mut self, shapes: &[Shape], (reach, slack): (f32, f32), columns: bool) {
        self.large.clear();
        self.bounds = None;
        self.reach = reach;
        self.columns = columns;
        // Cells half the reach wide read fewer shapes. On the plane, where a shape's height
        // takes no cells, a shape spans about as many such columns as it spans cubes the reach
        // wide; in 3D it would span about four times as many cubes (125 for a small one), too
        // many to bin again each tick for moving obstacles. Cells at least 1 wide, so that a
        // tiny reach does not bin a shape in thousands.
        self.cell_size = if columns { reach * 0.5 } else { reach }.max(1.0);
        let mut staged = core::mem::take(&mut self.staged);
        staged.clear();
        for (id, shape) in shapes.iter().enumerate() {
            let Some((lo, hi)) = shape.bounds(reach + slack) else {
                continue;
            };
            self.bounds = Some(match self.bounds {
                Some((a, b)) => (a.min(lo), b.max(hi)),
                None => (lo, hi),
            });
            let (c0, c1) = (self.cell_of(lo), self.cell_of(hi));
            if cells_between(c0, c1) > MAX_CELLS_PER_SHAPE {
                self.large.push(id as u32);
            } else {
                staged.push((id as u32, lo, hi));
            }
        }
        self.lay_grid(&staged);
        // Counted, then listed: each cell's list in the shapes' order.
        self.first.clear();
        let grid = self.grid;
        (self.first).resize(grid.cells() as usize + 1, 0);
        for &(_, lo, hi) in &staged {
            grid.for_each_cell(self.cell_of(lo), self.cell_of(hi), |c| {
                self.first[c + 1] += 1
            });
        }
        for c in 1..self.first.len() {
            self.first[c] += self.first[c - 1];
        }
        let mut at = self.first.clone();
        self.ids.clear();
        self.ids
            .resize(self.first.last().map_or(0, |&n| n as usize), 0);
        for &(id, lo, hi) in &staged {
            grid.for_each_cell(self.cell_of(lo), self.cell_of(hi), |c| {
                self.ids[at[c] as usize] = id;
                at[c] += 1;
            });
        }
        self.staged = staged;
    }

    /// Lays the grid over the cells of the `staged` shapes, its cells twice as wide until there
    /// are at most [`GRID_CELLS_PER_SHAPE`] a shape (within [`LEAST_GRID_CELLS`] and
    /// [`MOST_GRID_CELLS`]).
    fn lay_grid(&mut self, staged: &[(u32, Vec3, Vec3)]) {
        let (lo, hi) = (staged.iter()).fold(
            (Vec3::INFINITY, Vec3::NEG_INFINITY),
            |(lo, hi), &(_, a, b)| (lo.min(a), hi.max(b)),
        );
        if staged.is_empty() {
            self.grid = Grid::default();
            return;
        }
        let most =
            (staged.len() as i64 * GRID_CELLS_PER_SHAPE).clamp(LEAST_GRID_CELLS, MOST_GRID_CELLS);
        loop {
            let grid = Grid {
                low: self.cell_of(lo),
                high: self.cell_of(hi),
            };
            if grid.cells() <= most {
                self.grid = grid;
                return;
            }
            self.cell_size *= 2.0;
        }
    }

    /// How far from a point every shape is found.
    pub(super) fn reach(&self) -> f32 {
        self.reach
    }

    /// How many cells the grid has.
    #[cfg(test)]
    pub(super) fn cell_count(&self) -> usize {
        self.grid.cells() as usize
    }

    /// Whether the cells are columns.
    pub(super) fn is_in_columns(&self) -> bool {
        self.columns
    }

    /// The cell holding `p`.
    pub(super) fn cell_of(&self, p: Vec3) -> IVec3 {
        let cell = floor_cell(p / self.cell_size);
        if self.columns { cell.with_z(0) } else { cell }
    }

    /// The shapes listed in the cell of the grid holding `p`, inside the bounds.
    #[inline]
    fn cell_at(&self, p: Vec3) -> &[u32] {
        match self.grid.index(self.cell_of(p)) {
            Some(c) => self.listed_in(c),
            None => &[],
        }
    }

    /// The shapes listed in cell `c` of the grid.
    #[inline]
    fn listed_in(&self, c: usize) -> &[u32] {
        &self.ids[self.first[c] as usize..self.first[c + 1] as usize]
    }

    /// Calls `visit` with the index of every bounded shape that may lie within the reach of
    /// `p`: the large ones, then those of its cell.
    #[inline]
    pub(super) fn for_each_near(&self, p: Vec3, mut visit: impl FnMut(usize)) {
        let Some((lo, hi)) = self.bounds else {
            return;
        };
        if p.cmplt(lo).any() || p.cmpgt(hi).any() {
            return;
        }
        for &id in &self.large {
            visit(id as usize);
        }
        for &id in self.cell_at(p) {
            visit(id as usize);
        }
    }

    /// Adds to `ids` the large shapes and those of every cell from `c0` to `c1` (with
    /// repeats).
    pub(super) fn extend_from_cells(&self, c0: IVec3, c1: IVec3, ids: &mut Vec<u32>) {
        ids.extend_from_slice(&self.large);
        (self.grid).for_each_cell(c0, c1, |c| ids.extend_from_slice(self.listed_in(c)));
    }
}

/// How many cells lie from `c0` to `c1`, both included.
fn cells_between(c0: IVec3, c1: IVec3) -> i64 {
    let span = c1.as_i64vec3() - c0.as_i64vec3() + 1;
    span.x.saturating_mul(span.y).saturating_mul(span.z)
}

/// Where a grid of cells lies: its lowest and highest cells (the highest below the lowest for
/// none). Kept as the two ends, so that a grid at the far edge of the cells' range (shapes so
/// far out that their cells saturate) needs no cell past it.
#[derive(Clone, Copy, Debug)]
struct Grid {
    low: IVec3,
    high: IVec3,
}

impl Default for Grid {
    /// No cells.
    fn default() -> Self {
        Self {
            low: IVec3::ZERO,
            high: IVec3::NEG_ONE,
        }
    }
}

impl Grid {
    /// How many cells it has.
    fn cells(self) -> i64 {
        cells_between(self.low, self.high).max(0)
    }

    /// Its cells along each axis (small: the grid has at most [`MOST_GRID_CELLS`]).
    fn span(self) -> IVec3 {
        self.high - self.low + 1
    }

    /// The index of `cell` (x fastest, then y, then z), if it is in the grid.
    #[inline]
    fn index(self, cell: IVec3) -> Option<usize> {
        // Compared before subtracting: a cell far out (of a point far out) could overflow.
        if cell.cmplt(self.low).any() || cell.cmpgt(self.high).any() {
            return None;
        }
        let (at, span) = (cell - self.low, self.span());
        Some(((at.z * span.y + at.y) * span.x + at.x) as usize)
    }

    /// Calls `each` with the index of every cell of the grid from `c0` to `c1`.
    fn for_each_cell(self, c0: IVec3, c1: IVec3, mut each: impl FnMut(usize)) {
        // Checked before subtracting: a cell far out could overflow.
        if c1.cmplt(self.low).any() || c0.cmpgt(self.high).any() {
            return;
        }
        let span = self.span();
        let (c0, c1) = (c0.max(self.low) - self.low, c1.min(self.high) - self.low);
        for z in c0.z..=c1.z {
            for y in c0.y..=c1.y {
                let row = (z * span.y + y) * span.x;
                for x in c0.x..=c1.x {
                    each((row + x) as usize);
                }
            }
        }
    }
}
