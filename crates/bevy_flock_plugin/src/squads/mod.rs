//! [`SquadsPlugin`]: RTS movement. Agents sent to a [`Destination`] along a path, flocks sent
//! as squads into a [`Formation`], [`Combatant`]s that hold their standoff distance, and
//! [`PotentialField`] steering as the alternative to flocking.

mod changes;
mod combat;
mod ground;
mod paths;
mod progress;

use bevy::ecs::query::QueryItem;
use bevy::prelude::*;

pub use combat::{Combatant, PotentialField, SUPPORT_MARGIN, UNARMED_MARGIN};

use crate::Perception;
use crate::agent_order::{for_each_by_id, ids_first};
use crate::components::{AgentId, Flock, FlockMembers};
use crate::destination::{Destination, PathStatus, Planned, PlannedPath};
use crate::schedule::{FlockingSchedule, Step};
use changes::Changes;
use ground::{Ground, GroundChange};
pub(crate) use progress::SquadProgress;

/// RTS movement, opt in (add it after [`FlockingPlugins`](crate::FlockingPlugins)):
///
/// - a [`Destination`] on an agent sends it there along a [`PlannedPath`] (across the
///   `Terrain` by A* with the `pathfinding` feature and `TerrainPlugin`, else straight);
/// - a [`Destination`] on a flock sends it as a squad, each member to its own place in a
///   [`Formation`] round the point;
/// - [`Combatant`]s keep their standoff distance from units of other teams (weighted by
///   [`FlockWeights::standoff`](crate::FlockWeights::standoff)), and one on its way that sees
///   an enemy leaves its path for it;
/// - members of a flock with a [`PotentialField`] steer down a summed potential instead of
///   flocking.
pub struct SquadsPlugin;

impl Plugin for SquadsPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "SquadsPlugin");
        app.register_type::<Destination>()
            .register_type::<PlannedPath>()
            .register_type::<PathStatus>()
            .register_type::<Formation>()
            .register_type::<Combatant>()
            .register_type::<PotentialField>()
            .init_resource::<SquadProgress>()
            .add_systems(
                schedule,
                (
                    assign_formation_places.in_set(Step::Formations),
                    paths::follow_paths.in_set(Step::Paths),
                    combat::keep_standoff.in_set(Step::CopyStandoffs),
                    combat::steer_by_potential_field.in_set(Step::ReplaceForces),
                ),
            );
    }
}

/// How far apart formation places are, as a multiple of the separation radius: just outside
/// it, so that members in place do not push each other.
const PLACE_SPACING: f32 = 1.1;

/// Where each member of a squad (a [`Flock`] with a [`Destination`]) stands at the
/// destination: its own place in a hexagonal formation round it, one separation radius
/// apart (a little over), on walkable ground in sight of the destination. The squad comes in
/// from one side (where its path arrives from); the members nearest the destination, who get
/// there first, take the places furthest in, so that those behind are not blocked by those
/// already in place. The plugin writes each member's own [`Destination`]
/// from it; members seek their place with arrival and settle there, instead of jostling for
/// one point.
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct Formation {
    /// The squad's destination these places are round.
    pub destination: Option<Vec3>,
    /// Each member and its place.
    pub places: Vec<(Entity, Vec3)>,
    /// The path the squad planned to its destination (the waypoints, the destination last),
    /// which its members follow to their places; `None` when no path joins them.
    pub path: Option<Vec<Vec3>>,
}

/// The places of a hexagonal formation round `centre`, `spacing` apart, nearest first, on the
/// XY plane: as many as `wanted` of those `usable` accepts, looking at most 32 rings out.
fn hexagonal_places(
    centre: Vec3,
    spacing: f32,
    wanted: usize,
    mut usable: impl FnMut(Vec3) -> bool,
) -> Vec<Vec3> {
    let mut places = Vec::with_capacity(wanted);
    if usable(centre) {
        places.push(centre);
    }
    let corners: Vec<Vec3> = (0..6)
        .map(|k| {
            let angle = k as f32 * core::f32::consts::FRAC_PI_3;
            Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * spacing
        })
        .collect();
    for ring in 1..=32 {
        if places.len() >= wanted {
            break;
        }
        // Ring `ring` walks its six sides, `ring` places each.
        for side in 0..6 {
            let start = centre + corners[side] * ring as f32;
            let step = corners[(side + 2) % 6];
            for k in 0..ring {
                let place = start + step * k as f32;
                if usable(place) {
                    places.push(place);
                }
            }
        }
    }
    places.sort_by(|a, b| {
        a.distance_squared(centre)
            .total_cmp(&b.distance_squared(centre))
    });
    places.truncate(wanted);
    places
}

/// A squad: its destination, members and tuning, and the formation it was given.
type Squad = (
    Entity,
    Ref<'static, Destination>,
    Ref<'static, FlockMembers>,
    &'static Perception,
    Option<&'static mut Formation>,
    Option<&'static AgentId>,
);

