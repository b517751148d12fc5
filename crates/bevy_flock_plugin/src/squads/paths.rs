//! Agents following the paths planned to their destinations.

use std::sync::{Mutex, PoisonError};

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::QueryItem;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::changes::Changes;
use super::combat::{Combatant, PotentialField};
use super::ground::{Ground, GroundChange};
use super::progress::SquadProgress;
use crate::agent_order::{for_each_by_id, sort_ids_first};
use crate::components::{Agent, AgentId, Flock, InFlock, Target};
use crate::destination::{Destination, PathNotFound, PathStatus, Planned, PlannedPath, WayAhead};
use crate::diagnostics::Reporter;

impl Ground<'_> {
    /// Moves `path` on to the furthest waypoint in a clear line from `position` (the unit cuts
    /// the corners its path allows, and no more) or past the one it has reached. Each check
    /// is of a line no longer than the unit looks ahead (see [`Ground::look_ahead`]): a corner
    /// is cut only toward a waypoint that near, so that following a long path costs no more a
    /// tick than following a short one. Asks nothing of the planner: units move on in
    /// parallel. Reads the path's waypoints past the two of `ahead` only as it moves on.
    fn move_on(&self, position: Vec3, path: &mut Mut<PlannedPath>, ahead: &mut WayAhead) {
        let reach = self.look_ahead();
        let toward = |to: Vec3| position + (to - position).clamp_length_max(reach);
        while let (Some(waypoint), Some(after)) = (ahead.waypoint, ahead.after) {
            // Toward a far waypoint, only from the one before, whose leg to it is clear.
            let near = position.distance(after) <= reach
                || position.distance(waypoint) <= self.half_tile() * 2.0;
            if !(near && self.is_clear_line_noting(position, toward(after), &mut ahead.checks)) {
                break;
            }
            *ahead = WayAhead::of(path, ahead.next + 1);
        }
        if path.next != ahead.next {
            path.next = ahead.next;
        }
    }

    /// Whether a unit at `position` sees the waypoint `ahead` (or the look-ahead's share of
    /// the line to it), or has none left; what was measured is kept in `ahead` for the next
    /// tick, and whether it saw one.
    fn sees_way(&self, position: Vec3, ahead: &mut WayAhead) -> bool {
        let checks = &mut ahead.checks;
        let seen = ahead
            .waypoint
            .map(|w| self.sees_waypoint(position, w, checks));
        ahead.in_sight = seen == Some(true);
        seen.unwrap_or(true)
    }

    /// [`move_on`](Self::move_on), then, if the unit has lost sight of its way (its
    /// neighbours pushed it round a corner), mends its path: plans from `position` to the last
    /// waypoint still ahead within its look-ahead (the one it lost if none is) and keeps the
    /// rest, which still stands. A short search, where one to the destination searches the
    /// whole way again; and the later the waypoint, the shorter the way (the rest is the
    /// shortest from it). A unit waiting for a new path keeps waiting for it. Leaves `ahead`
    /// as the path now has it.
    fn steer_along(
        &mut self,
        who: Entity,
        position: Vec3,
        path: &mut Mut<PlannedPath>,
        ahead: &mut WayAhead,
    ) {
        *ahead = WayAhead::of(path, path.next);
        self.move_on(position, path, ahead);
        if path.status != PathStatus::Found || self.sees_way(position, ahead) {
            return;
        }
        let reach = self.look_ahead();
        let remaining = path.next..path.waypoints.len();
        let Some(rejoin) = (remaining.clone().rev())
            .find(|&k| path.waypoints[k].distance(position) <= reach)
            .or_else(|| remaining.clone().next())
        else {
            return;
        };
        if let Planned::Ready(mut waypoints) = self.plan(who, position, path.waypoints[rejoin]) {
            waypoints.extend_from_slice(&path.waypoints[rejoin + 1..]);
            path.waypoints = waypoints;
            path.next = 0;
            *ahead = WayAhead::of(path, 0);
        }
    }
}

/// An agent with a destination, its path, its target and its flock.
type Following = (
    Entity,
    &'static Transform,
    Ref<'static, Destination>,
    &'static mut PlannedPath,
    &'static mut WayAhead,
    &'static mut Target,
    Option<&'static Combatant>,
    Option<&'static InFlock>,
    Option<&'static AgentId>,
);

