//! Where the floors of a [`NavMesh`](super::NavMesh) meet ([`FloorJoin`]), and the shortest
//! ways between floors through them.

use bevy::prelude::*;

use super::edges::nearest_on_segment;
use super::floor::Floor;

/// How far to each side of a join's middle its two floors are looked for, in metres.
const SIDE_STEP: f32 = 0.01;

/// Where two floors of a [`NavMesh`](super::NavMesh) meet: a stretch, from one end to the
/// other, of the edge of each floor's ground, with one floor on each side of it (the foot of a
/// ramp, whose ground floor has the ramp's footprint as an obstacle; a stair's head). Agents
/// cross from one floor to the other there, and nowhere else; paths between floors pass
/// through a join's middle. Both floors' grounds should be at the same height along it.
///
/// Agents meet only the agents of their own floor ([`OnFloor`](crate::OnFloor)), so two
/// bodies a step apart on either side of a join do not avoid each other until one crosses;
/// a crowd climbing a ramp 2 m wide kept its bodies as far apart across the join as on one
/// floor, but a game that packs a join tighter may see bodies touch there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloorJoin {
    /// The two floors, by their place in the list the mesh was built from.
    pub floors: [usize; 2],
    /// The stretch's two ends.
    pub ends: [Vec2; 2],
}

impl FloorJoin {
    /// Floors `floors` meet along the stretch from `ends[0]` to `ends[1]`.
    pub fn new(floors: [usize; 2], ends: [Vec2; 2]) -> Self {
        Self { floors, ends }
    }

    /// The point of the stretch nearest `point`.
    fn nearest_to(&self, point: Vec2) -> Vec2 {
        let [a, b] = self.ends;
        nearest_on_segment(point, a, b)
    }
}

/// One side of a join: its floor, and the point a path crosses from there (the join's middle,
/// kept clear of the walls on that floor).
#[derive(Clone, Copy, Debug)]
struct Side {
    floor: usize,
    at: Vec2,
}

/// A way across one floor: its length, and its waypoints after its start.
#[derive(Clone, Debug)]
struct Leg {
    length: f32,
    waypoints: Vec<Vec2>,
}

impl Leg {
    /// The way from `from` along `waypoints`.
    fn new(from: Vec2, waypoints: Vec<Vec2>) -> Self {
        let (length, _) = (waypoints.iter()).fold((0.0, from), |(length, at), &next| {
            (length + at.distance(next), next)
        });
        Self { length, waypoints }
    }
}

/// A join given where none can be: it names a floor the mesh lacks or one floor twice, an end
/// is not finite, or its middle does not have one floor's ground on one side and only the
/// other's on the other.
#[derive(Clone, Copy, Debug)]
pub(super) struct BadJoin;

/// The joins between a mesh's floors, the points paths cross them at, and the ways across each
/// floor between those points, found when the mesh is built.
#[derive(Clone, Debug, Default)]
pub(super) struct Crossings {
    joins: Vec<FloorJoin>,
    /// Join `j`'s sides, `2 j` on its first floor and `2 j + 1` on its second; `None` where the
    /// clearance closes it.
    sides: Vec<Option<Side>>,
    /// The way across a floor from side `u` to side `v`, at `u * sides + v`.
    legs: Vec<Option<Leg>>,
    /// For each floor, whether a way leaves it across one join and comes back across another:
    /// only then can a way between two of its points be shorter through other floors.
    ways_round: Vec<bool>,
}

/// A step of a way between floors: across a join, or along a leg on one floor.
enum Link<'a> {
    Cross(Side),
    Walk(usize, &'a Leg),
}

/// A walk along `leg` on `floor`, if there is one, and its length.
fn walk(floor: usize, leg: &Option<Leg>) -> Option<(f32, Link<'_>)> {
    let leg = leg.as_ref()?;
    Some((leg.length, Link::Walk(floor, leg)))
}

/// The nodes along the shortest way from `start` to `goal` among `nodes` nodes, both ends
/// included, where `length(u, v)` is the length of the link from `u` to `v`, if any
/// (Dijkstra's search; the nodes are few, two a join, so each step scans them all).
fn shortest_steps(
    nodes: usize,
    start: usize,
    goal: usize,
    length: impl Fn(usize, usize) -> Option<f32>,
) -> Option<Vec<usize>> {
    let mut distance = vec![f32::INFINITY; nodes];
    let mut previous = vec![usize::MAX; nodes];
    let mut done = vec![false; nodes];
    distance[start] = 0.0;
    loop {
        let next = (0..nodes)
            .filter(|&u| !done[u] && distance[u].is_finite())
            .min_by(|&a, &b| distance[a].total_cmp(&distance[b]))?;
        if next == goal {
            break;
        }
        done[next] = true;
        for v in (0..nodes).filter(|&v| !done[v] && v != start) {
            if let Some(link) = length(next, v)
                && distance[next] + link < distance[v]
            {
                distance[v] = distance[next] + link;
                previous[v] = next;
            }
        }
    }
    let mut steps = vec![goal];
    while let Some(&last) = steps.last()
        && last != start
    {
        steps.push(previous[last]);
    }
    steps.reverse();
    Some(steps)
}

