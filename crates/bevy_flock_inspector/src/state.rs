//! [`FlockInspector`]: the panel's state, which a game may read or set.

use std::path::PathBuf;

use bevy::asset::LoadedFolder;
use bevy::asset::io::file::FileAssetReader;
use bevy::prelude::*;
use bevy_flock_plugin::FlockPreset;

/// The panel's state; change it from game code to open, close or point the panel.
#[derive(Resource)]
pub struct FlockInspector {
    /// Whether the panel is shown.
    pub open: bool,
    /// The flock being edited; `None` edits the default flock.
    pub selected: Option<Entity>,
    /// The folder under the asset root that holds the presets, listed and saved to.
    pub preset_folder: String,
    /// Where the asset root is on disk, for saving presets: Bevy's default `assets` folder
    /// unless the game's `AssetPlugin::file_path` says otherwise.
    pub asset_root: PathBuf,
    /// Name typed for the next saved preset.
    pub(crate) new_preset_name: String,
    /// What the last save did, for the panel.
    pub(crate) save_status: Option<Result<String, String>>,
    /// The preset folder, loaded at start-up (and again when it changes, with hot reload).
    pub(crate) folder: Option<Handle<LoadedFolder>>,
    /// Presets saved since, until the folder lists them.
    pub(crate) saved: Vec<Handle<FlockPreset>>,
}

impl Default for FlockInspector {
    fn default() -> Self {
        Self {
            open: true,
            selected: None,
            preset_folder: "presets".into(),
            asset_root: FileAssetReader::get_base_path().join("assets"),
            new_preset_name: "my_flock".into(),
            save_status: None,
            folder: None,
            saved: Vec::new(),
        }
    }
}
