//! The town's ground plan: blocks of buildings with streets and alleys between, an open square,
//! a river across it with a bridge and a footbridge, and a ramp from the square over a street
//! to a roof terrace (a floor over the street), and the navigation mesh built from it.
//! `flock_bench` plans paths on the same mesh (it includes this file), so it uses nothing but
//! `Vec2` and the navmesh's types, which its includer brings into scope.

use bevy::math::Vec2;

use super::{FloorJoin, NavFloor, NavMesh};

/// Half the town's size, in metres; the town is centred on the origin.
pub const HALF_TOWN: Vec2 = Vec2::new(80.0, 50.0);
/// The river's banks: it runs south to north between these x.
pub const RIVER: [f32; 2] = [20.0, 28.0];
/// The bridge (6 m wide) and the footbridge (2 m wide): the y each spans.
pub const BRIDGE: [f32; 2] = [-3.0, 3.0];
pub const FOOTBRIDGE: [f32; 2] = [28.0, 30.0];
/// How high the bridges' arches rise over the middle of the river, in metres.
const ARCH: f32 = 1.2;
/// How far paths keep from the buildings: a zombie's body radius.
pub const CLEARANCE: f32 = 0.3;

/// The roof terrace: the low building north of the square, whose roof is walked on.
pub const TERRACE: [Vec2; 2] = [Vec2::new(-55.0, 13.0), Vec2::new(-42.0, 26.0)];
/// How high the terrace's roof stands, and the ramp's level deck over the street.
pub const TERRACE_HEIGHT: f32 = 3.5;
/// The ramp to the terrace, 3 m wide between these x: from its foot in the square up to the
/// street's south edge (a slope of 18°), then level over the street to the terrace.
pub const RAMP_X: [f32; 2] = [-50.0, -47.0];
pub const RAMP_FOOT: f32 = -4.0;
pub const RAMP_TOP: f32 = 7.0;
/// On the square, the ramp is walled off from its foot to where it is 2 m up: walkers pass
/// under it from there.
const RAMP_LOW: f32 = RAMP_FOOT + 2.0 / TERRACE_HEIGHT * (RAMP_TOP - RAMP_FOOT);

/// A building: its footprint's corners and its height.
pub struct Building {
    pub min: Vec2,
    pub max: Vec2,
    pub height: f32,
}

/// West of the river, blocks 13 m across start at these x (streets of 6 m between), and on both
/// sides at these y; east of it, at `EAST_BLOCKS`, then a row of houses at `HOUSES`.
const WEST_BLOCKS: [f32; 5] = [-74.0, -55.0, -36.0, -17.0, 2.0];
const ROWS: [f32; 5] = [-44.0, -25.0, -6.0, 13.0, 32.0];
const EAST_BLOCKS: [f32; 2] = [34.0, 53.0];
const HOUSES: [f32; 2] = [71.0, 77.0];
const BLOCK: f32 = 13.0;
/// Half the width of an alley that splits a block.
const HALF_ALLEY: f32 = 0.75;

/// The town's buildings. Two blocks west of the river are left open as the square; every third
/// block is split by an alley, across or along it by turns.
pub fn buildings() -> Vec<Building> {
    let mut buildings = Vec::new();
    let mut block = |x0: f32, x1: f32, y0: f32, k: usize| {
        let (min, max) = (Vec2::new(x0, y0), Vec2::new(x1, y0 + BLOCK));
        // Heights from 4 to 8.5 m, in a fixed pattern; the terrace is lower.
        let height = if min == TERRACE[0] {
            TERRACE_HEIGHT
        } else {
            4.0 + ((k * 7) % 10) as f32 * 0.5
        };
        let middle = (min + max) * 0.5;
        match k % 6 {
            0 => {
                buildings.push(Building {
                    min,
                    max: Vec2::new(middle.x - HALF_ALLEY, max.y),
                    height,
                });
                buildings.push(Building {
                    min: Vec2::new(middle.x + HALF_ALLEY, min.y),
                    max,
                    height: height - 1.0,
                });
            }
            3 => {
                buildings.push(Building {
                    min,
                    max: Vec2::new(max.x, middle.y - HALF_ALLEY),
                    height,
                });
                buildings.push(Building {
                    min: Vec2::new(min.x, middle.y + HALF_ALLEY),
                    max,
                    height: height + 1.0,
                });
            }
            _ => buildings.push(Building { min, max, height }),
        }
    };
    let mut k = 0;
    for (j, &y0) in ROWS.iter().enumerate() {
        for (i, &x0) in WEST_BLOCKS.iter().enumerate() {
            let square = j == 2 && (i == 1 || i == 2);
            if !square {
                block(x0, x0 + BLOCK, y0, k);
            }
            k += 1;
        }
        for &x0 in &EAST_BLOCKS {
            block(x0, x0 + BLOCK, y0, k);
            k += 1;
        }
        // Never split: a house is too narrow for an alley.
        block(HOUSES[0], HOUSES[1], y0, 2 + 3 * j);
    }
    buildings
}

