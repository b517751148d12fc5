//! A navigation mesh's outline: the edges of its polygons that no other polygon shares, in a
//! grid of cells, for whether a point is on the ground and whether a straight line stays on it.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use crate::terrain::clip_to_box;

mod room;

/// About how many edges a cell of the grid holds, on average over the mesh's bounds.
const EDGES_PER_CELL: f32 = 4.0;
/// The most cells along either side of the grid.
const MOST_CELLS: u32 = 256;

/// What a boundary edge bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    /// The ground as given: the outline, and every obstacle's. Nothing crosses it.
    Wall,
    /// The ground less the clearance kept from every wall, which paths are planned on: a line
    /// may come in across it (from a body's width off a wall), never go out.
    Margin,
}

/// A boundary edge, from `a` to `b` with the walkable side on its left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Edge {
    pub(super) a: Vec2,
    pub(super) b: Vec2,
    pub(super) bound: Bound,
    /// Whether the edge lies along a join to another floor (see
    /// [`FloorJoin`](super::FloorJoin)): it still bounds its floor (for
    /// [`Outline::contains`]), but nothing is stopped by it.
    pub(super) open: bool,
}

impl Edge {
    /// Whether the segment from `p` to `q` crosses the edge, going out for a margin: passes
    /// from one side to the other at a point inside both.
    fn is_crossed_by(&self, p: Vec2, q: Vec2) -> bool {
        let side = |from: Vec2, to: Vec2, r: Vec2| (to - from).perp_dot(r - from);
        let (a_side, b_side) = (side(p, q, self.a), side(p, q, self.b));
        let (p_side, q_side) = (side(self.a, self.b, p), side(self.a, self.b, q));
        a_side * b_side < 0.0
            && p_side * q_side < 0.0
            && (self.bound == Bound::Wall || p_side > 0.0)
    }

    /// The point of the edge nearest `p`.
    pub(super) fn nearest_to(&self, p: Vec2) -> Vec2 {
        nearest_on_segment(p, self.a, self.b)
    }
}

/// The point of the segment from `a` to `b` nearest `p` (`a` itself for a segment of no
/// length).
pub(super) fn nearest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let along = b - a;
    let t = (p - a).dot(along) / along.length_squared().max(f32::MIN_POSITIVE);
    a + along * t.clamp(0.0, 1.0)
}

/// The lowest and highest corners of the box round `points` (infinite, inside out, for none).
pub(super) fn bounds(points: impl IntoIterator<Item = Vec2>) -> (Vec2, Vec2) {
    points.into_iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(low, high), p| (low.min(p), high.max(p)),
    )
}

/// The sides of `polygon`, each from one vertex to the next.
fn ring(polygon: &[u32]) -> impl Iterator<Item = (u32, u32)> + '_ {
    let next = polygon.iter().cycle().skip(1);
    polygon.iter().zip(next).map(|(&a, &b)| (a, b))
}

