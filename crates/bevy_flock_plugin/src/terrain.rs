//! Terrain: a grid of walkable and unwalkable tiles on the plane, paths across it by A*, and
//! agents that follow them (seed 003's hybrid pathfinding).

use bevy::prelude::*;
use flock_core::Shape;
use pathfinding::prelude::astar;

use crate::diagnostics::Reporter;
use crate::{Agent, Combatant, Target};

/// Cost of a straight step between tiles in A*; a diagonal one costs [`DIAGONAL_COST`].
const STRAIGHT_COST: u32 = 10;
/// Cost of a diagonal step: 10 x sqrt 2, rounded.
const DIAGONAL_COST: u32 = 14;
/// How far a smoothed path keeps from unwalkable tiles, as a fraction of the tile size.
const PATH_CLEARANCE: f32 = 0.25;

/// A grid of square tiles on the XY plane, each walkable or not (seed 003's walk tiles), for
/// planar flocks ([`FlockingPlugin::planar`](crate::FlockingPlugin::planar)).
///
/// Unwalkable tiles are obstacles: agents cast ahead against them and steer round them like any
/// [`Obstacle`](crate::Obstacle), and never end a tick inside one. Agents with a
/// [`Destination`] get a path across the walkable tiles, planned by A* and re-planned whenever
/// the terrain changes. Insert it as a resource; edit it any time (the world changes in play).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::Terrain;
///
/// let terrain = Terrain::from_rows(
///     Vec2::ZERO,
///     1.0,
///     &[
///         "....",
///         ".##.",
///         "....",
///     ],
/// );
/// assert!(!terrain.is_walkable_at(Vec3::new(1.5, 1.5, 0.0)));
/// let path = terrain.find_path(Vec3::new(0.5, 1.5, 0.0), Vec3::new(3.5, 1.5, 0.0)).unwrap();
/// assert_eq!(path.last(), Some(&Vec3::new(3.5, 1.5, 0.0)));
/// assert!(path.len() >= 2, "round the wall, not through it: {path:?}");
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct Terrain {
    origin: Vec2,
    tile_size: f32,
    size: UVec2,
    walkable: Vec<bool>,
}

impl Terrain {
    /// A terrain of `size` tiles, each `tile_size` wide, its lowest corner at `origin`, every
    /// tile walkable.
    pub fn new(origin: Vec2, tile_size: f32, size: UVec2) -> Self {
        let size = size.max(UVec2::ONE);
        Self {
            origin,
            tile_size,
            size,
            walkable: vec![true; size.element_product() as usize],
        }
    }