impl Crossings {
    /// The crossings of `joins` between `floors`.
    pub(super) fn new(floors: &[Floor], joins: Vec<FloorJoin>) -> Result<Self, BadJoin> {
        let mut sides = Vec::with_capacity(joins.len() * 2);
        for join in &joins {
            let [a, b] = join.ends;
            let [first, second] = join.floors;
            if first == second
                || first.max(second) >= floors.len()
                || !(a.is_finite() && b.is_finite())
                || a == b
            {
                return Err(BadJoin);
            }
            let middle = (a + b) * 0.5;
            let across = (b - a).normalize().perp() * SIDE_STEP;
            let on = |floor: usize, p: Vec2| floors[floor].contains(p);
            let (left, right) = (middle + across, middle - across);
            let first_side = match (on(first, left), on(first, right)) {
                (true, false) => left,
                (false, true) => right,
                _ => return Err(BadJoin),
            };
            let second_side = if first_side == left { right } else { left };
            if !on(second, second_side) || on(second, first_side) {
                return Err(BadJoin);
            }
            for (floor, near) in [(first, first_side), (second, second_side)] {
                let at = floors[floor].kept_clear(near);
                sides.push(at.map(|at| Side { floor, at }));
            }
        }
        let count = sides.len();
        let mut legs = vec![None; count * count];
        for (u, v) in (0..count).flat_map(|u| (0..count).map(move |v| (u, v))) {
            if let (Some(from), Some(to)) = (sides[u], sides[v])
                && u != v
                && from.floor == to.floor
            {
                legs[u * count + v] = (floors[from.floor].path(from.at, to.at))
                    .map(|waypoints| Leg::new(from.at, waypoints));
            }
        }
        let mut crossings = Self {
            joins,
            sides,
            legs,
            ways_round: Vec::new(),
        };
        crossings.ways_round = (0..floors.len())
            .map(|floor| crossings.has_way_round(floor))
            .collect();
        Ok(crossings)
    }

    /// Whether a way leaves `floor` across one side of a join and comes back across another
    /// (a search of the sides from each side's twin that never steps back onto that side).
    fn has_way_round(&self, floor: usize) -> bool {
        let count = self.sides.len();
        let on_floor = |u: usize| self.sides[u].is_some_and(|s| s.floor == floor);
        (0..count).filter(|&u| on_floor(u)).any(|left_by| {
            let mut seen = vec![false; count];
            seen[left_by] = true;
            let mut next = vec![left_by ^ 1];
            while let Some(u) = next.pop() {
                if seen[u] || self.sides[u].is_none() {
                    continue;
                }
                if on_floor(u) {
                    return true;
                }
                seen[u] = true;
                next.push(u ^ 1);
                next.extend((0..count).filter(|&v| self.legs[u * count + v].is_some()));
            }
            false
        })
    }

    /// Whether there are no joins.
    pub(super) fn is_empty(&self) -> bool {
        self.joins.is_empty()
    }

    /// The shortest way across `floors` from `from` to `to` (each a floor and a point kept
    /// clear on it), through joins where it is shorter or the only way (Dijkstra 1959 over the
    /// joins' sides): the waypoints after `from`, each with its floor, `to` last.
    pub(super) fn path(
        &self,
        floors: &[Floor],
        from: (usize, Vec2),
        to: (usize, Vec2),
    ) -> Option<Vec<(usize, Vec2)>> {
        let count = self.sides.len();
        let (start, goal) = (count, count + 1);
        if from.0 == to.0 && !self.ways_round[from.0] {
            // No way through other floors comes back: the floor's own search alone.
            let path = floors[from.0].path(from.1, to.1)?;
            return Some(path.into_iter().map(|p| (from.0, p)).collect());
        }
        // The legs from the start and to the goal, searched for now.
        let leg_on = |floor: usize, a: Vec2, b: Vec2| {
            floors[floor]
                .path(a, b)
                .map(|waypoints| Leg::new(a, waypoints))
        };
        let side_on = |u: usize, floor: usize| self.sides[u].filter(|s| s.floor == floor);
        let from_start: Vec<Option<Leg>> = (0..count)
            .map(|u| side_on(u, from.0).and_then(|s| leg_on(from.0, from.1, s.at)))
            .collect();
        let to_goal: Vec<Option<Leg>> = (0..count)
            .map(|u| side_on(u, to.0).and_then(|s| leg_on(to.0, s.at, to.1)))
            .collect();
        let direct = (from.0 == to.0)
            .then(|| leg_on(from.0, from.1, to.1))
            .flatten();
        let link = |u: usize, v: usize| -> Option<(f32, Link)> {
            match (u == start, v == goal) {
                (true, true) => walk(from.0, &direct),
                (true, false) => walk(from.0, &from_start[v]),
                (false, true) => walk(to.0, &to_goal[u]),
                (false, false) if u ^ 1 == v => {
                    let (here, there) = (self.sides[u]?, self.sides[v]?);
                    Some((here.at.distance(there.at), Link::Cross(there)))
                }
                (false, false) => {
                    let floor = self.sides[u]?.floor;
                    walk(floor, &self.legs[u * count + v])
                }
            }
        };
        let length = |u: usize, v: usize| link(u, v).map(|(length, _)| length);
        let steps = shortest_steps(count + 2, start, goal, length)?;
        let mut path = Vec::new();
        for pair in steps.windows(2) {
            match link(pair[0], pair[1]).map(|(_, link)| link)? {
                Link::Cross(side) => path.push((side.floor, side.at)),
                Link::Walk(floor, leg) => path.extend(leg.waypoints.iter().map(|&p| (floor, p))),
            }
        }
        Some(path)
    }

    /// The floor an agent on `floor` at `point`, off that floor's ground, has crossed to: the
    /// other floor of the nearest of `floor`'s joins whose other floor's ground holds the point.
    pub(super) fn crossed_to(&self, floors: &[Floor], floor: usize, point: Vec2) -> Option<usize> {
        (self.joins.iter())
            .filter_map(|join| {
                let other = match join.floors {
                    [a, b] if a == floor => b,
                    [a, b] if b == floor => a,
                    _ => return None,
                };
                floors[other]
                    .contains(point)
                    .then(|| (join.nearest_to(point).distance(point), other))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, other)| other)
    }
}
