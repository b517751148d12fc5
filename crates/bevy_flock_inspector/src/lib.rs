//! An in-game panel for `bevy_flock`, on bevy_egui: pick a flock, edit every tuning value
//! live (the whole flock follows at once), apply or save presets, and watch polarisation,
//! neighbours and step time plotted over the last seconds.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_flock_inspector::FlockInspectorPlugin;
//! use bevy_flock_plugin::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, FlockingPlugins::default(), FlockInspectorPlugin))
//!     .run();
//! ```
//!
//! The panel lists the presets in `assets/presets/` (see
//! [`FlockPreset`](bevy_flock_plugin::FlockPreset)) and saves new ones there. Most games use it
//! through the `bevy_flock` facade's `bevy_egui` feature, which also turns on this crate's
//! `render` feature so that the panel is drawn.

mod history;
mod panel;
mod state;

use bevy::prelude::*;
use bevy_egui::{EguiPlugin, EguiPrimaryContextPass};
use bevy_flock_plugin::{FlockMetrics, FlockPresetsPlugin};

/// The bevy_egui this panel is built on, for games that draw egui windows of their own.
pub use bevy_egui;
pub use history::{MetricsHistory, MetricsSample};
pub use state::FlockInspector;

/// Adds the panel (and bevy_egui's `EguiPlugin` and the presets plugin, if the app has none).
pub struct FlockInspectorPlugin;

impl Plugin for FlockInspectorPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        if !app.is_plugin_added::<FlockPresetsPlugin>() {
            app.add_plugins(FlockPresetsPlugin);
        }
        app.init_resource::<FlockInspector>()
            .init_resource::<MetricsHistory>()
            .add_systems(Startup, list_presets)
            .add_systems(Update, record_metrics)
            .add_systems(EguiPrimaryContextPass, panel::draw_panel);
    }
}

fn list_presets(mut inspector: ResMut<FlockInspector>, server: Res<AssetServer>) {
    let folder = inspector.preset_folder.clone();
    inspector.folder = Some(server.load_folder(folder));
}

fn record_metrics(
    time: Res<Time<Real>>,
    metrics: Res<FlockMetrics>,
    mut history: ResMut<MetricsHistory>,
) {
    history.record(MetricsSample {
        seconds: time.elapsed_secs_f64(),
        polarisation: metrics.polarisation,
        mean_neighbours: metrics.mean_neighbours,
        step_ms: metrics.step_time.as_secs_f32() * 1000.0,
    });
}
