//! Drawing the panel and applying what it edits.

use bevy::asset::LoadedFolder;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_flock_plugin::{
    Agent, BlendMode, Boundary, DefaultFlock, Flock, FlockMembers, FlockMetrics, FlockPreset,
    FlockWeights, FlockingConfig, InFlock, LevelOfDetail, ObstacleAvoidance, Perception,
    PresetLoadErrors, RuleStyle, SteeringLimits, UsePreset, VelocityObstacles,
};
use egui_plot::{Line, Plot};

use crate::history::MetricsHistory;
use crate::state::FlockInspector;

/// A flock as the panel sees it: who it is, how many, and its tuning to edit.
type EditedFlock = (
    Entity,
    Option<&'static Name>,
    Option<&'static FlockMembers>,
    &'static mut FlockWeights,
    &'static mut SteeringLimits,
    &'static mut Perception,
    &'static mut Boundary,
);

/// The flocks the panel can edit, with their tuning.
#[derive(SystemParam)]
pub(crate) struct Flocks<'w, 's> {
    default_flock: Res<'w, DefaultFlock>,
    flocks: Query<'w, 's, EditedFlock, With<Flock>>,
    loose_agents: Query<'w, 's, (), (With<Agent>, Without<InFlock>)>,
}

impl Flocks<'_, '_> {
    /// How many agents `flock` has.
    fn size(&self, flock: Entity, members: Option<&FlockMembers>) -> usize {
        if flock == **self.default_flock {
            self.loose_agents.iter().count()
        } else {
            members.map_or(0, |m| m.len())
        }
    }

    /// The flock with the most agents (the default flock when none has any): what the panel
    /// opens on.
    fn largest(&self) -> Entity {
        self.flocks
            .iter()
            .map(|(entity, _, members, ..)| (self.size(entity, members), entity))
            .max_by_key(|&(size, entity)| (size, entity == **self.default_flock))
            .map_or(**self.default_flock, |(_, entity)| entity)
    }
}

/// What the panel shows of the simulation.
#[derive(SystemParam)]
pub(crate) struct Readings<'w> {
    metrics: Res<'w, FlockMetrics>,
    history: Res<'w, MetricsHistory>,
}

/// The presets on offer and what went wrong loading them.
#[derive(SystemParam)]
pub(crate) struct Presets<'w> {
    server: Res<'w, AssetServer>,
    presets: Res<'w, Assets<FlockPreset>>,
    folders: Res<'w, Assets<LoadedFolder>>,
    errors: Res<'w, PresetLoadErrors>,
}

impl Presets<'_> {
    /// The loaded presets in the folder and those saved since, by name.
    fn listed(&self, inspector: &FlockInspector) -> Vec<(String, Handle<FlockPreset>)> {
        let in_folder = inspector
            .folder
            .as_ref()
            .and_then(|folder| self.folders.get(folder))
            .into_iter()
            .flat_map(|folder| folder.handles.iter())
            .filter_map(|handle| handle.clone().try_typed::<FlockPreset>().ok());
        let mut listed: Vec<(String, Handle<FlockPreset>)> = Vec::new();
        for handle in in_folder.chain(inspector.saved.iter().cloned()) {
            if !self.presets.contains(&handle) || listed.iter().any(|(_, h)| *h == handle) {
                continue;
            }
            let name = self.server.get_path(&handle).map_or_else(
                || "unnamed".to_owned(),
                |path| preset_name(&path.path().to_string_lossy()),
            );
            listed.push((name, handle));
        }
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        listed
    }
}

/// `presets/fish.preset.ron` -> `fish`.
fn preset_name(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.strip_suffix(&format!(".{}", FlockPreset::EXTENSION))
        .unwrap_or(file)
        .to_owned()
}

