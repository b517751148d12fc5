//! Sliders for the examples' controls: a bar that fills up to the value, with the setting's
//! name and value written on it. Bevy's headless `Slider` widget does the pointer work (click
//! to set, drag to adjust); [`SliderStylePlugin`] keeps the value and the drawing in step.
//!
//! The example reacts to `On<ValueChange<f32>>` from the slider entity, which carries the
//! example's `key` component, and may set a slider's value itself by inserting a new
//! `SliderValue` (after a preset, say).

use std::ops::RangeInclusive;

use bevy::prelude::*;
use bevy::ui_widgets::{
    Slider, SliderPrecision, SliderRange, SliderValue, TrackClick, ValueChange,
};

const TRACK: Color = Color::srgba(0.12, 0.14, 0.18, 0.85);
const FILL: Color = Color::srgba(0.25, 0.42, 0.62, 0.95);

/// Applies dragged values to the sliders and redraws their bars and captions.
pub struct SliderStylePlugin;

impl Plugin for SliderStylePlugin {
    fn build(&self, app: &mut App) {
        app.add_observer(take_value)
            .add_systems(PostUpdate, draw_sliders);
    }
}

/// What a slider is called on screen.
#[derive(Component)]
struct Caption(&'static str);

/// The part of the bar that shows the value.
#[derive(Component)]
struct Fill;

/// A slider over `range` that shows `precision` decimals, carrying `key`.
pub fn slider(
    key: impl Component,
    name: &'static str,
    range: RangeInclusive<f32>,
    precision: i32,
) -> impl Bundle {
    (
        key,
        Caption(name),
        Slider {
            track_click: TrackClick::Snap,
            ..default()
        },
        SliderValue(*range.start()),
        SliderRange::from_range(range),
        SliderPrecision(precision),
        Node {
            width: px(240),
            height: px(22),
            margin: UiRect::all(px(2)),
            align_items: AlignItems::Center,
            ..default()
        },
        BackgroundColor(TRACK),
        children![
            (
                Fill,
                Node {
                    position_type: PositionType::Absolute,
                    left: px(0),
                    top: px(0),
                    bottom: px(0),
                    ..default()
                },
                BackgroundColor(FILL),
                Pickable::IGNORE,
            ),
            (
                Text::new(name),
                TextFont::from_font_size(13.0),
                TextColor(Color::WHITE),
                Node {
                    margin: UiRect::left(px(8)),
                    ..default()
                },
                Pickable::IGNORE,
            ),
        ],
    )
}

/// A slider keeps the value it is dragged to.
fn take_value(
    change: On<ValueChange<f32>>,
    sliders: Query<(), With<Slider>>,
    mut commands: Commands,
) {
    if sliders.contains(change.source) {
        commands
            .entity(change.source)
            .insert(SliderValue(change.value));
    }
}

fn draw_sliders(
    sliders: Query<
        (
            &SliderValue,
            &SliderRange,
            &SliderPrecision,
            &Caption,
            &Children,
        ),
        Changed<SliderValue>,
    >,
    mut fills: Query<&mut Node, With<Fill>>,
    mut texts: Query<&mut Text>,
) {
    for (value, range, precision, caption, children) in &sliders {
        let decimals = precision.0.max(0) as usize;
        for child in children.iter() {
            if let Ok(mut fill) = fills.get_mut(child) {
                fill.width = percent(range.thumb_position(value.0) * 100.0);
            }
            if let Ok(mut text) = texts.get_mut(child) {
                text.0 = format!("{} {:.*}", caption.0, decimals, value.0);
            }
        }
    }
}
