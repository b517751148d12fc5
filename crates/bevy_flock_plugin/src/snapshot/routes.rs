//! The orders a snapshot holds: destinations, the paths planned to them, the squads'
//! formations and the squad systems' progress, and (with the `pathfinding` feature) the
//! terrain and its path planner.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::error::SnapshotError;
use super::units::Units;
use crate::squads::SquadProgress;
use crate::{Destination, Formation, PlannedPath};

/// What the squads and the path planner carry from tick to tick, each unit named by its id.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Routes {
    /// Agents and squads with a destination or a path, by id, ascending.
    sent: Vec<Sent>,
    /// The squad systems' state, where the world has the `SquadsPlugin`.
    squads: Option<Squads>,
    /// The terrain, its planner and what the squad systems last saw of it, in postcard's
    /// format ([`super::ground::SavedGround`]): empty where there is none of them.
    ground: Vec<u8>,
}

/// An agent or squad with a destination, or the path it planned to one.
#[derive(Debug, Serialize, Deserialize)]
struct Sent {
    id: u64,
    destination: Option<Vec3>,
    path: Option<PlannedPath>,
}

/// The squad systems' state.
#[derive(Debug, Serialize, Deserialize)]
struct Squads {
    /// Each squad's formation, by the squad's id, ascending.
    formations: Vec<(u64, SavedFormation)>,
    /// The squads waiting for their path, by id, ascending.
    waiting: Vec<u64>,
}

/// A [`Formation`], each member named by its id (`None`: a member since despawned).
#[derive(Debug, Serialize, Deserialize)]
struct SavedFormation {
    destination: Option<Vec3>,
    places: Vec<(Option<u64>, Vec3)>,
    path: Option<Vec<Vec3>>,
}

impl Routes {
    /// The orders of `world`'s `units` (read from those that carry one, not every unit).
    pub(super) fn take(world: &mut World, units: &Units) -> Self {
        let mut carrying =
            world.query_filtered::<Entity, Or<(With<Destination>, With<PlannedPath>)>>();
        let mut formed = world.query_filtered::<Entity, With<Formation>>();
        let world: &World = world;
        let mut sent: Vec<Sent> = (carrying.iter(world))
            .filter_map(|entity| {
                let id = units.id(world, entity)?;
                let unit = world.entity(entity);
                Some(Sent {
                    id,
                    destination: unit.get::<Destination>().map(|d| d.0),
                    path: unit.get::<PlannedPath>().cloned(),
                })
            })
            .collect();
        sent.sort_unstable_by_key(|unit| unit.id);
        let squads = world.get_resource::<SquadProgress>().map(|progress| {
            let mut waiting: Vec<u64> = (progress.waiting.iter())
                .filter_map(|&squad| units.id(world, squad))
                .collect();
            waiting.sort_unstable();
            let mut formations: Vec<_> = (formed.iter(world))
                .filter_map(|squad| {
                    let formation = world.get::<Formation>(squad)?;
                    Some((
                        units.id(world, squad)?,
                        save_formation(world, units, formation),
                    ))
                })
                .collect();
            formations.sort_unstable_by_key(|&(id, _)| id);
            Squads {
                formations,
                waiting,
            }
        });
        let ground = super::ground::take(world, units);
        Self {
            sent,
            squads,
            ground,
        }
    }