pub(crate) fn draw_panel(
    mut contexts: EguiContexts,
    mut inspector: ResMut<FlockInspector>,
    readings: Readings,
    mut config: ResMut<FlockingConfig>,
    mut flocks: Flocks,
    presets: Presets,
    mut commands: Commands,
) -> Result {
    if !inspector.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let selected = inspector
        .selected
        .filter(|flock| flocks.flocks.contains(*flock))
        .unwrap_or_else(|| flocks.largest());
    let mut open = true;
    egui::Window::new("bevy_flock")
        .open(&mut open)
        .default_pos([10.0, 10.0])
        .default_width(300.0)
        .vscroll(true)
        .show(ctx, |ui| {
            let chosen = flock_picker(ui, &flocks, selected);
            inspector.selected = Some(chosen);
            metrics_view(ui, &readings.metrics, &readings.history);
            preset_view(ui, &mut inspector, &presets, &flocks, chosen, &mut commands);
            if let Ok((_, _, _, weights, limits, perception, boundary)) =
                flocks.flocks.get_mut(chosen)
            {
                tuning_view(ui, weights, limits, perception, boundary);
            }
            let mut avoidance = config.avoidance;
            egui::CollapsingHeader::new("Obstacle avoidance (every flock)").show(ui, |ui| {
                avoidance_view(ui, &mut avoidance);
            });
            if avoidance != config.avoidance {
                config.avoidance = avoidance;
            }
            let mut detail = config.level_of_detail;
            egui::CollapsingHeader::new("Level of detail (every flock)").show(ui, |ui| {
                detail_view(ui, &mut detail);
            });
            if detail != config.level_of_detail {
                config.level_of_detail = detail;
            }
        });
    inspector.open = open;
    Ok(())
}

/// A list of the flocks, by name and size; returns the one chosen.
fn flock_picker(ui: &mut egui::Ui, flocks: &Flocks, selected: Entity) -> Entity {
    let label = |entity: Entity, name: Option<&Name>, members: Option<&FlockMembers>| {
        let count = flocks.size(entity, members);
        let name = name.map_or_else(|| format!("Flock {entity}"), |n| n.to_string());
        format!("{name} ({count} agents)")
    };
    let mut chosen = selected;
    let selected_text = flocks
        .flocks
        .get(selected)
        .map(|(e, name, members, ..)| label(e, name, members))
        .unwrap_or_default();
    egui::ComboBox::from_label("flock")
        .selected_text(selected_text)
        .show_ui(ui, |ui| {
            for (entity, name, members, ..) in flocks.flocks.iter() {
                ui.selectable_value(&mut chosen, entity, label(entity, name, members));
            }
        });
    chosen
}

/// This tick's figures and plots of the last seconds.
fn metrics_view(ui: &mut egui::Ui, metrics: &FlockMetrics, history: &MetricsHistory) {
    ui.label(format!(
        "{} agents in all   step {:.2} ms   avoiding {}",
        metrics.agents,
        metrics.step_time.as_secs_f64() * 1000.0,
        metrics.avoiding,
    ));
    ui.label(format!(
        "polarisation {:.2}   neighbours {:.1}",
        metrics.polarisation, metrics.mean_neighbours
    ));
    let plot = |id: &str| {
        Plot::new(id.to_owned())
            .height(70.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .include_x(-history.window)
            .include_x(0.0)
            .include_y(0.0)
    };
    plot("polarisation").include_y(1.0).show(ui, |plot| {
        plot.line(Line::new(
            "polarisation",
            history.series(|s| s.polarisation),
        ));
    });
    plot("neighbours").show(ui, |plot| {
        plot.line(Line::new(
            "mean neighbours",
            history.series(|s| s.mean_neighbours),
        ));
    });
}

/// Apply a preset to the flock, or save its tuning as a new one.
fn preset_view(
    ui: &mut egui::Ui,
    inspector: &mut FlockInspector,
    presets: &Presets,
    flocks: &Flocks,
    flock: Entity,
    commands: &mut Commands,
) {
    egui::CollapsingHeader::new("Presets")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for (name, handle) in presets.listed(inspector) {
                    if ui.button(name).clicked() {
                        commands.entity(flock).insert(UsePreset(handle));
                    }
                }
            });
            ui.horizontal(|ui| {
                ui.text_edit_singleline(&mut inspector.new_preset_name);
                if ui.button("save").clicked()
                    && let Ok((_, _, _, weights, limits, perception, _)) = flocks.flocks.get(flock)
                {
                    let preset = FlockPreset {
                        weights: *weights,
                        limits: *limits,
                        perception: *perception,
                        boundary: None,
                    };
                    let saved = save_preset(inspector, &preset, &presets.server);
                    inspector.save_status = Some(saved);
                }
            });
            match &inspector.save_status {
                Some(Ok(path)) => {
                    ui.label(format!("saved {path}"));
                }
                Some(Err(error)) => {
                    ui.colored_label(egui::Color32::LIGHT_RED, error);
                }
                None => {}
            }
            for (path, error) in &presets.errors.0 {
                ui.colored_label(egui::Color32::LIGHT_RED, format!("{path}: {error}"));
            }
        });
}

