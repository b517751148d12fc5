//! Squads: a flock sent to a point as one, each member to its own place in a formation there.

use bevy::prelude::*;

use crate::diagnostics::Reporter;
use crate::{Destination, Flock, FlockMembers, FlockSimulation, InFlock, Perception, Terrain};

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

/// Gives each member of a squad whose destination, members or terrain changed its place in
/// the formation, as its own [`Destination`].
pub(crate) fn assign_formation_places(
    mut squads: Query<Squad, With<Flock>>,
    transforms: Query<&Transform>,
    terrain: Option<Res<Terrain>>,
    mut commands: Commands,
) {
    let terrain = terrain.filter(|t| t.is_valid());
    let terrain_changed = terrain.as_ref().is_some_and(|t| t.is_changed());
    for (squad, destination, members, perception, formation) in &mut squads {
        let goal = destination.0;
        if !(terrain_changed
            || destination.is_changed()
            || members.is_changed()
            || formation
                .as_ref()
                .is_none_or(|f| f.destination != Some(goal)))
        {
            continue;
        }
        let spacing = (perception.separation_radius * PLACE_SPACING).max(f32::EPSILON);
        // Walkable for half a spacing round it (a member there keeps off the walls), and in
        // sight of the destination.
        let margins =
            [Vec3::ZERO, Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y].map(|d| d * spacing * 0.5);
        let usable = |place: Vec3| {
            terrain.as_ref().is_none_or(|t| {
                margins.iter().all(|&m| t.is_walkable_at(place + m)) && t.is_clear_line(goal, place)
            })
        };
        let mut places = hexagonal_places(goal, spacing, members.len(), usable);
        // Where the squad comes in from: the last turn of a path from its first member, or
        // that member itself.
        let first = members.iter().find_map(|m| transforms.get(m).ok());
        let from = first.map_or(goal, |t| t.translation);
        let approach = terrain
            .as_ref()
            .and_then(|t| t.find_path(from, goal))
            .and_then(|path| path.len().checked_sub(2).map(|k| path[k]))
            .unwrap_or(from);
        // The places furthest in first.
        places.sort_by(|a, b| {
            b.distance_squared(approach)
                .total_cmp(&a.distance_squared(approach))
        });
        // The members nearest the destination take them, in turn.
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

/// A unit of a side in a fight (seed 003): units of other teams are its enemies, and it keeps
/// a standoff distance from each (weighted by [`FlockWeights::standoff`](crate::FlockWeights::standoff)):
///
/// - a unit that can attack keeps at its weapon's range;
/// - one that cannot (support) keeps outside the enemy's weapon range plus 5;
/// - when neither can attack, it keeps its radius plus 10 away.
///
/// Enemies are any entities with a `Combatant` and a transform, agents or not. Every unit
/// checks every enemy each tick, which suits the tens to hundreds of units of a skirmish.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct Combatant {
    /// Its side.
    pub team: u32,
    /// Its body's radius.
    pub radius: f32,
    /// How far its weapon reaches, centre to centre, or `None` for a unit that cannot attack.
    pub weapon_range: Option<f32>,
    /// How far it sees: a unit on its way to a [`Destination`] that sees an enemy this near,
    /// in a clear line across the terrain, leaves its path for the enemy (seed 003's hand-over
    /// from path finding to flocking); zero never does.
    pub sight: f32,
}

/// How far outside an enemy's weapon range a unit that cannot attack keeps (seed 003).
pub const SUPPORT_MARGIN: f32 = 5.0;
/// How far beyond its radius a unit keeps from an enemy when neither can attack (seed 003).
pub const UNARMED_MARGIN: f32 = 10.0;

impl Combatant {
    /// How far this unit keeps from `enemy`, by seed 003's three cases.
    pub fn standoff(&self, enemy: &Combatant) -> f32 {
        match (self.weapon_range, enemy.weapon_range) {
            (Some(range), _) => range,
            (None, Some(range)) => range + SUPPORT_MARGIN,
            (None, None) => self.radius + UNARMED_MARGIN,
        }
    }

    /// Whether every value is finite and not negative.
    pub fn is_valid(&self) -> bool {
        self.radius.is_finite()
            && self.radius >= 0.0
            && self.sight.is_finite()
            && self.sight >= 0.0
            && self.weapon_range.is_none_or(|r| r.is_finite() && r >= 0.0)
    }
}

/// Inside this fraction of the standoff distance, a unit backs off at full speed; nearer the
/// edge, at a speed in proportion (so it holds the distance without overshooting).
const STANDOFF_BAND: f32 = 0.03;

/// Tells the kernel which way each combatant agent backs off from the enemies nearer than its
/// standoff distance, and how urgently: at max speed when [`STANDOFF_BAND`] of the distance
/// or more inside it (the kernel weights it by
/// [`FlockWeights::standoff`](crate::FlockWeights::standoff)).
pub(crate) fn keep_standoff(
    mut sim: ResMut<FlockSimulation>,
    units: Query<(Entity, &Combatant, &GlobalTransform)>,
    mut reporter: Reporter,
) {
    let enemies: Vec<(Entity, Combatant, Vec3)> = units
        .iter()
        .filter(|(entity, combatant, ..)| {
            combatant.is_valid() || {
                reporter.warn_once(
                    *entity,
                    "combatant",
                    &format!("has a combatant with a radius or weapon range that is negative or not finite ({combatant:?}); it is left out of standoffs"),
                );
                false
            }
        })
        .map(|(entity, combatant, transform, ..)| (entity, *combatant, transform.translation()))
        .collect();
    for (entity, unit, transform) in &units {
        let Some(i) = sim.index_of(entity) else {
            continue;
        };
        if sim.crowd().params_of(i).weights.standoff == 0.0 || !unit.is_valid() {
            continue;
        }
        let position = transform.translation();
        let limits = sim.crowd().params_of(i).limits;
        let velocity = sim.crowd().velocity(i);
        let mut away = Vec3::ZERO;
        let mut depth: f32 = 0.0;
        for (other, enemy, at) in &enemies {
            if *other == entity || enemy.team == unit.team {
                continue;
            }
            let standoff = unit.standoff(enemy);
            let offset = position - *at;
            // Where braking at max force from its closing speed would stop it: it starts
            // backing off that early, and so comes to rest at the standoff, not inside it.
            let closing = (-velocity.dot(offset.normalize_or_zero())).max(0.0);
            let braking = closing * closing / (2.0 * limits.max_force.max(f32::EPSILON));
            let distance = offset.length() - braking;
            if distance < standoff {
                away += offset.normalize_or(Vec3::X);
                depth =
                    depth.max((standoff - distance) / (standoff * STANDOFF_BAND).max(f32::EPSILON));
            }
        }
        if away != Vec3::ZERO {
            sim.set_standoff(entity, away, depth);
        }
    }
}

/// Potential-field steering, seed 003's alternative to flocking, for comparison, on the plane:
/// members of a flock with this component do not flock; each steers down a potential summed over every
/// object on the map: its [`Target`](crate::Target) (the next waypoint of its path) pulls, and
/// every unwalkable [`Terrain`] tile, every squad-mate and every enemy
/// [`Combatant`] nearer than its standoff distance pushes. Each object's field covers the whole
/// map, so the work per unit grows with the map and the unit count, which is what seed 003
/// measured against flocking (see the benchmark's squads section).
///
/// The sum, cut to length 1, is the fraction of max speed the unit wants to go at; it steers
/// toward that velocity with up to its max force, in place of the flock's rules.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct PotentialField {
    /// Strength of the target's pull (full at the arrival radius and beyond).
    pub goal: f32,
    /// Strength of each wall tile's push at half a tile from it, falling off with the square
    /// of the distance.
    pub walls: f32,
    /// Strength of each squad-mate's push at the separation radius, falling off with the
    /// square of the distance.
    pub mates: f32,
    /// Strength of an enemy's push at its centre, falling to nothing at the standoff distance.
    pub enemies: f32,
}

