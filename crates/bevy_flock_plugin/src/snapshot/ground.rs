//! The ground a snapshot holds (the `pathfinding` feature): the terrain, its path planner, the
//! navmesh's planner (the `navmesh` feature), and what the squad systems last saw of it.
//! Without the feature there is none to hold, and a snapshot that holds one cannot be
//! restored.

use bevy::prelude::*;
#[cfg(feature = "pathfinding")]
use serde::{Deserialize, Serialize};

#[cfg(feature = "pathfinding")]
use super::codec::whole;
use super::error::SnapshotError;
use super::units::Units;
#[cfg(feature = "pathfinding")]
use crate::squads::SquadProgress;
#[cfg(feature = "pathfinding")]
use crate::terrain::{Renaming, SavedPlanner, SavedTerrain, TerrainRevision};
#[cfg(feature = "pathfinding")]
use crate::{Destination, PathPlanner, Terrain};
#[cfg(feature = "navmesh")]
use crate::{NavMesh, NavMeshPlanner, navmesh::SavedMeshPlanner};

/// The ground as saved.
#[cfg(feature = "pathfinding")]
#[derive(Debug, Serialize, Deserialize)]
struct SavedGround {
    terrain: Option<SavedTerrain>,
    planner: Option<SavedPlanner>,
    /// The terrain as the formations and the path following last saw it.
    squads_saw: Option<(Option<TerrainRevision>, Option<TerrainRevision>)>,
    /// The navmesh's planner in postcard's bytes, empty where there is none: the same layout
    /// with and without the `navmesh` feature.
    mesh_planner: Vec<u8>,
}

/// `world`'s ground, its planner naming `units` by id; empty where it has neither
/// terrain nor planner.
#[cfg(feature = "pathfinding")]
pub(super) fn take(world: &World, units: &Units) -> Vec<u8> {
    let terrain = world.get_resource::<Terrain>();
    let renaming = Renaming::for_saving(terrain);
    let terrain = terrain.map(Terrain::save);
    // Requests of units whose destination was removed are forgotten next tick, first.
    let id_of = |who: Entity| {
        let unit = world.get_entity(who).ok()?;
        unit.contains::<Destination>().then_some(())?;
        units.id(world, who)
    };
    let planner = (world.get_resource::<PathPlanner>()).map(|p| p.save(id_of, &renaming));
    let rename = |saw: Option<TerrainRevision>| saw.map(|r| renaming.apply(r));
    let squads_saw = (world.get_resource::<SquadProgress>())
        .map(|p| (rename(p.formations_saw), rename(p.paths_saw)));
    #[cfg(feature = "navmesh")]
    let mesh_planner = (world.get_resource::<NavMeshPlanner>())
        .map(|p| p.save(id_of, world.get_resource::<NavMesh>()))
        .map(|p| postcard::to_allocvec(&p).expect("a planner always serialises"))
        .unwrap_or_default();
    #[cfg(not(feature = "navmesh"))]
    let mesh_planner = Vec::new();
    if terrain.is_none() && planner.is_none() && mesh_planner.is_empty() {
        return Vec::new();
    }
    let ground = SavedGround {
        terrain,
        planner,
        squads_saw,
        mesh_planner,
    };
    postcard::to_allocvec(&ground).expect("the ground always serialises")
}

/// The ground ready to write into a world.
#[cfg(feature = "pathfinding")]
pub(super) struct PreparedGround(Option<Ready>);

/// The saved ground, its units found and its terrain restored.
#[cfg(feature = "pathfinding")]
struct Ready {
    terrain: Option<Terrain>,
    planner: Option<PathPlanner>,
    squads_saw: Option<(Option<TerrainRevision>, Option<TerrainRevision>)>,
    #[cfg(feature = "navmesh")]
    mesh_planner: Option<NavMeshPlanner>,
}

