//! Lines of sight across a [`Terrain`]: whether a line, or a band round it, misses every wall.

use bevy::prelude::*;

use super::map::Terrain;

/// How far a smoothed path keeps from unwalkable tiles, as a fraction of the tile size.
const PATH_CLEARANCE: f32 = 0.25;

/// The most parallels a band's line check follows each side of its middle line
/// ([`Terrain::is_clear_band`]).
const MAX_PARALLELS: i32 = 16;
impl Terrain {
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
        let Some((a, b)) = clip_to_box(a, b, self.tiles.size.as_vec2()) else {
            return true;
        };
        let walkable = |tile: IVec2| {
            tile.cmplt(IVec2::ZERO).any()
                || self
                    .tiles
                    .index(tile.as_uvec2())
                    .is_none_or(|i| self.tiles.walkable[i])
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
}

/// The part of the segment `a`-`b` within the box from the origin to `size` (its edges
/// included), if any (Liang and Barsky 1984).
pub(crate) fn clip_to_box(a: Vec2, b: Vec2, size: Vec2) -> Option<(Vec2, Vec2)> {
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
        (0..terrain.size().y).all(|y| {
            (0..terrain.size().x).all(|x| {
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