impl Default for PotentialField {
    /// Every field at strength 1.
    fn default() -> Self {
        Self {
            goal: 1.0,
            walls: 1.0,
            mates: 1.0,
            enemies: 1.0,
        }
    }
}

/// A unit steered by a potential field: where it is, its side, and its squad.
type FieldUnit = (
    Entity,
    &'static GlobalTransform,
    Option<&'static Combatant>,
    &'static InFlock,
);

/// Steers every member of a flock with a [`PotentialField`] down its summed field, in place of
/// the force the flocking rules (and standoffs) gave it this tick.
pub(crate) fn steer_by_potential_field(
    mut sim: ResMut<FlockSimulation>,
    squads: Query<(&PotentialField, &Perception), With<Flock>>,
    units: Query<FieldUnit, With<crate::Agent>>,
    combatants: Query<(&Combatant, &GlobalTransform)>,
    terrain: Option<Res<Terrain>>,
) {
    if squads.is_empty() {
        return;
    }
    let started = bevy::platform::time::Instant::now();
    let terrain = terrain.filter(|t| t.is_valid());
    let walls: Vec<Vec3> = terrain.as_ref().map_or_else(Vec::new, |t| {
        let mut centres = Vec::new();
        for y in 0..t.size().y {
            for x in 0..t.size().x {
                let tile = UVec2::new(x, y);
                if !t.is_walkable(tile) {
                    centres.push(t.centre(tile));
                }
            }
        }
        centres
    });
    let half_tile = terrain.as_ref().map_or(0.5, |t| t.tile_size() * 0.5);
    let members: Vec<(Entity, Vec3)> = units
        .iter()
        .filter(|(.., squad)| squads.contains(squad.0))
        .map(|(_, transform, _, squad)| (squad.0, transform.translation()))
        .collect();
    for (entity, transform, unit, squad) in &units {
        let Ok((field, perception)) = squads.get(squad.0) else {
            continue;
        };
        let Some(i) = sim.index_of(entity) else {
            continue;
        };
        let x = transform.translation();
        let limits = sim.crowd().params_of(i).limits;
        let mut sum = Vec3::ZERO;
        if let Some(goal) = sim.crowd().target(i) {
            let to_goal = goal - x;
            let reach = (to_goal.length() / limits.arrival_radius.max(f32::EPSILON)).min(1.0);
            sum += to_goal.normalize_or_zero() * reach * field.goal;
        }
        for &wall in &walls {
            let away = x - wall;
            let distance = (away.length() - half_tile).max(0.05 * half_tile);
            let near = half_tile / distance;
            sum += away.normalize_or_zero() * field.walls * near * near;
        }
        let spacing = perception.separation_radius.max(f32::EPSILON);
        for &(mate_squad, at) in &members {
            let away = x - at;
            let distance = away.length();
            if mate_squad == squad.0 && distance > 0.0 {
                let near = spacing / distance.max(0.1 * spacing);
                sum += away / distance * field.mates * near * near;
            }
        }
        if let Some(unit) = unit {
            for (enemy, at) in &combatants {
                if enemy.team == unit.team || !enemy.is_valid() {
                    continue;
                }
                let standoff = unit.standoff(enemy);
                let away = x - at.translation();
                let depth = (1.0 - away.length() / standoff.max(f32::EPSILON)).max(0.0);
                sum += away.normalize_or_zero() * field.enemies * depth;
            }
        }
        if !sum.is_finite() {
            continue;
        }
        let desired = sum.with_z(0.0).clamp_length_max(1.0) * limits.max_speed;
        let velocity = sim.crowd().velocity(i);
        let steering = (desired - velocity).clamp_length_max(limits.max_force);
        sim.replace_force(entity, steering);
    }
    sim.step_time += started.elapsed();
}
