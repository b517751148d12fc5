//! The order in which the agents go into the kernel: by their [`AgentId`]s where every agent
//! carries one, else the order a query visits their tables.

use bevy::ecs::query::{IterQueryData, QueryFilter, QueryItem, ROQueryItem};
use bevy::prelude::*;

use crate::AgentId;
use crate::diagnostics::Reporter;

/// Where each agent of the kernel comes from, and the ids in the kernel's order.
#[derive(Default)]
pub(crate) struct AgentOrder {
    /// By kernel index: the agent's table and row, where that is not the query's order.
    pub(crate) sources: Option<Vec<(u32, u32)>>,
    /// By kernel index: the agent's id, where every agent has one (else empty).
    pub(crate) ids: Vec<u64>,
}

impl AgentOrder {
    /// The order of the agents of tables `entities`, with their `ids` (a column per table, where
    /// its agents carry them): by id where every agent has one and no two share one; else the
    /// tables' order, with the first agent found lacking an id, or sharing one, reported once.
    pub(crate) fn of(
        entities: &[&[Entity]],
        ids: &[Option<&[AgentId]>],
        reporter: &mut Reporter,
    ) -> Self {
        if ids.iter().all(Option::is_none) {
            return Self::default();
        }
        let mut keyed = Vec::with_capacity(entities.iter().map(|e| e.len()).sum());
        for (t, (entities, ids)) in entities.iter().zip(ids).enumerate() {
            let Some(ids) = ids else {
                let Some(&lacking) = entities.first() else {
                    continue;
                };
                reporter.warn_once(
                    lacking,
                    "agent id missing",
                    "has no AgentId while other agents have one: agents go in the order Bevy stores them, which can differ between peers",
                );
                return Self::default();
            };
            let rows = (0..ids.len() as u32).map(|row| (t as u32, row));
            keyed.extend(ids.iter().zip(rows).map(|(id, (t, row))| (id.0, t, row)));
        }
        let in_order = keyed.windows(2).all(|w| w[0].0 < w[1].0);
        if !in_order {
            keyed.sort_unstable_by_key(|&(id, ..)| id);
            if let Some(shared) = keyed.windows(2).find(|w| w[0].0 == w[1].0) {
                let (id, t, row) = shared[1];
                let entity = entities[t as usize][row as usize];
                reporter.warn_once(
                    entity,
                    "agent id shared",
                    &format!(
                        "shares AgentId({id}) with another agent: agents go in the order Bevy stores them, which can differ between peers"
                    ),
                );
                return Self::default();
            }
        }
        Self {
            ids: keyed.iter().map(|&(id, ..)| id).collect(),
            sources: (!in_order).then(|| keyed.iter().map(|&(_, t, row)| (t, row)).collect()),
        }
    }
}

/// The order of entities taken one by one where the order matters (flocks numbered, squads and
/// units asking the path planner in turn): those with an id first, by id, then the others in
/// the order a query visits them (a stable sort keeps it). It then hangs on the ids, not on
/// where Bevy stores the entities, which a component given to one changes (and which differs
/// in an app a snapshot was restored into).
pub(crate) fn ids_first(a: Option<u64>, b: Option<u64>) -> core::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (a, b) => b.is_some().cmp(&a.is_some()),
    }
}

/// Runs `each` on every item of `query` in [`ids_first`] order, `key` reading an item's
/// entity and id: in the query's own order where that is already the one (the usual case),
/// else item by item in that order.
pub(crate) fn for_each_by_id<'s, D: IterQueryData, F: QueryFilter>(
    query: &mut Query<'_, 's, D, F>,
    key: impl Fn(ROQueryItem<'_, 's, D>) -> (Entity, Option<u64>),
    mut each: impl FnMut(QueryItem<'_, 's, D>),
) {
    match reordered_by_id(|| query.iter().map(&key)) {
        None => query.iter_mut().for_each(each),
        Some(order) => {
            for entity in order {
                if let Ok(item) = query.get_mut(entity) {
                    each(item);
                }
            }
        }
    }
}

/// The entities a query visits (each with its id, if any) in [`ids_first`] order, or `None`
/// where it already visits them so (the usual case), which is then checked without a copy.
fn reordered_by_id<I>(visit: impl Fn() -> I) -> Option<Vec<Entity>>
where
    I: Iterator<Item = (Entity, Option<u64>)>,
{
    let mut ids = visit().map(|(_, id)| id);
    let first = ids.next()?;
    let mut last = first;
    let in_order = ids.all(|id| {
        let after = ids_first(last, id).is_le();
        last = id;
        after
    });
    if in_order {
        return None;
    }
    let mut all: Vec<(Entity, Option<u64>)> = visit().collect();
    all.sort_by(|a, b| ids_first(a.1, b.1));
    Some(all.into_iter().map(|(entity, _)| entity).collect())
}

/// Sorts `items` (each with its id, by `id`) in [`ids_first`] order: a sum over them then
/// runs in the same order in any app with the same ids (an already sorted slice costs one
/// pass).
pub(crate) fn sort_ids_first<T>(items: &mut [T], id: impl Fn(&T) -> Option<u64>) {
    items.sort_by(|a, b| ids_first(id(a), id(b)));
}
