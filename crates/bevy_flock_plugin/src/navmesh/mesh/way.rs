//! The checks following makes each tick along a unit's way, sparing work with what it
//! measured the tick before (see [`WayChecks`]).

use bevy::prelude::*;

use super::NavMesh;
use crate::way_checks::{ClearSight, WallRef};

/// The room a line of sight is measured with, as a share of the mesh's clearance: less than
/// the clearance, so that a line to a waypoint (which keeps the clearance) can have it. At
/// most a quarter of the look-ahead, however wide the clearance.
const SIGHT_ROOM: f32 = 0.9;
/// Less room than this is not worth measuring: the plain check is made instead.
const LEAST_ROOM: f32 = 0.01;

impl NavMesh {
    /// [`is_clear_line`](Self::is_clear_line), trying first the wall `across` names (the one
    /// found across a line before: the same line a tick on is most often still blocked by it),
    /// and noting there the wall found across this line, or none.
    pub(crate) fn is_clear_line_noting(
        &self,
        a: Vec3,
        b: Vec3,
        across: &mut Option<WallRef>,
    ) -> bool {
        let floor = self.floor_under(a);
        let outline = self.floors[floor].outline();
        let (a, b) = (a.truncate(), b.truncate());
        if !(a.is_finite() && b.is_finite()) {
            return false;
        }
        let noted = across.filter(|wall| wall.floor as usize == floor);
        if noted.is_some_and(|wall| outline.is_crossed(wall.edge as usize, a, b, true)) {
            return false;
        }
        *across = (outline.crossing(a, b, true)).map(|edge| WallRef {
            floor: floor as u32,
            edge: edge as u32,
        });
        across.is_none()
    }

    /// Whether a unit at `at` sees `waypoint`, or the look-ahead's share of the line to it
    /// ([`sees`](Self::sees)), answered from `sight` where that was measured near enough on
    /// this mesh and floor. Else measured again with room to spare (see [`ClearSight`]): the
    /// line from `at` toward the waypoint, the look-ahead and the room long, with no wall
    /// within the room of it. From anywhere within the room of `at`, the look-ahead's share of
    /// the line to the same waypoint lies within the room of that line, so it crosses no wall
    /// either. Where the room is lacking, the plain check answers until the unit has moved the
    /// room away.
    pub(crate) fn sees_waypoint(
        &self,
        at: Vec3,
        waypoint: Vec3,
        sight: &mut Option<ClearSight>,
    ) -> bool {
        let reach = self.look_ahead();
        // `sees`, on the floor already found.
        let floor = self.floor_under(at);
        let outline = self.floors[floor].outline();
        let toward = at + (waypoint - at).clamp_length_max(reach);
        let plain = || !outline.crosses(at.truncate(), toward.truncate(), false);
        let room = (SIGHT_ROOM * self.clearance).min(0.25 * reach);
        if room < LEAST_ROOM {
            return plain();
        }
        let (from, to) = (at.truncate(), waypoint.truncate());
        match sight.filter(|s| s.stands_for(from, self.number, floor as u32)) {
            Some(measured) if measured.vouches => return true,
            Some(_) => return plain(),
            None => {}
        }
        let end = from + (to - from).clamp_length_max(reach + room);
        let vouches = outline.keeps_walls_beyond(from, end, room);
        *sight = Some(ClearSight {
            from,
            room,
            mesh: self.number,
            floor: floor as u32,
            vouches,
        });
        vouches || plain()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A 20 m room with three blocks, paths kept 0.5 m from the walls.
    fn rooms() -> NavMesh {
        let square = |x0: f32, y0: f32, w: f32, h: f32| {
            vec![
                Vec2::new(x0, y0),
                Vec2::new(x0 + w, y0),
                Vec2::new(x0 + w, y0 + h),
                Vec2::new(x0, y0 + h),
            ]
        };
        let blocks = [
            square(4.0, 4.0, 3.0, 8.0),
            square(10.0, 2.0, 1.0, 6.0),
            square(12.0, 12.0, 5.0, 2.0),
        ];
        NavMesh::from_outline(&square(0.0, 0.0, 20.0, 20.0), blocks, 0.5).unwrap()
    }

    proptest! {
        /// Walking about in small steps toward a waypoint, with what was measured carried from
        /// step to step as following carries it, both checks answer as the plain ones.
        #[test]
        fn checks_helped_by_what_was_measured_answer_as_the_plain_ones(
            start in (0.0f32..20.0, 0.0f32..20.0),
            waypoint in (0.0f32..20.0, 0.0f32..20.0),
            steps in prop::collection::vec((-0.4f32..0.4, -0.4f32..0.4), 1..60),
        ) {
            let mesh = rooms();
            let reach = mesh.look_ahead();
            let waypoint = Vec3::new(waypoint.0, waypoint.1, 0.0);
            let mut at = Vec3::new(start.0, start.1, 0.0);
            let (mut across, mut sight) = (None, None);
            for (dx, dy) in steps {
                at += Vec3::new(dx, dy, 0.0);
                let toward = at + (waypoint - at).clamp_length_max(reach);
                prop_assert_eq!(
                    mesh.sees_waypoint(at, waypoint, &mut sight),
                    mesh.sees(at, toward),
                    "sight from {} to {}", at, waypoint
                );
                prop_assert_eq!(
                    mesh.is_clear_line_noting(at, waypoint, &mut across),
                    mesh.is_clear_line(at, waypoint),
                    "line from {} to {}", at, waypoint
                );
            }
        }
    }

    #[test]
    fn a_sight_measured_with_room_spares_the_next_checks_near_it() {
        let mesh = rooms();
        let (at, waypoint) = (Vec3::new(2.0, 2.0, 0.0), Vec3::new(2.0, 15.0, 0.0));
        let mut sight = None;
        assert!(mesh.sees_waypoint(at, waypoint, &mut sight));
        let measured = sight.expect("measured");
        assert!(measured.vouches, "1.5 m from the walls: room to spare");
        // From a step on, the same measure answers; from a floor or mesh away, it does not.
        let step = Vec2::new(0.1, 0.1);
        assert!(measured.stands_for(at.truncate() + step, mesh.number(), 0));
        assert!(!measured.stands_for(at.truncate() + step * 5.0, mesh.number(), 0));
        assert!(!measured.stands_for(at.truncate(), rooms().number(), 0));
        assert!(!measured.stands_for(at.truncate(), mesh.number(), 1));
        // Pressed against a block: no room, and the plain check answers.
        let mut sight = None;
        let by_block = Vec3::new(3.8, 6.0, 0.0);
        assert!(mesh.sees_waypoint(by_block, Vec3::new(3.8, 11.0, 0.0), &mut sight));
        assert!(sight.is_some_and(|s| !s.vouches));
    }
}