/// Plans paths for agents whose destination changed, or whose path a new wall crosses (or
/// that had none while the terrain changed), then moves each agent's target along its path,
/// or, for a combatant that sees an enemy, to the nearest enemy in sight. Members of a squad
/// leave re-planning for a new wall to their squad, which plans once for all of them. Agents
/// ask the planner in [`ids_first`](crate::agent_order::ids_first) order, so that who is
/// answered first hangs on the ids; those that need not ask move on in parallel.
pub(super) fn follow_paths(
    mut ground: Ground,
    mut agents: Query<Following, With<Agent>>,
    flocks: Query<(Entity, Has<Destination>, Has<PotentialField>), With<Flock>>,
    combatants: Query<(Entity, &Combatant, &GlobalTransform, Option<&AgentId>)>,
    mut no_path: NoPathReports,
    mut progress: ResMut<SquadProgress>,
    changes: Changes,
) {
    let change = ground.changes(&mut progress.paths_saw, &changes);
    // In id order, so that of two enemies equally near the one with the lower id is taken.
    let mut fighters: Vec<_> = (combatants.iter())
        .filter(|(_, c, ..)| c.is_valid())
        .map(|(e, c, t, id)| (e, *c, t.translation(), id.map(|id| id.0)))
        .collect();
    sort_ids_first(&mut fighters, |fighter| fighter.3);
    let fighters: Vec<(Entity, Combatant, Vec3)> = (fighters.into_iter())
        .map(|(e, c, at, _)| (e, c, at))
        .collect();
    // The flocks that steer down a potential field.
    let fields: EntityHashSet = (flocks.iter())
        .filter_map(|(flock, _, field)| field.then_some(flock))
        .collect();
    let for_the_planner = move_on_alone(
        &ground,
        &mut agents,
        (&change, &changes),
        &fighters,
        &fields,
    );
    if for_the_planner.is_empty() {
        return;
    }
    let follow = |agent: QueryItem<Following>| {
        let (entity, transform, destination, mut path, mut ahead, mut target, unit, flock, _) =
            agent;
        if !for_the_planner.contains(&entity) {
            return;
        }
        let position = transform.translation;
        // A destination set again (by game code, not with a path of the squad's) counts as new.
        let new_goal = path.destination != Some(destination.0)
            || (changes.of(&destination) && !changes.of(&path));
        // A path written this tick (a squad's) was planned on the ground as it is.
        let in_squad = flock.is_some_and(|f| flocks.get(f.0).is_ok_and(|(_, squad, _)| squad));
        let stale = !changes.of(&path) && !in_squad && is_stale(&ground, &change, position, &path);
        let asked = match path.status {
            PathStatus::Planning => true,
            PathStatus::NoPath => ground.has_request(entity),
            PathStatus::Found => false,
        };
        if new_goal || stale || asked {
            let order = Order {
                who: entity,
                position,
                destination: destination.0,
                new_goal,
            };
            replan_reporting(&mut ground, &order, &mut path, &mut no_path);
        }
        // A unit that moved on alone and lost sight of its way moves on no further here (the
        // checks answer as before), and plans.
        ground.steer_along(entity, position, &mut path, &mut ahead);
        let wanted = wanted_target(&ground, &fighters, position, unit, &ahead);
        ahead.in_sight = ahead.sees(&wanted) && seeks_its_target(&fields, flock);
        target.set_if_neq(wanted);
    };
    for_each_by_id(
        &mut agents,
        |agent| (agent.0, agent.8.map(|id| id.0)),
        follow,
    );
}