    /// A terrain drawn as text: one string per row of tiles, the first row at the top
    /// (highest y), `#` for an unwalkable tile and anything else for a walkable one. Rows are
    /// as wide as the longest; what shorter ones lack is walkable.
    pub fn from_rows(origin: Vec2, tile_size: f32, rows: &[&str]) -> Self {
        let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(1);
        let mut terrain = Self::new(
            origin,
            tile_size,
            UVec2::new(width as u32, rows.len() as u32),
        );
        let top = terrain.size.y - 1;
        for (r, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                terrain.set_walkable(UVec2::new(x as u32, top - r as u32), c != '#');
            }
        }
        terrain
    }

    /// The number of tiles along X and Y.
    pub fn size(&self) -> UVec2 {
        self.size
    }

    /// The width of a tile.
    pub fn tile_size(&self) -> f32 {
        self.tile_size
    }

    /// Whether the terrain is usable: a finite origin and a positive, finite tile size.
    pub fn is_valid(&self) -> bool {
        self.origin.is_finite() && self.tile_size.is_finite() && self.tile_size > 0.0
    }

    /// The tile `point` is on, if it is on the terrain.
    pub fn tile_at(&self, point: Vec3) -> Option<UVec2> {
        let local = (point.truncate() - self.origin) / self.tile_size;
        if !self.is_valid() || !local.is_finite() || local.cmplt(Vec2::ZERO).any() {
            return None;
        }
        let tile = local.floor().as_uvec2();
        tile.cmplt(self.size).all().then_some(tile)
    }

    /// The centre of `tile`, on the plane.
    pub fn centre(&self, tile: UVec2) -> Vec3 {
        (self.origin + (tile.as_vec2() + 0.5) * self.tile_size).extend(0.0)
    }

    /// Whether `tile` is on the terrain and walkable.
    pub fn is_walkable(&self, tile: UVec2) -> bool {
        self.index(tile).is_some_and(|i| self.walkable[i])
    }

    /// Whether `point` is on a walkable tile; off the terrain counts as walkable (the terrain
    /// only blocks where it says so).
    pub fn is_walkable_at(&self, point: Vec3) -> bool {
        self.tile_at(point)
            .is_none_or(|tile| self.is_walkable(tile))
    }

    /// Makes `tile` walkable or not; returns whether it is on the terrain.
    pub fn set_walkable(&mut self, tile: UVec2, walkable: bool) -> bool {
        match self.index(tile) {
            Some(i) => {
                self.walkable[i] = walkable;
                true
            }
            None => false,
        }
    }

    /// A path from `from` to `to` across walkable tiles: A* over the tiles (8 neighbours, no
    /// cutting corners), then shortened by skipping every waypoint the path can go straight
    /// past with room to spare. The waypoints are tile centres, then `to` itself; `from` is not
    /// included. `None` if either end is off the terrain or on an unwalkable tile, or no path
    /// joins them.
    pub fn find_path(&self, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        let start = self.tile_at(from).filter(|&t| self.is_walkable(t))?;
        let goal = self.tile_at(to).filter(|&t| self.is_walkable(t))?;
        let (tiles, _cost) = astar(
            &start,
            |&tile| self.steps(tile),
            |&tile| octile_distance(tile, goal),
            |&tile| tile == goal,
        )?;
        let mut waypoints: Vec<Vec3> = tiles[1..].iter().map(|&t| self.centre(t)).collect();
        waypoints.pop();
        waypoints.push(to.with_z(0.0));
        Some(self.shortened(from.with_z(0.0), waypoints))
    }

    /// `waypoints` without those the way from the one before (or `from`) can skip.
    fn shortened(&self, from: Vec3, waypoints: Vec<Vec3>) -> Vec<Vec3> {
        let mut kept = Vec::with_capacity(waypoints.len());
        let mut at = from;
        let mut k = 0;
        while k < waypoints.len() {
            // The furthest waypoint in a clear line from `at`.
            let mut furthest = k;
            for j in (k + 1..waypoints.len()).rev() {
                if self.is_clear_line(at, waypoints[j]) {
                    furthest = j;
                    break;
                }
            }
            at = waypoints[furthest];
            kept.push(at);
            k = furthest + 1;
        }
        kept
    }

    /// Whether the segment `a`-`b`, widened by a quarter tile each side, crosses only walkable
    /// tiles (off the terrain counts as walkable).
    pub fn is_clear_line(&self, a: Vec3, b: Vec3) -> bool {
        self.is_clear_band(a, b, PATH_CLEARANCE * self.tile_size)
    }

    /// Whether the segment `a`-`b`, widened by `clearance` each side, crosses only walkable
    /// tiles.
    fn is_clear_band(&self, a: Vec3, b: Vec3, clearance: f32) -> bool {
        let (a, b) = (a.truncate(), b.truncate());
        let length = a.distance(b);
        let across = (b - a).normalize_or_zero().perp() * clearance;
        let samples = (length / (self.tile_size * 0.25)).ceil().max(1.0) as u32;
        (0..=samples).all(|s| {
            let p = a.lerp(b, s as f32 / samples as f32);
            [p, p + across, p - across]
                .iter()
                .all(|&q| self.is_walkable_at(q.extend(0.0)))
        })
    }

    /// The walkable tiles one step from `tile`, with the step's cost.
    fn steps(&self, tile: UVec2) -> Vec<(UVec2, u32)> {
        let mut steps = Vec::with_capacity(8);
        let at = tile.as_ivec2();
        let open = |d: IVec2| {
            let t = at + d;
            t.cmpge(IVec2::ZERO).all() && self.is_walkable(t.as_uvec2())
        };
        for dy in -1..=1 {
            for dx in -1..=1 {
                let d = IVec2::new(dx, dy);
                if d == IVec2::ZERO || !open(d) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                // A diagonal step needs both tiles beside it open: no cutting corners.
                if diagonal && !(open(IVec2::new(dx, 0)) && open(IVec2::new(0, dy))) {
                    continue;
                }
                let cost = if diagonal {
                    DIAGONAL_COST
                } else {
                    STRAIGHT_COST
                };
                steps.push(((at + d).as_uvec2(), cost));
            }
        }
        steps
    }

    /// The unwalkable tiles as boxes, one per run of them along a row.
    pub(crate) fn blocking_boxes(&self) -> Vec<Shape> {
        let mut boxes = Vec::new();
        if !self.is_valid() {
            return boxes;
        }
        for y in 0..self.size.y {
            let mut x = 0;
            while x < self.size.x {
                if self.is_walkable(UVec2::new(x, y)) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < self.size.x && !self.is_walkable(UVec2::new(x, y)) {
                    x += 1;
                }
                let run = (x - start) as f32 * self.tile_size;
                let low = self.origin + UVec2::new(start, y).as_vec2() * self.tile_size;
                boxes.push(Shape::Box {
                    centre: (low + Vec2::new(run, self.tile_size) * 0.5).extend(0.0),
                    half_extents: Vec3::new(run, self.tile_size, self.tile_size) * 0.5,
                    rotation: Quat::IDENTITY,
                });
            }
        }
        boxes
    }

    fn index(&self, tile: UVec2) -> Option<usize> {
        tile.cmplt(self.size)
            .all()
            .then(|| (tile.x + tile.y * self.size.x) as usize)
    }
}