/// Writes `preset` under the preset folder with the typed name and loads it, so that it is
/// listed; returns the asset path, or why not.
fn save_preset(
    inspector: &mut FlockInspector,
    preset: &FlockPreset,
    server: &AssetServer,
) -> Result<String, String> {
    let name = inspector.new_preset_name.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "\"{name}\": use letters, digits, '_' and '-' for a preset's name"
        ));
    }
    let asset_path = format!(
        "{}/{name}.{}",
        inspector.preset_folder,
        FlockPreset::EXTENSION
    );
    preset
        .save(&inspector.asset_root.join(&asset_path))
        .map_err(|error| format!("could not save {asset_path}: {error}"))?;
    info!("saved preset {asset_path}");
    // A preset saved over one already loaded is read again; a new one is loaded once.
    if server.get_handle::<FlockPreset>(&asset_path).is_some() {
        server.reload(asset_path.clone());
    } else {
        inspector.saved.push(server.load(asset_path.clone()));
    }
    Ok(asset_path)
}

/// Edits a flock's tuning; each component is written back only when it changed, so that
/// change detection sees real edits only.
fn tuning_view(
    ui: &mut egui::Ui,
    mut weights: Mut<FlockWeights>,
    mut limits: Mut<SteeringLimits>,
    mut perception: Mut<Perception>,
    mut boundary: Mut<Boundary>,
) {
    let (mut w, mut l, mut p, mut b) = (*weights, *limits, *perception, *boundary);
    egui::CollapsingHeader::new("Weights")
        .default_open(true)
        .show(ui, |ui| weights_view(ui, &mut w));
    egui::CollapsingHeader::new("Speed and force")
        .default_open(true)
        .show(ui, |ui| limits_view(ui, &mut l));
    egui::CollapsingHeader::new("Perception")
        .default_open(true)
        .show(ui, |ui| perception_view(ui, &mut p));
    egui::CollapsingHeader::new("Edge").show(ui, |ui| boundary_view(ui, &mut b));
    weights.set_if_neq(w);
    limits.set_if_neq(l);
    perception.set_if_neq(p);
    boundary.set_if_neq(b);
}

/// The rule weights, the blending and the rule style.
fn weights_view(ui: &mut egui::Ui, w: &mut FlockWeights) {
    weight(ui, &mut w.separation, "separation", 10.0);
    weight(ui, &mut w.alignment, "alignment", 5.0);
    weight(ui, &mut w.cohesion, "cohesion", 5.0);
    weight(ui, &mut w.target, "target", 5.0);
    weight(ui, &mut w.collision_avoidance, "collision avoidance", 3.0);
    weight(ui, &mut w.flee, "flee", 3.0);
    weight(
        ui,
        &mut w.noise,
        "noise (rad per tick)",
        std::f32::consts::PI,
    );
    weight(ui, &mut w.leader, "leader", 5.0);
    weight(ui, &mut w.flow, "flow", 5.0);
    weight(ui, &mut w.wander, "wander", 5.0);
    weight(ui, &mut w.wander_rate, "wander rate (rad per sqrt s)", 10.0);
    weight(ui, &mut w.standoff, "standoff from enemies", 10.0);
    egui::ComboBox::from_label("blending")
        .selected_text(format!("{:?}", w.blending))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut w.blending, BlendMode::WeightedSum, "WeightedSum");
            ui.selectable_value(&mut w.blending, BlendMode::Prioritised, "Prioritised");
            ui.selectable_value(&mut w.blending, BlendMode::RuleLimitsOnly, "RuleLimitsOnly");
        });
    egui::ComboBox::from_label("rule style")
        .selected_text(format!("{:?}", w.style))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut w.style, RuleStyle::Vector, "Vector");
            ui.selectable_value(&mut w.style, RuleStyle::DesiredVelocity, "DesiredVelocity");
        });
}