/// Moves on along its path, and gives its target to, each unit whose destination and path
/// stand and that still sees its way: those checks, most of following's work, run in
/// parallel. Returns the rest, which need the planner: it answers them one by one, in id
/// order.
fn move_on_alone(
    ground: &Ground,
    agents: &mut Query<Following, With<Agent>>,
    (change, changes): (&GroundChange, &Changes),
    fighters: &[(Entity, Combatant, Vec3)],
    fields: &EntityHashSet,
) -> EntityHashSet {
    let for_the_planner = Mutex::new(EntityHashSet::default());
    agents.par_iter_mut().for_each(|agent| {
        let (entity, transform, destination, mut path, mut ahead, mut target, unit, flock, _) =
            agent;
        // Only following reads the way ahead: no one watches it change.
        let ahead = ahead.bypass_change_detection();
        let position = transform.translation;
        let stands = path.destination == Some(destination.0)
            && !changes.of(&destination)
            && path.status == PathStatus::Found
            && !is_stale(ground, change, position, &path);
        if stands {
            // Following keeps the way ahead as it changes the path; anything else that
            // changed the path since following last ran leaves it to be taken again.
            if path.is_changed() {
                *ahead = WayAhead::of(&path, path.next);
            }
            ground.move_on(position, &mut path, ahead);
            if ground.sees_way(position, ahead) {
                let wanted = wanted_target(ground, fighters, position, unit, ahead);
                ahead.in_sight = ahead.sees(&wanted) && seeks_its_target(fields, flock);
                target.set_if_neq(wanted);
                return;
            }
        }
        let mut waiting = for_the_planner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        waiting.insert(entity);
    });
    for_the_planner
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Whether a unit of `flock` seeks its target: a member of a flock with a [`PotentialField`]
/// (one of `fields`) steers down the field instead, its heading no guide to where its path
/// goes, so that it keeps looking ahead along its heading.
fn seeks_its_target(fields: &EntityHashSet, flock: Option<&InFlock>) -> bool {
    flock.is_none_or(|flock| !fields.contains(&flock.0))
}

/// Where a unit at `position` heads: the nearest enemy in its sight (for a combatant), else
/// the waypoint `ahead` on its path, else nowhere.
fn wanted_target(
    ground: &Ground,
    fighters: &[(Entity, Combatant, Vec3)],
    position: Vec3,
    unit: Option<&Combatant>,
    ahead: &WayAhead,
) -> Target {
    let in_sight = unit
        .filter(|u| u.is_valid() && u.sight > 0.0)
        .and_then(|u| nearest_enemy_in_sight(u, position, fighters, ground));
    match (in_sight, ahead.waypoint) {
        (Some(enemy), _) => Target::Entity(enemy),
        (None, Some(waypoint)) => Target::Point(waypoint),
        (None, None) => Target::None,
    }
}

/// Whether the ground has changed (`change`) under the way of a unit at `position` along
/// `path`: every path when the ground was replaced; one with none, or one that a wall now
/// crosses, when walls were raised.
fn is_stale(ground: &Ground, change: &GroundChange, position: Vec3, path: &PlannedPath) -> bool {
    let remaining = &path.waypoints[path.next.min(path.waypoints.len())..];
    match change {
        GroundChange::None => false,
        GroundChange::All => true,
        GroundChange::Blocked(tiles) => {
            path.status == PathStatus::NoPath || ground.crosses(position, remaining, tiles)
        }
    }
}

/// An agent's order to plan for: who, from where, to where, and whether the destination is
/// new.
struct Order {
    who: Entity,
    position: Vec3,
    destination: Vec3,
    new_goal: bool,
}

/// Where agents are told they have no path: a warning once, and a [`PathNotFound`].
#[derive(SystemParam)]
pub(super) struct NoPathReports<'w, 's> {
    reporter: Reporter<'w>,
    commands: Commands<'w, 's>,
}

/// [`replan`]s `order` into `path`, and where no path joins its ends (for a new goal, or
/// newly), warns once and triggers [`PathNotFound`].
fn replan_reporting(
    ground: &mut Ground,
    order: &Order,
    path: &mut PlannedPath,
    reports: &mut NoPathReports,
) {
    let Order {
        who,
        position,
        destination,
        new_goal,
    } = *order;
    let had = path.status;
    replan(ground, who, position, destination, path, new_goal);
    if path.status == PathStatus::NoPath && (new_goal || had != PathStatus::NoPath) {
        reports.reporter.warn_once(
            who,
            "no path",
            &format!(
                "has no path across the terrain from {position} to its destination {destination}; it stays where it is"
            ),
        );
        reports.commands.trigger(PathNotFound {
            entity: who,
            destination,
        });
    }
}

/// Asks the ground for `who`'s path to `destination` and writes what it says into `path`:
/// the new waypoints, or, while it waits, the old ones (none for a `new_goal`), or none. A
/// path with none stays so while it waits.
fn replan(
    ground: &mut Ground,
    who: Entity,
    position: Vec3,
    destination: Vec3,
    path: &mut PlannedPath,
    new_goal: bool,
) {
    let planned = ground.plan(who, position, destination);
    let (waypoints, status) = match planned {
        Planned::Ready(waypoints) => (waypoints, PathStatus::Found),
        Planned::NoPath => (Vec::new(), PathStatus::NoPath),
        Planned::Waiting if new_goal => (Vec::new(), PathStatus::Planning),
        Planned::Waiting => {
            if path.status == PathStatus::Found {
                path.status = PathStatus::Planning;
            }
            return;
        }
    };
    *path = PlannedPath {
        destination: Some(destination),
        waypoints,
        next: 0,
        status,
    };
}

/// The nearest enemy of `unit` (at `position`) within its sight and in a clear line across
/// the ground, if any; of several equally near, the first of `fighters`.
fn nearest_enemy_in_sight(
    unit: &Combatant,
    position: Vec3,
    fighters: &[(Entity, Combatant, Vec3)],
    ground: &Ground,
) -> Option<Entity> {
    fighters
        .iter()
        .filter(|(_, other, _)| other.team != unit.team)
        .map(|&(enemy, _, at)| (enemy, at.distance(position), at))
        .filter(|&(_, distance, at)| distance <= unit.sight && ground.sees(position, at))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(enemy, ..)| enemy)
}
