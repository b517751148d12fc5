//! A navigation mesh's outline: the edges of its polygons that no other polygon shares, in a
//! grid of cells, for whether a point is on the mesh and whether a straight line stays on it.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use crate::terrain::clip_to_box;

/// About how many edges a cell of the grid holds, on average over the mesh's bounds.
const EDGES_PER_CELL: f32 = 4.0;
/// The most cells along either side of the grid.
const MOST_CELLS: u32 = 256;

/// The boundary edges of a mesh's walkable polygons (its outer outline and the outline of every
/// hole), bucketed in a uniform grid over the mesh's bounds.
#[derive(Clone, Debug)]
pub(super) struct Outline {
    /// Each boundary edge, from one end to the other.
    edges: Vec<[Vec2; 2]>,
    /// The grid's lower corner, its cell side, and its cells along x and y.
    origin: Vec2,
    cell: f32,
    cells: UVec2,
    /// For each cell (row by row), the edges that touch it: `first[c]..first[c + 1]` of
    /// `in_cells`.
    first: Vec<u32>,
    in_cells: Vec<u32>,
}

impl Outline {
    /// The outline of the polygons `polygons` (indices into `vertices`).
    pub(super) fn new(vertices: &[Vec2], polygons: &[Vec<u32>]) -> Self {
        let mut shared: HashMap<(u32, u32), u32> = HashMap::default();
        for polygon in polygons {
            for (&a, &b) in polygon.iter().zip(polygon.iter().cycle().skip(1)) {
                *shared.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        // In the polygons' order, so that the outline is the same from run to run.
        let mut edges = Vec::new();
        for polygon in polygons {
            for (&a, &b) in polygon.iter().zip(polygon.iter().cycle().skip(1)) {
                if shared[&(a.min(b), a.max(b))] == 1 {
                    edges.push([vertices[a as usize], vertices[b as usize]]);
                }
            }
        }
        let (min, max) = edges.iter().flatten().fold(
            (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
            |(min, max), &p| (min.min(p), max.max(p)),
        );
        let size = (max - min).max(Vec2::splat(1e-3));
        let cell = (size.x * size.y * EDGES_PER_CELL / edges.len().max(1) as f32)
            .sqrt()
            .max(size.max_element() / MOST_CELLS as f32);
        let cells = (size / cell).ceil().as_uvec2().max(UVec2::ONE);
        let mut outline = Self {
            edges,
            origin: min,
            cell,
            cells,
            first: Vec::new(),
            in_cells: Vec::new(),
        };
        outline.bucket();
        outline
    }

    /// Fills the grid's cells with the edges whose bounds touch them.
    fn bucket(&mut self) {
        let count = (self.cells.x * self.cells.y) as usize;
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); count];
        for (index, &[a, b]) in self.edges.iter().enumerate() {
            let (low, high) = (self.cell_of(a.min(b)), self.cell_of(a.max(b)));
            for y in low.y..=high.y {
                for x in low.x..=high.x {
                    lists[(y * self.cells.x + x) as usize].push(index as u32);
                }
            }
        }
        self.first = Vec::with_capacity(count + 1);
        self.first.push(0);
        for list in &lists {
            self.in_cells.extend_from_slice(list);
            self.first.push(self.in_cells.len() as u32);
        }
    }

    /// The cell holding `point`, clamped to the grid.
    fn cell_of(&self, point: Vec2) -> UVec2 {
        let at = ((point - self.origin) / self.cell).floor();
        at.clamp(Vec2::ZERO, (self.cells - UVec2::ONE).as_vec2())
            .as_uvec2()
    }

    /// The edges that touch cell `cell`.
    fn edges_in(&self, cell: UVec2) -> impl Iterator<Item = &[Vec2; 2]> {
        let c = (cell.y * self.cells.x + cell.x) as usize;
        let (from, to) = (self.first[c] as usize, self.first[c + 1] as usize);
        self.in_cells[from..to]
            .iter()
            .map(|&e| &self.edges[e as usize])
    }

    /// Whether `point` lies inside the outline (on the walkable surface): a ray from it toward
    /// +x crosses the outline an odd number of times.
    pub(super) fn contains(&self, point: Vec2) -> bool {
        if !point.is_finite() {
            return false;
        }
        let row = self.cell_of(point);
        if !(self.origin.y..=self.origin.y + self.cell * self.cells.y as f32).contains(&point.y) {
            return false;
        }
        let mut crossed: Vec<u32> = Vec::new();
        for x in row.x..self.cells.x {
            let c = (row.y * self.cells.x + x) as usize;
            let (from, to) = (self.first[c] as usize, self.first[c + 1] as usize);
            crossed.extend(self.in_cells[from..to].iter().filter(|&&e| {
                let [a, b] = self.edges[e as usize];
                // Half-open in y, so that a ray through a vertex counts one of its two edges.
                (a.y > point.y) != (b.y > point.y)
                    && point.x < a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
            }));
        }
        crossed.sort_unstable();
        crossed.dedup();
        crossed.len() % 2 == 1
    }

    /// Whether the segment from `a` to `b` crosses the outline: passes from one side of a
    /// boundary edge to the other within it. Touching an edge or its end (a path's waypoint
    /// at a corner) is not crossing it; nor, then, is passing exactly through a corner, which
    /// a moving agent's line does with no chance to speak of.
    pub(super) fn crosses(&self, a: Vec2, b: Vec2) -> bool {
        if !(a.is_finite() && b.is_finite()) {
            return true;
        }
        self.cells_along(a, b).any(|cell| {
            self.edges_in(cell)
                .any(|&[c, d]| properly_cross(a, b, c, d))
        })
    }

    /// The cells the part of the segment from `a` to `b` within the grid passes through, in
    /// order (Amanatides and Woo 1987, "A fast voxel traversal algorithm for ray tracing"); no
    /// edge lies outside the grid.
    fn cells_along(&self, a: Vec2, b: Vec2) -> impl Iterator<Item = UVec2> {
        let (a, b) = ((a - self.origin) / self.cell, (b - self.origin) / self.cell);
        let clipped = clip_to_box(a, b, self.cells.as_vec2());
        let (from, to) = clipped.unwrap_or((a, a));
        let highest = (self.cells - UVec2::ONE).as_ivec2();
        let cell_of = |p: Vec2| p.floor().as_ivec2().clamp(IVec2::ZERO, highest);
        let (mut at, last) = (cell_of(from), cell_of(to));
        let along = to - from;
        let step = along.signum().as_ivec2();
        // Where the segment (from 0 to 1) next crosses a cell's side on each axis, and how far
        // apart those crossings are.
        let first_crossing = |axis: usize| {
            if along[axis] == 0.0 {
                return (f32::INFINITY, f32::INFINITY);
            }
            let side = at[axis] as f32 + if step[axis] > 0 { 1.0 } else { 0.0 };
            ((side - from[axis]) / along[axis], (1.0 / along[axis]).abs())
        };
        let ((mut next_x, apart_x), (mut next_y, apart_y)) = (first_crossing(0), first_crossing(1));
        let steps = if clipped.is_some() {
            (last - at).abs().element_sum() as usize + 1
        } else {
            0
        };
        (0..steps).map(move |k| {
            if k > 0 {
                if next_x < next_y {
                    at.x += step.x;
                    next_x += apart_x;
                } else {
                    at.y += step.y;
                    next_y += apart_y;
                }
                at = at.clamp(IVec2::ZERO, highest);
            }
            at.as_uvec2()
        })
    }
}

/// Whether the segments `a`-`b` and `c`-`d` cross at a point inside both.
fn properly_cross(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let side = |p: Vec2, q: Vec2, r: Vec2| (q - p).perp_dot(r - p);
    let (c_side, d_side) = (side(a, b, c), side(a, b, d));
    let (a_side, b_side) = (side(c, d, a), side(c, d, b));
    c_side * d_side < 0.0 && a_side * b_side < 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 x 20 grid of unit squares, walkable where `walkable(x, y)`: the vertices of the
    /// grid's corners and the walkable squares as counter-clockwise polygons.
    fn grid(walkable: impl Fn(u32, u32) -> bool) -> (Vec<Vec2>, Vec<Vec<u32>>) {
        let vertices = (0..21 * 21)
            .map(|k| Vec2::new((k % 21) as f32, (k / 21) as f32))
            .collect();
        let corner = |x: u32, y: u32| y * 21 + x;
        let polygons = (0..20 * 20)
            .map(|k| (k % 20, k / 20))
            .filter(|&(x, y)| walkable(x, y))
            .map(|(x, y)| {
                vec![
                    corner(x, y),
                    corner(x + 1, y),
                    corner(x + 1, y + 1),
                    corner(x, y + 1),
                ]
            })
            .collect();
        (vertices, polygons)
    }

    /// Walkable but for a few blocks and a ring with a walkable island inside.
    fn blocks(x: u32, y: u32) -> bool {
        let block = (x % 5 == 2 || x % 5 == 3) && (y % 5 == 2 || y % 5 == 3);
        let ring = (14..19).contains(&x) && (1..6).contains(&y) && !(x == 16 && y == 3);
        !(block || ring)
    }

    /// A seeded draw in [0, 1).
    fn draws(mut state: u64) -> impl FnMut() -> f32 {
        move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    #[test]
    fn a_point_is_inside_where_its_square_is_walkable() {
        let (vertices, polygons) = grid(blocks);
        let outline = Outline::new(&vertices, &polygons);
        let mut draw = draws(3);
        for _ in 0..5_000 {
            let p = Vec2::new(draw() * 24.0 - 2.0, draw() * 24.0 - 2.0);
            // Off the grid's lines, where a point is on one square.
            if (p - p.round()).abs().min_element() < 1e-3 {
                continue;
            }
            let on_grid = p.cmpge(Vec2::ZERO).all() && p.cmplt(Vec2::splat(20.0)).all();
            let expected = on_grid && blocks(p.x as u32, p.y as u32);
            assert_eq!(outline.contains(p), expected, "{p}");
        }
        assert!(outline.contains(Vec2::new(16.5, 3.5)), "the ring's island");
        assert!(!outline.contains(Vec2::NAN));
    }

    #[test]
    fn a_segment_crosses_the_outline_as_a_check_of_every_edge_finds() {
        let (vertices, polygons) = grid(blocks);
        let outline = Outline::new(&vertices, &polygons);
        let every_edge =
            |a: Vec2, b: Vec2| (outline.edges.iter()).any(|&[c, d]| properly_cross(a, b, c, d));
        let mut draw = draws(5);
        let mut crossing = 0;
        for k in 0..5_000 {
            // Short and long segments, some from off the grid.
            let reach = if k % 2 == 0 { 3.0 } else { 30.0 };
            let a = Vec2::new(draw() * 24.0 - 2.0, draw() * 24.0 - 2.0);
            let b = a + (Vec2::new(draw(), draw()) - 0.5) * reach;
            let expected = every_edge(a, b);
            crossing += usize::from(expected);
            assert_eq!(outline.crosses(a, b), expected, "{a} -> {b}");
        }
        assert!(
            (1_000..4_000).contains(&crossing),
            "{crossing} of 5,000 cross"
        );
    }

    #[test]
    fn running_along_an_edge_or_ending_at_a_corner_is_not_crossing() {
        let (vertices, polygons) = grid(blocks);
        let outline = Outline::new(&vertices, &polygons);
        // The block from (2, 2) to (4, 4): to its corner, and along its side.
        assert!(!outline.crosses(Vec2::new(0.5, 0.5), Vec2::new(2.0, 2.0)));
        assert!(!outline.crosses(Vec2::new(2.0, 1.0), Vec2::new(2.0, 4.5)));
        assert!(outline.crosses(Vec2::new(1.0, 2.7), Vec2::new(5.0, 2.7)));
        assert!(outline.crosses(Vec2::new(1.0, 1.0), Vec2::INFINITY));
    }
}
