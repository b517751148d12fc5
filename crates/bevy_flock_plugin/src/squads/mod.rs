//! [`SquadsPlugin`]: RTS movement. Agents sent to a [`Destination`] along a path, flocks sent
//! as squads into a [`Formation`], [`Combatant`]s that hold their standoff distance, and
//! [`PotentialField`] steering as the alternative to flocking.

mod combat;
mod paths;

use bevy::prelude::*;

pub use combat::{Combatant, PotentialField, SUPPORT_MARGIN, UNARMED_MARGIN};
pub(crate) use paths::Ground;
pub use paths::{Destination, PlannedPath};

use crate::plugin::{FlockingSchedule, Step};
use crate::{Flock, FlockMembers, Perception};

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
            .register_type::<Formation>()
            .register_type::<Combatant>()
            .register_type::<PotentialField>()
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
);

/// Gives each member of a squad whose destination, members or ground changed its place in
/// the formation, as its own [`Destination`].
fn assign_formation_places(
    mut squads: Query<Squad, With<Flock>>,
    transforms: Query<&Transform>,
    ground: Ground,
    mut commands: Commands,
) {
    let ground_changed = ground.is_changed();
    for (squad, destination, members, perception, formation) in &mut squads {
        let goal = destination.0;
        if !(ground_changed
            || destination.is_changed()
            || members.is_changed()
            || formation
                .as_ref()
                .is_none_or(|f| f.destination != Some(goal)))
        {
            continue;
        }
        // The squad comes in from where its first member is.
        let first = members.iter().find_map(|m| transforms.get(m).ok());
        let from = first.map_or(goal, |t| t.translation);
        let spacing = (perception.separation_radius * PLACE_SPACING).max(f32::EPSILON);
        let places = formation_places(&ground, goal, spacing, members.len(), from);
        // The members nearest the destination take the places furthest in, in turn.
        let mut by_distance: Vec<(f32, Entity)> = members
            .iter()
            .filter_map(|m| {
                let at = transforms.get(m).ok()?.translation;
                Some((at.distance_squared(goal), m))
            })
            .collect();
        by_distance.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut assigned = Vec::with_capacity(by_distance.len());
        for (k, (_, member)) in by_distance.into_iter().enumerate() {
            // Out of places (a squad larger than the ground round the goal): the goal itself.
            let place = places.get(k).copied().unwrap_or(goal);
            commands.entity(member).insert(Destination(place));
            assigned.push((member, place));
        }
        let placed = Formation {
            destination: Some(goal),
            places: assigned,
        };
        match formation {
            Some(mut formation) => *formation = placed,
            None => {
                commands.entity(squad).insert(placed);
            }
        }
    }
}

/// `count` places `spacing` apart round `goal` for a squad coming from `from`, furthest in
/// first: each walkable for half a spacing round it (a member there keeps off the walls) and in
/// sight of the goal; "in" is away from where the path from `from` arrives (its last turn).
fn formation_places(
    ground: &Ground,
    goal: Vec3,
    spacing: f32,
    count: usize,
    from: Vec3,
) -> Vec<Vec3> {
    let margins =
        [Vec3::ZERO, Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y].map(|d| d * spacing * 0.5);
    let usable = |place: Vec3| {
        margins.iter().all(|&m| ground.is_walkable_at(place + m))
            && ground.is_clear_line(goal, place)
    };
    let mut places = hexagonal_places(goal, spacing, count, usable);
    let approach = ground
        .find_path(from, goal)
        .and_then(|path| path.len().checked_sub(2).map(|k| path[k]))
        .unwrap_or(from);
    places.sort_by(|a, b| {
        b.distance_squared(approach)
            .total_cmp(&a.distance_squared(approach))
    });
    places
}
