//! Flock presets as assets: a flock's weights, limits and perception in a readable RON file
//! (`*.preset.ron`), loaded through Bevy's asset server and applied to every flock that uses
//! it, again whenever the file changes (with Bevy's `file_watcher` feature).
//!
//! ```ron
//! // assets/presets/fish.preset.ron: fields left out keep their defaults.
//! (
//!     weights: (separation: 1.5, alignment: 1.6, cohesion: 1.2),
//!     limits: (max_speed: 4.0, min_speed: 1.5),
//!     perception: (neighbour_radius: 3.0, separation_radius: 0.9, field_of_view: 300.0),
//! )
//! ```
//!
//! A file that does not parse, or names a field that does not exist (a typo is an error, not
//! a silent default), is reported (in the log, and in [`PresetLoadErrors`] for a panel to
//! show) and changes nothing: flocks keep the values they have.

use std::path::Path;

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoadError, AssetLoadFailedEvent, AssetLoader, LoadContext};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{Boundary, FlockWeights, Perception, SteeringLimits};

/// Loads `*.preset.ron` files as [`FlockPreset`]s and applies them to entities with
/// [`UsePreset`]. Needs Bevy's `AssetPlugin` (in `DefaultPlugins`).
pub struct FlockPresetsPlugin;

impl Plugin for FlockPresetsPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<FlockPreset>()
            .register_asset_loader(FlockPresetLoader)
            .register_type::<UsePreset>()
            .init_resource::<PresetLoadErrors>()
            .add_systems(Update, (record_load_errors, apply_presets).chain());
    }
}

/// A flock's tuning as an asset. Applied to a flock (or an agent) through [`UsePreset`].
#[derive(Asset, TypePath, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct FlockPreset {
    /// Rule weights.
    pub weights: FlockWeights,
    /// Speed and force limits.
    pub limits: SteeringLimits,
    /// Radii and field of view.
    pub perception: Perception,
    /// The world edge, if the preset sets one; `None` (left out of the file) keeps the
    /// flock's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
}

impl FlockPreset {
    /// The file extension presets are loaded by, without the leading dot.
    pub const EXTENSION: &'static str = "preset.ron";

    /// The preset as pretty RON, every field written out.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().struct_names(false);
        ron::ser::to_string_pretty(self, config).expect("a preset always serialises")
    }

    /// Parses a preset from RON; the error names the line and column.
    pub fn from_ron(text: &str) -> Result<Self, ron::error::SpannedError> {
        ron::from_str(text)
    }

    /// Writes the preset to `path` as RON, creating its folder if needed.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)?;
        }
        std::fs::write(path, self.to_ron())
    }

    /// Inserts the preset's tuning components on `entity`.
    pub fn apply(&self, entity: &mut EntityCommands) {
        entity.insert((self.weights, self.limits, self.perception));
        if let Some(boundary) = self.boundary {
            entity.insert(boundary);
        }
    }
}

/// Tunes the entity (a [`Flock`](crate::Flock), or an agent to override its flock) with this
/// preset, as soon as it loads and again whenever it changes. While it is loading, or if its
/// file is broken, the entity keeps its values.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct UsePreset(pub Handle<FlockPreset>);

/// The presets whose last load failed, by asset path, with the reason; a path leaves the
/// map when it loads again. For a panel to show; each failure is also logged once.
#[derive(Resource, Default, Debug)]
pub struct PresetLoadErrors(pub HashMap<String, String>);

/// Why a preset file could not be loaded.
#[derive(Debug)]
pub enum PresetLoadError {
    /// The file could not be read.
    Io(std::io::Error),
    /// The file is not a valid preset.
    Parse(ron::error::SpannedError),
}

impl std::fmt::Display for PresetLoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PresetLoadError::Io(error) => write!(f, "could not read the preset: {error}"),
            PresetLoadError::Parse(error) => write!(f, "not a valid preset: {error}"),
        }
    }
}

impl std::error::Error for PresetLoadError {}

/// Reads `*.preset.ron` files.
#[derive(TypePath, Default)]
pub struct FlockPresetLoader;

impl AssetLoader for FlockPresetLoader {
    type Asset = FlockPreset;
    type Settings = ();
    type Error = PresetLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<FlockPreset, PresetLoadError> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(PresetLoadError::Io)?;
        ron::de::from_bytes(&bytes).map_err(PresetLoadError::Parse)
    }

    fn extensions(&self) -> &[&str] {
        &[FlockPreset::EXTENSION]
    }
}

fn record_load_errors(
    mut failed: MessageReader<AssetLoadFailedEvent<FlockPreset>>,
    mut events: MessageReader<AssetEvent<FlockPreset>>,
    server: Res<AssetServer>,
    mut errors: ResMut<PresetLoadErrors>,
) {
    for failure in failed.read() {
        let path = failure.path.to_string();
        let reason = match &failure.error {
            AssetLoadError::AssetLoaderError(error) => match error.error().downcast_ref() {
                Some(preset_error @ PresetLoadError::Parse(_)) => preset_error.to_string(),
                _ => error.error().to_string(),
            },
            other => other.to_string(),
        };
        // Bevy's error reports may carry a backtrace after the first line.
        let reason = reason.lines().next().unwrap_or_default().to_owned();
        // A saved file can be seen twice by the watcher: report each new reason once.
        if errors.0.get(&path) != Some(&reason) {
            error!("preset {path} not applied, flocks keep their values: {reason}");
            errors.0.insert(path, reason);
        }
    }
    for event in events.read() {
        if let AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id } = event
            && let Some(path) = server.get_path(*id)
        {
            errors.0.remove(&path.to_string());
        }
    }
}

fn apply_presets(
    mut commands: Commands,
    mut events: MessageReader<AssetEvent<FlockPreset>>,
    presets: Res<Assets<FlockPreset>>,
    users: Query<(Entity, Ref<UsePreset>)>,
) {
    let changed: HashSet<AssetId<FlockPreset>> = events
        .read()
        .filter_map(|event| match event {
            AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id } => Some(*id),
            _ => None,
        })
        .collect();
    for (entity, preset) in &users {
        if !preset.is_changed() && !changed.contains(&preset.0.id()) {
            continue;
        }
        if let Some(tuning) = presets.get(&preset.0) {
            tuning.apply(&mut commands.entity(entity));
        }
    }
}
