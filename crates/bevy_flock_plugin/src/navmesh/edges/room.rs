//! Whether the walls keep their distance from a line: the check that lets one line of sight
//! vouch for the lines from round its start.

use bevy::prelude::*;

use super::{Bound, Outline, nearest_on_segment};

impl Outline {
    /// Whether every wall (an edge of kind [`Bound::Wall`] that is not open) lies farther than
    /// `room` from the segment from `a` to `b`. Then no segment within `room` of it crosses a
    /// wall. Reads the cells round the segment's bounds, grown by `room`; `false` for a
    /// segment or room that is not finite.
    pub(in crate::navmesh) fn keeps_walls_beyond(&self, a: Vec2, b: Vec2, room: f32) -> bool {
        if !(a.is_finite() && b.is_finite() && room.is_finite()) {
            return false;
        }
        let (low, high) = (self.cell_of(a.min(b) - room), self.cell_of(a.max(b) + room));
        let room_squared = room * room;
        (low.y..=high.y).all(|y| {
            (low.x..=high.x).all(|x| {
                self.edges_in(UVec2::new(x, y)).all(|e| {
                    let edge = &self.edges[e];
                    edge.open
                        || edge.bound != Bound::Wall
                        || distance_squared(a, b, edge.a, edge.b) > room_squared
                })
            })
        })
    }
}

/// The squared distance between the segments from `a` to `b` and from `c` to `d`: zero where
/// they meet (or lie along one line, overlapping or not: never more than the distance).
fn distance_squared(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f32 {
    let side = |from: Vec2, to: Vec2, r: Vec2| (to - from).perp_dot(r - from);
    if side(a, b, c) * side(a, b, d) <= 0.0 && side(c, d, a) * side(c, d, b) <= 0.0 {
        return 0.0;
    }
    let to_segment =
        |p: Vec2, from: Vec2, to: Vec2| p.distance_squared(nearest_on_segment(p, from, to));
    (to_segment(a, c, d).min(to_segment(b, c, d))).min(to_segment(c, a, b).min(to_segment(d, a, b)))
}

#[cfg(test)]
mod tests {
    use super::super::{Edge, Outline};
    use super::*;

    /// One wall along y = 0 from x = 0 to x = 10, and the margin's edge 0.5 above it.
    fn wall() -> Outline {
        let edge = |a: Vec2, b: Vec2, bound| Edge {
            a,
            b,
            bound,
            open: false,
        };
        Outline::new(vec![
            edge(Vec2::ZERO, Vec2::new(10.0, 0.0), Bound::Wall),
            edge(Vec2::new(0.0, 0.5), Vec2::new(10.0, 0.5), Bound::Margin),
        ])
    }

    #[test]
    fn a_line_keeps_its_room_only_while_the_wall_is_farther() {
        let outline = wall();
        let (a, b) = (Vec2::new(2.0, 1.0), Vec2::new(8.0, 1.0));
        assert!(outline.keeps_walls_beyond(a, b, 0.9), "1 m off, room 0.9");
        assert!(!outline.keeps_walls_beyond(a, b, 1.1), "1 m off, room 1.1");
        // The margin's edge, 0.5 off, is not a wall.
        assert!(outline.keeps_walls_beyond(a, b, 0.6));
        // Slanting down to 0.2 m over the wall at its far end; past the wall's end.
        assert!(!outline.keeps_walls_beyond(a, Vec2::new(8.0, 0.2), 0.3));
        assert!(outline.keeps_walls_beyond(Vec2::new(11.0, -3.0), Vec2::new(11.0, 3.0), 0.9));
        assert!(!outline.keeps_walls_beyond(Vec2::new(10.5, -3.0), Vec2::new(10.5, 3.0), 0.6));
        // Across the wall.
        assert!(!outline.keeps_walls_beyond(Vec2::new(5.0, 1.0), Vec2::new(5.0, -1.0), 0.0));
        assert!(!outline.keeps_walls_beyond(a, Vec2::new(f32::NAN, 1.0), 0.1));
    }

    #[test]
    fn the_distance_between_segments_is_measured_from_the_nearest_ends_or_where_they_meet() {
        let (a, b) = (Vec2::ZERO, Vec2::new(4.0, 0.0));
        let d = |c: Vec2, e: Vec2| distance_squared(a, b, c, e).sqrt();
        assert_eq!(
            d(Vec2::new(2.0, -1.0), Vec2::new(2.0, 1.0)),
            0.0,
            "crossing"
        );
        assert!((d(Vec2::new(2.0, 1.0), Vec2::new(3.0, 3.0)) - 1.0).abs() < 1e-6);
        assert_eq!(
            d(Vec2::new(5.0, 0.0), Vec2::new(7.0, 0.0)),
            0.0,
            "along one line"
        );
        assert!((d(Vec2::new(7.0, 4.0), Vec2::new(7.0, 9.0)) - 5.0).abs() < 1e-6);
        assert!((d(Vec2::new(-3.0, 4.0), Vec2::new(-3.0, 4.0)) - 5.0).abs() < 1e-6);
    }
}
