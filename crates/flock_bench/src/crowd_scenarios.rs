//! The standard crowd scenarios: circle swaps, two crossing streams, a bottleneck and a dense
//! crowd to goals, and the units they are measured in.

use bevy::prelude::*;
use flock_core::Shape;

/// Seconds a tick: a game's fixed step.
pub(crate) const DT: f32 = 1.0 / 64.0;
/// Agents' top speed, and their bodies' diameter (the default collision distance).
pub(crate) const SPEED: f32 = 2.0;
pub(crate) const DIAMETER: f32 = 0.7;
/// Within this of its goal an agent has arrived.
pub(crate) const REACHED: f32 = 0.25;
/// `dodgy_2d` gets the same neighbours as the kernel: the nearest ten within this radius.
pub(crate) const NEIGHBOUR_RADIUS: f32 = 4.0;
pub(crate) const NEIGHBOURS: usize = 10;
/// How the bottleneck's wall stands: at x = 0, with a door this wide in it.
pub(crate) const DOOR: f32 = 2.0;

/// Where the agents start and go.
pub(crate) struct Scenario {
    pub(crate) name: &'static str,
    pub(crate) starts: Vec<Vec3>,
    pub(crate) goals: Vec<Vec3>,
    /// Walls, if any (the bottleneck's): agents head for the door first.
    pub(crate) walls: Vec<Shape>,
}

/// `n` points on a circle of `radius`, each sent to the opposite point.
pub(crate) fn circle(n: usize, radius: f32) -> Scenario {
    let starts: Vec<Vec3> = (0..n)
        .map(|i| {
            let angle = i as f32 / n as f32 * std::f32::consts::TAU;
            Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * radius
        })
        .collect();
    Scenario {
        name: "circle swap",
        goals: starts.iter().map(|&p| -p).collect(),
        starts,
        walls: Vec::new(),
    }
}

/// How many more times the 1,000-agent circle runs with `Reciprocal`, its starts moved.
pub(crate) const MOVED_STARTS: u64 = 4;
/// The most each start moves along each axis in those runs: a millimetre.
pub(crate) const MOVED_BY: f32 = 1e-3;

/// `scenario` with each agent's start moved by a seeded draw of up to [`MOVED_BY`] along x and
/// y. In a crowd as dense as the big circle's centre, one run's deepest overlap hangs on the
/// starts' last bits (the standard library's and libm's cosines, an ulp apart at some angles,
/// gave 0.075 and 0.198 of the radius before the contact rounds), so it is judged over several.
pub(crate) fn moved(scenario: &Scenario, seed: u64) -> Scenario {
    let draw = |i: usize, axis: u64| {
        // SplitMix64 of the seed, the agent and the axis: a uniform draw in [-1, 1].
        let mut z = ((seed << 32) ^ ((i as u64) << 1) ^ axis).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    Scenario {
        name: scenario.name,
        starts: (scenario.starts.iter().enumerate())
            .map(|(i, &p)| p + Vec3::new(draw(i, 0), draw(i, 1), 0.0) * MOVED_BY)
            .collect(),
        goals: scenario.goals.clone(),
        walls: scenario.walls.clone(),
    }
}

/// Two blocks of `n` agents, one walking east and one north, crossing in the middle.
pub(crate) fn streams(n: usize) -> Scenario {
    let (mut starts, mut goals) = (Vec::new(), Vec::new());
    let columns = n.div_ceil(20);
    for k in 0..n {
        let (lane, rank) = ((k % 20) as f32 - 9.5, (k / 20) as f32);
        let east = Vec3::new(-30.0 - rank * 1.2, lane * 1.2, 0.0);
        starts.push(east);
        goals.push(east + Vec3::X * (60.0 + columns as f32 * 1.2));
        let north = Vec3::new(lane * 1.2, -30.0 - rank * 1.2, 0.0);
        starts.push(north);
        goals.push(north + Vec3::Y * (60.0 + columns as f32 * 1.2));
    }
    Scenario {
        name: "crossing streams",
        starts,
        goals,
        walls: Vec::new(),
    }
}

/// `n` agents in a block west of a wall at x = 0, through a door [`DOOR`] wide, to the same
/// block's place east of it.
pub(crate) fn bottleneck(n: usize) -> Scenario {
    let (mut starts, mut goals) = (Vec::new(), Vec::new());
    for k in 0..n {
        let (row, column) = ((k % 20) as f32 - 9.5, (k / 20) as f32);
        let start = Vec3::new(-4.0 - column * 1.0, row * 1.0, 0.0);
        starts.push(start);
        goals.push(Vec3::new(-start.x + 4.0, start.y, 0.0));
    }
    let half_wall = Vec3::new(0.25, 25.0, 1.0);
    let walls = [1.0, -1.0]
        .map(|side| Shape::Box {
            centre: Vec3::new(0.0, side * (DOOR / 2.0 + half_wall.y), 0.0),
            half_extents: half_wall,
            rotation: Quat::IDENTITY,
        })
        .to_vec();
    Scenario {
        name: "bottleneck",
        starts,
        goals,
        walls,
    }
}

/// The dense crowd of the table: each agent sent to the place `side * side / 2 + 7` along.
pub(crate) const DENSE_SHIFT: usize = 7;
/// The dense crowd runs again with `Reciprocal` with these shifts of every goal: which of the
/// last agents meet in a knot, and how long it takes them to untie it, hangs on the places.
pub(crate) const DENSE_SHIFTS: [usize; 5] = [3, 11, 19, 29, 41];

/// `side` x `side` agents on a lattice 1 apart, each sent to another's place: the place
/// `side * side / 2 + shift` along (a derangement for any `shift` below half the crowd).
pub(crate) fn dense(side: usize, shift: usize) -> Scenario {
    let starts: Vec<Vec3> = (0..side * side)
        .map(|k| Vec3::new((k % side) as f32, (k / side) as f32, 0.0))
        .collect();
    let n = starts.len();
    let goals = (0..n).map(|k| starts[(k + n / 2 + shift) % n]).collect();
    Scenario {
        name: "dense crowd to goals",
        starts,
        goals,
        walls: Vec::new(),
    }
}

/// Where agent at `position` heading for `goal` aims now: the door while west of the wall.
pub(crate) fn waypoint(scenario: &Scenario, position: Vec3, goal: Vec3) -> Vec3 {
    if !scenario.walls.is_empty() && position.x < 0.5 {
        Vec3::new(
            1.0,
            position.y.clamp(-DOOR / 2.0 + 0.5, DOOR / 2.0 - 0.5),
            0.0,
        )
    } else {
        goal
    }
}