/// Moves `path` on to the furthest waypoint in a clear line from `position` (the unit cuts
/// the corners its path allows, and no more); plans it again from `position` if the unit has
/// lost sight of its waypoint (its neighbours pushed it round a corner).
fn steer_along(terrain: &Terrain, position: Vec3, path: &mut PlannedPath) {
    let last = path.waypoints.len().saturating_sub(1);
    while path.next < last && terrain.is_clear_line(position, path.waypoints[path.next + 1]) {
        path.next += 1;
    }
    let Some(&waypoint) = path.waypoints.get(path.next) else {
        return;
    };
    if !terrain.is_clear_band(position, waypoint, 0.0)
        && let Some(destination) = path.destination
        && let Some(waypoints) = terrain.find_path(position, destination)
    {
        path.waypoints = waypoints;
        path.next = 0;
    }
}

/// The A* heuristic on 8-connected tiles: exact where nothing is in the way.
fn octile_distance(a: UVec2, b: UVec2) -> u32 {
    let d = (a.as_ivec2() - b.as_ivec2()).abs().as_uvec2();
    let (short, long) = (d.x.min(d.y), d.x.max(d.y));
    DIAGONAL_COST * short + STRAIGHT_COST * (long - short)
}

/// Sends an agent to a point across the [`Terrain`] (seed 003's hybrid pathfinding): the plugin
/// plans a path by A* (a [`PlannedPath`]), re-plans it when the destination or the terrain
/// changes, and steers the agent along it by setting its [`Target`] to each waypoint in turn,
/// the last being the destination itself, where the agent arrives and settles. Without a
/// terrain the path is the destination alone.
///
/// While an agent has a destination, the plugin owns its [`Target`]; remove the destination
/// to steer the agent yourself again. A [`Combatant`] that sees an enemy within its
/// [`sight`](Combatant::sight) leaves its path for the nearest such enemy, where its standoff
/// holds it at its weapon's range (seed 003's hand-over from path finding to flocking), and
/// takes up its path again once none is in sight.
///
/// On a [`Flock`](crate::Flock) entity it sends the whole flock as a squad: each member gets
/// its own place in a [`Formation`](crate::Formation) round the point as its destination.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[require(PlannedPath)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Destination(pub Vec3);

