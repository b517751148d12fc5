//! Combat: units of other teams keep their standoff distance from each other, and potential
//! fields as the alternative to flocking for squads.

use bevy::prelude::*;

use super::paths::Ground;
use crate::diagnostics::Reporter;
use crate::{Flock, FlockSimulation, InFlock, Perception};

/// A unit of a side in an RTS fight: units of other teams are its enemies, and it keeps
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
    /// How far it sees: a unit on its way to a [`Destination`](crate::Destination) that sees an
    /// enemy this near, in a clear line across the terrain, leaves its path for the enemy (path
    /// finding hands over to flocking); zero never does.
    pub sight: f32,
}

/// How far outside an enemy's weapon range a unit that cannot attack keeps.
pub const SUPPORT_MARGIN: f32 = 5.0;
/// How far beyond its radius a unit keeps from an enemy when neither can attack.
pub const UNARMED_MARGIN: f32 = 10.0;

impl Combatant {
    /// How far this unit keeps from `enemy`, by the three cases above.
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
pub(super) fn keep_standoff(
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

/// Potential-field steering, the classic RTS alternative to flocking, for comparison, on the
/// plane: members of a flock with this component do not flock; each steers down a potential
/// summed over every object on the map: its [`Target`](crate::Target) (the next waypoint of its
/// path) pulls, and every unwalkable tile of the `Terrain`, every squad-mate and every enemy
/// [`Combatant`] nearer than its standoff distance pushes. Each object's field covers the whole
/// map, so the work per unit grows with the map and the unit count: the benchmark's squads
/// section measures it against flocking.
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
pub(super) fn steer_by_potential_field(
    mut sim: ResMut<FlockSimulation>,
    squads: Query<(&PotentialField, &Perception), With<Flock>>,
    units: Query<FieldUnit, With<crate::Agent>>,
    combatants: Query<(&Combatant, &GlobalTransform)>,
    ground: Ground,
) {
    if squads.is_empty() {
        return;
    }
    let started = bevy::platform::time::Instant::now();
    let walls = ground.wall_centres();
    let half_tile = ground.half_tile();
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