/// Sends each squad whose destination or members changed, or whose path or places a new wall
/// took, to its destination: the squad plans one path (from its first member, through the
/// planner), and each member gets its place in the formation as its own [`Destination`], with
/// the squad's path and then its place as its [`PlannedPath`]. A squad whose path is still
/// being planned waits; one with no path gives its members their places to plan for
/// themselves, and plans again whenever the ground changes. Squads ask the planner in
/// [`ids_first`](crate::agent_order::ids_first) order.
fn assign_formation_places(
    mut squads: Query<Squad, With<Flock>>,
    transforms: Query<(&Transform, Option<&AgentId>)>,
    mut ground: Ground,
    mut commands: Commands,
    mut progress: ResMut<SquadProgress>,
    changes: Changes,
) {
    let change = ground.changes(&mut progress.formations_saw, &changes);
    let waiting = &mut progress.waiting;
    waiting.retain(|&squad| squads.contains(squad));
    let send = |squad: QueryItem<Squad>| {
        let (squad, destination, members, perception, formation, _) = squad;
        let goal = destination.0;
        let spacing = (perception.separation_radius * PLACE_SPACING).max(f32::EPSILON);
        let moved_on = changes.of(&destination)
            || changes.of(&members)
            || formation
                .as_ref()
                .is_none_or(|f| f.destination != Some(goal));
        // The squad comes in from where its first member is.
        let first = members.iter().find_map(|m| transforms.get(m).ok());
        let from = first.map_or(goal, |(t, _)| t.translation);
        let walled = match &change {
            GroundChange::None => false,
            GroundChange::All => true,
            GroundChange::Blocked(tiles) => formation.as_ref().is_some_and(|f| {
                f.path
                    .as_ref()
                    .is_none_or(|path| ground.crosses(from, path, tiles))
                    || f.places
                        .iter()
                        .any(|&(_, place)| !place_usable(&ground, goal, spacing, place))
            }),
        };
        if !(moved_on || walled || waiting.contains(&squad)) {
            return;
        }
        let path = match ground.plan(squad, from, goal) {
            Planned::Waiting => {
                waiting.insert(squad);
                return;
            }
            Planned::Ready(path) => Some(path),
            Planned::NoPath => None,
        };
        waiting.remove(&squad);
        let approach = path
            .as_ref()
            .and_then(|p| p.len().checked_sub(2).map(|k| p[k]))
            .unwrap_or(from);
        let places = formation_places(&ground, goal, spacing, members.len(), approach);
        let placed = Formation {
            destination: Some(goal),
            places: place_members(&members, &transforms, goal, &places, &path, &mut commands),
            path,
        };
        match formation {
            Some(mut formation) => *formation = placed,
            None => {
                commands.entity(squad).insert(placed);
            }
        }
    };
    for_each_by_id(&mut squads, |squad| (squad.0, squad.5.map(|id| id.0)), send);
}

/// Gives the `members` nearest `goal` the first of `places` (the furthest in), in turn, as
/// their destinations, with the squad's `path` and then the place as their paths; returns who
/// got which place.
fn place_members(
    members: &FlockMembers,
    transforms: &Query<(&Transform, Option<&AgentId>)>,
    goal: Vec3,
    places: &[Vec3],
    path: &Option<Vec<Vec3>>,
    commands: &mut Commands,
) -> Vec<(Entity, Vec3)> {
    let mut by_distance: Vec<(f32, Option<u64>, Entity)> = members
        .iter()
        .filter_map(|m| {
            let (at, id) = transforms.get(m).ok()?;
            Some((at.translation.distance_squared(goal), id.map(|id| id.0), m))
        })
        .collect();
    // Of members equally far, the one with the lower id first (by entity where unnamed).
    by_distance.sort_by(|a, b| {
        (a.0.total_cmp(&b.0))
            .then(ids_first(a.1, b.1))
            .then(a.2.cmp(&b.2))
    });
    let mut assigned = Vec::with_capacity(by_distance.len());
    for (k, (.., member)) in by_distance.into_iter().enumerate() {
        // Out of places (a squad larger than the ground round the goal): the goal itself.
        let place = places.get(k).copied().unwrap_or(goal);
        let mut member_commands = commands.entity(member);
        member_commands.insert(Destination(place));
        if let Some(path) = &path {
            let mut waypoints = path.clone();
            waypoints.push(place);
            member_commands.insert(PlannedPath {
                destination: Some(place),
                waypoints,
                next: 0,
                status: PathStatus::Found,
            });
        }
        assigned.push((member, place));
    }
    assigned
}

/// Whether `place` suits a member of a squad going to `goal` with places `spacing` apart:
/// walkable for half a spacing round it (a member there keeps off the walls), and in sight of
/// the goal.
fn place_usable(ground: &Ground, goal: Vec3, spacing: f32, place: Vec3) -> bool {
    [Vec3::ZERO, Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y]
        .iter()
        .all(|&d| ground.is_walkable_at(place + d * spacing * 0.5))
        && ground.is_clear_line(goal, place)
}

/// `count` usable places (see [`place_usable`]) `spacing` apart round `goal`, furthest first
/// from `approach`, where the squad's path arrives from.
fn formation_places(
    ground: &Ground,
    goal: Vec3,
    spacing: f32,
    count: usize,
    approach: Vec3,
) -> Vec<Vec3> {
    let usable = |place: Vec3| place_usable(ground, goal, spacing, place);
    let mut places = hexagonal_places(goal, spacing, count, usable);
    places.sort_by(|a, b| {
        b.distance_squared(approach)
            .total_cmp(&a.distance_squared(approach))
    });
    places
}
