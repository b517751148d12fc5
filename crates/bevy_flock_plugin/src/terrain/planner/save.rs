//! The path planner as a snapshot holds it: the requests waiting, in their order, the search
//! being run as far as it got, the answers not yet taken, and the work kept for reuse (paths,
//! clusters, regions half worked out), which the budget of the ticks to come depends on.

use std::collections::VecDeque;

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::super::hierarchy::Hierarchy;
use super::super::map::TerrainRevision;
use super::super::regions::RegionsBuilder;
use super::super::routes::PathQuery;
use super::super::saved::Renaming;
use super::{Active, PathPlanner, Request, Search};

/// A [`PathPlanner`] as saved, each unit named by its stable id.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SavedPlanner {
    tiles_per_tick: u32,
    /// The requests still wanted, oldest first: who, from where, to where.
    queue: Vec<(u64, Vec3, Vec3)>,
    active: Option<SavedSearch>,
    /// Answers not yet taken, by id: where to, and the path if there is one.
    answers: Vec<(u64, Vec3, Option<Vec<Vec3>>)>,
    revision: Option<TerrainRevision>,
    regions: Option<RegionsBuilder>,
    found: VecDeque<Vec<Vec3>>,
    hierarchy: Hierarchy,
}

/// The search being run, as saved.
#[derive(Debug, Serialize, Deserialize)]
struct SavedSearch {
    who: u64,
    query: PathQuery,
    search: Search,
    started_on: TerrainRevision,
}

impl PathPlanner {
    /// The planner as a snapshot holds it, each unit named by `id_of`, its revisions renamed
    /// by `renaming`. What a unit it names no id for asked is left out: the planner forgets
    /// it next tick (its destination was removed), before it plans anything.
    pub(crate) fn save(
        &self,
        id_of: impl Fn(Entity) -> Option<u64>,
        renaming: &Renaming,
    ) -> SavedPlanner {
        // Requests replaced or forgotten since they were queued are never answered.
        let queue = (self.queue.iter())
            .filter(|r| self.asked.get(&r.who).is_some_and(|&(_, n)| n == r.number))
            .filter_map(|r| Some((id_of(r.who)?, r.from, r.to)))
            .collect();
        let active = self.active.as_ref().and_then(|a| {
            Some(SavedSearch {
                who: id_of(a.who)?,
                query: a.query,
                search: a.search.clone(),
                started_on: renaming.apply(a.started_on),
            })
        });
        let mut answers: Vec<_> = (self.answers.iter())
            .filter_map(|(&who, (to, path))| Some((id_of(who)?, *to, path.clone())))
            .collect();
        answers.sort_unstable_by_key(|&(id, ..)| id);
        let mut hierarchy = self.hierarchy.clone();
        hierarchy.rename_terrain(|r| renaming.apply(r));
        SavedPlanner {
            tiles_per_tick: self.tiles_per_tick,
            queue,
            active,
            answers,
            revision: self.revision.map(|r| renaming.apply(r)),
            regions: self.regions.clone(),
            found: self.found.clone(),
            hierarchy,
        }
    }
}

impl SavedPlanner {
    /// Every id the planner names.
    pub(crate) fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        let queued = self.queue.iter().map(|&(id, ..)| id);
        let active = self.active.iter().map(|a| a.who);
        queued
            .chain(active)
            .chain(self.answers.iter().map(|&(id, ..)| id))
    }

    /// The planner restored, each id named by `entity_of` (every one of [`ids`](Self::ids)),
    /// its revisions renamed for the restored terrain.
    pub(crate) fn restore(
        &self,
        entity_of: impl Fn(u64) -> Entity,
        renaming: &Renaming,
    ) -> PathPlanner {
        let mut planner = PathPlanner {
            tiles_per_tick: self.tiles_per_tick,
            revision: self.revision.map(|r| renaming.apply(r)),
            regions: self.regions.clone(),
            found: self.found.clone(),
            hierarchy: self.hierarchy.clone(),
            ..default()
        };
        planner.hierarchy.rename_terrain(|r| renaming.apply(r));
        for &(id, from, to) in &self.queue {
            let request: Request = planner.numbered(entity_of(id), from, to);
            planner.queue.push_back(request);
        }
        planner.active = self.active.as_ref().map(|a| Active {
            who: entity_of(a.who),
            query: a.query,
            search: a.search.clone(),
            started_on: renaming.apply(a.started_on),
        });
        planner.answers = (self.answers.iter())
            .map(|(id, to, path)| (entity_of(*id), (*to, path.clone())))
            .collect::<EntityHashMap<_>>();
        planner
    }
}