/// Speed, force, turn rate and the radii of arrival and reach.
fn limits_view(ui: &mut egui::Ui, l: &mut SteeringLimits) {
    amount(ui, &mut l.max_speed, "max speed");
    amount(ui, &mut l.min_speed, "min speed");
    amount(ui, &mut l.max_force, "max force");
    amount(ui, &mut l.response_time, "response time (s)");
    amount(ui, &mut l.arrival_radius, "arrival radius");
    optional(ui, &mut l.max_turn_rate, "turn rate limit (deg/s)", 180.0);
    amount(ui, &mut l.reach_radius, "reach radius");
}

/// Radii, field of view, the neighbour cap and the velocity-obstacle settings.
fn perception_view(ui: &mut egui::Ui, p: &mut Perception) {
    amount(ui, &mut p.neighbour_radius, "neighbour radius");
    amount(ui, &mut p.separation_radius, "separation radius");
    ui.add(egui::Slider::new(&mut p.field_of_view, 0.0..=360.0).text("field of view"));
    let mut cap = p.max_neighbours.map(|n| n as f32);
    optional(ui, &mut cap, "neighbour cap", 64.0);
    p.max_neighbours = cap.map(|n| n.round().max(1.0) as u32);
    amount(ui, &mut p.collision_distance, "collision distance");
    amount(ui, &mut p.collision_horizon, "collision horizon (s)");
    egui::ComboBox::from_label("velocity obstacles (ORCA)")
        .selected_text(format!("{:?}", p.velocity_obstacles))
        .show_ui(ui, |ui| {
            for mode in [
                VelocityObstacles::Off,
                VelocityObstacles::Reciprocal,
                VelocityObstacles::Solid,
            ] {
                ui.selectable_value(&mut p.velocity_obstacles, mode, format!("{mode:?}"));
            }
        });
    amount(ui, &mut p.time_gap, "time gap to the body ahead (s)");
    amount(ui, &mut p.avoidance_priority, "avoidance priority");
    layers(ui, &mut p.avoidance_layers, "in layers");
    layers(ui, &mut p.avoidance_mask, "avoids layers");
    ui.checkbox(&mut p.counts_itself, "counts itself (Vicsek)");
}

fn weight(ui: &mut egui::Ui, value: &mut f32, name: &str, top: f32) {
    ui.add(egui::Slider::new(value, 0.0..=top).text(name));
}

/// A non-negative amount in the world's own units, dragged in steps of 1% of itself.
fn amount(ui: &mut egui::Ui, value: &mut f32, name: &str) {
    ui.horizontal(|ui| {
        let speed = (value.abs() * 0.01).max(0.001);
        ui.add(
            egui::DragValue::new(value)
                .speed(speed)
                .range(0.0..=f32::MAX),
        );
        ui.label(name);
    });
}

/// The first [`LAYERS_SHOWN`] bits of a set of layers, a checkbox each, labelled with the
/// layer's number (the rest kept as they are).
fn layers(ui: &mut egui::Ui, bits: &mut u32, name: &str) {
    ui.horizontal(|ui| {
        for layer in 0..LAYERS_SHOWN {
            let mut on = *bits & 1 << layer != 0;
            if ui
                .checkbox(&mut on, layer.to_string())
                .on_hover_text(format!("layer {layer}"))
                .changed()
            {
                *bits ^= 1 << layer;
            }
        }
        ui.label(name);
    });
}

