//! Text buttons for the examples' on-screen controls: `button(action, label)` spawns one that
//! carries the example's `action` component; the example reacts to [`pressed`] ones.

use bevy::prelude::*;

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

/// Marks the button of the option in force, drawn in a colour of its own.
#[derive(Component)]
pub struct Selected;

/// A button with `label`, carrying `action`.
pub fn button(action: impl Component, label: impl Into<String>) -> impl Bundle {
    (
        action,
        Button,
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

/// The actions of the buttons pressed this frame.
pub fn pressed<'a, A: Component>(
    buttons: &'a Query<(&Interaction, &A), Changed<Interaction>>,
) -> impl Iterator<Item = &'a A> {
    buttons
        .iter()
        .filter(|(interaction, _)| **interaction == Interaction::Pressed)
        .map(|(_, action)| action)
}

fn colour_buttons(mut buttons: Query<(&Interaction, Has<Selected>, &mut BackgroundColor)>) {
    for (interaction, selected, mut colour) in &mut buttons {
        colour.set_if_neq(BackgroundColor(match (interaction, selected) {
            (Interaction::Pressed, _) => PRESSED,
            (Interaction::Hovered, _) => HOVERED,
            (Interaction::None, true) => SELECTED,
            (Interaction::None, false) => IDLE,
        }));
    }
}
