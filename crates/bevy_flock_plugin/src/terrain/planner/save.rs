//! The path planner as a snapshot holds it: the requests waiting, in their order, the search
//! being run as far as it got, the answers not yet taken, and the work kept for reuse (paths,
//! clusters, regions half worked out), which the budget of the ticks to come depends on.

use std::collections::VecDeque;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::super::hierarchy::Hierarchy;
use super::super::map::TerrainRevision;
use super::super::regions::RegionsBuilder;
use super::super::routes::PathQuery;
use super::super::saved::Renaming;
use super::{Active, PathPlanner, Search};
use crate::requests::{Requests, SavedAnswers, SavedQueue};

/// A [`PathPlanner`] as saved, each unit named by its stable id.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SavedPlanner {
    tiles_per_tick: u32,
    /// The requests still wanted, oldest first.
    queue: SavedQueue,
    active: Option<SavedSearch>,
    /// Answers not yet taken.
    answers: SavedAnswers,
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
        let (queue, answers) = self.requests.save(&id_of);
        let active = self.active.as_ref().and_then(|a| {
            Some(SavedSearch {
                who: id_of(a.who)?,
                query: a.query,
                search: a.search.clone(),
                started_on: renaming.apply(a.started_on),
            })
        });
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
            requests: Requests::restore(&self.queue, &self.answers, &entity_of),
            revision: self.revision.map(|r| renaming.apply(r)),
            regions: self.regions.clone(),
            found: self.found.clone(),
            hierarchy: self.hierarchy.clone(),
            ..default()
        };
        planner.hierarchy.rename_terrain(|r| renaming.apply(r));
        planner.active = self.active.as_ref().map(|a| Active {
            who: entity_of(a.who),
            query: a.query,
            search: a.search.clone(),
            started_on: renaming.apply(a.started_on),
        });
        planner
    }
}
