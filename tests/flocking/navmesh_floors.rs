//! A navmesh of floors: a street cut by a canal, and a footbridge over the canal (a floor of
//! its own, with a ramp at each end). Paths between floors go up a ramp and over the deck,
//! and take the bridge where it is the shorter way between two points of the street; the
//! street goes on under the deck; units that walk across a ramp's foot move to the bridge's
//! floor and back, never off their floor's ground, and reach their goals.

use bevy::prelude::*;
use bevy_flock::NavMeshError;
use bevy_flock::prelude::*;

use crate::navmesh_height::squads_on_navmesh;

/// How high the deck stands over the street.
pub(crate) const DECK: f32 = 3.0;
/// The bridge runs along x between these y (2 m wide).
const BRIDGE: [f32; 2] = [4.0, 6.0];
/// The ramps' feet, west and east; the ramps rise 0.5 m a metre to the deck.
const FEET: [f32; 2] = [8.0, 32.0];
/// On the street, a ramp's footprint is walled off up to this far from its foot, where it is
/// 2.5 m up: the street goes on beneath it from there.
const LOW_RAMP: f32 = 5.0;
/// How far paths keep from the walls.
const CLEARANCE: f32 = 0.3;

fn rectangle(min: Vec2, max: Vec2) -> Vec<Vec2> {
    vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

/// The street: 40 m by 20 m, less a canal 4 m wide from its south edge to 4 m short of its
/// north edge, so that round the canal's head is the street's only way across.
fn street_outline() -> Vec<Vec2> {
    [
        (0.0, 0.0),
        (18.0, 0.0),
        (18.0, 16.0),
        (22.0, 16.0),
        (22.0, 0.0),
        (40.0, 0.0),
        (40.0, 20.0),
        (0.0, 20.0),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .to_vec()
}

/// The bridge's height: up from each foot at 0.5 m a metre, flat at [`DECK`] between.
fn bridge_height(p: Vec2) -> f32 {
    ((p.x - FEET[0]).min(FEET[1] - p.x) * 0.5).clamp(0.0, DECK)
}

/// The ramps' footprints where they are too low to pass under.
fn footprints() -> [Vec<Vec2>; 2] {
    let [south, north] = BRIDGE;
    [
        rectangle(
            Vec2::new(FEET[0], south),
            Vec2::new(FEET[0] + LOW_RAMP, north),
        ),
        rectangle(
            Vec2::new(FEET[1] - LOW_RAMP, south),
            Vec2::new(FEET[1], north),
        ),
    ]
}

/// The street (floor 0, the ramps' low ends walled off) and the bridge (floor 1).
fn floors() -> [NavFloor; 2] {
    let [south, north] = BRIDGE;
    let street = NavFloor::new(street_outline(), footprints());
    let bridge = NavFloor::new(
        rectangle(Vec2::new(FEET[0], south), Vec2::new(FEET[1], north)),
        [],
    )
    .with_height(bridge_height);
    [street, bridge]
}

/// The joins at the ramps' feet, west and east.
fn feet() -> [FloorJoin; 2] {
    let [south, north] = BRIDGE;
    FEET.map(|x| FloorJoin::new([0, 1], [Vec2::new(x, south), Vec2::new(x, north)]))
}

/// The street and the bridge, joined at the ramps' feet.
pub(crate) fn town(clearance: f32) -> Result<NavMesh, NavMeshError> {
    NavMesh::from_floors(floors(), feet(), clearance)
}

/// The length of the way from `from` along `path`, across the plane.
fn length(from: Vec3, path: &[Vec3]) -> f32 {
    let (length, _) = (path.iter()).fold((0.0, from.truncate()), |(length, at), p| {
        (length + at.distance(p.truncate()), p.truncate())
    });
    length
}

#[test]
fn a_path_between_floors_goes_up_a_ramp_to_the_deck_through_the_joins_middle() {
    let mesh = town(CLEARANCE).unwrap();
    assert_eq!(mesh.floors(), 2);
    let (from, to) = (Vec3::new(2.0, 12.0, 0.0), Vec3::new(20.0, 5.0, DECK));
    assert_eq!(mesh.floor_at(from), Some(0));
    assert_eq!(mesh.floor_at(to), Some(1));
    let path = mesh.find_path(from, to).unwrap();
    assert_eq!(
        path.last(),
        Some(&to),
        "on the deck, at its height: {path:?}"
    );
    // Across the west ramp's foot at its middle, the clearance either side of it.
    let foot = Vec2::new(FEET[0], 5.0);
    let crossing = path
        .windows(2)
        .find(|pair| pair[0].x < FEET[0] && pair[1].x > FEET[0])
        .unwrap_or_else(|| panic!("no leg crosses the west foot: {path:?}"));
    assert!(
        (crossing[0].truncate().distance(foot) - CLEARANCE).abs() < 0.02
            && (crossing[1].truncate().distance(foot) - CLEARANCE).abs() < 0.02,
        "{crossing:?}"
    );
    // Each waypoint at its floor's height: the street's 0 before the foot, the ramp's after.
    for w in &path {
        let expected = if w.x < FEET[0] {
            0.0
        } else {
            bridge_height(w.truncate())
        };
        assert_eq!(w.z, expected, "{w} in {path:?}");
    }
}

#[test]
fn the_bridge_is_taken_where_it_is_the_shorter_way_between_two_points_of_the_street() {
    let mesh = town(CLEARANCE).unwrap();
    // South of the bridge on both banks: over the bridge (up the west ramp, back round its
    // walled-off foot, and down the east one), or round the canal's head.
    let (from, to) = (Vec3::new(10.0, 1.5, 0.0), Vec3::new(30.0, 1.5, 0.0));
    let path = mesh.find_path(from, to).unwrap();
    assert!(path.iter().any(|w| w.z > 0.0), "over the bridge: {path:?}");
    let over = length(from, &path);
    let round = NavMesh::from_outline(&street_outline(), [], CLEARANCE).unwrap();
    let around = length(from, &round.find_path(from, to).unwrap());
    assert!(
        (33.0..34.0).contains(&over) && (37.0..39.0).contains(&around),
        "{over} m over, {around} m round the head: {path:?}"
    );
    // With the west foot alone, the bridge leads up and never back down: the way between two
    // points of the street is the street's own.
    let one_foot = NavMesh::from_floors(floors(), [feet()[0]], CLEARANCE).unwrap();
    let street_alone = NavMesh::from_outline(&street_outline(), footprints(), CLEARANCE).unwrap();
    let own = street_alone.find_path(from, to).unwrap();
    assert_eq!(one_foot.find_path(from, to), Some(own.clone()));
    assert!((37.0..39.0).contains(&length(from, &own)), "{own:?}");
    // North of the bridge, round the head is the shorter.
    let (from, to) = (Vec3::new(14.0, 14.0, 0.0), Vec3::new(26.0, 14.0, 0.0));
    let path = mesh.find_path(from, to).unwrap();
    assert!(path.iter().all(|w| w.z == 0.0), "on the street: {path:?}");
    // Under the deck, the street goes on: straight across, on floor 0.
    let (from, to) = (Vec3::new(16.0, 1.5, 0.0), Vec3::new(16.0, 9.0, 0.0));
    assert_eq!(mesh.find_path(from, to), Some(vec![to]));
    let under = Vec3::new(16.0, 5.0, 0.0);
    assert_eq!(mesh.floor_at(under), Some(0));
    assert_eq!(
        mesh.floor_at(under.with_z(2.9)),
        Some(1),
        "the deck over it"
    );
    assert_eq!(mesh.height_at(under.with_z(2.9)), DECK);
    assert_eq!(mesh.height_at(under), 0.0);
    // The ramp's walled-off foot is on the bridge's floor only, at any height.
    assert_eq!(mesh.floor_at(Vec3::new(10.0, 5.0, 0.0)), Some(1));
    assert_eq!(
        mesh.floor_at(Vec3::new(19.0, 1.0, 0.0)),
        None,
        "in the canal"
    );
}

#[test]
fn the_joins_are_no_walls_and_bad_joins_are_refused() {
    let mesh = town(CLEARANCE).unwrap();
    let on_a_foot = |[a, b]: [Vec2; 2]| {
        FEET.iter()
            .any(|&x| (a.x - x).abs() < 1e-3 && (b.x - x).abs() < 1e-3 && a.y.max(b.y) <= 6.0)
            && a.y.min(b.y) >= 4.0
    };
    for floor in 0..2 {
        assert!(mesh.walls(floor).count() > 0);
        assert!(
            !mesh.walls(floor).any(on_a_foot),
            "floor {floor} has a wall at a ramp's foot"
        );
    }
    // The bridge's sides are walls, and the footprints' sides on the street.
    let length = |floor| -> f32 { mesh.walls(floor).map(|[a, b]| a.distance(b)).sum() };
    assert!((length(1) - 48.0).abs() < 1e-3, "{}", length(1));
    assert!(mesh.walls(2).next().is_none(), "no third floor");
    let [south, north] = BRIDGE;
    let street = || NavFloor::new(street_outline(), []);
    let bridge = || NavFloor::new(rectangle(Vec2::new(8.0, south), Vec2::new(32.0, north)), []);
    let join = |floors, x: f32| FloorJoin::new(floors, [Vec2::new(x, south), Vec2::new(x, north)]);
    let build = |joins: Vec<FloorJoin>| NavMesh::from_floors([street(), bridge()], joins, 0.3);
    let bad = Some(NavMeshError::BadJoin);
    assert_eq!(build(vec![join([0, 2], 8.0)]).err(), bad, "no floor 2");
    assert_eq!(build(vec![join([1, 1], 8.0)]).err(), bad, "one floor twice");
    // With no footprint on the street, its ground lies on both sides of the foot.
    assert_eq!(
        build(vec![join([0, 1], 8.0)]).err(),
        bad,
        "street both sides"
    );
    assert_eq!(build(vec![join([0, 1], f32::NAN)]).err(), bad);
    assert_eq!(
        NavMesh::from_floors(Vec::<NavFloor>::new(), [], 0.3).err(),
        Some(NavMeshError::BadInput)
    );
    // Without joins the floors are apart: no path between them.
    let apart = build(Vec::new()).unwrap();
    let (from, to) = (Vec3::new(2.0, 12.0, 0.0), Vec3::new(20.0, 5.0, 1.0));
    assert_eq!(apart.floor_at(to), Some(1));
    assert_eq!(apart.find_path(from, to), None);
}

/// The floor a unit is on: its `OnFloor`, floor 0 without one.
fn floor_of(app: &App, unit: Entity) -> i32 {
    app.world().get::<OnFloor>(unit).map_or(0, |f| f.0)
}

#[test]
fn units_cross_to_the_bridge_and_back_at_the_ramps_feet_and_never_leave_their_floors_ground() {
    let mesh = town(CLEARANCE).unwrap();
    // Over the bridge (the short way across), onto the deck, down from it, and under it.
    let mut trips = Vec::new();
    for k in 0..4 {
        let y = 0.8 + 0.7 * k as f32;
        trips.push((Vec3::new(2.0 + k as f32, y, 0.0), Vec3::new(37.0, y, 0.0)));
    }
    trips.push((Vec3::new(3.0, 12.0, 0.0), Vec3::new(20.0, 5.0, DECK)));
    trips.push((Vec3::new(36.0, 14.0, 0.0), Vec3::new(19.0, 4.8, DECK)));
    let under = [(Vec3::new(16.0, 1.0, 0.0), Vec3::new(16.0, 12.0, 0.0))];
    trips.extend(under);
    let (mut app, units) = squads_on_navmesh(town(CLEARANCE).unwrap(), &trips);
    let mut on_the_bridge = vec![false; units.len()];
    for tick in 1..=900 {
        app.update();
        for (k, &unit) in units.iter().enumerate() {
            let at = app.world().get::<Transform>(unit).unwrap().translation;
            let floor = floor_of(&app, unit);
            assert_eq!(
                mesh.floor_at(at),
                Some(floor as usize),
                "unit {k} at {at}, on floor {floor}, is off its floor's ground after {tick} ticks"
            );
            let expected = if floor == 1 {
                bridge_height(at.truncate())
            } else {
                0.0
            };
            assert_eq!(at.z, expected, "unit {k} at {at} after {tick} ticks");
            on_the_bridge[k] |= floor == 1;
        }
    }
    for (k, (&unit, &(_, goal))) in units.iter().zip(&trips).enumerate() {
        let at = app.world().get::<Transform>(unit).unwrap().translation;
        assert!(
            at.distance(goal) < 1.0,
            "unit {k} ended at {at}, short of its goal {goal}"
        );
        assert_eq!(floor_of(&app, unit), i32::from(goal.z > 0.0), "unit {k}");
    }
    assert_eq!(
        on_the_bridge,
        [true, true, true, true, true, true, false],
        "all but the unit under the deck went over the bridge"
    );
}
