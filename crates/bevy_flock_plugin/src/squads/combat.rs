//! Combat: units of other teams keep their standoff distance from each other, and potential
//! fields as the alternative to flocking for squads.

use bevy::math::I64Vec3;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::ground::Ground;
use crate::agent_order::sort_ids_first;
use crate::diagnostics::Reporter;
use crate::{AgentId, Flock, FlockSimulation, InFlock, Perception};

/// A unit of a side in an RTS fight: units of other teams are its enemies, and it keeps
/// a standoff distance from each (weighted by [`FlockWeights::standoff`](crate::FlockWeights::standoff)):
///
/// - a unit that can attack keeps at its weapon's range;
/// - one that cannot (support) keeps outside the enemy's weapon range plus 5;
/// - when neither can attack, it keeps its radius plus 10 away.
///
/// Enemies are any entities with a `Combatant` and a transform, agents or not. Each tick they
/// are binned in a grid as wide as the farthest a unit reacts from, and each unit checks the
/// enemies of the cells within its reach.
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
    units: Query<(Entity, &Combatant, &GlobalTransform, Option<&AgentId>)>,
    mut reporter: Reporter,
) {
    // Sums over enemies run in the order of their ids, whatever the order Bevy stores them in.
    let mut units: Vec<_> = units.iter().collect();
    sort_ids_first(&mut units, |unit| unit.3.map(|id| id.0));
    let combatants: Vec<(Entity, Combatant, Vec3)> = units
        .iter()
        .copied()
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
    // The farthest any unit can react to an enemy from: its standoff plus its braking distance
    // at its speed. Enemies are binned in cells that wide, so that a unit reads only the few
    // cells within its own reach instead of every enemy.
    let longest_range = combatants
        .iter()
        .filter_map(|(_, enemy, _)| enemy.weapon_range)
        .fold(0.0, f32::max);
    let reach_of = |i: usize, unit: &Combatant| {
        let crowd = sim.crowd();
        let limits = crowd.params_of(i).limits;
        let speed = crowd.velocity(i).length();
        // At least the standoff from any enemy (see `Combatant::standoff`).
        let widest = unit
            .weapon_range
            .unwrap_or((longest_range + SUPPORT_MARGIN).max(unit.radius + UNARMED_MARGIN));
        widest + speed * speed / (2.0 * limits.max_force.max(f32::EPSILON))
    };
    let mut reaches = Vec::new();
    for &(entity, unit, transform, _) in &units {
        let Some(i) = sim.index_of(entity) else {
            continue;
        };
        if sim.crowd().params_of(i).weights.standoff == 0.0 || !unit.is_valid() {
            continue;
        }
        reaches.push((entity, *unit, transform.translation(), i, reach_of(i, unit)));
    }
    let bins = EnemyBins::new(&combatants, reaches.iter().map(|r| r.4));
    let mut near = Vec::new();
    for (entity, unit, position, i, reach) in reaches {
        let limits = sim.crowd().params_of(i).limits;
        let velocity = sim.crowd().velocity(i);
        let mut away = Vec3::ZERO;
        let mut depth: f32 = 0.0;
        // In the order of `combatants`, as when every one was read: the same sums, bit for bit.
        bins.within(position, reach, unit.team, &mut near);
        for &k in &near {
            let (_, enemy, at) = &combatants[k as usize];
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

/// Combatants by cell of a uniform grid, for [`keep_standoff`]: each cell's are sorted by team,
/// so that a unit reads only other teams' (a squad's own units crowd its cells).
struct EnemyBins {
    /// Cell side: the largest finite reach of a unit (at least 1), so that a unit reads at most
    /// two cells along each axis.
    cell: f32,
    /// By cell: `(team, index)` of its combatants, ascending.
    cells: HashMap<IVec3, Vec<(u32, u32)>>,
    /// `(team, index)` of every combatant, ascending by index, for a unit whose reach spans
    /// more cells than there are combatants.
    all: Vec<(u32, u32)>,
}

impl EnemyBins {
    fn new(combatants: &[(Entity, Combatant, Vec3)], reaches: impl Iterator<Item = f32>) -> Self {
        let cell = reaches.filter(|r| r.is_finite()).fold(1.0, f32::max);
        let mut bins = Self {
            cell,
            cells: HashMap::default(),
            all: combatants
                .iter()
                .enumerate()
                .map(|(k, (_, combatant, _))| (combatant.team, k as u32))
                .collect(),
        };
        for (&entry, (_, _, at)) in bins.all.iter().zip(combatants) {
            let cell = bins.cell_of(*at);
            bins.cells.entry(cell).or_default().push(entry);
        }
        for list in bins.cells.values_mut() {
            list.sort_unstable();
        }
        bins
    }

    fn cell_of(&self, p: Vec3) -> IVec3 {
        (p / self.cell).floor().as_ivec3()
    }

    /// Fills `near` with the index of every combatant not of `team` within `reach` of
    /// `position` (and maybe some farther), in ascending order.
    fn within(&self, position: Vec3, reach: f32, team: u32, near: &mut Vec<u32>) {
        near.clear();
        // A little wider than the reach, for the rounding of the cells' bounds.
        let grown = reach * (1.0 + 1e-4) + 1e-3;
        let (lo, hi) = (
            self.cell_of(position - grown),
            self.cell_of(position + grown),
        );
        let span = (hi.as_i64vec3() - lo.as_i64vec3() + 1).max(I64Vec3::ZERO);
        let cells = span.x.saturating_mul(span.y).saturating_mul(span.z);
        let others = |&(t, k): &(u32, u32)| (t != team).then_some(k);
        if !grown.is_finite() || !position.is_finite() || cells > self.all.len() as i64 {
            near.extend(self.all.iter().filter_map(others));
            return;
        }
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    if let Some(list) = self.cells.get(&IVec3::new(x, y, z)) {
                        // The team's own run, skipped.
                        let start = list.partition_point(|&(t, _)| t < team);
                        let end = start + list[start..].partition_point(|&(t, _)| t == team);
                        near.extend(list[..start].iter().chain(&list[end..]).map(|&(_, k)| k));
                    }
                }
            }
        }
        near.sort_unstable();
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
    Option<&'static AgentId>,
);

/// Steers every member of a flock with a [`PotentialField`] down its summed field, in place of
/// the force the flocking rules (and standoffs) gave it this tick.
pub(super) fn steer_by_potential_field(
    mut sim: ResMut<FlockSimulation>,
    squads: Query<(&PotentialField, &Perception), With<Flock>>,
    units: Query<FieldUnit, With<crate::Agent>>,
    combatants: Query<(&Combatant, &GlobalTransform, Option<&AgentId>)>,
    ground: Ground,
) {
    if squads.is_empty() {
        return;
    }
    let started = bevy::platform::time::Instant::now();
    let walls = ground.wall_centres();
    let half_tile = ground.half_tile();
    // Sums over mates and enemies run in the order of their ids, whatever the order Bevy
    // stores them in.
    let mut units: Vec<_> = units.iter().collect();
    sort_ids_first(&mut units, |unit| unit.4.map(|id| id.0));
    let mut combatants: Vec<_> = combatants.iter().collect();
    sort_ids_first(&mut combatants, |unit| unit.2.map(|id| id.0));
    let members: Vec<(Entity, Vec3)> = units
        .iter()
        .filter(|(.., squad, _)| squads.contains(squad.0))
        .map(|(_, transform, _, squad, _)| (squad.0, transform.translation()))
        .collect();
    for &(entity, transform, unit, squad, _) in &units {
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
            for &(enemy, at, _) in &combatants {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combatant of another team within reach comes out of the bins, in ascending order,
    /// and none of the unit's own team, checked against reading every combatant; so do all of
    /// the other teams' for a reach too wide to bin.
    #[test]
    fn binned_enemies_hold_every_one_in_reach() {
        let mut unit = crate::testing::unit_generator(0x2545_F491_4F6C_DD1D);
        let combatants: Vec<(Entity, Combatant, Vec3)> = (0..500)
            .map(|k| {
                let at = Vec3::new(unit() * 100.0 - 50.0, unit() * 100.0 - 50.0, 0.0);
                let combatant = Combatant {
                    team: (unit() * 4.0) as u32,
                    radius: 0.35,
                    weapon_range: Some(4.0),
                    sight: 0.0,
                };
                (Entity::from_raw_u32(k).unwrap(), combatant, at)
            })
            .collect();
        let bins = EnemyBins::new(&combatants, [5.0, 3.0, f32::INFINITY].into_iter());
        let mut near = Vec::new();
        let mut found = 0;
        for _ in 0..200 {
            let position = Vec3::new(unit() * 120.0 - 60.0, unit() * 120.0 - 60.0, 0.0);
            let reach = unit() * 5.0;
            let team = (unit() * 4.0) as u32;
            bins.within(position, reach, team, &mut near);
            assert!(near.is_sorted(), "{near:?}");
            for (k, (_, combatant, at)) in combatants.iter().enumerate() {
                let listed = near.contains(&(k as u32));
                if combatant.team == team {
                    assert!(!listed, "combatant {k} of the unit's own team {team} read");
                } else if position.distance(*at) <= reach {
                    assert!(listed, "enemy {k} at {at} missed");
                    found += 1;
                }
            }
            // A cell's worth of enemies, not all of them.
            assert!(near.len() < combatants.len() / 4, "{} read", near.len());
        }
        assert!(found > 100, "the queries found enemies: {found}");
        bins.within(Vec3::ZERO, 1e6, 2, &mut near);
        let others: Vec<u32> = (0..combatants.len() as u32)
            .filter(|&k| combatants[k as usize].1.team != 2)
            .collect();
        assert_eq!(near, others);
    }
}