/// The outline of the ground: the town's rectangle less the river north and south of the
/// bridges (the river between them is an obstacle inside it).
pub fn outline() -> Vec<Vec2> {
    let (h, [west, east]) = (HALF_TOWN, RIVER);
    [
        (-h.x, -h.y),
        (west, -h.y),
        (west, BRIDGE[0]),
        (east, BRIDGE[0]),
        (east, -h.y),
        (h.x, -h.y),
        (h.x, h.y),
        (east, h.y),
        (east, FOOTBRIDGE[1]),
        (west, FOOTBRIDGE[1]),
        (west, h.y),
        (-h.x, h.y),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .to_vec()
}

/// The river between the bridge and the footbridge, as a rectangle's corners.
fn river_between_bridges() -> [Vec2; 2] {
    [
        Vec2::new(RIVER[0], BRIDGE[1]),
        Vec2::new(RIVER[1], FOOTBRIDGE[0]),
    ]
}

/// The ground's height: the bridges arch over the river (the only walkable ground between its
/// banks), and everything else is flat.
pub fn ground_height(p: Vec2) -> f32 {
    let [west, east] = RIVER;
    if p.x <= west || p.x >= east {
        return 0.0;
    }
    ARCH * bevy::math::ops::sin(core::f32::consts::PI * (p.x - west) / (east - west))
}

/// The corners of a rectangle, counter-clockwise.
fn corners(min: Vec2, max: Vec2) -> Vec<Vec2> {
    vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

/// What the navigation mesh leaves out of the outline: each building's footprint and the river
/// between the bridges, as their corners.
pub fn obstacles(buildings: &[Building]) -> Vec<Vec<Vec2>> {
    let [low, high] = river_between_bridges();
    (buildings.iter())
        .map(|b| corners(b.min, b.max))
        .chain([corners(low, high)])
        .collect()
}

/// The ramp's footprint where it is too low to pass under: walled off on the street's floor,
/// but for its foot, where walkers step onto it.
pub fn ramp_footprint() -> Vec<Vec2> {
    corners(
        Vec2::new(RAMP_X[0], RAMP_FOOT),
        Vec2::new(RAMP_X[1], RAMP_LOW),
    )
}

/// The ramp's foot, where the street's floor and the terrace's meet.
pub fn ramp_foot() -> [Vec2; 2] {
    RAMP_X.map(|x| Vec2::new(x, RAMP_FOOT))
}

/// The terrace's floor: the ramp, its deck over the street and the roof, counter-clockwise.
pub fn terrace_outline() -> Vec<Vec2> {
    let ([west, east], [low, high]) = (RAMP_X, TERRACE);
    [
        (west, RAMP_FOOT),
        (east, RAMP_FOOT),
        (east, low.y),
        (high.x, low.y),
        (high.x, high.y),
        (low.x, high.y),
        (low.x, low.y),
        (west, low.y),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .to_vec()
}

/// The terrace floor's height: up the ramp from its foot, level from the street's edge on.
pub fn terrace_height(p: Vec2) -> f32 {
    (TERRACE_HEIGHT * (p.y - RAMP_FOOT) / (RAMP_TOP - RAMP_FOOT)).clamp(0.0, TERRACE_HEIGHT)
}

/// The town's navigation mesh, paths kept [`CLEARANCE`] from every wall: on floor 0, the
/// outline less the buildings, the river between the bridges and the ramp's low end, its ground
/// arched over the bridges; on floor 1, the ramp, its deck over the street and the roof
/// terrace, joined to floor 0 at the ramp's foot.
pub fn navmesh(buildings: &[Building]) -> NavMesh {
    let mut walled_off = obstacles(buildings);
    walled_off.push(ramp_footprint());
    let ground = NavFloor::new(outline(), walled_off).with_height(ground_height);
    let terrace = NavFloor::new(terrace_outline(), []).with_height(terrace_height);
    let join = FloorJoin::new([0, 1], ramp_foot());
    NavMesh::from_floors([ground, terrace], [join], CLEARANCE).expect("the town's ground plan")
}
