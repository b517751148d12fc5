//! Text buttons for the examples' on-screen controls: `button(action, label)` spawns one of
//! Bevy's headless [`Button`] widgets that carries the example's `action` component; the
//! example reads the ones pressed this frame through [`PressedButtons`]. The option in force is
//! marked with Bevy's [`Selected`], which also tells screen readers.

use bevy::picking::hover::Hovered;
use bevy::prelude::*;
use bevy::ui::{Pressed, Selectable, Selected};
use bevy::ui_widgets::Button;

const IDLE: Color = Color::srgba(0.12, 0.14, 0.18, 0.85);
const HOVERED: Color = Color::srgba(0.22, 0.26, 0.34, 0.95);
const PRESSED: Color = Color::srgba(0.35, 0.45, 0.6, 1.0);
/// Background of a button whose option is the one in force.
const SELECTED: Color = Color::srgba(0.2, 0.42, 0.3, 0.95);

/// Colours buttons as the pointer hovers and presses them.
pub struct ButtonStylePlugin;

impl Plugin for ButtonStylePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, colour_buttons);
    }
}

/// The `A` of each button pressed down this frame.
pub type PressedButtons<'w, 's, A> = Query<'w, 's, &'static A, (With<Button>, Added<Pressed>)>;

/// A button with `label`, carrying `action`.
pub fn button(action: impl Component, label: impl Into<String>) -> impl Bundle {
    (
        action,
        Button,
        Hovered::default(),
        Selectable,
        Node {
            padding: UiRect::axes(px(8), px(4)),
            margin: UiRect::all(px(2)),
            ..default()
        },
        BackgroundColor(IDLE),
        children![(
            Text::new(label),
            TextFont::from_font_size(14.0),
            TextColor(Color::WHITE),
        )],
    )
}

/// A panel in a corner of the window that stacks its children in rows.
pub fn panel(corner: (Val, Val)) -> impl Bundle {
    (
        Node {
            position_type: PositionType::Absolute,
            left: corner.0,
            top: corner.1,
            flex_direction: FlexDirection::Column,
            row_gap: px(4),
            ..default()
        },
        Pickable::IGNORE,
    )
}

/// A row of controls inside a [`panel`].
pub fn row() -> impl Bundle {
    Node {
        flex_direction: FlexDirection::Row,
        align_items: AlignItems::Center,
        ..default()
    }
}

/// What a button's colour follows: pressed, hovered, selected.
type ButtonState = (Has<Pressed>, &'static Hovered, Has<Selected>);

fn colour_buttons(mut buttons: Query<(ButtonState, &mut BackgroundColor), With<Button>>) {
    for ((pressed, hovered, selected), mut colour) in &mut buttons {
        colour.set_if_neq(BackgroundColor(match (pressed, hovered.0, selected) {
            (true, _, _) => PRESSED,
            (false, true, _) => HOVERED,
            (false, false, true) => SELECTED,
            (false, false, false) => IDLE,
        }));
    }
}