/// Reads the saved `bytes` and checks that `world` can take them: its units found, and
/// the `TerrainPlugin` (or `NavMeshPlugin`) added where there is a planner (or a navmesh's).
#[cfg(feature = "pathfinding")]
pub(super) fn prepare(
    bytes: &[u8],
    world: &World,
    units: &Units,
) -> Result<PreparedGround, SnapshotError> {
    if bytes.is_empty() {
        return Ok(PreparedGround(None));
    }
    let malformed = |why: &str| SnapshotError::Malformed(format!("its ground: {why}"));
    let saved: SavedGround = whole(bytes, "ground")?;
    #[cfg(not(feature = "navmesh"))]
    if !saved.mesh_planner.is_empty() {
        return Err(SnapshotError::PluginMissing {
            plugin: "NavMeshPlugin (the navmesh feature)",
        });
    }
    if saved.terrain.as_ref().is_some_and(|t| !t.is_consistent()) {
        return Err(malformed("its tiles do not fill its size"));
    }
    if saved.planner.is_some() && !world.contains_resource::<PathPlanner>() {
        return Err(SnapshotError::PluginMissing {
            plugin: "TerrainPlugin",
        });
    }
    if saved.squads_saw.is_some() && !world.contains_resource::<SquadProgress>() {
        return Err(SnapshotError::PluginMissing {
            plugin: "SquadsPlugin",
        });
    }
    let (terrain, renaming) = match &saved.terrain {
        Some(terrain) => {
            let (terrain, renaming) = terrain.restore();
            (Some(terrain), renaming)
        }
        None => (None, Renaming::without_terrain()),
    };
    let planner = match &saved.planner {
        None => None,
        Some(planner) => {
            for id in planner.ids() {
                units.entity(id).ok_or(SnapshotError::UnitMissing { id })?;
            }
            let entity_of = |id| units.entity(id).unwrap_or(Entity::PLACEHOLDER);
            Some(planner.restore(entity_of, &renaming))
        }
    };
    let rename = |saw: Option<TerrainRevision>| saw.map(|r| renaming.apply(r));
    Ok(PreparedGround(Some(Ready {
        terrain,
        planner,
        squads_saw: saved.squads_saw.map(|(a, b)| (rename(a), rename(b))),
        #[cfg(feature = "navmesh")]
        mesh_planner: prepare_mesh_planner(&saved.mesh_planner, world, units)?,
    })))
}

/// The navmesh's planner of `bytes` (none where they are empty), its units found, ready for
/// `world`, whose `NavMeshPlugin` it needs.
#[cfg(feature = "navmesh")]
fn prepare_mesh_planner(
    bytes: &[u8],
    world: &World,
    units: &Units,
) -> Result<Option<NavMeshPlanner>, SnapshotError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    if !world.contains_resource::<NavMeshPlanner>() {
        return Err(SnapshotError::PluginMissing {
            plugin: "NavMeshPlugin",
        });
    }
    let saved: SavedMeshPlanner = whole(bytes, "navmesh planner")?;
    for id in saved.ids() {
        units.entity(id).ok_or(SnapshotError::UnitMissing { id })?;
    }
    let entity_of = |id| units.entity(id).unwrap_or(Entity::PLACEHOLDER);
    Ok(Some(
        saved.restore(entity_of, world.get_resource::<NavMesh>()),
    ))
}

#[cfg(feature = "pathfinding")]
impl PreparedGround {
    /// Puts the ground into `world`: the terrain (or none), the planner, and what the
    /// squad systems saw. A snapshot without ground leaves the world's as it is.
    pub(super) fn write(self, world: &mut World) {
        let Some(ready) = self.0 else {
            return;
        };
        match ready.terrain {
            Some(terrain) => world.insert_resource(terrain),
            None => {
                world.remove_resource::<Terrain>();
            }
        }
        if let Some(planner) = ready.planner {
            world.insert_resource(planner);
        }
        #[cfg(feature = "navmesh")]
        if let Some(planner) = ready.mesh_planner {
            world.insert_resource(planner);
        }
        if let Some((formations_saw, paths_saw)) = ready.squads_saw {
            let mut progress = world.resource_mut::<SquadProgress>();
            progress.formations_saw = formations_saw;
            progress.paths_saw = paths_saw;
        }
    }
}

/// No ground to save: open ground has no state.
#[cfg(not(feature = "pathfinding"))]
pub(super) fn take(_world: &World, _units: &Units) -> Vec<u8> {
    Vec::new()
}

/// Nothing to write.
#[cfg(not(feature = "pathfinding"))]
pub(super) struct PreparedGround;

/// Fails where the snapshot holds a terrain or a planner, which this build cannot run.
#[cfg(not(feature = "pathfinding"))]
pub(super) fn prepare(
    bytes: &[u8],
    _world: &World,
    _units: &Units,
) -> Result<PreparedGround, SnapshotError> {
    if bytes.is_empty() {
        Ok(PreparedGround)
    } else {
        Err(SnapshotError::PluginMissing {
            plugin: "TerrainPlugin (the pathfinding feature)",
        })
    }
}

#[cfg(not(feature = "pathfinding"))]
impl PreparedGround {
    /// Writes nothing.
    pub(super) fn write(self, _world: &mut World) {}
}