/// The boundary edges of polygons (indices into `vertices`), each oriented with the polygon
/// on its left, in the polygons' order so that they are the same from run to run.
pub(super) fn boundary(vertices: &[Vec2], polygons: &[Vec<u32>], bound: Bound) -> Vec<Edge> {
    let mut shared: HashMap<(u32, u32), u32> = HashMap::default();
    for polygon in polygons {
        for (a, b) in ring(polygon) {
            *shared.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let mut edges = Vec::new();
    for polygon in polygons {
        let area: f32 = ring(polygon)
            .map(|(a, b)| vertices[a as usize].perp_dot(vertices[b as usize]))
            .sum();
        for (a, b) in ring(polygon) {
            if shared[&(a.min(b), a.max(b))] == 1 {
                let (a, b) = (vertices[a as usize], vertices[b as usize]);
                let (a, b) = if area >= 0.0 { (a, b) } else { (b, a) };
                edges.push(Edge {
                    a,
                    b,
                    bound,
                    open: false,
                });
            }
        }
    }
    edges
}

/// The boundary edges of the walkable ground (its outer outline and the outline of every
/// hole), and of the margin paths are planned on, bucketed in one uniform grid over their
/// bounds.
#[derive(Clone, Debug)]
pub(super) struct Outline {
    edges: Vec<Edge>,
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
    /// The outline made of `edges`.
    pub(super) fn new(edges: Vec<Edge>) -> Self {
        let (min, max) = bounds(edges.iter().flat_map(|e| [e.a, e.b]));
        let min = if min.is_finite() { min } else { Vec2::ZERO };
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
        for (index, edge) in self.edges.iter().enumerate() {
            let (low, high) = self.cells_of(edge);
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

    /// The lowest and highest cells of an edge's bounds.
    fn cells_of(&self, edge: &Edge) -> (UVec2, UVec2) {
        (
            self.cell_of(edge.a.min(edge.b)),
            self.cell_of(edge.a.max(edge.b)),
        )
    }

    /// The cell holding `point`, clamped to the grid.
    fn cell_of(&self, point: Vec2) -> UVec2 {
        let at = ((point - self.origin) / self.cell).floor();
        at.clamp(Vec2::ZERO, (self.cells - UVec2::ONE).as_vec2())
            .as_uvec2()
    }

    /// The indices of the edges that touch cell `cell`.
    fn edges_in(&self, cell: UVec2) -> impl Iterator<Item = usize> + '_ {
        let c = (cell.y * self.cells.x + cell.x) as usize;
        let (from, to) = (self.first[c] as usize, self.first[c + 1] as usize);
        self.in_cells[from..to].iter().map(|&e| e as usize)
    }

    /// Whether `point` lies inside the edges of kind `bound`: a ray from it toward +x crosses
    /// them an odd number of times. An edge is counted in the first of the ray's cells it
    /// touches.
    pub(super) fn contains(&self, point: Vec2, bound: Bound) -> bool {
        if !point.is_finite() {
            return false;
        }
        let top = self.origin.y + self.cell * self.cells.y as f32;
        if !(self.origin.y..=top).contains(&point.y) {
            return false;
        }
        let row = self.cell_of(point);
        let mut crossings = 0_u32;
        for x in row.x..self.cells.x {
            for e in self.edges_in(UVec2::new(x, row.y)) {
                let Edge {
                    a, b, bound: kind, ..
                } = self.edges[e];
                let first_cell = self.cells_of(&self.edges[e]).0.x.max(row.x);
                // Half-open in y, so that a ray through a vertex counts one of its two edges.
                if kind == bound
                    && first_cell == x
                    && (a.y > point.y) != (b.y > point.y)
                    && point.x < a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
                {
                    crossings += 1;
                }
            }
        }
        crossings % 2 == 1
    }

    /// Whether the segment from `a` to `b` crosses a wall, or leaves the margin when `margin`:
    /// passes from one side of such an edge to the other within it. Touching an edge or its
    /// end (a path's waypoint at a corner) is not crossing it; nor, then, is passing exactly
    /// through a corner, which a moving agent's line does with no chance to speak of. Open
    /// edges (along a join to another floor) are never crossed.
    pub(super) fn crosses(&self, a: Vec2, b: Vec2, margin: bool) -> bool {
        !(a.is_finite() && b.is_finite()) || self.crossing(a, b, margin).is_some()
    }

    /// The first edge (by cell along the way) that the segment from `a` to `b`, both finite,
    /// crosses (see [`crosses`](Self::crosses)), if any.
    pub(super) fn crossing(&self, a: Vec2, b: Vec2, margin: bool) -> Option<usize> {
        self.cells_along(a, b).find_map(|cell| {
            self.edges_in(cell)
                .find(|&e| self.is_crossed(e, a, b, margin))
        })
    }

    /// Whether the segment from `a` to `b` crosses edge `edge` (see [`crosses`](Self::crosses)):
    /// never for an edge the outline lacks.
    pub(super) fn is_crossed(&self, edge: usize, a: Vec2, b: Vec2, margin: bool) -> bool {
        self.edges.get(edge).is_some_and(|edge| {
            !edge.open && (margin || edge.bound == Bound::Wall) && edge.is_crossed_by(a, b)
        })
    }

    /// The point nearest `point` on an edge of kind `bound` within `within` of it, if any.
    pub(super) fn nearest_on(&self, point: Vec2, bound: Bound, within: f32) -> Option<Vec2> {
        if !(point.is_finite() && within.is_finite()) {
            return None;
        }
        let (low, high) = (self.cell_of(point - within), self.cell_of(point + within));
        let mut best: Option<(f32, Vec2)> = None;
        for y in low.y..=high.y {
            for x in low.x..=high.x {
                for e in self.edges_in(UVec2::new(x, y)) {
                    let edge = &self.edges[e];
                    let q = edge.nearest_to(point);
                    let d = q.distance(point);
                    if edge.bound == bound && d <= within && best.is_none_or(|(b, _)| d < b) {
                        best = Some((d, q));
                    }
                }
            }
        }
        best.map(|(_, q)| q)
    }

    /// The side of the grid's cells.
    pub(super) fn cell_side(&self) -> f32 {
        self.cell
    }

    /// The edges of kind `bound` that stop what crosses them (not open).
    pub(super) fn edges(&self, bound: Bound) -> impl Iterator<Item = &Edge> {
        (self.edges.iter()).filter(move |e| e.bound == bound && !e.open)
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

    /// The outline of the walkable squares of [`grid`], as walls.
    fn walls(walkable: impl Fn(u32, u32) -> bool) -> Outline {
        let (vertices, polygons) = grid(walkable);
        Outline::new(boundary(&vertices, &polygons, Bound::Wall))
    }

    #[test]
    fn a_point_is_inside_where_its_square_is_walkable() {
        let outline = walls(blocks);
        let mut draw = draws(3);
        for _ in 0..5_000 {
            let p = Vec2::new(draw() * 24.0 - 2.0, draw() * 24.0 - 2.0);
            // Off the grid's lines, where a point is on one square.
            if (p - p.round()).abs().min_element() < 1e-3 {
                continue;
            }
            let on_grid = p.cmpge(Vec2::ZERO).all() && p.cmplt(Vec2::splat(20.0)).all();
            let expected = on_grid && blocks(p.x as u32, p.y as u32);
            assert_eq!(outline.contains(p, Bound::Wall), expected, "{p}");
            assert!(!outline.contains(p, Bound::Margin), "no margin was given");
        }
        assert!(
            outline.contains(Vec2::new(16.5, 3.5), Bound::Wall),
            "the ring's island"
        );
        assert!(!outline.contains(Vec2::NAN, Bound::Wall));
    }

    #[test]
    fn a_segment_crosses_the_outline_as_a_check_of_every_edge_finds() {
        let outline = walls(blocks);
        let every_edge = |a: Vec2, b: Vec2| (outline.edges.iter()).any(|e| e.is_crossed_by(a, b));
        let mut draw = draws(5);
        let mut crossing = 0;
        for k in 0..5_000 {
            // Short and long segments, some from off the grid.
            let reach = if k % 2 == 0 { 3.0 } else { 30.0 };
            let a = Vec2::new(draw() * 24.0 - 2.0, draw() * 24.0 - 2.0);
            let b = a + (Vec2::new(draw(), draw()) - 0.5) * reach;
            let expected = every_edge(a, b);
            crossing += usize::from(expected);
            assert_eq!(outline.crosses(a, b, true), expected, "{a} -> {b}");
        }
        assert!(
            (1_000..4_000).contains(&crossing),
            "{crossing} of 5,000 cross"
        );
    }

    #[test]
    fn running_along_an_edge_or_ending_at_a_corner_is_not_crossing() {
        let outline = walls(blocks);
        // The block from (2, 2) to (4, 4): to its corner, and along its side.
        assert!(!outline.crosses(Vec2::new(0.5, 0.5), Vec2::new(2.0, 2.0), true));
        assert!(!outline.crosses(Vec2::new(2.0, 1.0), Vec2::new(2.0, 4.5), true));
        assert!(outline.crosses(Vec2::new(1.0, 2.7), Vec2::new(5.0, 2.7), true));
        assert!(outline.crosses(Vec2::new(1.0, 1.0), Vec2::INFINITY, true));
    }

    #[test]
    fn a_line_may_come_into_the_margin_but_not_go_out_of_it() {
        // Walls round a room 10 m square with a block from (4, 4) to (6, 6); the margin 1 m
        // inside them, round the block grown to (3, 3)-(7, 7).
        let square = |lo: f32, hi: f32| {
            let corners = [(lo, lo), (hi, lo), (hi, hi), (lo, hi)];
            corners.map(|(x, y)| Vec2::new(x, y))
        };
        let ring = |outer: [Vec2; 4], hole: [Vec2; 4], bound: Bound| {
            let side = |corners: [Vec2; 4], k: usize| (corners[k], corners[(k + 1) % 4]);
            // The outer ring counter-clockwise, the hole clockwise: walkable on the left.
            let outer = (0..4).map(move |k| side(outer, k));
            let hole = (0..4).map(move |k| {
                let (a, b) = side(hole, k);
                (b, a)
            });
            outer.chain(hole).map(move |(a, b)| Edge {
                a,
                b,
                bound,
                open: false,
            })
        };
        let mut edges: Vec<Edge> = ring(square(0.0, 10.0), square(4.0, 6.0), Bound::Wall).collect();
        edges.extend(ring(square(1.0, 9.0), square(3.0, 7.0), Bound::Margin));
        let outline = Outline::new(edges);
        let p = |x: f32, y: f32| Vec2::new(x, y);
        // Half a metre off the left wall (in the margin's band) toward the room's middle row.
        assert!(
            !outline.crosses(p(0.5, 1.5), p(2.0, 1.5), true),
            "in across the margin"
        );
        assert!(
            outline.crosses(p(2.0, 1.5), p(0.5, 1.5), true),
            "out across the margin"
        );
        assert!(
            !outline.crosses(p(0.5, 1.0), p(0.5, 9.0), true),
            "along the band"
        );
        // From the block's band, through the block, out to the other side.
        assert!(
            outline.crosses(p(3.5, 5.0), p(8.0, 5.0), true),
            "through a wall"
        );
        assert!(
            outline.crosses(p(3.5, 5.0), p(8.0, 5.0), false),
            "a wall, to sight"
        );
        assert!(
            !outline.crosses(p(2.0, 1.5), p(0.5, 1.5), false),
            "sight into the margin"
        );
        assert!(outline.contains(p(0.5, 5.0), Bound::Wall));
        assert!(!outline.contains(p(0.5, 5.0), Bound::Margin));
        assert!(outline.contains(p(2.0, 2.0), Bound::Margin));
        assert!(!outline.contains(p(5.0, 5.0), Bound::Wall));
        assert_eq!(
            outline.nearest_on(p(0.5, 5.0), Bound::Margin, 0.6),
            Some(p(1.0, 5.0))
        );
        assert_eq!(outline.nearest_on(p(0.5, 5.0), Bound::Margin, 0.4), None);
        assert_eq!(outline.edges(Bound::Wall).count(), 8);
    }
}
