//! Presets as assets: the shipped files parse and survive a save and load unchanged; a loaded
//! preset tunes its flocks, a broken file changes nothing, and an edited file applies again.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy_flock::PresetLoadErrors;
use bevy_flock::prelude::*;

use crate::support::*;

/// The presets the crate ships, in `assets/presets/`.
const SHIPPED: [&str; 6] = ["birds", "fish", "insects", "loners", "zombies", "drones"];

fn shipped(name: &str) -> FlockPreset {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/presets")
        .join(format!("{name}.{}", FlockPreset::EXTENSION));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    FlockPreset::from_ron(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// A fresh folder for one test's asset files.
fn asset_folder(test: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("bevy_flock-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

/// A test app that loads assets from `folder`, watching it for changes, with presets.
fn preset_app(folder: &Path) -> App {
    create_test_app_with(FlockingPlugins::default(), |app| {
        app.add_plugins((
            AssetPlugin {
                file_path: folder.to_string_lossy().into_owned(),
                watch_for_changes_override: Some(true),
                ..default()
            },
            FlockPresetsPlugin,
        ));
    })
}

/// Updates the app until `done` holds, for at most 10 s of wall time (loads and file watching
/// run on other threads).
fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn weights(app: &App, flock: Entity) -> FlockWeights {
    *app.world().get::<FlockWeights>(flock).unwrap()
}

#[test]
fn every_shipped_preset_parses_and_survives_a_round_trip() {
    let mut seen = Vec::new();
    for name in SHIPPED {
        let preset = shipped(name);
        let again = FlockPreset::from_ron(&preset.to_ron()).unwrap();
        assert_eq!(again, preset, "{name} changed on the way through RON");
        assert_ne!(
            preset,
            FlockPreset::default(),
            "{name} is only the defaults"
        );
        seen.push(preset);
    }
    // Six different flocks, not one file copied.
    for (i, a) in seen.iter().enumerate() {
        for b in &seen[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn a_saved_preset_loads_back_equal_and_tunes_the_flock() {
    let folder = asset_folder("save");
    let preset = FlockPreset {
        boundary: Some(Boundary::walls(Vec3::splat(-20.0), Vec3::splat(20.0), 3.0)),
        ..shipped("zombies")
    };
    preset.save(&folder.join("saved/mine.preset.ron")).unwrap();
    let mut app = preset_app(&folder);
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<FlockPreset>("saved/mine.preset.ron");
    let flock = app
        .world_mut()
        .spawn((Flock, UsePreset(handle.clone())))
        .id();
    update_until(&mut app, "the saved preset loads", |app| {
        app.world().get::<Boundary>(flock) == preset.boundary.as_ref()
    });
    let loaded = app
        .world()
        .resource::<Assets<FlockPreset>>()
        .get(&handle)
        .cloned();
    assert_eq!(loaded.as_ref(), Some(&preset));
    assert_eq!(weights(&app, flock), preset.weights);
    assert_eq!(
        app.world().get::<SteeringLimits>(flock),
        Some(&preset.limits)
    );
    assert_eq!(
        app.world().get::<Perception>(flock),
        Some(&preset.perception)
    );
}

#[test]
fn a_broken_preset_file_is_reported_and_the_flock_keeps_its_values_until_it_is_fixed() {
    let folder = asset_folder("hot-reload");
    let path = folder.join("fish.preset.ron");
    let fish = shipped("fish");
    fish.save(&path).unwrap();
    let mut app = preset_app(&folder);
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<FlockPreset>("fish.preset.ron");
    let flock = app.world_mut().spawn((Flock, UsePreset(handle))).id();
    update_until(&mut app, "the preset applies", |app| {
        weights(app, flock) == fish.weights
    });

    // A typo: the file no longer parses. It is reported, and nothing changes.
    std::fs::write(&path, fish.to_ron().replace("alignment:", "alignmnt:")).unwrap();
    update_until(&mut app, "the broken file is reported", |app| {
        app.world()
            .resource::<PresetLoadErrors>()
            .0
            .contains_key("fish.preset.ron")
    });
    let message = &app.world().resource::<PresetLoadErrors>().0["fish.preset.ron"];
    assert!(message.contains("alignmnt"), "unhelpful message: {message}");
    for _ in 0..20 {
        app.update();
    }
    assert_eq!(weights(&app, flock), fish.weights);

    // Fixed, with a new value: it applies, and the error goes.
    let mut edited = fish.clone();
    edited.weights.cohesion = 2.5;
    edited.save(&path).unwrap();
    update_until(&mut app, "the edited preset applies", |app| {
        weights(app, flock).cohesion == 2.5
    });
    assert_eq!(weights(&app, flock), edited.weights);
    assert!(app.world().resource::<PresetLoadErrors>().0.is_empty());
}