    /// Checks that `world` can take these orders (every unit named found, the plugins that
    /// run them added), and returns what to write.
    pub(super) fn prepare(
        &self,
        world: &mut World,
        units: &Units,
    ) -> Result<Prepared, SnapshotError> {
        let find = |id: u64| units.entity(id).ok_or(SnapshotError::UnitMissing { id });
        let ascending = |ids: &mut dyn Iterator<Item = u64>| {
            let ids: Vec<u64> = ids.collect();
            ids.is_sorted_by(|a, b| a < b)
        };
        let formations = self.squads.iter().flat_map(|s| &s.formations);
        if !ascending(&mut self.sent.iter().map(|s| s.id))
            || !ascending(&mut formations.map(|&(id, _)| id))
        {
            return Err(SnapshotError::Malformed(
                "its orders are not in ascending order of id".into(),
            ));
        }
        let mut sent = Vec::with_capacity(self.sent.len());
        for unit in &self.sent {
            sent.push((find(unit.id)?, unit.destination, unit.path.clone()));
        }
        let squads = match &self.squads {
            None => None,
            Some(_) if !world.contains_resource::<SquadProgress>() => {
                return Err(SnapshotError::PluginMissing {
                    plugin: "SquadsPlugin",
                });
            }
            Some(squads) => {
                let mut formations = Vec::with_capacity(squads.formations.len());
                for (id, saved) in &squads.formations {
                    let mut places = Vec::with_capacity(saved.places.len());
                    for &(member, place) in &saved.places {
                        let member = member.map_or(Ok(Entity::PLACEHOLDER), find)?;
                        places.push((member, place));
                    }
                    let formation = Formation {
                        destination: saved.destination,
                        places,
                        path: saved.path.clone(),
                    };
                    formations.push((find(*id)?, formation));
                }
                let waiting = squads
                    .waiting
                    .iter()
                    .map(|&id| find(id))
                    .collect::<Result<_, _>>()?;
                Some(PreparedSquads {
                    formations,
                    waiting,
                })
            }
        };
        let ground = super::ground::prepare(&self.ground, world, units)?;
        Ok(Prepared {
            sent,
            squads,
            ground,
        })
    }
}

/// `formation` with its members named by id.
fn save_formation(world: &World, units: &Units, formation: &Formation) -> SavedFormation {
    SavedFormation {
        destination: formation.destination,
        places: (formation.places.iter())
            .map(|&(member, place)| (units.id(world, member), place))
            .collect(),
        path: formation.path.clone(),
    }
}

/// The squad systems' state, its squads found.
struct PreparedSquads {
    formations: Vec<(Entity, Formation)>,
    waiting: Vec<Entity>,
}

/// Orders checked against a world, ready to write.
pub(super) struct Prepared {
    sent: Vec<(Entity, Option<Vec3>, Option<PlannedPath>)>,
    squads: Option<PreparedSquads>,
    ground: super::ground::PreparedGround,
}

impl Prepared {
    /// Writes the orders into `world`'s `units`: those the snapshot gives none lose theirs. A
    /// component the snapshot holds is written over the unit's, never removed first: a
    /// destination removed counts, next tick, as an order withdrawn. Only units that carry
    /// orders, in the world or the snapshot, are visited.
    pub(super) fn write(self, world: &mut World, units: &Units) {
        let sent: EntityHashSet = self.sent.iter().map(|&(entity, ..)| entity).collect();
        let mut carrying =
            world.query_filtered::<Entity, Or<(With<Destination>, With<PlannedPath>)>>();
        let withdrawn: Vec<Entity> = (carrying.iter(world))
            .filter(|&entity| !sent.contains(&entity) && units.id(world, entity).is_some())
            .collect();
        for entity in withdrawn {
            world
                .entity_mut(entity)
                .remove::<(Destination, PlannedPath)>();
        }
        for (entity, destination, path) in self.sent {
            let mut unit = world.entity_mut(entity);
            match destination {
                Some(destination) => unit.insert(Destination(destination)),
                None => unit.remove::<Destination>(),
            };
            match path {
                Some(path) => unit.insert(path),
                None => unit.remove::<PlannedPath>(),
            };
        }
        if let Some(PreparedSquads {
            formations,
            waiting,
        }) = self.squads
        {
            let formed: EntityHashSet = formations.iter().map(|&(squad, _)| squad).collect();
            let mut holding = world.query_filtered::<Entity, With<Formation>>();
            let dropped: Vec<Entity> = (holding.iter(world))
                .filter(|&squad| !formed.contains(&squad) && units.id(world, squad).is_some())
                .collect();
            for squad in dropped {
                world.entity_mut(squad).remove::<Formation>();
            }
            for (squad, formation) in formations {
                world.entity_mut(squad).insert(formation);
            }
            let mut progress = world.resource_mut::<SquadProgress>();
            progress.waiting = waiting.into_iter().collect();
        }
        self.ground.write(world);
    }
}
