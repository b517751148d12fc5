//! The mesh of one floor: bad input refused, clearance kept from corners and walls, points
//! off the ground, overlapping obstacles.

use super::*;

fn square(x0: f32, y0: f32, side: f32) -> Vec<Vec2> {
    vec![
        Vec2::new(x0, y0),
        Vec2::new(x0 + side, y0),
        Vec2::new(x0 + side, y0 + side),
        Vec2::new(x0, y0 + side),
    ]
}

#[test]
fn bad_outlines_and_clearances_are_refused() {
    let bad = |outline: &[Vec2], obstacles: Vec<Vec<Vec2>>, clearance: f32| {
        NavMesh::from_outline(outline, obstacles, clearance).err()
    };
    let room = square(0.0, 0.0, 10.0);
    assert_eq!(bad(&room[..2], vec![], 0.0), Some(NavMeshError::BadInput));
    let mut nan = room.clone();
    nan[1].x = f32::NAN;
    assert_eq!(bad(&nan, vec![], 0.0), Some(NavMeshError::BadInput));
    let inf = vec![
        Vec2::new(f32::INFINITY, 1.0),
        Vec2::ONE,
        Vec2::new(1.0, 2.0),
    ];
    assert_eq!(bad(&room, vec![inf], 0.0), Some(NavMeshError::BadInput));
    assert_eq!(bad(&room, vec![], f32::NAN), Some(NavMeshError::BadInput));
    // Huge values, whose box with room round it would overflow.
    assert_eq!(bad(&room, vec![], 1e30), Some(NavMeshError::BadInput));
    let huge = vec![Vec2::ZERO, Vec2::new(1e30, 0.0), Vec2::splat(1e30)];
    assert_eq!(bad(&huge, vec![], 1.0), Some(NavMeshError::BadInput));
    // The largest allowed clearance covers the room: nothing to plan on, and no panic.
    assert_eq!(bad(&room, vec![], 1e15), Some(NavMeshError::Empty));
    // Grown by 7 m (its corners cut by chords, 92% of that), a 2 m block in the middle
    // covers the whole room.
    let middle = square(4.0, 4.0, 2.0);
    assert_eq!(bad(&room, vec![middle], 7.0), Some(NavMeshError::Empty));
}

#[test]
fn a_clearance_keeps_the_path_that_far_from_the_corners() {
    let room = square(0.0, 0.0, 20.0);
    let block = square(8.0, 4.0, 4.0);
    let (from, to) = (Vec3::new(10.0, 1.0, 0.0), Vec3::new(10.0, 15.0, 0.0));
    for clearance in [0.0, 0.5, 1.0] {
        let mesh = NavMesh::from_outline(&room, [block.clone()], clearance).unwrap();
        let path = mesh.find_path(from, to).unwrap();
        let corner_gap = (path.iter().take(path.len() - 1))
            .flat_map(|w| block.iter().map(move |c| w.truncate().distance(*c)))
            .fold(f32::INFINITY, f32::min);
        // The grown corners are arcs of a few segments: within 10% of the clearance.
        assert!(
            (corner_gap - clearance).abs() <= 0.1 * clearance + 1e-4,
            "clearance {clearance}: the path passes {corner_gap} from a corner: {path:?}"
        );
        assert!(!mesh.is_walkable_at(Vec3::new(10.0, 6.0, 0.0)));
    }
}

#[test]
fn points_off_the_ground_have_no_path() {
    let mesh =
        NavMesh::from_outline(&square(0.0, 0.0, 10.0), [square(4.0, 4.0, 2.0)], 0.0).unwrap();
    let inside = Vec3::new(1.0, 1.0, 0.0);
    assert!(mesh.find_path(inside, Vec3::new(5.0, 5.0, 0.0)).is_none());
    assert!(
        mesh.find_path(inside, Vec3::new(f32::NAN, 1.0, 0.0))
            .is_none()
    );
    assert!(mesh.find_path(inside, Vec3::new(30.0, 1.0, 0.0)).is_none());
    assert_eq!(
        mesh.find_path(inside, Vec3::new(9.0, 1.0, 0.0)),
        Some(vec![Vec3::new(9.0, 1.0, 0.0)])
    );
}

