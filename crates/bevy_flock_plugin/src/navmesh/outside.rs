//! What lies outside a mesh's outline, as two obstacles: so that the clearance grows into the
//! ground from the outline as it does from every obstacle (polyanya shrinks an outline itself
//! only where something is left of it in one piece, and panics otherwise).

use bevy::prelude::*;

use super::edges::bounds;

/// The space between `outline` (a simple polygon, either way round) and a box `margin` outside
/// its bounds, cut in two simple polygons along the two horizontal lines from the outline's
/// leftmost and rightmost points out to the box: the part above and the part below. Returns
/// them and the box's corners.
pub(super) fn outside_of(outline: &[Vec2], margin: f32) -> ([Vec<Vec2>; 2], [Vec2; 2]) {
    let n = outline.len();
    let lexicographic = |a: &Vec2, b: &Vec2| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y));
    let extreme = |pick_max: bool| {
        let order = (0..n).map(|k| (k, &outline[k]));
        let found = if pick_max {
            order.max_by(|a, b| lexicographic(a.1, b.1))
        } else {
            order.min_by(|a, b| lexicographic(a.1, b.1))
        };
        found.map_or(0, |(k, _)| k)
    };
    let (left, right) = (extreme(false), extreme(true));
    let (low, high) = bounds(outline.iter().copied());
    let (low, high) = (low - margin, high + margin);
    // The chain forward from the leftmost point to the rightmost, and the one on from there.
    let walk = |from: usize, to: usize| {
        let steps = (to + n - from) % n;
        (0..=steps).map(move |k| (from + k) % n)
    };
    let forward: Vec<Vec2> = walk(left, right).map(|k| outline[k]).collect();
    let back: Vec<Vec2> = walk(right, left).map(|k| outline[k]).collect();
    // Every other point lies right of the leftmost (or straight above it), so of the two ways
    // the chains leave it, the one turned counter-clockwise from the other is the upper.
    let leaves_forward = forward.get(1).map_or(Vec2::ZERO, |&p| p - outline[left]);
    let leaves_back = back
        .iter()
        .rev()
        .nth(1)
        .map_or(Vec2::ZERO, |&p| p - outline[left]);
    // Each chain from the rightmost point back to the leftmost.
    let forward_home: Vec<Vec2> = forward.iter().rev().copied().collect();
    let (upper, lower) = if leaves_back.perp_dot(leaves_forward) > 0.0 {
        (forward_home, back)
    } else {
        (back, forward_home)
    };
    let (left_y, right_y) = (outline[left].y, outline[right].y);
    let piece = |edge_y: f32, chain: Vec<Vec2>| {
        let mut points = vec![
            Vec2::new(low.x, left_y),
            Vec2::new(low.x, edge_y),
            Vec2::new(high.x, edge_y),
            Vec2::new(high.x, right_y),
        ];
        points.extend(chain);
        points
    };
    ([piece(high.y, upper), piece(low.y, lower)], [low, high])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `p` is inside `polygon` (even-odd).
    fn inside(polygon: &[Vec2], p: Vec2) -> bool {
        let mut odd = false;
        for (k, &a) in polygon.iter().enumerate() {
            let b = polygon[(k + 1) % polygon.len()];
            if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
                odd = !odd;
            }
        }
        odd
    }

    #[test]
    fn the_two_pieces_cover_the_box_outside_the_outline_once() {
        // An L with a notch, both ways round.
        let l_shape: Vec<Vec2> = [
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 4.0),
            (6.0, 4.0),
            (6.0, 6.0),
            (4.0, 6.0),
            (4.0, 10.0),
            (0.0, 10.0),
        ]
        .map(|(x, y)| Vec2::new(x, y))
        .to_vec();
        let reversed: Vec<Vec2> = l_shape.iter().rev().copied().collect();
        for outline in [l_shape, reversed] {
            let ([above, below], [low, high]) = outside_of(&outline, 2.0);
            assert_eq!((low, high), (Vec2::splat(-2.0), Vec2::splat(12.0)));
            for k in 0..2_000 {
                // Points on a lattice off every line of the shapes.
                let p = Vec2::new(
                    -1.9 + (k % 50) as f32 * 0.277,
                    -1.9 + (k / 50) as f32 * 0.347,
                );
                let covered = usize::from(inside(&above, p)) + usize::from(inside(&below, p));
                let expected = usize::from(!inside(&outline, p));
                assert_eq!(covered, expected, "{p}");
            }
        }
    }
}