/// How many of the 32 avoidance layers the panel shows.
const LAYERS_SHOWN: u32 = 4;

/// An optional amount: a checkbox, and the value when checked (`fallback` when it is turned
/// on).
fn optional(ui: &mut egui::Ui, value: &mut Option<f32>, name: &str, fallback: f32) {
    ui.horizontal(|ui| {
        let mut on = value.is_some();
        ui.checkbox(&mut on, name);
        match (on, value.as_mut()) {
            (true, Some(v)) => {
                ui.add(egui::DragValue::new(v).speed(1.0).range(0.0..=f32::MAX));
            }
            (true, None) => *value = Some(fallback),
            (false, _) => *value = None,
        }
    });
}

fn boundary_view(ui: &mut egui::Ui, boundary: &mut Boundary) {
    let (min, max) = match *boundary {
        Boundary::Wrap { min, max } | Boundary::Walls { min, max, .. } => (min, max),
        Boundary::None => (Vec3::splat(-25.0), Vec3::splat(25.0)),
    };
    ui.horizontal(|ui| {
        for (label, mode) in [
            ("none", Boundary::None),
            ("wrap", Boundary::Wrap { min, max }),
            (
                "walls",
                Boundary::walls(min, max, (max - min).min_element() * 0.1),
            ),
        ] {
            let current = std::mem::discriminant(boundary) == std::mem::discriminant(&mode);
            if ui.selectable_label(current, label).clicked() && !current {
                *boundary = mode;
            }
        }
    });
    match boundary {
        Boundary::None => {}
        Boundary::Wrap { min, max } => corners(ui, min, max),
        Boundary::Walls {
            min,
            max,
            margin,
            weight: push,
        } => {
            corners(ui, min, max);
            amount(ui, margin, "margin");
            amount(ui, push, "push");
        }
    }
}

fn corners(ui: &mut egui::Ui, min: &mut Vec3, max: &mut Vec3) {
    for (corner, name) in [(min, "min"), (max, "max")] {
        ui.horizontal(|ui| {
            for axis in 0..3 {
                ui.add(egui::DragValue::new(&mut corner[axis]).speed(0.5));
            }
            ui.label(name);
        });
    }
}

fn avoidance_view(ui: &mut egui::Ui, avoidance: &mut ObstacleAvoidance) {
    amount(ui, &mut avoidance.cast_radius, "cast radius");
    amount(ui, &mut avoidance.min_look_ahead, "look-ahead at rest");
    amount(ui, &mut avoidance.max_look_ahead, "look-ahead at max speed");
    ui.add(egui::Slider::new(&mut avoidance.fan_degrees, 0.0..=180.0).text("fan (deg)"));
    ui.add(egui::Slider::new(&mut avoidance.hold_seconds, 0.0..=2.0).text("hold (s)"));
}

/// Level of detail on or off, and its settings when on (it needs a `DetailFocus` entity).
fn detail_view(ui: &mut egui::Ui, detail: &mut Option<LevelOfDetail>) {
    let mut on = detail.is_some();
    ui.checkbox(&mut on, "far agents update less often");
    match (on, detail.as_mut()) {
        (true, Some(d)) => {
            amount(ui, &mut d.near_radius, "full detail within");
            ui.add(egui::Slider::new(&mut d.interval, 1..=16).text("far agents every n ticks"));
        }
        (true, None) => *detail = Some(LevelOfDetail::default()),
        (false, _) => *detail = None,
    }
}

#[cfg(test)]
mod tests {
    use super::preset_name;

    #[test]
    fn a_preset_is_named_after_its_file() {
        assert_eq!(preset_name("presets/fish.preset.ron"), "fish");
        assert_eq!(preset_name("presets\\my_flock.preset.ron"), "my_flock");
        assert_eq!(preset_name("odd.ron"), "odd.ron");
    }
}