#[test]
fn a_point_nearer_a_wall_than_the_clearance_plans_from_where_it_is_kept() {
    let mesh =
        NavMesh::from_outline(&square(0.0, 0.0, 10.0), [square(4.0, 4.0, 2.0)], 0.5).unwrap();
    // 0.2 m off the room's left wall and off the block's right side: on the ground, within
    // the clearance.
    let (by_wall, by_block) = (Vec3::new(0.2, 5.0, 0.0), Vec3::new(6.2, 5.0, 0.0));
    assert!(mesh.is_walkable_at(by_wall) && mesh.is_walkable_at(by_block));
    let path = mesh.find_path(by_wall, by_block).unwrap();
    assert_eq!(path.last(), Some(&by_block));
    // Round the block's grown corners, half a metre clear of them.
    assert!(path.len() >= 2, "{path:?}");
    assert!(
        path.iter().take(path.len() - 1).all(|w| w.x > 0.45),
        "{path:?}"
    );
    let (off_wall, off_block) = (Vec3::new(2.0, 5.0, 0.0), Vec3::new(8.0, 5.0, 0.0));
    assert!(mesh.is_clear_line(by_wall, off_wall), "away from the wall");
    assert!(!mesh.is_clear_line(off_wall, by_wall), "toward it");
    assert!(mesh.sees(off_wall, by_wall), "in sight");
    assert!(
        mesh.is_clear_line(by_block, off_block),
        "away from the block"
    );
    assert!(!mesh.is_clear_line(off_block, by_block), "toward it");
    assert!(
        !mesh.is_clear_line(Vec3::new(3.8, 5.0, 0.0), by_block),
        "through the block"
    );
    assert_eq!(mesh.clearance(), 0.5);
}

#[test]
fn overlapping_obstacles_are_walled_as_their_union() {
    let (a, b) = (square(2.0, 2.0, 4.0), square(4.0, 4.0, 4.0));
    let mesh = NavMesh::from_outline(&square(0.0, 0.0, 10.0), [a, b], 0.0).unwrap();
    for inside in [(3.0, 3.0), (5.0, 5.0), (7.0, 7.0)] {
        let p = Vec3::new(inside.0, inside.1, 0.0);
        assert!(!mesh.is_walkable_at(p), "{p}");
    }
    assert!(mesh.is_walkable_at(Vec3::new(7.0, 3.0, 0.0)));
    // No wall runs inside the union: none has a point within both squares' overlap.
    let overlap = |p: Vec2| p.cmpgt(Vec2::splat(4.0)).all() && p.cmplt(Vec2::splat(6.0)).all();
    assert!(mesh.walls(0).all(|[a, b]| !overlap(a.lerp(b, 0.5))));
    let length: f32 = mesh.walls(0).map(|[a, b]| a.distance(b)).sum();
    // The room's 40 m and the union's 24 m.
    assert!((length - 64.0).abs() < 1e-3, "{length}");
}

#[test]
fn paths_keep_the_clearance_from_the_outlines_own_corners_and_narrow_gaps_close() {
    // An L of corridors 2 m wide: its inner corner at (2, 2).
    let l_shape = [
        (0.0, 0.0),
        (10.0, 0.0),
        (10.0, 2.0),
        (2.0, 2.0),
        (2.0, 10.0),
        (0.0, 10.0),
    ]
    .map(|(x, y)| Vec2::new(x, y));
    let (from, to) = (Vec3::new(9.0, 1.0, 0.0), Vec3::new(1.0, 9.0, 0.0));
    for clearance in [0.3, 0.6] {
        let mesh = NavMesh::from_outline(&l_shape, [], clearance).unwrap();
        let path = mesh.find_path(from, to).unwrap();
        let mut gap = f32::INFINITY;
        let mut at = from.truncate();
        for next in path.iter().map(|w| w.truncate()) {
            // The leg's nearest approach to the corner.
            let along = next - at;
            let t = ((Vec2::splat(2.0) - at).dot(along) / along.length_squared()).clamp(0.0, 1.0);
            gap = gap.min((at + along * t).distance(Vec2::splat(2.0)));
            at = next;
        }
        assert!(
            gap >= 0.96 * clearance && gap <= 1.1 * clearance,
            "clearance {clearance}: the path passes {gap} from the corner: {path:?}"
        );
    }
    // Wider than the corridors allow: no way through.
    let closed = NavMesh::from_outline(&l_shape, [], 1.1).unwrap();
    assert_eq!(closed.find_path(from, to), None);
}