/// The path the plugin planned toward an agent's [`Destination`]. Written by the plugin.
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct PlannedPath {
    /// The destination this path leads to.
    pub destination: Option<Vec3>,
    /// The waypoints, the destination last; empty when no path was found.
    pub waypoints: Vec<Vec3>,
    /// The waypoint the agent is heading for.
    pub next: usize,
}

/// An agent with a destination, its path and its target.
type Following = (
    Entity,
    &'static Transform,
    Ref<'static, Destination>,
    &'static mut PlannedPath,
    &'static mut Target,
    Option<&'static Combatant>,
);

/// Plans paths for agents whose destination or terrain changed (or that have none), then
/// moves each agent's target along its path, or, for a combatant that sees an enemy, to the
/// nearest enemy in sight.
pub(crate) fn follow_paths(
    terrain: Option<Res<Terrain>>,
    mut agents: Query<Following, With<Agent>>,
    combatants: Query<(Entity, &Combatant, &GlobalTransform)>,
    mut reporter: Reporter,
    mut warned_invalid: Local<bool>,
) {
    if let Some(terrain) = terrain.as_ref()
        && !terrain.is_valid()
        && !*warned_invalid
    {
        warn!(
            "bevy_flock: the Terrain's tile size {} must be positive and finite and its origin finite; it is ignored (reported once)",
            terrain.tile_size()
        );
        *warned_invalid = true;
    }
    let terrain = terrain.filter(|t| t.is_valid());
    let replan_all = terrain.as_ref().is_some_and(|t| t.is_changed());
    let fighters: Vec<(Entity, Combatant, Vec3)> = combatants
        .iter()
        .filter(|(_, c, _)| c.is_valid())
        .map(|(e, c, t)| (e, *c, t.translation()))
        .collect();
    for (entity, transform, destination, mut path, mut target, unit) in &mut agents {
        let position = transform.translation;
        if replan_all || destination.is_changed() || path.destination != Some(destination.0) {
            let waypoints = match &terrain {
                Some(terrain) => terrain.find_path(position, destination.0).unwrap_or_else(|| {
                    reporter.warn_once(
                        entity,
                        "no path",
                        &format!(
                            "has no path across the terrain from {position} to its destination {}; it stays where it is",
                            destination.0
                        ),
                    );
                    Vec::new()
                }),
                None => vec![destination.0],
            };
            *path = PlannedPath {
                destination: Some(destination.0),
                waypoints,
                next: 0,
            };
        }
        if let Some(terrain) = &terrain {
            steer_along(terrain, position, &mut path);
        }
        let in_sight = unit
            .filter(|u| u.is_valid() && u.sight > 0.0)
            .and_then(|u| nearest_enemy_in_sight(u, position, &fighters, terrain.as_deref()));
        let wanted = match (in_sight, path.waypoints.get(path.next)) {
            (Some(enemy), _) => Target::Entity(enemy),
            (None, Some(&waypoint)) => Target::Point(waypoint),
            (None, None) => Target::None,
        };
        target.set_if_neq(wanted);
    }
}

/// The nearest enemy of `unit` (at `position`) within its sight and in a clear line across
/// the terrain, if any.
fn nearest_enemy_in_sight(
    unit: &Combatant,
    position: Vec3,
    fighters: &[(Entity, Combatant, Vec3)],
    terrain: Option<&Terrain>,
) -> Option<Entity> {
    fighters
        .iter()
        .filter(|(_, other, _)| other.team != unit.team)
        .map(|&(enemy, _, at)| (enemy, at.distance(position), at))
        .filter(|&(_, distance, at)| {
            distance <= unit.sight && terrain.is_none_or(|t| t.is_clear_band(position, at, 0.0))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map(|(enemy, ..)| enemy)
}
